"""Parse free-text appointment requests from the web form and text messages,
e.g. "Tue 14:30 cleaning, 45 min"."""
import re
from datetime import date, timedelta
from typing import Optional

DAY_NAMES = {
    "mon": 0, "monday": 0,
    "tue": 1, "tues": 1, "tuesday": 1,
    "wed": 2, "weds": 2, "wednesday": 2,
    "thu": 3, "thur": 3, "thurs": 3, "thursday": 3,
    "fri": 4, "friday": 4,
    "sat": 5, "saturday": 5,
    "sun": 6, "sunday": 6,
}

TREATMENT_KEYWORDS = {
    "cleaning": ("clean", "scale", "polish", "hygien"),
    "checkup": ("check", "exam"),
    "filling": ("filling", "cavity"),
    "extraction": ("extract", "pull out", "removal"),
    "root_canal": ("root canal", "rct"),
    "whitening": ("whiten", "bleach"),
    "emergency": ("pain", "toothache", "swollen", "broken", "chipped", "emergency"),
}

DEFAULT_MINUTES = {
    "checkup": 15, "cleaning": 30, "filling": 30, "extraction": 30,
    "root_canal": 60, "whitening": 45, "emergency": 15,
}

WORD_RE = re.compile(r"[a-z]+")
CLOCK_RE = re.compile(r"\b([01]?\d|2[0-3])[:.]([0-5]\d)\s*(am|pm)?\b")
AMPM_RE = re.compile(r"\b(1[0-2]|0?[1-9])\s*(am|pm)\b")
DURATION_RE = re.compile(
    r"(\d+(?:\.\d+)?)\s*(hours?|hrs?|h|minutes?|mins?|m)(?![a-z])"
    r"(?:\s*(\d{1,2})\s*(?:minutes?|mins?|m)?(?![a-z:.\d]))?",
    re.IGNORECASE,
)


def parse_day(text):
    """Return the weekday number (Mon=0) mentioned in text, or None."""
    for token in WORD_RE.findall(text.lower()):
        if token in DAY_NAMES:
            return DAY_NAMES[token]
        if token == "weekend":
            return 5
    return None


def parse_clock_time(text):
    """Find a clock time in free text and return it as 'HH:MM', or None.

    >>> parse_clock_time("Tue 2.30pm please")
    '14:30'
    >>> parse_clock_time("any time after lunch") is None
    True
    """
    lowered = text.lower()
    if "noon" in lowered or "midday" in lowered:
        return "12:00"
    m = CLOCK_RE.search(lowered)
    if m:
        hour, minute, suffix = int(m.group(1)), int(m.group(2)), m.group(3)
    else:
        m = AMPM_RE.search(lowered)
        if not m:
            return None
        hour, minute, suffix = int(m.group(1)), 0, m.group(2)
    if suffix:
        if hour == 0 or hour > 12:
            raise ValueError(f"bad 12-hour time in {text!r}")
        if suffix == "pm" and hour != 12:
            hour += 12
        elif suffix == "am" and hour == 12:
            hour = 0
    elif 1 <= hour < 7:
        hour += 12  # nobody books "3:15" meaning the middle of the night
    return f"{hour:02d}:{minute:02d}"


def parse_duration(text):
    """Requested length in minutes: '45 min' -> 45, '1h30' -> 90, '1.5 hours' -> 90."""
    m = DURATION_RE.search(text)
    if not m:
        return None
    amount = float(m.group(1))
    if m.group(2).lower().startswith("h"):
        minutes = amount * 60
        if m.group(3):
            minutes += int(m.group(3))
    else:
        minutes = amount
    minutes = int(round(minutes))
    if minutes <= 0 or minutes > 240:
        raise ValueError(f"implausible duration in {text!r}")
    return minutes


def detect_treatment(text):
    """Map free text to a treatment name; anything that sounds urgent is an emergency."""
    lowered = text.lower()
    found = []
    for treatment, words in TREATMENT_KEYWORDS.items():
        if any(w in lowered for w in words):
            found.append(treatment)
    if not found:
        return None
    if "emergency" in found:
        return "emergency"
    return found[0]


def next_date_for_weekday(weekday, reference, allow_same_day=False):
    """The next date falling on `weekday` after the reference date.

    >>> next_date_for_weekday(1, date(2024, 3, 4))
    datetime.date(2024, 3, 5)
    >>> next_date_for_weekday(0, date(2024, 3, 4))
    datetime.date(2024, 3, 11)
    """
    if not 0 <= weekday <= 6:
        raise ValueError(f"weekday must be 0-6, got {weekday}")
    ahead = (weekday - reference.weekday()) % 7
    if ahead == 0 and not allow_same_day:
        ahead = 7
    return reference + timedelta(days=ahead)


def parse_request(text: str, reference: Optional[date] = None) -> dict:
    """Pull day, time, treatment and length out of a free-text request.
    >>> r = parse_request("Tue 14:30 cleaning, 45 min")
    >>> (r["weekday"], r["time"], r["treatment"], r["minutes"])
    (1, '14:30', 'cleaning', 45)
    """
    if not text or not text.strip():
        raise ValueError("empty request")
    minutes = parse_duration(text)
    remainder = DURATION_RE.sub(" ", text)
    treatment = detect_treatment(text)
    result = {
        "weekday": parse_day(remainder),
        "time": parse_clock_time(remainder),
        "treatment": treatment,
        "minutes": minutes if minutes is not None else DEFAULT_MINUTES.get(treatment),
        "minutes_guessed": minutes is None and treatment in DEFAULT_MINUTES,
        "date": None,
    }
    if reference is not None:
        if "tomorrow" in text.lower():
            result["date"] = reference + timedelta(days=1)
        elif "today" in text.lower():
            result["date"] = reference
        elif result["weekday"] is not None:
            result["date"] = next_date_for_weekday(result["weekday"], reference)
        if result["date"] is not None:
            result["weekday"] = result["date"].weekday()
    result["missing"] = [f for f in ("weekday", "time", "treatment") if result[f] is None]
    return result
