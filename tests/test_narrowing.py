"""Narrowing from-code's input domains from what draws raised (execverify_data.narrowing)."""

from __future__ import annotations

import pytest

from execverify_data.narrowing import proposals, with_rule


@pytest.mark.parametrize("error, types, first", [
    ("IndexError: list index out of range", ("list[int]",), (0, "min1")),
    ("IndexError: string index out of range", ("int", "str"), (1, "min1")),
    ("ValueError: max() arg is an empty sequence", ("list[float]",), (0, "min1")),
    ("StatisticsError: mean requires at least one data point", ("list[int]",), (0, "min1")),
    ("ValueError: invalid literal for int() with base 10: 'kiwi'", ("str",), (0, "digits")),
    ("ValueError: could not convert string to float: 'x'", ("list[str]",), (0, "digits")),
    ("KeyError: 'platinum'", ("float", "str"), (1, "keys")),
    ("KeyError: 'price'", ("dict[str, int]",), (0, "keys")),
    ("ZeroDivisionError: division by zero", ("int", "int"), (0, "nonzero")),
    ("ValueError: math domain error", ("list[float]",), (0, "nonneg")),
    ("ValueError: not enough values to unpack (expected 3, got 2)", ("tuple[int, ...]",), (0, "size3")),
    ("ValueError: not enough values to unpack (expected 2, got 1)", ("str",), (0, "numfields")),
    ("ValueError: quantity must be positive", ("int",), (0, "pos")),
])
def test_each_failure_proposes_its_narrowing_first(error, types, first):
    assert proposals([error], types)[0] == first


def test_proposals_only_touch_parameters_whose_values_they_change():
    assert proposals(["KeyError: 'x'"], ("dict[str, int]",)) == [(0, "keys"), (0, "record")]
    assert proposals(["ZeroDivisionError: division by zero"], ("str",)) == [(0, "min1")]
    assert proposals(["TypeError: unsupported operand"], ("int",)) == []


def test_a_size_replaces_a_size():
    assert with_rule("+min1+nonneg", "min3") == "+min3+nonneg"
    assert with_rule("pattern", "keys") == "pattern+keys"


def test_checks_that_raise_are_read_through_a_trimmed_or_recased_copy():
    """``src, dst = from_unit.lower(), to_unit.lower()`` then ``if src not in GRAMS: raise``: both units are drawn
    among that table's keys (issue 30: convert_weight and convert_volume were given up)."""
    from execverify_data.narrowing import guard_proposals

    code = ("GRAMS = {'g': 1.0, 'kg': 1000.0}\n\n\ndef convert(amount, from_unit, to_unit):\n"
            "    src, dst = from_unit.lower(), to_unit.strip().lower()\n    if src not in GRAMS or dst not in GRAMS:\n"
            "        raise ValueError('unknown unit')\n    if amount < 0:\n        raise ValueError('negative')\n"
            "    return amount * GRAMS[src] / GRAMS[dst]\n")
    assert guard_proposals(code, "convert", ("float", "str", "str")) == [(1, "in:GRAMS"), (2, "in:GRAMS"), (0, "nonneg")]


def test_two_parameters_checked_for_one_length_are_drawn_that_long():
    """``if len(answers) != len(key): raise`` (issue 30: mark_round was given up): the key is drawn as long as the
    answers most of the time."""
    from execverify_data.inputs import draw_inputs
    from execverify_data.narrowing import guard_proposals

    code = ("def mark(answers, key):\n    if len(answers) != len(key):\n        raise ValueError('lengths')\n"
            "    return sum(a == k for a, k in zip(answers, key))\n")
    assert guard_proposals(code, "mark", ("list[str]", "list[str]")) == [(1, "len0")]
    drawn = draw_inputs(["list[str]", "list[str]"], 2, 20, domains=["", "+len0"], mutation_rate=0.0)
    assert sum(len(a) == len(b) for a, b in drawn) >= 15
