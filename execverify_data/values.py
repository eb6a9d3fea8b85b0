"""Canonical values: one exact text for every Python value we ask about, one
restricted parser for answers, and one comparison rule used everywhere.

:func:`encode` turns a live object into a :class:`CanonicalValue` (canonical
Python-literal ``text``, ``type`` name, and whether it is ``askable``); :func:`parse`
reads an answer text back into a value, accepting only literals and a short list of
constructors, never calling ``eval`` or ``exec``; :func:`same` (on values:
:func:`equal`) decides whether an answer matches an expected value. The dataset, the
TRL rewards and the lm-eval scorers all go through these, so the same answer can never
be scored differently in two places. ``docs/values.md`` gives the canonical text of
each type, when a value is not askable, and the comparison rule, case by case.

>>> v = encode({3, 1, 2})
>>> v.text, v.type, v.askable
('{1, 2, 3}', 'set', True)
>>> same(v, "{2, 3, 1}")
True
>>> same(encode(1), "True"), same(encode(float("nan")), "nan")
(False, True)
>>> encode(iter([1])).askable
False
"""

from __future__ import annotations

import ast
import io
import math
import re
import tokenize
import warnings
from collections import Counter, OrderedDict, defaultdict, deque
from datetime import date, datetime, time, timedelta
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any, NamedTuple

from execverify_data.astwalk import parse_ast
from execverify_data.errors import AnswerError, InvalidArgument, ProgramError

__all__ = [
    "CanonicalValue", "FLOAT_ABS_TOL", "FLOAT_REL_TOL", "MAX_ANSWER_CHARS", "MAX_DEPTH", "MAX_ITEMS", "MAX_TEXT_CHARS",
    "encode", "equal", "format_arguments", "format_call", "literal_calls", "parse", "parse_arguments", "parse_call",
    "read_canonical", "same", "self_equal",
]

#: Longest canonical text of an askable value.
MAX_TEXT_CHARS = 10_000
#: Longest answer text :func:`parse` reads.
MAX_ANSWER_CHARS = 100_000
#: Deepest nesting of containers, in values and in answers.
MAX_DEPTH = 100
#: Most elements :func:`parse` builds for one answer.
MAX_ITEMS = 100_000
#: Relative tolerance for float comparison.
FLOAT_REL_TOL = 1e-9
#: Absolute tolerance for float comparison (matters only near zero).
FLOAT_ABS_TOL = 1e-12

_DIGITS_SAFE = 4000  # below CPython's default int<->str limit of 4300 digits
_LOG10_2 = math.log10(2)
_INT_LIMIT = 10**_DIGITS_SAFE
_NoneType = type(None)

_DEFAULT_FACTORIES: dict[str, type] = {f.__name__: f for f in (int, float, str, bool, list, tuple, dict, set, frozenset)}


class CanonicalValue(NamedTuple):
    """The canonical description of one Python value.

    Args:
        text (`str`): canonical Python-literal text (a placeholder when not askable).
        type (`str`): ``type(obj).__name__`` of the value, e.g. ``'set'``, ``'NoneType'``.
        askable (`bool`, optional, defaults to `True`): whether a question may be asked
            about this value (a faithful literal exists).
        reason (`str`, optional): why the value is not askable.

    An immutable named tuple (cheap to build: the tracer makes one per local per line).

    >>> encode(None)
    CanonicalValue(text='None', type='NoneType', askable=True, reason=None)
    """

    text: str
    type: str
    askable: bool = True
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"text", "type", "askable"}``, the form used in JSON output and datasets."""
        return {"text": self.text, "type": self.type, "askable": self.askable}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CanonicalValue:
        """Inverse of :meth:`to_json`."""
        return cls(text=data["text"], type=data["type"], askable=bool(data.get("askable", True)))


# --------------------------------------------------------------------------- encode

_new_tuple = tuple.__new__  # builds a CanonicalValue without the NamedTuple's Python-level __new__


class _NotAskable(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _int_text(n: int) -> str:
    """Decimal text of ``n`` without touching ``sys.set_int_max_str_digits``."""
    if n.bit_length() * _LOG10_2 < _DIGITS_SAFE:
        return str(n)
    if n < 0:
        return "-" + _int_text(-n)
    digits = int(n.bit_length() * _LOG10_2) + 1
    half = digits // 2
    high, low = divmod(n, 10**half)
    return _int_text(high) + _int_text(low).rjust(half, "0") if high else _int_text(low)


def _decimal_to_int(digits: str) -> int:
    """Inverse of :func:`_int_text` for a run of decimal digits (no sign)."""
    if len(digits) < _DIGITS_SAFE:
        return int(digits)
    half = len(digits) // 2
    return _decimal_to_int(digits[:-half]) * 10**half + _decimal_to_int(digits[-half:])


def _float_text(x: float) -> str:
    if x != x:
        return "float('nan')"
    if x in (math.inf, -math.inf):
        return "float('inf')" if x > 0 else "float('-inf')"
    return repr(x)


def _complex_text(z: complex) -> str:
    """``repr`` when it reads back to the same bits, else ``complex(<real>, <imag>)``.

    ``repr`` does not round-trip non-finite parts, a negative zero part, or a
    negative imaginary part beside a zero real part (``-2j`` reads as ``-(2j)``,
    whose real part is ``-0.0``).
    """
    real, imag = z.real, z.imag
    if (math.isfinite(real) and math.isfinite(imag) and math.copysign(1.0, real) > 0
            and (imag != 0 or math.copysign(1.0, imag) > 0) and not (real == 0 and imag < 0)):
        return repr(z)
    return f"complex({_float_text(real)}, {_float_text(imag)})"


def _order_key(value: Any) -> tuple:
    """A total order over hashable values that does not depend on hash randomisation."""
    t = type(value)
    if t is bool or t is int or t is float:
        return (2,) if value != value else (1, value, t.__name__)
    if value is None:
        return (0,)
    if t is str:
        return (3, value)
    if t is bytes:
        return (4, value)
    if t is tuple:
        return (5, tuple(_order_key(v) for v in value))
    if t is frozenset:
        return (6, tuple(sorted(_order_key(v) for v in value)))
    if t is complex:
        return (7, _order_key(value.real), _order_key(value.imag))
    return (9, t.__name__, encode(value).text)


def _is_plain(x: Any) -> bool:
    """True for scalars whose ``repr`` is already canonical."""
    t = type(x)
    if t is str or t is bool or x is None or t is bytes:
        return True
    if t is int:
        return -_INT_LIMIT < x < _INT_LIMIT
    if t is float:
        return math.isfinite(x)
    return False


def _naive_text(value: date | datetime | time) -> str:
    """``repr`` of a date, or of a datetime or time without a time zone (``datetime.date(2024, 1, 5)``)."""
    if getattr(value, "tzinfo", None) is not None:
        raise _NotAskable(f"no faithful literal for an aware {type(value).__name__} (its time zone is an object)")
    return repr(value)


def _decimal_text(value: Decimal) -> str:
    """``repr`` of a Decimal (``Decimal('4.50')``: the digits and exponent it holds), except a signalling NaN,
    which ``==`` cannot compare."""
    if value.is_snan():
        raise _NotAskable("no faithful literal for a signalling NaN Decimal (== raises on it)")
    return repr(value)


_SCALAR_TEXT = {float: _float_text, complex: _complex_text, range: repr, date: _naive_text, datetime: _naive_text,
                time: _naive_text, timedelta: repr, Decimal: _decimal_text}
_ALWAYS_PLAIN = frozenset({str, bool, _NoneType, bytes})
_REPR_EXACT = _ALWAYS_PLAIN | {int}  # element types whose repr in a list, tuple or dict is canonical
_INTEGRAL = frozenset({int, bool})
_FLOAT = frozenset({float})


def _all_plain(items: Any) -> bool:
    """``all(map(_is_plain, items))`` (``items``: a list, tuple, dict or dict view), with
    the common cases (strings, small ints, finite floats) checked in C loops."""
    kinds = set(map(type, items))
    if kinds <= _ALWAYS_PLAIN:
        return True
    if kinds <= _INTEGRAL:
        return -_INT_LIMIT < min(items) and max(items) < _INT_LIMIT
    if kinds <= _FLOAT:
        return all(map(math.isfinite, items))
    return all(map(_is_plain, items))


class _Encoder:
    __slots__ = ("budget", "path")

    def __init__(self, max_chars: int):
        self.budget = max_chars
        self.path: set[int] = set()

    def spend(self, text: str) -> str:
        self.budget -= len(text)
        if self.budget < 0:
            raise _NotAskable("too large")
        return text

    def text(self, obj: Any, depth: int) -> str:
        t = type(obj)
        if t is str or t is bool or obj is None or t is bytes:
            if t in (str, bytes) and len(obj) > self.budget:
                raise _NotAskable("too large")
            return self.spend(repr(obj))
        if t is int:
            if obj.bit_length() * _LOG10_2 > self.budget + 1:
                raise _NotAskable("too large")
            return self.spend(_int_text(obj))
        if t in _SCALAR_TEXT:
            return self.spend(_SCALAR_TEXT[t](obj))
        if t is bytearray:
            return self.spend(f"bytearray({self.text(bytes(obj), depth)})")
        if t in _CONTAINERS:
            if depth >= MAX_DEPTH:
                raise _NotAskable("nested too deeply")
            if len(obj) > self.budget:
                raise _NotAskable("too large")
            key = id(obj)
            if key in self.path:
                raise _NotAskable("recursive container")
            self.path.add(key)
            try:
                return _CONTAINERS[t](self, obj, depth + 1)
            finally:
                self.path.discard(key)
        raise _NotAskable(f"no faithful literal for type {t.__name__}")

    def items(self, values, depth: int) -> str:
        return ", ".join([self.text(v, depth) for v in values])

    def pairs(self, mapping, depth: int) -> str:
        return ", ".join([f"{self.text(k, depth)}: {self.text(v, depth)}" for k, v in mapping])

    def list_(self, obj: list, depth: int) -> str:
        return self.spend(repr(obj)) if _all_plain(obj) else f"[{self.items(obj, depth)}]"

    def tuple_(self, obj: tuple, depth: int) -> str:
        if _all_plain(obj):
            return self.spend(repr(obj))
        if len(obj) == 1:
            return f"({self.text(obj[0], depth)},)"
        return f"({self.items(obj, depth)})"

    def dict_(self, obj: dict, depth: int) -> str:
        if _all_plain(obj) and _all_plain(obj.values()):
            return self.spend(repr(obj))
        return "{" + self.pairs(obj.items(), depth) + "}"

    # An empty set, frozenset, Counter or OrderedDict is its constructor's call, e.g. "set()".
    def set_(self, obj: set, depth: int) -> str:
        return "{" + self.items(sorted(obj, key=_order_key), depth) + "}" if obj else self.spend("set()")

    def frozenset_(self, obj: frozenset, depth: int) -> str:
        return f"frozenset({{{self.items(sorted(obj, key=_order_key), depth)}}})" if obj else self.spend("frozenset()")

    def counter(self, obj: Counter, depth: int) -> str:
        return f"Counter({{{self.pairs(obj.most_common(), depth)}}})" if obj else self.spend("Counter()")

    def ordered_dict(self, obj: OrderedDict, depth: int) -> str:
        return f"OrderedDict({{{self.pairs(obj.items(), depth)}}})" if obj else self.spend("OrderedDict()")

    def default_dict(self, obj: defaultdict, depth: int) -> str:
        factory = obj.default_factory
        if factory is None:
            name = "None"
        elif _DEFAULT_FACTORIES.get(getattr(factory, "__name__", "")) is factory:
            name = factory.__name__
        else:
            raise _NotAskable("defaultdict whose factory has no literal name")
        return f"defaultdict({name}, {{{self.pairs(obj.items(), depth)}}})"

    def deque_(self, obj: deque, depth: int) -> str:
        body = f"deque([{self.items(obj, depth)}]"
        return body + (f", maxlen={obj.maxlen})" if obj.maxlen is not None else ")")


_CONTAINERS = {
    list: _Encoder.list_, tuple: _Encoder.tuple_, dict: _Encoder.dict_, set: _Encoder.set_,
    frozenset: _Encoder.frozenset_, Counter: _Encoder.counter, OrderedDict: _Encoder.ordered_dict,
    defaultdict: _Encoder.default_dict, deque: _Encoder.deque_,
}


def encode(obj: Any, *, max_chars: int = MAX_TEXT_CHARS) -> CanonicalValue:
    """Describe ``obj`` by its canonical literal text and its type name.

    Never raises for any object, and never calls the object's own ``__repr__``
    or ``__eq__`` (only those of the builtin types listed in ``docs/values.md``).

    Args:
        obj (`Any`): the value.
        max_chars (`int`, optional, defaults to `MAX_TEXT_CHARS`): longest text of an
            askable value; a longer one gives ``askable=False``.

    >>> encode(float("inf")).text, encode(-0.0).text
    ("float('inf')", '-0.0')
    >>> encode(frozenset({"b", "a"})).text
    "frozenset({'a', 'b'})"
    >>> encode((1,)).text
    '(1,)'
    >>> encode(x for x in ()).to_json()
    {'text': '<generator object>', 'type': 'generator', 'askable': False}
    >>> encode("x" * 20_000).reason
    'too large'
    """
    kind = type(obj)
    # Fast paths (the tracer encodes every changed local at every line): a scalar, or
    # a list, tuple or dict of scalars, whose repr is canonical and short enough.
    # Anything else, or a text over max_chars, takes the full path below.
    #
    # In a container, an int too large for _is_plain still has repr as its canonical
    # text (the full path writes the same digits, and the budget check cannot fail when
    # the whole repr fits in max_chars); only repr may raise for it (int_max_str_digits),
    # and then the full path decides, as before.
    if kind is int:
        plain = -_INT_LIMIT < obj < _INT_LIMIT
    elif kind is str or kind is bytes:
        plain = len(obj) <= max_chars
    elif kind is list or kind is tuple:
        plain = len(obj) <= max_chars and (set(map(type, obj)) <= _REPR_EXACT or _all_plain(obj))
    elif kind is bool or kind is _NoneType:
        plain = True
    elif kind is dict:
        plain = len(obj) <= max_chars and (set(map(type, obj)) <= _REPR_EXACT or _all_plain(obj)) and (
            set(map(type, obj.values())) <= _REPR_EXACT or _all_plain(obj.values()))
    elif kind is float:
        plain = math.isfinite(obj)
    else:
        plain = False
    type_name = kind.__name__
    if plain:
        try:
            text = repr(obj)
        except ValueError:  # an int beyond sys.get_int_max_str_digits() in a container
            pass
        else:
            if len(text) <= max_chars:
                return _new_tuple(CanonicalValue, (text, type_name, True, None))
    try:
        return _new_tuple(CanonicalValue, (_Encoder(max_chars).text(obj, 0), type_name, True, None))
    except _NotAskable as exc:
        placeholder = f"<{type_name} object>" if exc.reason.startswith("no faithful") else f"<{exc.reason} {type_name}>"
        return CanonicalValue(placeholder, type_name, askable=False, reason=exc.reason)
    except RecursionError:
        return CanonicalValue(f"<nested too deeply {type_name}>", type_name, askable=False, reason="nested too deeply")


# --------------------------------------------------------------------------- parse

_LONG_DIGITS = re.compile(r"\d{%d}" % _DIGITS_SAFE)
_BIG_PREFIX = "_execverify_big_"
_SPECIAL_FLOAT_NAMES = {"inf": math.inf, "nan": math.nan}


def _protect_big_ints(text: str) -> tuple[str, dict[str, int]]:
    """Replace decimal int literals too long for ``ast.parse`` by placeholder names."""
    big: dict[str, int] = {}
    offsets = [0]  # where each line starts in text
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    pieces, last = [], 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            digits = tok.string.replace("_", "")
            if tok.type == tokenize.NUMBER and len(digits) >= _DIGITS_SAFE and digits.isdigit():
                name = f"{_BIG_PREFIX}{len(big)}"
                big[name] = _decimal_to_int(digits)
                pieces += (text[last:offsets[tok.start[0] - 1] + tok.start[1]], name)
                last = offsets[tok.end[0] - 1] + tok.end[1]
    except (tokenize.TokenError, SyntaxError, IndentationError) as exc:
        raise AnswerError(f"not a Python literal: {exc}") from None
    pieces.append(text[last:])
    return "".join(pieces), big


class _Builder:
    """Builds a value from the AST of an answer, accepting only the whitelisted forms."""

    __slots__ = ("big", "max_depth", "items_left")

    def __init__(self, big: dict[str, int], max_depth: int, max_items: int):
        self.big, self.max_depth, self.items_left = big, max_depth, max_items

    def count(self, n: int) -> None:
        self.items_left -= n
        if self.items_left < 0:
            raise AnswerError("answer has too many elements; shorten it")

    def build(self, node: ast.AST, depth: int) -> Any:
        if depth > self.max_depth:
            raise AnswerError(f"answer is nested more than {self.max_depth} levels deep")
        method = getattr(self, "node_" + type(node).__name__, None)
        if method is None:
            raise AnswerError(f"{_describe(node)} is not allowed in an answer; write a Python literal")
        return method(node, depth)

    def node_Constant(self, node: ast.Constant, depth: int) -> Any:
        if node.value is Ellipsis:
            raise AnswerError("'...' is not a value; write the whole literal")
        self.count(1)
        return node.value

    def node_Name(self, node: ast.Name, depth: int) -> Any:
        if node.id in self.big:
            return self.big[node.id]
        if node.id in _SPECIAL_FLOAT_NAMES:
            return _SPECIAL_FLOAT_NAMES[node.id]
        raise AnswerError(f"name {node.id!r} is not a literal; write its value (quote strings)")

    def node_Attribute(self, node: ast.Attribute, depth: int) -> Any:
        if isinstance(node.value, ast.Name) and node.value.id == "math" and node.attr in _SPECIAL_FLOAT_NAMES:
            return _SPECIAL_FLOAT_NAMES[node.attr]
        raise AnswerError(f"attribute {ast.unparse(node)[:40]!r} is not allowed in an answer")

    def node_UnaryOp(self, node: ast.UnaryOp, depth: int) -> Any:
        if not isinstance(node.op, (ast.USub, ast.UAdd)):
            raise AnswerError(f"operator {type(node.op).__name__} is not allowed in an answer")
        value = self.build(node.operand, depth + 1)
        if type(value) not in (int, float, complex):
            raise AnswerError("a sign may only stand before a number")
        return -value if isinstance(node.op, ast.USub) else +value

    def node_BinOp(self, node: ast.BinOp, depth: int) -> Any:
        # Only complex literals such as 1+2j or -1.5-0.5j.
        if isinstance(node.op, (ast.Add, ast.Sub)):
            left = self.build(node.left, depth + 1)
            right = self.build(node.right, depth + 1)
            if type(left) in (int, float) and type(right) is complex and right.real == 0 and _is_imaginary(node.right):
                return left + right if isinstance(node.op, ast.Add) else left - right
        raise AnswerError("arithmetic is not allowed in an answer (only complex literals such as 1+2j); write the value")

    def elements(self, nodes: list[ast.expr], depth: int) -> list[Any]:
        if any(isinstance(element, ast.Starred) for element in nodes):
            raise AnswerError("'*' unpacking is not allowed in an answer; write the elements")
        self.count(len(nodes))
        return [self.build(element, depth + 1) for element in nodes]

    def node_List(self, node: ast.List, depth: int) -> list:
        return self.elements(node.elts, depth)

    def node_Tuple(self, node: ast.Tuple, depth: int) -> tuple:
        return tuple(self.elements(node.elts, depth))

    def node_Set(self, node: ast.Set, depth: int) -> set:
        return _hashed(set, self.elements(node.elts, depth))

    def node_Dict(self, node: ast.Dict, depth: int) -> dict:
        if any(key is None for key in node.keys):
            raise AnswerError("'**' unpacking is not allowed in an answer; write the items")
        return _hashed(dict, zip(self.elements(node.keys, depth), self.elements(node.values, depth)))

    def node_Call(self, node: ast.Call, depth: int) -> Any:
        name = _callee_name(node.func)
        maker = _CONSTRUCTORS.get(name)
        if maker is None:
            allowed = ", ".join(sorted(_CONSTRUCTORS))
            raise AnswerError(f"call of {name or ast.unparse(node.func)[:40]!r} is not allowed in an answer; allowed: {allowed}")
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise AnswerError("unpacking is not allowed in an answer")
        if name == "defaultdict" and node.args:
            args = [_factory_name(node.args[0]), *(self.build(a, depth + 1) for a in node.args[1:])]
        else:
            args = [self.build(a, depth + 1) for a in node.args]
        kwargs = {k.arg: self.build(k.value, depth + 1) for k in node.keywords}
        try:
            return maker(*args, **kwargs)
        except AnswerError:
            raise
        except (TypeError, ValueError, OverflowError) as exc:
            raise AnswerError(f"invalid {name}(...) in answer: {exc}") from None


def _describe(node: ast.AST) -> str:
    try:
        return repr(ast.unparse(node)[:40])
    except Exception:  # pragma: no cover - unparse of odd nodes
        return type(node).__name__


def _is_imaginary(node: ast.AST) -> bool:
    while isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is complex


def _callee_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id == "collections":
            return func.attr
        if func.value.id in ("datetime", "decimal"):  # datetime.date(...), decimal.Decimal(...): the repr's spelling
            return f"{func.value.id}.{func.attr}"
    return None


def _factory_name(node: ast.AST) -> type | None:
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    if isinstance(node, ast.Name) and node.id in _DEFAULT_FACTORIES:
        return _DEFAULT_FACTORIES[node.id]
    raise AnswerError(f"defaultdict factory must be one of {', '.join(_DEFAULT_FACTORIES)} or None")


def _hashed(kind, items):
    try:
        return kind(items)
    except TypeError as exc:
        raise AnswerError(f"unhashable element in a set or dict key: {exc}") from None


_ITERABLE_ARGS = (list, tuple, set, frozenset, str, bytes, range, dict)


def _iterable(name: str, value: Any) -> Any:
    if type(value) not in _ITERABLE_ARGS:
        raise AnswerError(f"{name}(...) takes a literal list, tuple, set, dict, str, bytes or range")
    if type(value) is range and len(value) > MAX_ITEMS:  # set(range(10**12)) is short text, not a short build
        raise AnswerError(f"{name}(range(...)) would build more than {MAX_ITEMS} elements; shorten it")
    return value


def _make_set(kind):
    def make(iterable: Any = ()) -> Any:
        return _hashed(kind, _iterable(kind.__name__, iterable))

    return make


def _make_float(arg: Any = 0.0) -> float:
    if type(arg) is str and len(arg) > 64:
        raise AnswerError("float('...') text is too long")
    if type(arg) not in (str, int, float):
        raise AnswerError("float(...) takes a number or a string such as 'nan' or 'inf'")
    return float(arg)


def _make_complex(real: Any = 0.0, imag: Any = 0.0) -> complex:
    if type(real) not in (int, float) or type(imag) not in (int, float):
        raise AnswerError("complex(...) takes two real numbers")
    return complex(real, imag)


def _make_counter(arg: Any = None) -> Counter:
    return Counter() if arg is None else Counter(_iterable("Counter", arg))


def _make_ordered_dict(arg: Any = None) -> OrderedDict:
    if arg is None:
        return OrderedDict()
    if type(arg) is dict:
        return OrderedDict(arg)
    if type(arg) in (list, tuple) and all(type(p) is tuple and len(p) == 2 for p in arg):
        return _hashed(OrderedDict, arg)
    raise AnswerError("OrderedDict(...) takes a dict or a list of (key, value) pairs")


def _make_defaultdict(factory: Any = None, arg: Any = None) -> defaultdict:
    if arg is not None and type(arg) is not dict:
        raise AnswerError("defaultdict(factory, {...}) takes a dict literal as second argument")
    return defaultdict(factory, arg or {})


def _make_deque(iterable: Any = (), maxlen: Any = None) -> deque:
    if maxlen is not None and type(maxlen) is not int:
        raise AnswerError("deque maxlen must be an int")
    return deque(_iterable("deque", iterable), maxlen)


def _make_range(*args: Any) -> range:
    if not 1 <= len(args) <= 3 or any(type(a) is not int for a in args):
        raise AnswerError("range(...) takes one to three ints")
    return range(*args)


def _make_bytes(kind):
    def make(arg: Any = b"") -> Any:
        if type(arg) is bytes or (type(arg) in (list, tuple) and all(type(b) is int for b in arg)):
            return kind(arg)
        raise AnswerError(f"{kind.__name__}(...) takes a bytes literal or a list of ints in 0..255")

    return make


def _make_clock(kind):
    """``datetime.date(2024, 1, 5)``, ``datetime.datetime(2024, 1, 5, 9, 30)``, ``datetime.time(9, 30)``: ints only
    (``fold=1`` as ``repr`` writes it), no time zone."""
    def make(*args: Any, **kwargs: Any) -> Any:
        if set(kwargs) - ({"fold"} if kind is not date else set()) or any(type(a) is not int for a in (*args, *kwargs.values())):
            raise AnswerError(f"{kind.__name__}(...) takes its fields as ints (and fold=), without a time zone")
        try:
            return kind(*args)
        except (TypeError, ValueError, OverflowError) as exc:
            raise AnswerError(f"not a {kind.__name__}: {exc}") from None

    return make


_TIMEDELTA_FIELDS = ("days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks")


def _make_timedelta(*args: Any, **kwargs: Any) -> timedelta:
    if len(args) > 3 or set(kwargs) - set(_TIMEDELTA_FIELDS) or any(
            type(a) not in (int, float) for a in (*args, *kwargs.values())):
        raise AnswerError(f"timedelta(...) takes numbers, by position or as {', '.join(_TIMEDELTA_FIELDS)}")
    try:
        return timedelta(*args, **kwargs)
    except (TypeError, ValueError, OverflowError) as exc:
        raise AnswerError(f"not a timedelta: {exc}") from None


def _make_decimal(arg: Any = "0") -> Decimal:
    if type(arg) not in (str, int) or (type(arg) is str and len(arg) > 4000):
        raise AnswerError("Decimal(...) takes a string of digits such as '4.50', or an int")
    try:
        return Decimal(arg)
    except (InvalidOperation, ValueError):
        raise AnswerError(f"not a Decimal: {arg!r} is not a number") from None


_CONSTRUCTORS = {
    "set": _make_set(set), "frozenset": _make_set(frozenset), "float": _make_float, "complex": _make_complex,
    "Counter": _make_counter, "OrderedDict": _make_ordered_dict, "defaultdict": _make_defaultdict, "deque": _make_deque,
    "range": _make_range, "bytes": _make_bytes(bytes), "bytearray": _make_bytes(bytearray),
    # the datetime and decimal values, as repr spells them and as ``from datetime import date`` code writes them
    **{f"datetime.{kind.__name__}": _make_clock(kind) for kind in (date, datetime, time)},
    "datetime.timedelta": _make_timedelta, "date": _make_clock(date), "timedelta": _make_timedelta,
    "Decimal": _make_decimal, "decimal.Decimal": _make_decimal,
}


def _parse_tree(text: Any, max_chars: int) -> tuple[ast.expr, dict[str, int]]:
    if not isinstance(text, str):
        raise AnswerError(f"an answer must be a str, got {type(text).__name__}")
    if len(text) > max_chars:
        raise AnswerError(f"answer is {len(text)} characters long; the limit is {max_chars}")
    source = text.strip()
    if not source:
        raise AnswerError("the answer is empty")
    big: dict[str, int] = {}
    if _LONG_DIGITS.search(source):
        source, big = _protect_big_ints(source)
    try:
        with warnings.catch_warnings():  # invalid escapes or "1if" must not print warnings
            warnings.simplefilter("ignore")
            tree = parse_ast(source, mode="eval")
    except SyntaxError as exc:
        raise AnswerError(f"not a Python literal ({exc.msg})") from None
    except (MemoryError, RecursionError):
        raise AnswerError("answer is nested too deeply to read") from None
    except ValueError as exc:  # e.g. null bytes
        raise AnswerError(f"not a Python literal ({exc})") from None
    return tree.body, big


def parse(text: str, *, max_chars: int = MAX_ANSWER_CHARS, max_depth: int = MAX_DEPTH, max_items: int = MAX_ITEMS) -> Any:
    """Read an answer text as a Python value, accepting only literals.

    Accepted: the literals, ``inf``/``nan`` and the calls of a short list of constructors with literal
    arguments (``docs/values.md`` lists them). Nothing is evaluated.

    Args:
        text (`str`): the answer.
        max_chars (`int`, optional, defaults to `MAX_ANSWER_CHARS`): longest text read.
        max_depth (`int`, optional, defaults to `MAX_DEPTH`): deepest nesting.
        max_items (`int`, optional, defaults to `MAX_ITEMS`): most elements built.

    Raises:
        AnswerError: the text is not an accepted literal; the message says why.

    >>> parse("[1, (2, 'a'), {3}]")
    [1, (2, 'a'), {3}]
    >>> parse("defaultdict(list, {'a': [1]})")
    defaultdict(<class 'list'>, {'a': [1]})
    >>> parse("__import__('os')")
    Traceback (most recent call last):
    ...
    execverify_data.errors.AnswerError: call of '__import__' is not allowed in an answer; allowed: Counter, Decimal, OrderedDict, bytearray, bytes, complex, date, datetime.date, datetime.datetime, datetime.time, datetime.timedelta, decimal.Decimal, defaultdict, deque, float, frozenset, range, set, timedelta
    """
    node, big = _parse_tree(text, max_chars)
    return _Builder(big, max_depth, max_items).build(node, 0)


_FLOAT_TEXT = re.compile(r"-?(?:\d+\.\d+(?:e[+-]\d+)?|\d+e[+-]\d+)")
_INTS_TEXT = re.compile(r"-?\d{1,100}(?:, -?\d{1,100})*")


def read_canonical(text: str, type_name: str, *, max_chars: int = MAX_ANSWER_CHARS, max_items: int = MAX_ITEMS) -> Any:
    """The value of a canonical ``text`` (as :func:`encode` writes a ``type_name``), read with
    :func:`parse`, with exact shortcuts for the commonest shapes (ints, floats, plain strings,
    lists and tuples of ints), which give what ``parse`` gives (``tests/test_sandbox.py`` checks
    that they do).

    >>> read_canonical("[1, -2]", "list"), read_canonical("{'a': 1.5}", "dict")
    ([1, -2], {'a': 1.5})
    """
    if type_name == "int" and text.isascii() and (text.isdigit() or (text[:1] == "-" and text[1:].isdigit())) \
            and len(text) < 4000:
        return int(text)
    if type_name == "bool" and text in ("True", "False"):
        return text == "True"
    if type_name == "NoneType" and text == "None":
        return None
    if type_name == "float" and _FLOAT_TEXT.fullmatch(text):
        return float(text)
    if type_name == "str" and len(text) >= 2 and text[0] == text[-1] == "'" and text.isprintable() \
            and "\\" not in text and "'" not in text[1:-1]:
        return text[1:-1]
    if type_name in ("list", "tuple") and len(text) < 1 << 16:
        inner = text[1:-1]
        if type_name == "tuple" and inner.endswith(","):
            inner = inner[:-1]
        if (text[:1], text[-1:]) == (("[", "]") if type_name == "list" else ("(", ")")) \
                and (inner == "" or _INTS_TEXT.fullmatch(inner)) and (type_name == "list" or inner or text == "()"):
            values = [int(item) for item in inner.split(", ")] if inner else []
            return values if type_name == "list" else tuple(values)
    return parse(text, max_chars=max_chars, max_items=max_items)


def parse_call(text: str, *, max_chars: int = MAX_ANSWER_CHARS) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """Read a literal call such as ``f([1, 2], 'a', k=3)``.

    Returns ``(function name, positional args, keyword args)``; every argument
    must be accepted by :func:`parse`. Each call returns fresh objects.

    The arguments are the objects Python itself builds when it compiles and runs
    the call's text: the parser is the gate (only what it accepts is built), then
    the text is compiled and its code run in a namespace that holds nothing but the
    accepted constructors. A set display is compiled to a set updated from a
    frozenset constant, so its hash table, and with it the iteration order of sets
    whose element hashes collide (``hash(-1) == hash(-2)``), is that of the row's
    text run as ordinary source, which a set built element by element does not
    always have. The compiled code is cached per text.

    >>> parse_call("f([1, 2], 'a', k=3)")
    ('f', ([1, 2], 'a'), {'k': 3})
    >>> list(parse_call("f({-2, -1, 0, 3, 4, 6, 7, 9, 12})")[1][0]) == list({-2, -1, 0, 3, 4, 6, 7, 9, 12})
    True

    Raises:
        AnswerError: the text is not a call of a plain name with literal arguments.
    """
    if not isinstance(text, str):
        raise AnswerError(f"a call must be a str, got {type(text).__name__}")
    compiled = _COMPILED_CALLS.get(text)
    if compiled is None:
        compiled = _compile_call(text, max_chars)
        if len(_COMPILED_CALLS) >= _COMPILED_CALLS_KEPT:
            try:
                del _COMPILED_CALLS[next(iter(_COMPILED_CALLS))]  # the oldest
            except (KeyError, StopIteration, RuntimeError):  # another thread got there first
                pass
        _COMPILED_CALLS[text] = compiled
    name, code, namespace = compiled
    try:
        args, kwargs = eval(code, dict(namespace))  # trusted: literal text the parser accepted, run with only its constructors
    except (MemoryError, RecursionError):
        raise AnswerError("the call is nested too deeply or too large to build") from None
    except Exception as exc:  # noqa: BLE001 - defensive: the gate accepted what a constructor refuses
        raise AnswerError(f"invalid literal call: {type(exc).__name__}: {exc}") from None
    return name, args, kwargs


def _pack(*args: Any, **kwargs: Any) -> tuple[tuple, dict]:
    return args, kwargs


_PACK = "__execverify_pack__"
#: What a compiled literal call may name: the constructors and factories :func:`parse` accepts.
_CALL_NAMESPACE: dict[str, Any] = {
    "__builtins__": {}, _PACK: _pack, **_DEFAULT_FACTORIES,
    **{kind.__name__: kind for kind in (complex, range, bytes, bytearray, Counter, OrderedDict, defaultdict, deque)},
    **_SPECIAL_FLOAT_NAMES, "math": math, "collections": __import__("collections"),
    "datetime": __import__("datetime"), "decimal": __import__("decimal"), "date": date, "timedelta": timedelta,
    "Decimal": Decimal,
}
_COMPILED_CALLS: dict[str, tuple[str, Any, dict[str, Any]]] = {}
_COMPILED_CALLS_KEPT = 256


def _compile_call(text: str, max_chars: int) -> tuple[str, Any, dict[str, Any]]:
    """Check ``text`` with the parser, then compile it with the callee replaced by a packer."""
    node, big = _parse_tree(text, max_chars)
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise AnswerError("expected a call of a function by name, such as f(1, 'a')")
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise AnswerError("unpacking is not allowed in a literal call; write the arguments")
    builder = _Builder(big, MAX_DEPTH, MAX_ITEMS)
    for a in [*node.args, *(k.value for k in node.keywords)]:  # the gate: raises AnswerError as parse() would
        builder.build(a, 1)
    name = node.func.id
    node.func = ast.copy_location(ast.Name(id=_PACK, ctx=ast.Load()), node.func)  # the rest keeps its parsed locations
    try:
        code = compile(ast.Expression(body=node), "<execverify-literal-call>", "eval", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise AnswerError(f"the call does not compile: {exc}") from None
    return name, code, {**_CALL_NAMESPACE, **big}


def parse_arguments(text: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Read an argument list in CRUXEval's ``input`` format (what goes between the parentheses).

    >>> parse_arguments("[1, 2], 'a'")
    (([1, 2], 'a'), {})
    >>> parse_arguments("")
    ((), {})
    """
    if not isinstance(text, str):
        raise AnswerError(f"an argument list must be a str, got {type(text).__name__}")
    _, args, kwargs = parse_call(f"f({text}\n)")
    return args, kwargs


def format_arguments(args: tuple | list, kwargs: dict[str, Any] | None = None) -> str:
    """Canonical argument-list text (CRUXEval's ``input`` format); inverse of :func:`parse_arguments`.

    >>> format_arguments(([3, 1], {"b", "a"}))
    "[3, 1], {'a', 'b'}"

    Raises:
        InvalidArgument: an argument has no faithful literal.
    """
    parts = [_literal_text(value) for value in args]
    parts += [f"{name}={_literal_text(value)}" for name, value in (kwargs or {}).items()]
    return ", ".join(parts)


def format_call(name: str, args: tuple | list, kwargs: dict[str, Any] | None = None) -> str:
    """Canonical literal call text.

    >>> format_call("f", (1, "a"))
    "f(1, 'a')"
    """
    if not name.isidentifier():
        raise InvalidArgument(f"function name {name!r} is not an identifier")
    return f"{name}({format_arguments(args, kwargs)})"


def literal_calls(source: str, name: str = "candidate", *, keywords: bool = True) -> list[str]:
    """The argument texts (:func:`format_arguments`) of the calls of ``name`` in ``source`` whose arguments
    are all literals, such as HumanEval's ``candidate(...)`` tests, read from its AST without running it,
    in source order, without repeats; without ``keywords``, calls with keyword arguments are left out too.

    >>> test = "def check(candidate):\\n    assert candidate([1,2], -3) == 0\\n    assert candidate(x) == 1\\n    assert candidate(1, k='a')\\n"
    >>> literal_calls(test), literal_calls(test, keywords=False)
    (['[1, 2], -3', "1, k='a'"], ['[1, 2], -3'])

    Raises:
        ProgramError: ``source`` does not parse.
    """
    try:
        tree = parse_ast(source)
    except SyntaxError as exc:
        raise ProgramError(f"the source does not parse: {exc.msg} (line {exc.lineno})") from None
    calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                    and n.func.id == name and (keywords or not n.keywords)), key=lambda n: (n.lineno, n.col_offset))
    texts: dict[str, None] = {}
    for call in calls:
        try:
            texts.setdefault(format_arguments(*parse_call(ast.unparse(call))[1:]))
        except (AnswerError, InvalidArgument):  # not a literal call (a variable, an expression)
            continue
    return list(texts)


def _literal_text(value: Any) -> str:
    canonical = encode(value)
    if not canonical.askable:
        raise InvalidArgument(f"argument of type {canonical.type} has no literal text ({canonical.reason})")
    return canonical.text


# --------------------------------------------------------------------------- compare


def _float_equal(a: float, b: float, exact: bool = False) -> bool:
    if exact:  # Python's ``==``: NaN equals nothing, 0.0 == -0.0
        return a == b
    if a != a or b != b:
        return a != a and b != b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=FLOAT_REL_TOL, abs_tol=FLOAT_ABS_TOL)


def _matching_keys(a, b, exact: bool = False) -> list[tuple[Any, Any]] | None:
    """Pair each element of ``a`` with the equal element of ``b`` (same type), or None."""
    if len(a) != len(b):
        return None
    index = {key: key for key in b}
    pairs = []
    for key in a:
        try:
            other = index.get(key, _MISSING)
        except TypeError:
            return None
        if other is _MISSING or not equal(key, other, exact_floats=exact):
            return None
        pairs.append((key, other))
    return pairs


_MISSING = object()


def equal(a: Any, b: Any, *, exact_floats: bool = False) -> bool:
    """The comparison rule of :func:`same`, on values (see ``docs/values.md``). With ``exact_floats``, floats
    (and complex parts) compare as Python's ``==`` does: no tolerance, NaN equal to nothing.

    >>> equal([1, 2.0], [1, 2.0000000001]), equal((1,), [1]), equal({1: "a"}, {True: "a"})
    (True, False, False)
    >>> equal([1, 2.0], [1, 2.0000000001], exact_floats=True), equal(float("nan"), float("nan"), exact_floats=True)
    (False, False)
    """
    t = type(a)
    if t is not type(b):
        return False
    if t is float:
        return _float_equal(a, b, exact_floats)
    if t is complex:
        return _float_equal(a.real, b.real, exact_floats) and _float_equal(a.imag, b.imag, exact_floats)
    if t in (list, tuple, deque):
        if len(a) != len(b) or (t is deque and a.maxlen != b.maxlen):
            return False
        return all(equal(x, y, exact_floats=exact_floats) for x, y in zip(a, b))
    if t in (set, frozenset):
        return _matching_keys(a, b, exact_floats) is not None
    if t in (dict, Counter, OrderedDict, defaultdict):
        if t is defaultdict and a.default_factory is not b.default_factory:
            return False
        if t is OrderedDict and not all(equal(x, y, exact_floats=exact_floats) for x, y in zip(a, b)):
            return False
        pairs = _matching_keys(a, b, exact_floats)
        return pairs is not None and all(equal(a[ka], b[kb], exact_floats=exact_floats) for ka, kb in pairs)
    try:
        return bool(a == b)
    except Exception:  # pragma: no cover - only builtin types reach here
        return False


def self_equal(text: str) -> bool:
    """Whether the literal ``text``, read twice, is ``==`` to itself, as ``assert f(x) == <text>`` needs.

    False when it holds a NaN (``float('nan') != float('nan')``, also inside containers), or does not parse.

    >>> self_equal("[1.5, {'a': (2, 3)}]"), self_equal("[float('nan')]"), self_equal("'nan'")
    (True, False, True)
    """
    if "nan" not in text.lower():  # float('nan'), Decimal('NaN')
        return True
    try:
        return bool(parse(text) == parse(text))
    except AnswerError:
        return False


@lru_cache(maxsize=65536)
def _expected_value(text: str) -> Any:
    return parse(text, max_chars=max(MAX_ANSWER_CHARS, len(text)))


def same(expected: CanonicalValue, answer_text: str | CanonicalValue, *, exact_floats: bool = False) -> bool:
    """Whether ``answer_text`` denotes the value ``expected`` describes.

    The one comparison used by the dataset, the rewards and the lm-eval tasks.
    Never raises for any answer text: an answer that does not parse is wrong.

    Args:
        expected (`CanonicalValue`): the reference, usually from :func:`encode`.
        answer_text (`str` or `CanonicalValue`): the answer.
        exact_floats (`bool`, defaults to False): floats compared as Python's ``==`` compares them (the tasks
            named after a benchmark, whose verdict is an ``assert ... == ...``); the default tolerance is the rule
            of the project's own questions (``docs/values.md``).

    >>> same(encode({"a": 1, "b": 2}), "{'b': 2, 'a': 1}")
    True
    >>> same(encode([1, 2]), "(1, 2)"), same(encode("ab"), "ab")
    (False, False)
    """
    if not isinstance(expected, CanonicalValue):
        raise InvalidArgument(f"expected must be a CanonicalValue (use values.encode), got {type(expected).__name__}")
    if not expected.askable:
        return False
    if isinstance(answer_text, CanonicalValue):
        if not answer_text.askable:
            return False
        answer_text = answer_text.text
    try:
        answer = parse(answer_text)
        reference = _expected_value(expected.text)
    except AnswerError:
        return False
    return equal(reference, answer, exact_floats=exact_floats)
