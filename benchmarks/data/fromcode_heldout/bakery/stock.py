"""Ingredient stock levels and reorder planning."""

import math
from collections import defaultdict
from datetime import date, timedelta

# supplier pack sizes, in the same unit we track stock in (g, ml or count)
PACK_SIZES = {
    "bread flour": 16000,
    "rye flour": 25000,
    "sugar": 25000,
    "butter": 10000,
    "yeast": 500,
    "salt": 25000,
    "eggs": 180,
    "milk": 12000,
}

DEFAULT_LEAD_DAYS = 2
SAFETY_FACTOR = 1.25


def needs_reorder(item: dict) -> bool:
    on_hand = item.get("on_hand", 0)
    if on_hand < 0:
        raise ValueError(f"negative stock for {item.get('name')}")
    level = item.get("reorder_level")
    if level is None:
        # no explicit level: keep enough to cover the supplier lead time, plus a margin
        usage = item.get("daily_usage", 0)
        level = usage * item.get("lead_days", DEFAULT_LEAD_DAYS) * SAFETY_FACTOR
    return on_hand <= level


def reorder_quantity(item):
    """How much to order to get back up to par, rounded up to whole supplier packs."""
    par = item.get("par_level")
    if par is None:
        raise ValueError(f"no par level set for {item.get('name')}")
    shortfall = par - item.get("on_hand", 0) - item.get("on_order", 0)
    if shortfall <= 0:
        return 0
    pack = PACK_SIZES.get(item.get("name", "").lower())
    if not pack:
        return shortfall
    return math.ceil(shortfall / pack) * pack


def build_reorder_list(stock):
    """List of (name, quantity, unit) for every item that is at or below its reorder level."""
    rows = []
    for item in stock:
        if not needs_reorder(item):
            continue
        qty = reorder_quantity(item)
        if qty > 0:
            rows.append((item["name"], qty, item.get("unit", "")))
    rows.sort(key=lambda row: row[0])
    return rows


def usage_for_bake(recipes: dict, bake_plan: dict) -> dict:
    """Total ingredient amounts for a bake plan of {recipe_name: batches}.

    >>> usage_for_bake({"rye": {"rye flour": 800, "salt": 16}}, {"rye": 3})
    {'rye flour': 2400.0, 'salt': 48.0}
    """
    totals = defaultdict(float)
    for recipe_name, batches in bake_plan.items():
        if batches < 0:
            raise ValueError(f"negative batch count for {recipe_name}")
        if batches == 0:
            continue
        recipe = recipes.get(recipe_name)
        if recipe is None:
            raise ValueError(f"no recipe called {recipe_name!r}")
        for ingredient, amount in recipe.items():
            totals[ingredient] += amount * batches
    return dict(totals)


def deduct_usage(stock, usage):
    by_name = {item["name"]: item for item in stock}
    missing = [name for name in usage if name not in by_name]
    if missing:
        raise ValueError("not stocked: " + ", ".join(sorted(missing)))
    short = []
    for name, qty in usage.items():
        if qty < 0:
            raise ValueError(f"negative usage for {name}")
        if by_name[name].get("on_hand", 0) < qty:
            short.append(name)
    if short:
        raise ValueError("not enough stock for: " + ", ".join(sorted(short)))
    updated = []
    for item in stock:
        new_item = dict(item)
        new_item["on_hand"] = item.get("on_hand", 0) - usage.get(item["name"], 0)
        updated.append(new_item)
    return updated


def days_of_cover(item):
    """Roughly how many days the current stock of an item will last."""
    on_hand = item.get("on_hand", 0)
    usage = item.get("daily_usage", 0)
    if usage < 0 or on_hand < 0:
        raise ValueError("stock and usage can't be negative")
    if usage == 0:
        return math.inf
    return round(on_hand / usage, 1)


def expiring_soon(stock, as_of: date, within_days=3):
    """Names of items whose best-before falls within the next few days, soonest first."""
    if within_days < 0:
        raise ValueError("within_days can't be negative")
    cutoff = as_of + timedelta(days=within_days)
    hits = []
    for item in stock:
        best_before = item.get("best_before")
        if best_before is None:
            continue
        if isinstance(best_before, str):
            best_before = date.fromisoformat(best_before)
        if best_before <= cutoff and item.get("on_hand", 0) > 0:
            hits.append((best_before, item["name"]))
    hits.sort()
    return [name for _, name in hits]
