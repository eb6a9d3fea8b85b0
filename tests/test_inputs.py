"""Inputs: seeded typed draws, Hypothesis strategies, type-preserving mutation."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from execverify_data.catalog.typelang import conforms
from execverify_data.errors import InvalidArgument
from execverify_data.inputs import draw, draw_inputs, mutate, strategy
from execverify_data.synth.typing_ import PARAM_TYPES
from execverify_data.values import format_arguments, parse_arguments

TYPES = sorted(PARAM_TYPES) + ["tuple[int, str]", "dict[str, list[int]]", "int | None"]


def _size_ok(value, lo, hi):
    if isinstance(value, (str, bytes, list, set, frozenset, dict)) or (isinstance(value, tuple)):
        return len(value) <= hi
    return True


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), type_text=st.sampled_from(TYPES))
def test_draw_keeps_declared_type_and_size(seed, type_text):
    value = draw(type_text, random.Random(seed), min_size=6, max_size=10)
    assert conforms(value, type_text)
    assert _size_ok(value, 6, 10)
    if type_text in ("str", "bytes") or type_text.startswith(("list", "tuple[int, ...]", "tuple[str, ...]")):
        assert 6 <= len(value) <= 10


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), type_text=st.sampled_from(TYPES))
def test_mutation_keeps_declared_type(seed, type_text):
    rng = random.Random(seed)
    value = draw(type_text, rng)
    before = format_arguments((value,))
    mutated = mutate(value, type_text, rng)
    assert conforms(mutated, type_text)
    assert format_arguments((value,)) == before  # the original is not changed


@settings(max_examples=100, deadline=None)
@given(data=st.data(), type_text=st.sampled_from(TYPES))
def test_strategy_values_conform(data, type_text):
    assert conforms(data.draw(strategy(type_text)), type_text)


def test_draws_are_deterministic_from_the_seed():
    assert draw("dict[str, int]", random.Random(5)) == draw("dict[str, int]", random.Random(5))
    assert draw_inputs(("list[str]", "int"), seed=9, k=5) == draw_inputs(("list[str]", "int"), seed=9, k=5)
    assert draw_inputs(("list[str]", "int"), seed=9, k=5) != draw_inputs(("list[str]", "int"), seed=10, k=5)


def test_draw_inputs_are_distinct_literals():
    inputs = draw_inputs(("str", "list[int]"), seed=1, k=8)
    texts = [format_arguments(a) for a in inputs]
    assert len(inputs) == 8 and len(set(texts)) == 8
    for text, args in zip(texts, inputs):
        assert parse_arguments(text)[0] == args


def test_mutation_changes_most_values():
    rng = random.Random(0)
    changed = sum(mutate(v, "list[int]", rng) != v for v in (draw("list[int]", rng) for _ in range(50)))
    assert changed >= 40


@pytest.mark.parametrize(
    "call",
    [
        lambda: draw("lst[int]", random.Random(0)),
        lambda: draw("Callable[[int], int]", random.Random(0)),
        lambda: draw("int", random.Random(0), min_size=5, max_size=2),
        lambda: draw("int", 3),
        lambda: draw_inputs(("int",), seed=0, k=0),
        lambda: strategy("str", min_size=-1),
    ],
)
def test_bad_arguments(call):
    with pytest.raises(InvalidArgument):
        call()
