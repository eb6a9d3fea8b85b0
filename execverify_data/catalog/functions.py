"""Builtin functions (and constructors called as functions), as catalog data.

The builtins left out on purpose, and why, are listed in ``docs/catalog.md`` ("Exclusions").
"""

from __future__ import annotations

from execverify_data.catalog.entry import Entry, function, sig

__all__ = ["FUNCTIONS"]

_KEY = ["*", "key?: Callable[[T], object]"]

FUNCTIONS: tuple[Entry, ...] = (
    function("abs", sig(None, ["x: int"], "int"), sig(None, ["x: float"], "float")),
    function("all", sig(None, ["iterable: Iterable[object]"], "bool")),
    function("any", sig(None, ["iterable: Iterable[object]"], "bool")),
    function("bin", sig(None, ["x: int"], "str")),
    function("bool", sig(None, ["x?: object"], "bool")),
    function("bytes", sig(None, ["source: str", "encoding: str"], "bytes", pre=["encodable(source, encoding)"]),
             sig(None, ["source: Iterable[int]"], "bytes", pre=["byte_values(source)"])),
    function("chr", sig(None, ["i: int"], "str", pre=["codepoint(i)"])),
    function("dict", sig(None, [], "dict[K, V]"), sig(None, ["mapping: dict[K, V]"], "dict[K, V]"),
             sig(None, ["iterable: Iterable[tuple[K, V]]"], "dict[K, V]")),
    function("divmod", sig(None, ["a: int", "b: int"], "tuple[int, int]", pre=["nonzero(b)"]),
             sig(None, ["a: float", "b: float"], "tuple[float, float]", pre=["nonzero(b)"])),
    function("enumerate", sig(None, ["iterable: Iterable[T]", "start?: int"], "Iterator[tuple[int, T]]")),
    function("filter", sig(None, ["function: Optional[Callable[[T], object]]", "iterable: Iterable[T]"], "Iterator[T]")),
    function("float", sig(None, ["x?: int | float"], "float"),
             sig(None, ["x: str"], "float", pre=["float_literal(x)"])),
    function("frozenset", sig(None, ["iterable?: Iterable[T]"], "frozenset[T]")),
    function("hex", sig(None, ["x: int"], "str")),
    function("int", sig(None, ["x?: int | float"], "int", pre=["finite(x)"]),
             sig(None, ["x: str", "base?: int"], "int", pre=["int_literal(x, base)"])),
    function("isinstance", sig(None, ["obj: object", "classinfo: type | tuple[type, ...]"], "bool")),
    function("iter", sig(None, ["iterable: Iterable[T]"], "Iterator[T]")),
    function("len", sig(None, ["obj: Collection[object]"], "int")),
    function("list", sig(None, ["iterable?: Iterable[T]"], "list[T]")),
    function("map", sig(None, ["function: Callable[[T], U]", "iterable: Iterable[T]"], "Iterator[U]")),
    *(function(name, sig(None, ["iterable: Iterable[T]", *_KEY], "T", pre=["nonempty(iterable)"]),
               sig(None, ["a: T", "b: T", "*rest: T"], "T")) for name in ("max", "min")),
    # next(iterator) alone raises StopIteration on an exhausted iterator; only the safe form is listed.
    function("next", sig(None, ["iterator: Iterator[T]", "default: T"], "T")),
    function("oct", sig(None, ["x: int"], "str")),
    function("ord", sig(None, ["c: str"], "int", pre=["single_char(c)"])),
    function("pow", sig(None, ["base: int", "exp: int"], "int", pre=["nonnegative(exp)", "small(exp)"]),
             sig(None, ["base: int", "exp: int", "mod: int"], "int", pre=["nonnegative(exp)", "nonzero(mod)"]),
             sig(None, ["base: float", "exp: float"], "float", pre=["positive(base)", "small(exp)"])),
    function("print", sig(None, ["*values: object", "sep?: str", "end?: str"], "None")),
    function("range", sig(None, ["stop: int"], "range"),
             sig(None, ["start: int", "stop: int", "step?: int"], "range", pre=["nonzero(step)"])),
    function("repr", sig(None, ["obj: object"], "str")),
    function("reversed", sig(None, ["seq: Sequence[T]"], "Iterator[T]")),
    function("round", sig(None, ["number: float"], "int", pre=["finite(number)"]),
             sig(None, ["number: float", "ndigits: int"], "float"), sig(None, ["number: int", "ndigits?: int"], "int")),
    function("set", sig(None, ["iterable?: Iterable[T]"], "set[T]")),
    function("sorted", sig(None, ["iterable: Iterable[T]", *_KEY, "reverse?: bool"], "list[T]")),
    function("str", sig(None, ["x?: object"], "str")),
    function("sum", sig(None, ["iterable: Iterable[int]", "start?: int"], "int"),
             sig(None, ["iterable: Iterable[float]", "start?: float"], "float | int")),
    function("tuple", sig(None, ["iterable?: Iterable[T]"], "tuple[T, ...]")),
    function("type", sig(None, ["obj: object"], "type")),
    function("zip", sig(None, ["a: Iterable[T]"], "Iterator[tuple[T]]"),
             sig(None, ["a: Iterable[T]", "b: Iterable[U]"], "Iterator[tuple[T, U]]")),
)
