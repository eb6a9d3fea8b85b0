"""The 800 CRUXEval programs: every kind's reference completion scores full marks
and every near miss scores 0 for its question, in every style.

Traces come from the trusted runner's parallel map; the ``oi`` references run
there too. The whole module takes well under a minute on two cores.
"""

from __future__ import annotations

import pytest

from execverify_data.data import cruxeval_records
from execverify_data.errors import AnswerError
from execverify_data.questions import Kind, OiExecutor, Question, Scorer, render, select_questions
from execverify_data.questions.nearmiss import near_misses
from execverify_data.rationale import rationale_completion
from execverify_data.sandbox.trusted import Job, TrustedRunner
from execverify_data.values import parse_arguments, same


def _literal(arguments: str) -> bool:
    try:
        parse_arguments(arguments)
    except AnswerError:
        return False
    return True


@pytest.fixture(scope="module")
def traced():
    records = cruxeval_records()
    jobs = [Job(r["code"], f"f({r['input']})", not _literal(r["input"])) for r in records]
    with TrustedRunner(2) as runner:
        traces = runner.map(jobs)
    return records, jobs, traces


@pytest.fixture(scope="module")
def scorer():
    s = Scorer(OiExecutor(workers=2))
    yield s
    s.oi_executor.close()


def test_traces_reproduce_the_benchmark_outputs(traced):
    records, _, traces = traced
    assert len(records) == 800
    assert [r["id"] for r, t in zip(records, traces) if not same(t.output, r["output"])] == []


def _rendered(traced):
    records, jobs, traces = traced
    for seed, (record, job, trace) in enumerate(zip(records, jobs, traces)):
        questions = select_questions(record["code"], trace, job.call, seed=seed, n_path=3, n_state=3, n_coverage=2)
        yield record, job, trace, questions


def test_every_reference_scores_full_marks(traced, scorer):
    verifications, completions = [], []
    kinds_seen = set()
    oi_asked = 0
    for record, job, trace, questions in _rendered(traced):
        for style in ("execverify", "chat"):
            r = render(record["code"], questions, style=style)
            verifications.append(r.verification)
            completions.append(r.reference_completion)
        r = render(record["code"], questions[:1], style="cruxeval")
        verifications.append(r.verification)
        completions.append(r.reference_completion)
        kinds_seen.update(q.kind for q in questions)
        if not job.trusted_call:  # the 11 non-literal inputs have no literal reference input
            (oi,) = select_questions(record["code"], trace, job.call, task="input", n_path=0, n_state=0)
            for style in ("cruxeval", "execverify"):
                r = render(record["code"], [oi], style=style)
                verifications.append(r.verification)
                completions.append(r.reference_completion)
            oi_asked += 1
    assert kinds_seen == {Kind.IO, Kind.PATH, Kind.STATE, Kind.COVERAGE}
    assert oi_asked >= 785
    results = scorer.score_batch(verifications, completions)
    failures = [(v["questions"], r) for v, r in zip(verifications, results) if not (all(r.correct) and r.well_formed)]
    assert failures == []


def test_every_near_miss_scores_zero(traced, scorer):
    """Completion j of a row puts the j-th near miss of every question in place of its answer."""
    verifications, completions, expected = [], [], []
    for record, job, trace, questions in _rendered(traced):
        r = render(record["code"], questions, style="execverify")
        reference = r.reference_completion.split("\n")[1:-1]
        tables = [near_misses(q) for q in questions]
        for j in range(max(len(t) for t in tables)):
            answers = [t[j][1] if j < len(t) else ref for t, ref in zip(tables, reference)]
            verifications.append(r.verification)
            completions.append("<answer>\n" + "\n".join(answers) + "\n</answer>")
            expected.append(tuple(j >= len(t) for t in tables))
        if not job.trusted_call:
            (oi,) = select_questions(record["code"], trace, job.call, task="input", n_path=0, n_state=0)
            r = render(record["code"], [oi], style="cruxeval")
            for _, wrong in near_misses(oi):
                verifications.append(r.verification)
                completions.append(f"[ANSWER]\n{wrong}\n[/ANSWER]")
                expected.append((False,))
    results = scorer.score_batch(verifications, completions)
    wrong = [(c, r.correct, e) for c, r, e in zip(completions, results, expected) if r.correct != e]
    assert wrong == []


def test_rationales_score_full_marks(traced, scorer):
    verifications, completions = [], []
    for record, job, trace, questions in _rendered(traced):
        completions.append(rationale_completion(record["code"], trace, questions, call=job.call))
        verifications.append(render(record["code"], questions).verification)
    results = scorer.score_batch(verifications, completions)
    assert [c for c, r in zip(completions, results) if not all(r.correct)] == []


def test_question_objects_round_trip(traced):
    for _, _, _, questions in list(_rendered(traced))[:100]:
        for q in questions:
            assert Question.from_json(q.to_json()) == q
