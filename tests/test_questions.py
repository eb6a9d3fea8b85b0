"""Questions: selection, templates, extraction and scoring on hand-written programs.

Every reference completion must score full marks; every near miss must score 0
for its question and leave the other questions right (STYLE.md habit 10).
"""

from __future__ import annotations

import json
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from click.testing import CliRunner

from execverify_data.cli import main
from execverify_data.errors import InvalidArgument, ProgramError
from execverify_data.questions import (
    STYLES,
    TEMPLATE_VERSION,
    Kind,
    OiExecutor,
    Question,
    Scorer,
    build,
    render,
    select_questions,
)
from execverify_data.questions.extract import answer_lines, final_parts, split_state
from execverify_data.questions.nearmiss import near_misses
from execverify_data.trace import trace_call
from execverify_data.values import encode

PROGRAMS = {
    "straight": ("def f(x):\n    y = x + 1\n    y = y * 2\n    return y\n", "f(3)"),
    "loop_branch_helper": (
        textwrap.dedent(
            """\
            def double(v):
                return v * 2

            def f(n):
                s = 0
                out = []
                for i in range(n):
                    if i % 2:
                        s += double(i)
                    else:
                        out.append(i)
                if s < 0:
                    s = -s
                    out = None
                while n > 2:
                    n -= 2
                return out, s
            """
        ),
        "f(7)",
    ),
    "containers": (
        textwrap.dedent(
            """\
            def f(words):
                seen = set()
                counts = {}
                for w in words:
                    seen.add(w)
                    counts[w] = counts.get(w, 0) + 1
                pairs = [(w, c) for w, c in counts.items() if c > 1]
                ratio = len(seen) / len(words)
                return sorted(seen), pairs, ratio, None
            """
        ),
        "f(['a', 'b', 'a', 'c', 'b', 'a'])",
    ),
    "floats_nan": (
        "def f(x):\n    y = x * 0.5\n    z = float('nan')\n    w = float('inf') - 1\n    return (y, z, w)\n",
        "f(3)",
    ),
    "exception_path": (
        "def f(xs):\n    total = 0\n    for x in xs:\n        if x < 0:\n            raise ValueError('neg')\n        total += x\n    return total\n",
        "f([1, 2])",
    ),
    "recursion": ("def f(n):\n    if n <= 1:\n        return 1\n    return n * f(n - 1)\n", "f(4)"),
}


def _all_questions(name: str, **options):
    source, call = PROGRAMS[name]
    trace = trace_call(source, call)
    return source, trace, call, select_questions(source, trace, call, **options)


# --------------------------------------------------------------------------- selection


def test_selection_is_deterministic_per_seed_and_varies_with_it():
    source, trace, call, first = _all_questions("loop_branch_helper", seed=5, n_path=4, n_state=4, n_coverage=2)
    again = select_questions(source, trace, call, seed=5, n_path=4, n_state=4, n_coverage=2)
    assert first == again
    others = {tuple(select_questions(source, trace, call, seed=s, n_path=4, n_state=4)) for s in range(10)}
    assert len(others) > 1


def test_selection_spreads_over_loops_branches_helpers_and_unexecuted_lines():
    source, call = PROGRAMS["loop_branch_helper"]
    trace = trace_call(source, call)
    tags = set()
    for seed in range(5):
        for q in select_questions(source, trace, call, seed=seed, n_path=5, n_state=5):
            tags.update(q.tags)
    assert {"loop", "branch", "helper", "unexecuted"} <= tags
    # one draw of 5 path questions already covers several groups
    picked = select_questions(source, trace, call, seed=0, n_path=5, n_state=0)
    assert len({q.tags for q in picked if q.kind is Kind.PATH}) >= 4


def test_unexecuted_lines_give_minus_one_and_not_executed():
    source, trace, call, questions = _all_questions("loop_branch_helper", seed=0, n_path=6, n_state=6, n_coverage=4)
    executed = trace.lines_executed()
    unexec = [q for q in questions if "unexecuted" in q.tags]
    assert unexec
    for q in unexec:
        assert q.line not in executed
        if q.kind is Kind.PATH:
            assert q.expected.text == "-1"
        elif q.kind is Kind.STATE:
            assert q.expected is None and q.reference_answer == "not executed"
        else:
            assert q.expected.text == "False"


def test_answers_agree_with_the_tracer():
    source, trace, call, questions = _all_questions("loop_branch_helper", seed=2, n_path=6, n_state=6)
    for q in questions:
        if q.kind is Kind.PATH and "unexecuted" not in q.tags:
            assert int(q.expected.text) == trace.next_line(q.line, q.k)
        if q.kind is Kind.STATE and q.expected is not None:
            assert trace.state_after(q.line, q.k, q.var) == q.expected


def test_only_askable_values_are_asked():
    source = "def f(xs):\n    it = iter(xs)\n    g = (x for x in xs)\n    n = len(xs)\n    return it\n"
    trace = trace_call(source, "f([1, 2])")
    questions = select_questions(source, trace, "f([1, 2])", seed=0, n_path=0, n_state=20)
    assert questions and all(q.kind is Kind.STATE for q in questions)  # no io: the output is an iterator
    assert all(q.var not in ("it", "g") for q in questions)


def test_selection_errors():
    source, trace, call, _ = _all_questions("straight")
    with pytest.raises(InvalidArgument, match="n_path"):
        select_questions(source, trace, call, n_path=-1)
    with pytest.raises(InvalidArgument, match="task"):
        select_questions(source, trace, call, task="sideways")
    with pytest.raises(InvalidArgument, match="reveal"):
        select_questions(source, trace, call, task="input", n_path=1, n_state=0)
    looping = trace_call("def f():\n    while True:\n        pass\n", "f()", max_steps=50)
    with pytest.raises(ProgramError, match="did not finish"):
        select_questions("def f():\n    while True:\n        pass\n", looping, "f()")


def test_question_json_round_trip():
    _, _, _, questions = _all_questions("containers", seed=1, n_path=3, n_state=3, n_coverage=2)
    for q in questions:
        assert Question.from_json(json.loads(json.dumps(q.to_json()))) == q


# --------------------------------------------------------------------------- templates


def test_templates_are_versioned_and_in_the_verification():
    r = build(*PROGRAMS["straight"])
    assert r.verification["template_version"] == TEMPLATE_VERSION
    assert r.verification["style"] == "execverify"
    json.dumps(r.verification)  # serialisable


def test_execverify_prompt_shape():
    r = build(*PROGRAMS["loop_branch_helper"], seed=1, n_path=2, n_state=2)
    assert "[CODE]\n 1 def double(v):" in r.prompt
    assert "Call: `f(7)`" in r.prompt
    assert "1. What value does `f(7)` return?" in r.prompt
    assert r.reference_completion.startswith("<answer>\n") and r.reference_completion.endswith("\n</answer>")
    assert len(r.questions) == 5 == len(r.reference_completion.splitlines()) - 2
    assert "program" not in r.verification  # only oi needs it


def test_cruxeval_prompt_shape():
    r = build(*PROGRAMS["straight"], n_path=0, n_state=0, style="cruxeval")
    assert "[PYTHON]\ndef f(x):" in r.prompt and "assert f(3) == ??\n[/PYTHON]" in r.prompt
    assert r.reference_completion == "[ANSWER]\nassert f(3) == 8\n[/ANSWER]"
    r = build(*PROGRAMS["straight"], n_path=0, n_state=0, style="cruxeval", task="input")
    assert "assert f(??) == 8" in r.prompt
    assert r.reference_completion == "[ANSWER]\nassert f(3) == 8\n[/ANSWER]"
    assert r.verification["program"] == PROGRAMS["straight"][0]
    with pytest.raises(InvalidArgument, match="cruxeval"):
        build(*PROGRAMS["straight"], n_path=1, style="cruxeval")


def test_chat_prompt_shape():
    r = build(*PROGRAMS["straight"], style="chat")
    assert [m["role"] for m in r.prompt] == ["system", "user"]
    assert "[CODE]" in r.prompt[1]["content"]


def test_render_errors():
    with pytest.raises(InvalidArgument, match="style"):
        render("def f():\n    return 1\n", [Question(Kind.IO, expected=encode(1), call="f()", entry="f")], style="yaml")
    with pytest.raises(InvalidArgument, match="non-empty"):
        render("def f():\n    return 1\n", [])


# --------------------------------------------------------------------------- extraction


_LINE_CHARS = "([{}])(),:;.+-*/%<>=!&|^~@$? \t\r\n\x00\x0b\x0c\u200b01239aZ_\u00e9\u2192\U0001f600'\"#\\"


@settings(max_examples=4000, deadline=None)
@given(st.text(alphabet=_LINE_CHARS, max_size=40))
def test_counting_brackets_without_the_tokenizer_counts_as_it_does(line):
    """The scorer counts the brackets of a printable line with no string, comment or backslash by
    character counts, and reads every other line with the tokenizer: the two agree on every line."""
    from execverify_data.questions.extract import _open_brackets, _tokenized_brackets

    assert _open_brackets(line) == _tokenized_brackets(line)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("<answer>\n8\n3\n</answer>", ["8", "3"]),
        ("reasoning <answer> inline </answer> more\n<answer>\n1. 8\n2) 3\n</answer>", ["8", "3"]),
        ("```\n<answer>\n```python\n8\n```\n- 3\n</answer>\n```", ["8", "3"]),
        ("<ANSWER>\nAnswer 1: `8`\nA2: 3\n</ANSWER>", ["8", "3"]),
        ("<answer>8</answer>", ["8"]),
        ("text <answer>\n8\n3", ["8", "3"]),  # unclosed final block
        ("no block at all: 8", None),
        ("<answer>\n'</answer>'\n</answer>", ["'</answer>'"]),
    ],
)
def test_answer_lines(text, expected):
    assert answer_lines(text, "execverify") == expected


def test_cruxeval_extraction():
    assert answer_lines("think\n[ANSWER]\nassert f(3) == 8\n[/ANSWER]", "cruxeval") == ["assert f(3) == 8"]
    assert answer_lines("[ANSWER]assert f(1) == 2[/ANSWER] then [ANSWER]\nassert f(3) == 8\n[/ANSWER]", "cruxeval") == [
        "assert f(3) == 8"
    ]
    assert answer_lines("The answer is\n```python\nassert f(3) == 8\n```", "cruxeval") == ["assert f(3) == 8"]
    assert answer_lines([{"role": "assistant", "content": "[ANSWER]\n8\n[/ANSWER]"}], "cruxeval") == ["8"]
    # a literal spread over lines is one statement (only its first line was read before)
    assert answer_lines("[ANSWER]\nassert f(3) == [\n    1,\n    2,\n]\n[/ANSWER]", "cruxeval") == ["assert f(3) == [\n1,\n2,\n]"]
    assert answer_lines("[ANSWER]\nassert f('(') == 1\n[/ANSWER]", "cruxeval") == ["assert f('(') == 1"]
    assert answer_lines("[ANSWER]\nassert f(3) == [1,\nnever closed\n[/ANSWER]", "cruxeval") == ["assert f(3) == [1,"]


def test_cruxeval_multiline_literal_scores(scorer):
    r = build("def f(n):\n    return {'a': list(range(n)), 'b': n}\n", "f(3)", n_path=0, n_state=0, style="cruxeval")
    spread = "[ANSWER]\nassert f(3) == {\n    'a': [0, 1, 2],\n    'b': 3,\n}\n[/ANSWER]"
    wrong = "[ANSWER]\nassert f(3) == {\n    'a': [0, 1, 2],\n    'b': 4,\n}\n[/ANSWER]"
    assert [s.correct[0] for s in scorer.score_batch([r.verification] * 2, [spread, wrong])] == [True, False]


def test_final_parts_and_state_split():
    assert final_parts("assert f(1) == f(1)", "io") == ("f(1)", "f(1)")
    assert final_parts("assert True", "io") == (None, None)
    assert final_parts("The output is [1]", "io") == (None, "The output is [1]")
    assert final_parts("f(2) == 4;", "oi") == ("f(2)", "4")
    assert split_state("'a; b'; str") == ("'a; b'", "str")
    assert split_state("3; `int`") == ("3", "int")
    assert split_state("3; type: int") == ("3", "int")
    assert split_state("{1, 2}") == ("{1, 2}", None)


# --------------------------------------------------------------------------- scoring


@pytest.fixture(scope="module")
def scorer():
    s = Scorer(OiExecutor(workers=1))
    yield s
    s.oi_executor.close()


def test_oi_cache_is_bounded_in_bytes_least_recently_used_out():
    """Issue #29: 150 long answers kept 19.4 KiB each in an entry-bounded cache (about 1.2 GiB before it first
    cleared). The cache holds at most ``cache_bytes`` characters of programs, calls and outputs, drops the least
    recently used entry first, keeps nothing larger than itself, and runs each cached call once."""
    import pickle
    from types import SimpleNamespace

    from execverify_data.trace import Status

    class Runner:
        def __init__(self):
            self.ran = []

        def map(self, keys, **kwargs):
            self.ran += keys
            return [SimpleNamespace(status=Status.OK, output=encode(len(call))) for _, call in keys]

    executor = OiExecutor(workers=1, cache_bytes=10_000)
    runner = Runner()
    executor._runner = runner
    program = "def f(s):\n    return len(s)\n"
    calls = [f"f({'x' * 2_000!r}, {i})" for i in range(20)]  # about 2 KiB each: five fit
    for call in calls:
        assert executor.outputs([(program, call)])[0] == encode(len(call))
    assert executor._cache.currsize <= 10_000 and len(executor._cache) == 4
    executor.outputs([(program, calls[16])])  # used again: now the most recent
    executor.outputs([(program, f"f({'z' * 2_000!r})")])  # a fifth long one: the least recently used goes
    assert (program, calls[16]) in executor._cache and (program, calls[17]) not in executor._cache
    assert runner.ran.count((program, calls[16])) == 1
    executor.outputs([(program, "f(" + repr("y" * 20_000) + ")")])  # larger than the whole cache: not kept
    assert executor._cache.currsize <= 10_000 and len(runner.ran) == 22
    executor._runner = None
    assert len(pickle.loads(pickle.dumps(executor))._cache) == 0


def _replace(reference: str, index: int, answer: str) -> str:
    lines = reference.split("\n")
    lines[index + 1] = answer  # line 0 is "<answer>"
    return "\n".join(lines)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("style", ["execverify", "chat"])
def test_reference_scores_full_and_near_misses_zero(name, style, scorer):
    source, call = PROGRAMS[name]
    r = build(source, call, seed=3, n_path=4, n_state=4, n_coverage=2, style=style)
    result = scorer.score(r.verification, r.reference_completion)
    assert all(result.correct) and result.well_formed
    questions = [Question.from_json(q) for q in r.verification["questions"]]
    kinds = {q.kind for q in questions}
    assert {Kind.IO, Kind.PATH, Kind.STATE, Kind.COVERAGE} <= kinds or name == "exception_path"
    for i, q in enumerate(questions):
        misses = near_misses(q)
        assert misses, q
        for label, wrong in misses:
            result = scorer.score(r.verification, _replace(r.reference_completion, i, wrong))
            assert not result.correct[i], (q, label, wrong)
            assert all(c for j, c in enumerate(result.correct) if j != i), (q, label, wrong)


def test_chat_completion_as_messages(scorer):
    r = build(*PROGRAMS["straight"], style="chat")
    messages = [{"role": "assistant", "content": [{"type": "text", "text": r.reference_completion}]}]
    assert all(scorer.score(r.verification, messages).correct)


@pytest.mark.parametrize("style", ["cruxeval", "execverify"])
def test_oi_runs_the_function(style, scorer):
    source = "def f(a, b):\n    return sorted(set(a + b))\n"
    r = build(source, "f([3, 1], [1, 2])", n_path=0, n_state=0, task="input", style=style)
    wrap = (lambda s: f"[ANSWER]\n{s}\n[/ANSWER]") if style == "cruxeval" else (lambda s: f"<answer>\n{s}\n</answer>")
    good = [
        "assert f([3, 1], [1, 2]) == [1, 2, 3]",
        "assert f([1, 2, 3], []) == [1, 2, 3]",  # another input with the same output
        "f([2], [3, 1, 1])",
        "f(b=[1, 2], a=[3])",
    ]
    bad = [
        "assert f([3, 1], [1]) == [1, 2, 3]",  # runs, different output
        "assert f([1, 2, 3], []) == [1, 2]",  # claimed output wrong
        "assert f([3, 1], [1, 2]) == f([3, 1], [1, 2])",  # non-literal right-hand side
        "assert True",
        "assert g([1, 2, 3], []) == [1, 2, 3]",  # another function
        "assert f(list(range(1, 4)), []) == [1, 2, 3]",  # non-literal argument
        "assert f(__import__('os').getcwd(), []) == [1, 2, 3]",
        "assert f([1, 2, 3]) == [1, 2, 3]",  # raises TypeError
        "[1, 2, 3]",
    ]
    verdicts = [r_.correct[0] for r_ in scorer.score_batch([r.verification] * (len(good) + len(bad)), [wrap(a) for a in good + bad])]
    assert verdicts == [True] * len(good) + [False] * len(bad)


def test_oi_check_has_a_timeout(scorer):
    source = "def f(n):\n    while n > 0:\n        n += 1\n    return n * 0\n"
    r = build(source, "f(0)", n_path=0, n_state=0, task="input")
    fast = Scorer(OiExecutor(workers=1, timeout=0.5))
    try:
        assert fast.score(r.verification, "<answer>\nf(1)\n</answer>").correct == (False,)
        assert fast.score(r.verification, "<answer>\nf(-3)\n</answer>").correct == (True,)
    finally:
        fast.oi_executor.close()


def test_swapped_answers_score_zero_for_both(scorer):
    r = build(*PROGRAMS["loop_branch_helper"], seed=4, n_path=2, n_state=2)
    lines = r.reference_completion.split("\n")
    answers = lines[1:-1]
    i, j = next((i, j) for i in range(1, len(answers)) for j in range(i + 1, len(answers)) if answers[i] != answers[j])
    answers[i], answers[j] = answers[j], answers[i]
    result = scorer.score(r.verification, "<answer>\n" + "\n".join(answers) + "\n</answer>")
    assert not result.correct[i] and not result.correct[j]


def test_verification_errors(scorer):
    with pytest.raises(InvalidArgument, match="format"):
        scorer.score({"questions": []}, "x")
    with pytest.raises(InvalidArgument, match="JSON"):
        scorer.score("{not json", "x")
    assert scorer.score_batch([None], ["x"]) == [None]


# --------------------------------------------------------------------------- CLI


@pytest.fixture()
def program_file(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAMS["loop_branch_helper"][0])
    return path


def test_cli_questions_json_and_score(program_file, tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["questions", str(program_file), "--call", "f(7)", "--json", "--seed", "2", "--n-path", "3"])
    assert result.exit_code == 0, result.output
    row = json.loads(result.output)
    assert set(row) == {"prompt", "questions", "reference_completion", "verification"}
    assert [q["kind"] for q in row["verification"]["questions"]] == ["io", "path", "path", "path", "state", "state"]
    oi = runner.invoke(main, ["questions", str(program_file), "--call", "f(7)", "--json", "--task", "input", "--style", "cruxeval"])
    assert oi.exit_code == 0, oi.output
    questions = tmp_path / "q.jsonl"
    questions.write_text(result.output + oi.output)
    completions = tmp_path / "c.jsonl"
    completions.write_text(
        json.dumps({"completion": row["reference_completion"]}) + "\n" + json.dumps("[ANSWER]\nassert f(7) == 0\n[/ANSWER]") + "\n"
    )
    scored = runner.invoke(main, ["score", str(questions), str(completions), "--json"])
    assert scored.exit_code == 0, scored.output
    summary = json.loads(scored.output)
    assert summary["per_kind"]["io"]["accuracy"] == 1.0 and summary["per_kind"]["oi"]["accuracy"] == 0.0
    assert summary["per_kind"]["path"] == {"questions": 3, "correct": 3, "accuracy": 1.0}
    table = runner.invoke(main, ["score", str(questions), str(completions)])
    assert table.exit_code == 0 and "accuracy" in table.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--call", "f(x)"], "not a literal call"),
        (["--call", "g(1)"], "no function named 'g'"),
        (["--call", "f(7)", "--style", "cruxeval", "--n-path", "1"], "single question"),
    ],
)
def test_cli_questions_errors_are_one_line(program_file, args, message):
    result = CliRunner().invoke(main, ["questions", str(program_file), *args])
    assert result.exit_code != 0
    assert message in result.output and "Traceback" not in result.output


def test_cli_score_errors_are_one_line(tmp_path):
    q = tmp_path / "q.jsonl"
    c = tmp_path / "c.jsonl"
    q.write_text('{"verification": {"format": "nope"}}\n')
    c.write_text('"x"\n"y"\n')
    result = CliRunner().invoke(main, ["score", str(q), str(c)])
    assert result.exit_code == 2 and "matched by row" in result.output
    c.write_text("not json\n")
    result = CliRunner().invoke(main, ["score", str(q), str(c)])
    assert "line 1: not JSON" in result.output
    c.write_text('"x"\n')
    result = CliRunner().invoke(main, ["score", str(q), str(c)])
    assert result.exit_code == 2 and "Traceback" not in result.output and "format" in result.output


def test_styles_constant():
    assert STYLES == ("execverify", "cruxeval", "chat", "reasoning")


# --------------------------------------------------------------------------- synthesized programs


def test_synthesized_programs_references_near_misses_and_rationales(scorer):
    generator = pytest.importorskip("execverify_data.synth.generator")
    inputs = pytest.importorskip("execverify_data.inputs")
    from execverify_data.rationale import rationale_completion
    from execverify_data.values import format_call

    checked = 0
    for level in (1, 3, 4, 5, 6):
        for seed in range(3):
            try:
                program = generator.generate(generator.spec_for(level, seed), seed)
            except Exception:  # the generator may fail for a (spec, seed); it is not under test here
                continue
            for args in inputs.draw_inputs(program.param_types, seed=seed, k=2):
                call = format_call(program.entry_point, args)
                trace = trace_call(program.code, call)
                questions = select_questions(program.code, trace, call, seed=seed, n_path=3, n_state=3, n_coverage=2)
                r = render(program.code, questions, call=call)
                assert all(scorer.score(r.verification, r.reference_completion).correct)
                chain = rationale_completion(program.code, trace, questions, call=call)
                assert all(scorer.score(r.verification, chain).correct)
                reference = r.reference_completion.split("\n")
                for i, q in enumerate(questions):
                    for label, wrong in near_misses(q):
                        result = scorer.score(r.verification, _replace(r.reference_completion, i, wrong))
                        assert not result.correct[i], (program.code, call, q, label)
                assert len(reference) == len(questions) + 2
                checked += 1
    assert checked >= 10
