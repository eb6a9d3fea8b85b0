"""Text helpers for the notice board and newsletter."""
import re
import unicodedata
from datetime import date

SMALL_WORDS = {
    "a", "an", "and", "as", "at", "but", "by", "for", "from", "in",
    "nor", "of", "on", "or", "the", "to", "with",
}
MONTHS = [
    "January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December",
]
SLUG_STRIP_RE = re.compile(r"[^a-z0-9]+")
PARAGRAPH_RE = re.compile(r"\n\s*\n")
EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
PHONE_RE = re.compile(r"(?<!\w)(?:\+44\s?|0)\d{2,4}[\s-]?\d{3,4}[\s-]?\d{3,4}(?!\d)")


def slugify(title, max_length=60):
    """
    >>> slugify("Crème Brûlée & Book Club: March!")
    'creme-brulee-book-club-march'
    """
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    slug = SLUG_STRIP_RE.sub("-", text.lower()).strip("-")
    if not slug:
        raise ValueError(f"nothing left to make a slug from {title!r}")
    if len(slug) > max_length:
        slug = slug[:max_length].rsplit("-", 1)[0]
    return slug


def truncate_words(text: str, limit: int, suffix: str = "…") -> str:
    """Cut text to at most `limit` characters without splitting a word."""
    if limit < len(suffix) + 1:
        raise ValueError("limit is too small for the suffix")
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    room = limit - len(suffix)
    cut = text[:room]
    if " " in cut and text[room] != " ":
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:.-") + suffix


def title_case_heading(text):
    """
    >>> title_case_heading("an evening OF poetry and the sea with the WI")
    'An Evening of Poetry and the Sea with the WI'
    """
    words = text.split()
    out = []
    last = len(words) - 1
    for i, word in enumerate(words):
        lower = word.lower()
        if 0 < i < last and lower in SMALL_WORDS:
            out.append(lower)
        elif word.isupper() and 1 < len(word) <= 4:
            out.append(word)  # keep acronyms like AGM, WI, NHS
        else:
            out.append(word[:1].upper() + word[1:].lower())
    return " ".join(out)


def redact_contacts(text, placeholder="[contact removed]"):
    """Remove email addresses and phone numbers before a notice goes on the public board.

    >>> redact_contacts("Call Ann on 07700 900123 or email ann@example.org")
    'Call Ann on [contact removed] or email [contact removed]'
    """
    if not text:
        return text
    redacted, n_email = EMAIL_RE.subn(placeholder, text)
    redacted, n_phone = PHONE_RE.subn(placeholder, redacted)
    if n_email + n_phone == 0:
        return text
    repeated = re.compile(
        re.escape(placeholder) + r"(?:\s*(?:,|/|or|and)\s*" + re.escape(placeholder) + ")+"
    )
    return repeated.sub(placeholder, redacted)


def format_date_range(start: date, end: date) -> str:
    """
    >>> format_date_range(date(2024, 3, 3), date(2024, 3, 5))
    '3–5 March 2024'
    >>> format_date_range(date(2024, 3, 30), date(2024, 4, 2))
    '30 March – 2 April 2024'
    >>> format_date_range(date(2024, 12, 30), date(2025, 1, 1))
    '30 December 2024 – 1 January 2025'
    """
    if end < start:
        raise ValueError("end date is before start date")
    first, second = MONTHS[start.month - 1], MONTHS[end.month - 1]
    if start == end:
        return f"{start.day} {first} {start.year}"
    if start.year != end.year:
        return f"{start.day} {first} {start.year} – {end.day} {second} {end.year}"
    if start.month != end.month:
        return f"{start.day} {first} – {end.day} {second} {end.year}"
    return f"{start.day}–{end.day} {second} {end.year}"


def wrap_notice(text, width=40, indent=""):
    """Wrap notice text to a fixed width for printing, keeping paragraph breaks."""
    if width <= len(indent) + 10:
        raise ValueError("width is too narrow")
    if not text or not text.strip():
        return ""
    lines = []
    for para in PARAGRAPH_RE.split(text.strip()):
        line = ""
        for word in para.split():
            if line and len(indent) + len(line) + 1 + len(word) > width:
                lines.append(indent + line)
                line = word
            elif line:
                line += " " + word
            else:
                line = word
        lines.append(indent + line)
        lines.append("")
    return "\n".join(lines[:-1])
