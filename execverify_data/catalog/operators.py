"""Operators and syntax forms, as catalog data: an id names a syntax, its overloads the types (``docs/catalog.md``).

Templates use ``str.format`` holes named after the parameters (``{{`` is a literal brace).
"""

from __future__ import annotations

from execverify_data.catalog.entry import Entry, Signature, operator, sig

__all__ = ["OPERATORS", "SLICE_FORMS"]

_SEQS = ("list[T]", "tuple[T, ...]", "str", "bytes")
_NUM = ("int", "float")
_BITS = ("int", "bool", "set[T]", "frozenset[T]")  # bitwise on ints and bools, set algebra on sets


def _binary(key: str, symbol: str, *overloads: tuple[str, str, str], pre: tuple[str, ...] = ()) -> Entry:
    return operator(key, f"{{a}} {symbol} {{b}}", *(sig(None, [f"a: {a}", f"b: {b}"], r, pre=pre) for a, b, r in overloads))


def _same(t: str) -> tuple[str, str, str]:
    """The overload ``t op t -> t``."""
    return (t, t, t)


def _augmented(key: str, symbol: str, *overloads: tuple[str, str, bool], pre: tuple[str, ...] = ()) -> Entry:
    """Overloads are (type of a, type of b, mutates a in place)."""
    sigs = [sig(None, [f"a: {a}", f"b: {b}"], a, pre=pre, mutates=m) for a, b, m in overloads]
    return operator(key, f"{{a}} {symbol}= {{b}}", *sigs, form="stmt")


_ORDERED = ("int", "float", "str", "bytes", "list[T]", "tuple[T, ...]", "set[T]", "frozenset[T]")

#: Slice forms: key -> (template, which of start/stop/step are present).
SLICE_FORMS: dict[str, str] = {
    "slice_copy": "{a}[:]",
    "slice_from": "{a}[{i}:]",
    "slice_to": "{a}[:{j}]",
    "slice": "{a}[{i}:{j}]",
    "slice_step": "{a}[::{k}]",
    "slice_from_step": "{a}[{i}::{k}]",
    "slice_to_step": "{a}[:{j}:{k}]",
    "slice_range_step": "{a}[{i}:{j}:{k}]",
    "slice_reverse": "{a}[::-1]",
}


def _slice(key: str, template: str) -> Entry:
    names = [n for n in ("i", "j", "k") if "{" + n + "}" in template]
    pre = ("nonzero(k)",) if "k" in names else ()
    sigs: list[Signature] = [sig(None, [f"a: {t}", *(f"{n}: int" for n in names)], t, pre=pre) for t in _SEQS]
    return operator(key, template, *sigs)


OPERATORS: tuple[Entry, ...] = (
    # arithmetic
    _binary("add", "+", *map(_same, (*_NUM, "str", "bytes", "list[T]", "tuple[T, ...]"))),
    _binary("sub", "-", *map(_same, (*_NUM, "set[T]", "frozenset[T]"))),
    _binary("mul", "*", *map(_same, _NUM)),
    operator("repeat", "{a} * {n}", *(sig(None, [f"a: {t}", "n: int"], t, pre=["small(n)"]) for t in _SEQS),
             summary="sequence repetition, seq * n"),
    _binary("truediv", "/", ("int", "int", "float"), ("float", "float", "float"), pre=("nonzero(b)",)),
    _binary("floordiv", "//", *map(_same, _NUM), pre=("nonzero(b)",)),
    _binary("mod", "%", *map(_same, _NUM), pre=("nonzero(b)",)),
    operator("pow", "{a} ** {b}",
             *(sig(None, [f"a: {t}", "b: int"], t, pre=["nonnegative(b)", "small(b)"]) for t in _NUM)),
    _binary("lshift", "<<", ("int", "int", "int"), pre=("nonnegative(b)", "small(b)")),
    _binary("rshift", ">>", ("int", "int", "int"), pre=("nonnegative(b)",)),
    # bitwise on ints and bools, set algebra on sets, merge on dicts
    _binary("bitor", "|", *map(_same, (*_BITS, "dict[K, V]"))),
    *(_binary(k, s, *map(_same, _BITS)) for k, s in (("bitand", "&"), ("bitxor", "^"))),
    # unary
    operator("neg", "-{a}", *(sig(None, [f"a: {t}"], t) for t in _NUM)),
    operator("pos", "+{a}", *(sig(None, [f"a: {t}"], t) for t in _NUM)),
    # ~bool is deprecated since 3.12: only int is listed.
    operator("invert", "~{a}", sig(None, ["a: int"], "int")),
    operator("not", "not {a}", sig(None, ["a: object"], "bool")),
    operator("bool_and", "{a} and {b}", sig(None, ["a: bool", "b: bool"], "bool"), sig(None, ["a: T", "b: T"], "T")),
    operator("bool_or", "{a} or {b}", sig(None, ["a: bool", "b: bool"], "bool"), sig(None, ["a: T", "b: T"], "T")),
    operator("ifexp", "{a} if {cond} else {b}", sig(None, ["a: T", "cond: object", "b: T"], "T")),
    # comparisons
    *(_binary(k, s, ("object", "object", "bool")) for k, s in (("eq", "=="), ("ne", "!="))),
    *(_binary(k, s, *((t, t, "bool") for t in _ORDERED)) for k, s in (("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">="))),
    *(_binary(k, s, ("object", "object", "bool")) for k, s in (("is", "is"), ("is_not", "is not"))),
    *(_binary(k, s, ("T", "list[T]", "bool"), ("T", "tuple[T, ...]", "bool"), ("T", "set[T]", "bool"),
              ("T", "frozenset[T]", "bool"), ("K", "dict[K, V]", "bool"), ("str", "str", "bool"),
              ("bytes", "bytes", "bool")) for k, s in (("in", "in"), ("not_in", "not in"))),
    # subscription
    operator("getitem", "{a}[{i}]", *(sig(None, [f"a: {t}", "i: int"], r, pre=["valid_index(a, i)"])
                                      for t, r in zip(_SEQS, ("T", "T", "str", "int"))),
             sig(None, ["a: dict[K, V]", "i: K"], "V", pre=["contains(a, i)"])),
    operator("setitem", "{a}[{i}] = {v}",
             sig(None, ["a: list[T]", "i: int", "v: T"], "None", pre=["valid_index(a, i)"], mutates=True),
             sig(None, ["a: dict[K, V]", "i: K", "v: V"], "None", mutates=True), form="stmt"),
    operator("delitem", "del {a}[{i}]",
             sig(None, ["a: list[T]", "i: int"], "None", pre=["valid_index(a, i)"], mutates=True),
             sig(None, ["a: dict[K, V]", "i: K"], "None", pre=["contains(a, i)"], mutates=True), form="stmt"),
    *(_slice(k, t) for k, t in SLICE_FORMS.items()),
    operator("slice_assign", "{a}[{i}:{j}] = {b}",
             sig(None, ["a: list[T]", "i: int", "j: int", "b: Iterable[T]"], "None", mutates=True), form="stmt"),
    operator("slice_delete", "del {a}[{i}:{j}]", sig(None, ["a: list[T]", "i: int", "j: int"], "None", mutates=True),
             form="stmt"),
    # augmented assignment: in place for mutable containers, rebinding otherwise
    _augmented("iadd", "+", ("int", "int", False), ("float", "float", False), ("str", "str", False),
               ("bytes", "bytes", False), ("tuple[T, ...]", "tuple[T, ...]", False), ("list[T]", "Iterable[T]", True)),
    _augmented("isub", "-", ("int", "int", False), ("float", "float", False), ("set[T]", "set[T]", True)),
    operator("imul", "{a} *= {b}", sig(None, ["a: int", "b: int"], "int"), sig(None, ["a: float", "b: float"], "float"),
             sig(None, ["a: str", "b: int"], "str", pre=["small(b)"]),
             sig(None, ["a: list[T]", "b: int"], "list[T]", pre=["small(b)"], mutates=True), form="stmt"),
    _augmented("itruediv", "/", ("float", "float", False), pre=("nonzero(b)",)),
    _augmented("ifloordiv", "//", ("int", "int", False), ("float", "float", False), pre=("nonzero(b)",)),
    _augmented("imod", "%", ("int", "int", False), ("float", "float", False), pre=("nonzero(b)",)),
    _augmented("ior", "|", ("int", "int", False), ("set[T]", "set[T]", True), ("dict[K, V]", "dict[K, V]", True)),
    _augmented("iand", "&", ("int", "int", False), ("set[T]", "set[T]", True)),
    _augmented("ixor", "^", ("int", "int", False), ("set[T]", "set[T]", True)),
    # unpacking in displays
    operator("unpack_list", "[*{a}, *{b}]", sig(None, ["a: Iterable[T]", "b: Iterable[T]"], "list[T]")),
    operator("unpack_tuple", "(*{a}, *{b})", sig(None, ["a: Iterable[T]", "b: Iterable[T]"], "tuple[T, ...]")),
    operator("unpack_set", "{{*{a}, *{b}}}", sig(None, ["a: Iterable[T]", "b: Iterable[T]"], "set[T]")),
    operator("unpack_dict", "{{**{a}, **{b}}}", sig(None, ["a: dict[K, V]", "b: dict[K, V]"], "dict[K, V]")),
    operator("unpack_call", "{f}(*{a})", sig(None, ["f: Callable[[T], U]", "a: tuple[T]"], "U"),
             summary="star-unpacking in a call, f(*args)"),
    operator("fstring", 'f"{{{a}}}"', sig(None, ["a: object"], "str")),
)
