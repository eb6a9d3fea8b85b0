"""Clean up patient records imported from the old practice software."""
import re
import unicodedata

NAME_PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "del", "la", "le", "du"}
MC_RE = re.compile(r"^mc([a-z]{2,})$", re.IGNORECASE)
PHONE_JUNK_RE = re.compile(r"[\s\-\.\(\)/]")
UK_MOBILE_RE = re.compile(r"^\+447\d{9}$")
EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.IGNORECASE)

INSURANCE_ID_FORMATS = {
    "denplan": re.compile(r"^DP\d{8}$"),
    "bupa": re.compile(r"^[A-Z]{2}\d{6}[A-Z]$"),
    "simplyhealth": re.compile(r"^SH-\d{4}-\d{4}$"),
    "axa": re.compile(r"^\d{10}$"),
}


def capitalize_name_part(part: str) -> str:
    """Capitalise one hyphen-free piece of a name, handling O'/D' and Mc prefixes."""
    if not part:
        return part
    if "'" in part:
        head, _, tail = part.partition("'")
        if len(head) == 1 and tail:  # O'Brien, D'Arcy
            return head.upper() + "'" + tail[:1].upper() + tail[1:].lower()
        return part[:1].upper() + part[1:].lower()
    m = MC_RE.match(part)
    if m:
        rest = m.group(1)
        return "Mc" + rest[:1].upper() + rest[1:].lower()
    return part[:1].upper() + part[1:].lower()


def normalize_name(name):
    """Tidy capitalisation and spacing of a personal name.

    >>> normalize_name("  mary-jane   o'connor ")
    "Mary-Jane O'Connor"
    >>> normalize_name("LUDWIG VAN BEETHOVEN")
    'Ludwig van Beethoven'
    """
    if not name or not name.strip():
        raise ValueError("empty name")
    words = name.split()
    out = []
    for i, word in enumerate(words):
        lower = word.lower()
        if 0 < i < len(words) - 1 and lower in NAME_PARTICLES:
            out.append(lower)
            continue
        out.append("-".join(capitalize_name_part(p) for p in lower.split("-")))
    return " ".join(out)


def split_full_name(full_name):
    """Split a name into (first names, surname); 'Surname, First' is accepted too."""
    if not full_name or not full_name.strip():
        raise ValueError("empty name")
    if "," in full_name:
        last, _, first = full_name.partition(",")
        if not first.strip() or not last.strip():
            raise ValueError(f"can't split {full_name!r}")
        return normalize_name(first), normalize_name(last)
    words = normalize_name(full_name).split()
    if len(words) == 1:
        return "", words[0]
    # the surname starts at the first particle, e.g. "Ana de la Cruz"
    for i in range(1, len(words) - 1):
        if words[i] in NAME_PARTICLES:
            return " ".join(words[:i]), " ".join(words[i:])
    return " ".join(words[:-1]), words[-1]


def normalize_phone(raw, country_code="44"):
    """Return a phone number as +<country><number>.

    >>> normalize_phone("07700 900 123")
    '+447700900123'
    >>> normalize_phone("(0044) 20-7946-0018")
    '+442079460018'
    """
    if raw is None:
        raise ValueError("no phone number")
    digits = PHONE_JUNK_RE.sub("", str(raw))
    if digits.startswith("+"):
        number = digits
    elif digits.startswith("00"):
        number = "+" + digits[2:]
    elif digits.startswith("0"):
        number = "+" + country_code + digits[1:]
    else:
        number = "+" + country_code + digits
    # people love writing +44 (0)7700 ...
    if number.startswith("+" + country_code + "0"):
        number = "+" + country_code + number[len(country_code) + 2:]
    if not number[1:].isdigit() or not 10 <= len(number) - 1 <= 15:
        raise ValueError(f"not a phone number: {raw!r}")
    return number


def normalize_insurance_id(raw, provider):
    """Uppercase and reformat a membership number, checking the provider's format."""
    key = (provider or "").strip().lower()
    if key not in INSURANCE_ID_FORMATS:
        raise ValueError(f"unknown insurer: {provider!r}")
    value = re.sub(r"[\s\.]", "", str(raw or "")).upper()
    if key == "simplyhealth":
        if "-" not in value and len(value) == 10:
            value = f"{value[:2]}-{value[2:6]}-{value[6:]}"
    else:
        value = value.replace("-", "")
    if not INSURANCE_ID_FORMATS[key].match(value):
        raise ValueError(f"invalid {key} id: {raw!r}")
    return value


def clean_patient_record(record: dict):
    """Return (cleaned copy, list of field names that could not be fixed)."""
    cleaned = dict(record)
    problems = []
    if record.get("name") and not record.get("last_name"):
        cleaned["first_name"], cleaned["last_name"] = split_full_name(record["name"])
        cleaned.pop("name")
    for field in ("first_name", "last_name"):
        if cleaned.get(field):
            cleaned[field] = normalize_name(cleaned[field])
    if cleaned.get("phone"):
        try:
            cleaned["phone"] = normalize_phone(cleaned["phone"])
            cleaned["phone_type"] = "mobile" if UK_MOBILE_RE.match(cleaned["phone"]) else "landline"
        except ValueError:
            problems.append("phone")
    email = (cleaned.get("email") or "").strip().lower()
    if email and not EMAIL_RE.match(email):
        problems.append("email")
    cleaned["email"] = email or None
    if cleaned.get("insurance_id"):
        try:
            cleaned["insurance_id"] = normalize_insurance_id(cleaned["insurance_id"], cleaned.get("insurer"))
        except ValueError:
            problems.append("insurance_id")
    return cleaned, problems


def find_duplicate_patients(records):
    """Group ids of records that look like the same person (surname + birth date, or same phone)."""
    by_key = {}
    for rec in records:
        keys = []
        if rec.get("last_name") and rec.get("dob"):
            folded = unicodedata.normalize("NFKD", rec["last_name"]).encode("ascii", "ignore").decode()
            keys.append(("name", folded.lower().replace(" ", ""), rec["dob"]))
        if rec.get("phone"):
            keys.append(("phone", rec["phone"]))
        for key in keys:
            by_key.setdefault(key, []).append(rec["id"])
    groups = []
    for ids in by_key.values():
        group = tuple(sorted(set(ids)))
        if len(group) > 1 and group not in groups:
            groups.append(group)
    return sorted(groups)
