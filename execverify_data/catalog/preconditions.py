"""Named preconditions of catalog signatures and how to test them on live values (``docs/catalog.md``).

``check(arg, ...)`` names signature arguments (``self`` is a method's receiver); ``unless <param>`` waives it
when that optional parameter is given. A check holds vacuously when a required argument is absent or
``None``; trailing optional ones fall back to the check's defaults; a variadic parameter is bound to the
tuple of its values. Some checks try the operation itself (``int_literal``, ``encodable``...): the rule is
the interpreter's.

>>> holds("contains(self, x)", {"self": [1, 2], "x": 3})
False
>>> holds("contains(self, key) unless default", {"self": {}, "key": "a", "default": 0})
True
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from execverify_data.errors import InvalidArgument

__all__ = ["Precondition", "PREDICATES", "holds"]

#: Results are kept small by ``small``: |x| <= SMALL.
SMALL = 16


def _tries(fn: Callable[[], object]) -> bool:
    try:
        fn()
    except (ValueError, TypeError, LookupError, OverflowError, UnicodeError):
        return False
    return True


def _found(x, y, start, end) -> bool:
    if isinstance(x, (str, bytes)):  # str.find's rules: an empty needle is not found past end
        bounds = [b for b in (start, end) if b is not None]
        return x.find(y, *bounds) >= 0
    return y in x[start:end]


#: name -> (check, description). Checks take the argument values in order.
PREDICATES: dict[str, tuple[Callable[..., bool], str]] = {
    "nonempty": (lambda x: hasattr(x, "__len__") and len(x) > 0,
                 "has at least one element (iterators without len never qualify)"),
    "contains": (lambda x, y: y in x, "second argument is in the first (`y in x`)"),
    "found": (lambda x, y, start=None, end=None: _found(x, y, start, end),
              "second argument occurs in first[start:end] (index/rindex)"),
    "valid_index": (lambda x, i: -len(x) <= i < len(x), "-len(x) <= i < len(x)"),
    "nonzero": (lambda x: x != 0, "not zero"),
    "nonnegative": (lambda x: x >= 0, ">= 0"),
    "positive": (lambda x: x > 0, "> 0"),
    "small": (lambda x: -SMALL <= x <= SMALL, f"|x| <= {SMALL}, keeps results small (not needed for correctness)"),
    "single_char": (lambda x: len(x) == 1, "exactly one character (or byte)"),
    "codepoint": (lambda x: 0 <= x <= 0x10FFFF, "a Unicode code point, 0..0x10FFFF"),
    "finite": (lambda x: math.isfinite(x), "not inf or nan"),
    "byteorder": (lambda x: x in ("big", "little"), "'big' or 'little'"),
    "byte_values": (lambda x: all(isinstance(v, int) and 0 <= v < 256 for v in x), "every element in 0..255"),
    "table256": (lambda x: len(x) == 256, "a 256-byte translation table"),
    "int_literal": (lambda s, base=10: _tries(lambda: int(s, base)), "text that int() accepts"),
    "float_literal": (lambda s: _tries(lambda: float(s)), "text that float() accepts"),
    "encodable": (lambda s, enc="utf-8": _tries(lambda: s.encode(enc)), "encodes with that codec"),
    "decodable": (lambda b, enc="utf-8": _tries(lambda: b.decode(enc)), "decodes with that codec"),
    "fits_bytes": (lambda n, length=1, signed=False: _tries(lambda: n.to_bytes(length, "big", signed=signed)),
                   "the int fits in `length` bytes"),
    "format_args": (lambda s, args: _tries(lambda: s.format(*args)), "replacement fields match the arguments"),
    "format_keys": (lambda s, mapping: _tries(lambda: s.format_map(mapping)),
                    "replacement fields name keys of the mapping"),
}

_PRE = re.compile(r"^\s*(\w+)\(([\w\s,]*)\)\s*(?:unless\s+(\w+))?\s*$")


@dataclass(frozen=True)
class Precondition:
    """One named precondition: ``check`` over argument names, waived when ``unless`` is supplied."""

    check: str
    args: tuple[str, ...]
    unless: str | None = None

    @classmethod
    def parse(cls, text: str) -> Precondition:
        """Read ``"check(a, b) unless c"``.

        >>> Precondition.parse("nonzero(b)")
        Precondition(check='nonzero', args=('b',), unless=None)
        """
        m = _PRE.match(text)
        if not m or m.group(1) not in PREDICATES:
            raise InvalidArgument(f"bad precondition {text!r}; write check(arg, ...) with check one of "
                                  f"{sorted(PREDICATES)}")
        args = tuple(a.strip() for a in m.group(2).split(",") if a.strip())
        return cls(m.group(1), args, m.group(3))

    def __str__(self) -> str:
        return f"{self.check}({', '.join(self.args)})" + (f" unless {self.unless}" if self.unless else "")


def holds(pre: Precondition | str, bound: Mapping[str, object]) -> bool:
    """Whether ``pre`` holds for the argument values ``bound`` (name -> value).

    >>> holds("nonempty(self)", {"self": []}), holds("valid_index(self, index)", {"self": [1]})
    (False, True)
    """
    if isinstance(pre, str):
        pre = Precondition.parse(pre)
    if pre.unless is not None and pre.unless in bound:
        return True
    check = PREDICATES[pre.check][0]
    values = []
    for name in pre.args:
        if name not in bound or bound[name] is None:
            break  # trailing optional arguments fall back to the check's defaults
        values.append(bound[name])
    if len(values) < _required(check):
        return True
    return bool(check(*values))


def _required(check: Callable[..., bool]) -> int:
    params = inspect.signature(check).parameters.values()
    return sum(1 for p in params if p.default is inspect.Parameter.empty)
