"""Staff rota: paid hours, working-time checks and cover on the clinic floor.

A shift is a dict like
{"staff": "Anna", "role": "nurse", "date": date(2024, 3, 4),
 "start": "08:00", "end": "16:30", "break": 30}
"""
from datetime import datetime, timedelta

from scheduling import format_minutes, parse_hhmm

ROLES = {"dentist", "hygienist", "nurse", "receptionist"}
MAX_WEEKLY_HOURS = 48
MIN_REST_HOURS = 11
MIN_BREAK_OVER_6H = 20
OVERTIME_MULTIPLIER = 1.5
# minimum cover while the doors are open
MIN_STAFF = {"dentist": 1, "nurse": 1, "receptionist": 1}


def shift_hours(shift: dict) -> float:
    """Paid hours for one shift, after taking off the unpaid break."""
    start, end = parse_hhmm(shift["start"]), parse_hhmm(shift["end"])
    if end <= start:
        raise ValueError(f"shift for {shift.get('staff')} ends before it starts")
    unpaid = shift.get("break", 0)
    if unpaid < 0:
        raise ValueError("break can't be negative")
    worked = end - start - unpaid
    if worked <= 0:
        raise ValueError("break is as long as the shift")
    return round(worked / 60, 2)


def weekly_hours(shifts):
    """Paid hours per person per ISO week, e.g. {'Anna': {'2024-W10': 37.5}}."""
    totals = {}
    for s in shifts:
        if s.get("role") not in ROLES:
            raise ValueError(f"unknown role {s.get('role')!r} for {s.get('staff')}")
        year, week, _ = s["date"].isocalendar()
        key = f"{year}-W{week:02d}"
        person = totals.setdefault(s["staff"], {})
        person[key] = round(person.get(key, 0) + shift_hours(s), 2)
    return totals


def rota_violations(shifts, max_weekly=MAX_WEEKLY_HOURS, min_rest=MIN_REST_HOURS):
    """List working-time problems: long weeks, missing breaks, short rests, double booking."""
    problems = []
    for staff, weeks in sorted(weekly_hours(shifts).items()):
        for week, hours in sorted(weeks.items()):
            if hours > max_weekly:
                problems.append(f"{staff}: {hours}h in {week} (max {max_weekly})")
    spans = {}
    for s in shifts:
        start, end = parse_hhmm(s["start"]), parse_hhmm(s["end"])
        if end - start > 360 and s.get("break", 0) < MIN_BREAK_OVER_6H:
            problems.append(f"{s['staff']}: no {MIN_BREAK_OVER_6H} min break on {s['date']}")
        midnight = datetime(s["date"].year, s["date"].month, s["date"].day)
        spans.setdefault(s["staff"], []).append(
            (midnight + timedelta(minutes=start), midnight + timedelta(minutes=end)))
    for staff, own in sorted(spans.items()):
        own.sort()
        for (_, end0), (start1, _) in zip(own, own[1:]):
            gap = (start1 - end0).total_seconds() / 3600
            if gap < 0:
                problems.append(f"{staff}: overlapping shifts on {start1.date()}")
            elif gap < min_rest and start1.date() != end0.date():
                problems.append(f"{staff}: only {gap:.1f}h rest before {start1.date()}")
    return problems


def coverage_gaps(shifts, day, open_time="08:00", close_time="18:00", required=None, step=15):
    """Periods on `day` with fewer staff of a role than required.

    Returns (role, 'HH:MM', 'HH:MM') tuples, merged into continuous ranges.
    """
    if step <= 0:
        raise ValueError("step must be positive")
    required = MIN_STAFF if required is None else required
    start, end = parse_hhmm(open_time), parse_hhmm(close_time)
    todays = [s for s in shifts if s["date"] == day]
    gaps = []
    for role, needed in sorted(required.items()):
        gap_start = None
        for t in range(start, end + step, step):
            on_duty = sum(1 for s in todays
                          if s["role"] == role and parse_hhmm(s["start"]) <= t < parse_hhmm(s["end"]))
            short = t < end and on_duty < needed
            if short and gap_start is None:
                gap_start = t
            elif not short and gap_start is not None:
                gaps.append((role, format_minutes(gap_start), format_minutes(min(t, end))))
                gap_start = None
    return gaps


def overtime_summary(hours_by_week, contracted, hourly_rates):
    """Overtime hours and pay per person, from weekly_hours() output.

    Staff without contracted hours (locums, partners) get no overtime.
    """
    summary = {}
    for staff, weeks in sorted(hours_by_week.items()):
        limit = contracted.get(staff)
        if limit is None:
            continue
        if staff not in hourly_rates:
            raise ValueError(f"no hourly rate for {staff}")
        extra = sum(hours - limit for hours in weeks.values() if hours > limit)
        summary[staff] = {
            "overtime_hours": round(extra, 2),
            "overtime_pay": round(extra * hourly_rates[staff] * OVERTIME_MULTIPLIER, 2),
        }
    return summary
