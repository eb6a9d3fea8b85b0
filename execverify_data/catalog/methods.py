"""Methods of the ten builtin types, as catalog data (``docs/catalog.md``).

Every listed call is valid, but not every valid call is listed: rarely useful parameters are left out.
"""

from __future__ import annotations

from execverify_data.catalog.entry import Entry, method, sig

__all__ = ["METHODS", "EXCLUDED"]

#: Public names of the ten types that are deliberately not catalogued, with the reason.
EXCLUDED: dict[str, str] = {
    "str.maketrans": "static helper called on the type, not on a value; build translate tables as dict[int, str] literals",
    "bytes.maketrans": "static helper called on the type, not on a value",
    "bytes.fromhex": "classmethod constructor called on the type, not on a value",
    "float.fromhex": "classmethod constructor called on the type, not on a value",
    "int.from_bytes": "classmethod constructor called on the type, not on a value",
    "dict.fromkeys": "classmethod constructor called on the type, not on a value",
    "int.real": "data attribute (numeric tower), not a call",
    "int.imag": "data attribute (numeric tower), not a call",
    "int.numerator": "data attribute (numeric tower), not a call",
    "int.denominator": "data attribute (numeric tower), not a call",
    "float.real": "data attribute (numeric tower), not a call",
    "float.imag": "data attribute (numeric tower), not a call",
}

_POS = ["start?: int", "end?: int"]


def _text(t: str) -> list[Entry]:
    """Methods shared by str and bytes (t is "str" or "bytes")."""
    chars = f"chars?: Optional[{t}]"
    fill = ["width: int", f"fillchar?: {t}"]
    fill_pre = ["small(width)", "single_char(fillchar)"]
    split_pre = ["nonempty(sep)"]
    entries = [
        method(t, "capitalize", sig(t, [], t)),
        method(t, "center", sig(t, fill, t, pre=fill_pre)),
        method(t, "count", sig(t, [f"sub: {t}", *_POS], "int")),
        method(t, "endswith", sig(t, [f"suffix: {t} | tuple[{t}, ...]", *_POS], "bool")),
        method(t, "expandtabs", sig(t, ["tabsize?: int"], t, pre=["small(tabsize)"])),
        method(t, "find", sig(t, [f"sub: {t}", *_POS], "int")),
        method(t, "index", sig(t, [f"sub: {t}", *_POS], "int", pre=["found(self, sub, start, end)"])),
        method(t, "join", sig(t, [f"iterable: Iterable[{t}]"], t)),
        method(t, "ljust", sig(t, fill, t, pre=fill_pre)),
        method(t, "lower", sig(t, [], t)),
        method(t, "lstrip", sig(t, [chars], t)),
        method(t, "partition", sig(t, [f"sep: {t}"], f"tuple[{t}, {t}, {t}]", pre=split_pre)),
        method(t, "removeprefix", sig(t, [f"prefix: {t}"], t)),
        method(t, "removesuffix", sig(t, [f"suffix: {t}"], t)),
        method(t, "replace", sig(t, [f"old: {t}", f"new: {t}", "count?: int"], t)),
        method(t, "rfind", sig(t, [f"sub: {t}", *_POS], "int")),
        method(t, "rindex", sig(t, [f"sub: {t}", *_POS], "int", pre=["found(self, sub, start, end)"])),
        method(t, "rjust", sig(t, fill, t, pre=fill_pre)),
        method(t, "rpartition", sig(t, [f"sep: {t}"], f"tuple[{t}, {t}, {t}]", pre=split_pre)),
        method(t, "rsplit", sig(t, [f"sep?: Optional[{t}]", "maxsplit?: int"], f"list[{t}]", pre=split_pre)),
        method(t, "rstrip", sig(t, [chars], t)),
        method(t, "split", sig(t, [f"sep?: Optional[{t}]", "maxsplit?: int"], f"list[{t}]", pre=split_pre)),
        method(t, "splitlines", sig(t, ["keepends?: bool"], f"list[{t}]")),
        method(t, "startswith", sig(t, [f"prefix: {t} | tuple[{t}, ...]", *_POS], "bool")),
        method(t, "strip", sig(t, [chars], t)),
        method(t, "swapcase", sig(t, [], t)),
        method(t, "title", sig(t, [], t)),
        method(t, "upper", sig(t, [], t)),
        method(t, "zfill", sig(t, ["width: int"], t, pre=["small(width)"])),
    ]
    for name in ("isalnum", "isalpha", "isascii", "isdigit", "islower", "isspace", "istitle", "isupper"):
        entries.append(method(t, name, sig(t, [], "bool")))
    return entries


_STR_ONLY = [
    method("str", "casefold", sig("str", [], "str")),
    method("str", "encode", sig("str", ["encoding?: str"], "bytes", pre=["encodable(self, encoding)"])),
    method("str", "format", sig("str", ["*args: object"], "str", pre=["format_args(self, args)"])),
    method("str", "format_map", sig("str", ["mapping: dict[str, object]"], "str", pre=["format_keys(self, mapping)"])),
    method("str", "translate", sig("str", ["table: dict[int, str | int | None]"], "str")),
    *(method("str", n, sig("str", [], "bool")) for n in ("isdecimal", "isidentifier", "isnumeric", "isprintable")),
]

_BYTES_ONLY = [
    method("bytes", "decode", sig("bytes", ["encoding?: str"], "str", pre=["decodable(self, encoding)"])),
    method("bytes", "hex", sig("bytes", ["sep?: str"], "str", pre=["single_char(sep)"])),
    method("bytes", "translate", sig("bytes", ["table: Optional[bytes]", "delete?: bytes"], "bytes", pre=["table256(table)"])),
]

_L, _S, _F, _D = "list[T]", "set[T]", "frozenset[T]", "dict[K, V]"

_LIST = [
    method("list", "append", sig(_L, ["x: T"], "None", mutates=True)),
    method("list", "clear", sig(_L, [], "None", mutates=True)),
    method("list", "copy", sig(_L, [], _L)),
    method("list", "count", sig(_L, ["x: T"], "int")),
    method("list", "extend", sig(_L, ["iterable: Iterable[T]"], "None", mutates=True)),
    method("list", "index", sig(_L, ["x: T", *_POS], "int", pre=["found(self, x, start, end)"])),
    method("list", "insert", sig(_L, ["index: int", "x: T"], "None", mutates=True)),
    method("list", "pop", sig(_L, ["index?: int"], "T", pre=["nonempty(self)", "valid_index(self, index)"], mutates=True)),
    method("list", "remove", sig(_L, ["x: T"], "None", pre=["contains(self, x)"], mutates=True)),
    method("list", "reverse", sig(_L, [], "None", mutates=True)),
    method("list", "sort", sig(_L, ["*", "key?: Callable[[T], object]", "reverse?: bool"], "None", mutates=True)),
]

_TUPLE = [
    method("tuple", "count", sig("tuple[T, ...]", ["x: T"], "int")),
    method("tuple", "index", sig("tuple[T, ...]", ["x: T", *_POS], "int", pre=["found(self, x, start, end)"])),
]

_DICT = [
    method("dict", "clear", sig(_D, [], "None", mutates=True)),
    method("dict", "copy", sig(_D, [], _D)),
    method("dict", "get", sig(_D, ["key: K", "default?: V"], "Optional[V]")),
    method("dict", "items", sig(_D, [], "dict_items[K, V]")),
    method("dict", "keys", sig(_D, [], "dict_keys[K]")),
    method("dict", "pop", sig(_D, ["key: K", "default?: V"], "V", pre=["contains(self, key) unless default"], mutates=True)),
    method("dict", "popitem", sig(_D, [], "tuple[K, V]", pre=["nonempty(self)"], mutates=True)),
    # setdefault(key) alone would insert None and break the value type: default is required here.
    method("dict", "setdefault", sig(_D, ["key: K", "default: V"], "V", mutates=True)),
    method("dict", "update", sig(_D, ["other: dict[K, V]"], "None", mutates=True)),
    method("dict", "values", sig(_D, [], "dict_values[V]")),
]


def _set_like(t: str) -> list[Entry]:
    r = f"{t}[T]"
    return [
        method(t, "copy", sig(r, [], r)),
        method(t, "difference", sig(r, ["*others: Iterable[T]"], r)),
        method(t, "intersection", sig(r, ["*others: Iterable[T]"], r)),
        method(t, "isdisjoint", sig(r, ["other: Iterable[T]"], "bool")),
        method(t, "issubset", sig(r, ["other: Iterable[T]"], "bool")),
        method(t, "issuperset", sig(r, ["other: Iterable[T]"], "bool")),
        method(t, "symmetric_difference", sig(r, ["other: Iterable[T]"], r)),
        method(t, "union", sig(r, ["*others: Iterable[T]"], r)),
    ]


_SET_ONLY = [
    method("set", "add", sig(_S, ["x: T"], "None", mutates=True)),
    method("set", "clear", sig(_S, [], "None", mutates=True)),
    method("set", "difference_update", sig(_S, ["*others: Iterable[T]"], "None", mutates=True)),
    method("set", "discard", sig(_S, ["x: T"], "None", mutates=True)),
    method("set", "intersection_update", sig(_S, ["*others: Iterable[T]"], "None", mutates=True)),
    method("set", "pop", sig(_S, [], "T", pre=["nonempty(self)"], mutates=True)),
    method("set", "remove", sig(_S, ["x: T"], "None", pre=["contains(self, x)"], mutates=True)),
    method("set", "symmetric_difference_update", sig(_S, ["other: Iterable[T]"], "None", mutates=True)),
    method("set", "update", sig(_S, ["*others: Iterable[T]"], "None", mutates=True)),
]

_INT = [
    method("int", "as_integer_ratio", sig("int", [], "tuple[int, int]")),
    method("int", "bit_count", sig("int", [], "int")),
    method("int", "bit_length", sig("int", [], "int")),
    method("int", "conjugate", sig("int", [], "int")),
    method("int", "is_integer", sig("int", [], "bool"), since=(3, 12)),
    method("int", "to_bytes", sig("int", ["length?: int", "byteorder?: str", "*", "signed?: bool"], "bytes", pre=[
        "nonnegative(length)", "small(length)", "byteorder(byteorder)", "fits_bytes(self, length, signed)"])),
]

_FLOAT = [
    method("float", "as_integer_ratio", sig("float", [], "tuple[int, int]", pre=["finite(self)"])),
    method("float", "conjugate", sig("float", [], "float")),
    method("float", "hex", sig("float", [], "str")),
    method("float", "is_integer", sig("float", [], "bool")),
]

METHODS: tuple[Entry, ...] = (*_text("str"), *_STR_ONLY, *_text("bytes"), *_BYTES_ONLY, *_LIST, *_TUPLE, *_DICT,
                               *_set_like("set"), *_SET_ONLY, *_set_like("frozenset"), *_INT, *_FLOAT)
