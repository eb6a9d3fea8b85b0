"""``execverify synthesize``: a small run, its summary and its --json output (bad arguments: tests/test_cli_errors.py)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from execverify_data.cli import main


def test_small_run_writes_shards_and_summary(tmp_path):
    out = tmp_path / "o"
    result = CliRunner().invoke(main, ["synthesize", "--n", "12", "--seed", "2", "--workers", "1", "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accepted"] == 12 and summary["rows"] >= 12  # rows given up are replaced by later rows
    assert set(summary["levels"]) == {"1", "2", "3", "4", "5", "6"}
    assert (out / "shard-00000.parquet").exists()
    assert "programs in 1 shard(s)" in result.output


def test_help_lists_the_options():
    result = CliRunner().invoke(main, ["synthesize", "--help"])
    assert result.exit_code == 0
    for option in ("--n", "--seed", "--levels", "--inputs-per-program", "--workers", "--out"):
        assert option in result.output


def test_json_summary_and_progress_on_stderr(tmp_path):
    out = tmp_path / "o"
    result = CliRunner().invoke(main, ["synthesize", "--n", "6", "--seed", "1", "--workers", "1", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # stdout is the JSON object alone; the bar went to stderr
    assert data["out"] == str(out) and data["shards"] == 1
    assert data == {**json.loads((out / "summary.json").read_text()), "out": str(out), "shards": 1}
    assert "synthesize" in result.stderr


def test_workers_default_is_the_same_rule_everywhere():
    from execverify_data.cli.common import default_workers

    for command in ("synthesize", "build-release"):
        text = " ".join(CliRunner().invoke(main, [command, "--help"]).output.split())
        assert f"the CPUs this process may use, here {default_workers()}" in text, command
