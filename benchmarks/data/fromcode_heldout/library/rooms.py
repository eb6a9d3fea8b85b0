"""Room booking for the hall: slots, clashes and what's still free."""
import math
import re
from collections import namedtuple
from datetime import datetime, time, timedelta

Booking = namedtuple("Booking", "room start end organiser")

ROOMS = {
    "main hall": {"capacity": 120, "kitchen": True, "step_free": True},
    "garden room": {"capacity": 40, "kitchen": True, "step_free": True},
    "reading room": {"capacity": 20, "kitchen": False, "step_free": True},
    "study": {"capacity": 8, "kitchen": False, "step_free": False},
}
OPENING = time(8, 0)
CLOSING = time(22, 0)
TURNAROUND = timedelta(minutes=15)

SLOT_RE = re.compile(
    r"^\s*(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm)?\s*(?:-|–|to)\s*"
    r"(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm)?\s*$",
    re.IGNORECASE,
)


def parse_time_slot(text):
    """Parse a slot like '14:00-16:30' or '2pm to 4.30pm' into (start, end) times.

    >>> parse_time_slot("2pm to 4.30pm")
    (datetime.time(14, 0), datetime.time(16, 30))
    >>> parse_time_slot("11-1pm")
    (datetime.time(11, 0), datetime.time(13, 0))
    """
    m = SLOT_RE.match(text or "")
    if not m:
        raise ValueError(f"can't read time slot {text!r}")
    h1, m1, ap1, h2, m2, ap2 = m.groups()
    if ap1 is None and ap2 and int(h1) % 12 < int(h2) % 12:
        ap1 = ap2  # "2-4pm" means both are pm
    times = []
    for hour, minute, ampm in ((h1, m1, ap1), (h2, m2, ap2)):
        hour, minute = int(hour), int(minute or 0)
        if ampm:
            if not 1 <= hour <= 12:
                raise ValueError(f"bad hour in slot {text!r}")
            hour = hour % 12 + (12 if ampm.lower() == "pm" else 0)
        if hour > 23 or minute > 59:
            raise ValueError(f"bad time in slot {text!r}")
        times.append(time(hour, minute))
    start, end = times
    if end <= start:
        raise ValueError(f"slot {text!r} ends before it starts")
    return start, end


def slots_overlap(a_start, a_end, b_start, b_end, gap=timedelta(0)):
    """True if two datetime periods clash once `gap` of changeover time is allowed."""
    if a_end <= a_start or b_end <= b_start:
        raise ValueError("each period must end after it starts")
    if a_end + gap <= b_start:
        return False
    if b_end + gap <= a_start:
        return False
    return True


def find_conflicts(existing, wanted: Booking) -> list:
    if wanted.room not in ROOMS:
        raise ValueError(f"unknown room: {wanted.room!r}")
    if wanted.start.date() != wanted.end.date():
        raise ValueError("bookings can't run past midnight")
    if wanted.start.time() < OPENING or wanted.end.time() > CLOSING:
        raise ValueError("booking is outside opening hours")
    clashes = []
    for b in existing:
        if b.room != wanted.room:
            continue
        if slots_overlap(b.start, b.end, wanted.start, wanted.end, TURNAROUND):
            clashes.append(b)
    return sorted(clashes, key=lambda b: b.start)


def suggest_room(attendees: int, needs_kitchen=False, step_free=False):
    """Pick the smallest room that fits the group and its needs."""
    if attendees < 1:
        raise ValueError("need at least one attendee")
    candidates = []
    for name, info in ROOMS.items():
        if info["capacity"] < attendees:
            continue
        if needs_kitchen and not info["kitchen"]:
            continue
        if step_free and not info["step_free"]:
            continue
        candidates.append((info["capacity"], name))
    if not candidates:
        raise ValueError(f"no room suits {attendees} people with those needs")
    return min(candidates)[1]


def billable_hours(start: datetime, end: datetime, increment_minutes: int = 30,
                   minimum_hours: float = 1.0) -> float:
    """Hours to charge for a booking, rounded up to the next increment.

    >>> billable_hours(datetime(2024, 5, 4, 10, 0), datetime(2024, 5, 4, 12, 10))
    2.5
    """
    if end <= start:
        raise ValueError("booking must end after it starts")
    if increment_minutes <= 0:
        raise ValueError("increment must be positive")
    minutes = (end - start).total_seconds() / 60
    blocks = math.ceil(minutes / increment_minutes)
    hours = blocks * increment_minutes / 60
    return max(hours, minimum_hours)


def free_slots(bookings, room, day, min_minutes=60):
    """List the (start, end) gaps in a room's day that are long enough to book."""
    if room not in ROOMS:
        raise ValueError(f"unknown room: {room!r}")
    cursor = datetime.combine(day, OPENING)
    close = datetime.combine(day, CLOSING)
    todays = sorted(
        (b for b in bookings if b.room == room and b.start.date() == day),
        key=lambda b: b.start,
    )
    gaps = []
    for b in todays:
        gap_end = b.start - TURNAROUND
        if gap_end - cursor >= timedelta(minutes=min_minutes):
            gaps.append((cursor, gap_end))
        cursor = max(cursor, b.end + TURNAROUND)
    if close - cursor >= timedelta(minutes=min_minutes):
        gaps.append((cursor, close))
    return gaps
