"""Independent re-execution: labels are what Python gives for the row's text."""

from __future__ import annotations

import glob
import os
import shutil
from pathlib import Path

import pytest

from execverify_data.data import cruxeval_records
from execverify_data.errors import AnswerError
from execverify_data.reexecute import check_rows
from execverify_data.values import parse_arguments

ORDER_PROGRAM = "def f(ids):\n    out = []\n    for i in ids:\n        out.append(i)\n    return out\n"
ORDER_INPUT = "{-2, -1, 0, 3, 4, 6, 7, 9, 12}"


def _other_pythons() -> list[str]:
    """Python 3.12 and 3.13 interpreters of this machine (pyenv), where present."""
    found = []
    for version in ("3.12", "3.13"):
        candidates = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}*/bin/python"))) or [shutil.which(f"python{version}")]
        found += [c for c in candidates[-1:] if c]
    return found


def test_a_label_built_element_by_element_is_caught():
    """The old labels: a set argument built with set(list) iterates in another order than the text compiles to."""
    wrong = repr(list(set(sorted([-2, -1, 0, 3, 4, 6, 7, 9, 12]))))
    right = repr(list({-2, -1, 0, 3, 4, 6, 7, 9, 12}))
    assert wrong != right
    rows = [{"id": "old", "code": ORDER_PROGRAM, "entry_point": "f", "inputs": [ORDER_INPUT], "outputs": [wrong]},
            {"id": "new", "code": ORDER_PROGRAM, "entry_point": "f", "inputs": [ORDER_INPUT], "outputs": [right]}]
    report = check_rows(rows, states=True)
    assert {(m.id, m.kind) for m in report.mismatches} == {("old", "output"), ("old", "assert")}
    assert report.calls == 2 and report.events > 0


def test_nan_outputs_fail_the_assert_form():
    rows = [{"id": "nan", "code": "def f(x):\n    return [x * float('inf') * 0]\n", "entry_point": "f",
             "inputs": ["1"], "outputs": ["[float('nan')]"]}]
    assert [m.kind for m in check_rows(rows).mismatches] == ["assert"]


def _cruxeval_rows() -> list[dict]:
    rows = []
    for r in cruxeval_records():
        try:
            parse_arguments(r["input"])
        except AnswerError:  # expression inputs: only with trusted_call, not a literal row
            continue
        rows.append({"id": r["id"], "code": r["code"], "entry_point": "f", "inputs": [r["input"]], "outputs": [r["output"]]})
    return rows


def test_tracer_agrees_with_an_independent_tracer_on_cruxeval():
    """Every event (function, frame, depth, line, occurrence, each local's text and type) of the project's
    tracer equals the independent tracer's, on the 789 CRUXEval calls with literal inputs; every output
    and ``assert f(INPUT) == OUTPUT`` holds."""
    report = check_rows(_cruxeval_rows(), states=True, workers=2)
    assert report.calls == 789 and report.events > 8000
    assert report.mismatches == []


@pytest.mark.slow
@pytest.mark.parametrize("python", _other_pythons() or [pytest.param(None, marks=pytest.mark.skip(reason="no Python 3.12/3.13 here"))])
def test_tracer_agrees_with_an_independent_tracer_on_cruxeval_other_pythons(python):
    report = check_rows(_cruxeval_rows(), states=True, workers=2, python=python)
    assert report.calls == 789 and report.mismatches == []


@pytest.fixture(scope="module")
def synth_rows(tmp_path_factory) -> list[dict]:
    import pyarrow.parquet as pq

    from execverify_data.pipeline import SynthConfig, synthesize

    out = tmp_path_factory.mktemp("reexec") / "run"
    synthesize(SynthConfig(n_programs=3000, seed=1), out, workers=2)
    return [r for p in sorted(Path(out).glob("shard-*.parquet")) for r in pq.read_table(p).to_pylist()]


@pytest.mark.slow
def test_every_synthesized_pair_is_what_python_gives(synth_rows):
    """3,000 synthesized programs: every output, every ``assert f(INPUT) == OUTPUT`` and every traced event agree
    with a fresh interpreter running the row's text, under three hash seeds."""
    assert len(synth_rows) > 2900
    report = check_rows(synth_rows, states=True, workers=2)
    assert report.calls == sum(len(r["inputs"]) for r in synth_rows)
    assert report.mismatches == []
    for seed in (1, 2):
        assert check_rows(synth_rows, hash_seed=seed, workers=2).mismatches == []


@pytest.mark.slow
@pytest.mark.parametrize("python", _other_pythons() or [pytest.param(None, marks=pytest.mark.skip(reason="no Python 3.12/3.13 here"))])
def test_every_synthesized_pair_holds_on_other_pythons(synth_rows, python):
    report = check_rows(synth_rows, states=True, workers=2, python=python)
    assert report.mismatches == []
