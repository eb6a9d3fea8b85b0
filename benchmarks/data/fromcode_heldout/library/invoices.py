from decimal import Decimal, ROUND_HALF_UP

PENNY = Decimal("0.01")
HOURLY_RATES = {
    "main hall": Decimal("35.00"),
    "garden room": Decimal("20.00"),
    "reading room": Decimal("12.50"),
    "study": Decimal("8.00"),
}
CLEANING_FEE = {
    "main hall": Decimal("25.00"),
    "garden room": Decimal("10.00"),
}
WEEKEND_UPLIFT = Decimal("1.25")
EVENING_UPLIFT = Decimal("1.10")
MEMBER_DISCOUNT = Decimal("0.15")
CHARITY_DISCOUNT = Decimal("0.30")
VAT_RATE = Decimal("0.20")
DISCOUNT_CODES = {
    "FRIENDS10": ("percent", Decimal("10")),
    "VOLUNTEER": ("percent", Decimal("50")),
    "SPRING5": ("fixed", Decimal("5.00")),
}


def hourly_rate(room, weekend=False, evening=False):
    key = room.strip().lower()
    try:
        rate = HOURLY_RATES[key]
    except KeyError:
        raise ValueError(f"no rate set for room {room!r}") from None
    if weekend:
        rate *= WEEKEND_UPLIFT
    elif evening:
        rate *= EVENING_UPLIFT
    return rate.quantize(PENNY, rounding=ROUND_HALF_UP)


def room_hire_cost(room: str, hours, weekend: bool = False, member: bool = False,
                   charity: bool = False) -> Decimal:
    """Net cost of hiring a room, cleaning included, before VAT.

    >>> room_hire_cost("garden room", 3, member=True)
    Decimal('61.00')
    """
    hours = Decimal(str(hours))
    if hours <= 0:
        raise ValueError("hours must be positive")
    base = hourly_rate(room, weekend) * hours
    if charity:
        base *= 1 - CHARITY_DISCOUNT
    elif member:
        base *= 1 - MEMBER_DISCOUNT
    total = base + CLEANING_FEE.get(room.strip().lower(), Decimal("0"))
    return total.quantize(PENNY, rounding=ROUND_HALF_UP)


def apply_discount(amount, code):
    amount = Decimal(str(amount))
    if amount < 0:
        raise ValueError("amount cannot be negative")
    if not code or not code.strip():
        return amount.quantize(PENNY, rounding=ROUND_HALF_UP)
    key = code.strip().upper()
    if key not in DISCOUNT_CODES:
        raise ValueError(f"unknown discount code {code!r}")
    kind, value = DISCOUNT_CODES[key]
    if kind == "percent":
        reduced = amount * (1 - value / 100)
    else:
        reduced = amount - value
    return max(reduced, Decimal("0")).quantize(PENNY, rounding=ROUND_HALF_UP)


def add_vat(net, rate=VAT_RATE, exempt=False):
    """Return (net, vat, gross) for a net amount, each rounded to the penny."""
    net = Decimal(str(net)).quantize(PENNY, rounding=ROUND_HALF_UP)
    if net < 0:
        raise ValueError("net amount cannot be negative")
    if exempt or rate == 0:
        return net, Decimal("0.00"), net
    vat = (net * rate).quantize(PENNY, rounding=ROUND_HALF_UP)
    return net, vat, net + vat


def format_money(amount, symbol="£", zero_text=None):
    """
    >>> format_money(Decimal("1234.5"))
    '£1,234.50'
    >>> format_money(-3)
    '-£3.00'
    >>> format_money(0, zero_text="Free")
    'Free'
    """
    value = Decimal(str(amount)).quantize(PENNY, rounding=ROUND_HALF_UP)
    if value == 0 and zero_text:
        return zero_text
    sign = "-" if value < 0 else ""
    return f"{sign}{symbol}{abs(value):,.2f}"


def split_payment(total, instalments: int):
    """Split a total into instalments, putting leftover pennies on the first ones.

    >>> split_payment(Decimal("100.00"), 3)
    [Decimal('33.34'), Decimal('33.33'), Decimal('33.33')]
    """
    if instalments < 1:
        raise ValueError("need at least one instalment")
    total = Decimal(str(total)).quantize(PENNY, rounding=ROUND_HALF_UP)
    if total < 0:
        raise ValueError("total cannot be negative")
    pennies = int(total * 100)
    share, leftover = divmod(pennies, instalments)
    parts = []
    for i in range(instalments):
        extra = 1 if i < leftover else 0
        parts.append((Decimal(share + extra) / 100).quantize(PENNY))
    return parts
