"""Recipe scaling and kitchen unit conversion."""

import math
from decimal import Decimal, ROUND_HALF_UP

MASS_UNITS = {
    "g": 1.0,
    "kg": 1000.0,
    "oz": 28.349523125,
    "lb": 453.59237,
}

VOLUME_UNITS = {
    "ml": 1.0,
    "l": 1000.0,
    "tsp": 4.92892159375,
    "tbsp": 14.78676478125,
    "cup": 236.5882365,
}

# grams per millilitre -- rough figures for the things we actually measure by volume
DENSITY_G_PER_ML = {
    "flour": 0.53,
    "bread flour": 0.55,
    "sugar": 0.85,
    "brown sugar": 0.93,
    "butter": 0.96,
    "milk": 1.03,
    "water": 1.0,
    "honey": 1.42,
    "salt": 1.2,
    "yeast": 0.6,
    "cocoa": 0.42,
}

FLOUR_INGREDIENTS = {"flour", "bread flour", "rye flour", "wholemeal flour", "spelt flour"}
COUNT_UNITS = {"", "each", "pc", "pcs", "whole"}


def convert_mass(amount: float, from_unit: str, to_unit: str) -> float:
    """Convert a weight between metric and imperial units.

    >>> convert_mass(1, "kg", "g")
    1000.0
    >>> round(convert_mass(1, "lb", "oz"), 2)
    16.0
    """
    from_unit = from_unit.lower().strip()
    to_unit = to_unit.lower().strip()
    if from_unit not in MASS_UNITS:
        raise ValueError(f"unknown mass unit: {from_unit!r}")
    if to_unit not in MASS_UNITS:
        raise ValueError(f"unknown mass unit: {to_unit!r}")
    if amount < 0:
        raise ValueError("amount cannot be negative")
    if from_unit == to_unit:
        return float(amount)
    return amount * MASS_UNITS[from_unit] / MASS_UNITS[to_unit]


def convert_volume(amount, from_unit, to_unit):
    src = from_unit.lower().strip()
    dst = to_unit.lower().strip()
    # people write "cups" and "tbsps" all the time
    if src.endswith("s") and src[:-1] in VOLUME_UNITS:
        src = src[:-1]
    if dst.endswith("s") and dst[:-1] in VOLUME_UNITS:
        dst = dst[:-1]
    if src not in VOLUME_UNITS or dst not in VOLUME_UNITS:
        raise ValueError("unknown volume unit: %s -> %s" % (from_unit, to_unit))
    if amount < 0:
        raise ValueError("amount cannot be negative")
    return amount * VOLUME_UNITS[src] / VOLUME_UNITS[dst]


def to_grams(amount, unit, ingredient=None):
    """Return the weight in grams of an amount given in any mass or volume unit."""
    unit = unit.lower().strip()
    if unit in MASS_UNITS:
        return convert_mass(amount, unit, "g")
    if ingredient is None:
        raise ValueError("need an ingredient name to convert a volume to a weight")
    density = DENSITY_G_PER_ML.get(ingredient.lower().strip())
    if density is None:
        raise ValueError(f"no density on file for {ingredient!r}")
    ml = convert_volume(amount, unit, "ml")
    return ml * density


def scale_recipe(recipe: dict, factor: float, round_to=None) -> dict:
    """Multiply every ingredient quantity in a recipe by factor.

    recipe maps ingredient name -> (amount, unit).

    >>> scale_recipe({"flour": (500, "g"), "salt": (10, "g")}, 2)
    {'flour': (1000, 'g'), 'salt': (20, 'g')}
    """
    if factor <= 0:
        raise ValueError("scale factor must be positive")
    scaled = {}
    for name, (amount, unit) in recipe.items():
        new_amount = amount * factor
        if round_to is not None:
            new_amount = round(new_amount, round_to)
        elif isinstance(new_amount, float) and new_amount.is_integer():
            new_amount = int(new_amount)
        scaled[name] = (new_amount, unit)
    return scaled


def scale_to_yield(recipe, current_yield, target_yield, whole_units=("eggs", "egg")):
    """Scale a recipe from the batch size it makes to the batch size we need.

    Anything listed in whole_units gets rounded up to a whole count, since
    nobody is cracking 2.4 eggs.
    """
    if current_yield <= 0 or target_yield <= 0:
        raise ValueError("yields must be positive")
    factor = target_yield / current_yield
    scaled = scale_recipe(recipe, factor)
    for name in whole_units:
        if name not in scaled:
            continue
        amount, unit = scaled[name]
        scaled[name] = (math.ceil(amount - 1e-9), unit)
    return scaled


def baker_percentages(recipe, flour_names=FLOUR_INGREDIENTS):
    weights = {}
    for name, (amount, unit) in recipe.items():
        if unit.lower().strip() in COUNT_UNITS:
            continue  # eggs etc. don't belong in a formula by weight
        weights[name] = to_grams(amount, unit, name)
    flour_total = sum(w for name, w in weights.items() if name.lower() in flour_names)
    if flour_total == 0:
        raise ValueError("recipe has no flour, baker's percentages make no sense")
    result = {}
    for name, grams in weights.items():
        pct = Decimal(str(grams * 100 / flour_total))
        result[name] = float(pct.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    return result
