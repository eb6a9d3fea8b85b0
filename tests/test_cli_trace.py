"""``execverify trace``: JSON and table output, statuses, and one-line usage errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from execverify_data.cli import main

PROGRAM = """\
def f(xs, tag):
    out = []
    for x in xs:
        out.append(tag + str(x))
    return out
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    return path


def invoke(*args: str):
    return CliRunner().invoke(main, ["trace", *args])


def test_json_output(program):
    result = invoke(str(program), "--call", "f([1, 2], 'a')", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {"status", "output", "exception", "python", "events"} <= set(data)
    assert data["status"] == "ok"
    assert data["output"] == {"text": "['a1', 'a2']", "type": "list"}
    assert data["exception"] is None
    assert data["python"] == ".".join(map(str, sys.version_info[:3]))
    assert [e["line"] for e in data["events"]] == [2, 3, 4, 3, 4, 3, 5]
    first = data["events"][0]
    assert set(first) == {"function", "frame", "depth", "line", "occurrence", "locals"}
    assert first["locals"]["out"] == {"text": "[]", "type": "list", "askable": True}
    assert data["events"][4]["occurrence"] == 2


def test_table_output_is_not_markup(program):
    result = invoke(str(program), "--call", "f([1], '[bold]')")
    assert result.exit_code == 0, result.output
    assert "[bold]1" in result.output
    assert "status: ok" in result.output
    assert "output: ['[bold]1'] (list)" in result.output


def test_exception_is_not_a_usage_error(tmp_path):
    path = tmp_path / "boom.py"
    path.write_text("def f(x):\n    y = x + 1\n    return 1 // 0\n")
    result = invoke(str(path), "--call", "f(1)", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["status"] == "exception"
    assert data["exception"] == {"type": "ZeroDivisionError", "message": "integer division or modulo by zero"}
    assert [e["line"] for e in data["events"]] == [2, 3]


def test_step_limit(tmp_path):
    path = tmp_path / "loop.py"
    path.write_text("def f():\n    i = 0\n    while True:\n        i += 1\n")
    result = invoke(str(path), "--call", "f()", "--json", "--max-steps", "7")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["status"] == "step_limit" and len(data["events"]) == 7


def test_timeout_without_trace_events(tmp_path):
    path = tmp_path / "spin.py"
    path.write_text("def f():\n    while True: pass\n")
    result = invoke(str(path), "--call", "f()", "--json", "--timeout", "0.5")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["status"] == "timeout"


def test_trusted_call_flag(program):
    refused = invoke(str(program), "--call", "f(range(2), ''.join(['a']))")
    assert refused.exit_code != 0
    assert "--trusted-call" in refused.output
    assert "Traceback" not in refused.output
    allowed = invoke(str(program), "--call", "f(range(2), ''.join(['a']))", "--trusted-call", "--json")
    assert allowed.exit_code == 0, allowed.output
    assert json.loads(allowed.output)["output"]["text"] == "['a0', 'a1']"


@pytest.mark.parametrize(
    ("content", "args", "needle"),
    [
        (None, ["--call", "f()"], "does not exist"),
        ("def f(:\n", ["--call", "f()"], "does not compile"),
        (PROGRAM, ["--call", "f(x)"], "not a literal call"),
        (PROGRAM, ["--call", "g()"], "no function named 'g'"),
        (PROGRAM, [], "Missing option '--call'"),
        (PROGRAM, ["--call", "f()", "--max-steps", "0"], "--max-steps"),
    ],
)
def test_usage_errors_are_one_line_without_traceback(tmp_path, content, args, needle):
    path = tmp_path / "p.py"
    if content is not None:
        path.write_text(content)
    result = invoke(str(path), *args)
    assert result.exit_code != 0
    assert needle in result.output
    assert "Traceback" not in result.output
    error_lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(error_lines) == 1


def test_installed_console_script(program):
    script = Path(sys.executable).with_name("execverify")
    executable = str(script) if script.exists() else shutil.which("execverify")
    if executable is None:
        pytest.skip("the execverify console script is not installed")
    completed = subprocess.run(
        [executable, "trace", str(program), "--call", "f([7], 'b')", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    data = json.loads(completed.stdout)
    assert data["status"] == "ok" and data["output"]["text"] == "['b7']"
    bad = subprocess.run([executable, "trace", str(program), "--call", "f(x)"], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr and "--trusted-call" in bad.stderr


LOOP = "def f():\n    x = 0\n    while True:\n        x += 1\n"


def test_table_is_capped_with_a_summary_of_what_was_left_out(tmp_path):
    path = tmp_path / "loop.py"
    path.write_text(LOOP)
    result = invoke(str(path), "--call", "f()", "--max-steps", "1000")
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("│")]
    assert len(rows) == 200  # the default cap
    assert "800 of 1,000 events left out (lines 3, 4 of f); --max-events 0 prints them all" in result.output
    assert result.output.rstrip().endswith("status: step_limit")
    few = invoke(str(path), "--call", "f()", "--max-steps", "1000", "--max-events", "5")
    assert len([line for line in few.output.splitlines() if line.startswith("│")]) == 5
    assert "995 of 1,000 events left out" in few.output
    every = invoke(str(path), "--call", "f()", "--max-steps", "300", "--max-events", "0")
    assert len([line for line in every.output.splitlines() if line.startswith("│")]) == 300
    assert "left out" not in every.output


def test_json_keeps_every_event_unless_capped(tmp_path):
    path = tmp_path / "loop.py"
    path.write_text(LOOP)
    data = json.loads(invoke(str(path), "--call", "f()", "--max-steps", "1000", "--json").output)
    assert len(data["events"]) == 1000 and "events_left_out" not in data
    capped = json.loads(invoke(str(path), "--call", "f()", "--max-steps", "1000", "--json", "--max-events", "10").output)
    assert len(capped["events"]) == 10 and capped["events_left_out"] == 990
    assert capped["events"] == data["events"][:10]
