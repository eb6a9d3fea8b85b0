"""``execverify synthesize``: a small run and one-line errors for bad arguments."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from execverify_data.cli import main


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--n", "0"], "--n must be at least 1"),
        (["--n", "abc"], "is not a valid integer"),
        (["--n", "5", "--levels", "7"], "--levels"),
        (["--n", "5", "--levels", "3-1"], "backwards"),
        (["--n", "5", "--levels", "x"], "--levels"),
        (["--n", "5", "--inputs-per-program", "2"], "at least 3"),
        (["--n", "5", "--workers", "0"], "--workers"),
        (["--n", "5", "--seed", "-3"], "non-negative"),
        (["--n", "5", "--tracer", "docker"], "docker"),
        (["--n", "5", "--bogus"], "No such option"),
    ],
)
def test_bad_arguments_give_one_line(tmp_path, args, fragment):
    result = CliRunner().invoke(main, ["synthesize", *args, "--out", str(tmp_path / "o")])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    assert fragment in lines[0]


def test_missing_out_is_one_line():
    result = CliRunner().invoke(main, ["synthesize", "--n", "3"])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code != 0 and len(lines) == 1 and "--out" in lines[0]


def test_small_run_writes_shards_and_summary(tmp_path):
    out = tmp_path / "o"
    result = CliRunner().invoke(main, ["synthesize", "--n", "12", "--seed", "2", "--workers", "1", "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rows"] == 12 and summary["accepted"] >= 10
    assert set(summary["levels"]) == {"1", "2", "3", "4", "5", "6"}
    assert (out / "shard-00000.parquet").exists()
    assert "programs in 1 shard(s)" in result.output


def test_help_lists_the_options():
    result = CliRunner().invoke(main, ["synthesize", "--help"])
    assert result.exit_code == 0
    for option in ("--n", "--seed", "--levels", "--inputs-per-program", "--workers", "--out"):
        assert option in result.output
