"""What a generated computation builds: the accumulators of the shapes people write.

An :class:`Acc` is the state a loop fills and the function returns: a count, a total, a list of
kept or mapped items, a string being built, a tally or grouping by key, the best item so far,
the first match (an early return), the items seen once, categories of an ``if``/``elif``
chain... Each kind says how it starts (``init``), how the innermost block updates it with the
current value (``update``), what an ``else``/``elif`` arm does instead (``other``), and what the
function returns. Mutating methods and augmented assignments that a spec targets are
accumulator updates (``list.append``, ``set.add``, ``dict.setdefault``, ``op.iadd``...), listed in
:data:`KINDS_FOR_TARGET`.

>>> import random
>>> from execverify_data.synth.names import Names
>>> acc = make("tally", Names(random.Random(0)), random.Random(0))
>>> acc.init, acc.update(Val.of("len(word)", "count")), acc.returns
(['freq = {}'], ['freq[len(word)] = freq.get(len(word), 0) + 1'], 'freq')
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from execverify_data.synth.code import Stmt, Val
from execverify_data.synth.measures import builtin_chain
from execverify_data.synth.names import Names

__all__ = ["Acc", "KINDS", "KINDS_FOR_TARGET", "VALUE_KINDS", "make"]

_NUMERIC = ("num", "count", "index", "byte", "number", "amount")
_TEXT = ("word", "char", "text", "line", "numstr", "digits")
#: the value grains that are strings
TEXT_GRAINS = _TEXT
_HASHABLE = _NUMERIC + _TEXT + ("flag",)


@dataclass
class Acc:
    """One accumulator (see the module docs). ``needs``: the value grains ``update`` accepts
    (empty: it takes no value); ``gives``: the grain of what the function returns."""

    kind: str
    name: str
    init: list = field(default_factory=list)
    needs: tuple[str, ...] = ()
    gives: str = ""
    returns: str = ""
    early: bool = False  # the update returns from the function (first match, any/all)
    default: str = ""    # what an early-return function returns when nothing matched
    _update: object = None
    _other: object = None
    finish: list = field(default_factory=list)  # statements before the return (result.sort()...)

    def update(self, value: Val | None, key: Val | None = None) -> list:
        """The statements that add ``value`` (filed under ``key`` for the kinds that group by a key)."""
        if self.kind in ("group", "index"):
            return self._update(value, key)
        return self._update(value)

    def other(self, value: Val | None) -> list | None:
        """The update of another arm (``else``/``elif``), or None when the kind has none."""
        return None if self._other is None else self._other(value)

    def accepts(self, grain: str) -> bool:
        return not self.needs or grain in self.needs


def _list_of(grain: str) -> str:
    return {"num": "nums", "count": "nums", "index": "nums", "byte": "nums", "number": "nums", "word": "words",
            "char": "words", "text": "words", "line": "words", "numstr": "numstrs", "digits": "words"}.get(grain, "words")


#: accumulator kinds a value of each grain can feed
VALUE_KINDS = {
    "count": ("num", "count", "index", "byte", "number"),
    "total": _NUMERIC,
}

KINDS = ("count", "total", "product", "xor", "collect", "collect_front", "build", "join", "tally", "group", "best",
         "worst", "longest", "seen", "dedupe", "first", "index_of", "any", "partition", "common", "remaining")

#: targets that are accumulator updates -> the kinds that use them
KINDS_FOR_TARGET: dict[str, tuple[str, ...]] = {
    "list.append": ("collect", "partition", "group", "dedupe", "join", "recent"),
    "list.insert": ("collect_front",),
    "list.extend": ("extend",),
    "list.sort": ("collect_sorted",),
    "list.reverse": ("collect_reversed",),
    "list.remove": ("remaining_list",),
    "list.pop": ("stack",),
    "list.clear": ("chunks",),
    "set.add": ("seen", "dedupe"),
    "set.update": ("seen_many",),
    "set.discard": ("remaining",),
    "set.remove": ("remaining_checked",),
    "set.intersection_update": ("common",),
    "set.difference_update": ("remaining_many",),
    "set.symmetric_difference_update": ("odd_seen",),
    "set.pop": ("pool",),
    "set.clear": ("chunks_set",),
    "dict.setdefault": ("group",),
    "dict.copy": ("remaining_dict", "remaining_del"),
    "set.copy": ("remaining", "remaining_checked"),
    "list.copy": ("remaining_list", "chunks"),
    "dict.update": ("index",),
    "dict.pop": ("remaining_dict",),
    "dict.popitem": ("drain",),
    "dict.clear": ("chunks_dict",),
    "op.setitem": ("tally", "index"),
    "op.delitem": ("remaining_del",),
    "op.iadd": ("total", "count", "build"),
    "op.isub": ("total_signed",),
    "op.imul": ("product",),
    "op.ixor": ("xor",),
    "op.ior": ("mask", "letters"),
    "op.iand": ("mask_and", "common_op"),
    "op.imod": ("total_mod",),
    "op.ifloordiv": ("digits_loop",),
    "op.itruediv": ("mean",),
    "op.is": ("best_none",),
    "op.is_not": ("best_none",),
    "builtin.repr": ("join_repr",),
}


def make(kind: str, names: Names, rng: random.Random, *, value_grain: str = "", first_value: str = "",
         subject: Val | None = None, copy: bool = False) -> Acc:
    """An accumulator of ``kind`` (names from ``names``).

    Args:
        value_grain (`str`): grain of the values it will get (decides element types and defaults).
        first_value (`str`): text of a value to start from, for kinds that start from the data
            (``common`` starts from the first item's letters).
        subject (`Val`, optional): the collection a ``remaining``-style kind starts from.
    """
    builder = BUILDERS[kind]
    acc = builder(names, rng, value_grain or "num", first_value, subject)
    if copy and subject is not None and acc.init and kind.startswith("remaining"):  # start from the input's .copy() (dict.copy, set.copy, list.copy)
        acc.init = [f"{acc.name} = {subject.text}.copy()"]
    return acc


def _count(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("count", "matches", "hits")))
    return Acc("count", n, [f"{n} = 0"], (), "count", n, _update=lambda v: [f"{n} += 1"],
               _other=lambda v: [f"{n} -= 1"] if rng.random() < 0.3 else None)


def _total(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("total", "score", "acc")))
    start = "0.0" if g == "amount" else "0"
    return Acc("total", n, [f"{n} = {start}"], _NUMERIC, "num", n, _update=lambda v: [f"{n} += {v.text}"],
               _other=lambda v: [f"{n} -= {v.text}"])


def _total_signed(names, rng, g, first, subject):
    acc = _total(names, rng, g, first, subject)
    n = acc.name
    acc.kind, acc._update, acc._other = "total_signed", (lambda v: [f"{n} -= {v.text}"]), (lambda v: [f"{n} += {v.text}"])
    return acc


def _total_mod(names, rng, g, first, subject):
    n = names.fresh("checksum")
    m = rng.choice((7, 97, 101, 1000))
    return Acc("total_mod", n, [f"{n} = 0"], ("num", "count", "byte", "number", "index"), "count", n,
               _update=lambda v: [f"{n} += {v.text}", f"{n} %= {m}"])


def _product(names, rng, g, first, subject):
    n = names.fresh("product")
    return Acc("product", n, [f"{n} = 1"], ("num", "count", "index", "number"), "num", n,
               _update=lambda v: [f"{n} *= {v.text}"])


def _xor(names, rng, g, first, subject):
    n = names.fresh("checksum")
    return Acc("xor", n, [f"{n} = 0"], ("num", "count", "byte", "number", "index"), "num", n,
               _update=lambda v: [f"{n} ^= {v.text}"])


def _mask(names, rng, g, first, subject):
    n = names.fresh("mask")
    return Acc("mask", n, [f"{n} = 0"], ("count", "index"), "num", n, _update=lambda v: [f"{n} |= 1 << {v.atom}"])


def _mask_and(names, rng, g, first, subject):
    n = names.fresh("common_bits")
    return Acc("mask_and", n, [f"{n} = -1"], ("num", "count", "byte", "number"), "num", n,
               _update=lambda v: [f"{n} &= {v.text}"])


def _mean(names, rng, g, first, subject):
    n = names.fresh("average")
    c = names.fresh(rng.choice(("count", "seen")))
    acc = Acc("mean", n, [f"{n} = 0.0", f"{c} = 0"], _NUMERIC, "amount", n,
              _update=lambda v: [f"{n} += {v.text}", f"{c} += 1"])
    acc.finish = [Stmt(f"if {c}:", [f"{n} /= {c}"])]
    return acc


def _collect(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("result", "kept", "out", "found")))
    return Acc("collect", n, [f"{n} = []"], _HASHABLE + ("blob", "pair"), _list_of(g), n,
               _update=lambda v: [f"{n}.append({v.text})"], _other=lambda v: [f"{n}.append({v.text})"])


def _collect_front(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("result", "backwards")))
    return Acc("collect_front", n, [f"{n} = []"], _HASHABLE, _list_of(g), n,
               _update=lambda v: [f"{n}.insert(0, {v.text})"], _other=lambda v: [f"{n}.append({v.text})"])


def _collect_sorted(names, rng, g, first, subject):
    acc = _collect(names, rng, g, first, subject)
    acc.kind = "collect_sorted"
    acc.finish = [f"{acc.name}.sort(reverse=True)" if rng.random() < 0.3 else f"{acc.name}.sort()"]
    return acc


def _collect_reversed(names, rng, g, first, subject):
    acc = _collect(names, rng, g, first, subject)
    acc.kind = "collect_reversed"
    acc.finish = [f"{acc.name}.reverse()"]
    return acc


def _extend(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("flat", "pieces", "result")))

    def update(v):
        if v.grain in ("text", "line"):  # the words of each line, one flat list
            return [f"{n}.extend({v.atom}.split())"]
        return [f"{n}.extend({v.text})"]  # a word extends the list with its letters
    return Acc("extend", n, [f"{n} = []"], ("words", "nums", "blobs", "text", "line", "word"), "words", n,
               _update=update)


def _chunks(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("chunks", "batches", "groups")))
    cur = names.fresh(rng.choice(("chunk", "batch", "current")))
    size = rng.choice((2, 3))

    def update(v):
        return [f"{cur}.append({v.text})",
                Stmt(f"if len({cur}) == {size}:", [f"{n}.append({cur}.copy())", f"{cur}.clear()"])]
    acc = Acc("chunks", n, [f"{n} = []", f"{cur} = []"], _HASHABLE, "groups", n, _update=update)
    acc.finish = [Stmt(f"if {cur}:", [f"{n}.append({cur})"])]
    return acc


def _recent(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("recent", "window", "last")))
    k = rng.choice((2, 3))
    trim = rng.choice((f"del {n}[:-{k}]", f"{n}[:] = {n}[-{k}:]", Stmt(f"if len({n}) > {k}:", [f"del {n}[0]"])))
    return Acc("recent", n, [f"{n} = []"], _HASHABLE, _list_of(g), n,
               _update=lambda v: [f"{n}.append({v.text})", trim])


def _chunks_set(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("runs", "segments")))
    seen = names.fresh("seen")

    def update(v):  # segments of distinct items: a repeat starts a new one
        bind = []
        if not v.text.isidentifier():
            key = names.fresh("key")
            bind, v = [f"{key} = {v.text}"], Val.of(key, v.grain)
        return bind + [Stmt(f"if {v.text} in {seen}:", [f"{n} += 1", f"{seen}.clear()"]), f"{seen}.add({v.text})"]
    return Acc("chunks_set", n, [f"{n} = 1", f"{seen} = set()"], _HASHABLE, "count", n, _update=update)


def _build(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("out", "result", "built")))
    return Acc("build", n, [f"{n} = ''"], ("word", "char", "text", "numstr"), "word", n,
               _update=lambda v: [f"{n} += {v.text}"], _other=lambda v: [f"{n} += {v.text}"])


def _join(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("parts", "pieces")))
    sep = rng.choice(("' '", "'-'", "','", "''", "'/'"))
    return Acc("join", n, [f"{n} = []"], ("word", "char", "text", "numstr"), "word", f"{sep}.join({n})",
               _update=lambda v: [f"{n}.append({v.text})"], _other=lambda v: [f"{n}.append({v.text})"])


def _variant(acc: Acc, kind: str, template: str) -> Acc:
    """``acc`` as another kind whose update is ``template`` over its name ``{n}`` and the value ``{v}``."""
    acc.kind, acc._update = kind, (lambda v: [template.format(n=acc.name, v=v.text)])
    return acc


def _join_repr(names, rng, g, first, subject):
    return _variant(_join(names, rng, g, first, subject), "join_repr", "{n}.append(repr({v}))")


def _tally(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("counts", "freq", "tally")))
    return Acc("tally", n, [f"{n} = {{}}"], _HASHABLE, "table", n,
               _update=lambda v: [f"{n}[{v.text}] = {n}.get({v.text}, 0) + 1"])


def _index(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("index", "positions", "last_seen")))
    return Acc("index", n, [f"{n} = {{}}"], _HASHABLE, "table", n,
               _update=lambda v, k: [f"{n}.update({{{k.text}: {v.text}}})"])


def _group(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("groups", "buckets", "by_key")))
    return Acc("group", n, [f"{n} = {{}}"], _HASHABLE, "groups", n,
               _update=lambda v, k: [f"{n}.setdefault({k.text}, []).append({v.text})"])


def _best(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("best", "largest", "peak")))
    if rng.random() < 0.5:
        return Acc("best", n, [f"{n} = 0"], ("num", "count", "index", "byte", "number"), "num", n,
                   _update=lambda v: [f"{n} = max({n}, {v.text})"])
    return Acc("best", n, [f"{n} = 0"], ("num", "count", "index", "byte", "number"), "num", n,
               _update=lambda v: [Stmt(f"if {v.text} > {n}:", [f"{n} = {v.text}"])])


def _worst(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("lowest", "smallest")))
    return Acc("worst", n, [f"{n} = 100"], ("num", "count", "index", "byte", "number"), "num", n,
               _update=lambda v: [f"{n} = min({n}, {v.text})"])


def _best_none(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("best", "peak")))
    op = rng.choice(("is", "is not"))
    if op == "is":
        def update(v):
            return [Stmt(f"if {n} is None or {v.text} > {n}:", [f"{n} = {v.text}"])]
    else:
        def update(v):
            return [Stmt(f"if {n} is not None and {v.text} >= {n}:", [f"{n} = {v.text}"]),
                    Stmt(f"if {n} is None:", [f"{n} = {v.text}"])]
    return Acc("best_none", n, [f"{n} = None"], ("num", "count", "index", "byte", "number", "word"), "num", n,
               _update=update)


def _longest(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("longest", "best")))
    return Acc("longest", n, [f"{n} = ''"], ("word", "text", "line", "numstr"), "word", n,
               _update=lambda v: [Stmt(f"if len({v.text}) > len({n}):", [f"{n} = {v.text}"])])


def _seen(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("seen", "unique", "distinct")))
    ret = f"sorted({n})" if rng.random() < 0.7 else f"len({n})"
    return Acc("seen", n, [f"{n} = set()"], _HASHABLE, "words" if g in _TEXT else "nums", ret,
               _update=lambda v: [f"{n}.add({v.text})"])


def _seen_many(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("seen", "letters", "unique")))
    return Acc("seen_many", n, [f"{n} = set()"], ("word", "text", "words", "nums", "line"), "words", f"sorted({n})",
               _update=lambda v: [f"{n}.update({v.text})"])


def _odd_seen(names, rng, g, first, subject):
    n = names.fresh("odd")
    return Acc("odd_seen", n, [f"{n} = set()"], ("num", "count", "byte", "index", "word", "char"), "nums",
               f"sorted({n})", _update=lambda v: [f"{n}.symmetric_difference_update({{{v.text}}})"])


def _dedupe(names, rng, g, first, subject):
    seen = names.fresh("seen")
    n = names.fresh(rng.choice(("result", "unique", "ordered")))

    def update(v):
        return [Stmt(f"if {v.text} not in {seen}:", [f"{seen}.add({v.text})", f"{n}.append({v.text})"])]
    return Acc("dedupe", n, [f"{seen} = set()", f"{n} = []"], _HASHABLE, _list_of(g), n, _update=update)


def _first(names, rng, g, first, subject):
    default = {"num": "-1", "count": "-1", "index": "-1", "byte": "-1", "number": "-1", "amount": "0.0"}.get(g, "''")
    return Acc("first", "", [], _HASHABLE + ("blob",), g, "", early=True, default=default,
               _update=lambda v: _returns(names, v), _other=lambda v: [f"return {default}"])


def _index_of(names, rng, g, first, subject):
    return Acc("index_of", "", [], ("index",), "index", "", early=True, default="-1",
               _update=lambda v: [f"return {v.text}"])


def _any(names, rng, g, first, subject):
    return Acc("any", "", [], (), "flag", "", early=True, default="False", _update=lambda v: ["return True"],
               _other=lambda v: ["return False"])


def _returns(names, v: Val) -> list:
    """``return v``, or ``name = v`` / ``return name`` when ``v`` is a builtin around a builtin's result."""
    if builtin_chain(v.text) >= 2:
        n = names.fresh("result")
        return [f"{n} = {v.text}", f"return {n}"]
    return [f"return {v.text}"]


def _choose(names, rng, g, first, subject):
    """No loop: each branch returns its own value of the input, the last line another."""
    return Acc("choose", "", [], _HASHABLE + ("blob", "words", "nums"), g, "", early=True,
               default=subject.text if subject is not None else "None",
               _update=lambda v: _returns(names, v), _other=lambda v: _returns(names, v))


def _partition(names, rng, g, first, subject):
    a = names.fresh(rng.choice(("kept", "matched", "hits")))
    b = names.fresh(rng.choice(("rest", "others", "misses")))
    joined = rng.choices(("", "[*{a}, *{b}]", "(*{a}, *{b})"), (6, 3, 1))[0]  # the matches first, then the rest
    return Acc("partition", a, [f"{a}, {b} = [], []"], _HASHABLE, _list_of(g) if joined else "pairs",
               joined.format(a=a, b=b) if joined else f"({a}, {b})",
               _update=lambda v: [f"{a}.append({v.text})"], _other=lambda v: [f"{b}.append({v.text})"])


def _common(names, rng, g, first, subject):
    n = names.fresh("common")
    return Acc("common", n, [f"{n} = set({first})"], ("word", "text", "line", "words", "nums"), "words",
               f"sorted({n})", _update=lambda v: [f"{n}.intersection_update({v.text})"])


def _common_op(names, rng, g, first, subject):
    return _variant(_common(names, rng, g, first, subject), "common_op", "{n} &= set({v})")


def _letters(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("letters", "seen", "used")))
    return Acc("letters", n, [f"{n} = set()"], ("word", "text", "line"), "words", f"sorted({n})",
               _update=lambda v: [f"{n} |= set({v.text})"])


def _remaining(names, rng, g, first, subject):
    n = names.fresh("remaining")
    return Acc("remaining", n, [f"{n} = set({subject.text})"], _HASHABLE, subject.grain, f"sorted({n})",
               _update=lambda v: [f"{n}.discard({v.text})"])


def _remaining_checked(names, rng, g, first, subject):
    n = names.fresh("remaining")

    def update(v):
        return [Stmt(f"if {v.text} in {n}:", [f"{n}.remove({v.text})"])]
    return Acc("remaining_checked", n, [f"{n} = set({subject.text})"], _HASHABLE, subject.grain, f"sorted({n})",
               _update=update)


def _remaining_many(names, rng, g, first, subject):
    n = names.fresh("remaining")
    return Acc("remaining_many", n, [f"{n} = set({subject.text})"], ("word", "text", "line", "words", "nums"),
               subject.grain, f"sorted({n})", _update=lambda v: [f"{n}.difference_update({v.text})"])


def _remaining_list(names, rng, g, first, subject):
    n = names.fresh("remaining")

    def update(v):
        return [Stmt(f"if {v.text} in {n}:", [f"{n}.remove({v.text})"])]
    return Acc("remaining_list", n, [f"{n} = list({subject.text})"], _HASHABLE, subject.grain, n, _update=update)


def _remaining_dict(names, rng, g, first, subject):
    n = names.fresh("remaining")
    return Acc("remaining_dict", n, [f"{n} = dict({subject.text})"], _HASHABLE, subject.grain, n,
               _update=lambda v: [f"{n}.pop({v.text}, None)"])


def _remaining_del(names, rng, g, first, subject):
    n = names.fresh("remaining")

    def update(v):
        return [Stmt(f"if {v.text} in {n}:", [f"del {n}[{v.text}]"])]
    return Acc("remaining_del", n, [f"{n} = dict({subject.text})"], _HASHABLE, subject.grain, n, _update=update)


BUILDERS = {
    "count": _count, "total": _total, "total_signed": _total_signed, "total_mod": _total_mod, "product": _product,
    "xor": _xor, "mask": _mask, "mask_and": _mask_and, "mean": _mean, "collect": _collect,
    "collect_front": _collect_front, "collect_sorted": _collect_sorted, "collect_reversed": _collect_reversed,
    "extend": _extend, "build": _build, "join": _join, "join_repr": _join_repr, "tally": _tally, "index": _index,
    "group": _group, "best": _best, "worst": _worst, "best_none": _best_none, "longest": _longest, "seen": _seen,
    "seen_many": _seen_many, "odd_seen": _odd_seen, "dedupe": _dedupe, "first": _first, "index_of": _index_of,
    "any": _any, "choose": _choose, "partition": _partition, "common": _common, "remaining": _remaining,
    "remaining_checked": _remaining_checked, "remaining_many": _remaining_many, "remaining_list": _remaining_list,
    "remaining_dict": _remaining_dict, "remaining_del": _remaining_del, "chunks": _chunks, "chunks_set": _chunks_set,
    "common_op": _common_op, "letters": _letters, "recent": _recent,
}
