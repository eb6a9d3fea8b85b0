"""Catalog entries: frozen dataclasses and the compact notation the data modules use (``docs/catalog.md``):
``"sub: str"``, ``"start?: int"`` (may be omitted), ``"*others: Iterable[T]"``, a bare ``"*"``.

>>> s = sig("str", ["sep?: Optional[str]", "maxsplit?: int"], "list[str]", pre=["nonempty(sep)"])
>>> [p.name for p in s.params], s.returns, str(s.preconditions[0])
(['sep', 'maxsplit'], 'list[str]', 'nonempty(sep)')
>>> s.arity
(0, 2)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from execverify_data.catalog import typelang
from execverify_data.catalog.preconditions import Precondition
from execverify_data.errors import InvalidArgument

__all__ = ["KINDS", "Param", "Signature", "Entry", "sig", "method", "function", "operator"]

#: The kinds of catalog entry.
KINDS = ("method", "function", "operator")
#: Operator forms: an expression, or a statement (assignment, ``del``).
FORMS = ("expr", "stmt")

_PARAM = re.compile(r"^\s*(\*?)(\w+)(\??)\s*:\s*(.+?)\s*$")


@dataclass(frozen=True)
class Param:
    """One parameter: its name and type, whether it may be omitted, is keyword-only or variadic."""

    name: str
    type: str
    optional: bool = False
    keyword: bool = False
    variadic: bool = False

    def __str__(self) -> str:
        return f"{'*' if self.variadic else ''}{self.name}{'?' if self.optional else ''}: {self.type}"


@dataclass(frozen=True)
class Signature:
    """One typed way to use an entry.

    ``receiver`` is the type of ``self`` for methods (``None`` otherwise);
    ``returns`` is the result type (for a statement operator, the type of its first
    operand afterwards, or ``None``); ``mutates`` says whether the receiver (methods)
    or first operand object (operators) is changed in place.
    """

    params: tuple[Param, ...]
    returns: str
    receiver: str | None = None
    preconditions: tuple[Precondition, ...] = ()
    mutates: bool = False

    @property
    def arity(self) -> tuple[int, int | None]:
        """(fewest, most) positional arguments; most is None with a variadic parameter."""
        positional = [p for p in self.params if not p.keyword]
        if any(p.variadic for p in positional):
            return sum(1 for p in positional if not p.optional and not p.variadic), None
        return sum(1 for p in positional if not p.optional), len(positional)

    def __str__(self) -> str:
        head = f"{self.receiver}." if self.receiver else ""
        return f"{head}({', '.join(str(p) for p in self.params)}) -> {self.returns}"


@dataclass(frozen=True)
class Entry:
    """One catalog entry.

    ``id`` is stable (``str.split``, ``builtin.sorted``, ``op.slice_step``); ``name`` is the
    method or function name (for operators the key after ``op.``); operators also have a
    syntax ``template`` with ``{operand}`` holes; ``signatures`` lists the typed overloads; ``since`` is the first Python
    version that has it (``None``: every supported version).
    """

    id: str
    kind: str
    name: str
    signatures: tuple[Signature, ...]
    since: tuple[int, int] | None = None
    template: str | None = None
    form: str = "expr"
    summary: str = ""

    @property
    def mutates(self) -> bool:
        """True when some overload changes its receiver / first operand in place."""
        return any(s.mutates for s in self.signatures)

    @property
    def receiver(self) -> str | None:
        """The receiver's type name for methods (``"str"``, ``"list"``...), else None."""
        return self.id.split(".")[0] if self.kind == "method" else None

    def available(self, version: tuple[int, int]) -> bool:
        """Whether this entry exists in Python ``version`` (major, minor)."""
        return self.since is None or tuple(version[:2]) >= self.since


def _params(specs: Sequence[str]) -> tuple[Param, ...]:
    out, keyword = [], False
    for spec in specs:
        if spec.strip() == "*":
            keyword = True
            continue
        m = _PARAM.match(spec)
        if not m:
            raise InvalidArgument(f"bad parameter {spec!r}; write 'name: type', 'name?: type' or '*name: type'")
        star, name, opt, type_text = m.groups()
        typelang.parse(type_text)  # validate now
        out.append(Param(name, type_text, optional=bool(opt), keyword=keyword, variadic=bool(star)))
        keyword = keyword or bool(star)
    return tuple(out)


def sig(
    receiver: str | None,
    params: Sequence[str],
    returns: str,
    *,
    pre: Iterable[str] = (),
    mutates: bool = False,
) -> Signature:
    """Build a :class:`Signature` from the compact notation (types are validated)."""
    if receiver is not None:
        typelang.parse(receiver)
    if returns != "None":
        typelang.parse(returns)
    params_ = _params(params)
    preconditions = tuple(Precondition.parse(p) for p in pre)
    names = {p.name for p in params_} | {"self"}
    for p in preconditions:
        unknown = [a for a in (*p.args, *([p.unless] if p.unless else [])) if a not in names]
        if unknown:
            raise InvalidArgument(f"precondition {p} names {unknown}, not parameters of ({', '.join(params)})")
    return Signature(params_, returns, receiver, preconditions, mutates)


def method(
    type_name: str, name: str, *signatures: Signature, since: tuple[int, int] | None = None, summary: str = ""
) -> Entry:
    """A method entry ``type_name.name``."""
    return Entry(f"{type_name}.{name}", "method", name, tuple(signatures), since=since, summary=summary)


def function(name: str, *signatures: Signature, summary: str = "") -> Entry:
    """A builtin function entry ``builtin.name``."""
    return Entry(f"builtin.{name}", "function", name, tuple(signatures), summary=summary)


def operator(key: str, template: str, *signatures: Signature, form: str = "expr", summary: str = "") -> Entry:
    """An operator entry ``op.key`` written as ``template`` (``"{a} + {b}"``)."""
    if form not in FORMS:
        raise InvalidArgument(f"operator form must be one of {FORMS}, got {form!r}")
    return Entry(f"op.{key}", "operator", key, tuple(signatures), template=template, form=form, summary=summary)
