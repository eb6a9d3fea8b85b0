"""Loan periods, due dates and overdue fines for the lending shelves."""
from datetime import date, timedelta
from decimal import Decimal, ROUND_HALF_UP

LOAN_DAYS = {
    "book": 21,
    "audiobook": 14,
    "dvd": 7,
    "magazine": 7,
}
DAILY_FINE = {
    "book": Decimal("0.20"),
    "audiobook": Decimal("0.30"),
    "dvd": Decimal("0.50"),
    "magazine": Decimal("0.10"),
}
MAX_FINE = Decimal("8.00")
MAX_RENEWALS = 2
GRACE_DAYS = 2
CLOSED_WEEKDAYS = {6}  # Sundays
BANK_HOLIDAYS = frozenset({
    date(2024, 12, 25), date(2024, 12, 26),
    date(2025, 1, 1), date(2025, 4, 18), date(2025, 4, 21),
    date(2025, 5, 5), date(2025, 5, 26), date(2025, 8, 25),
    date(2025, 12, 25), date(2025, 12, 26),
})


def next_open_day(day: date, holidays=BANK_HOLIDAYS) -> date:
    """Return `day` if the library is open then, otherwise the next day it is."""
    for _ in range(30):
        if day.weekday() not in CLOSED_WEEKDAYS and day not in holidays:
            return day
        day += timedelta(days=1)
    raise ValueError(f"no opening day found within 30 days of {day}")


def due_date(checkout: date, item_type: str, holidays=BANK_HOLIDAYS) -> date:
    """Work out when an item is due back.

    Items falling due on a closed day roll forward to the next open day.

    >>> due_date(date(2024, 3, 1), "dvd")
    datetime.date(2024, 3, 8)
    >>> due_date(date(2024, 12, 4), "book")
    datetime.date(2024, 12, 27)
    """
    kind = item_type.strip().lower()
    if kind not in LOAN_DAYS:
        raise ValueError(f"unknown item type: {item_type!r}")
    return next_open_day(checkout + timedelta(days=LOAN_DAYS[kind]), holidays)


def days_overdue(due, returned):
    if returned is None:
        raise ValueError("item has not been returned")
    if returned <= due:
        return 0
    late = (returned - due).days
    if late <= GRACE_DAYS:
        return 0
    return late


def overdue_fine(item_type, due, returned, concession=False):
    kind = item_type.strip().lower()
    if kind not in DAILY_FINE:
        raise ValueError(f"no fine rate for item type {item_type!r}")
    late = days_overdue(due, returned)
    if late == 0:
        return Decimal("0.00")
    fine = DAILY_FINE[kind] * late
    if concession:
        fine = fine / 2
    fine = min(fine, MAX_FINE)
    return fine.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def renew_loan(current_due: date, item_type: str, renewals: int, on: date,
               has_holds: bool = False) -> date:
    """Give a new due date for a renewal made on `on`; never shortens the loan."""
    if renewals >= MAX_RENEWALS:
        raise ValueError("renewal limit reached")
    if has_holds:
        raise ValueError("item is reserved by another member")
    if on > current_due:
        raise ValueError("overdue items must be returned before renewing")
    kind = item_type.strip().lower()
    if kind not in LOAN_DAYS:
        raise ValueError(f"unknown item type: {item_type!r}")
    new_due = next_open_day(on + timedelta(days=LOAN_DAYS[kind]))
    return max(new_due, current_due)


def loan_status(due, on, returned=None, warn_days=3):
    if returned is not None:
        return "returned late" if days_overdue(due, returned) else "returned"
    if on > due:
        if days_overdue(due, on):
            return "overdue"
        return "in grace period"
    if (due - on).days <= warn_days:
        return "due soon"
    return "on loan"
