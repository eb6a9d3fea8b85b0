"""What a generated computation builds: the accumulators of the shapes people write.

An :class:`Acc` is the state a loop fills and the function returns: a count, a total, a list of
kept or mapped items, a string being built, a tally or grouping by key, the best item so far,
the first match (an early return), the items seen once, categories of an ``if``/``elif``
chain... Each kind says how it starts (``init``), how the innermost block updates it with the
current value (``update``), what an ``else``/``elif`` arm does instead (``other``), what the
function returns, and how that function is named and annotated. Mutating methods and augmented
assignments that a spec targets are accumulator updates (``list.append``, ``set.add``,
``dict.setdefault``, ``op.iadd``...), listed in :data:`KINDS_FOR_TARGET`.

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
from execverify_data.synth.vocab import annotation

__all__ = ["BUILDERS", "Acc", "KINDS_FOR_TARGET", "make"]

_INTS = ("num", "count", "index", "byte", "number")
_NUMERIC = _INTS + ("amount",)
_TEXT = ("word", "char", "text", "line", "numstr", "digits")
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

    def function_name(self, stem: str) -> str:
        """The name of a function computing this accumulator over an input named ``stem`` (``count_words``)."""
        return f"{_VERBS.get(self.kind, 'remaining')}_{stem}"

    def return_annotation(self, value_grain: str | None = None, result_grain: str | None = None) -> str:
        """The return annotation: from the kind and the grain of the values it was given, or the grain of
        what the return statement makes of the accumulator (``return set(kept)``)."""
        if result_grain is not None:
            return annotation(result_grain)
        # a total started at 0.0 (made for amounts) stays a float whatever it is given
        number = "float" if value_grain == "amount" or f"{self.name} = 0.0" in self.init else "int"
        base = _ANNOTATIONS.get(self.kind)
        if base == "number":
            base = number
        elif base == "number | None":  # a best that starts as None stays None when nothing is better
            base = ("str" if value_grain in _TEXT else number) + " | None"
        elif self.kind == "partition":
            base = {"[": "list", "(": "tuple"}.get(self.returns[0]) if "*" in self.returns else "tuple[list, list]"
        if base is None:
            if self.early:
                return annotation(value_grain or self.gives)
            return "int" if self.returns.startswith(("len(", "sum(")) else "list"
        return base


#: the verb of a function's name, by the kind of what it computes
_VERBS = {"count": "count", "total": "sum", "total_signed": "net", "total_mod": "checksum", "product": "product_of",
          "xor": "xor_of", "mask": "mask_of", "mask_and": "common_bits", "collect": "collect",
          "collect_front": "reverse", "collect_sorted": "sorted", "collect_reversed": "reversed", "extend": "flatten",
          "build": "build", "join": "join", "join_repr": "quote", "tally": "tally", "index": "index",
          "group": "group", "best": "max", "worst": "min", "best_none": "best", "longest": "longest",
          "seen": "unique", "seen_many": "letters_in", "odd_seen": "odd", "dedupe": "dedupe", "first": "first",
          "index_of": "find", "any": "has", "partition": "split", "common": "common", "choose": "pick",
          "chunks": "chunk", "chunks_set": "segments_of", "recent": "last_of", "letters": "letters_in",
          "common_op": "common", "mean": "mean_of"}
#: the return annotation by kind ("number": int, or float for amounts; none here: from what it returns)
_ANNOTATIONS = {"count": "int", "total": "number", "total_signed": "number", "total_mod": "int", "product": "int",
                "xor": "int", "mask": "int", "mask_and": "int", "mean": "float", "chunks": "list[list]",
                "chunks_set": "int", "letters": "list[str]", "common_op": "list[str]", "build": "str", "join": "str",
                "join_repr": "str", "tally": "dict", "index": "dict", "group": "dict", "best": "number",
                "worst": "number", "best_none": "number | None", "longest": "str", "any": "bool"}


def _list_of(grain: str) -> str:
    return {"num": "nums", "count": "nums", "index": "nums", "byte": "nums", "number": "nums", "word": "words",
            "char": "words", "text": "words", "line": "words", "numstr": "numstrs", "digits": "words"}.get(grain, "words")


#: targets that are accumulator updates -> the kinds that use them
KINDS_FOR_TARGET: dict[str, tuple[str, ...]] = {
    "list.append": ("collect", "partition", "group", "dedupe", "join", "recent"), "list.insert": ("collect_front",),
    "list.extend": ("extend",), "list.sort": ("collect_sorted",), "list.reverse": ("collect_reversed",),
    "list.remove": ("remaining_list",), "list.pop": ("stack",), "list.clear": ("chunks",),
    "list.copy": ("remaining_list", "chunks"),
    "set.add": ("seen", "dedupe"), "set.update": ("seen_many",), "set.discard": ("remaining",),
    "set.remove": ("remaining_checked",), "set.intersection_update": ("common",),
    "set.difference_update": ("remaining_many",), "set.symmetric_difference_update": ("odd_seen",),
    "set.pop": ("pool",), "set.clear": ("chunks_set",), "set.copy": ("remaining", "remaining_checked"),
    "dict.setdefault": ("group",), "dict.copy": ("remaining_dict", "remaining_del"), "dict.update": ("index",),
    "dict.pop": ("remaining_dict",), "dict.popitem": ("drain",), "dict.clear": ("chunks_dict",),
    "op.setitem": ("tally", "index"), "op.delitem": ("remaining_del",), "op.iadd": ("total", "count", "build"),
    "op.isub": ("total_signed",), "op.imul": ("product",), "op.ixor": ("xor",), "op.ior": ("mask", "letters"),
    "op.iand": ("mask_and", "common_op"), "op.imod": ("total_mod",), "op.ifloordiv": ("digits_loop",),
    "op.itruediv": ("mean",), "op.is": ("best_none",), "op.is_not": ("best_none",), "builtin.repr": ("join_repr",),
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



def _acc(kind: str, n: str, init, needs: tuple[str, ...], gives: str, update, other=None, *, returns: str = "",
         **more) -> Acc:
    """An :class:`Acc` named ``n``, which it returns unless ``returns`` says otherwise. ``init`` is a statement,
    or a tuple of them, over the name ``{n}``; ``update`` and ``other`` the same over ``{n}``, the value ``{v}``
    and its key ``{k}`` (see :func:`_writer`)."""
    init = [t.format(n=n) for t in ((init,) if isinstance(init, str) else init)]
    return Acc(kind, n, init, needs, gives, returns or n, _update=_writer(n, update), _other=_writer(n, other), **more)


def _writer(n: str, templates):
    """The update that writes ``templates`` (a statement or a tuple of them over ``{n}``, ``{v}``, ``{k}``) for
    a value and its key; ``templates`` itself when it is already a function of the value (or None)."""
    if templates is None or callable(templates):
        return templates
    templates = (templates,) if isinstance(templates, str) else templates

    def write(v: Val | None, k: Val | None = None) -> list:
        return [t.format(n=n, v="" if v is None else v.text, k="" if k is None else k.text) for t in templates]
    return write


def _variant(acc: Acc, kind: str, update: str, other: str | None = None) -> Acc:
    """``acc`` as another kind whose update (and other arm, when given) are other templates."""
    acc.kind, acc._update = kind, _writer(acc.name, update)
    if other is not None:
        acc._other = _writer(acc.name, other)
    return acc


def _count(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("count", "matches", "hits")))
    return _acc("count", n, "{n} = 0", (), "count", "{n} += 1", lambda v: [f"{n} -= 1"] if rng.random() < 0.3 else None)


def _total(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("total", "score", "acc")))
    return _acc("total", n, "{n} = 0.0" if g == "amount" else "{n} = 0", _NUMERIC, "num", "{n} += {v}", "{n} -= {v}")


def _total_signed(names, rng, g, first, subject):
    return _variant(_total(names, rng, g, first, subject), "total_signed", "{n} -= {v}", "{n} += {v}")


def _total_mod(names, rng, g, first, subject):
    n = names.fresh("checksum")
    return _acc("total_mod", n, "{n} = 0", _INTS, "count", ("{n} += {v}", f"{{n}} %= {rng.choice((7, 97, 101, 1000))}"))


def _product(names, rng, g, first, subject):
    return _acc("product", names.fresh("product"), "{n} = 1", ("num", "count", "index", "number"), "num", "{n} *= {v}")


def _xor(names, rng, g, first, subject):
    return _acc("xor", names.fresh("checksum"), "{n} = 0", _INTS, "num", "{n} ^= {v}")


def _mask(names, rng, g, first, subject):
    n = names.fresh("mask")
    return _acc("mask", n, "{n} = 0", ("count", "index"), "num", lambda v: [f"{n} |= 1 << {v.atom}"])


def _mask_and(names, rng, g, first, subject):
    return _acc("mask_and", names.fresh("common_bits"), "{n} = -1", ("num", "count", "byte", "number"), "num",
                "{n} &= {v}")


def _mean(names, rng, g, first, subject):
    n, c = names.fresh("average"), names.fresh(rng.choice(("count", "seen")))
    return _acc("mean", n, ("{n} = 0.0", f"{c} = 0"), _NUMERIC, "amount", ("{n} += {v}", f"{c} += 1"),
                finish=[Stmt(f"if {c}:", [f"{n} /= {c}"])])


def _collect(names, rng, g, first, subject):
    return _acc("collect", names.fresh(rng.choice(("result", "kept", "out", "found"))), "{n} = []",
                _HASHABLE + ("blob", "pair"), _list_of(g), "{n}.append({v})", "{n}.append({v})")


def _collect_front(names, rng, g, first, subject):
    return _acc("collect_front", names.fresh(rng.choice(("result", "backwards"))), "{n} = []", _HASHABLE, _list_of(g),
                "{n}.insert(0, {v})", "{n}.append({v})")


def _collect_sorted(names, rng, g, first, subject):
    acc = _collect(names, rng, g, first, subject)
    acc.kind = "collect_sorted"
    acc.finish = [f"{acc.name}.sort(reverse=True)" if rng.random() < 0.3 else f"{acc.name}.sort()"]
    return acc


def _collect_reversed(names, rng, g, first, subject):
    acc = _collect(names, rng, g, first, subject)
    acc.kind, acc.finish = "collect_reversed", [f"{acc.name}.reverse()"]
    return acc


def _extend(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("flat", "pieces", "result")))

    def update(v):
        if v.grain in ("text", "line"):  # the words of each line, one flat list
            return [f"{n}.extend({v.atom}.split())"]
        return [f"{n}.extend({v.text})"]  # a word extends the list with its letters
    return _acc("extend", n, "{n} = []", ("words", "nums", "blobs", "text", "line", "word"), "words", update)


def _chunks(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("chunks", "batches", "groups")))
    cur = names.fresh(rng.choice(("chunk", "batch", "current")))
    size = rng.choice((2, 3))

    def update(v):
        return [f"{cur}.append({v.text})",
                Stmt(f"if len({cur}) == {size}:", [f"{n}.append({cur}.copy())", f"{cur}.clear()"])]
    return _acc("chunks", n, ("{n} = []", f"{cur} = []"), _HASHABLE, "groups", update,
                finish=[Stmt(f"if {cur}:", [f"{n}.append({cur})"])])


def _recent(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("recent", "window", "last")))
    k = rng.choice((2, 3))
    trim = rng.choice((f"del {n}[:-{k}]", f"{n}[:] = {n}[-{k}:]", Stmt(f"if len({n}) > {k}:", [f"del {n}[0]"])))
    return _acc("recent", n, "{n} = []", _HASHABLE, _list_of(g), lambda v: [f"{n}.append({v.text})", trim])


def _chunks_set(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("runs", "segments")))
    seen = names.fresh("seen")

    def update(v):  # segments of distinct items: a repeat starts a new one
        bind = []
        if not v.text.isidentifier():
            key = names.fresh("key")
            bind, v = [f"{key} = {v.text}"], Val.of(key, v.grain)
        return bind + [Stmt(f"if {v.text} in {seen}:", [f"{n} += 1", f"{seen}.clear()"]), f"{seen}.add({v.text})"]
    return _acc("chunks_set", n, ("{n} = 1", f"{seen} = set()"), _HASHABLE, "count", update)


def _build(names, rng, g, first, subject):
    return _acc("build", names.fresh(rng.choice(("out", "result", "built"))), "{n} = ''",
                ("word", "char", "text", "numstr"), "word", "{n} += {v}", "{n} += {v}")


def _join(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("parts", "pieces")))
    sep = rng.choice(("' '", "'-'", "','", "''", "'/'"))
    return _acc("join", n, "{n} = []", ("word", "char", "text", "numstr"), "word", "{n}.append({v})", "{n}.append({v})",
                returns=f"{sep}.join({n})")


def _join_repr(names, rng, g, first, subject):
    return _variant(_join(names, rng, g, first, subject), "join_repr", "{n}.append(repr({v}))")


def _tally(names, rng, g, first, subject):
    return _acc("tally", names.fresh(rng.choice(("counts", "freq", "tally"))), "{n} = {{}}", _HASHABLE, "table",
                "{n}[{v}] = {n}.get({v}, 0) + 1")


def _index(names, rng, g, first, subject):
    return _acc("index", names.fresh(rng.choice(("index", "positions", "last_seen"))), "{n} = {{}}", _HASHABLE, "table",
                "{n}.update({{{k}: {v}}})")


def _group(names, rng, g, first, subject):
    return _acc("group", names.fresh(rng.choice(("groups", "buckets", "by_key"))), "{n} = {{}}", _HASHABLE, "groups",
                "{n}.setdefault({k}, []).append({v})")


def _best(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("best", "largest", "peak")))
    if rng.random() < 0.5:
        return _acc("best", n, "{n} = 0", _INTS, "num", "{n} = max({n}, {v})")
    return _acc("best", n, "{n} = 0", _INTS, "num", lambda v: [Stmt(f"if {v.text} > {n}:", [f"{n} = {v.text}"])])


def _worst(names, rng, g, first, subject):
    return _acc("worst", names.fresh(rng.choice(("lowest", "smallest"))), "{n} = 100", _INTS, "num",
                "{n} = min({n}, {v})")


def _best_none(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("best", "peak")))
    if rng.choice(("is", "is not")) == "is":
        def update(v):
            return [Stmt(f"if {n} is None or {v.text} > {n}:", [f"{n} = {v.text}"])]
    else:
        def update(v):
            return [Stmt(f"if {n} is not None and {v.text} >= {n}:", [f"{n} = {v.text}"]),
                    Stmt(f"if {n} is None:", [f"{n} = {v.text}"])]
    return _acc("best_none", n, "{n} = None", _INTS + ("word",), "num", update)


def _longest(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("longest", "best")))
    return _acc("longest", n, "{n} = ''", ("word", "text", "line", "numstr"), "word",
                lambda v: [Stmt(f"if len({v.text}) > len({n}):", [f"{n} = {v.text}"])])


def _seen(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("seen", "unique", "distinct")))
    return _acc("seen", n, "{n} = set()", _HASHABLE, "words" if g in _TEXT else "nums", "{n}.add({v})",
                returns=f"sorted({n})" if rng.random() < 0.7 else f"len({n})")


def _seen_many(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("seen", "letters", "unique")))
    return _acc("seen_many", n, "{n} = set()", ("word", "text", "words", "nums", "line"), "words", "{n}.update({v})",
                returns=f"sorted({n})")


def _odd_seen(names, rng, g, first, subject):
    n = names.fresh("odd")
    return _acc("odd_seen", n, "{n} = set()", ("num", "count", "byte", "index", "word", "char"), "nums",
                "{n}.symmetric_difference_update({{{v}}})", returns=f"sorted({n})")


def _dedupe(names, rng, g, first, subject):
    seen = names.fresh("seen")
    n = names.fresh(rng.choice(("result", "unique", "ordered")))
    return _acc("dedupe", n, (f"{seen} = set()", "{n} = []"), _HASHABLE, _list_of(g),
                lambda v: [Stmt(f"if {v.text} not in {seen}:", [f"{seen}.add({v.text})", f"{n}.append({v.text})"])])


def _first(names, rng, g, first, subject):
    default = {"num": "-1", "count": "-1", "index": "-1", "byte": "-1", "number": "-1", "amount": "0.0"}.get(g, "''")
    return _acc("first", "", (), _HASHABLE + ("blob",), g, lambda v: _returns(names, v), f"return {default}",
                early=True)


def _index_of(names, rng, g, first, subject):
    return _acc("index_of", "", (), ("index",), "index", "return {v}", early=True)


def _any(names, rng, g, first, subject):
    return _acc("any", "", (), (), "flag", "return True", "return False", early=True)


def _returns(names, v: Val) -> list:
    """``return v``, or ``name = v`` / ``return name`` when ``v`` is a builtin around a builtin's result."""
    if builtin_chain(v.text) >= 2:
        n = names.fresh("result")
        return [f"{n} = {v.text}", f"return {n}"]
    return [f"return {v.text}"]


def _choose(names, rng, g, first, subject):
    """No loop: each branch returns its own value of the input, the last line another."""
    return _acc("choose", "", (), _HASHABLE + ("blob", "words", "nums"), g, lambda v: _returns(names, v),
                lambda v: _returns(names, v), early=True)


def _partition(names, rng, g, first, subject):
    a = names.fresh(rng.choice(("kept", "matched", "hits")))
    b = names.fresh(rng.choice(("rest", "others", "misses")))
    joined = rng.choices(("", "[*{a}, *{b}]", "(*{a}, *{b})"), (6, 3, 1))[0]  # the matches first, then the rest
    return _acc("partition", a, f"{{n}}, {b} = [], []", _HASHABLE, _list_of(g) if joined else "pairs",
                "{n}.append({v})", f"{b}.append({{v}})", returns=joined.format(a=a, b=b) if joined else f"({a}, {b})")


def _common(names, rng, g, first, subject):
    n = names.fresh("common")
    return _acc("common", n, f"{{n}} = set({first})", ("word", "text", "line", "words", "nums"), "words",
                "{n}.intersection_update({v})", returns=f"sorted({n})")


def _common_op(names, rng, g, first, subject):
    return _variant(_common(names, rng, g, first, subject), "common_op", "{n} &= set({v})")


def _letters(names, rng, g, first, subject):
    n = names.fresh(rng.choice(("letters", "seen", "used")))
    return _acc("letters", n, "{n} = set()", ("word", "text", "line"), "words", "{n} |= set({v})",
                returns=f"sorted({n})")


def _remaining(kind: str, start: str, needs: tuple[str, ...], action: str, *, checked: bool = False):
    """The builder of a kind that starts from a copy of its input (``start``: ``set``, ``list`` or ``dict``) and
    takes the values out of it with ``action`` (a template over ``{n}`` and ``{v}``), under ``if {v} in {n}:``
    when ``checked``. A set is returned sorted."""
    def build(names, rng, g, first, subject):
        n = names.fresh("remaining")
        update = action
        if checked:
            def update(v):
                return [Stmt(f"if {v.text} in {n}:", [action.format(n=n, v=v.text)])]
        return _acc(kind, n, f"{{n}} = {start}({subject.text})", needs, subject.grain, update,
                    returns=f"sorted({n})" if start == "set" else "")
    return build


BUILDERS = {
    "count": _count, "total": _total, "total_signed": _total_signed, "total_mod": _total_mod, "product": _product,
    "xor": _xor, "mask": _mask, "mask_and": _mask_and, "mean": _mean, "collect": _collect,
    "collect_front": _collect_front, "collect_sorted": _collect_sorted, "collect_reversed": _collect_reversed,
    "extend": _extend, "build": _build, "join": _join, "join_repr": _join_repr, "tally": _tally, "index": _index,
    "group": _group, "best": _best, "worst": _worst, "best_none": _best_none, "longest": _longest, "seen": _seen,
    "seen_many": _seen_many, "odd_seen": _odd_seen, "dedupe": _dedupe, "first": _first, "index_of": _index_of,
    "any": _any, "choose": _choose, "partition": _partition, "common": _common, "chunks": _chunks,
    "chunks_set": _chunks_set, "common_op": _common_op, "letters": _letters, "recent": _recent,
    "remaining": _remaining("remaining", "set", _HASHABLE, "{n}.discard({v})"),
    "remaining_checked": _remaining("remaining_checked", "set", _HASHABLE, "{n}.remove({v})", checked=True),
    "remaining_many": _remaining("remaining_many", "set", ("word", "text", "line", "words", "nums"),
                                 "{n}.difference_update({v})"),
    "remaining_list": _remaining("remaining_list", "list", _HASHABLE, "{n}.remove({v})", checked=True),
    "remaining_dict": _remaining("remaining_dict", "dict", _HASHABLE, "{n}.pop({v}, None)"),
    "remaining_del": _remaining("remaining_del", "dict", _HASHABLE, "del {n}[{v}]", checked=True),
}
