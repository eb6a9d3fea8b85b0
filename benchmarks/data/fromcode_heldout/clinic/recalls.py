"""Work out when patients are due back for a check-up and which reminder to send."""
import calendar
from datetime import date, timedelta

# months between check-ups by caries/perio risk
RECALL_MONTHS = {"low": 18, "medium": 9, "high": 3}
MIN_RECALL_MONTHS = 3
MAX_CHILD_RECALL_MONTHS = 12
FIRST_REMINDER_DAYS = 21
MIN_DAYS_BETWEEN_REMINDERS = 10


def add_months(d: date, months: int) -> date:
    """Add calendar months, clamping to the end of shorter months.

    >>> add_months(date(2024, 8, 31), 6)
    datetime.date(2025, 2, 28)
    """
    if not isinstance(months, int):
        raise ValueError("months must be an integer")
    index = d.year * 12 + (d.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    if not 1 <= year <= 9999:
        raise ValueError("date out of range")
    last_day = calendar.monthrange(year, month)[1]
    return date(year, month, min(d.day, last_day))


def recall_interval(risk="medium", age=None, periodontal=False, smoker=False):
    """Months until the next check-up for a patient's risk profile."""
    risk = (risk or "").strip().lower()
    if risk not in RECALL_MONTHS:
        raise ValueError(f"unknown risk level {risk!r}")
    months = RECALL_MONTHS[risk]
    if periodontal:
        months = min(months, 3)
    elif smoker:
        months = min(months, 6)
    if age is not None:
        if age < 0:
            raise ValueError("negative age")
        if age < 18:
            months = min(months, MAX_CHILD_RECALL_MONTHS)
    return max(months, MIN_RECALL_MONTHS)


def next_recall_date(last_visit, risk="medium", age=None, periodontal=False, smoker=False):
    """Date the next check-up is due; Sundays are moved to the Monday."""
    if isinstance(last_visit, str):
        last_visit = date.fromisoformat(last_visit)
    if not isinstance(last_visit, date):
        raise ValueError(f"bad last visit date: {last_visit!r}")
    due = add_months(last_visit, recall_interval(risk, age, periodontal, smoker))
    if due.weekday() == 6:
        due += timedelta(days=1)
    return due


def due_for_recall(patients, as_of, window_days=14):
    """(patient_id, due_date) for everyone due within window_days of as_of, earliest first.

    Patients who opted out or already have a future booking are skipped.
    """
    if window_days < 0:
        raise ValueError("window_days can't be negative")
    cutoff = as_of + timedelta(days=window_days)
    due = []
    for p in patients:
        if p.get("opted_out") or not p.get("last_visit"):
            continue
        booked = p.get("next_appointment")
        if booked and booked >= as_of:
            continue
        age = None
        dob = p.get("dob")
        if dob:
            age = as_of.year - dob.year - ((as_of.month, as_of.day) < (dob.month, dob.day))
        when = next_recall_date(p["last_visit"], p.get("risk", "medium"), age,
                                p.get("periodontal", False), p.get("smoker", False))
        if when <= cutoff:
            due.append((p["id"], when))
    due.sort(key=lambda pair: (pair[1], str(pair[0])))
    return due


def reminder_action(due_date, as_of, reminders_sent=0, last_sent=None):
    """Decide today's reminder: 'none', 'first', 'second', 'call' or 'archive'."""
    if reminders_sent < 0:
        raise ValueError("reminders_sent can't be negative")
    days_to_due = (due_date - as_of).days
    if days_to_due <= -180:
        return "archive"
    if last_sent is not None and (as_of - last_sent).days < MIN_DAYS_BETWEEN_REMINDERS:
        return "none"
    if days_to_due > FIRST_REMINDER_DAYS:
        return "none"
    if reminders_sent == 0:
        return "first"
    if reminders_sent == 1:
        return "second" if days_to_due <= 0 else "none"
    if reminders_sent == 2 and days_to_due <= -30:
        return "call"
    return "none"
