"""Benchmark data shipped with the package (see README.md in this folder)."""

from __future__ import annotations

import gzip
import json
from importlib import resources

__all__ = ["cruxeval_records", "humaneval_records", "data_path"]


def data_path(*parts: str):
    """Path of a file shipped in ``execverify_data/data`` (never relative to the working directory)."""
    return resources.files(__name__).joinpath(*parts)


def cruxeval_records() -> list[dict]:
    """The 800 CRUXEval records (``id``, ``code``, ``input``, ``output``), in file order.

    >>> records = cruxeval_records()
    >>> len(records), records[0]["id"]
    (800, 'sample_0')
    """
    with data_path("cruxeval", "cruxeval.jsonl").open("r", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def humaneval_records() -> list[dict]:
    """The 164 HumanEval problems (``task_id``, ``prompt``, ``canonical_solution``, ``test``, ``entry_point``).

    >>> problems = humaneval_records()
    >>> len(problems), problems[0]["task_id"]
    (164, 'HumanEval/0')
    """
    with data_path("humaneval", "HumanEval.jsonl.gz").open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
