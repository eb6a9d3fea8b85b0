import re
from collections import namedtuple
from datetime import date

Member = namedtuple("Member", "name email phone birth_date category")

EMAIL_RE = re.compile(r"^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$")
NON_DIGITS_RE = re.compile(r"\D+")
WHITESPACE_RE = re.compile(r"\s+")
NAME_SPLIT_RE = re.compile(r"([-'])")

NAME_PARTICLES = {"de", "van", "von", "der", "da", "di", "la", "le", "du"}
EMAIL_TYPO_DOMAINS = {
    "gmial.com": "gmail.com",
    "gmai.com": "gmail.com",
    "hotmial.com": "hotmail.com",
    "yahooo.com": "yahoo.com",
    "outlok.com": "outlook.com",
}
CHILD_MAX_AGE = 12
ADULT_MIN_AGE = 18
SENIOR_MIN_AGE = 65


def normalize_name(raw):
    """Tidy a member's name: collapse spaces and fix capitalisation.

    >>> normalize_name("  mary-jane   o'BRIEN ")
    "Mary-Jane O'Brien"
    >>> normalize_name("ludwig VAN beethoven")
    'Ludwig van Beethoven'
    >>> normalize_name("ANNA mcdonald")
    'Anna McDonald'
    """
    cleaned = WHITESPACE_RE.sub(" ", raw or "").strip()
    if not cleaned:
        raise ValueError("name is empty")
    words = []
    for i, word in enumerate(cleaned.split(" ")):
        lower = word.lower()
        if i > 0 and lower in NAME_PARTICLES:
            words.append(lower)
            continue
        pieces = []
        for part in NAME_SPLIT_RE.split(lower):
            if part.startswith("mc") and len(part) > 2:
                pieces.append("Mc" + part[2:].capitalize())
            else:
                pieces.append(part.capitalize())
        words.append("".join(pieces))
    return " ".join(words)


def normalize_email(raw: str) -> str:
    email = (raw or "").strip().lower()
    if email.startswith("mailto:"):
        email = email[len("mailto:"):]
    if email.count("@") != 1:
        raise ValueError(f"not an email address: {raw!r}")
    local, domain = email.split("@")
    domain = EMAIL_TYPO_DOMAINS.get(domain, domain)
    email = f"{local}@{domain}"
    if not EMAIL_RE.match(email):
        raise ValueError(f"not an email address: {raw!r}")
    return email


def normalize_phone(raw, country_code="44"):
    """Return a phone number as +<country><number>, or '' if none was given."""
    if raw is None or not str(raw).strip():
        return ""
    text = str(raw).strip()
    digits = NON_DIGITS_RE.sub("", text)
    if text.startswith("+"):
        number = digits
    elif digits.startswith("00"):
        number = digits[2:]
    elif digits.startswith("0"):
        number = country_code + digits[1:]
    else:
        number = country_code + digits
    if not 10 <= len(number) <= 15:
        raise ValueError(f"phone number has the wrong length: {raw!r}")
    return "+" + number


def membership_category(birth_date: date, on: date) -> str:
    if birth_date > on:
        raise ValueError("birth date is in the future")
    age = on.year - birth_date.year
    if (on.month, on.day) < (birth_date.month, birth_date.day):
        age -= 1
    if age <= CHILD_MAX_AGE:
        return "junior"
    if age < ADULT_MIN_AGE:
        return "teen"
    if age >= SENIOR_MIN_AGE:
        return "senior"
    return "adult"


def clean_member(record, on):
    """Build a Member from a raw sign-up form dict, normalising every field."""
    name = normalize_name(record.get("name", ""))
    email_raw = record.get("email") or ""
    email = normalize_email(email_raw) if email_raw.strip() else ""
    phone = normalize_phone(record.get("phone"))
    if not email and not phone:
        raise ValueError(f"{name} has no way to be contacted")
    birth = record.get("birth_date")
    if isinstance(birth, str):
        birth = date.fromisoformat(birth.strip()) if birth.strip() else None
    category = membership_category(birth, on) if birth else "adult"
    return Member(name, email, phone, birth, category)


def dedupe_members(members):
    """Drop repeat sign-ups, keeping the first record but filling its gaps from later ones."""
    kept = []
    index = {}
    for m in members:
        keys = [k for k in (m.email, m.phone and (m.name.lower(), m.phone)) if k]
        hit = next((index[k] for k in keys if k in index), None)
        if hit is None:
            index.update((k, len(kept)) for k in keys)
            kept.append(m)
            continue
        old = kept[hit]
        kept[hit] = old._replace(
            email=old.email or m.email,
            phone=old.phone or m.phone,
            birth_date=old.birth_date or m.birth_date,
            category=old.category if old.birth_date else m.category,
        )
        index.update((k, hit) for k in keys)
    return kept
