"""Treatment prices, invoice lines and insurance splits."""
from decimal import Decimal, InvalidOperation, ROUND_HALF_UP

CENT = Decimal("0.01")
ZERO = Decimal("0.00")

PRICE_LIST = {
    "EX01": ("Examination", Decimal("45.00")),
    "XR01": ("Bitewing X-rays (pair)", Decimal("30.00")),
    "XR02": ("Panoramic X-ray", Decimal("65.00")),
    "HY01": ("Hygienist scale and polish", Decimal("70.00")),
    "FL01": ("Composite filling, one surface", Decimal("120.00")),
    "FL02": ("Composite filling, two surfaces", Decimal("160.00")),
    "EXT1": ("Simple extraction", Decimal("140.00")),
    "RCT1": ("Root canal, front tooth", Decimal("450.00")),
    "RCT2": ("Root canal, molar", Decimal("650.00")),
    "CR01": ("Porcelain crown", Decimal("750.00")),
    "WH01": ("Home whitening kit", Decimal("295.00")),
}

CATEGORY = {
    "EX01": "preventive", "XR01": "preventive", "XR02": "preventive", "HY01": "preventive",
    "FL01": "basic", "FL02": "basic", "EXT1": "basic",
    "RCT1": "major", "RCT2": "major", "CR01": "major",
    "WH01": "cosmetic",
}

# share of the fee the insurer pays, per category; cosmetic work is never covered
PLANS = {
    "basic": {"preventive": Decimal("1.00"), "basic": Decimal("0.50")},
    "standard": {"preventive": Decimal("1.00"), "basic": Decimal("0.80"), "major": Decimal("0.50")},
    "premium": {"preventive": Decimal("1.00"), "basic": Decimal("0.90"), "major": Decimal("0.60")},
}


def to_money(value) -> Decimal:
    """Coerce an int, float, string or Decimal to a Decimal rounded to pence."""
    if isinstance(value, bool):
        raise ValueError("bool is not an amount")
    if isinstance(value, Decimal):
        amount = value
    elif isinstance(value, (int, float, str)):
        text = str(value).strip().replace(",", "").lstrip("£")
        try:
            amount = Decimal(text)
        except InvalidOperation:
            raise ValueError(f"not an amount: {value!r}") from None
    else:
        raise ValueError(f"not an amount: {value!r}")
    if not amount.is_finite():
        raise ValueError(f"not an amount: {value!r}")
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def price_for(code, price_list=None):
    """Return (description, price) for a treatment code."""
    prices = PRICE_LIST if price_list is None else price_list
    key = str(code).strip().upper()
    if key not in prices:
        raise ValueError(f"no price for treatment code {code!r}")
    description, price = prices[key]
    return description, to_money(price)


def build_invoice_lines(items, price_list=None):
    """Turn [(code, qty)] or [{'code', 'qty', 'tooth'}] into priced invoice lines."""
    lines = []
    for item in items:
        if isinstance(item, dict):
            code, qty, tooth = item["code"], item.get("qty", 1), item.get("tooth")
        else:
            code, qty = item
            tooth = None
        if not isinstance(qty, int) or qty < 1:
            raise ValueError(f"bad quantity {qty!r} for {code}")
        code = str(code).strip().upper()
        description, unit = price_for(code, price_list)
        if tooth:
            description = f"{description} (tooth {tooth})"
        lines.append({
            "code": code,
            "description": description,
            "qty": qty,
            "unit_price": unit,
            "amount": unit * qty,
        })
    return lines


def coverage_for(code, plan):
    """Fraction of the fee for `code` that `plan` pays; plan None means self-pay."""
    if plan is None:
        return Decimal("0")
    if plan not in PLANS:
        raise ValueError(f"unknown plan {plan!r}")
    category = CATEGORY.get(str(code).upper())
    if category is None:
        raise ValueError(f"no coverage category for {code!r}")
    return PLANS[plan].get(category, Decimal("0"))


def apply_insurance(lines, plan, remaining_allowance=None):
    """Split invoice lines between insurer and patient.

    remaining_allowance caps what the insurer still pays this year (None = no cap).
    """
    if remaining_allowance is not None:
        remaining_allowance = to_money(remaining_allowance)
        if remaining_allowance < 0:
            raise ValueError("allowance can't be negative")
    total = insurer_total = ZERO
    detail = []
    for line in lines:
        share = to_money(line["amount"] * coverage_for(line["code"], plan))
        if remaining_allowance is not None:
            share = min(share, remaining_allowance)
            remaining_allowance -= share
        detail.append({**line, "insurer": share, "patient": line["amount"] - share})
        total += line["amount"]
        insurer_total += share
    return {
        "lines": detail,
        "total": total,
        "insurer": insurer_total,
        "patient": total - insurer_total,
        "allowance_left": remaining_allowance,
    }


def format_money(amount, symbol="£"):
    """Format an amount for an invoice.

    >>> format_money(Decimal("1234.5"))
    '£1,234.50'
    >>> format_money(-12)
    '-£12.00'
    """
    value = to_money(amount)
    sign = "-" if value < 0 else ""
    return f"{sign}{symbol}{abs(value):,.2f}"
