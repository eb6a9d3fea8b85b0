"""Reasoning chains that show the computation (issue 32): the ``explained`` chains of synthesized programs of
every level, each claim checked by ``tests/chain_checker.py`` against the trace and Python run again."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chain_checker import Report, check_chain, compact_to_explained  # noqa: E402

from execverify_data.decisions import trace_with_decisions  # noqa: E402
from execverify_data.rationale import narrate  # noqa: E402
from execverify_data.synth.retrace import trace_digest  # noqa: E402
from execverify_data.trace import trace_call  # noqa: E402


def _records(n: int, seed: int):
    from execverify_data.pipeline import SynthConfig, synthesize_rows

    records, _ = synthesize_rows(SynthConfig(n_programs=n, seed=seed, k=6), 0, n * 4)
    return records[:n]


def check_programs(n: int, seed: int, style: str = "explained") -> tuple[Report, dict]:
    report, levels = Report(), {}
    for record in _records(n, seed):
        for call in record.calls:
            trace, notes = trace_with_decisions(record.code, call, max_steps=5000, timeout=30)
            assert trace_digest(trace) == trace_digest(trace_call(record.code, call, max_steps=5000, timeout=30))
            chain = narrate(record.code, trace, [], call=call, style=style, notes=notes)
            if style == "compact":
                chain = compact_to_explained(record.code, trace, chain, report)
            check_chain(record.code, trace, chain, report)
            levels[record.level] = levels.get(record.level, 0) + 1
    return report, levels


def _assert_clean(report: Report, levels: dict, rows: int) -> None:
    assert sum(levels.values()) >= rows and set(levels) >= {1, 2, 3, 4, 5, 6}, levels
    assert not report.mismatches, report.mismatches[:10]
    for kind in ("state", "truth", "operand", "sequence", "gap", "returned"):
        assert report.checked[kind] > 0, (kind, report.checked)
    assert report.explained >= 0.99 * report.headers, (report.explained, report.headers)


def test_explained_chains_claim_only_what_python_does():
    """Every claim of the chains of 60 programs (about 360 rows) agrees with the trace and with Python."""
    report, levels = check_programs(60, seed=7)
    _assert_clean(report, levels, 300)


def test_compact_chains_claim_only_what_python_does():
    """The ``compact`` chains of the same programs, said again in the explained words, pass the same checks."""
    report, levels = check_programs(60, seed=7, style="compact")
    _assert_clean(report, levels, 300)


@pytest.mark.slow
@pytest.mark.parametrize("style", ["explained", "compact"])
def test_explained_chains_over_3000_rows_of_every_level(style):
    """The issue's target: 0 mismatches over 3,000+ rows of every level, and at least 99% of the told
    if/while tests and for starts state what decided them."""
    report, levels = check_programs(520, seed=20261207, style=style)
    _assert_clean(report, levels, 3000)
    print(dict(report.checked), dict(report.unchecked), report.explained, report.headers, levels)


def test_the_trusted_runner_records_the_same_notes():
    """``TrustedRunner.map(notes=True)`` (the recipes' re-rendering) gives the in-process notes, as pairs."""
    from execverify_data.sandbox.trusted import TrustedRunner

    records = _records(8, seed=3)
    jobs = [(r.code, c) for r in records for c in r.calls[:2]]
    with TrustedRunner(2) as runner:
        pairs = runner.map(jobs, notes=True)
    for (code, call), (trace, notes) in zip(jobs, pairs):
        here_trace, here_notes = trace_with_decisions(code, call)
        assert trace_digest(trace) == trace_digest(here_trace) and notes == here_notes


def test_sft_rows_re_rendered_by_the_recipes_are_explained(tmp_path):
    """The paper's SFT form (``--prompt_style reasoning``) re-renders rows with their chains in the ``explained``
    style: what the release's own ``sft`` rows carry."""
    pytest.importorskip("datasets")
    from datasets import Dataset

    from execverify_data.training import restyle_questions

    records = _records(6, seed=5)
    rows = Dataset.from_list([{"id": f"r{i}", "code": r.code, "call": r.calls[0], "task": "output"}
                              for i, r in enumerate(records)])
    out = restyle_questions(rows, style="reasoning", n_path=0, n_state=0, rationale=True, workers=1)
    chains = out["reference_completion"]
    assert len(chains) == len(records) and any("Here `" in c or "The loop walks `" in c for c in chains)


_WRONG = {  # one claim of each kind changed in the chain of f([5, 1, 7, 3, 9, 2], 2), per style
    "explained": (("`x` is 2", "`x` is 3"), ("the condition is false", "the condition is true"),
                  ("which gives [1, 2, 3, 5, 7, 9] (6 items)", "which gives [1, 2, 3, 5, 7, 9] (5 items)"),
                  ("which gives [1, 2, 3, 5, 7, 9]", "which gives [1, 3, 2, 5, 7, 9]"),
                  ("(9 line executions", "(8 line executions"), ("iterations 3 to 5", "iterations 3 to 4"),
                  ("After them, out = 15", "After them, out = 24"), ("Now out = 24", "Now out = 15"),
                  ("Line 5 (4th time)", "Line 4 (4th time)")),
    "compact": (("(`x`=2; `k`=2)", "(`x`=3; `k`=2)"), ("-> false", "-> true"), ("(6 items)", "(5 items)"),
                ("(skipped 9 line runs", "(skipped 8 line runs"), ("then out = 15", "then out = 24"),
                ("; out = 24", "; out = 15"), ("L5: out += x", "L4: out += x")),
}


@pytest.mark.parametrize("style", ["explained", "compact"])
def test_the_checker_catches_a_wrong_claim(style):
    """The checker is not a test that cannot fail: a chain with one changed value, truth, count, sequence, state or
    line fails (a compact chain is said again in the explained words first)."""
    src = "def f(xs, k):\n    out = 0\n    for x in sorted(xs):\n        if x > k:\n            out += x\n    return out\n"
    call = "f([5, 1, 7, 3, 9, 2], 2)"
    trace, notes = trace_with_decisions(src, call)
    chain = narrate(src, trace, [], call=call, style=style, notes=notes, max_iterations=2)

    def check(text: str) -> Report:
        report = Report()
        check_chain(src, trace, compact_to_explained(src, trace, text, report) if style == "compact" else text, report)
        return report

    report = check(chain)
    assert not report.mismatches and report.checked["gap"] == 1 and report.checked["sequence"] == 1
    for old, new in _WRONG[style]:
        assert old in chain, old
        assert check(chain.replace(old, new, 1)).mismatches, old


def test_recording_the_notes_runs_none_of_the_programs_code():
    """Sorting or comparing a program's own objects would run its ``__lt__``; the notes leave them alone, so a
    program that counts those calls returns what it returns untraced."""
    src = ("class C:\n    n = 0\n    def __init__(self, v):\n        self.v = v\n    def __lt__(self, o):\n"
           "        C.n += 1\n        return self.v < o.v\n\ndef f(xs):\n    objs = [C(x) for x in xs]\n    t = 0\n"
           "    for o in sorted(objs):\n        if o.v > 1:\n            t += o.v\n    return t, C.n\n")
    trace, notes = trace_with_decisions(src, "f([3, 1, 2, 5, 4])")
    assert trace.output.text == trace_call(src, "f([3, 1, 2, 5, 4])").output.text
    assert not any(n.kind == "sequence" for ns in notes.values() for n in ns)


@pytest.mark.parametrize("style", ["explained", "compact"])
def test_an_unfinished_trace_is_not_narrated_in_any_style(style):
    from execverify_data.errors import InvalidArgument, ProgramError

    src = "def f(n):\n    while True:\n        n += 1\n"
    trace, notes = trace_with_decisions(src, "f(1)", max_steps=50)
    with pytest.raises(ProgramError, match="did not finish"):
        narrate(src, trace, [], style=style, notes=notes)
    with pytest.raises(InvalidArgument, match="style must be one of"):
        narrate(src, trace_call(src.replace("while True:", "if n:"), "f(1)"), [], style="verbose")
