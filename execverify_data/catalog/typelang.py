"""The small type language of catalog signatures (the grammar is in ``docs/catalog.md``, "Signature language").

A type is written as a string and parsed into a :class:`Type` tree; :func:`conforms` checks a live value.

>>> t = parse("dict[str, list[int]]")
>>> t.name, str(t.args[1])
('dict', 'list[int]')
>>> str(parse("Optional[int]"))
'int | None'
>>> conforms({"a": [1, 2]}, t), conforms({"a": ["x"]}, t)
(True, False)
>>> str(substitute(parse("list[T]"), {"T": parse("str")}))
'list[str]'
"""

from __future__ import annotations

import collections.abc
import datetime
import decimal
import re
from dataclasses import dataclass

from execverify_data.errors import InvalidArgument

__all__ = ["Type", "parse", "conforms", "substitute", "type_vars", "CONCRETE", "EXACT"]

#: Concrete type names and the Python class each one stands for.
CONCRETE: dict[str, type] = {
    **{t.__name__: t for t in (str, int, float, bool, bytes, range, type, list, set, frozenset, dict, tuple)},
    **{type(view).__name__: type(view) for view in ({}.keys(), {}.values(), {}.items())},
    "None": type(None),
    # values of the standard library that code as people have it takes (from-code); a value is of one exactly
    **{t.__name__: t for t in (datetime.date, datetime.datetime, datetime.time, datetime.timedelta, decimal.Decimal)},
}
#: The type names whose values are exactly that class (no subclass: a datetime is not a date).
EXACT = frozenset({"date", "datetime", "time", "timedelta", "Decimal"})
_ARITY = {
    **dict.fromkeys(("list", "set", "frozenset", "dict_keys", "dict_values", "Optional"), 1),
    **dict.fromkeys(("Iterable", "Iterator", "Sequence", "Collection"), 1),
    **dict.fromkeys(("dict", "dict_items", "Callable"), 2),
}
_SCALARS = frozenset({"str", "int", "float", "bool", "bytes", "None", "range", "type", "object"}) | EXACT
_TOKEN = re.compile(r"\s*(\.\.\.|[A-Za-z_][A-Za-z_0-9]*|[\[\],|])")


@dataclass(frozen=True)
class Type:
    """A parsed type: a ``name`` and its type arguments.

    Unions have name ``"|"``; the parameter list of a ``Callable`` has name ``"[]"``;
    the ``...`` of ``tuple[X, ...]`` has name ``"..."``.
    """

    name: str
    args: tuple[Type, ...] = ()

    @property
    def is_var(self) -> bool:
        """True for a type variable such as ``T``."""
        return len(self.name) == 1 and self.name.isupper()

    def __str__(self) -> str:
        if self.name == "|":
            return " | ".join(str(a) for a in self.args)
        if self.name == "[]":
            return "[" + ", ".join(str(a) for a in self.args) + "]"
        if not self.args:
            return self.name
        return f"{self.name}[{', '.join(str(a) for a in self.args)}]"


def parse(text: str) -> Type:
    """Parse a type string; raise :class:`InvalidArgument` naming the problem.

    >>> str(parse("tuple[int, ...]")), str(parse("Callable[[T], object]"))
    ('tuple[int, ...]', 'Callable[[T], object]')
    >>> parse("lst[int]")
    Traceback (most recent call last):
    ...
    execverify_data.errors.InvalidArgument: unknown type name 'lst' in 'lst[int]'; ...
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"a type must be given as a string, got {text!r}")
    tokens = _TOKEN.findall(text)
    if "".join(tokens) != re.sub(r"\s+", "", text):
        raise InvalidArgument(f"cannot read type {text!r}: unexpected characters")
    parser = _Parser(tokens, text)
    result = parser.union()
    if parser.pos != len(tokens):
        raise InvalidArgument(f"cannot read type {text!r}: trailing {''.join(tokens[parser.pos :])!r}")
    return result


class _Parser:
    def __init__(self, tokens: list[str], text: str) -> None:
        self.tokens, self.text, self.pos = tokens, text, 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise InvalidArgument(f"cannot read type {self.text!r}: expected {expected or 'a name'}, got {token!r}")
        self.pos += 1
        return token

    def union(self) -> Type:
        members = [self.atom()]
        while self.peek() == "|":
            self.take("|")
            members.append(self.atom())
        flat: list[Type] = []
        for m in members:
            flat.extend(m.args if m.name == "|" else (m,))
        return flat[0] if len(flat) == 1 else Type("|", tuple(flat))

    def atom(self) -> Type:
        if self.peek() == "[":  # Callable parameter list
            self.take("[")
            items = [] if self.peek() == "]" else self.items()
            self.take("]")
            return Type("[]", tuple(items))
        name = self.take()
        if name == "...":
            return Type("...")
        if not (name in _SCALARS or name in _ARITY or name == "tuple" or (len(name) == 1 and name.isupper())):
            known = sorted(_SCALARS | set(_ARITY) | {"tuple"})
            raise InvalidArgument(f"unknown type name {name!r} in {self.text!r}; use one of {known} or a type "
                                  "variable like T")
        if self.peek() != "[":
            if name in _ARITY or name == "tuple":
                raise InvalidArgument(f"type {name!r} in {self.text!r} needs arguments, e.g. {name}[int]")
            return Type(name)
        self.take("[")
        args = self.items()
        self.take("]")
        if name == "Optional":
            if len(args) != 1:
                raise InvalidArgument(f"Optional takes one argument in {self.text!r}")
            return Type("|", (*(args[0].args if args[0].name == "|" else (args[0],)), Type("None")))
        if name in _SCALARS:
            raise InvalidArgument(f"type {name!r} takes no arguments in {self.text!r}")
        if name in _ARITY and len(args) != _ARITY[name]:
            raise InvalidArgument(f"{name} takes {_ARITY[name]} argument(s) in {self.text!r}, got {len(args)}")
        if any(a.name == "..." for a in args) and not (name == "tuple" and len(args) == 2 and args[1].name == "..."):
            raise InvalidArgument(f"'...' is only allowed as tuple[X, ...] in {self.text!r}")
        return Type(name, tuple(args))

    def items(self) -> list[Type]:
        out = [self.union()]
        while self.peek() == ",":
            self.take(",")
            out.append(self.union())
        return out


def substitute(t: Type, bindings: dict[str, Type]) -> Type:
    """Replace type variables by the types bound to them (unbound ones stay).

    >>> str(substitute(parse("dict[K, V]"), {"K": parse("str")}))
    'dict[str, V]'
    """
    if t.is_var:
        return bindings.get(t.name, t)
    if not t.args:
        return t
    return Type(t.name, tuple(substitute(a, bindings) for a in t.args))


def type_vars(t: Type) -> set[str]:
    """The names of the type variables in ``t``.

    >>> sorted(type_vars(parse("dict[K, list[V]]")))
    ['K', 'V']
    """
    if t.is_var:
        return {t.name}
    return set().union(*(type_vars(a) for a in t.args)) if t.args else set()


#: Finite, re-iterable values, whose elements are checked (an iterator is never consumed).
_REITERABLE = (str, list, tuple, set, frozenset, dict, range, bytes, collections.abc.MappingView)


def conforms(value: object, t: Type | str) -> bool:
    """Whether a live value belongs to type ``t`` (type variables accept anything).

    Iterators are checked to be iterators, never consumed, so their elements are
    not checked.

    >>> conforms(True, "int"), conforms(1, "float"), conforms([1, "a"], "list[int | str]")
    (True, False, True)
    >>> conforms((1, "a"), "tuple[int, str]"), conforms((1, 2, 3), "tuple[int, ...]")
    (True, True)
    """
    if isinstance(t, str):
        t = parse(t)
    name, args = t.name, t.args
    if t.is_var or name == "object":
        return True
    if name == "|":
        return any(conforms(value, a) for a in args)
    if name in EXACT:  # a datetime is not a date here: its text is another
        return type(value) is CONCRETE[name]
    if name in _SCALARS:  # "object" returned above
        return isinstance(value, CONCRETE[name])
    if name == "Callable":
        return callable(value)
    if name in ("list", "set", "frozenset", "dict_keys", "dict_values"):
        return type(value) is CONCRETE[name] and all(conforms(v, args[0]) for v in value)
    if name in ("dict", "dict_items"):
        return type(value) is CONCRETE[name] and all(conforms(k, args[0]) and conforms(v, args[1])
                                                     for k, v in (value.items() if name == "dict" else value))
    if name == "tuple":
        if type(value) is not tuple:
            return False
        if len(args) == 2 and args[1].name == "...":
            return all(conforms(v, args[0]) for v in value)
        return len(value) == len(args) and all(conforms(v, a) for v, a in zip(value, args))
    if name in ("Iterable", "Iterator", "Sequence", "Collection"):
        kind = (list, tuple, str, bytes, range) if name == "Sequence" else getattr(collections.abc, name)
        if not isinstance(value, kind):
            return False
        return not isinstance(value, _REITERABLE) or all(conforms(v, args[0]) for v in value)
    raise InvalidArgument(f"cannot check values against type {t}")
