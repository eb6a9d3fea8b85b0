"""Customer loyalty points: earning, tiers, redemption and expiry."""

import calendar
import math
from datetime import date
from decimal import Decimal

# (lifetime points needed, tier name, earn multiplier), highest first
TIERS = [
    (1500, "gold", Decimal("1.5")),
    (500, "silver", Decimal("1.25")),
    (0, "bronze", Decimal("1")),
]
TIER_MULTIPLIERS = {name: mult for _, name, mult in TIERS}

POINTS_PER_DOLLAR = 1
REDEEM_BLOCK = 100             # points can only be cashed in 100 at a time
REDEEM_VALUE = Decimal("5.00")  # ...and each block is worth this much
EXPIRY_MONTHS = 12


def tier_for(lifetime_points: int) -> str:
    """Name of the tier a customer is in given their lifetime points.

    >>> tier_for(0), tier_for(499), tier_for(500), tier_for(2000)
    ('bronze', 'bronze', 'silver', 'gold')
    """
    if lifetime_points < 0:
        raise ValueError("lifetime points can't be negative")
    for threshold, name, _ in TIERS:
        if lifetime_points >= threshold:
            return name
    return TIERS[-1][1]


def points_for_purchase(amount, tier="bronze"):
    """Points earned on a purchase: whole dollars only, scaled by the tier multiplier."""
    amount = Decimal(str(amount))
    if amount < 0:
        raise ValueError("purchase amount can't be negative")
    if tier not in TIER_MULTIPLIERS:
        raise ValueError(f"unknown tier {tier!r}")
    base = int(amount) * POINTS_PER_DOLLAR
    if base == 0:
        return 0
    return math.floor(base * TIER_MULTIPLIERS[tier])


def record_purchase(account, amount, on_date):
    if isinstance(on_date, str):
        on_date = date.fromisoformat(on_date)
    earned = points_for_purchase(amount, account.get("tier", "bronze"))
    updated = dict(account)
    updated["ledger"] = list(account.get("ledger", []))
    if earned == 0:
        return updated
    updated["balance"] = account.get("balance", 0) + earned
    updated["lifetime"] = account.get("lifetime", 0) + earned
    updated["ledger"].append({"date": on_date, "kind": "earn", "points": earned})
    new_tier = tier_for(updated["lifetime"])
    if new_tier != account.get("tier"):
        # tiers only ever go up; lifetime points never shrink
        updated["tier"] = new_tier
    return updated


def redeem(account, points, on_date):
    """Cash in points for store credit; returns (new_account, credit)."""
    if points <= 0:
        raise ValueError("must redeem a positive number of points")
    if points % REDEEM_BLOCK:
        raise ValueError(f"points are redeemed in blocks of {REDEEM_BLOCK}")
    balance = account.get("balance", 0)
    if points > balance:
        raise ValueError(f"only {balance} points available")
    updated = dict(account)
    updated["balance"] = balance - points
    updated["ledger"] = list(account.get("ledger", []))
    updated["ledger"].append({"date": on_date, "kind": "redeem", "points": -points})
    credit = REDEEM_VALUE * (points // REDEEM_BLOCK)
    return updated, credit


def expire_points(account, as_of: date, months=EXPIRY_MONTHS):
    """Expire earned points older than `months`, oldest used first by redemptions.

    Returns a new account with an "expire" entry added if anything lapsed.
    """
    if months <= 0:
        raise ValueError("months must be positive")
    year, month = divmod(as_of.year * 12 + as_of.month - 1 - months, 12)
    day = min(as_of.day, calendar.monthrange(year, month + 1)[1])
    cutoff = date(year, month + 1, day)
    ledger = account.get("ledger", [])
    old_earned = sum(e["points"] for e in ledger if e["kind"] == "earn" and e["date"] < cutoff)
    spent = -sum(e["points"] for e in ledger if e["kind"] in ("redeem", "expire"))
    lapsed = min(max(0, old_earned - spent), account.get("balance", 0))
    if lapsed == 0:
        return dict(account)
    updated = dict(account)
    updated["balance"] = account.get("balance", 0) - lapsed
    updated["ledger"] = list(ledger) + [{"date": as_of, "kind": "expire", "points": -lapsed}]
    return updated
