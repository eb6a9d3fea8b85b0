"""Staff shift hours and weekly pay."""

import re
from collections import defaultdict
from decimal import Decimal, ROUND_HALF_UP

CLOCK_RE = re.compile(r"^\s*(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?\s*$", re.IGNORECASE)

MINUTES_PER_DAY = 24 * 60
MAX_SHIFT_HOURS = 14
OVERTIME_THRESHOLD = 40.0
OVERTIME_MULTIPLIER = Decimal("1.5")

# (shift longer than this many minutes, unpaid break that must be taken)
BREAK_RULES = [
    (8 * 60, 45),
    (6 * 60, 30),
]


def parse_clock(text):
    """Minutes after midnight for "5am", "5:30 pm", "17:30" and the like.

    >>> parse_clock("4:30am")
    270
    >>> parse_clock("12pm")
    720
    """
    m = CLOCK_RE.match(text or "")
    if not m:
        raise ValueError(f"can't read time {text!r}")
    hour = int(m.group(1))
    minute = int(m.group(2) or 0)
    suffix = (m.group(3) or "").lower().replace(".", "")
    if minute > 59:
        raise ValueError(f"bad minutes in {text!r}")
    if suffix:
        if not 1 <= hour <= 12:
            raise ValueError(f"bad hour for 12-hour clock: {text!r}")
        hour = hour % 12 + (12 if suffix == "pm" else 0)
    elif hour > 23:
        raise ValueError(f"bad hour in {text!r}")
    return hour * 60 + minute


def shift_hours(start: str, end: str, break_minutes=None) -> float:
    """Paid hours for a shift; bakers starting late evening can run past midnight."""
    start_min = parse_clock(start)
    end_min = parse_clock(end)
    worked = end_min - start_min
    if worked <= 0:
        worked += MINUTES_PER_DAY
    if worked > MAX_SHIFT_HOURS * 60:
        raise ValueError(f"shift {start}-{end} is longer than {MAX_SHIFT_HOURS}h")
    if break_minutes is None:
        break_minutes = 0
        for longer_than, required in BREAK_RULES:
            if worked > longer_than:
                break_minutes = required
                break
    if break_minutes < 0 or break_minutes >= worked:
        raise ValueError("break doesn't fit in the shift")
    return round((worked - break_minutes) / 60, 2)


def weekly_hours(shifts):
    totals = defaultdict(float)
    for shift in shifts:
        name = shift.get("staff", "").strip()
        if not name:
            raise ValueError("shift without a staff name")
        totals[name] += shift_hours(shift["start"], shift["end"], shift.get("break"))
    return {name: round(hours, 2) for name, hours in sorted(totals.items())}


def split_overtime(hours, threshold=OVERTIME_THRESHOLD):
    """Split a week's hours into (regular, overtime).

    >>> split_overtime(43.5)
    (40.0, 3.5)
    """
    if hours < 0:
        raise ValueError("hours can't be negative")
    if threshold <= 0:
        raise ValueError("threshold must be positive")
    if hours <= threshold:
        return float(hours), 0.0
    return float(threshold), round(hours - threshold, 2)


def weekly_pay(shifts, rates: dict) -> dict:
    """Gross pay per person for a week of shifts, overtime at time and a half."""
    pay = {}
    for name, hours in weekly_hours(shifts).items():
        if name not in rates:
            raise ValueError(f"no pay rate for {name}")
        rate = Decimal(str(rates[name]))
        if rate <= 0:
            raise ValueError(f"pay rate for {name} must be positive")
        regular, overtime = split_overtime(hours)
        gross = Decimal(str(regular)) * rate
        gross += Decimal(str(overtime)) * rate * OVERTIME_MULTIPLIER
        pay[name] = gross.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return pay
