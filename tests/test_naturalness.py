"""The naturalness measures (issue #13): each detector on hand-written positives and negatives (the
issue's example rows among the positives), the execution probes, the small same-type edits, the
linter counts, and a smoke test of benchmarks/bench_naturalness.py on a tiny run."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from execverify_data import naturalness as nat
from execverify_data.catalog import typelang
from execverify_data.errors import InvalidArgument, ProgramError
from execverify_data.inputs import type_text_of
from execverify_data.values import literal_calls, parse_arguments

ROOT = Path(__file__).resolve().parents[1]

# The two typical rows of issue #13.
UNIQUE_VALUE = """\
def unique_value(value: float, numbers: list[int]) -> list[tuple[int, str]]:
    seen = set()
    for _ in numbers:
        _integer = value.is_integer()
        if _integer:
            if _integer:
                seen.add(repr(numbers))
    return list(enumerate(sorted(seen)))
"""
APPEND_SCORES = """\
def append_scores(scores: list[int], target: int) -> list[int]:
    scores.append(target)
    return list(divmod(abs(scores.count(0)), 10))
"""
# Code people write (CRUXEval/HumanEval style): none of the patterns.
NATURAL = """\
def running_max(nums: list[int], limit: int) -> list[int]:
    best = None
    out = []
    for n in nums:
        if n > limit:
            break
        if best is None or n > best:
            best = n
        out.append(best)
    return out

def digits(n: int) -> int:
    total = 0
    while n > 0:
        total += n % 10
        n //= 10
    return total
"""


def _fn(body: str, params: str = "x") -> str:
    lines = body.strip("\n").splitlines()
    return f"def f({params}):\n" + "\n".join("    " + line for line in lines) + "\n"


# ---------------------------------------------------------------------- AST pattern counts


@pytest.mark.parametrize(
    "detector, positives, negatives",
    [
        (nat.finishing_wrappers,
         [UNIQUE_VALUE, APPEND_SCORES, _fn("return sorted(set(x))"), _fn("return hex(abs(x))"), _fn("return tuple(sorted(x))")],
         [NATURAL, _fn("return ''.join(sorted(x))"), _fn("return sorted(x.items())"), _fn("y = len(set(x))\nreturn y"),
          _fn("list = sorted\nreturn list(set(x))")]),
        (nat.nested_builtins,
         [UNIQUE_VALUE, APPEND_SCORES, _fn("y = len(list(map(str, x)))\nreturn y")],
         [NATURAL, _fn("return sorted(set(x)), len(x.split()) + abs(len(x))")]),
        (nat.round_trips,
         [_fn("return str(int(bool(x)))"), _fn("return list(reversed(sorted(x)))"), _fn("return list(sorted(x))"),
          _fn("return sorted(sorted(x))"), _fn("return set(sorted(x))"), _fn("return int(str(x))"),
          _fn("return ord(chr(x))"), _fn("return [chr(ord(c)) for c in x]")],
         [NATURAL, _fn("return sorted(set(x))"), _fn("return list(reversed(x))"), _fn("return sorted(list(x))"),
          _fn("return int(x) + 1"), _fn("return chr(ord(x) + 1)"), _fn("return ord(x.lower())")]),
        (nat.loops_ignoring_variable,
         [UNIQUE_VALUE, _fn("n = 0\nfor y in x:\n    n += 1\nreturn n"),
          _fn("i = len(x)\nwhile i > 0:\n    i -= 1\n    print(1)\nreturn 0")],
         [NATURAL, _fn("for i, y in enumerate(x):\n    print(y)\nreturn 0"), _fn("while x:\n    x.pop()\nreturn x"),
          _fn("return [0 for _ in x]")]),
        (nat.countdown_loops,
         [_fn("i = len(x)\nwhile i > 0:\n    i -= 1\n    y = x[i]\nreturn y"),
          _fn("idx = len(x)\nwhile 0 < idx:\n    idx -= 1\nreturn idx")],
         [NATURAL, _fn("while x > 0:\n    x -= 1\nreturn x"), _fn("i = len(x)\nwhile i > 0:\n    i //= 2\nreturn i")]),
        (nat.self_nested_tests,
         [UNIQUE_VALUE,
          _fn("ok = x.isdigit()\nif ok:\n    for c in x:\n        if ok:\n            return c\nreturn ''")],
         [NATURAL, _fn("ok = x.isdigit()\nif ok:\n    ok = len(x) > 2\n    if ok:\n        return 1\nreturn 0"),
          _fn("if x:\n    return 1\nelif x:\n    return 2\nreturn 0")]),
        (nat.literal_subscripts,
         [_fn("return 'an'[:4:x]"), _fn("return [3, 5, 7][x]"), _fn("return {1: 'a'}[x]"), _fn("return ('a', 'b')[x % 2]")],
         [NATURAL, _fn("return 'abc'[0] + 'abc'[1:]"), _fn("return x[2]")]),
        (nat.dict_literal_membership,
         [_fn("if x in {10: 1, 2: 1}:\n    return 1\nreturn 0"), _fn("return x not in {'a': 0}")],
         [NATURAL, _fn("return x in {10, 2}"), _fn("return x in (1, 2)"), _fn("d = {1: 2}\nreturn x in d")]),
        (nat.self_receiver_calls,
         [_fn("return x.count(x, 0, 3)", "x"), _fn("return x.startswith(x, 0)"), _fn("return x.a.join(x.a)")],
         [NATURAL, _fn("return x.count('a')"), _fn("import math\nreturn math.gcd(x, x)")]),
        (nat.shadowed_builtins,
         [_fn("return len(ascii)", "ascii"), _fn("sum = 0\nreturn sum"), _fn("for list in x:\n    print(list)")],
         [NATURAL, _fn("total = sum(x)\nreturn total")]),
        (nat.underscore_names,
         [UNIQUE_VALUE, _fn("_count = len(x)\nreturn _count")],
         [NATURAL, _fn("for _ in x:\n    pass\nreturn 0"), _fn("__all = 1\nreturn __all")]),
    ],
)
def test_detector_positives_and_negatives(detector, positives, negatives):
    for source in positives:
        assert detector(source) >= 1, (detector.__name__, source)
    for source in negatives:
        assert detector(source) == 0, (detector.__name__, source)


def test_counts_are_per_occurrence_and_a_chain_counts_once():
    assert nat.finishing_wrappers(_fn("if x:\n    return sorted(set(x))\nreturn list(sorted(x))")) == 2
    assert nat.nested_builtins(_fn("return list(enumerate(sorted(set(x))))")) == 1
    assert nat.nested_builtins(_fn("return list(enumerate(sorted(x))), tuple(map(str, sorted(x)))")) == 2
    assert nat.round_trips(_fn("return str(int(bool(x)))")) == 1
    assert nat.round_trips(_fn("return str(int(x)), list(sorted(x))")) == 2
    assert nat.dict_literal_membership(_fn("return x in {1: 1} in {2: 2}")) == 2


def test_distinct_calls_counts_builtins_and_method_names_once():
    assert nat.distinct_calls(UNIQUE_VALUE) == 7  # set, .is_integer, .add, repr, list, enumerate, sorted
    assert nat.distinct_calls(APPEND_SCORES) == 5  # .append, list, divmod, abs, .count
    assert nat.distinct_calls(_fn("import math\nreturn math.sqrt(x) + helper(x)")) == 0


def test_container_reprs_uses_observed_types_then_the_form():
    assert nat.container_reprs(UNIQUE_VALUE) == 1  # numbers: list[int] (annotation)
    untyped = _fn("return repr(x) + f'{x}'")
    assert nat.container_reprs(untyped) == 0  # nothing says x is a container
    assert nat.container_reprs(untyped, nat.observe(untyped, "f", ["[1, 2]"])) == 2
    assert nat.container_reprs(untyped, nat.observe(untyped, "f", ["'ab'"])) == 0
    assert nat.container_reprs(_fn("print(f'{x}', repr(x))\nreturn 0", "x: list[int]")) == 0  # output, not a value
    assert nat.container_reprs(_fn("return f'{sorted(x)}' + repr([1])")) == 2


def test_a_program_that_does_not_parse_gets_a_clear_error():
    with pytest.raises(ProgramError, match="does not parse"):
        nat.finishing_wrappers("def f(:\n")
    with pytest.raises(InvalidArgument, match="source text"):
        nat.round_trips(None)


# ---------------------------------------------------------------------- execution measures


BRANCHES = """\
def f(n, words):
    out = []
    for w in words:
        if w == 'x':
            out.append(w)
        elif len(w) > n:
            out.append(w.upper())
    while n > 3:
        n -= 1
    label = 'big' if n > 100 else 'small'
    return out, label
"""


def test_observe_records_each_test_kind_and_its_outcomes():
    obs = nat.observe(BRANCHES, "f", ["2, ['ab', 'abc', 'x']", "5, ['abcdef']"])
    by_kind = {site.kind: outcomes for site, outcomes in obs.tests.items()}
    assert by_kind == {"if": frozenset({True, False}), "elif": frozenset({True, False}),
                       "while": frozenset({True, False}), "ifexp": frozenset({False})}
    assert nat.one_sided_tests(obs) == nat.Share(1, 4)
    assert nat.never_evaluated_tests(obs) == nat.Share(0, 4)
    assert nat.dead_statements(obs) == nat.Share(0, 10)
    assert obs.inputs == ("2, ['ab', 'abc', 'x']", "5, ['abcdef']") and obs.failed == 0


def test_never_evaluated_tests_and_dead_statements():
    obs = nat.observe(BRANCHES, "f", ["1, []"])
    assert nat.never_evaluated_tests(obs) == nat.Share(2, 4)  # the if and the elif inside the empty loop
    assert nat.one_sided_tests(obs) == nat.Share(4, 4)  # never evaluated counts as one-sided too
    # dead: the if, the elif, both appends (the while body ran? n=1: no) -> if, append, elif, append, n -= 1
    assert nat.dead_statements(obs) == nat.Share(5, 10)
    assert nat.one_sided_tests(obs, kinds=("while",)) == nat.Share(1, 1)


def test_only_functions_the_entry_point_reaches_are_probed():
    source = ("def helper(s):\n    if s:\n        return 1\n    return 0\n\n"
              "def unused(s):\n    if s:\n        return 2\n    return 3\n\n"
              "def main(s):\n    \"\"\"Docstring.\"\"\"\n    return helper(s)\n")
    obs = nat.observe(source, "main", ["'a'", "''"])
    assert [s.line for s in obs.tests] == [2]  # helper's if, not unused's
    assert nat.one_sided_tests(obs) == nat.Share(0, 1)
    assert len(obs.statements) == 4  # helper's three statements and main's return (the docstring is not one)
    with pytest.raises(ProgramError, match="no function named 'nope'"):
        nat.observe(source, "nope", ["'a'"])


def test_runs_that_raise_or_loop_are_not_observed():
    source = _fn("if x > 0:\n    return 10 // (x - 1)\nwhile True:\n    pass")
    obs = nat.observe(source, "f", ["2", "1", "-1"], max_steps=500)
    assert obs.inputs == ("2",) and obs.failed == 2
    assert nat.one_sided_tests(obs).hits == 2  # the if only went one way in the observed run; the while never ran


def test_inputs_must_be_literals_unless_trusted():
    source = _fn("return len(x)")
    with pytest.raises(ProgramError, match="trusted_inputs=True"):
        nat.observe(source, "f", ["''.join(['A'] * 3)"])
    assert nat.observe(source, "f", ["''.join(['A'] * 3)"], trusted_inputs=True).inputs == ("''.join(['A'] * 3)",)
    with pytest.raises(InvalidArgument, match="sequence of argument texts"):
        nat.observe(source, "f", "[1]")


def test_a_program_that_prints_or_changes_its_arguments_is_measured_on_fresh_copies():
    source = _fn("x.append(1)\nprint(x)\nif len(x) > 3:\n    return 1\nreturn 0")
    obs = nat.observe(source, "f", ["[1, 2]", "[1, 2]", "[1, 2, 3]"])
    assert nat.one_sided_tests(obs) == nat.Share(0, 1)


# ---------------------------------------------------------------------- small same-type edits


@pytest.mark.parametrize("first, types", [
    ("[1, 2, 3], 'abc'", None),
    ("{'a': 1, 'b': 2}, 4", None),
    ("[1, 2, 3], 'abc'", ["list[int]", "str"]),
    ("(1, 'a'), {2, 3}, True, 2.5", None),
])
def test_small_edits_change_one_argument_and_keep_its_type(first, types):
    args, _ = parse_arguments(first)
    expected = types or [type_text_of(a) for a in args]
    edits = list(nat.small_edits(first, types, seed=4))
    assert edits == list(nat.small_edits(first, types, seed=4))  # seeded
    assert edits != list(nat.small_edits(first, types, seed=5))
    assert len(set(edits)) == len(edits) and first not in edits
    for text in edits:
        edited, _ = parse_arguments(text)
        assert sum(a != b for a, b in zip(args, edited)) == 1
        assert all(typelang.conforms(v, t) for v, t in zip(edited, expected))


def test_edited_inputs_skip_edits_that_raise():
    source = _fn("return 10 // (x - 4)")
    for seed in range(6):
        edits = nat.edited_inputs(source, "f", "3", seed=seed)
        assert len(edits) == 2 and "4" not in edits and "3" not in edits


def test_edits_stop_after_two_candidates_past_the_budget():
    source = _fn("while x:\n    pass\nreturn 0")
    assert nat.edited_inputs(source, "f", "0", seed=0, max_steps=200) == []


def test_type_text_of():
    assert type_text_of(3) == "int" and type_text_of(True) == "bool" and type_text_of(None) == "None"
    assert type_text_of({"a": {1, 2}}) == "dict[str, set[int]]"
    assert type_text_of({}) == "dict[str, int]"
    assert type_text_of([1, [2]]) == "list[int | list[int]]"
    assert type_text_of(lambda: 0) is None and type_text_of([lambda: 0]) is None


def test_literal_calls_read_humaneval_tests_without_running_them():
    test = ("def check(candidate):\n    assert candidate([1, 2], 3) == 1\n    assert candidate(x) == 2\n"
            "    assert candidate([1, 2], 3) == 1\n    assert candidate(-1, k='a')\n    raise SystemExit\n")
    assert literal_calls(test) == ["[1, 2], 3", "-1, k='a'"]


def test_program_figures_of_the_issue_row():
    figures = nat.program_figures(UNIQUE_VALUE, "unique_value", ["1.0, [1, 2]", "2.5, [3, 4, 5]", "3.0, []"],
                                  types=["float", "list[int]"])
    assert figures["own_one_sided"] == [1, 2] and figures["own_inputs"] == 3  # the inner `if _integer:` never fails
    assert figures["edit_inputs"] == 3 and figures["edits_dead_statements"][1] == 7
    assert figures["finishing_wrappers"] == figures["self_nested_tests"] == figures["container_reprs"] == 1
    assert json.loads(json.dumps(figures)) == figures


# ---------------------------------------------------------------------- linters


LINT_CASES = {
    "SIM300": _fn("if 3 == x:\n    return 1\nreturn 0"),
    "SIM102": _fn("if x > 1:\n    if x < 5:\n        return 1\nreturn 0"),
    "SIM114": _fn("if x > 1:\n    y = 1\nelif x < -1:\n    y = 1\nelse:\n    y = 2\nreturn y"),
    "C413": _fn("return list(sorted(x))"),
    "R5601": _fn("if x > 1:\n    if x > 5:\n        y = 1\n    elif x > 3:\n        y = 2\nelif x < 0:\n    y = 3\nelse:\n    y = 4\nreturn y"),
}


def test_lint_counts_each_rule_on_a_positive_and_the_negatives():
    sources = list(LINT_CASES.values()) + [NATURAL, _fn("return x == 3")]
    counts = nat.lint_counts(sources)
    assert len(counts) == len(sources)
    for i, rule in enumerate(LINT_CASES):
        assert counts[i][rule] >= 1, (rule, counts[i])
    for row in counts[len(LINT_CASES):]:
        assert set(row) == set(nat.LINT_RULES) and not any(row.values())
    assert nat.lint_counts(sources, jobs=3) == counts  # one pylint process per part: the same counts
    assert nat.lint_counts([]) == []


# ---------------------------------------------------------------------- the benchmark


def _bench():
    if "bench_naturalness" in sys.modules:
        return sys.modules["bench_naturalness"]
    spec = importlib.util.spec_from_file_location("bench_naturalness", ROOT / "benchmarks" / "bench_naturalness.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_naturalness", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    from execverify_data.pipeline import SynthConfig, synthesize

    out = tmp_path_factory.mktemp("tiny-run")
    synthesize(SynthConfig(n_programs=18, seed=5, shard_size=9), out, workers=1)
    return out


@pytest.mark.slow
def test_benchmark_smoke_on_a_tiny_run(tiny_run, capsys):
    bench = _bench()
    argv = ["--run", str(tiny_run), "--benchmark-limit", "12", "--targets", "--json"]
    assert bench.main(argv + ["--workers", "1"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert bench.main(argv + ["--workers", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    assert one["table"] == two["table"] and one["targets"] == two["targets"]  # whatever the workers
    table = one["table"]
    assert list(table)[:3] == ["ours", "CRUXEval", "HumanEval"] and "L1" in table
    assert table["CRUXEval"]["programs"] == table["HumanEval"]["programs"] == 12
    assert table["CRUXEval"]["own_one_sided"] is None  # one input per row: nothing can vary
    for key, _, _ in bench.MEASURES:
        assert key in table["ours"]
    assert table["ours"]["programs"] == sum(table[f"L{level}"]["programs"] for level in range(1, 7) if f"L{level}" in table)
    targets = {row["target"]: row for row in one["targets"]}
    assert targets["programs passing the checker for their spec: 100%"]["met"] is True
    assert any(row["met"] is False for row in one["targets"])  # generator 1.1 misses the naturalness targets


def test_benchmark_markdown_and_bad_arguments(tiny_run, capsys):
    bench = _bench()
    assert bench.main(["--run", str(tiny_run), "--benchmark-limit", "3", "--limit", "4", "--workers", "1", "--markdown"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("| measure") and "| ours (4) | CRUXEval (3) | HumanEval (3) |" in text
    with pytest.raises(SystemExit):
        bench.main(["--run", str(tiny_run), "--n", "5"])
    assert "not both" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main(["--run", str(tiny_run / "nope")])
    assert "no such folder" in capsys.readouterr().err


def test_random_is_not_used_at_module_level():
    state = random.getstate()
    list(nat.small_edits("[1, 2], 'a'", seed=1))
    assert random.getstate() == state


def test_and_or_operands_are_recorded_as_their_own_kind():
    source = _fn("if x > 0 and x < 5:\n    return 1\nreturn x or 7")
    obs = nat.observe(source, "f", ["3", "-1"])
    assert sorted(s.kind for s in obs.tests) == ["boolop", "boolop", "if"]
    assert nat.one_sided_tests(obs) == nat.Share(0, 1)  # if-tests only, by default
    # `x > 0` went both ways; `x or 7` was reached only with x = -1 (true)
    assert nat.one_sided_tests(obs, kinds=("boolop",)) == nat.Share(1, 2)
    assert nat.observe(source, "f", ["0"]).inputs == ("0",)  # values pass through: `0 or 7` is 7


@pytest.mark.slow
def test_benchmark_makes_a_fresh_run(tmp_path, capsys):
    bench = _bench()
    out = tmp_path / "fresh"
    assert bench.main(["--n", "6", "--seed", "2", "--levels", "3", "--out", str(out), "--workers", "1",
                       "--benchmark-limit", "2", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)["table"]
    assert (out / "summary.json").exists() and set(table) == {"ours", "CRUXEval", "HumanEval", "L3"}
    assert table["ours"]["programs"] == table["L3"]["programs"] >= 5
    with pytest.raises(SystemExit):
        bench.main(["--n", "6", "--levels", "7", "--out", str(tmp_path / "bad")])
    assert "--levels '7'" in capsys.readouterr().err


def test_effectless_calls_find_steps_that_do_not_change_the_result():
    # sorting before a sum, expandtabs before split(): no effect; dropping the upper() changes the output
    source = ("def f(sentence):\n    words = sorted(set(sentence.expandtabs(4).split()))\n"
              "    return sum(len(w) for w in words), sentence.upper()\n")
    hits, calls = nat.effectless_calls(source, "f", "'a bb\\tcc'")
    # calls: sorted, set, expandtabs, split, sum, len, upper
    # no effect here: sorted(...) -> set(...), set(...) -> the split list (no repeated word), expandtabs(4) -> sentence
    assert calls == 7 and hits == 3
    assert nat.effectless_calls("def f(xs):\n    return sorted(xs)\n", "f", "[2, 1]") == (0, 1)
    assert nat.effectless_calls("def f(xs):\n    return sorted(xs)\n", "f", "[1, 2]") == (1, 1)  # on this input
    assert nat.effectless_calls("def f(x):\n    return 1 / x\n", "f", "0") is None  # the first run raises
    assert nat.effectless_calls("def f(x):\n    return iter(x)\n", "f", "[1]") is None  # no literal output
    # a call in a branch the input does not take is not a step of this run
    assert nat.effectless_calls("def f(xs):\n    return sorted(xs) if len(xs) > 5 else xs\n", "f", "[2, 1]") == (0, 1)
    # a call that is a statement counts too: an in-place sort whose order the result never reads
    assert nat.effectless_calls("def f(xs):\n    xs.sort()\n    return len(xs)\n", "f", "[2, 1]") == (1, 2)


def test_sorting_a_set_is_an_effect_in_every_process():
    """A set's iteration order is the process's hash order: small ints happen to come out sorted, and a few short
    strings often do under one PYTHONHASHSEED and not another. ``sorted`` over a set is judged against the reverse
    order, so its verdict is the same in every process (CI once kept a program that the test process then flagged)."""
    source = "def f(xs):\n    return [x * 2 for x in sorted(set(xs))]\n"
    assert nat.effectless_sites(source, "f", ["[3, 1, 2]"]) == ["set(xs)"]  # no repeats here; the order counts
    assert nat.effectless_sites(source, "f", ["[3]"]) == ["sorted(set(xs))", "set(xs)"]  # one item: nothing to order
    summed = "def f(words):\n    return sum(len(w) for w in sorted(set(words)))\n"
    assert nat.effectless_sites(summed, "f", ["['b', 'a', 'c']"]) == ["sorted(set(words))", "set(words)"]
    strings = "def f(a, b):\n    return [c + c for c in sorted(a ^ b)]\n"
    probe = ("import sys; from execverify_data import naturalness as nat; "
             f"print(nat.effectless_sites({strings!r}, 'f', [\"{{'a', 'q'}}, {{'z', 'q'}}\"]))")
    seen = {subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in range(6)}
    assert seen == {"[]\n"}


def test_bare_literal_gates_count_unnamed_thresholds_only():
    assert nat.bare_literal_gates("def f(words):\n    if len(words) > 9:\n        return 1\n    return 0\n") == 1
    assert nat.bare_literal_gates("def f(xs, n):\n    return len(xs) < 2 or n == -1 or n >= 0\n") == 0
    assert nat.bare_literal_gates("def f(n):\n    k = 7\n    return k > 6 and 10 < n < 20\n") == 2  # n twice, k no
    assert nat.bare_literal_gates("def f(len):\n    return len > 3\n") == 1  # a parameter, even one named len


def test_new_measures_reach_the_table():
    row = nat.program_figures("def f(xs):\n    return sum(sorted(xs)) if len(xs) > 5 else 0\n", "f", ["[3, 1]"])
    assert row["bare_literal_gates"] == 1 and row["first_effectless_calls"] == [0, 1]  # only len(xs) runs
    row["first_effectless_calls"] = [1, 3]
    table = nat.aggregate([row, {**row, "first_effectless_calls": None, "bare_literal_gates": 0}],
                          keys=["first_effectless_calls", "bare_literal_gates"])
    assert table["first_effectless_calls"] == 100.0 and table["first_effectless_calls_counts"] == [1, 1]
    assert table["bare_literal_gates"] == 50.0
