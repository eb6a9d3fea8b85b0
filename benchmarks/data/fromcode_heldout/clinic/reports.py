"""Numbers for the monthly practice report."""
from collections import Counter
from decimal import Decimal, ROUND_HALF_UP

STATUSES = {"attended", "no_show", "cancelled", "late_cancel"}
MISSED = {"no_show", "late_cancel"}
CENT = Decimal("0.01")


def count_by(appointments, field, statuses=None):
    """Count appointments by a field such as 'treatment' or 'dentist', most common first."""
    if not field:
        raise ValueError("field is required")
    counts = Counter()
    for appt in appointments:
        if statuses and appt.get("status") not in statuses:
            continue
        counts[appt.get(field) or "unknown"] += 1
    return dict(counts.most_common())


def no_show_rate(appointments, group_by=None):
    """Share of appointments the patient missed; cancellations made in good time don't count.

    >>> no_show_rate([{"status": "attended"}, {"status": "no_show"}, {"status": "cancelled"}])
    0.5
    """
    buckets = {}
    for appt in appointments:
        status = appt.get("status")
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        if status == "cancelled":
            continue
        key = appt.get(group_by) if group_by else None
        seen, missed = buckets.get(key, (0, 0))
        buckets[key] = (seen + 1, missed + (status in MISSED))
    rates = {key: round(missed / seen, 3) for key, (seen, missed) in buckets.items()}
    if group_by is None:
        return rates.get(None, 0.0)
    return rates


def chair_utilisation(appointments, available_minutes):
    """Percentage of open chair time used by attended appointments, per chair."""
    used = dict.fromkeys(available_minutes, 0)
    for appt in appointments:
        if appt.get("status") != "attended":
            continue
        chair = appt.get("chair")
        if chair not in used:
            raise ValueError(f"unknown chair {chair!r}")
        used[chair] += appt.get("minutes", 0)
    result = {}
    for chair, available in available_minutes.items():
        if available <= 0:
            result[chair] = 0.0
        else:
            result[chair] = round(100 * used[chair] / available, 1)
    return result


def revenue_summary(invoices):
    """Billed, insurer, patient, paid and outstanding totals for a batch of invoices."""
    keys = ("billed", "insurer", "patient", "paid", "outstanding")
    totals = {k: Decimal("0.00") for k in keys}
    for inv in invoices:
        total = Decimal(str(inv["total"]))
        insurer = Decimal(str(inv.get("insurer", 0)))
        paid = Decimal(str(inv.get("paid", 0)))
        if total < 0 or insurer < 0 or insurer > total:
            raise ValueError(f"inconsistent invoice {inv.get('number')!r}")
        patient = total - insurer
        totals["billed"] += total
        totals["insurer"] += insurer
        totals["patient"] += patient
        totals["paid"] += paid
        totals["outstanding"] += max(patient - paid, Decimal("0"))
    totals["count"] = len(invoices)
    if invoices:
        totals["average"] = (totals["billed"] / len(invoices)).quantize(CENT, rounding=ROUND_HALF_UP)
    else:
        totals["average"] = Decimal("0.00")
    return totals


def month_over_month(current: dict, previous: dict) -> dict:
    """Percentage change of each numeric metric found in both months (None if last month was 0)."""
    changes = {}
    for key, now in current.items():
        if key not in previous or isinstance(now, bool):
            continue
        before = previous[key]
        if not isinstance(now, (int, float, Decimal)) or not isinstance(before, (int, float, Decimal)):
            continue
        now, before = float(now), float(before)
        if before == 0:
            changes[key] = 0.0 if now == 0 else None
        else:
            changes[key] = round((now - before) / before * 100, 1)
    return changes
