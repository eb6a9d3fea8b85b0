"""Helpers shared by the training tests (``test_training_data.py``, ``test_training_recipes.py``)."""

from __future__ import annotations

import json
from pathlib import Path


def write_release(root: Path, configs: dict[str, list[dict]]) -> Path:
    """A folder in the release's Hub layout: ``<config>/train.jsonl`` + README configs."""
    lines = ["---", "configs:"]
    for name, rows in configs.items():
        (root / name).mkdir(parents=True, exist_ok=True)
        with (root / name / "train.jsonl").open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
        lines += [f"- config_name: {name}", "  data_files:", "  - split: train", f"    path: {name}/train.jsonl"]
    (root / "README.md").write_text("\n".join(lines + ["---", ""]), encoding="utf-8")
    return root
