"""The shipped benchmark data is byte-identical to upstream and loads from the package."""

from __future__ import annotations

import hashlib

from execverify_data.data import cruxeval_records, data_path, humaneval_records

SHA256 = {
    ("cruxeval", "cruxeval.jsonl"): "8368b81047dc5014e4caf5a2f97604eff7644e0ecd7415e3ceeb184bbc2e0c96",
    ("humaneval", "HumanEval.jsonl.gz"): "b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef",
}


def test_hashes_and_licenses():
    for parts, digest in SHA256.items():
        assert hashlib.sha256(data_path(*parts).read_bytes()).hexdigest() == digest
        assert "MIT" in data_path(parts[0], "LICENSE").read_text()


def test_records():
    crux = cruxeval_records()
    assert [r["id"] for r in crux] == [f"sample_{i}" for i in range(800)]
    assert all(set(r) == {"id", "code", "input", "output"} for r in crux)
    human = humaneval_records()
    assert [p["task_id"] for p in human] == [f"HumanEval/{i}" for i in range(164)]
