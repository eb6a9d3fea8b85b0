"""Strings that match a regular expression, drawn from a seeded ``random.Random``.

``execverify from-code`` draws the text a function checks with a compiled pattern (``EMAIL_RE.match(addr)``,
``ISO_DATE_RE.match(text)``) from that pattern (the ``pattern`` input domain of :mod:`execverify_data.inputs`):
uniform draws almost never match one, so the branch taken on a match was never taken. The pattern is read by
the interpreter's own parser (``re._parser``); repeats are drawn short, classes from their members, and a
pattern the drawer does not know (look-arounds, back references) gives None.

>>> import random, re
>>> re.match(r"^(\\d{4})-(\\d{2})-(\\d{2})$", draw(r"^(\\d{4})-(\\d{2})-(\\d{2})$", random.Random(0))) is not None
True
>>> all(re.match(r"[a-z]+@[a-z]+\\.(com|org)", draw(r"[a-z]+@[a-z]+\\.(com|org)", random.Random(i))) for i in range(50))
True
"""

from __future__ import annotations

import random
import re
import string

try:  # Python 3.11+
    from re import _constants as _c
    from re import _parser as _p
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

__all__ = ["draw"]

#: Characters drawn for a category or a negated class (short, readable, ASCII).
_CATEGORIES = {
    _c.CATEGORY_DIGIT: string.digits, _c.CATEGORY_NOT_DIGIT: string.ascii_letters + "._-",
    _c.CATEGORY_WORD: string.ascii_lowercase + string.digits + "_", _c.CATEGORY_NOT_WORD: " .,-:/",
    _c.CATEGORY_SPACE: " ", _c.CATEGORY_NOT_SPACE: string.ascii_lowercase + string.digits,
}
_ANY = string.ascii_lowercase + string.digits
_PRINTABLE = string.ascii_letters + string.digits + " .,-_:/@#"
#: Words a repeated class of letters gives most of the time (``[a-z]+@[a-z]+``: ``kitten@garden``).
_WORDS = ("ann", "bob", "mail", "info", "sales", "kitten", "garden", "river", "example", "office", "com", "org", "net",
          "de", "io", "shop", "team", "north", "lisa", "mark")
#: The most extra repeats of an open-ended repeat (``+``, ``*``, ``{2,}``).
_OPEN = 6


class _Unknown(Exception):
    pass


def draw(pattern: str, rng: random.Random, *, flags: int = 0) -> str | None:
    """One string that ``re.search(pattern, s)`` matches from its start, or None when the pattern uses what
    this drawer does not know (or does not compile)."""
    try:
        parsed = _p.parse(pattern, flags)
        out = _seq(parsed, rng, {})
    except (_Unknown, re.error, RecursionError, TypeError, ValueError):
        return None
    if not re.match(pattern, out, flags):  # a look-around or an anchor the drawer passed over
        return None
    return out


def _seq(items, rng: random.Random, groups: dict) -> str:
    return "".join(_item(op, av, rng, groups) for op, av in items)


def _members(items) -> str:
    chars: list[str] = []
    negate = False
    for op, av in items:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            chars.append(chr(av))
        elif op is _c.RANGE:
            lo, hi = av
            chars.extend(chr(c) for c in range(lo, min(hi, lo + 95) + 1))
        elif op is _c.CATEGORY:
            chars.extend(_CATEGORIES.get(av, ""))
        else:
            raise _Unknown(op)
    if negate:
        return "".join(c for c in _PRINTABLE if c not in chars)
    return "".join(chars)


def _item(op, av, rng: random.Random, groups: dict) -> str:
    if op is _c.LITERAL:
        return chr(av)
    if op is _c.NOT_LITERAL:
        return rng.choice([c for c in _ANY if ord(c) != av])
    if op is _c.ANY:
        return rng.choice(_ANY)
    if op is _c.IN:
        pool = _members(av)
        if not pool:
            raise _Unknown(op)
        return rng.choice(pool)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        lo, hi, body = av
        if lo == hi in (2, 4) and list(body) == [(_c.IN, [(_c.CATEGORY, _c.CATEGORY_DIGIT)])] and rng.random() < 0.8:
            # a field of 2 or 4 digits is most of the time a day, a month, an hour, a minute or a year, as people write them
            if lo == 4:
                return str(rng.randint(1950, 2035))
            return f"{rng.randint(0, 59) if rng.random() < 0.25 else rng.randint(1, 12 if rng.random() < 0.7 else 28):02d}"
        if (lo, hi) == (1, 2) and list(body) == [(_c.IN, [(_c.CATEGORY, _c.CATEGORY_DIGIT)])] and rng.random() < 0.6:
            return str(rng.randint(0, 23))  # \d{1,2}: an hour, a day or a month more often than 57
        top = lo + _OPEN if hi is _c.MAXREPEAT or hi > lo + _OPEN else hi
        # short repeats most of the time, now and then the longest
        if len(body) == 1 and body[0][0] is _c.IN and rng.random() < 0.7:
            pool = _members(body[0][1])
            words = [w for w in _WORDS if lo <= len(w) <= top and set(w) <= set(pool)] if set("abcxyz") <= set(pool) else []
            if words:
                return rng.choice(words)
        if (lo, top) == (0, 1):  # an optional part: now and then
            n = int(rng.random() < 0.35)
        else:
            n = rng.choice((lo, lo, rng.randint(lo, top), top)) if top > lo else lo
            n = max(n, 1) if rng.random() < 0.5 else n
        return "".join(_seq(body, rng, groups) for _ in range(n))
    if op is _c.SUBPATTERN:
        group, _, _, body = av
        text = _seq(body, rng, groups)
        if group is not None:
            groups[group] = text
        return text
    if op is _c.BRANCH:
        return _seq(rng.choice(av[1]), rng, groups)
    if op is _c.GROUPREF:
        return groups.get(av, "")
    if op is _c.AT:
        return ""
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _seq(av, rng, groups)
    raise _Unknown(op)
