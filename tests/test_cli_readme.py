"""The README's offline command blocks run as written, line by line, in a fresh folder with no network.

The folder holds only ``examples/`` (a link to the checkout's), as a fresh clone's root would, and
``execverify`` is the command of this checkout (a shim running ``python -m execverify_data``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def readme_block(marker: str) -> list[str]:
    """The commands of the fenced block after ``<!-- marker: ... -->``, continuation lines joined."""
    text = (ROOT / "README.md").read_text()
    found = re.search(rf"<!-- {marker}:[^>]*-->\n```bash\n(.*?)```", text, flags=re.S)
    assert found, marker
    commands = found.group(1).replace("\\\n", " ").splitlines()
    return [c for c in commands if c.strip()]


@pytest.fixture
def fresh(tmp_path: Path) -> tuple[Path, dict]:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir()
    shim = bin_dir / "execverify"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m execverify_data "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{Path(sys.executable).parent}:{os.environ.get('PATH', '')}", PYTHONPATH=str(ROOT),
               HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    return tmp_path, env


def run_all(commands: list[str], folder: Path, env: dict) -> list[str]:
    outputs = []
    for command in commands:
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                              timeout=900, check=False)
        assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
        assert "Traceback" not in done.stderr, (command, done.stderr[-2000:])
        outputs.append(done.stdout)
    return outputs


def test_readme_python_api_block():
    """The README's Python example, run as a doctest: each shown result is what the library returns."""
    import doctest

    text = (ROOT / "README.md").read_text()
    block = re.search(r"## The Python API\n\n```pycon\n(.*?)```", text, flags=re.S)
    assert block
    test = doctest.DocTestParser().get_doctest(block.group(1), {}, "README.md", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0 and len(test.examples) >= 8


def test_the_blocks_are_there():
    commands = readme_block("readme-offline")
    assert any(c.startswith("execverify build-release --release-version") for c in commands)
    assert not any("--tasks list" in c for c in readme_block("readme-offline-eval"))


@pytest.mark.slow
def test_readme_cli_tour_runs_offline(fresh):
    folder, env = fresh
    outputs = run_all(readme_block("readme-offline"), folder, env)
    assert (folder / "questions.jsonl").is_file() and (folder / "rated.jsonl").is_file()
    assert (folder / "execverify-v0.1.0" / "MANIFEST.json").is_file()
    assert "path:wrong" in outputs[3] and (folder / "page.html").is_file()  # the example completion gets one path question wrong


@pytest.mark.slow
def test_readme_lm_eval_block_runs_offline(fresh):
    pytest.importorskip("lm_eval")
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    folder, env = fresh
    outputs = run_all(readme_block("readme-offline-eval"), folder, env)
    assert "execverify_cruxeval_o" in outputs[0]
    for task in ("execverify_cruxeval_o", "execverify_cruxeval_i", "execverify_cruxeval_trace"):
        assert task in outputs[2]
