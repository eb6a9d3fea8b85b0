"""The catalog checked against the running interpreter.

1. Every public method of the ten types is catalogued or excluded with a reason,
   and every catalogued method / builtin exists (respecting ``since``).
2. Every signature is called on sample values of its declared types: each call whose
   preconditions hold must succeed and return the declared type, and ``mutates``
   must be true iff some call changed the receiver (first operand for operators).
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import io
import itertools
import sys

import pytest

from execverify_data import catalog
from execverify_data.catalog import typelang
from execverify_data.catalog.entry import Entry, Signature
from execverify_data.catalog.preconditions import holds
from execverify_data.errors import InvalidArgument

VERSION = sys.version_info[:2]
CURRENT = [e for e in catalog.ENTRIES if e.available(VERSION)]


# --- 1. interpreter cross-check ---------------------------------------------------


def _owner(cls: type, name: str) -> str:
    return next(k for k in cls.__mro__ if name in vars(k)).__name__


@pytest.mark.parametrize("type_name", catalog.TYPES)
def test_every_public_method_is_catalogued_or_excluded(type_name):
    cls = getattr(builtins, type_name)
    missing = []
    for name in sorted(n for n in dir(cls) if not n.startswith("_")):
        entry_id = f"{_owner(cls, name)}.{name}"
        known = entry_id in catalog.EXCLUDED or any(e.id == entry_id for e in CURRENT)
        if not known:
            missing.append(entry_id)
    assert not missing, f"not in the catalog nor in EXCLUDED: {missing}"


def test_catalogued_names_exist_in_this_interpreter():
    for entry in catalog.ENTRIES:
        if entry.kind == "method":
            present = entry.name in vars(getattr(builtins, entry.receiver))
            assert present == entry.available(VERSION), (entry.id, entry.since)
        elif entry.kind == "function":
            assert callable(getattr(builtins, entry.name)), entry.id
    for entry_id, reason in catalog.EXCLUDED.items():
        type_name, name = entry_id.split(".")
        assert name in vars(getattr(builtins, type_name)) and reason, entry_id


def test_ids_kinds_and_types_are_well_formed():
    for entry in catalog.ENTRIES:
        prefix = {"method": entry.receiver, "function": "builtin", "operator": "op"}[entry.kind]
        assert entry.id == f"{prefix}.{entry.name}"
        assert entry.signatures
        for s in entry.signatures:
            for text in (s.returns, s.receiver, *(p.type for p in s.params)):
                if text is not None:
                    typelang.parse(text)
        if entry.kind == "operator":
            names = {p.name for s in entry.signatures for p in s.params}
            holes = {n for n in names if "{" + n + "}" in entry.template}
            assert holes == names, entry.id


def test_lookup_errors_are_helpful():
    with pytest.raises(InvalidArgument, match="did you mean.*list.pop"):
        catalog.get("list.popp")
    with pytest.raises(InvalidArgument, match="kind must be one of"):
        catalog.entries(kind="methods")


@pytest.mark.parametrize(
    "pre, bound, expected",
    [
        ("nonempty(self)", {"self": []}, False),
        ("nonempty(self)", {"self": iter([1])}, False),  # cannot be known without consuming
        ("valid_index(self, index)", {"self": [1]}, True),  # index omitted: list.pop()
        ("valid_index(self, index)", {"self": [1], "index": -2}, False),
        ("contains(self, key) unless default", {"self": {}, "key": "k"}, False),
        ("contains(self, key) unless default", {"self": {}, "key": "k", "default": 0}, True),
        ("found(self, sub, start, end)", {"self": "hello", "sub": "l", "start": 4}, False),
        ("found(self, sub, start, end)", {"self": "hello", "sub": "", "start": 1, "end": 0}, False),
        ("found(self, x, start, end)", {"self": [1, 2], "x": 2, "start": 1}, True),
        ("nonempty(sep)", {"self": "a b", "sep": None}, True),  # split(None)
        ("format_args(self, args)", {"self": "{} {}", "args": (1,)}, False),
        ("int_literal(x, base)", {"x": "ff", "base": 16}, True),
    ],
)
def test_preconditions(pre, bound, expected):
    assert holds(pre, bound) is expected


@pytest.mark.parametrize(
    "text, problem",
    [("lst[int]", "unknown type name"), ("list", "needs arguments"), ("dict[str]", "takes 2"), ("int[str]", "takes no")],
)
def test_bad_type_strings(text, problem):
    with pytest.raises(InvalidArgument, match=problem):
        typelang.parse(text)


# --- 2. signatures called on sample values ----------------------------------------

_SCALAR_SAMPLES = {
    "int": [0, 1, -3, 7, 2],
    "float": [1.5, -2.25, 0.0, 3.0],
    "bool": [True, False],
    "str": ["hello", "l", "a,b", ",", "", "Hi There\tx", "{}", "{x}", "utf-8", "12", "-4.5"],
    "bytes": [b"hello", b"l", b"a,b", b",", b""],
    "None": [None],
    "type": [int, str],
    "object": [1, "a", None, [1]],
}
_CALLABLES = {
    ("int", "object"): [abs, str],
    ("str", "object"): [len, str.lower],
    ("int", "str"): [str],
    ("str", "str"): [str.upper],
}
#: Instantiations of the type variables; T runs over both.
_BINDINGS = [
    {"T": typelang.parse(t), "U": typelang.parse("str"), "K": typelang.parse("str"), "V": typelang.parse("int")}
    for t in ("int", "str")
]


def samples(t: typelang.Type) -> list:
    """Sample values of a concrete (substituted) type."""
    name, args = t.name, t.args
    if name in _SCALAR_SAMPLES:
        return list(_SCALAR_SAMPLES[name])
    if name == "|":
        return [v for a in args for v in samples(a)]
    if name == "list":
        xs = samples(args[0])
        return [xs[:3][::-1], [], xs[1:2]]
    if name in ("set", "frozenset"):
        return [getattr(builtins, name)(v) for v in samples(typelang.Type("list", args))]
    if name == "tuple":
        if len(args) == 2 and args[1].name == "...":
            return [tuple(v) for v in samples(typelang.Type("list", args[:1]))] + [("he", "x")] * (args[0].name == "str")
        return [tuple(samples(a)[0] for a in args)]
    if name == "dict":
        ks, vs = samples(args[0]), samples(args[1])
        return [dict(zip(ks[:2], vs[:2])), {}, {ks[2]: vs[2]}]
    if name in ("Iterable", "Sequence", "Collection"):
        lists = samples(typelang.Type("list", args))
        return lists + [tuple(lists[0])]
    if name == "Iterator":
        return [iter(v) for v in samples(typelang.Type("list", args))]
    if name == "Callable":
        return list(_CALLABLES[(args[0].args[0].name, args[1].name)])
    raise AssertionError(f"no samples for {t}")


def _sub(text: str, bindings: dict) -> typelang.Type:
    return typelang.substitute(typelang.parse(text), bindings)


def _patterns(s: Signature):
    """Which parameters to supply: required ones only, then all of them."""
    required = [p for p in s.params if not p.optional and not p.variadic]
    yield required
    if len(required) != len(s.params):
        yield list(s.params)


def _call(entry: Entry, s: Signature, receiver, args: dict):
    if entry.kind == "method":
        positional = [v for p in s.params if p.name in args and not p.keyword for v in
                      (args[p.name] if p.variadic else (args[p.name],))]
        keywords = {p.name: args[p.name] for p in s.params if p.keyword and p.name in args}
        return getattr(receiver, entry.name)(*positional, **keywords)
    if entry.kind == "function":
        positional = [v for p in s.params if p.name in args and not p.keyword for v in
                      (args[p.name] if p.variadic else (args[p.name],))]
        keywords = {p.name: args[p.name] for p in s.params if p.keyword and p.name in args}
        with contextlib.redirect_stdout(io.StringIO()):
            return getattr(builtins, entry.name)(*positional, **keywords)
    env = dict(args)
    code = entry.template.format(**{n: n for n in args})
    if entry.form == "expr":
        return eval(code, {}, env)  # our own template, sample values only
    exec(code, {}, env)
    return env["a"] if s.returns != "None" else None


def _cases():
    for entry in CURRENT:
        for index, s in enumerate(entry.signatures):
            yield pytest.param(entry, s, id=f"{entry.id}#{index}")


@pytest.mark.parametrize("entry, s", list(_cases()))
def test_signature_on_sample_values(entry, s):
    valid_calls = 0
    changed = False
    for bindings in _BINDINGS:
        receivers = samples(_sub(s.receiver, bindings)) if s.receiver else [None]
        for params in _patterns(s):
            domains = []
            for p in params:
                values = samples(_sub(p.type, bindings))
                domains.append([(v,) for v in values[:2]] if p.variadic else values)
            for receiver, combo in itertools.islice(
                itertools.product(receivers, itertools.product(*domains)), 400
            ):
                receiver = copy.deepcopy(receiver)
                args = {p.name: copy.deepcopy(v) for p, v in zip(params, combo)}
                bound = {"self": receiver, **{p.name: () for p in s.params if p.variadic}, **args}
                if not all(holds(pre, bound) for pre in s.preconditions):
                    continue
                target = receiver if entry.kind == "method" else args.get("a")
                before = copy.deepcopy(target)
                try:
                    result = _call(entry, s, receiver, args)
                except Exception as exc:  # noqa: BLE001 - reported with the failing call
                    pytest.fail(f"{entry.id} {s} raised {exc!r} on self={receiver!r} args={args!r}")
                valid_calls += 1
                returns = _sub(s.returns, bindings)
                assert typelang.conforms(result, returns), (entry.id, receiver, args, result)
                if returns.name == "Iterator":
                    assert typelang.conforms(list(result), typelang.Type("list", returns.args)), (entry.id, args)
                if not hasattr(target, "__next__"):  # iterators are consumed, not mutated
                    changed |= target != before
    assert valid_calls, f"no sample call satisfies the preconditions of {entry.id} {s}"
    assert changed == s.mutates, f"{entry.id} {s}: mutates={s.mutates} but receiver changed={changed}"


def test_catalog_sizes():
    kinds = {k: sum(1 for e in catalog.ENTRIES if e.kind == k) for k in catalog.KINDS}
    assert kinds["method"] >= 140 and kinds["function"] >= 35 and kinds["operator"] >= 50
