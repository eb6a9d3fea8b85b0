"""Appointment slots and booking rules for the clinic diary."""
import re
from datetime import date

TIME_RE = re.compile(r"^\s*(\d{1,2})[:.](\d{2})\s*$")

# weekday -> (open, close); Sunday is closed
OPENING_HOURS = {
    0: ("08:00", "18:00"),
    1: ("08:00", "18:00"),
    2: ("08:00", "20:00"),  # late opening on Wednesdays
    3: ("08:00", "18:00"),
    4: ("08:00", "16:00"),
    5: ("09:00", "13:00"),
}

MIN_DURATION = {
    "checkup": 15,
    "cleaning": 30,
    "filling": 30,
    "extraction": 30,
    "root_canal": 60,
    "crown": 60,
    "implant": 90,
    "whitening": 45,
    "emergency": 15,
}

# need the surgery room and a nurse for recovery, so not booked late
SURGICAL = {"extraction", "root_canal", "implant"}
LATEST_SURGICAL_START = 16 * 60
DEFAULT_LUNCH = ("12:30", "13:30")


def parse_hhmm(value: str) -> int:
    """Convert 'HH:MM' (or 'HH.MM') to minutes after midnight.

    >>> parse_hhmm("08:30")
    510
    >>> parse_hhmm("14.05")
    845
    """
    m = TIME_RE.match(value or "")
    if not m:
        raise ValueError(f"bad time: {value!r}")
    hours, minutes = int(m.group(1)), int(m.group(2))
    if hours > 23 or minutes > 59:
        raise ValueError(f"time out of range: {value!r}")
    return hours * 60 + minutes


def format_minutes(total):
    """Inverse of parse_hhmm."""
    total = int(total)
    if not 0 <= total < 24 * 60:
        raise ValueError(f"minutes must fall within one day, got {total}")
    hours, minutes = divmod(total, 60)
    return f"{hours:02d}:{minutes:02d}"


def generate_slots(open_time, close_time, slot_minutes=15, breaks=None):
    """Return start times of every slot between opening and closing.

    breaks is a list of ("HH:MM", "HH:MM") pairs; a slot touching a break is dropped.
    """
    if slot_minutes <= 0:
        raise ValueError("slot_minutes must be positive")
    start, end = parse_hhmm(open_time), parse_hhmm(close_time)
    if end <= start:
        raise ValueError("closing time must be after opening time")
    blocked = [(parse_hhmm(a), parse_hhmm(b)) for a, b in (breaks or [])]
    slots = []
    t = start
    while t + slot_minutes <= end:
        clash = any(t < b_end and t + slot_minutes > b_start for b_start, b_end in blocked)
        if not clash:
            slots.append(format_minutes(t))
        t += slot_minutes
    return slots


def overlaps(start_a, minutes_a, start_b, minutes_b) -> bool:
    """True if two bookings given as ("HH:MM", duration) overlap.

    >>> overlaps("09:00", 30, "09:30", 15)
    False
    >>> overlaps("09:00", 45, "09:30", 15)
    True
    """
    if minutes_a <= 0 or minutes_b <= 0:
        raise ValueError("durations must be positive")
    a0 = parse_hhmm(start_a)
    b0 = parse_hhmm(start_b)
    return a0 < b0 + minutes_b and b0 < a0 + minutes_a


def find_free_slots(booked, duration, weekday, step=15, lunch=DEFAULT_LUNCH):
    """List start times on a weekday where a booking of `duration` minutes fits.

    booked is a list of {'start': 'HH:MM', 'minutes': int} for a single chair.
    """
    if duration <= 0:
        raise ValueError("duration must be positive")
    if weekday not in OPENING_HOURS:
        return []
    open_time, close_time = OPENING_HOURS[weekday]
    closing = parse_hhmm(close_time)
    lunch_minutes = parse_hhmm(lunch[1]) - parse_hhmm(lunch[0]) if lunch else 0
    free = []
    for slot in generate_slots(open_time, close_time, step):
        if parse_hhmm(slot) + duration > closing:
            break
        # no lunch break on Saturday mornings
        if lunch and weekday != 5 and overlaps(slot, duration, lunch[0], lunch_minutes):
            continue
        if any(overlaps(slot, duration, b["start"], b["minutes"]) for b in booked):
            continue
        free.append(slot)
    return free


def check_booking_rules(appt: dict) -> list:
    """Return human-readable rule violations for a proposed booking (empty list if fine)."""
    problems = []
    treatment = appt.get("treatment")
    minutes = appt.get("minutes", 0)
    if treatment not in MIN_DURATION:
        problems.append(f"unknown treatment {treatment!r}")
    elif minutes < MIN_DURATION[treatment]:
        problems.append(f"{treatment} needs at least {MIN_DURATION[treatment]} minutes")
    when = appt.get("date")
    weekday = when.weekday() if isinstance(when, date) else appt.get("weekday")
    hours = OPENING_HOURS.get(weekday)
    if hours is None:
        problems.append("clinic is closed that day")
        return problems
    start = parse_hhmm(appt["start"])
    if start < parse_hhmm(hours[0]) or start + minutes > parse_hhmm(hours[1]):
        problems.append("outside opening hours")
    if treatment in SURGICAL:
        if weekday == 5:
            problems.append("no surgical procedures on Saturdays")
        elif start >= LATEST_SURGICAL_START:
            problems.append("surgical procedures must start before 16:00")
    if appt.get("new_patient") and treatment not in ("checkup", "emergency"):
        problems.append("new patients need a check-up first")
    return problems
