"""TRL rewards for execution reasoning: formulas, the gaming table, pickling, fuzzing."""

from __future__ import annotations

import json
import pickle
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from execverify_data.errors import InvalidArgument
from execverify_data.questions import Kind, Scorer, build
from execverify_data.rewards import (
    FormatReward,
    IOReward,
    OIReward,
    PaperReward,
    WhiteboxReward,
    format_reward,
    io_reward,
    oi_reward,
    paper_reward,
    whitebox_reward,
)

PROGRAM = """\
def f(s):
    seen = set()
    n = 0
    for ch in s:
        seen.add(ch)
        n += 1
    if n > 10:
        n = 10
    return n, seen
"""
CALL = "f('abca')"


@pytest.fixture(scope="module")
def row():
    """io + 2 path + 2 state questions; answers in the reference completion."""
    r = build(PROGRAM, CALL, seed=11, n_path=2, n_state=2)
    return r


@pytest.fixture(scope="module")
def oi_row():
    return build(PROGRAM, CALL, task="input", n_path=0, n_state=0, style="cruxeval")


def _block(lines):
    return "<answer>\n" + "\n".join(lines) + "\n</answer>"


def _answers(r):
    return r.reference_completion.split("\n")[1:-1]


def _whitebox(r, completion, reward=whitebox_reward):
    return reward([r.prompt], [completion], verification=[r.verification])[0]


# --------------------------------------------------------------------------- formulas


def test_reference_gets_the_maximum(row, oi_row):
    assert _whitebox(row, row.reference_completion) == 2.0
    assert io_reward([""], [row.reference_completion], verification=[row.verification]) == [1.0]
    assert format_reward([""], [row.reference_completion], verification=[row.verification]) == [1.0]
    assert oi_reward([""], [oi_row.reference_completion], verification=[oi_row.verification]) == [1.0]
    assert _whitebox(oi_row, oi_row.reference_completion) == 2.0  # no step asked: S = 1


def test_formula_final_gate_plus_step_fraction(row):
    answers = _answers(row)
    one_step_wrong = answers[:1] + ["999"] + answers[2:]
    assert _whitebox(row, _block(one_step_wrong)) == pytest.approx(1 + 3 / 4)
    final_wrong = ["(0, set())"] + answers[1:]
    assert _whitebox(row, _block(final_wrong)) == 0.0
    partial = WhiteboxReward(gate=False)
    assert _whitebox(row, _block(final_wrong), partial) == pytest.approx(1.0)
    weighted = WhiteboxReward(final_weight=2.0, step_weight=0.5)
    assert _whitebox(row, _block(one_step_wrong), weighted) == pytest.approx(2.0 + 0.5 * 3 / 4)


def test_not_applicable_rows_get_none(row, oi_row):
    verifications = [row.verification, oi_row.verification, None]
    completions = [row.reference_completion, oi_row.reference_completion, "anything"]
    assert io_reward(None, completions, verification=verifications) == [1.0, None, None]
    assert oi_reward(None, completions, verification=verifications) == [None, 1.0, None]
    assert whitebox_reward(None, completions, verification=verifications) == [2.0, 2.0, None]
    assert format_reward(None, completions, verification=verifications) == [1.0, 1.0, None]


def test_verification_as_json_string_and_chat_completions(row):
    messages = [{"role": "assistant", "content": row.reference_completion}]
    assert whitebox_reward([[]], [messages], verification=[json.dumps(row.verification)]) == [2.0]


def test_extra_dataset_columns_are_accepted(row):
    assert whitebox_reward(
        prompts=[row.prompt], completions=[row.reference_completion], verification=[row.verification], completion_ids=[[1]], id=["x"]
    ) == [2.0]


def test_argument_errors(row):
    with pytest.raises(InvalidArgument, match="verification"):
        whitebox_reward([""], ["x"])
    with pytest.raises(InvalidArgument, match="1 completions for 2"):
        whitebox_reward([""], ["x"], verification=[row.verification, row.verification])
    with pytest.raises(InvalidArgument, match="final_weight"):
        WhiteboxReward(final_weight=-1)
    with pytest.raises(InvalidArgument, match="gate"):
        WhiteboxReward(gate="yes")


def test_names_for_trl_logging():
    assert [r.__name__ for r in (whitebox_reward, io_reward, oi_reward, format_reward, paper_reward)] == [
        "whitebox_reward",
        "io_reward",
        "oi_reward",
        "format_reward",
        "paper_reward",
    ]


@pytest.fixture(scope="module")
def io_row():
    """A CRUXEval-style output question (the release's ``io`` config)."""
    return build(PROGRAM, CALL, n_path=0, n_state=0, style="cruxeval")


@pytest.mark.parametrize("text", ["hello world", "\x00\x7f\x03garbage", "5", "(4, {'a', 'b', 'c'})", "f('abca')"])
def test_format_reward_requires_the_answer_block_on_io_and_oi_rows(text, io_row, oi_row):
    # before: any non-empty text on an io row (and a bare call on an oi row) scored 1.0
    for r in (io_row, oi_row):
        assert format_reward([""], [text], verification=[r.verification]) == [0.0], (r.verification["style"], text)
        assert format_reward([""], [f"[ANSWER]\n{text}\n"], verification=[r.verification]) in ([0.0], [1.0])
    assert format_reward([""], [io_row.reference_completion], verification=[io_row.verification]) == [1.0]
    assert format_reward([""], [oi_row.reference_completion], verification=[oi_row.verification]) == [1.0]


def test_format_reward_reads_the_reasoning_style_answer_block():
    r = build(PROGRAM, CALL, seed=11, n_path=2, n_state=2, style="reasoning", rationale=True)
    assert r.prompt[0] == {"role": "system", "content": "You are a programming expert."}
    assert "<reasoning>" in r.prompt[1]["content"] and "<answer>" in r.prompt[1]["content"]
    assert r.reference_completion.startswith("<reasoning>\n") and "</reasoning>\n<answer>\n" in r.reference_completion
    assert format_reward([""], [r.reference_completion], verification=[r.verification]) == [1.0]
    assert paper_reward([""], [r.reference_completion], verification=[r.verification]) == [2.0]
    reasoning_only = r.reference_completion.split("<answer>")[0]
    assert format_reward([""], [reasoning_only], verification=[r.verification]) == [0.0]
    assert paper_reward([""], [reasoning_only], verification=[r.verification]) == [0.0]


def test_adding_the_reasoning_style_left_the_other_styles_bytes_alone():
    """The sha256 of ten renders in the execverify, chat and cruxeval styles, taken before the style was added."""
    import hashlib

    src = "def f(xs):\n    s = 0\n    for x in xs:\n        if x > 1:\n            s += x\n    return s\n"
    out = []
    for style in ("execverify", "chat"):
        for task in ("output", "input"):
            counts = {"n_path": 2, "n_state": 2} if task == "output" else {"n_path": 0, "n_state": 0}
            for rationale in (False, True):
                r = build(src, "f([1, 2, 3])", seed=3, style=style, task=task, rationale=rationale, **counts)
                out.append(json.dumps(r.to_json(), sort_keys=True))
    for task in ("output", "input"):
        r = build(src, "f([1, 2, 3])", n_path=0, n_state=0, style="cruxeval", task=task)
        out.append(json.dumps(r.to_json(), sort_keys=True))
    assert hashlib.sha256("\n".join(out).encode()).hexdigest() == \
        "991243649e6b12c5a6c3343bb1975e74ff53214278a289f243d5e3f8f9b36f9f"


def test_paper_reward_follows_the_papers_white_box_rule(row, oi_row):
    """The rule of the paper's ``white_box.py``: one reward per row, no format term."""
    answers = _answers(row)
    assert _whitebox(row, row.reference_completion, paper_reward) == 2.0
    one_step_wrong = answers[:1] + ["999"] + answers[2:]
    assert _whitebox(row, _block(one_step_wrong), paper_reward) == pytest.approx(1 + 3 / 4)
    assert _whitebox(row, _block(["(0, set())"] + answers[1:]), paper_reward) == 0.0  # final wrong
    # a count mismatch with a right final answer is the fixed value, whatever the steps
    assert _whitebox(row, _block(answers[:3]), paper_reward) == 1.0
    assert _whitebox(row, _block(answers + ["7"]), paper_reward) == 1.0
    assert _whitebox(row, _block(answers[:3]), PaperReward(mismatch=0.5)) == 0.5
    # oi rows: 2 or 0
    assert _whitebox(oi_row, oi_row.reference_completion, paper_reward) == 2.0
    assert _whitebox(oi_row, "[ANSWER]\nassert f('zz') == (4, {'a', 'b', 'c'})\n[/ANSWER]", paper_reward) == 0.0
    # a white-box row with no step question: the fixed value
    io_only = build(PROGRAM, CALL, n_path=0, n_state=0)
    assert _whitebox(io_only, io_only.reference_completion, paper_reward) == 1.0
    with pytest.raises(InvalidArgument, match="mismatch"):
        PaperReward(mismatch=-1)


# --------------------------------------------------------------------------- the gaming table


def _gaming_cases(row, oi_row):
    answers = _answers(row)
    big = "'" + "x" * (10 * 1024 * 1024) + "'"
    io_cases = {
        "assert f(x) == f(x)": [f"assert {CALL} == {CALL}"] + answers[1:],
        "f(<input>) as the output": [CALL] + answers[1:],
        "non-literal expression": ["__import__('os').getcwd()"] + answers[1:],
        "arithmetic instead of a literal": ["(2 + 2, {'a', 'b', 'c'})"] + answers[1:],
        "10 MB answer": [big] + answers[1:],
        "final answer in the wrong place": answers[1:] + answers[:1],
    }
    oi_cases = {
        "assert True": "assert True",
        "input call copied when the output differs": "assert f('abcab') == (4, {'a', 'b', 'c'})",
        "placeholder copied": "assert f(??) == (4, {'a', 'b', 'c'})",
        "non-literal argument": "assert f(__import__('os').name) == (4, {'a', 'b', 'c'})",
        "non-literal right-hand side": f"assert {CALL} == {CALL}",
        "10 MB answer": f"assert f({big}) == (4, {{'a', 'b', 'c'}})",
    }
    return io_cases, oi_cases


def test_gaming_table_scores_zero_on_the_final_answer(row, oi_row):
    io_cases, oi_cases = _gaming_cases(row, oi_row)
    for name, lines in io_cases.items():
        completion = _block(lines)
        assert _whitebox(row, completion) == 0.0, name
        assert io_reward([""], [completion], verification=[row.verification]) == [0.0], name
    for name, answer in oi_cases.items():
        completion = f"[ANSWER]\n{answer}\n[/ANSWER]"
        assert oi_reward([""], [completion], verification=[oi_row.verification]) == [0.0], name
        assert _whitebox(oi_row, completion) == 0.0, name
        assert _whitebox(oi_row, completion, paper_reward) == 0.0, name
    for name, lines in io_cases.items():
        assert _whitebox(row, _block(lines), paper_reward) == 0.0, name


def test_a_10mb_completion_is_rejected_fast(row):
    completion = row.reference_completion + "x" * (10 * 1024 * 1024)
    start = time.perf_counter()
    assert _whitebox(row, completion) == 0.0
    assert format_reward([""], [completion], verification=[row.verification]) == [0.0]
    assert time.perf_counter() - start < 1.0


def test_missing_and_extra_answer_lines_count_as_wrong(row):
    answers = _answers(row)
    assert _whitebox(row, _block(answers[:3])) == pytest.approx(1 + 2 / 4)  # two steps missing
    assert _whitebox(row, _block(answers[:1])) == pytest.approx(1.0)  # all steps missing
    assert _whitebox(row, _block(answers + ["7", "8"])) == pytest.approx(1 + 4 / 6)  # two extra lines
    assert format_reward([""], [_block(answers[:3])], verification=[row.verification]) == [0.0]
    assert format_reward([""], [_block(answers + ["7"])], verification=[row.verification]) == [0.0]


def test_answers_in_the_wrong_order(row):
    answers = _answers(row)
    swapped = [answers[0], answers[2], answers[1], answers[4], answers[3]]
    result = Scorer().score(row.verification, _block(swapped))
    assert result.correct[0]
    assert [answers[i] == swapped[i] for i in range(1, 5)] == list(result.correct[1:])


def test_state_right_value_wrong_type():
    r = build("def f(x):\n    y = x / 2\n    return y\n", "f(4)", n_path=0, n_state=1)
    assert _answers(r) == ["2.0", "2.0; float"]
    assert _whitebox(r, _block(["2.0", "2.0; int"])) == 1.0  # the step is wrong
    assert _whitebox(r, _block(["2.0", "2; int"])) == 1.0
    assert _whitebox(r, _block(["2.0", "2.0"])) == 1.0  # type missing
    assert _whitebox(r, _block(["2.0", "2.0; <class 'float'>"])) == 2.0


def test_set_answer_in_another_order_is_right():
    r = build("def f(s):\n    return set(s)\n", "f('cab')", n_path=0, n_state=0)
    for answer in ("{'a', 'b', 'c'}", "{'c', 'a', 'b'}", "set(['b', 'c', 'a'])"):
        assert io_reward([""], [_block([answer])], verification=[r.verification]) == [1.0], answer
    for answer in ("['a', 'b', 'c']", "frozenset({'a', 'b', 'c'})", "{'a', 'b'}"):
        assert io_reward([""], [_block([answer])], verification=[r.verification]) == [0.0], answer


def test_nan_is_right_where_the_value_is_nan():
    r = build("def f(x):\n    return x - x\n", "f(float('inf'))", n_path=0, n_state=0)
    assert _answers(r) == ["float('nan')"]
    for answer in ("float('nan')", "nan", "float('NaN')", "math.nan"):
        assert io_reward([""], [_block([answer])], verification=[r.verification]) == [1.0], answer
    for answer in ("0.0", "None", "'nan'", "float('inf')"):
        assert io_reward([""], [_block([answer])], verification=[r.verification]) == [0.0], answer
    r = build("def f(x):\n    return x * 2\n", "f(1.5)", n_path=0, n_state=0)
    assert io_reward([""], [_block(["nan"])], verification=[r.verification]) == [0.0]


def test_none_and_inf_answers():
    r = build("def f(x):\n    x.sort()\n    return x, float('-inf'), None\n", "f([2, 1])", n_path=0, n_state=0)
    assert io_reward([""], [_block(["([1, 2], float('-inf'), None)"])], verification=[r.verification]) == [1.0]
    assert io_reward([""], [_block(["([1, 2], -inf, None)"])], verification=[r.verification]) == [1.0]
    assert io_reward([""], [_block(["([1, 2], float('inf'), None)"])], verification=[r.verification]) == [0.0]
    assert io_reward([""], [_block(["([1, 2], float('-inf'), 'None')"])], verification=[r.verification]) == [0.0]


# --------------------------------------------------------------------------- pickling


@pytest.mark.parametrize(
    "reward",
    [whitebox_reward, io_reward, oi_reward, format_reward, paper_reward, WhiteboxReward(gate=False, step_weight=0.5),
     OIReward(oi_workers=1), IOReward(), FormatReward(), PaperReward(mismatch=0.5)],
    ids=lambda r: r.__name__,
)
def test_rewards_pickle_and_the_copy_works(reward, row, oi_row):
    reward([""], [oi_row.reference_completion], verification=[oi_row.verification])  # a live runner inside
    copy = pickle.loads(pickle.dumps(reward))
    assert copy.__name__ == reward.__name__
    verifications = [row.verification, oi_row.verification]
    completions = [row.reference_completion, oi_row.reference_completion]
    assert copy(None, completions, verification=verifications) == reward(None, completions, verification=verifications)


def test_unpickling_starts_no_process(oi_row):
    oi_reward([""], [oi_row.reference_completion], verification=[oi_row.verification])
    copy = pickle.loads(pickle.dumps(oi_reward))
    assert copy.scorer._oi is None or copy.scorer._oi._runner is None


# --------------------------------------------------------------------------- fuzzing

_LINES = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["8", "assert f(1) == 2", "f(", "{1: [", "'a'; str", "not executed", "-1", "`x`", "1. 2", "nan; float", "())"]),
)
_COMPLETIONS = st.one_of(
    st.text(max_size=300),
    st.lists(_LINES, max_size=8).map(lambda lines: "<answer>\n" + "\n".join(lines) + "\n</answer>"),
    st.lists(_LINES, max_size=3).map(lambda lines: "[ANSWER]\n" + "\n".join(lines) + "\n[/ANSWER]"),
    st.lists(st.fixed_dictionaries({"role": st.sampled_from(["assistant", "user"]), "content": st.one_of(st.text(max_size=50), st.none(), st.integers())}), max_size=3),
    st.none(),
    st.integers(),
    st.binary(max_size=20),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(completion=_COMPLETIONS)
def test_arbitrary_completions_never_raise(completion, row, oi_row):
    verifications = [row.verification, oi_row.verification, json.dumps(row.verification)]
    completions = [completion] * 3
    for reward in (whitebox_reward, io_reward, format_reward, oi_reward, paper_reward):
        values = reward(None, completions, verification=verifications)
        assert len(values) == 3
        assert all(v is None or 0.0 <= v <= 2.0 for v in values)
    results = Scorer().score_batch(verifications, completions, run_oi=False)
    assert all(r is not None for r in results)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(completion=_COMPLETIONS, variant=st.integers(0, 4))
def test_one_scoring_gives_every_reward_its_public_value(completion, variant, row, oi_row, io_row):
    """The release verifier scores a batch once, running the oi answers, and applies each reward's
    ``rewards`` to that scoring. That is each reward's public value only because running the oi answers
    changes nothing but the oi verdicts: format_reward's own call runs none, and every reward on a row
    without an oi question reads nothing an oi run decides. Both scorings are compared here, verdict by
    verdict, and every reward's values on them."""
    references = [row.reference_completion, oi_row.reference_completion, io_row.reference_completion]
    verifications = [row.verification, oi_row.verification, json.dumps(io_row.verification)]
    completions = [completion if i == variant % 3 else references[i] for i in range(3)]
    if variant == 3:  # an oi answer that parses and runs but gives another output
        completions[1] = oi_row.reference_completion.replace("'abca'", "'ab'")
    scorer = Scorer(oi_reward.scorer.oi_executor)
    ran = scorer.score_batch(verifications, completions)
    unrun = scorer.score_batch(verifications, completions, run_oi=False)
    for a, b in zip(ran, unrun):
        assert (a is None) == (b is None)
        if a is None:
            continue
        assert (a.answers, a.n_answers, a.extra, a.well_formed, a.kinds) == (b.answers, b.n_answers, b.extra, b.well_formed, b.kinds)
        assert [c for c, k in zip(a.correct, a.kinds) if k is not Kind.OI] == [c for c, k in zip(b.correct, b.kinds) if k is not Kind.OI]
    without_oi = [r is not None and Kind.OI not in r.kinds for r in ran]
    for reward in (whitebox_reward, io_reward, format_reward, oi_reward, paper_reward, WhiteboxReward(gate=False)):
        on_ran, on_unrun = reward.rewards(ran, completions, verifications), reward.rewards(unrun, completions, verifications)
        for i in range(3):
            if reward is format_reward or without_oi[i]:
                assert on_ran[i] == on_unrun[i], (reward, i)
    assert format_reward(None, completions, verification=verifications) == format_reward.rewards(ran, completions, verifications)
