"""The `execverify` command group: every registered subcommand imports and has help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from execverify_data import __version__
from execverify_data.cli import COMMANDS, main


def test_version_and_help():
    runner = CliRunner()
    result = runner.invoke(main, ["--version"])
    assert result.exit_code == 0 and __version__ in result.output
    result = runner.invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.output


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_has_help(name):
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output


def test_unknown_command_is_a_one_line_error():
    result = CliRunner().invoke(main, ["no-such-command"])
    assert result.exit_code == 2
    assert "No such command" in result.output
    assert "Traceback" not in result.output


def test_help_does_not_import_heavy_modules():
    code = "import sys; from execverify_data.cli import main; print(sorted(m for m in ('torch', 'transformers', 'trl', 'datasets', 'lm_eval') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_python_dash_m(tmp_path):
    out = subprocess.run([sys.executable, "-m", "execverify_data", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"execverify, version {__version__}"
    bad = subprocess.run([sys.executable, "-m", "execverify_data", "trace"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Usage: python -m execverify_data trace" in bad.stderr


@pytest.mark.parametrize("name", ["synthesize", "from-code", "build-release", "doctor", "difficulty", "score"])
def test_every_summary_command_has_json(name):
    assert "--json" in CliRunner().invoke(main, [name, "--help"]).output


def test_doctor_json():
    result = CliRunner().invoke(main, ["doctor", "--no-run", "--json"])
    data = json.loads(result.stdout)
    assert result.exit_code == (0 if data["usable"] else 1)
    assert [layer["name"] for layer in data["layers"]][0] == "zygote"
    assert {"python", "euid", "cpus", "layers", "usable", "smoke", "imports"} <= set(data)


def test_difficulty_json_and_atomic_output(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"code": "def f(x):\n    return x + 1\n", "call": "f(1)"}) + "\n")
    out = tmp_path / "sub" / "d.jsonl"
    result = CliRunner().invoke(main, ["difficulty", str(rows), "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"rows": 1, "written": 1, "out": str(out), "solver": None, "strong_solver": None,
                                         "kept": None}
    row = json.loads(out.read_text())
    assert 0 <= row["difficulty"] <= 1 and row["trace_length"] == 1
    assert sorted(p.name for p in out.parent.iterdir()) == ["d.jsonl"]  # no temporary file left


def test_score_per_row(tmp_path):
    root = Path(__file__).resolve().parents[1]
    questions = tmp_path / "q.jsonl"
    made = CliRunner().invoke(main, ["questions", str(root / "examples" / "running_max.py"), "--call",
                                     "running_max([3, 9, 4, 11], 5)", "--json"])
    questions.write_text(made.output)
    completions = root / "examples" / "running_max.completions.jsonl"
    data = json.loads(CliRunner().invoke(main, ["score", str(questions), str(completions), "--json", "--per-row"]).output)
    assert data["per_row"] == [{"row": 1, "scored": True, "kinds": ["io", "path", "path", "state", "state"],
                                "correct": [True, False, True, True, True], "well_formed": True, "whitebox_reward": 1.75}]
    table = CliRunner().invoke(main, ["score", str(questions), str(completions), "--per-row"]).output
    assert "io:ok path:wrong path:ok state:ok state:ok" in table
    assert "per_row" not in CliRunner().invoke(main, ["score", str(questions), str(completions), "--json"]).output


def test_score_reads_a_release_parquet_file(tmp_path):
    """Issue 31: a release's parquet file scores as the JSONL it was made from (it was ``'utf-8' codec can't decode
    byte``); a file that is neither says which two it expected."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = Path(__file__).resolve().parents[1]
    made = CliRunner().invoke(main, ["questions", str(root / "examples" / "running_max.py"), "--call",
                                     "running_max([3, 9, 4, 11], 5)", "--json"])
    row = json.loads(made.output)
    questions = tmp_path / "train-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist([{"prompt": "p", "verification": json.dumps(row["verification"])}]), questions)
    completions = root / "examples" / "running_max.completions.jsonl"
    data = json.loads(CliRunner().invoke(main, ["score", str(questions), str(completions), "--json", "--per-row"]).output)
    assert data["per_row"][0]["correct"] == [True, False, True, True, True]
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\x98\x00\xff garbage\n")
    result = CliRunner().invoke(main, ["score", str(binary), str(completions)])
    assert result.exit_code == 2 and "expected JSONL (one JSON value per line) or a parquet file" in result.output
    assert "Traceback" not in result.output


def test_n_path_within_the_limit_is_honoured(tmp_path):
    root = Path(__file__).resolve().parents[1]
    args = ["questions", str(root / "examples" / "running_max.py"), "--call", "running_max([3, 9, 4, 11], 5)", "--json"]
    kinds = [q["kind"] for q in json.loads(CliRunner().invoke(main, [*args, "--n-path", "7"]).output)["questions"]]
    assert kinds.count("path") == 7
    refused = CliRunner().invoke(main, [*args, "--n-path", "8"])
    assert refused.exit_code == 2 and "only 7 lines to ask path questions about" in refused.output
