"""The `execverify` command group: every registered subcommand imports and has help."""

from __future__ import annotations

import subprocess
import sys

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
