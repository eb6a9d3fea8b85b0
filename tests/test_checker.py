"""ConstraintSpec validation and round trip, the six levels, and the AST constraint checker."""

from __future__ import annotations

import random
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from execverify_data import catalog
from execverify_data.errors import InvalidArgument
from execverify_data.synth import (
    CONTROL_FLOW,
    ConstraintSpec,
    catalog_entries_used,
    check,
    level_spec,
)
from execverify_data.synth.checker import ITEM_NAMES

# --- ConstraintSpec -------------------------------------------------------------------

TARGETS = sorted(e.id for e in catalog.ENTRIES if e.kind in ("method", "function"))


@st.composite
def specs(draw):
    lo = draw(st.integers(0, 1000))
    return ConstraintSpec(
        draw(st.sampled_from(TARGETS)),
        nested_depth=draw(st.integers(0, 3)),
        other_methods=draw(st.booleans()),
        control_flow=tuple(draw(st.lists(st.sampled_from(CONTROL_FLOW), max_size=3))),
        helper_depth=draw(st.integers(0, 3)),
        n_params=draw(st.integers(1, 5)),
        min_size=lo,
        max_size=draw(st.integers(lo, 1000)),
    )


@given(specs())
def test_spec_round_trips_through_dict(spec):
    assert ConstraintSpec.from_dict(spec.to_dict()) == spec


@given(specs())
def test_spec_dict_is_json_ready(spec):
    import json

    assert ConstraintSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec


def _spec(**kw):
    return lambda: ConstraintSpec(kw.pop("target", "str.split"), **kw)


BAD_ARGUMENTS = [
    (_spec(target="str.splt"), r"unknown catalog id 'str.splt'; did you mean .*'str.split'"),
    (_spec(target="op.add"), r"is an operator; a target must be a method"),
    (_spec(target=3), r"target must be a catalog id string"),
    (_spec(nested_depth=-1), r"nested_depth must be from 0 to 3"),
    (_spec(nested_depth=4), r"nested_depth must be from 0 to 3"),
    (_spec(nested_depth=True), r"nested_depth must be an int from 0 to 3"),
    (_spec(nested_depth="1"), r"nested_depth must be an int"),
    (_spec(other_methods=1), r"other_methods must be True or False"),
    (_spec(control_flow="for"), r"control_flow must be a tuple of steps from \('if', 'for', 'while', 'if-elif'\)"),
    (_spec(control_flow=("for", "if", "while", "if")), r"control_flow has 4 steps; at most 3"),
    (_spec(control_flow=("for", "elif")), r"control_flow\[1\] is 'elif'; each step must be one of"),
    (_spec(helper_depth=True), r"helper_depth must be an int from 0 to 3"),
    (_spec(helper_depth=5), r"helper_depth must be from 0 to 3"),
    (_spec(n_params=0), r"n_params must be from 1 to 5"),
    (_spec(min_size=7, max_size=3), r"min_size \(7\) must not exceed max_size \(3\)"),
    (_spec(max_size=10**6), r"max_size must be from 0 to 1000"),
    (lambda: ConstraintSpec.from_dict({"target": "str.split", "depth": 1}), r"unknown ConstraintSpec key\(s\) \['depth'\]; valid keys are"),
    (lambda: ConstraintSpec.from_dict({"nested_depth": 1}), r"needs a 'target'"),
    (lambda: ConstraintSpec.from_dict([("target", "str.split")]), r"needs a mapping"),
    (lambda: level_spec(0, "str.split", random.Random(0)), r"level must be an int from 1 to 6"),
    (lambda: level_spec(True, "str.split", random.Random(0)), r"level must be an int from 1 to 6"),
    (lambda: level_spec(1, "str.split", random), r"rng must be a random.Random"),
    (lambda: level_spec(1, "str.split", 42), r"rng must be a random.Random"),
    (lambda: check(b"def f(): pass", ConstraintSpec("str.split")), r"source must be the program text"),
    (lambda: check("def f(): pass", {"target": "str.split"}), r"spec must be a ConstraintSpec"),
    (lambda: check("def f(): pass", ConstraintSpec("str.split"), entry=1), r"entry must be a function name"),
]


@pytest.mark.parametrize("make, message", BAD_ARGUMENTS)
def test_bad_arguments_raise_invalid_argument(make, message):
    with pytest.raises(InvalidArgument, match=message):
        make()


def test_spec_is_frozen_and_keyword_only():
    spec = ConstraintSpec("list.pop", nested_depth=1)
    with pytest.raises(AttributeError):
        spec.nested_depth = 2
    with pytest.raises(TypeError):
        ConstraintSpec("list.pop", 1)  # options are keyword-only


def test_control_flow_list_is_normalized_to_tuple():
    assert ConstraintSpec("list.pop", control_flow=["for", "if"]).control_flow == ("for", "if")


@pytest.mark.parametrize("level", range(1, 7))
def test_levels_reproduce_execverify_configurations(level):
    spec = level_spec(level, "list.pop", random.Random(level))
    assert spec.nested_depth >= 1
    assert spec.other_methods == (level >= 2)
    assert len(spec.control_flow) == {1: 0, 2: 0, 3: 1, 4: 2, 5: 3, 6: 3}[level]
    assert spec.helper_depth == (1 if level == 6 else 0)
    assert spec.min_size == 6  # "length greater than five"
    assert level_spec(level, "list.pop", random.Random(level)) == spec  # replayable from the seed


# --- checker: one table per constraint -----------------------------------------------


def _check(source, target="str.split", entry=None, **kw):
    return check(textwrap.dedent(source), ConstraintSpec(target, **kw), entry=entry)


CASES = [
    # target_used ------------------------------------------------------------------
    ("target_used", True, "str.split", {}, "def f(s: str):\n    return s.split(',')", "receiver inferred as str"),
    ("target_used", True, "str.split", {}, "def f(s):\n    return s.split()", "receiver type unknown"),
    ("target_used", True, "str.split", {}, "def f(s):\n    return str.split(s)", "on the type"),
    ("target_used", True, "str.split", {}, "def f(s: str):\n    t = s.strip()\n    return t.split()", "inferred as str"),
    ("target_used", False, "str.split", {}, "import re\ndef f(s):\n    return re.split(',', s)", "receiver is a module"),
    ("target_used", False, "str.split", {}, "def split(x):\n    return [x]\ndef f(s):\n    return split(s)", "calls a function named split"),
    ("target_used", False, "str.split", {}, "def f(s):\n    g = s.split\n    return g()", "no call `.split(...)`"),
    ("target_used", False, "str.split", {}, "def f(s):\n    return 'split'", "no call"),
    ("target_used", False, "str.index", {}, "def f(xs: list):\n    return xs.index(1)", "of another type"),
    ("target_used", False, "str.upper", {}, "def f(xs):\n    return [1].upper()", "of another type"),
    ("target_used", False, "dict.pop", {}, "def f(d: dict):\n    return d.pop()", "arguments do not fit"),
    ("target_used", True, "dict.pop", {}, "def f(d: dict):\n    return d.pop('a', 0)", "inferred as dict"),
    ("target_used", True, "int.bit_length", {}, "def f(flag: bool):\n    return flag.bit_length()", "inferred as bool"),
    ("target_used", True, "builtin.sorted", {}, "def f(xs):\n    return sorted(xs)", "calls builtin sorted"),
    ("target_used", False, "builtin.sorted", {}, "def sorted(x):\n    return x\ndef f(xs):\n    return sorted(xs)", "rebound"),
    ("target_used", False, "builtin.sorted", {}, "def f(xs, sorted):\n    return sorted(xs)", "rebound"),
    ("target_used", False, "builtin.sorted", {}, "def f(xs):\n    xs.sort()\n    return xs", "no call to builtin sorted"),
    # nested_calls -----------------------------------------------------------------
    ("nested_calls", True, "builtin.len", {}, "def f(s):\n    return len(s)", "not required"),
    ("nested_calls", False, "builtin.len", {"nested_depth": 1}, "def f(s):\n    return len(s)", "no call has a call as argument"),
    ("nested_calls", True, "builtin.len", {"nested_depth": 1}, "def f(s):\n    return len(s.split())", "depth 1"),
    ("nested_calls", False, "builtin.len", {"nested_depth": 1}, "def f(s):\n    return s.strip().split()", "no call has"),
    ("nested_calls", False, "builtin.len", {"nested_depth": 1}, "def f(s, t):\n    return len(s) + len(t)", "no call has"),
    ("nested_calls", True, "builtin.len", {"nested_depth": 2}, "def f(xs):\n    return len(sorted(set(xs)))", "depth 2"),
    ("nested_calls", False, "builtin.len", {"nested_depth": 3}, "def f(xs):\n    return len(sorted(set(xs)))", "needs depth 3"),
    ("nested_calls", True, "builtin.sorted", {"nested_depth": 1}, "def f(xs):\n    return sorted(xs, key=abs(1))", "depth 1"),
    ("nested_calls", True, "builtin.print", {"nested_depth": 1}, "def f(xs):\n    print(*sorted(xs))", "depth 1"),
    # other_methods ------------------------------------------------------------------
    ("other_methods", False, "str.upper", {"other_methods": True}, "def f(s):\n    return s.upper()", "no catalog method"),
    ("other_methods", False, "str.upper", {"other_methods": True}, "def f(s):\n    return s.upper() + 'x'", "no catalog method"),
    ("other_methods", True, "str.upper", {"other_methods": True}, "def f(s):\n    return s.upper().strip()", "str.strip"),
    ("other_methods", True, "str.upper", {"other_methods": True}, "def f(s):\n    return len(s.upper())", "builtin.len"),
    ("other_methods", True, "str.upper", {}, "def f(s):\n    return s.upper()", "not required"),
    # control_flow -------------------------------------------------------------------
    ("control_flow", True, "builtin.len", {"control_flow": ("for", "if")},
     "def f(xs):\n    for x in xs:\n        if x:\n            return len(xs)", "for (line 2) > if (line 3)"),
    ("control_flow", False, "builtin.len", {"control_flow": ("for", "if")},
     "def f(xs):\n    if xs:\n        for x in xs:\n            pass\n    return len(xs)", "opposite order"),
    ("control_flow", False, "builtin.len", {"control_flow": ("for", "if")},
     "def f(xs):\n    for x in xs:\n        pass\n    if xs:\n        pass\n    return len(xs)", "no if inside"),
    ("control_flow", False, "builtin.len", {"control_flow": ("for", "if")},
     "def f(xs):\n    for x in xs:\n        pass\n    else:\n        if xs:\n            pass\n    return len(xs)", "no if inside"),
    ("control_flow", True, "builtin.len", {"control_flow": ("for", "if")},
     "def f(xs):\n    for x in xs:\n        while x:\n            if x > 1:\n                x -= 1\n    return len(xs)", "for (line 2) > if (line 4)"),
    ("control_flow", True, "builtin.len", {"control_flow": ("if-elif",)},
     "def f(x):\n    if x > 1:\n        return 1\n    elif x:\n        return 2\n    return len([])", "if-elif (line 2)"),
    ("control_flow", False, "builtin.len", {"control_flow": ("if-elif",)},
     "def f(x):\n    if x > 1:\n        return 1\n    else:\n        if x:\n            return 2\n    return len([])", "not an elif"),
    ("control_flow", False, "builtin.len", {"control_flow": ("if-elif",)},
     "def f(x):\n    if x > 1:\n        if x:\n            return 2\n    return len([])", "no if-elif"),
    ("control_flow", False, "builtin.len", {"control_flow": ("if", "if")},
     "def f(x):\n    if x > 1:\n        return 1\n    elif x:\n        return 2\n    return len([])", "no if inside"),
    ("control_flow", True, "builtin.len", {"control_flow": ("if", "if")},
     "def f(x):\n    if x > 1:\n        return 1\n    elif x:\n        if x < 5:\n            return 2\n    return len([])", "if (line 2) > if (line 5)"),
    ("control_flow", True, "builtin.len", {"control_flow": ("for", "if-elif")},
     "def f(xs):\n    for x in xs:\n        if x > 1:\n            pass\n        elif x:\n            pass\n    return len(xs)", "for (line 2) > if-elif (line 3)"),
    ("control_flow", True, "builtin.len", {"control_flow": ("while", "for", "if")},
     "def f(n):\n    while n > 0:\n        n -= 1\n        for i in range(n):\n            if i:\n                pass\n    return len([])", "while (line 2)"),
    ("control_flow", False, "builtin.len", {"control_flow": ("for", "if")},
     "def f(xs):\n    for x in xs:\n        def g(y):\n            if y:\n                return y\n    return len(xs)", "no if inside"),
    ("control_flow", False, "builtin.len", {"control_flow": ("for", "if")},
     "def h(x):\n    if x:\n        return 1\n    return 0\ndef f(xs):\n    for x in xs:\n        h(x)\n    return len(xs)", "no if inside"),
    ("control_flow", False, "builtin.len", {"control_flow": ("if",)},
     "def f(xs):\n    return len([x for x in xs if x])", "no if statement"),
    # helper_chain -------------------------------------------------------------------
    ("helper_chain", True, "builtin.len", {"helper_depth": 1},
     "def helper(xs):\n    return len(xs)\ndef main(xs):\n    return helper(xs) + 1", "entry point main: chain main -> helper"),
    ("helper_chain", False, "builtin.len", {"helper_depth": 1},
     "def helper(xs):\n    return len(xs)\ndef main(xs):\n    return len(xs) + 1", "defined but not called from main: helper"),
    ("helper_chain", True, "builtin.len", {"helper_depth": 2},
     "def a(x):\n    return len(x)\ndef b(x):\n    return a(x)\ndef c(x):\n    return b(x)", "c -> b -> a, depth 2"),
    ("helper_chain", False, "builtin.len", {"helper_depth": 2},
     "def a(x):\n    return len(x)\ndef c(x):\n    return a(x)", "depth 1; needs depth 2"),
    ("helper_chain", False, "builtin.len", {"helper_depth": 1},
     "def f(n):\n    return f(n - 1) if n else len([])", "calls no other module function"),
    # param_count ---------------------------------------------------------------------
    ("param_count", True, "builtin.len", {"n_params": 2}, "def f(a, b):\n    return len(a)", "f(a, b) has 2"),
    ("param_count", False, "builtin.len", {"n_params": 1}, "def f(a, b):\n    return len(a)", "has 2 parameter(s); the spec needs 1"),
    ("param_count", True, "builtin.len", {"n_params": 2}, "def f(a, *, b):\n    return len(a)", "has 2"),
    ("param_count", False, "builtin.len", {"n_params": 1}, "def f(*args):\n    return len(args)", "*args/**kwargs"),
    ("param_count", True, "builtin.len", {"n_params": 1},
     "def helper(a, b):\n    return len(a)\ndef main(x):\n    return helper(x, x)", "main(x)"),
    # general sanity ------------------------------------------------------------------
    ("module_shape", False, "builtin.len", {}, "x = 1\ndef f(a):\n    return len(a)", "Assign at line 1"),
    ("module_shape", False, "builtin.len", {}, "def f(a):\n    return len(a)\nprint(f('ab'))", "Expr at line 3"),
    ("module_shape", False, "builtin.len", {}, "class A:\n    pass\ndef f(a):\n    return len(a)", "ClassDef"),
    ("module_shape", False, "builtin.len", {}, "import math", "defines no function"),
    ("module_shape", True, "builtin.len", {}, '"""Doc."""\nimport math\ndef f(a):\n    return len(a)', "1 top-level"),
    ("imports", False, "builtin.len", {}, "import os\ndef f(a):\n    return len(a)", "os (line 1)"),
    ("imports", False, "builtin.len", {}, "from . import x\ndef f(a):\n    return len(a)", "imports outside"),
    ("imports", False, "builtin.len", {}, "def f(a):\n    import subprocess\n    return len(a)", "subprocess (line 2)"),
    ("imports", True, "builtin.len", {}, "import collections.abc\nfrom math import floor\ndef f(a):\n    return len(a)", "only allowed"),
    ("safe_names", False, "builtin.len", {}, "def f(a):\n    return eval(a)", "eval (line 2)"),
    ("safe_names", False, "builtin.len", {}, "def f(a):\n    g = exec\n    return len(a)", "exec (line 2)"),
    ("safe_names", False, "builtin.len", {}, "def f(a):\n    return getattr(a, 'x')", "getattr"),
    ("safe_names", False, "builtin.len", {}, "def f(a):\n    return a.__class__", "dunder __class__"),
    ("safe_names", False, "builtin.len", {}, "def f(a):\n    return __builtins__", "dunder __builtins__"),
    ("safe_names", False, "builtin.len", {}, "def f(a):\n    return open(a).read()", "open (line 2)"),
    ("no_while_true", False, "builtin.len", {}, "def f(a):\n    while True:\n        break\n    return len(a)", "while True"),
    ("no_while_true", False, "builtin.len", {}, "def f(a):\n    while 1:\n        break\n    return len(a)", "while 1"),
    ("no_while_true", True, "builtin.len", {}, "def f(n):\n    while n > 0:\n        n -= 1\n    return n", "non-constant"),
]


@pytest.mark.parametrize(
    "item, met, target, options, source, detail",
    CASES,
    ids=[f"{c[0]}-{'met' if c[1] else 'missed'}-{i}" for i, c in enumerate(CASES)],
)
def test_checker_table(item, met, target, options, source, detail):
    report = _check(source, target, **options)
    got = report[item]
    assert got.met is met, str(report)
    assert detail in got.detail, got.detail


def test_report_lists_every_item_in_order():
    report = _check("def f(s):\n    return s.split()")
    assert tuple(i.name for i in report.items) == ITEM_NAMES
    assert report.ok and report.entry_point == "f" and not report.missed
    with pytest.raises(KeyError, match="no check item"):
        report["nope"]


def test_unparsable_source_misses_everything():
    report = _check("def f(:\n    pass")
    assert not report.ok and report.entry_point is None
    assert report["parses"].detail.startswith("SyntaxError")
    assert all(i.detail == "not checked: the source does not parse" for i in report.items[1:])


def test_entry_point_can_be_named():
    source = "def helper(a, b):\n    return len(a)\ndef main(x):\n    return helper(x, x)"
    report = _check(source, "builtin.len", entry="helper", n_params=2, helper_depth=1)
    assert report.entry_point == "helper"
    assert report["param_count"].met and not report["helper_chain"].met
    missing = _check(source, "builtin.len", entry="nothere")
    assert not missing["param_count"].met and "'nothere' is not a top-level function" in missing["param_count"].detail


LEVEL6_PROGRAM = '''
from collections import Counter

def count_words(text):
    return Counter(text.lower().split())

def top_words(text, k):
    counts = count_words(text)
    result = []
    for word in sorted(counts, key=len):
        if counts[word] > 1:
            while len(result) < k:
                result.append(word.upper())
                break
        elif word:
            result.append(word)
    return list(reversed(sorted(result)))
'''


def test_a_level6_program_meets_every_constraint():
    spec = ConstraintSpec(
        "str.split", nested_depth=2, other_methods=True, control_flow=("for", "if-elif", "while"),
        helper_depth=1, n_params=2,
    )
    report = check(LEVEL6_PROGRAM, spec)
    assert report.ok, str(report)
    assert report.entry_point == "top_words"


def test_catalog_entries_used():
    used = catalog_entries_used(LEVEL6_PROGRAM)
    assert {"str.split", "str.lower", "str.upper", "list.append", "builtin.sorted", "builtin.len",
            "builtin.list", "builtin.reversed", "op.getitem", "op.gt", "op.lt"} <= used
    assert all(catalog.get(i) for i in used)
    source = "def f(xs: list, d: dict):\n    xs[1:] = [2]\n    del d['k']\n    return {**d}, [*xs], -xs[-1], xs * 2"
    assert catalog_entries_used(source) == {
        "op.slice_assign", "op.delitem", "op.unpack_dict", "op.unpack_list", "op.neg", "op.getitem", "op.repeat",
    }
    # annotations are not subscriptions; a module function is not a method
    assert catalog_entries_used("import math\ndef f(x: list[int]) -> dict[str, int]:\n    return math.floor(x)") == set()


def test_checker_stays_fast_on_pathological_programs():
    import time

    chain = "def f(x0: str):\n" + "".join(f"    x{i} = x{i - 1} + x{i - 1}\n" for i in range(1, 80)) + "    return x79.split()\n"
    dense = "".join(
        f"def g{i}(a):\n    return " + " + ".join(f"g{j}(a)" for j in range(40) if j != i) + "\n" for i in range(40)
    )
    start = time.perf_counter()
    assert _check(chain)["target_used"].met
    report = check(dense, ConstraintSpec("str.split", helper_depth=3), entry="g0")
    assert "g0 -> g1 -> g2 -> g3" in report["helper_chain"].detail
    assert time.perf_counter() - start < 5
