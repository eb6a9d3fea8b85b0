"""Parsing the free-text order lines that come in by email and phone notes.

Typical input:

    2x sourdough @ 4.50
    a dozen bagels
    3 croissants (large)
    # call before delivering
"""

import re
from decimal import Decimal, InvalidOperation

LINE_RE = re.compile(
    r"""^\s*
    (?P<qty>\d+|[a-z]+(?:\s+dozen)?)\s*(?:x|\*)?\s+
    (?P<product>[a-z][a-z0-9 '&-]*?)
    (?:\s*\((?P<size>small|regular|large)\))?
    (?:\s*@\s*\$?(?P<price>\d+(?:\.\d{1,2})?))?
    \s*$""",
    re.IGNORECASE | re.VERBOSE,
)
WHITESPACE_RE = re.compile(r"\s+")

NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
    "twelve": 12, "dozen": 12, "a dozen": 12, "half dozen": 6,
}

PRODUCT_ALIASES = {
    "sourdough loaf": "sourdough",
    "sourdough loave": "sourdough",
    "plain croissant": "croissant",
    "choc croissant": "pain au chocolat",
    "pain au choc": "pain au chocolat",
    "cinnamon roll": "cinnamon bun",
}

MAX_LINE_QTY = 500


def parse_quantity(token):
    """Turn "3", "three" or "a dozen" into an int.

    >>> parse_quantity("a dozen")
    12
    >>> parse_quantity("7")
    7
    """
    token = WHITESPACE_RE.sub(" ", token.strip().lower())
    if token.isdigit():
        qty = int(token)
    elif token in NUMBER_WORDS:
        qty = NUMBER_WORDS[token]
    elif token.endswith(" dozen") and token[:-6] in NUMBER_WORDS:
        qty = NUMBER_WORDS[token[:-6]] * 12
    else:
        raise ValueError(f"can't read quantity {token!r}")
    if qty <= 0 or qty > MAX_LINE_QTY:
        raise ValueError(f"quantity {qty} out of range")
    return qty


def normalize_product(name: str) -> str:
    name = WHITESPACE_RE.sub(" ", name.strip().lower())
    if not name:
        raise ValueError("empty product name")
    if name in PRODUCT_ALIASES:
        return PRODUCT_ALIASES[name]
    # crude singularising, good enough for what we sell
    if name.endswith("ies"):
        name = name[:-3] + "y"
    elif name.endswith("s") and not name.endswith("ss"):
        name = name[:-1]
    return PRODUCT_ALIASES.get(name, name)


def parse_order_line(line):
    """Parse one order line into a dict.

    >>> parse_order_line("2x sourdough @ 4.50")
    {'qty': 2, 'product': 'sourdough', 'size': None, 'unit_price': Decimal('4.50')}
    """
    m = LINE_RE.match(line or "")
    if not m:
        raise ValueError(f"can't parse order line: {line!r}")
    price = None
    if m.group("price"):
        try:
            price = Decimal(m.group("price")).quantize(Decimal("0.01"))
        except InvalidOperation:
            raise ValueError(f"bad price in {line!r}") from None
    size = m.group("size").lower() if m.group("size") else None
    return {
        "qty": parse_quantity(m.group("qty")),
        "product": normalize_product(m.group("product")),
        "size": size,
        "unit_price": price,
    }


def parse_order_text(text: str):
    """Parse a whole block of order text.

    Returns (items, errors) where errors is a list of (line_number, message),
    so one bad line doesn't throw away the rest of the order.
    """
    items, errors = [], []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-"):
            line = line.lstrip("- ").strip()
        try:
            items.append(parse_order_line(line))
        except ValueError as exc:
            errors.append((lineno, str(exc)))
    return items, errors


def merge_items(items):
    """Combine lines for the same product, size and price, keeping first-seen order."""
    merged = {}
    for item in items:
        key = (item["product"], item.get("size"), item.get("unit_price"))
        if key in merged:
            merged[key]["qty"] += item["qty"]
        else:
            merged[key] = dict(item)
    for item in merged.values():
        if item["qty"] > MAX_LINE_QTY:
            raise ValueError(f"too many {item['product']} on one order ({item['qty']})")
    return list(merged.values())
