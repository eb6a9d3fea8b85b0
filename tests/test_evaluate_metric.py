"""The `evaluate` metric module gives the verdicts of the project's scorer (and of the lm-eval tasks)."""

from __future__ import annotations

import json

import pytest

evaluate = pytest.importorskip("evaluate")

from execverify_data.metrics import scorer_path  # noqa: E402
from execverify_data.questions import Scorer, build  # noqa: E402

PROGRAMS = [
    ("def f(xs):\n    total = 0\n    for x in xs:\n        if x < 0:\n            continue\n        total += x\n    return total\n", "f([2, -1, 3])"),
    ("def f(s):\n    return s.upper() + '!'\n", "f('ok')"),
    ("def f(n):\n    return {n, n + 1}\n", "f(1)"),
]


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(scorer_path())


def _rows():
    rows = []
    for number, (source, call) in enumerate(PROGRAMS):
        for task in ("output", "input"):
            r = build(source, call, seed=number, task=task, n_path=1 if task == "output" else 0,
                      n_state=1 if task == "output" else 0)
            rows.append(r)
    return rows


def test_metric_agrees_with_the_scorer(metric):
    rows = _rows()
    verifications = [json.dumps(r.verification) for r in rows]
    completions = [r.reference_completion for r in rows]
    completions += ["<answer>\nwrong\n</answer>", "[ANSWER]\nassert f(0) == 0\n[/ANSWER]"] * (len(rows) // 2)
    verifications = verifications * 2
    out = metric.compute(predictions=completions, references=verifications)
    results = Scorer().score_batch(verifications, completions)
    n = len(results)
    assert out["accuracy"] == pytest.approx(sum(all(r.correct) for r in results) / n)
    assert out["question_accuracy"] == pytest.approx(sum(sum(r.correct) / len(r.correct) for r in results) / n)
    assert out["accuracy"] == pytest.approx(0.5)  # the references are right, the rest wrong


def test_metric_agrees_with_the_lm_eval_tasks(metric):
    pytest.importorskip("datasets")
    from execverify_data.lm_eval_tasks import utils

    docs = list(utils.load_cruxeval_output()["test"].select(range(60)))
    completions = []
    for i, doc in enumerate(docs):  # right, unquoted, and CoT-wrapped answers
        if i % 3 == 0:
            completions.append(doc["reference"])
        elif i % 3 == 1:
            completions.append("assert f() == " + doc["output"].strip("'\""))
        else:
            completions.append("[THOUGHT]\nstep by step\n[/THOUGHT]\n[ANSWER]\nassert f() == " + doc["output"] + "\n[/ANSWER]")
    expected = [utils.process_results(d, [c])["acc"] for d, c in zip(docs, completions)]
    per_row = [metric.compute(predictions=[c], references=[d["verification"]])["accuracy"] for d, c in zip(docs, completions)]
    assert per_row == expected
    assert 0 < sum(expected) < len(expected)
