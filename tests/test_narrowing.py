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
