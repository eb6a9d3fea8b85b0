"""Order records and delivery windows."""

import re
from collections import Counter
from datetime import date, datetime, time, timedelta

WINDOW_RE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")

STATUS_FLOW = {
    "pending": {"confirmed", "cancelled"},
    "confirmed": {"baking", "cancelled"},
    "baking": {"out_for_delivery"},
    "out_for_delivery": {"delivered"},
    "delivered": set(),
    "cancelled": set(),
}
CLOSED_STATUSES = {"delivered", "cancelled"}

EARLIEST_DELIVERY = time(6, 0)
LATEST_DELIVERY = time(19, 0)


def parse_window(text):
    """Parse a delivery window like "08:00-10:30" into a (start, end) pair of times.

    >>> parse_window("8:00-10:30")
    (datetime.time(8, 0), datetime.time(10, 30))
    """
    m = WINDOW_RE.match(text or "")
    if not m:
        raise ValueError(f"bad delivery window: {text!r}")
    h1, m1, h2, m2 = (int(g) for g in m.groups())
    if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59:
        raise ValueError(f"bad delivery window: {text!r}")
    start, end = time(h1, m1), time(h2, m2)
    if end <= start:
        raise ValueError("window must end after it starts")
    if start < EARLIEST_DELIVERY or end > LATEST_DELIVERY:
        raise ValueError("window is outside delivery hours")
    return start, end


def make_order(order_id, customer, items, delivery_date, window="08:00-12:00"):
    if not order_id:
        raise ValueError("order_id is required")
    if not customer or not customer.strip():
        raise ValueError("customer name is required")
    if not items:
        raise ValueError("an order needs at least one item")
    if isinstance(delivery_date, str):
        delivery_date = date.fromisoformat(delivery_date)
    clean_items = []
    for item in items:
        qty = int(item.get("qty", 0))
        if qty <= 0:
            raise ValueError(f"bad quantity for {item.get('product')!r}")
        clean_items.append({
            "product": item["product"],
            "qty": qty,
            "unit_price": item.get("unit_price"),
        })
    return {
        "id": order_id,
        "customer": customer.strip(),
        "items": clean_items,
        "delivery_date": delivery_date,
        "window": parse_window(window),
        "status": "pending",
    }


def advance_status(order: dict, new_status: str) -> dict:
    """Return a copy of the order moved to new_status, if that transition is allowed."""
    current = order.get("status", "pending")
    if new_status not in STATUS_FLOW:
        raise ValueError(f"unknown status {new_status!r}")
    if new_status == current:
        return dict(order)
    if new_status not in STATUS_FLOW.get(current, set()):
        raise ValueError(f"can't go from {current} to {new_status}")
    updated = dict(order)
    updated["status"] = new_status
    return updated


def windows_overlap(a, b) -> bool:
    if isinstance(a, str):
        a = parse_window(a)
    if isinstance(b, str):
        b = parse_window(b)
    a_start, a_end = a
    b_start, b_end = b
    # touching windows (8-10 and 10-12) don't count as overlapping
    if a_end <= b_start or b_end <= a_start:
        return False
    return True


def orders_for_route(orders, day, window=None):
    """Open orders going out on a given day, optionally within a window, sorted by window start."""
    selected = []
    for order in orders:
        if order.get("status") in CLOSED_STATUSES:
            continue
        if order["delivery_date"] != day:
            continue
        if window is not None and not windows_overlap(order["window"], window):
            continue
        selected.append(order)
    selected.sort(key=lambda o: (o["window"][0], str(o["id"])))
    return selected


def next_free_slot(booked, day_start="07:00", day_end="18:00", slot_minutes=30, capacity=3):
    """Return the first "HH:MM" slot start that still has room for another drop, or None."""
    if slot_minutes <= 0 or capacity <= 0:
        raise ValueError("slot length and capacity must be positive")
    counts = Counter(booked)
    anchor = date(2000, 1, 1)  # any date will do, we only need clock arithmetic
    cursor = datetime.combine(anchor, time.fromisoformat(day_start))
    end = datetime.combine(anchor, time.fromisoformat(day_end))
    if end <= cursor:
        raise ValueError("day_end must be after day_start")
    step = timedelta(minutes=slot_minutes)
    while cursor + step <= end:
        label = cursor.strftime("%H:%M")
        if counts[label] < capacity:
            return label
        cursor += step
    return None
