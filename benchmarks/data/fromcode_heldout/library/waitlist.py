import math
from collections import namedtuple
from datetime import date

Hold = namedtuple("Hold", "member_id category placed_on")

PRIORITY = {"housebound": 0, "member": 1, "junior": 1, "guest": 2}
MAX_QUEUE_LENGTH = 40
HOLD_EXPIRY_DAYS = 180


def add_hold(queue, member_id, category, placed_on: date):
    """Return a new queue with the hold slotted in by priority, then by date placed."""
    if category not in PRIORITY:
        raise ValueError(f"unknown member category {category!r}")
    if any(h.member_id == member_id for h in queue):
        raise ValueError(f"member {member_id} is already on the waiting list")
    if len(queue) >= MAX_QUEUE_LENGTH:
        raise ValueError("waiting list is full")
    new = Hold(member_id, category, placed_on)
    return sorted(list(queue) + [new], key=lambda h: (PRIORITY[h.category], h.placed_on))


def cancel_hold(queue, member_id):
    remaining = []
    found = False
    for hold in queue:
        if hold.member_id == member_id:
            found = True
            continue
        remaining.append(hold)
    if not found:
        raise ValueError(f"member {member_id} is not on the waiting list")
    return remaining


def queue_position(queue, member_id) -> int:
    """1-based place of a member in the queue."""
    for position, hold in enumerate(queue, start=1):
        if hold.member_id == member_id:
            return position
    raise ValueError(f"member {member_id} is not on the waiting list")


def next_eligible(queue, on, suspended=frozenset(), max_age_days=HOLD_EXPIRY_DAYS):
    """First hold that can be offered the item: skips suspended members and stale holds."""
    for hold in queue:
        if hold.member_id in suspended:
            continue
        if (on - hold.placed_on).days > max_age_days:
            continue
        return hold
    return None


def estimate_wait_days(position: int, copies: int, loan_days: int = 21,
                       on_shelf: int = 0, renewal_rate: float = 0.0) -> int:
    """Rough number of days until the hold at `position` gets a copy.

    >>> estimate_wait_days(1, 2, on_shelf=1)
    0
    >>> estimate_wait_days(5, 2)
    63
    """
    if position < 1:
        raise ValueError("position starts at 1")
    if copies < 1:
        raise ValueError("item has no copies to lend")
    if not 0 <= renewal_rate < 1:
        raise ValueError("renewal_rate must be between 0 and 1")
    if position <= on_shelf:
        return 0
    rounds = math.ceil((position - on_shelf) / copies)
    per_round = loan_days * (1 + renewal_rate)
    return math.ceil(rounds * per_round)
