"""Generator 3.0's construction rules (issue #28), each checked on programs built through the public entry points
(``spec_for`` + ``generate``) and measured by instruments written apart from the generator; generator 2.2 breaks
every one of them."""

from __future__ import annotations

import ast
import re

import pytest

from execverify_data import naturalness as nat
from execverify_data.seeds import row_seed
from execverify_data.synth.generator import GenFail, generate, spec_for
from execverify_data.synth.tasks import CHAINS, places

LEVELS = (3, 4, 5, 6)


def _composed(per_level: int, levels=LEVELS) -> list:
    out = []
    for level in levels:
        for i in range(per_level):
            seed = row_seed(28, level * 1000 + i)
            spec = spec_for(level, seed)
            try:
                program = generate(spec, seed)
            except GenFail:
                continue
            out.append((spec, program))
    return out


PROGRAMS = _composed(60)
DESCRIBED = [(s, p) for s, p in PROGRAMS if p.description]


def test_most_programs_of_levels_3_to_6_are_purpose_first():
    """A described program is one the task composer built (the 2.2 builder writes none)."""
    assert len(DESCRIBED) >= 0.5 * len(PROGRAMS), (len(DESCRIBED), len(PROGRAMS))
    assert {p.level for _, p in DESCRIBED} == set(LEVELS)


def test_a_description_names_every_parameter_and_says_what_is_returned():
    for _, program in DESCRIBED:
        text = program.description
        assert text[0].isupper() and text.endswith("."), text
        assert "return" in text.lower(), text
        for name in program.param_names:
            assert f"`{name}`" in text, (name, text, program.code)


def test_no_comparison_with_a_bare_number_that_is_not_a_task_constant():
    """Gates such as ``if len(words) > 9:`` (generator 2.2: 9.8% of programs, CRUXEval 1.1%): a number compared with
    a length or a parameter is a parameter itself."""
    gated = [p.code for _, p in DESCRIBED if nat.bare_literal_gates(p.code)]
    assert not gated, gated[:2]


def test_a_guard_folded_into_the_streams_test_is_said():
    """``int(ch)`` needs ``ch.isdigit()``; where that guard joins the stream's own test (``if ch == letter and
    ch.isdigit():``) the description says it too (a reader found "the characters ... that are `letter`" with the
    digit test left out), and a guard the test already is is not written twice."""
    guarded = [p for _, p in _composed(700, levels=(4, 5)) if p.description and " and " in p.code
               and ".isdigit()" in p.code]
    assert len(guarded) >= 3
    for program in guarded:
        assert "digit" in program.description, (program.description, program.code)
        assert not re.search(r"(\w+\.isdigit\(\)) and \1", program.code), program.code


def test_a_loop_returns_only_on_a_match():
    """No ``for`` whose body returns on its first pass: a return inside a loop is under a test."""
    for _, program in DESCRIBED:
        for node in ast.walk(ast.parse(program.code)):
            if isinstance(node, (ast.For, ast.While)):
                assert not any(isinstance(s, ast.Return) for s in node.body), program.code


def test_every_class_of_a_classification_adds_to_the_one_result():
    """An ``if``/``elif`` whose arms build different things (2.2's ``hits += 1`` beside ``built += part``) is not
    written: the arms of a classification update one result, or one tuple of counts that is returned whole."""
    for _, program in DESCRIBED:
        tree = ast.parse(program.code)
        returned = {ast.unparse(n.value) for n in ast.walk(tree) if isinstance(n, ast.Return) and n.value is not None}
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and node.orelse and isinstance(node.orelse[0], ast.If):
                targets = set()
                for arm in (node.body, node.orelse[0].body, node.orelse[0].orelse):
                    for stmt in arm:
                        if isinstance(stmt, ast.AugAssign):
                            targets.add(stmt.target.id)
                if targets:
                    assert all(any(t in r for r in returned) for t in targets), program.code


def test_a_level_6_helper_does_what_its_name_says():
    """The helper is a named sub-task (``is_prime``, ``digit_sum``...) or a test named for what it tests; 2.2 wrote
    ``keeps_text`` for ``'e' not in text``."""
    from execverify_data.synth.tasks import _SUBS

    subs = {s.name for s in _SUBS}
    named = re.compile(r"^(is|has|starts_with|ends_with|contains|lacks|fits|repeats)(_[a-z0-9]+)*$")
    helpers = [h for _, p in DESCRIBED if p.level == 6 for h in p.helpers]
    assert helpers
    assert all(h in subs or named.match(h) for h in helpers), helpers
    assert sum(h in subs for h in helpers) >= len(helpers) / 3


def test_a_helper_is_more_than_the_call_it_makes():
    """A helper holding one test is worth a name: not one method of its argument (``return ch.isdigit()``) nor its
    argument compared with a number or a parameter (``return num > limit``), which the 3.0 composer moved into
    ``is_digit`` and ``is_above`` until a fallback made every level-6 program find a helper."""
    for _, program in DESCRIBED:
        for node in ast.parse(program.code).body:
            if not (isinstance(node, ast.FunctionDef) and node.name in program.helpers and len(node.body) == 1):
                continue
            value = node.body[0].value
            arg = node.args.args[0].arg
            one_method = (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and not value.args
                          and ast.unparse(value.func.value) == arg)
            compared = (isinstance(value, ast.Compare) and ast.unparse(value.left) == arg
                        and all(isinstance(c, ast.Name) or (isinstance(c, ast.Constant) and type(c.value) in (int, float))
                                for c in value.comparators))
            assert not (one_method or compared), program.code


def test_spec_for_draws_the_chains_of_tasks():
    for spec, program in DESCRIBED:
        assert spec.control_flow in CHAINS[len(spec.control_flow)]
        assert places(spec.target, spec.control_flow)


def test_composition_is_deterministic():
    for spec, program in DESCRIBED[::15]:
        assert generate(spec, program.seed) == program


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    import pyarrow.parquet as pq

    from execverify_data.pipeline import SynthConfig, synthesize

    out = tmp_path_factory.mktemp("tasks") / "run"
    synthesize(SynthConfig(n_programs=120, seed=28, levels=(3, 4, 5, 6)), out, workers=1)
    return [r for p in sorted(out.glob("shard-*.parquet")) for r in pq.read_table(p).to_pylist()]


def test_every_call_of_a_kept_program_has_an_effect(rows):
    """Measured by the naturalness instrument on each row's own inputs: no call whose replacement by its receiver or
    first argument leaves every output the same (generator 2.2: 57% of programs had one on their first input)."""
    found = [(r["code"], sites) for r in rows
             if (sites := nat.effectless_sites(r["code"], r["entry_point"], r["inputs"]))]
    assert not found, found[:2]
    assert sum(bool(r["description"]) for r in rows) >= 0.5 * len(rows)


def test_a_digit_is_not_written_as_a_number_in_another_base():
    """A decimal or binary digit (0-9, 0-1) is not turned into hex, bytes, bits or a character: a reader graded
    2.2's and early 3.0's ``digit.to_bytes(2, 'big')``, ``bin(digit)``, ``digit.bit_length()`` 1 of 5 ("no
    purpose"); the number it comes from may be."""
    functions = {"bin", "oct", "hex", "chr"}
    methods = {"to_bytes", "bit_length", "bit_count"}
    for _, program in DESCRIBED:
        for node in ast.walk(ast.parse(program.code)):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            subject = (node.args[0] if isinstance(func, ast.Name) and func.id in functions and node.args
                       else func.value if isinstance(func, ast.Attribute) and func.attr in methods else None)
            assert not (isinstance(subject, ast.Name) and subject.id in ("digit", "bit")), program.code


def test_a_test_of_the_inner_items_is_said_of_them():
    """``for word in words: for ch in word: if ch.isdigit():`` is "the characters that are digits of each of the
    words in `words`": said after the outer walk ("the characters of each of the words in `words` that are
    digits"), a reader took the test for one of the words."""
    checked = 0
    for spec, program in _composed(300, levels=(5,)):
        if spec.control_flow != ("for", "for", "if") or not program.description:
            continue
        fn = ast.parse(program.code).body[-1]
        outer = next(n for n in fn.body if isinstance(n, ast.For))
        inner = next(n for n in outer.body if isinstance(n, ast.For))
        test = next(n for n in inner.body if isinstance(n, ast.If)).test
        read = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
        if inner.target.id in read and outer.target.id not in read:
            checked += 1
            assert re.search(r" that .+ of each of | its \w+ that ", program.description), (program.description,
                                                                                       program.code)  # (or per item)
    assert checked >= 5


def test_targets_are_drawn_as_often_as_code_calls_them():
    """A row's target is weighed by the standard library's calls (``target_weights``): a uniform draw over the 171
    targets gave bytes 40 of them (23% of rows), where readers found the least purpose; the methods people call most
    (``list.append``, ``str.split``, ``dict.get``) come first, and every target is still drawn."""
    from execverify_data.synth.generator import target_weights, targets

    drawn = [spec_for(1 + i % 6, row_seed(29, i)).target for i in range(3000)]
    bytes_share = sum(t.startswith("bytes.") for t in drawn) / len(drawn)
    assert bytes_share < 0.16, bytes_share  # (12.9%)
    weights = dict(zip(targets(), target_weights()))
    assert weights["list.append"] > weights["str.split"] > weights["bytes.split"] > weights["bytes.istitle"] >= 1.0
    assert drawn.count("list.append") > drawn.count("bytes.istitle")


def test_levels_3_to_6_draw_a_target_some_task_places_more_often():
    """A first target no task places (``list.insert``, ``builtin.repr``) is drawn again at levels 3-6 half of the time
    (``UNPLACED_KEPT``), instead of always going to the 2.2 builder (37% of the level 3-6 rows went there; 24% now:
    the 2.2 builder's programs keep a 20,000-program run from its row cap and write the entries no task uses)."""
    specs = [spec_for(level, row_seed(30, level * 1000 + i)) for level in LEVELS for i in range(150)]
    unplaced = [s for s in specs if not any(places(s.target, c) for n in CHAINS for c in CHAINS[n])]
    assert len(unplaced) <= 0.3 * len(specs), (len(unplaced), sorted({s.target for s in unplaced})[:5])


def test_a_string_cut_into_pieces_is_never_tested_or_walked_by_character():
    """Pieces of a fixed width filtered by a test (``if piece.isidentifier():``) or walked character by character
    were 'a puzzle' to every reader; pieces are kept only where they are the result (a chain of one ``while``)."""
    cut = [(s, p) for s, p in DESCRIBED if "rest = rest[" in p.code]
    assert all(s.control_flow == ("while",) for s, _ in cut), [p.code for s, p in cut if s.control_flow != ("while",)]


def test_a_count_or_sum_over_each_items_parts_may_be_kept_per_item():
    """The vowels of each word counted, the digits of each number summed: the inner fold starts inside the outer walk
    and its value is kept per outer item, in a list or a dict keyed by the item, and the description says so."""
    kept = [p for s, p in _composed(150, levels=(4, 5, 6)) if re.search(r"\b(\w+)_by_\w+\[\w+\] = |"
                                                                         r"\b(counts|totals|peaks|rewritten|collected|joined)\.append\(",
                                                                         p.code)]
    assert len(kept) >= 10, len(kept)  # (none before: the parts of every item went into one flat result)
    for p in kept:
        main = next(f for f in ast.parse(p.code).body if isinstance(f, ast.FunctionDef) and f.name == p.entry_point)
        outer = next(s for s in main.body if isinstance(s, (ast.For, ast.While)))
        inits = [s for s in ast.walk(outer) if isinstance(s, ast.Assign)
                 and (isinstance(s.value, ast.Constant) or (isinstance(s.value, ast.List) and not s.value.elts))]
        assert inits, p.code  # the inner accumulator starts again for each outer item
        assert p.description.startswith(("Return a list holding, for each of", "Return a dict mapping each of")), \
            p.description


def test_a_level_1_or_2_input_is_prepared_only_as_people_clean_or_order_data():
    """``ordered = bytes(sorted(raw))``, ``swapped = text.swapcase()``, ``backwards = ''.join(reversed(word))`` before
    the target's use read as arbitrary to every reader (bytes(sorted(...)) alone was 7% of levels 1-2)."""
    odd = re.compile(r"bytes\(sorted\(|\.swapcase\(\)|\.capitalize\(\)|\.title\(\)|''\.join\(reversed\(|\[::2\]")
    written = []
    for level in (1, 2):
        for i in range(300):
            seed = row_seed(31, level * 1000 + i)
            spec = spec_for(level, seed)
            if spec.target in ("str.swapcase", "str.capitalize", "str.title", "builtin.reversed", "bytes.swapcase",
                               "bytes.capitalize", "bytes.title", "builtin.bytes", "builtin.sorted"):
                continue  # the target's own use
            try:
                written.append(generate(spec, seed).code)
            except GenFail:
                continue
    prepared = [c for c in written if odd.search(c.split("\n", 2)[1])]
    assert len(written) > 300 and not prepared, (len(written), prepared[:2])


BYTES_AND_CODES = [(s, p) for s, p in _composed(200, levels=(4, 5, 6)) if p.description]


def test_a_byte_is_tested_for_what_it_encodes_and_a_code_is_a_value_only_where_codes_are_the_task():
    """``if byte % divisor == 0: out += chr(byte)`` and ``out += str(ord(ch))`` for the consonants had no purpose a
    reader could name (40 and 70 of 1,500 programs at 9229b67); a byte is tested as ASCII, printable, a digit's code
    or whitespace, and a character's code is computed only where ``ord`` is the row's target."""
    bytes_tested = codes = 0
    for spec, program in BYTES_AND_CODES:
        tree = ast.parse(program.code)
        for node in ast.walk(tree):
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and node.target.id == "byte":
                for test in (n.test for n in ast.walk(node) if isinstance(n, ast.If)):
                    src = ast.unparse(test)
                    if "byte" in src:
                        bytes_tested += 1
                        assert re.fullmatch(r"byte < 128|32 <= byte < 127|48 <= byte <= 57|byte in b' \\t\\n'|"
                                            r"is_\w+\(byte\)", src), program.code
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ord"
                    and not isinstance(node.args[0], ast.Constant)):  # (``ord('a') + n % 26``: a letter's place)
                codes += 1
                assert spec.target == "builtin.ord" or "rot13" in program.code, program.code
    assert bytes_tested >= 3 and codes >= 1, (bytes_tested, codes)


def test_no_loop_copies_each_item_it_walks_unchanged():
    """``for ch in word: parts.append(ch)`` (or ``out += ch``) with no test between is the walk's own list or string
    (``list(word)``, ``word``): a reader reads a roundabout copy. An item is collected as it is only once a test has
    narrowed it."""
    for _, program in BYTES_AND_CODES:
        for node in ast.walk(ast.parse(program.code)):
            if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name)):
                continue
            var = node.target.id
            for stmt in node.body:
                copied = (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                          and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr in ("append", "add")
                          and isinstance(stmt.value.func.value, ast.Name)
                          and [ast.unparse(a) for a in stmt.value.args] == [var]) or (
                    isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and ast.unparse(stmt.value) == var
                    and not isinstance(node.iter, ast.Call))
                assert not copied, program.code


def test_an_item_whose_parts_are_walked_is_never_tested_for_being_empty():
    """``if not word: for ch in word:`` walks nothing: the loop is dead code a reader sees at once."""
    for _, program in BYTES_AND_CODES:
        for node in ast.walk(ast.parse(program.code)):
            if isinstance(node, ast.If) and isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not):
                empty = ast.unparse(node.test.operand)
                walks = [n for s in node.body for n in ast.walk(s) if isinstance(n, (ast.For, ast.While))
                         and empty in ast.unparse(n.iter if isinstance(n, ast.For) else n.test)]
                assert not walks, program.code


def test_nested_loops_walk_nested_data():
    """``for word in words: for ch in word:`` was the only nested walk besides bytes; people nest loops over nested
    data: the words of each line of a text, the numbers of each row of a table. Those take about half of the nested
    walks, their inputs are drawn in that shape, and a row (a list) is never a dict key."""
    from execverify_data.inputs import draw_inputs

    nested = [(s, p) for s, p in BYTES_AND_CODES if s.control_flow[:2] == ("for", "for")
              or s.control_flow == ("for", "if", "for")]
    data = [(s, p) for s, p in nested if "for line in text.splitlines():" in p.code or "for row in rows:" in p.code]
    assert 0.25 * len(nested) <= len(data) <= 0.75 * len(nested), (len(data), len(nested))
    for spec, program in data:
        assert "dict[list" not in program.code and "_by_row[row]" not in program.code, program.code
        assert re.search(r"the (lines|rows) of `(text|rows)`", program.description), program.description
        lines = "for line in text.splitlines():" in program.code
        i = program.param_names.index("text" if lines else "rows")
        drawn = [args[i] for args in draw_inputs(program.param_types, 5, 6, domains=program.param_domains)]
        if lines:
            assert any(len(t.splitlines()) > 1 and len(t.split()) > 3 for t in drawn), drawn
        else:
            assert all(isinstance(r, list) and all(isinstance(x, int) for x in r) for g in drawn for r in g), drawn


def test_a_parameter_is_compared_with_in_one_test_only():
    """``if letter not in line:`` then ``if letter in word:`` for the line's words never holds; ``x <= limit`` then
    ``x > limit`` is a puzzle: a parameter of the task is what one test compares with."""
    for _, program in BYTES_AND_CODES:
        main = next(f for f in ast.parse(program.code).body if isinstance(f, ast.FunctionDef)
                    and f.name == program.entry_point)
        params = {a.arg for a in main.args.args}
        tests = [n.test for n in ast.walk(main) if isinstance(n, (ast.If, ast.While))]
        for p in params:
            reading = [t for t in tests if any(isinstance(x, ast.Name) and x.id == p for x in ast.walk(t))]
            assert len(reading) <= 1, program.code


def test_a_classification_sorts_items_into_classes_people_use():
    """Two tests drawn apart ("an even digit count, else a power of two") read as an arbitrary classification; where
    the classes carry the target's test or the task needs no call of them, they are a pair people sort items into
    (digits and letters, upper and lower case, negative and zero, blank lines and comments), counted under their
    names."""
    import random as _random

    from execverify_data.synth.spec import ConstraintSpec
    from execverify_data.synth.tasks import _CLASSES, NoTask, compose

    pairs = {(grain, a[0].text, b[0].text) for grain, grains in _CLASSES.items() for a, b in grains}
    grain_of = {"ch": "char", "word": "word", "field": "word", "num": "num", "line": "text"}
    curated = 0
    for target in ("str.isdigit", "str.isupper", "str.split"):
        for seed in range(40):
            spec = ConstraintSpec(target, control_flow=("for", "if-elif"), n_params=1, nested_depth=0,
                                  other_methods=True)
            try:
                program = compose(spec, _random.Random(seed), seed=seed)
            except NoTask:
                continue
            fn = ast.parse(program.code).body[-1]
            branch = next(n for n in ast.walk(fn) if isinstance(n, ast.If) and n.orelse
                          and isinstance(n.orelse[0], ast.If))
            var = next(n.target.id for n in ast.walk(fn) if isinstance(n, ast.For))
            tests = tuple(ast.unparse(t).replace(var, "{x}") for t in (branch.test, branch.orelse[0].test))
            if (grain_of.get(var), *tests) in pairs:
                curated += 1
                assert "first" not in program.code and "second" not in program.code, program.code
    assert curated >= 20, curated


def test_a_classification_never_adds_one_class_and_takes_away_another():
    """``total += v`` for one class and ``total -= v`` for another ("the sum of ... minus it for those that do not
    but ...") read as a puzzle; each class's values are summed apart and returned as a pair."""
    classified = [p for _, p in BYTES_AND_CODES if "elif" in p.code]
    assert classified
    for program in classified:
        assert not re.search(r"\btotal -= ", program.code), program.code
    summed = [p for p in classified if re.search(r"return \(\w+_total, \w+_total\)", p.code)]
    assert all(p.description.startswith("Over ") and "a pair of sums" in p.description for p in summed)
