"""Summaries of member star ratings and written reviews."""
import re
from collections import Counter

MIN_STARS = 1
MAX_STARS = 5
STAR_CHARS = {"★", "*"}
FRACTION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*/\s*(\d+)\s*$")
WORD_RE = re.compile(r"[a-z']+")
STOPWORDS = frozenset("""
    the and was but for with this that you are not have had has its it's
    they them their very really just too all out our one about would could
    there what when than then were been into book read story
""".split())


def parse_rating(value):
    """Turn a rating in whatever shape it arrives into whole stars 1-5.

    >>> parse_rating("8/10"), parse_rating("★★★")
    (4, 3)
    """
    if isinstance(value, bool):
        raise ValueError("rating can't be a boolean")
    if isinstance(value, (int, float)):
        stars = value
    else:
        text = str(value).strip()
        match = FRACTION_RE.match(text)
        if text and set(text) <= STAR_CHARS:
            stars = len(text)
        elif match:
            num, den = float(match.group(1)), int(match.group(2))
            if den == 0 or num > den:
                raise ValueError(f"bad fraction rating {value!r}")
            stars = num / den * MAX_STARS
        else:
            try:
                stars = float(text)
            except ValueError:
                raise ValueError(f"can't read rating {value!r}") from None
    stars = round(stars)
    if not MIN_STARS <= stars <= MAX_STARS:
        raise ValueError(f"rating {value!r} is out of range")
    return int(stars)


def average_rating(ratings, ndigits=1):
    values = []
    for r in ratings:
        try:
            values.append(parse_rating(r))
        except ValueError:
            continue
    if not values:
        return None
    return round(sum(values) / len(values), ndigits)


def rating_histogram(ratings):
    """Rows of (stars, count, percent) from 5 stars down to 1, for the summary bar chart."""
    counts = Counter(parse_rating(r) for r in ratings)
    total = sum(counts.values())
    rows = []
    for stars in range(MAX_STARS, MIN_STARS - 1, -1):
        n = counts.get(stars, 0)
        pct = round(100 * n / total) if total else 0
        rows.append((stars, n, pct))
    return rows


def weighted_score(ratings, prior_mean: float = 3.0, prior_weight: int = 5) -> float:
    """Bayesian average that pulls titles with few reviews toward `prior_mean`.

    >>> weighted_score([5])
    3.33
    """
    if prior_weight < 0:
        raise ValueError("prior_weight cannot be negative")
    if not MIN_STARS <= prior_mean <= MAX_STARS:
        raise ValueError("prior_mean must be a valid star rating")
    values = [parse_rating(r) for r in ratings]
    count = prior_weight + len(values)
    if count == 0:
        raise ValueError("no ratings and no prior weight")
    total = prior_mean * prior_weight + sum(values)
    return round(total / count, 2)


def top_keywords(reviews, n=5, min_count=2):
    """Most common meaningful words across review texts, each counted once per review."""
    if n < 1:
        raise ValueError("n must be at least 1")
    counts = Counter()
    for text in reviews:
        words = {w.strip("'") for w in WORD_RE.findall((text or "").lower())}
        counts.update(w for w in words if len(w) > 2 and w not in STOPWORDS)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [word for word, c in ranked if c >= min_count][:n]
