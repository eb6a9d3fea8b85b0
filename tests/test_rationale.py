"""Trace-narrated reasoning chains: true by construction, bounded in length, full marks."""

from __future__ import annotations

import re
import textwrap

import pytest

from execverify_data.errors import InvalidArgument, ProgramError
from execverify_data.questions import Kind, Question, Scorer, build, select_questions
from execverify_data.rationale import narrate, rationale_completion
from execverify_data.trace import trace_call
from execverify_data.values import encode

PROGRAMS = {
    "loops": (
        textwrap.dedent(
            """\
            def f(n):
                total = 0
                for i in range(n):
                    for j in range(i):
                        total += j
                    if total > 20:
                        break
                k = 0
                while k < n:
                    k += 3
                return total, k
            """
        ),
        "f(12)",
    ),
    "helpers": (
        textwrap.dedent(
            """\
            def sq(v):
                r = v * v
                return r

            def f(xs):
                out = [sq(x) for x in xs]
                best = max(out, key=lambda v: -v)
                return out, best
            """
        ),
        "f([3, 1, 2])",
    ),
    "recursion": ("def f(n):\n    if n <= 1:\n        return 1\n    return n * f(n - 1)\n", "f(5)"),
    "generator": (
        "def gen(n):\n    for i in range(n):\n        yield i * i\n\ndef f(n):\n    acc = []\n    for v in gen(n):\n        acc.append(v)\n    return acc\n",
        "f(6)",
    ),
    "exception": ("def f(xs):\n    for x in xs:\n        if x < 0:\n            raise ValueError('negative')\n    return 0\n", "f([1, -1])"),
}

_LINE = re.compile(r"^Line (\d+) \((\d+)(?:st|nd|rd|th) time\)")
_NOW = re.compile(r" Now (.*)\.$")


def _claims(text: str):
    for sentence in text.split("\n"):
        match = _LINE.match(sentence)
        if match:
            yield int(match.group(1)), int(match.group(2)), sentence


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_narrated_line_ran_in_that_order(name):
    source, call = PROGRAMS[name]
    trace = trace_call(source, call)
    text = narrate(source, trace, call=call, max_iterations=2)
    position = {(e.line, e.occurrence): i for i, e in enumerate(trace.events)}
    order = [position[(line, k)] for line, k, _ in _claims(text)]  # KeyError: a line that never ran
    assert order == sorted(order) and len(set(order)) == len(order)


@pytest.mark.parametrize("name", ["loops", "helpers", "generator"])
def test_stated_values_are_the_recorded_after_states(name):
    source, call = PROGRAMS[name]
    trace = trace_call(source, call)
    text = narrate(source, trace, call=call, max_iterations=100, max_events=10_000)
    by_key = {(e.line, e.occurrence): e for e in trace.events}
    sentences = text.split("\n")
    for index, (line, k, sentence) in enumerate(_claims(text)):
        now = _NOW.search(sentence)
        if not now:
            continue
        event = by_key[(line, k)]
        for part in re.split(r", (?=[A-Za-z_]\w* = )", now.group(1)):
            var, value = part.split(" = ", 1)
            assert event.locals[var].text == value, (sentence, var)
    assert sentences[-1].startswith("The call returns")


def test_branch_and_loop_sentences_follow_the_trace():
    source, call = PROGRAMS["loops"]
    text = narrate(source, trace_call(source, call), call=call, max_iterations=100, max_events=10_000)
    assert "Line 6 (1st time): `if total > 20:`. The condition is false." in text
    assert "`break`" in text
    assert "The condition is true." in text
    assert "There are no more items, so the loop ends." in text
    assert "Line 9 (5th time): `while k < n:`. The condition is false, so the loop ends." in text


def test_helper_calls_are_told():
    source, call = PROGRAMS["helpers"]
    text = narrate(source, trace_call(source, call), call=call)
    assert "Now inside a call of `sq`." in text
    assert "Back in `<listcomp>`, line 6 finishes." in text


def test_exception_is_told():
    source, call = PROGRAMS["exception"]
    text = narrate(source, trace_call(source, call), call=call)
    assert text.endswith("The call raises ValueError: negative.")


def test_length_controls():
    source = "def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n"
    trace = trace_call(source, "f(500)")
    short = narrate(source, trace, call="f(500)", max_iterations=2)
    long = narrate(source, trace, call="f(500)", max_iterations=1000, max_events=100_000)
    assert len(short.splitlines()) < 15 < 1000 < len(long.splitlines())
    assert "not told here" in short and "Line 3 (501st time)" in short  # the last iteration is told
    capped = narrate(source, trace, call="f(500)", max_iterations=1000, max_events=40)
    assert len(list(_claims(capped))) <= 40
    big = trace_call("def f(n):\n    xs = list(range(n))\n    return len(xs)\n", "f(400)")
    text = narrate("def f(n):\n    xs = list(range(n))\n    return len(xs)\n", big, max_value_chars=50)
    assert "characters)" in text and max(len(line) for line in text.splitlines()) < 200


def test_question_lines_are_always_told():
    source = "def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n"
    trace = trace_call(source, "f(50)")
    questions = select_questions(source, trace, "f(50)", seed=0, n_path=0, n_state=0)
    questions.append(Question(Kind.STATE, line=4, k=25, var="s", expected=trace.state_after(4, 25, "s")))
    questions.append(Question(Kind.PATH, line=4, k=30, expected=encode(trace.next_line(4, 30))))
    text = narrate(source, trace, questions, max_iterations=2)
    assert "Line 4 (25th time)" in text and "Line 4 (30th time)" in text and "Line 3 (31st time)" in text
    assert "`s` is 300 (type int)" in text


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("style", ["execverify", "chat", "cruxeval"])
def test_rationales_score_full_marks(name, style):
    source, call = PROGRAMS[name]
    trace = trace_call(source, call)
    steps = 0 if style == "cruxeval" else 4
    for seed in range(5):
        questions = select_questions(source, trace, call, seed=seed, n_path=steps, n_state=steps, n_coverage=steps // 2)
        if not questions:
            continue
        if style == "cruxeval":
            questions = questions[:1]
        completion = rationale_completion(source, trace, questions, style=style, call=call, max_iterations=2)
        r = build(source, call, seed=seed, n_path=steps, n_state=steps, n_coverage=steps // 2, style=style, trace=trace)
        result = Scorer().score(r.verification, completion)
        assert all(result.correct) and result.well_formed, (seed, completion)


def test_build_with_rationale():
    r = build(*PROGRAMS["loops"], rationale=True)
    assert r.reference_completion.startswith("We execute `f(12)` line by line.")
    assert all(Scorer().score(r.verification, r.reference_completion).correct)


def test_errors():
    source, call = PROGRAMS["loops"]
    trace = trace_call(source, call)
    with pytest.raises(InvalidArgument, match="max_iterations"):
        narrate(source, trace, max_iterations=0)
    stuck = trace_call("def f():\n    while True:\n        pass\n", "f()", max_steps=20)
    with pytest.raises(ProgramError, match="did not finish"):
        narrate("def f():\n    while True:\n        pass\n", stuck)
