"""Price lists, bulk discounts and promo codes."""

from decimal import Decimal, InvalidOperation, ROUND_HALF_UP

CENT = Decimal("0.01")
ZERO = Decimal("0.00")

# (minimum quantity, discount rate), checked top to bottom
BULK_TIERS = [
    (24, Decimal("0.15")),
    (12, Decimal("0.10")),
    (6, Decimal("0.05")),
]
NO_BULK_DISCOUNT = {"gift card", "delivery", "celebration cake"}

DISCOUNT_CODES = {
    "WELCOME10": ("percent", Decimal("10")),
    "FIVEOFF": ("fixed", Decimal("5.00")),
    "STAFF": ("percent", Decimal("30")),
}
MIN_SPEND = {"FIVEOFF": Decimal("25.00")}


def to_money(value) -> Decimal:
    """Coerce a number or a string like "4.5" or "$4.50" to a Decimal in cents.

    >>> to_money("4.5")
    Decimal('4.50')
    >>> to_money(3)
    Decimal('3.00')
    """
    if isinstance(value, Decimal):
        amount = value
    elif isinstance(value, float):
        amount = Decimal(repr(value))
    elif isinstance(value, (int, str)):
        text = str(value).strip().lstrip("$").replace(",", "")
        try:
            amount = Decimal(text)
        except InvalidOperation:
            raise ValueError(f"not a money amount: {value!r}") from None
    else:
        raise ValueError(f"not a money amount: {value!r}")
    if not amount.is_finite():
        raise ValueError(f"not a money amount: {value!r}")
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def unit_price(price_list, product, size=None):
    """Look up a product's price; an entry is either a flat price or a dict of sizes."""
    key = product.strip().lower()
    if key not in price_list:
        raise ValueError(f"{product!r} is not on the price list")
    entry = price_list[key]
    if isinstance(entry, dict):
        if size is None:
            if "regular" not in entry:
                raise ValueError(f"{product!r} needs a size: {', '.join(sorted(entry))}")
            size = "regular"
        if size not in entry:
            raise ValueError(f"{product!r} doesn't come in size {size!r}")
        return to_money(entry[size])
    if size not in (None, "regular"):
        raise ValueError(f"{product!r} only comes in one size")
    return to_money(entry)


def bulk_discount_rate(quantity: int, product: str = "") -> Decimal:
    if quantity < 0:
        raise ValueError("quantity can't be negative")
    if product.strip().lower() in NO_BULK_DISCOUNT:
        return Decimal("0")
    for threshold, rate in BULK_TIERS:
        if quantity >= threshold:
            return rate
    return Decimal("0")


def line_total(price_list, product, qty, size=None):
    """Price of a single order line after any bulk discount."""
    if qty <= 0 or int(qty) != qty:
        raise ValueError(f"quantity must be a positive whole number, got {qty!r}")
    price = unit_price(price_list, product, size)
    gross = price * int(qty)
    rate = bulk_discount_rate(int(qty), product)
    if rate:
        gross -= gross * rate
    return gross.quantize(CENT, rounding=ROUND_HALF_UP)


def apply_discount_code(subtotal, code):
    """Return (discount, new_total) for a promo code. Unknown or ineligible codes raise."""
    subtotal = to_money(subtotal)
    if not code:
        return ZERO, subtotal
    code = code.strip().upper()
    if code not in DISCOUNT_CODES:
        raise ValueError(f"unknown discount code {code!r}")
    kind, value = DISCOUNT_CODES[code]
    minimum = MIN_SPEND.get(code)
    if minimum is not None and subtotal < minimum:
        raise ValueError(f"{code} needs a minimum spend of {minimum}")
    if kind == "percent":
        discount = (subtotal * value / 100).quantize(CENT, rounding=ROUND_HALF_UP)
    else:
        discount = min(value, subtotal)
    return discount, subtotal - discount


def price_basket(price_list, lines, code=None):
    if not lines:
        raise ValueError("basket is empty")
    subtotal = ZERO
    priced = []
    for line in lines:
        if line.get("qty", 0) <= 0:
            raise ValueError(f"bad quantity on line for {line.get('product')!r}")
        if line.get("unit_price") is not None:
            # price agreed on the order itself (wholesale customers) wins over the list
            total = (to_money(line["unit_price"]) * line["qty"]).quantize(CENT)
        else:
            total = line_total(price_list, line["product"], line["qty"], line.get("size"))
        priced.append({**line, "total": total})
        subtotal += total
    discount, total = apply_discount_code(subtotal, code)
    return {"lines": priced, "subtotal": subtotal, "discount": discount, "total": total}
