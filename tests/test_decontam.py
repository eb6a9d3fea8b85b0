"""Decontamination against CRUXEval, HumanEval and local benchmark copies."""

from __future__ import annotations

import json

import pytest

from execverify_data.data import cruxeval_records, humaneval_records
from execverify_data.decontam import Decontaminator, load_local, program_hashes
from execverify_data.errors import InvalidArgument


@pytest.fixture(scope="module")
def decon():
    return Decontaminator.default()


def test_every_benchmark_program_is_caught(decon):
    for r in cruxeval_records()[:200]:
        m = decon.check(r["code"])
        assert m is not None and m.kind == "ast", r["id"]
    for p in humaneval_records()[:50]:
        assert decon.check(p["prompt"] + p["canonical_solution"]) is not None, p["task_id"]


def test_renamed_and_relabelled_copy_is_caught(decon):
    code = cruxeval_records()[0]["code"]
    renamed = code.replace("nums", "values").replace("output", "acc").replace("def f", "def solve")
    assert decon.check(renamed).kind == "ast"


def test_near_copy_by_ngrams():
    base = "def f(text):\n    out = []\n    for ch in text:\n        if ch.isdigit():\n            out.append(int(ch) * 2)\n        else:\n            out.append(ch.upper())\n    return out\n"
    d = Decontaminator.from_sources({"bench": [base]}, n=5, threshold=0.5)
    near = base.replace("return out\n", "out.reverse()\n    return out\n")
    m = d.check(near)
    assert m is not None and m.kind == "ngram" and m.overlap >= 0.5
    assert d.check("def g(a, b):\n    return max(a, b) - min(a, b)\n") is None


def test_fresh_synthesized_programs_pass(decon):
    fresh = "def f(words, sep):\n    parts = sep.join(sorted(set(words)))\n    count = 0\n    while len(parts) > 3:\n        parts = parts[1:]\n        count += 1\n    return count\n"
    assert decon.check(fresh) is None


def test_local_copy(tmp_path):
    f = tmp_path / "reval.jsonl"
    f.write_text(json.dumps({"code": "def h(q):\n    return q[::-1] * 3\n"}) + "\n")
    d = Decontaminator.default(local={"reval": f})
    assert d.check("def k(z):\n    return z[::-1] * 7\n").benchmark == "reval"
    assert d.describe()["benchmarks"]["reval"] == 1
    with pytest.raises(InvalidArgument):
        load_local(tmp_path / "nothing")


def test_bad_settings_and_unparsable():
    with pytest.raises(InvalidArgument):
        Decontaminator.from_sources({}, threshold=0)
    assert program_hashes("def (") == set()
