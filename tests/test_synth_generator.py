"""The programmatic generator: checker agreement, determinism, termination, typed entry points."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from execverify_data.errors import InvalidArgument
from execverify_data.inputs import draw_inputs
from execverify_data.pipeline import row_seed
from execverify_data.synth import check
from execverify_data.synth.exprs import GenFail
from execverify_data.synth.filters import normalized_hash, unused_params
from execverify_data.synth.generator import LEVELS, generate, level_of, spec_for, targets
from execverify_data.trace import Status, trace_call
from execverify_data.values import format_call


def _programs(per_level: int, offset: int = 0):
    out = []
    for level in LEVELS:
        for i in range(offset, offset + per_level):
            seed = row_seed(level, i)
            spec = spec_for(level, seed)
            try:
                out.append((spec, generate(spec, seed)))
            except GenFail:
                continue
    return out


PROGRAMS = _programs(50)


def test_most_specs_give_a_program():
    assert len(PROGRAMS) >= 0.85 * 50 * len(LEVELS)


def test_checker_accepts_every_generated_program():
    failures = []
    for spec, program in PROGRAMS:
        report = check(program.code, spec, entry=program.entry_point)
        if not report.ok:
            failures.append((program.code, [str(m) for m in report.missed]))
    assert not failures, failures[:3]


def test_every_level_is_represented_and_levels_round_trip():
    levels = {level_of(spec) for spec, _ in PROGRAMS}
    assert levels == set(LEVELS)
    for spec, program in PROGRAMS:
        assert program.level == level_of(spec)


def test_generation_is_deterministic():
    for spec, program in PROGRAMS[::25]:
        assert generate(spec, program.seed) == program


def test_entry_point_is_typed_and_uses_every_parameter():
    for spec, program in PROGRAMS:
        tree = ast.parse(program.code)
        fn = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == program.entry_point][0]
        assert [a.arg for a in fn.args.args] == list(program.param_names)
        assert all(a.annotation is not None for a in fn.args.args)
        assert len(program.param_types) == spec.n_params
        assert unused_params(program.code, program.entry_point) == []


def test_loops_are_bounded_by_construction():
    for _, program in PROGRAMS:
        for node in ast.walk(ast.parse(program.code)):
            if isinstance(node, ast.While):
                assert isinstance(node.test, ast.Compare) and isinstance(node.test.ops[0], ast.Gt)
                first = node.body[0]
                assert isinstance(first, ast.AugAssign) and isinstance(first.op, ast.Sub)
                assert first.target.id == node.test.left.id


def test_target_coverage_over_a_small_sample():
    targeted = {spec.target for spec, _ in PROGRAMS}
    assert len(targeted) >= 100  # of ~180 method/function targets, in 300 draws


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**40), level=st.sampled_from(LEVELS))
def test_every_synthesized_program_terminates(seed, level):
    # loops are bounded by construction (for over finite values, while over a decreasing counter):
    # with inputs of at most 10 elements and ints up to 12, 100,000 line events always suffice;
    # the pipeline's tighter 5,000-event budget is a filter (step_budget) on top of that.
    spec = spec_for(level, seed)
    try:
        program = generate(spec, seed)
    except GenFail:
        return
    for args in draw_inputs(program.param_types, seed, 3, min_size=spec.min_size, max_size=spec.max_size):
        trace = trace_call(program.code, format_call(program.entry_point, args), max_steps=100_000, timeout=20.0)
        assert trace.status not in (Status.STEP_LIMIT, Status.TIMEOUT), program.code


def test_normalized_hash_abstracts_names_and_literals_only():
    a = "def f(xs: list[int]) -> int:\n    total = 0\n    for x in xs:\n        total += x * 2\n    return total\n"
    b = "def g(nums: list[int]) -> int:\n    acc = 5\n    for n in nums:\n        acc += n * 3\n    return acc\n"
    c = "def g(nums: list[int]) -> int:\n    acc = 5\n    for n in nums:\n        acc += n + 3\n    return acc\n"
    assert normalized_hash(a) == normalized_hash(b) != normalized_hash(c)


def test_targets_are_methods_and_functions():
    assert targets() and all(not t.startswith("op.") for t in targets())


def test_bad_arguments():
    with pytest.raises(InvalidArgument):
        generate("str.split", 0)
    with pytest.raises(InvalidArgument):
        spec_for(7, 0)


def test_finishing_wrappers_keep_the_information_they_wrap():
    for _, program in PROGRAMS:
        for collapsing in ("max(abs(", "range(min(abs(", "len(list(sorted(", "len(list(set("):
            assert collapsing not in program.code, program.code


def test_conditions_avoid_tests_inputs_cannot_make_go_both_ways():
    from execverify_data.synth.generator import _blind_test
    from execverify_data.synth.ir import Expr, T

    def e(text, type_text, reads):
        return Expr(ast.parse(text, mode="eval").body, T(type_text), frozenset(), frozenset(reads))

    word = e("word", "str", {"word"})
    assert _blind_test(e("word == 'blue'", "bool", {"word"}), word)
    assert _blind_test(e("word not in ['a', 'b']", "bool", {"word"}), word)
    assert not _blind_test(e("'a' in word", "bool", {"word"}), word)  # a literal in the input: goes both ways
    assert not _blind_test(e("word == other", "bool", {"word", "other"}), word)
    assert not _blind_test(e("word < 'm'", "bool", {"word"}), word)
    n = e("n", "int", {"n"})
    assert not _blind_test(e("n in (2, 5)", "bool", {"n"}), n)  # small ints are hit often
    words = e("words", "list[str]", {"words"})
    assert _blind_test(e("not words", "bool", {"words"}), words, param=True)  # inputs are never empty
    assert not _blind_test(e("not words", "bool", {"words"}), words, param=False)  # a derived list may be
    assert _blind_test(e("any(words)", "bool", {"words"}), words, param=True)
    assert not _blind_test(e("all(words)", "bool", {"words"}), words, param=True)  # '' is among the elements
    assert _blind_test(e("all(word)", "bool", {"word"}), word, param=True)


def test_a_lambda_for_a_typed_callable_returns_that_type():
    import random

    from execverify_data.synth.exprs import ExprBuilder
    from execverify_data.synth.ir import Scope, T

    builder = ExprBuilder(random.Random(0), Scope(), allow_other=True, target="builtin.map")
    for seed in range(40):
        builder.rng = random.Random(seed)
        for arg, result in (("str", "int"), ("str", "str"), ("int", "bool"), ("int", "str")):
            lam = builder.callable_arg(T(f"Callable[[{arg}], {result}]"), "function")
            value = eval(compile(ast.Expression(lam.node), "<lambda>", "eval"))("kiwi" if arg == "str" else 7)  # trusted: our own lambda
            assert type(value).__name__ == result, (ast.unparse(lam.node), result)


def test_no_trace_depends_on_the_hash_seed():
    # sets of strings iterate in an order that changes with PYTHONHASHSEED; the generator never lets
    # one reach an order-sensitive use (join, unpacking, repr, pop, sorted with a key...)
    from execverify_data.synth.retrace import Retracer

    jobs = []
    for spec, program in PROGRAMS:
        args = draw_inputs(program.param_types, program.seed, 3, min_size=spec.min_size, max_size=spec.max_size)
        jobs.append((program.code, [format_call(program.entry_point, a) for a in args]))
    with Retracer(max_steps=5000, timeout=5.0, hash_seed="2") as two, Retracer(max_steps=5000, timeout=5.0, hash_seed="3") as three:
        differ = [code for code, calls in jobs if calls and two.digests(code, calls) != three.digests(code, calls)]
    assert not differ, differ[:2]


def test_order_sensitive_uses_of_string_sets_are_refused():
    from execverify_data.synth.exprs import _hash_ordered, _order_free
    from execverify_data.synth.ir import T

    assert _hash_ordered(T("set[str]")) and _hash_ordered(T("frozenset[bytes]")) and not _hash_ordered(T("set[int]"))
    assert not _hash_ordered(T("list[str]"))
    for entry in ("str.join", "builtin.list", "builtin.repr", "builtin.enumerate", "op.fstring", "op.unpack_list", "set.pop"):
        assert not _order_free(entry, keyed=False), entry
    for entry in ("builtin.sorted", "builtin.len", "op.in", "set.union", "frozenset.issubset", "op.bitor"):
        assert _order_free(entry, keyed=False), entry
    assert not _order_free("builtin.sorted", keyed=True) and not _order_free("builtin.max", keyed=True)
