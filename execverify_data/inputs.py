"""Inputs for synthesized programs: typed draws from a seed, Hypothesis strategies, and mutation.

Every parameter type is a string in the catalog's type language
(:mod:`execverify_data.catalog.typelang`). Three things are built from it:

* :func:`draw`: one value from a seeded ``random.Random``, fast and deterministic;
  this is what the pipeline uses (see ``docs/synthesis.md`` for the measurement that
  picked it over driving Hypothesis at run time);
* :func:`strategy`: the Hypothesis strategy for the same domain, for property tests
  and for users who want shrinking;
* :func:`mutate`: a type-preserving edit of a value (edit characters, insert,
  delete or swap elements, change keys, perturb numbers).

:func:`draw_inputs` combines them: a seed input, then fresh draws and mutations of
it, kept distinct by their canonical argument text.

Size bounds (``min_size``/``max_size``, ExecVerify's "length greater than five") apply
to the top-level string or container of each argument; nested elements stay short.

>>> import random
>>> draw("list[int]", random.Random(0), min_size=6, max_size=6)
[10, -2, 5, 12, 9, 6]
>>> args = draw_inputs(("str", "int"), seed=3, k=3)
>>> len(args), all(isinstance(a, str) and isinstance(b, int) for a, b in args)
(3, True)
>>> draw_inputs(("str", "int"), seed=3, k=3) == args
True
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Iterator
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING

from execverify_data.catalog import typelang
from execverify_data.catalog.typelang import Type
from execverify_data.errors import InvalidArgument
from execverify_data.values import format_arguments

if TYPE_CHECKING:
    import ast

__all__ = ["DOMAINS", "INT_RANGE", "NARROWINGS", "PREDICATE_STYLES", "Hints", "aimed", "common_type", "draw", "draw_inputs",
           "drawable", "iter_inputs", "mutate", "split_domain", "strategy", "type_text_of"]

#: Integers are drawn from this closed range (small, so loops over ``range(n)`` stay short).
INT_RANGE = (-3, 12)
_WORDS = ("apple", "banana", "kiwi", "lemon", "mango", "pear", "plum", "red", "blue", "cat", "dog", "sun",
          "moon", "star", "tree", "code", "data", "a", "an", "the", "x", "yo")
_CHARS = "abcdeklmnorstxy"
_EXTRA = " ,-.ABE019"
_FLOATS = (-2.5, -1.0, 0.0, 0.25, 0.5, 1.5, 2.0, 3.75, 10.0, 12.5)
_SUPPORTED = ("str", "int", "float", "bool", "bytes", "None", "list", "set", "frozenset", "tuple", "dict", *sorted(typelang.EXACT))
#: Dates near one another (most functions given two compare them or count the days between), now and then another
#: year or decade.
_EPOCH = dt.date(2024, 1, 1)
_AMOUNTS = ("0.00", "0.99", "1.50", "2.25", "4.50", "5.00", "9.99", "12.00", "19.95", "25.00", "100.00", "-3.50")


def _date(rng: random.Random) -> dt.date:
    roll = rng.random()
    if roll < 0.6:
        return _EPOCH + dt.timedelta(days=rng.randint(0, 120))
    # another year of this decade (a renewal, an expiry), or a past one (a birth date, a founding)
    years = (2018, 2027) if roll < 0.8 else (1940, 2017)
    return dt.date(rng.randint(*years), rng.randint(1, 12), rng.randint(1, 28))


def _clock(rng: random.Random) -> dt.time:
    return dt.time(rng.randint(6, 22), rng.choice((0, 0, 15, 30, 45, rng.randint(0, 59))))


def _stdlib_value(name: str, rng: random.Random) -> object:
    """A value of one of :data:`typelang.EXACT`: a date of early 2024 (or another year), a time of day, a span
    of days or hours, an amount of money."""
    if name == "date":
        return _date(rng)
    if name == "datetime":
        return dt.datetime.combine(_date(rng), _clock(rng))
    if name == "time":
        return _clock(rng)
    if name == "timedelta":
        return dt.timedelta(days=rng.randint(0, 14)) if rng.random() < 0.6 else dt.timedelta(hours=rng.randint(1, 36))
    return Decimal(rng.choice(_AMOUNTS))


def _stdlib_mutate(value, name: str, rng: random.Random) -> object:
    """A nearby value: a date a day, a week or a month away, a time a quarter-hour away, an amount a step away."""
    if name in ("date", "datetime"):
        return value + dt.timedelta(days=rng.choice((-30, -7, -1, 1, 1, 7, 30)))
    if name == "time":
        minutes = (value.hour * 60 + value.minute + rng.choice((-60, -15, 15, 60))) % (24 * 60)
        return dt.time(minutes // 60, minutes % 60)
    if name == "timedelta":
        return max(dt.timedelta(0), value + dt.timedelta(days=rng.choice((-1, 1, 7))))
    return value + Decimal(rng.choice(("-1.00", "-0.50", "0.50", "1.00", "10.00")))


@lru_cache(maxsize=None)
def _parse(type_text: str | Type) -> Type:
    t = typelang.parse(type_text) if isinstance(type_text, str) else type_text
    _validate(t, type_text)
    return t


def drawable(type_text: str | None) -> bool:
    """Whether the sampler draws values of ``type_text`` (a type-language text).

    >>> drawable("list[int]"), drawable("Foo"), drawable(None)
    (True, False, False)
    """
    try:
        return type_text is not None and bool(_parse(type_text))
    except InvalidArgument:
        return False


def _validate(t: Type, text) -> None:
    if t.name not in _SUPPORTED and t.name not in ("|", "..."):
        raise InvalidArgument(f"cannot draw inputs of type {t} in {text!r}; use concrete types among {_SUPPORTED}")
    for a in t.args:
        _validate(a, text)


def _bounds(min_size: int, max_size: int) -> None:
    if not (isinstance(min_size, int) and isinstance(max_size, int) and 0 <= min_size <= max_size):
        raise InvalidArgument(f"need 0 <= min_size <= max_size (ints), got {min_size!r}, {max_size!r}")


# ------------------------------------------------------------------ seeded draws


def _text(rng: random.Random, lo: int, hi: int) -> str:
    n = rng.randint(lo, hi)
    if rng.random() < 0.5:
        words: list[str] = []
        while len(" ".join(words)) < n:
            words.append(rng.choice(_WORDS))
        out = " ".join(words)[:n]
        return out if len(out) >= lo else out + "a" * (lo - len(out))
    pool = _CHARS + (_EXTRA if rng.random() < 0.5 else "")
    return "".join(rng.choice(pool) for _ in range(n))


class Hints:
    """What a program compares its inputs with: its string, bytes and int literals, and its string predicates.

    Drawing with hints (:func:`draw_inputs` ``hints=``), a scalar is, some of the time, built around a literal
    (a top-level string with one spliced in, its length unchanged; a short string or dict key that is one; an
    int next to one), and a top-level string sometimes takes a style (digits, letters, upper, title, spaces, a
    non-ASCII or an unprintable character...), most of the time the one that makes a predicate the program
    calls true (:data:`PREDICATE_STYLES`). Conditions such as ``if 'an' in word`` or ``if text.isdigit()``
    then go both ways across the draws, where uniform draws almost never make them true (half of the
    synthesized programs used to be rejected for a constant output). The literals are the program's, so the
    inputs still say nothing a reader cannot see in the code.

    >>> h = Hints.of_source("def f(s):\\n    return s.count('an') + 3 if s.isupper() else 0")
    >>> h.strs, h.ints, h.styles
    (('an',), (0, 3), ('upper',))
    """

    __slots__ = ("strs", "ints", "bytes_", "styles", "seps", "patterns", "keys", "fields", "splits", "numbers", "field_types",
                 "cells", "examples", "dates", "tables")

    #: Probability that a top-level string or an int is built around a literal, that an element of a
    #: container (or a dict key) is one, and that a top-level string takes a style.
    RATE = 0.3
    ELEMENT_RATE = 0.12
    STYLE_RATE = 0.2

    def __init__(self, strs=(), ints=(), bytes_=(), styles=(), seps=(), *, patterns=(), keys=(), fields=(), splits=(),
                 numbers=(), field_types=None, cells=(), examples=(), dates=(), tables=None):
        self.strs, self.ints, self.bytes_, self.styles = tuple(strs), tuple(ints), tuple(bytes_), tuple(styles)
        self.seps = tuple(seps)  # the separators the program splits texts at (the ``tokens`` domain joins at them)
        # what the input domains of formats read (:data:`DOMAINS`): the regular expressions the program matches
        # texts with (``pattern``), the string keys of its dict displays (``keys``: what its lookups find), the
        # string literals it subscripts with or ``.get``s (``record``: a row's fields), and ``(separator, n)``
        # for a split unpacked into n names (``numfields``: ``h, m = t.split(':')``)
        self.patterns, self.keys, self.fields, self.splits = tuple(patterns), tuple(keys), tuple(fields), tuple(splits)
        # what a function's own analysis adds (``execverify from-code``, :func:`execverify_data.param_types.hints`;
        # empty for the generator's programs): ``numbers``, every number the program holds, whatever its size (an
        # int or a float is, some of the time, drawn below, at or above one: ``score >= 90``); ``field_types``, the
        # type of the value at each string key the body subscripts or ``.get``s (``record``: ``task["title"]`` a
        # text, ``t.get("tags", [])`` a list of texts); ``cells``, the strings the items of a nested list are
        # compared with (``board[r][c] == ""``: the ``cells`` domain)
        self.numbers, self.field_types, self.cells = tuple(numbers), dict(field_types or {}), tuple(cells)
        # ``examples``, the texts quoted in the function's docstring (``"'3:45' -> 225"``): the ``example`` domain
        self.examples = tuple(examples)
        # ``dates``, the formats it reads dates and times in (``datetime.strptime(s, "%d/%m/%Y")``, ``"%Y-%m-%d"`` for
        # ``date.fromisoformat(s)``): the ``datefmt`` domain
        self.dates = tuple(dates)
        # ``tables``, the str and int keys (or elements) of each module-level dict, set, list or tuple display by its
        # name: the ``in:NAME`` narrowing (``if plan not in PLANS: raise``)
        self.tables = dict(tables or {})

    @classmethod
    def of_source(cls, source: str | ast.Module) -> Hints:
        """The hints of a program text (or of its parsed module, which is only read): its short literals (in the
        order a breadth-first walk of its AST meets them) and the styles of the string predicates it calls."""
        import ast

        from execverify_data.astwalk import walk

        strs: dict = {}
        ints: dict = {}
        bytes_: dict = {}
        styles: dict = {}
        seps: dict = {}
        formats: dict = {"patterns": {}, "keys": {}, "fields": {}, "splits": {}, "dates": {}}
        module = ast.parse(source) if isinstance(source, str) else source
        tables = {}
        for node in module.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = node.value.args[0] if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) \
                    and node.value.func.id in ("frozenset", "set", "tuple", "list") and node.value.args else node.value
                elements = value.keys if isinstance(value, ast.Dict) else getattr(value, "elts", None) \
                    if isinstance(value, (ast.Set, ast.List, ast.Tuple)) else None
                found = [e.value for e in elements or () if isinstance(e, ast.Constant) and type(e.value) in (str, int)]
                if found:
                    tables[node.targets[0].id] = tuple(dict.fromkeys(found))
        for node in walk(module):
            _formats(node, formats)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("split", "rsplit", "partition", "rpartition") and node.args \
                    and isinstance(node.args[0], ast.Constant) and type(node.args[0].value) is str and node.args[0].value:
                seps.setdefault(node.args[0].value)
            if isinstance(node, ast.Attribute) and node.attr in PREDICATE_STYLES:
                styles.update(dict.fromkeys(PREDICATE_STYLES[node.attr]))
            elif isinstance(node, ast.Constant):
                v = node.value
                if type(v) is str and 0 < len(v) <= 8 and v.isascii() and v.isprintable():
                    strs.setdefault(v)
                elif type(v) is int and -10 <= v <= 20:
                    ints.setdefault(v)
                elif type(v) is bytes and 0 < len(v) <= 8 and all(32 <= c < 127 for c in v):
                    bytes_.setdefault(v)
        return cls(strs, ints, bytes_, styles, seps, **{k: tuple(v) for k, v in formats.items()}, tables=tables)

    def draw(self, name: str, rng: random.Random, lo: int, hi: int, top: bool) -> object:
        if name == "int":
            pool = tuple(int(n) for n in self.numbers) or self.ints
            if pool and rng.random() < (self.RATE if top else self.ELEMENT_RATE):
                return rng.choice(pool) + rng.choice((-1, 0, 0, 1))
            return rng.randint(*INT_RANGE)
        if name == "float":  # only with numbers (the generator's floats are drawn from _FLOATS alone)
            if rng.random() < (self.RATE if top else self.ELEMENT_RATE):
                return float(rng.choice(self.numbers)) + rng.choice((-0.5, 0.0, 0.0, 0.5))
            return rng.choice(_FLOATS)
        pool = self.strs if name == "str" else tuple(b.decode("latin-1") for b in self.bytes_)
        if not top:
            roll = rng.random()
            if pool and roll < self.ELEMENT_RATE:
                text = rng.choice(pool)
            elif roll > 1 - self.ELEMENT_RATE / 3:
                text = ""  # the one falsy string: any() and all() go both ways
            else:
                text = rng.choice(_WORDS) if rng.random() < 0.7 else _text(rng, lo, hi)
                if self.styles and text and rng.random() < self.STYLE_RATE:  # elements the predicates test for
                    text = _STYLES[rng.choice(self.styles)](text, rng)
        else:
            text = self.decorate(_text(rng, lo, hi), rng, bytes_=name == "bytes")
        return text if name == "str" else text.encode("latin-1")

    def decorate(self, text: str, rng: random.Random, *, bytes_: bool = False) -> str:
        """A top-level string with, some of the time, one of the program's literals spliced in (its length
        unchanged: at the start, the end or inside) and a style (upper, digits, spaces...)."""
        pool = self.strs if not bytes_ else tuple(b.decode("latin-1") for b in self.bytes_)
        fitting = [p for p in pool if len(p) <= len(text)]
        if fitting and rng.random() < self.RATE:
            lit = rng.choice(fitting)
            # at the start or the end as often as inside: startswith/endswith/removeprefix test there
            at = rng.choice((0, len(text) - len(lit), rng.randint(0, len(text) - len(lit))))
            text = text[:at] + lit + text[at + len(lit):]
        if text and rng.random() < self.STYLE_RATE:
            names = self.styles if self.styles and rng.random() < 0.75 else _STYLE_NAMES
            text = _STYLES[rng.choice(names)](text, rng)
        return text


def _text_constant(node) -> str | None:
    from ast import Constant

    return node.value if isinstance(node, Constant) and type(node.value) is str and 0 < len(node.value) <= 30 else None


def _formats(node, found: dict) -> None:
    """Add what ``node`` says of the formats of the program's inputs to ``found`` (:class:`Hints`' ``patterns``,
    ``keys``, ``fields``, ``splits``, each a dict used as an ordered set)."""
    import ast

    if isinstance(node, ast.Call) and node.args:
        func, first = node.func, _text_constant(node.args[0])
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        module = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
        pattern = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
        if isinstance(pattern, str) and module == "re" and name in ("compile", "match", "fullmatch", "search", "findall",
                                                                    "finditer"):
            found["patterns"].setdefault(pattern)  # the whole pattern, however long
        elif first is not None and name in ("get", "setdefault", "pop") and isinstance(func, ast.Attribute):
            found["fields"].setdefault(first)
        elif name == "strptime" and len(node.args) > 1 and _text_constant(node.args[1]) and "%" in node.args[1].value:
            found["dates"].setdefault(node.args[1].value)
        elif name == "fromisoformat" and isinstance(func, ast.Attribute):
            found["dates"].setdefault("%H:%M" if module == "time" else "%Y-%m-%d")
    elif isinstance(node, ast.Dict):
        for key in node.keys:
            if key is not None and _text_constant(key) is not None:
                found["keys"].setdefault(key.value)
    elif isinstance(node, ast.Subscript) and _text_constant(node.slice) is not None and isinstance(node.ctx, ast.Load):
        found["fields"].setdefault(node.slice.value)
    elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple) \
            and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
            and node.value.func.attr in ("split", "rsplit") and node.value.args and _text_constant(node.value.args[0]):
        found["splits"].setdefault((node.value.args[0].value, len(node.targets[0].elts)))


def _with_char(pool: str):
    def put(text: str, rng: random.Random) -> str:
        at = rng.randrange(len(text))
        return text[:at] + rng.choice(pool) + text[at + 1:]
    return put


#: Styles of a hinted top-level string (same length): what ``isdigit``, ``isupper``, ``istitle``,
#: ``isspace``, ``isascii``, ``isprintable``... test for, and uniform draws almost never are.
_STYLES = {
    "digits": lambda text, rng: "".join(rng.choice("0123456789") for _ in text),
    "letters": lambda text, rng: "".join(c if c.isalpha() and c.isascii() else rng.choice(_CHARS) for c in text),
    "upper": lambda text, rng: text.upper(),
    "lower": lambda text, rng: text.lower(),
    "title": lambda text, rng: text.title(),
    "capitalized": lambda text, rng: text.capitalize(),
    "spaces": lambda text, rng: " " * len(text),
    "non_ascii": _with_char("\xe9\xfc\xdf"),  # still one byte in latin-1, for bytes
    "unprintable": _with_char("\t\n"),
}
_STYLE_NAMES = tuple(_STYLES)
#: The styles that make each string (or bytes) predicate true.
PREDICATE_STYLES = {
    "isdigit": ("digits",), "isdecimal": ("digits",), "isnumeric": ("digits",), "isupper": ("upper",),
    "islower": ("lower",), "istitle": ("title",), "isspace": ("spaces",), "isascii": ("non_ascii",),
    "isprintable": ("unprintable",), "isalpha": ("letters",), "isalnum": ("letters", "digits"),
    "isidentifier": ("letters",),
}


def _draw(t: Type, rng: random.Random, lo: int, hi: int, top: bool, hints: Hints | None = None) -> object:
    name = t.name
    if not top:
        lo, hi = (1, 5) if name in ("str", "bytes") else (0, 4)
    if name == "|":
        return _draw(rng.choice(t.args), rng, lo, hi, top, hints)
    if hints is not None and (name in ("int", "str", "bytes") or name == "float" and hints.numbers):
        return hints.draw(name, rng, lo, hi, top)
    if name == "int":
        return rng.randint(*INT_RANGE)
    if name == "bool":
        return rng.random() < 0.5
    if name == "float":
        return rng.choice(_FLOATS)
    if name == "None":
        return None
    if name in typelang.EXACT:
        return _stdlib_value(name, rng)
    if name == "str":
        return rng.choice(_WORDS) if not top and rng.random() < 0.7 else _text(rng, lo, hi)
    if name == "bytes":
        return _text(rng, lo, hi).encode("ascii")
    if name == "list":
        return [_draw(t.args[0], rng, lo, hi, False, hints) for _ in range(rng.randint(lo, hi))]
    if name == "tuple":
        if len(t.args) == 2 and t.args[1].name == "...":
            return tuple(_draw(t.args[0], rng, lo, hi, False, hints) for _ in range(rng.randint(lo, hi)))
        return tuple(_draw(a, rng, lo, hi, False, hints) for a in t.args)
    if name in ("set", "frozenset"):
        target = rng.randint(lo, hi)
        out: set = set()
        for _ in range(target * 8):
            if len(out) >= target:
                break
            out.add(_draw(t.args[0], rng, lo, hi, False, hints))
        return out if name == "set" else frozenset(out)
    if name == "dict":
        target = rng.randint(lo, hi)
        out_d: dict = {}
        for _ in range(target * 8):
            if len(out_d) >= target:
                break
            out_d[_draw(t.args[0], rng, lo, hi, False, hints)] = _draw(t.args[1], rng, lo, hi, False, hints)
        return out_d
    raise InvalidArgument(f"cannot draw a value of type {t}")


def draw(type_text: str, rng: random.Random, *, min_size: int = 6, max_size: int = 10) -> object:
    """One value of ``type_text`` drawn from ``rng`` (top-level sizes within the bounds).

    Sets and dicts get as many distinct elements as the element domain allows.
    """
    _bounds(min_size, max_size)
    if not isinstance(rng, random.Random):
        raise InvalidArgument(f"rng must be a random.Random, got {type(rng).__name__}")
    return _draw(_parse(type_text), rng, min_size, max_size, True)


# ------------------------------------------------------------------ Hypothesis strategies


def strategy(type_text: str, *, min_size: int = 6, max_size: int = 10):
    """The Hypothesis strategy of :func:`draw`'s domain for ``type_text``.

    >>> from hypothesis import given
    >>> @given(strategy("dict[str, int]"))
    ... def test(d):
    ...     assert 1 <= len(d) <= 10
    >>> test()
    """
    _bounds(min_size, max_size)
    return _strategy(_parse(type_text), min_size, max_size, True)


def _strategy(t: Type, lo: int, hi: int, top: bool):
    from hypothesis import strategies as st

    name = t.name
    if not top:
        lo, hi = (1, 5) if name in ("str", "bytes") else (0, 4)
    if name == "|":
        return st.one_of(*(_strategy(a, lo, hi, top) for a in t.args))
    if name == "int":
        return st.integers(*INT_RANGE)
    if name == "bool":
        return st.booleans()
    if name == "float":
        return st.sampled_from(_FLOATS)
    if name == "None":
        return st.none()
    if name in typelang.EXACT:
        return st.randoms(use_true_random=False).map(lambda rng: _stdlib_value(name, rng))
    if name == "str":
        text = st.text(alphabet=_CHARS + _EXTRA, min_size=lo, max_size=hi)
        return text if top else st.one_of(st.sampled_from(_WORDS), text)
    if name == "bytes":
        return st.text(alphabet=_CHARS + _EXTRA, min_size=lo, max_size=hi).map(lambda s: s.encode("ascii"))
    if name == "list":
        return st.lists(_strategy(t.args[0], lo, hi, False), min_size=lo, max_size=hi)
    if name == "tuple":
        if len(t.args) == 2 and t.args[1].name == "...":
            return st.lists(_strategy(t.args[0], lo, hi, False), min_size=lo, max_size=hi).map(tuple)
        return st.tuples(*(_strategy(a, lo, hi, False) for a in t.args))
    if name in ("set", "frozenset"):
        elems = _strategy(t.args[0], lo, hi, False)
        s = st.sets(elems, min_size=min(lo, 1), max_size=hi) if t.args[0].name == "bool" else st.sets(elems, min_size=lo, max_size=hi)
        return s if name == "set" else s.map(frozenset)
    if name == "dict":
        return st.dictionaries(_strategy(t.args[0], lo, hi, False), _strategy(t.args[1], lo, hi, False), min_size=min(lo, 1), max_size=hi)
    raise InvalidArgument(f"no strategy for type {t}")


# ------------------------------------------------------------------ mutation


def type_text_of(value: object, *, widen: bool = False) -> str | None:
    """The type text of a literal value, None for a value of another kind. A container's element types are
    joined as :func:`common_type` joins them. Without ``widen`` (this one value's type, for :func:`mutate`), an
    empty container has ``int`` elements (``str`` keys for a dict); with ``widen`` (a parameter's type settled
    from seed values), it tells nothing (None), and a tuple of four or more elements of one type is
    ``tuple[T, ...]``.

    >>> type_text_of([1, 'a', 2]), type_text_of((1, 'a')), type_text_of({'k': [1.5]}), type_text_of([])
    ('list[int | str]', 'tuple[int, str]', 'dict[str, list[float]]', 'list[int]')
    >>> type_text_of([1, 2.5, []], widen=True), type_text_of((1, 2, 3, 4), widen=True), type_text_of([], widen=True)
    ('list[float]', 'tuple[int, ...]', None)
    """
    kind = type(value)
    if kind in (bool, int, float, str, bytes) or value is None:
        return "None" if value is None else kind.__name__
    if kind.__name__ in typelang.EXACT and typelang.CONCRETE[kind.__name__] is kind:
        return kind.__name__
    if kind in (list, set, frozenset):
        element = common_type(value, widen=widen) if value or widen else "int"
        return element and f"{kind.__name__}[{element}]"
    if kind is dict:
        keys = common_type(value, widen=widen) if value or widen else "str"
        values = common_type(value.values(), widen=widen) if value or widen else "int"
        return keys and values and f"dict[{keys}, {values}]"
    if kind is not tuple:
        return None
    parts = [type_text_of(v, widen=widen) for v in value]
    if None in parts or (widen and not parts):
        return None
    if not parts or (widen and len(parts) > 3 and len(set(parts)) == 1):
        return f"tuple[{parts[0] if parts else 'int'}, ...]"
    return f"tuple[{', '.join(parts)}]"


def common_type(values, *, widen: bool = False) -> str | None:
    """One type text for all of ``values``: the union of their :func:`type_text_of`, in order of first
    appearance (None for no values, or, without ``widen``, when one has no type text). With ``widen``, values
    without a type text are left out, ``int`` with ``float`` is ``float`` and ``bool`` with ``int`` is ``int``.

    >>> common_type([1, 'a', True]), common_type([1, 2.5, True], widen=True), common_type([[], [3]], widen=True)
    ('int | str | bool', 'float', 'list[int]')
    """
    texts: list[str] = []
    for value in values:
        text = type_text_of(value, widen=widen)
        if text is None and not widen:
            return None
        if text is not None and text not in texts:
            texts.append(text)
    if widen and len(texts) > 1 and set(texts) <= {"int", "float", "bool"}:
        return "float" if "float" in texts else "int"
    return " | ".join(texts) or None


def mutate(value: object, type_text: str, rng: random.Random) -> object:
    """A type-preserving edit of ``value`` (a new object; ``value`` is not changed).

    >>> import random
    >>> mutate("banana", "str", random.Random(1)) != "banana"
    True
    """
    return _mutate(value, _parse(type_text), rng, True)


def _mutate(value, t: Type, rng: random.Random, top: bool):
    name = t.name
    if name == "|":
        for a in t.args:
            if typelang.conforms(value, a):
                return _mutate(value, a, rng, top)
        return value
    if name == "int":
        lo, hi = INT_RANGE
        return min(hi, max(lo, value + rng.choice((-2, -1, 1, 2)))) if rng.random() < 0.8 else rng.randint(lo, hi)
    if name == "bool":
        return not value
    if name == "float":
        return value + rng.choice((-1.0, -0.5, 0.5, 1.0))
    if name in typelang.EXACT:
        return _stdlib_mutate(value, name, rng)
    if name in ("str", "bytes"):
        chars = list(value.decode("latin-1") if name == "bytes" else value)
        op = rng.randrange(4)
        if op == 0 and chars:  # edit a character
            chars[rng.randrange(len(chars))] = rng.choice(_CHARS + _EXTRA)
        elif op == 1:  # insert
            chars.insert(rng.randint(0, len(chars)), rng.choice(_CHARS + " "))
        elif op == 2 and len(chars) > 1:  # delete
            del chars[rng.randrange(len(chars))]
        elif len(chars) > 1:  # swap
            i, j = rng.sample(range(len(chars)), 2)
            chars[i], chars[j] = chars[j], chars[i]
        else:
            chars.append(rng.choice(_CHARS))
        text = "".join(chars)
        return text.encode("latin-1") if name == "bytes" else text
    if name in ("list", "tuple"):
        homogeneous = name == "list" or (len(t.args) == 2 and t.args[1].name == "...")
        items = list(value)
        if not homogeneous:
            if items:
                i = rng.randrange(len(items))
                items[i] = _mutate(items[i], t.args[i], rng, False)
            return tuple(items)
        elem = t.args[0]
        op = rng.randrange(4)
        if op == 0 and items:
            i = rng.randrange(len(items))
            items[i] = _mutate(items[i], elem, rng, False)
        elif op == 1:
            items.insert(rng.randint(0, len(items)), _draw(elem, rng, 0, 4, False))
        elif op == 2 and len(items) > 1:
            del items[rng.randrange(len(items))]
        elif len(items) > 1:
            i, j = rng.sample(range(len(items)), 2)
            items[i], items[j] = items[j], items[i]
        else:
            items.append(_draw(elem, rng, 0, 4, False))
        return items if name == "list" else tuple(items)
    if name in ("set", "frozenset"):
        items = sorted(value, key=repr)
        if items and rng.random() < 0.5:
            items.remove(rng.choice(items))
        items.append(_draw(t.args[0], rng, 0, 4, False))
        return set(items) if name == "set" else frozenset(items)
    if name == "dict":
        out = dict(value)
        keys = list(out)
        op = rng.randrange(3)
        if op == 0 and keys:  # change a key
            k = rng.choice(keys)
            out[_mutate(k, t.args[0], rng, False)] = out.pop(k)
        elif op == 1 and keys:  # change a value
            k = rng.choice(keys)
            kind = t.args[1]
            if not typelang.conforms(out[k], kind):  # a record's field of its own type (the ``record`` narrowing)
                kind = _parse(type_text_of(out[k]) or "None")
            out[k] = _mutate(out[k], kind, rng, False)
        else:
            out[_draw(t.args[0], rng, 0, 4, False)] = _draw(t.args[1], rng, 0, 4, False)
        return out
    return value


def aimed(param_types, bases: list[tuple], seed: int, k: int, *, strs=(), numbers=(), patterns=()) -> list[tuple]:
    """Up to ``k`` distinct argument tuples, each one of ``bases`` (inputs that returned) with an edit aimed at a
    test no input has taken yet: ``strs`` and ``numbers`` are the literals that test compares with (``'-'`` of
    ``s.startswith('-')``, the words of ``v in FALSE_WORDS``, ``59`` of ``mm > 59``), ``patterns`` the program's
    regular expressions (a text built from parts: ``'[x] call mum !2 due 14:30'`` is a draw of the matched
    expression with draws of the others after it). A text gets a literal at its start, its end, both ends, in
    two places (a quote that opens and closes), in its place, or a draw of a pattern appended, or is emptied or
    upper-cased; a number becomes one of ``numbers``, next to it, or 0; a list is emptied or gets a literal as an
    item; one or two parameters are edited. Bases and their edits are not checked against a domain: what does
    not return is discarded by the caller like any input.

    >>> aimed(("str",), [("123",)], seed=0, k=4, strs=("-", "("))
    [('123(',), ('-123(',), ('1(23',), ('(123',)]
    """
    types = [_parse(t) for t in param_types]
    rng = random.Random(seed)
    strs, numbers = [x for x in strs if isinstance(x, str)], [x for x in numbers if type(x) in (int, float)]
    seen = {format_arguments(b) for b in bases}
    out: list[tuple] = []

    def text(value: str) -> str:
        lit = rng.choice(strs) if strs else ""
        op = rng.randrange(9)
        if op == 0 or (op < 5 and not lit):
            return "" if op == 0 else value.upper()
        if op in (1, 2):  # at the start or the end, as a word of its own half of the time
            joint = " " if value and lit.strip() and rng.random() < 0.5 else ""
            return lit + joint + value if op == 1 else value + joint + lit
        if op == 3:  # a literal and the next one around it ('(' and ')' of startswith('(') and endswith(')'))
            j = rng.randrange(len(strs))
            return strs[j] + value + strs[min(j + 1, len(strs) - 1)]
        if op == 4:
            at = sorted(rng.randint(0, len(value)) for _ in range(2))
            return value[:at[0]] + lit + value[at[0]:at[1]] + lit + value[at[1]:]
        if op == 5 and lit:
            return lit
        if op in (6, 7) and patterns:
            from execverify_data import patterns as regex

            part = regex.draw(rng.choice(patterns), rng)
            return value if part is None else value + " " + part if value else part
        at = rng.randint(0, len(value))
        return value[:at] + lit + value[at:] if lit else value.upper()

    def edit(value, t: Type, depth: int = 0):
        if t.name == "|":  # the arm the value is of, or another arm's draw now and then (a field set to None)
            arm = next((a for a in t.args if typelang.conforms(value, a)), None)
            if arm is None or rng.random() < 0.2:
                return _draw(rng.choice(t.args), rng, 0, 4, False)
            return edit(value, arm, depth)
        if t.name == "bool" and isinstance(value, bool):
            return not value
        if t.name == "str" and isinstance(value, str):
            return text(value)
        if t.name in ("int", "float") and not isinstance(value, bool):
            pool = [n for n in numbers if t.name == "float" or type(n) is int]
            base, step = rng.choice(pool) if pool and rng.random() < 0.8 else 0, rng.choice((-1, 0, 0, 1))
            return int(base) + step if t.name == "int" else float(base) + step
        if t.name in typelang.EXACT and typelang.conforms(value, t):
            if t.name == "Decimal" and numbers and rng.random() < 0.7:  # a threshold the test compares with
                return Decimal(str(rng.choice(numbers))) + rng.choice((-1, 0, 0, 1))
            return _stdlib_mutate(value, t.name, rng)
        if t.name == "list" and isinstance(value, list):
            if value and depth < 2 and t.args[0].name in ("dict", "tuple", "list", "|") and rng.random() < 0.5:
                items = list(value)  # a record of the list, edited as a record
                at = rng.randrange(len(items))
                items[at] = edit(items[at], t.args[0], depth + 1)
                return items
            if not value or rng.random() < 0.3 or t.args[0].name != "str":
                return [] if value and rng.random() < 0.5 else value + [_draw(t.args[0], rng, 0, 4, False)]
            items = list(value)
            items[rng.randrange(len(items))] = rng.choice(strs) if strs else ""
            return items
        if t.name == "tuple" and isinstance(value, tuple) and value and depth < 2:
            items = list(value)
            at = rng.randrange(len(items))
            arm = t.args[0] if len(t.args) == 2 and t.args[1].name == "..." else t.args[min(at, len(t.args) - 1)]
            items[at] = edit(items[at], arm, depth + 1)
            return tuple(items)
        if t.name == "dict" and isinstance(value, dict) and depth < 2:
            out = dict(value)
            named = [k for k in strs if k in out] if t.args[0].name == "str" else []
            op = rng.randrange(4)
            if op == 0 and out:  # a field or an entry left out (item.get("reorder_level") is None)
                del out[rng.choice(named or list(out))]
            elif op == 1 and t.args[0].name == "str" and strs:  # an entry at a key the program reads
                out[rng.choice(strs)] = _draw(t.args[1], rng, 0, 4, False)
            elif out:  # a value edited with the literals
                key = rng.choice(named or list(out))
                out[key] = edit(out[key], t.args[1], depth + 1)
            return out
        return value

    for _ in range(k * 6):
        if len(out) >= k or not bases:
            break
        args = list(rng.choice(bases))
        for i in rng.sample(range(len(args)), min(len(args), rng.choice((1, 1, 2)))):
            args[i] = edit(args[i], types[i])
        try:
            key = format_arguments(tuple(args))
        except Exception:  # noqa: BLE001 - never for these types
            continue
        if key not in seen:
            seen.add(key)
            out.append(tuple(args))
    return out


# ------------------------------------------------------------------ domains

_LONG_WORDS = ("banana", "orange", "purple", "window", "silver", "garden", "pepper", "button", "planet", "rocket",
               "summer", "yellow", "kitten", "letter", "coffee", "apple", "lemon", "mango", "cherry", "pencil",
               "forest", "bottle", "castle", "dragon", "island")
_SEPS = (",", ";", "-", "|", ":")
_TOKEN_SEPS = (" ", ",", ";", "-", "|", ":", "/", ".", "=", "&")
#: the domains drawn as one element of a pool, and as an int in a range
_PICKS = {"char": _CHARS, "sepchar": _SEPS[:3] + (" ",), "amount": _FLOATS, "key": _WORDS}
_RANGES = {"count": (0, 8), "limit": (1, 6)}


def _fit(text: str, lo: int, hi: int, rng: random.Random, pool: str = _CHARS) -> str:
    """``text`` cut or padded (with characters of ``pool``) to a length in ``[lo, hi]``."""
    n = rng.randint(lo, hi)
    if len(text) > n:
        text = text[:n]
    while len(text) < lo:
        text += rng.choice(pool)
    return text


def _domain_draw(domain: str, rng: random.Random, lo: int, hi: int, hints: Hints | None) -> object:
    """One top-level value of a parameter of ``domain`` (a grain of :mod:`execverify_data.synth.vocab`),
    with the program's literals and styles (:class:`Hints`) on texts and their elements."""
    value = _domain_value(domain, rng, lo, hi, hints)
    if hints is not None and domain in ("text", "word", "line", "numstr", "blob"):
        if domain == "blob":
            return hints.decorate(value.decode("latin-1"), rng, bytes_=True).encode("latin-1")
        return hints.decorate(value, rng)
    return value


def _domain_value(domain: str, rng: random.Random, lo: int, hi: int, hints: Hints | None) -> object:
    if domain == "text":
        return _fit(" ".join([rng.choice(_WORDS) for _ in range(6)]), lo, hi, rng)
    if domain == "word":
        word = rng.choice(_LONG_WORDS)
        if rng.random() < 0.3:
            word = word[: rng.randint(2, len(word))] + rng.choice(_LONG_WORDS)
        word = _fit(word, lo, hi, rng)
        return _STYLES[rng.choice(("upper", "title", "capitalized"))](word, rng) if rng.random() < 0.2 else word
    if domain == "line":
        sep = rng.choice([p for p in (hints.strs if hints else ()) if p in _SEPS] or [","])
        fields = []
        while len(sep.join(fields)) < hi:
            fields.append(rng.choice(_WORDS) if rng.random() < 0.6 else str(rng.randint(0, 99)))
        return _fit(sep.join(fields), lo, hi, rng, pool="abc")
    if domain == "tokens":  # the program's own words joined by the separator it splits on ("three one five", "3/4")
        strs = hints.strs if hints else ()
        sep = rng.choice(list(hints.seps if hints and hints.seps else ()) or [p for p in strs if p in _TOKEN_SEPS] or [" "])
        words = [x for x in strs if x and x not in _TOKEN_SEPS and len(x) <= 12 and not x.isspace()]
        n = rng.choice((1, 2, 2, 3, rng.randint(1, max(2, hi // 2))))
        return sep.join(rng.choice(words) if words and rng.random() < 0.8 else str(rng.randint(0, 20)) for _ in range(n))
    if domain == "literal":  # one of the program's own strings (a key of its lookup table), now and then a word
        words = [x for x in (hints.strs if hints else ()) if x.strip()]
        return rng.choice(words) if words and rng.random() < 0.85 else rng.choice(_WORDS)
    if domain == "digits" or (domain == "numstr" and rng.random() < 0.5):
        return "".join(rng.choice("0123456789") for _ in range(rng.randint(lo, hi)))
    if domain == "numstr":
        return _fit(rng.choice(_LONG_WORDS) + str(rng.randint(0, 99)), lo, hi, rng)
    if domain in _PICKS:
        return rng.choice(_PICKS[domain])
    if domain in _RANGES:
        return rng.randint(*_RANGES[domain])
    if domain == "number":
        return rng.choice((rng.randint(0, 99), rng.randint(100, 99999), rng.randint(1000, 999999)))
    if domain == "fragment":
        strs = [x for x in (hints.strs if hints else ()) if 0 < len(x) <= 3]
        if strs and rng.random() < 0.4:
            return rng.choice(strs)
        return rng.choice(_WORDS + _LONG_WORDS)[: rng.randint(1, 2)]
    if domain == "flag":
        return rng.random() < 0.5
    if domain == "amounts":
        return [rng.choice(_FLOATS) for _ in range(rng.randint(lo, hi))]
    if domain == "blob":
        return _domain_value("text", rng, lo, hi, hints).encode("ascii")
    if domain == "numstrs":
        return [str(rng.randint(0, 99)) if rng.random() < 0.6 else rng.choice(_WORDS) + (str(rng.randint(0, 9)) if rng.random() < 0.3 else "")
                for _ in range(rng.randint(lo, hi))]
    if domain == "words":
        if hints is not None:
            return [hints.draw("str", rng, 1, 5, False) for _ in range(rng.randint(lo, hi))]
        return [rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))]
    if domain == "sentence":  # whole words, as a reader writes a text ("Take the red lamp."), the program's own among them
        own = [x for x in (hints.strs if hints else ()) if x.strip() and all(c.isalnum() or c in " '-" for c in x)]
        n = 0 if rng.random() < 0.06 else rng.randint(1, 2) if rng.random() < 0.2 else rng.randint(3, 7)
        words = [rng.choice(own) if own and rng.random() < 0.35 else str(rng.randint(0, 99)) if rng.random() < 0.05
                 else rng.choice(_LONG_WORDS if rng.random() < 0.5 else _WORDS) for _ in range(n)]
        text = " ".join(words)
        return text[:1].upper() + text[1:] + rng.choice(".!?") if text and rng.random() < 0.3 else text
    if domain == "datefmt":  # a date or time written in a format the program reads it in
        formats = (hints.dates if hints is not None else ()) or ("%Y-%m-%d",)
        return _stdlib_value("datetime", rng).strftime(rng.choice(formats))
    if domain == "example":  # a text the docstring shows ("'B12-3-07' -> {...}"); a near miss now and then
        if hints is None or not hints.examples:
            return _text(rng, lo, hi)
        found, roll = rng.choice(hints.examples), rng.random()
        if _TEMPLATE.search(found) and roll < 0.8:  # a format named, not shown: 'YYYY-MM-DD', 'HH:MM'
            return _TEMPLATE.sub(lambda m: _TEMPLATE_FIELDS[m.group()](rng), found)
        if roll < 0.4:
            return found
        if roll < 0.8:  # the same shape with other numbers, and another of the program's words ('5+3' -> '12+0', 'rapid')
            words = [w for w in (*hints.keys, *hints.strs) if w.isalpha()]
            if found in words and rng.random() < 0.5:
                return rng.choice(words)
            return re.sub(r"\d+", lambda m: str(rng.randint(0, 10 ** len(m.group()) - 1)).zfill(len(m.group())), found)
        return _mutate(found, _parse("str"), rng, True)
    if domain == "doc":  # a text of a few lines, each a sentence of several words (a line may be blank)
        return "\n".join(_domain_value("sentence", rng, lo, hi, hints) for _ in range(rng.randint(1, 4)))
    if domain == "grid":  # rows of numbers of different lengths (a table of readings, a jagged matrix); a row may be empty
        return [[rng.randint(-5, 20) for _ in range(rng.choice((0, 2, 3, 3, 4, 5)))] for _ in range(rng.randint(1, 4))]
    if domain == "patterns":  # lines the program parses one by one with its regular expression, a blank one now and then
        return [_domain_value("pattern", rng, lo, hi, hints) if rng.random() < 0.9 else "" for _ in range(rng.randint(1, 5))]
    if domain == "lines":  # a text whose lines the program matches one by one: some match, some are prose
        return "\n".join(_domain_value("pattern", rng, lo, hi, hints) if rng.random() < 0.6 else
                         _domain_value("sentence", rng, lo, hi, hints) for _ in range(rng.randint(1, 5)))
    if domain == "pattern":  # a text the program's regular expression matches; a near miss now and then
        from execverify_data import patterns

        found = patterns.draw(rng.choice(hints.patterns), rng) if hints is not None and hints.patterns else None
        if found is None:
            return _text(rng, lo, hi)
        return _mutate(found, _parse("str"), rng, True) if rng.random() < 0.25 else found
    if domain == "numfields":  # numbers joined by a separator the program splits at, as many as it unpacks ("12:05")
        splits = list(hints.splits if hints is not None else ()) or [(sep, 0) for sep in (hints.seps if hints else ())] \
            or [(":", 0)]
        sep, n = rng.choice(splits)
        return sep.join(f"{rng.randint(0, 59):02d}" if rng.random() < 0.4 else str(rng.randint(0, 30))
                        for _ in range(n or rng.randint(2, 4)))
    raise KeyError(domain)


#: The fields of a format a docstring names (``'YYYY-MM-DD'``, ``'HH:MM:SS'``) and a value of each.
_TEMPLATE_FIELDS = {"YYYY": lambda rng: str(rng.randint(1990, 2030)), "YY": lambda rng: f"{rng.randint(0, 99):02d}",
                    "MM": lambda rng: f"{rng.randint(1, 12):02d}", "DD": lambda rng: f"{rng.randint(1, 28):02d}",
                    "HH": lambda rng: f"{rng.randint(0, 23):02d}", "hh": lambda rng: f"{rng.randint(0, 23):02d}",
                    "mm": lambda rng: f"{rng.randint(0, 59):02d}", "SS": lambda rng: f"{rng.randint(0, 59):02d}",
                    "ss": lambda rng: f"{rng.randint(0, 59):02d}"}
_TEMPLATE = re.compile(r"(?<![A-Za-z])(YYYY|YY|MM|DD|HH|hh|mm|SS|ss)(?![A-Za-z])")


def _cells(item: Type, rng: random.Random, hints: Hints | None) -> list:
    """A square grid (2x2 to 4x4) whose cells are few values: the strings the program compares its cells with
    (``board[r][c] == ""``) and its short strings (``"X"``, ``"O"``), or small numbers; a board, a matrix."""
    if item.name == "str":
        pool = list(dict.fromkeys([*(hints.cells if hints else ()), *(x for x in (hints.strs if hints else ()) if len(x) <= 2),
                                   ""]))
    elif item.name in ("int", "float"):
        pool = [0, 1, 2] if item.name == "int" else [0.0, 1.0, 2.5]
    else:
        pool = [_draw(item, rng, 0, 4, False, hints) for _ in range(3)]
    n = rng.choice((2, 3, 3, 3, 4))
    return [[rng.choice(pool) for _ in range(n)] for _ in range(n)]


#: The narrowings a domain text may add after its domain, ``"digits+min1"``, ``"+nonneg+sorted"`` (what
#: :mod:`execverify_data.narrowing` chooses from what raised): sizes of the top-level value (at least 1 or 3,
#: long, exactly n), numbers at any depth (non-negative, positive, non-zero), lists sorted, strings at any depth
#: drawn as keys of the program's dicts, digit strings or numbers joined by its separator, dicts given the
#: string keys the program subscripts with (``row["price"]``), a scalar drawn, most of the time, as one of the
#: values another parameter holds (``from0``: the title of one of the tasks it looks for), and a list or text as
#: long as another parameter most of the time (``len0``: answers and their key, checked for one length).
#: Narrowings apply to fresh draws; a mutation of a narrowed value may leave them (a near miss, which keeps the
#: program's checks going both ways).
NARROWINGS = ("min1", "min3", "long", "size2", "size3", "size4", "size5", "nonneg", "pos", "nonzero", "sorted", "keys",
              "digits", "numfields", "record", "from0", "from1", "from2", "from3", "from4", "len0", "len1", "len2", "len3",
              "len4", "le0", "le1", "le2", "le3", "le4")
_STRING_NARROWINGS = ("keys", "digits", "numfields")


def _sizes(rules: frozenset, lo: int, hi: int) -> tuple[int, int]:
    """The size bounds of a top-level value under ``rules``."""
    for rule in rules:
        if rule.startswith("size"):
            return int(rule[4:]), int(rule[4:])
    if "long" in rules:
        return max(hi, 8), max(hi, 8) * 3
    least = 3 if "min3" in rules else 1 if "min1" in rules else 0
    return max(lo, least), max(hi, least)


def _narrow(value, t: Type, rules: frozenset, rng: random.Random, hints: Hints | None, lo: int = 1, hi: int = 5):
    """``value`` (of type ``t``) under the narrowings ``rules`` (:data:`NARROWINGS`)."""
    name = t.name
    if name == "|":
        match = next((a for a in t.args if typelang.conforms(value, a)), None)
        return value if match is None else _narrow(value, match, rules, rng, hints, lo, hi)
    if name in ("int", "float") and not isinstance(value, bool):
        if "nonneg" in rules or "pos" in rules:
            value = abs(value)
        if value == 0 and ("pos" in rules or "nonzero" in rules):
            value = type(value)(rng.randint(1, 5))
        return value
    table = next((r[3:] for r in rules if r.startswith("in:")), None)
    if table is not None and hints is not None and name in ("str", "int"):  # plan not in PLANS: raise
        pool = [k for k in hints.tables.get(table, ()) if type(k).__name__ == name]
        if pool and rng.random() < 0.9:
            return rng.choice(pool)
    if name == "str":
        rule = next((r for r in _STRING_NARROWINGS if r in rules), None)
        if rule == "keys":
            pool = (hints.keys or hints.strs) if hints is not None else ()
            return rng.choice(pool) if pool else value
        return value if rule is None else _domain_value(rule, rng, max(lo, 1), hi, hints)
    if name in ("list", "tuple", "set", "frozenset"):
        homogeneous = name != "tuple" or (len(t.args) == 2 and t.args[1].name == "...")
        items = [_narrow(v, t.args[0] if homogeneous else t.args[j], rules, rng, hints) for j, v in enumerate(value)]
        if "sorted" in rules and name == "list":
            try:
                items.sort()
            except TypeError:
                pass
        if "record" in rules and hints is not None and hints.fields:
            items = _repeated_records(items, rng, hints.fields)
        return items if name == "list" else tuple(items) if name == "tuple" else type(value)(items)
    if name == "dict":
        out = {_narrow(k, t.args[0], rules, rng, hints): _narrow(v, t.args[1], rules, rng, hints) for k, v in value.items()}
        if "record" in rules and hints is not None and t.args[0].name == "str":
            for key in hints.fields:
                if key not in out:
                    typed = hints.field_types.get(key)
                    kind = _parse(typed) if typed else t.args[1]  # the value's type at that key, where the body tells
                    out[key] = _narrow(_draw(kind, rng, 0, 4, False, hints), kind, rules, rng, hints)
        return out
    return value


def _agree(args: tuple, types: list[Type], narrowed, rng: random.Random, hints: Hints | None) -> tuple:
    """``args`` with a second date days from the first half of the time, and, 9 times in 10 each, a parameter
    narrowed ``len<i>`` cut or repeated to the length of parameter ``i``, one narrowed ``le<i>`` swapped with
    parameter ``i`` where it is the greater, and one narrowed ``from<i>`` replaced by a value of its type found in
    parameter ``i``'s value (at any
    depth: items, a dict's keys and values; the values at the string keys the program reads, ``t["title"]``, where
    there are such)."""
    out = list(args)
    fields = set(hints.fields) if hints is not None else set()
    dated = [j for j, t in enumerate(types) if t.name in ("date", "datetime")]
    for j in dated[1:]:  # two dates of one call are most often days apart (borrowed and due, check-in and out)
        if type(out[j]) is type(out[dated[0]]) and rng.random() < 0.5:
            out[j] = out[dated[0]] + dt.timedelta(days=rng.randint(-7, 30))
    for j, rules in enumerate(narrowed):
        same = next((int(r[3:]) for r in rules if r.startswith("len")), None)
        if same is not None and same < len(args) and hasattr(args[same], "__len__") and out[j] and rng.random() < 0.9:
            n, value = len(args[same]), out[j]
            out[j] = type(value)((value * (n // len(value) + 1))[:n]) if isinstance(value, (list, tuple)) \
                else (value * (n // len(value) + 1))[:n] if isinstance(value, str) else value
        below = next((int(r[2:]) for r in rules if re.fullmatch(r"le\d", r)), None)
        if below is not None and below < len(args) and rng.random() < 0.9:
            try:
                if out[j] > out[below]:  # on > current_due: raise: the two swapped
                    out[j], out[below] = out[below], out[j]
            except TypeError:  # values of two types
                pass
        i = next((int(r[4:]) for r in rules if r.startswith("from")), None)
        if i is None or i >= len(args) or rng.random() >= 0.9:
            continue
        kind = {"str": str, "int": int, "float": float}.get(types[j].name)
        found = [(v, at) for v, at in _leaves(args[i], fields) if type(v) is kind]
        found = [f for f in found if f[1]] or found
        if found:
            out[j] = rng.choice(found)[0]
    return tuple(out)


def _leaves(value, fields: set, at: bool = False) -> list[tuple[object, bool]]:
    """The scalars in ``value``, each with whether it is the value at one of ``fields``."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in (*_leaves(k, fields), *_leaves(v, fields, k in fields))]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [leaf for v in value for leaf in _leaves(v, fields)]
    return [(value, at)]


def _repeated_records(items: list, rng: random.Random, fields: tuple) -> list:
    """Records where, now and then, one repeats an earlier one but for the value at one of the program's fields:
    code that groups, merges or counts records by a key (``item["sku"]``) meets the same key twice."""
    out = list(items)
    for k in range(1, len(out)):
        earlier = [r for r in out[:k] if isinstance(r, dict)]
        if isinstance(out[k], dict) and earlier and rng.random() < 0.3:
            base = dict(rng.choice(earlier))
            keys = [f for f in fields if f in base and f in out[k]]
            if keys:
                key = rng.choice(keys)
                base[key] = out[k][key]
            out[k] = base
    return out


def split_domain(text: str) -> tuple[str, frozenset]:
    """A parameter's domain text as ``(domain, narrowings)``: ``"digits+min1"`` is ``("digits", {"min1"})``.

    >>> split_domain("digits+min1"), split_domain("+nonneg")
    (('digits', frozenset({'min1'})), ('', frozenset({'nonneg'})))
    """
    base, *rules = (text or "").split("+")
    return base, frozenset(r for r in rules if r in NARROWINGS or re.fullmatch(r"in:[A-Za-z_]\w*", r))


#: the type each domain draws (a domain given for another type is ignored)
DOMAIN_TYPES = {"text": "str", "word": "str", "line": "str", "digits": "str", "numstr": "str", "count": "int",
                "limit": "int", "number": "int", "fragment": "str", "char": "str", "sepchar": "str", "flag": "bool",
                "amount": "float", "amounts": "list", "blob": "bytes", "numstrs": "list", "words": "list", "key": "str",
                "tokens": "str", "literal": "str", "sentence": "str", "pattern": "str", "numfields": "str", "cells": "list",
                "example": "str", "patterns": "list", "lines": "str", "datefmt": "str", "doc": "str", "grid": "list"}
#: the domains :func:`draw_inputs` knows (others, and "", draw by type)
DOMAINS = tuple(DOMAIN_TYPES)


# ------------------------------------------------------------------ several inputs


def _sized(t: Type) -> bool:
    """Whether the size bounds apply to a top-level value of type ``t`` (strings and homogeneous containers)."""
    if t.name in ("str", "bytes", "list", "set", "frozenset", "dict"):
        return True
    return t.name == "tuple" and len(t.args) == 2 and t.args[1].name == "..."


def draw_inputs(param_types, seed: int, k: int, *, min_size: int = 6, max_size: int = 10,
                mutation_rate: float = 0.4, hints: Hints | None = None, domains=None, seeds=()) -> list[tuple]:
    """``k`` distinct argument tuples for parameters of ``param_types``, from ``seed`` (and ``hints``) only.

    The first tuple is drawn fresh; each later one is, with probability
    ``mutation_rate``, a mutation of one argument of an earlier tuple (kept only if it
    stays within the size bounds), else a fresh draw.
    Fresh draws use the program's literals when ``hints`` (:class:`Hints`) are given, and a
    parameter's *domain* (``domains[i]``, one of :data:`DOMAINS`: a sentence, a word, a line of
    fields, a digit string, a count, a many-digit number, a short fragment...) when given; size
    bounds apply to texts and collections, not to the short role strings (a fragment, a letter, a
    separator). Fewer than ``k`` come back only when the domain is too small.

    ``seeds`` (argument tuples, e.g. the calls of a benchmark's tests) come first, and mutations
    may start from them as from any earlier tuple (evalplus's type-preserving mutation); the size
    bounds do not apply to a mutation of a seed, whose size is the seed's own business.

    >>> draw_inputs(("list[int]",), seed=0, k=3, seeds=[([1, 2],)])[0]
    ([1, 2],)
    """
    if not isinstance(k, int) or k < 1:
        raise InvalidArgument(f"k must be a positive int, got {k!r}")
    if hints is not None and not isinstance(hints, Hints):
        raise InvalidArgument(f"hints must be an inputs.Hints (e.g. Hints.of_source(code)), got {type(hints).__name__}")
    return list(iter_inputs(param_types, seed, k, min_size=min_size, max_size=max_size, mutation_rate=mutation_rate,
                            hints=hints, domains=domains, seeds=seeds))


def iter_inputs(param_types, seed: int, k: int, *, min_size: int = 6, max_size: int = 10,
                mutation_rate: float = 0.4, hints: Hints | None = None, domains=None, seeds=()) -> Iterator[tuple]:
    """The argument tuples of :func:`draw_inputs` (same arguments, not checked here), one at a time: each is
    drawn only when asked for, so a caller that stops early draws no more (the filters stop once the first
    inputs cover the program)."""
    types = [_parse(t) for t in param_types]
    texts = tuple(domains or ()) + ("",) * (len(types) - len(domains or ()))
    domains, narrowed = zip(*(split_domain(d) for d in texts)) if texts else ((), ())
    bounds = [_sizes(rules, min_size, max_size) for rules in narrowed]
    unsized = {i for i, d in enumerate(domains) if d in ("fragment", "char", "sepchar", "count", "limit", "number", "flag", "amount", "key",
                                                          "literal", "sentence", "pattern", "numfields", "cells",
                                                          "example", "patterns", "lines", "datefmt", "doc", "grid")}
    rng = random.Random(seed)

    def fresh(i: int, t: Type) -> object:
        lo, hi = bounds[i]
        if domains[i] == "cells" and t.name == "list" and t.args[0].name == "list":
            value = _cells(t.args[0].args[0], rng, hints)
        elif domains[i] in DOMAINS and domains[i] in DOMAIN_TYPES and DOMAIN_TYPES[domains[i]] == t.name:
            value = _domain_draw(domains[i], rng, lo, hi, hints)
        else:
            value = _draw(t, rng, lo, hi, True, hints)
        return _narrow(value, t, narrowed[i], rng, hints, lo, hi) if narrowed[i] else value
    out: list[tuple] = []
    seen: set[str] = set()
    from_seed: set[int] = set()
    for args in seeds:
        text = format_arguments(args)
        if text not in seen and len(out) < k:
            seen.add(text)
            from_seed.add(len(out))
            out.append(tuple(args))
            yield out[-1]
    for _ in range(k * 6):
        if len(out) >= k:
            break
        if out and rng.random() < mutation_rate:
            pick = rng.randrange(len(out))
            seeded = pick in from_seed
            base = list(out[pick])
            i = rng.randrange(len(base)) if base else 0
            if base:
                base[i] = _mutate(base[i], types[i], rng, True)
                if not seeded and i not in unsized and _sized(types[i]) and not bounds[i][0] <= len(base[i]) <= bounds[i][1]:
                    continue  # an insertion or deletion left the size bounds (a mutated seed keeps the seed's size)
                if domains[i] in ("count", "limit", "number") and base[i] < 0:
                    continue  # a count stays a count
            args = tuple(base)
        else:
            seeded = False
            args = _agree(tuple(fresh(i, t) for i, t in enumerate(types)), types, narrowed, rng, hints)
        try:
            text = format_arguments(args)
        except Exception:  # noqa: BLE001 - a value without a literal (never for these types)
            continue
        if text not in seen:
            seen.add(text)
            if seeded:
                from_seed.add(len(out))
            out.append(args)
            yield args
