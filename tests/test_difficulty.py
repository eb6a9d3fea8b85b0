"""Difficulty features, heuristic score, buckets and the model-based pass-rate filter."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from execverify_data import difficulty as dif
from execverify_data.errors import InvalidArgument
from execverify_data.questions import build
from execverify_data.trace import trace_call

LOOP = "def f(xs):\n    total = 0\n    for x in xs:\n        if x > 0:\n            total += x\n    return total\n"
FLAT = "def f(x):\n    return x + 1\n"


class Oracle:
    """Answers correctly on the first ``right[prompt]`` samples of each prompt, wrongly after."""

    def __init__(self, answers: dict, right: dict):
        self.answers, self.right, self.calls = answers, right, []

    def generate(self, prompts, *, n=1, temperature=1.0, max_new_tokens=256, seed=None, stop=None, top_p=1.0):
        self.calls.append((len(prompts), n, temperature))
        return [[self.answers[p] if i < self.right[p] else "<answer>\nwrong\n</answer>" for i in range(n)] for p in prompts]


def _rows():
    calls = ["f(1)", "f(2)", "f(3)", "f(4)"]
    return [build(FLAT, c, n_path=0, n_state=0) for c in calls]


def test_features_grow_with_work():
    small = dif.features(FLAT, trace_call(FLAT, "f(1)"))
    big = dif.features(LOOP, trace_call(LOOP, "f([1, -2, 3, 4, -5, 6])"))
    assert list(small) == list(dif.FEATURES)
    for name in ("lines", "ast_nodes", "nesting_depth", "control_flow", "trace_length", "loop_iterations", "branch_changes"):
        assert big[name] > small[name], name
    assert dif.heuristic_score(big) > dif.heuristic_score(small)
    assert dif.bucket(dif.heuristic_score(big)) >= dif.bucket(dif.heuristic_score(small))


def test_weights_sum_to_one_and_missing_feature():
    assert abs(sum(dif.WEIGHTS.values()) - 1.0) < 1e-9
    assert set(dif.WEIGHTS) == set(dif.FEATURES) == set(dif.CAPS)
    with pytest.raises(InvalidArgument, match="trace_length"):
        dif.heuristic_score({"lines": 3})


def test_spearman_ties():
    assert dif.spearman([1, 1, 2], [1, 1, 2]) == 1.0


@pytest.mark.parametrize("right, keep", [((0, 3, 4, 10), (True, True, False, False))])
def test_oracle_pass_pattern(right, keep):
    rows = _rows()
    answers = {r.prompt: r.reference_completion for r in rows}
    weak = Oracle(answers, {r.prompt: k for r, k in zip(rows, right)})
    strong = Oracle(answers, {r.prompt: 1 for r in rows})
    flt = dif.PassRateFilter(weak, strong, samples=10, keep_max_pass=3)
    out = flt.evaluate([r.prompt for r in rows], [r.verification for r in rows])
    assert [o.weak_passes for o in out] == list(right)
    assert tuple(o.keep for o in out) == keep
    assert weak.calls == [(4, 10, 1.0)]
    assert strong.calls == [(2, 1, 0.0)]  # only the rows the weak solver mostly failed


def test_strong_solver_must_solve():
    rows = _rows()[:2]
    answers = {r.prompt: r.reference_completion for r in rows}
    weak = Oracle(answers, {r.prompt: 0 for r in rows})
    strong = Oracle(answers, {rows[0].prompt: 1, rows[1].prompt: 0})
    out = dif.PassRateFilter(weak, strong, samples=4, keep_max_pass=1).evaluate([r.prompt for r in rows], [r.verification for r in rows])
    assert [o.keep for o in out] == [True, False]
    assert [o.strong_passes for o in out] == [1, 0]


@pytest.mark.parametrize("kwargs", [{"samples": 0}, {"keep_max_pass": -1}, {"samples": 2, "keep_max_pass": 3}, {"strong_samples": True}])
def test_bad_arguments(kwargs):
    with pytest.raises(InvalidArgument):
        dif.PassRateFilter(Oracle({}, {}), **kwargs)


def test_solver_must_generate():
    with pytest.raises(InvalidArgument, match="backend spec"):
        dif.PassRateFilter(object())


def test_tiny_model_solver_and_cli(tmp_path):
    pytest.importorskip("transformers")
    from execverify_data.testing import build_tiny_model

    model = build_tiny_model(tmp_path / "tiny")
    rows = []
    for c in ("f(1)", "f(2)"):
        r = build(FLAT, c, n_path=0, n_state=0)
        rows.append({"prompt": r.prompt, "verification": r.verification, "code": FLAT, "call": c})
    src = tmp_path / "rows.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    from execverify_data.cli import main

    result = CliRunner().invoke(main, ["difficulty", str(src), "--out", str(out), "--solver", f"transformers:{model}",
                                       "--samples", "2", "--keep-max-pass", "1", "--max-new-tokens", "4", "--keep-all"])
    assert result.exit_code == 0, result.output
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(got) == 2
    for row in got:
        assert row["weak_samples"] == 2 and row["weak_passes"] == 0 and row["keep"] is True  # a random tiny model never answers
        assert 0 <= row["difficulty"] <= 1 and row["bucket"] in range(5)
        assert row["trace_length"] == 1
