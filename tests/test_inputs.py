"""Inputs: seeded typed draws, Hypothesis strategies, type-preserving mutation."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from execverify_data.catalog.typelang import conforms
from execverify_data.errors import InvalidArgument
from execverify_data.inputs import (
    Hints,
    draw,
    draw_inputs,
    iter_inputs,
    mutate,
    strategy,
)
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
        lambda: draw_inputs(("int",), seed=0, k=2, hints=["an"]),
        lambda: strategy("str", min_size=-1),
    ],
)
def test_bad_arguments(call):
    with pytest.raises(InvalidArgument):
        call()


HINTED = Hints.of_source(
    "def f(word: str, tags: list[str], n: int, raw: bytes) -> int:\n"
    "    if 'zq' in word or word.isdigit() or raw.startswith(b'qq'):\n"
    "        return tags.count('wub') + 17\n"
    "    return n - 100\n"
)


def test_hints_are_the_programs_short_literals():
    assert HINTED.strs == ("zq", "wub") and HINTED.bytes_ == (b"qq",)
    assert HINTED.ints == (17,)  # -100 (a unary minus of 100) is out of the hinted range


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_hinted_draws_keep_types_and_size_bounds(seed):
    types = ("str", "list[str]", "int", "bytes")
    for args in draw_inputs(types, seed, 4, min_size=6, max_size=10, hints=HINTED):
        assert all(conforms(a, t) for a, t in zip(args, types))
        assert 6 <= len(args[0]) <= 10 and 6 <= len(args[1]) <= 10 and 6 <= len(args[3]) <= 10


def test_hints_make_literal_conditions_go_both_ways():
    types = ("str", "list[str]", "int", "bytes")
    plain = [a for s in range(300) for a in draw_inputs(types, s, 3)]
    hinted = [a for s in range(300) for a in draw_inputs(types, s, 3, hints=HINTED)]
    assert draw_inputs(types, 7, 3, hints=HINTED) == draw_inputs(types, 7, 3, hints=HINTED)

    def share(inputs, test):
        return sum(map(test, inputs)) / len(inputs)

    for test in (lambda a: "zq" in a[0], lambda a: a[0].isdigit(), lambda a: "wub" in a[1],
                 lambda a: a[2] in (16, 17, 18), lambda a: b"qq" in a[3]):
        assert share(plain, test) < 0.01 and 0.02 < share(hinted, test) < 0.6, test


@pytest.mark.parametrize("predicate", sorted(__import__("execverify_data.inputs", fromlist=["x"]).PREDICATE_STYLES))
def test_a_predicate_the_program_calls_is_true_for_some_inputs(predicate):
    hints = Hints.of_source(f"def f(text: str, raw: bytes) -> bool:\n    return text.{predicate}() or raw.{predicate}()\n")
    plain = [a for s in range(200) for a in draw_inputs(("str", "bytes"), s, 3)]
    hinted = [a for s in range(200) for a in draw_inputs(("str", "bytes"), s, 3, hints=hints)]
    for position in (0, 1):
        if predicate in ("isdecimal", "isnumeric", "isidentifier", "isprintable") and position == 1:
            continue  # not a bytes method (the test's str-only predicates)
        share = sum(getattr(a[position], predicate)() for a in hinted) / len(hinted)
        before = sum(getattr(a[position], predicate)() for a in plain) / len(plain)
        if predicate in ("islower", "isprintable", "isascii"):  # true for most uniform draws: the style makes it false
            assert share < before, (predicate, position, share, before)
        else:
            assert share > before + 0.05, (predicate, position, share, before)


def test_inputs_drawn_one_at_a_time_are_the_listed_ones():
    """The filters read candidates lazily (``iter_inputs``); stopping early must not change what is drawn."""
    hints = Hints.of_source("def f(xs, w):\n    return w in xs and 'ab' in w or len(xs) > 3\n")
    for seed in range(150):
        types = random.Random(seed).sample(PARAM_TYPES, 2)
        for kwargs in ({}, {"hints": hints, "mutation_rate": 0.7}, {"seeds": [tuple(draw(t, random.Random(-seed)) for t in types)]}):
            listed = draw_inputs(types, seed, 12, **kwargs)
            lazy = iter_inputs(types, seed, 12, **kwargs)
            assert [next(lazy) for _ in range(5)] == listed[:5]  # the first few, then the rest later
            assert [*listed[:5], *lazy] == listed


def test_a_parsed_module_gives_the_hints_of_its_text():
    import ast

    code = "def f(word):\n    return word.isupper() or word.count('ab') > 2\n"
    from_tree, from_text = Hints.of_source(ast.parse(code)), Hints.of_source(code)
    assert [getattr(from_tree, n) for n in Hints.__slots__] == [getattr(from_text, n) for n in Hints.__slots__]
    assert from_text.strs == ("ab",) and from_text.styles == ("upper",)


# ------------------------------------------------------------------ narrowing (from-code: what raised narrows the domain)


def _fresh(types, domains, hints=None, k=40, seed=0):
    """Fresh draws only (mutations may leave a narrowing: near misses)."""
    return draw_inputs(types, seed, k, min_size=0, max_size=8, mutation_rate=0.0, hints=hints, domains=domains)


@pytest.mark.parametrize("rule, check", [
    ("min1", lambda xs: len(xs) >= 1),
    ("min3", lambda xs: len(xs) >= 3),
    ("long", lambda xs: len(xs) >= 8),
    ("size3", lambda xs: len(xs) == 3),
    ("nonneg", lambda xs: all(x >= 0 for x in xs)),
    ("pos", lambda xs: all(x > 0 for x in xs)),
    ("nonzero", lambda xs: 0 not in xs),
    ("sorted", lambda xs: xs == sorted(xs)),
])
def test_a_narrowing_holds_on_every_fresh_draw_of_a_list(rule, check):
    draws = _fresh(("list[int]",), ("+" + rule,))
    assert len(draws) == 40 and all(check(xs) for (xs,) in draws)
    assert not all(check(xs) for (xs,) in _fresh(("list[int]",), ("",)))  # the plain domain breaks it


def test_string_narrowings_draw_keys_digits_and_fields_of_the_program():
    code = ("RATES = {'standard': 0.2, 'reduced': 0.05}\n"
            "def f(lines, t):\n    h, m = t.split(':')\n    return sum(RATES[k] * q for k, q in lines) + int(h)\n")
    hints = Hints.of_source(code)
    assert hints.keys == ("standard", "reduced") and hints.splits == ((":", 2),)
    for lines, t in _fresh(("list[tuple[str, int]]", "str"), ("+keys", "numfields"), hints):
        assert all(k in ("standard", "reduced") for k, _ in lines)
        h, m = t.split(":")
        assert h.isdigit() and m.isdigit()
    assert all(s.isdigit() for (s,) in _fresh(("str",), ("+digits+min1",), hints))


def test_record_narrowing_gives_dicts_the_keys_the_body_subscripts():
    hints = Hints.of_source("def f(row):\n    return row['price'] * row.get('qty', 1)\n")
    assert set(hints.fields) == {"price", "qty"}
    assert all({"price", "qty"} <= set(row) for (row,) in _fresh(("dict[str, int]",), ("+record",), hints))


def test_pattern_domain_draws_texts_the_programs_regular_expression_matches():
    import re

    code = "import re\nISO = re.compile(r'^(\\d{4})-(\\d{2})-(\\d{2})$')\ndef f(s):\n    return ISO.match(s) is not None\n"
    hints = Hints.of_source(code)
    draws = [s for (s,) in _fresh(("str",), ("pattern",), hints)]
    matched = sum(bool(re.match(hints.patterns[0], s)) for s in draws)
    assert 0.5 * len(draws) <= matched < len(draws)  # mostly matches, with near misses for the other branch


def test_sentence_domain_draws_several_whole_words():
    draws = [s for (s,) in _fresh(("str",), ("sentence",))]
    assert sum(len(s.split()) >= 3 for s in draws) >= len(draws) // 2
    assert max(len(s) for s in draws) > 8  # not cut to the size bounds of a plain text


def test_domains_without_narrowing_draw_as_before():
    """A narrowing consumes no randomness unless asked for: synthesize's draws do not move."""
    assert _fresh(("list[int]", "str"), ("", "digits")) == _fresh(("list[int]", "str"), ("", "digits+"))


def test_numbers_of_any_size_are_drawn_around_and_only_where_given():
    """A function's own numbers (``score >= 90``) are drawn below, at and above, for ints and floats; hints
    without numbers (the generator's) draw floats from the fixed pool as before."""
    near = Hints(numbers=(90, 2.5))
    ints = [a for (a,) in draw_inputs(("int",), seed=1, k=40, hints=near)]
    floats = [a for (a,) in draw_inputs(("float",), seed=1, k=40, hints=near)]
    assert {89, 90, 91} & set(ints) and any(89 <= x <= 91 for x in floats)
    plain = [a for (a,) in draw_inputs(("float",), seed=1, k=20, hints=Hints.of_source("def f(x):\n    return x > 90\n"),
                                       mutation_rate=0.0)]
    assert all(abs(x) < 20 for x in plain)


def test_record_fields_are_drawn_with_the_types_the_body_reads_at_them():
    hints = Hints(fields=("title", "tags"), field_types={"title": "str", "tags": "list[str]"})
    kind = "list[dict[str, str | list[str] | int]]"
    drawn = draw_inputs((kind,), seed=2, k=30, hints=hints, domains=("+record",))  # mutations included: no TypeError
    fresh = [rows for (rows,) in draw_inputs((kind,), seed=2, k=10, hints=hints, domains=("+record",), mutation_rate=0.0)]
    assert len(drawn) == 30 and any(fresh)
    assert all(isinstance(r["title"], str) and isinstance(r["tags"], list) for rows in fresh for r in rows)


def test_cells_domain_draws_square_grids_of_the_compared_strings():
    hints = Hints(strs=("X", "O", "draw"), cells=("",))
    grids = [g for (g,) in draw_inputs(("list[list[str]]",), seed=0, k=12, hints=hints, domains=("cells",), mutation_rate=0.0)]
    assert all(len(row) == len(g) for g in grids for row in g)
    assert {c for g in grids for row in g for c in row} == {"", "X", "O"}


def test_docstring_examples_are_drawn_as_given_and_with_other_numbers_and_words():
    """The example domain: the texts a docstring quotes ('5+3', 'blitz'), the same shapes with other numbers
    ('12+0'), another of the program's words, and near misses: a parser meets its formats and its failures."""
    import re

    from execverify_data.param_types import hints

    src = ("MODES = {'blitz': (3, 2), 'rapid': (10, 5)}\n\n\ndef control(text):\n    \"\"\"'5+3' -> (300, 3); 'blitz'.\"\"\"\n"
           "    if text in MODES:\n        return MODES[text]\n    base, inc = text.split('+')\n    return int(base) * 60, int(inc)\n")
    drawn = [a[0] for seed in range(5) for a in draw_inputs(["str"], seed, 40, hints=hints(src, "control"),
                                                              domains=["example"], mutation_rate=0.0)]
    assert {"5+3", "blitz"} <= set(drawn)
    assert any(re.fullmatch(r"\d\+\d", d) and d != "5+3" for d in drawn)
    assert "rapid" in drawn


def test_records_sometimes_repeat_an_earlier_one_but_for_one_field():
    """Code that merges records by a key meets the same record twice, the quantity or the price changed (issue 30:
    merge_duplicate_items raises on a price mismatch and adds quantities otherwise)."""
    from execverify_data.param_types import hints

    src = ("def merge(cart):\n    out = {}\n    for item in cart:\n        sku = item['sku']\n        if sku in out:\n"
           "            if out[sku]['price'] != item['price']:\n                raise ValueError(sku)\n"
           "            out[sku]['qty'] += item['qty']\n        else:\n            out[sku] = dict(item)\n    return out\n")
    fields = ("sku", "price", "qty")
    lists = [a[0] for a in draw_inputs(["list[dict[str, int]]"], 5, 30, hints=hints(src, "merge"), domains=["+record"])]

    def twins(cart) -> bool:
        return any(sum(a.get(f) == b.get(f) for f in fields) >= 2 for k, a in enumerate(cart) for b in cart[:k])

    assert sum(map(twins, lists)) >= 10


def test_a_format_a_docstring_names_is_drawn_filled_in():
    """``'YYYY-MM-DD'`` in a docstring names a format without showing one: the example domain fills it in
    (issue 30: parse_date and day_number of the seventh folder were given up)."""
    import re

    drawn = [a[0] for a in draw_inputs(["str"], 4, 30, hints=Hints(examples=("YYYY-MM-DD", "HH:MM")), domains=["example"],
                                       mutation_rate=0.0)]
    filled = [d for d in drawn if re.fullmatch(r"(19|20)\d\d-(0[1-9]|1[0-2])-[0-2]\d|([01]\d|2[0-3]):[0-5]\d", d)]
    assert len(filled) >= 15
