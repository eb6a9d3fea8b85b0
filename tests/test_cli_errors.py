"""Every ``execverify`` command against every class of bad input.

Each case asserts one ``Error:`` line in the user's words (flags, not Python names), no
traceback, click's exit codes (2 for a bad argument, with click's two usage lines; 1 for a
missing extra or an unreachable service) and nothing left behind in the working folder.
The classes: bad values, unwritable output paths (a path inside a file, a failing write
probe, and a real read-only mount where ``unshare`` allows one), missing extras (a core
install, simulated by hiding the modules) and offline data or services.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from execverify_data.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = "def f(xs, tag):\n    out = []\n    for x in xs:\n        out.append(tag + str(x))\n    return out\n"
PYTHON_NAMES = re.compile(r"trusted_call=|positive int|(?<![-\w])(n|workers|version|repo_id|tag) must|in an answer|max_steps|keep_max_pass")


def check(result, code: int, fragment: str) -> str:
    """The one error line of ``result`` (asserting the rules above); returns it."""
    text = result.output
    assert "Traceback" not in text, text
    assert result.exit_code == code, (result.exit_code, text)
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("Warning:")]  # deprecation notes
    errors = [line for line in lines if line.startswith("Error:")]
    assert len(errors) == 1, text
    tries = [i for i, line in enumerate(lines) if line.startswith("Try '")]
    usage = lines[: tries[0] + 1] if tries and lines[0].startswith("Usage:") else []  # click's usage (it may wrap) and hint
    rest = [line for line in lines if line not in errors and line not in usage]
    assert rest == [], text
    assert bool(usage) == (code == 2), text  # click prints its usage lines with every usage error, and only then
    assert fragment in errors[0], (fragment, errors[0])
    assert not PYTHON_NAMES.search(errors[0]), errors[0]
    return errors[0]


def listing(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


@pytest.fixture
def inputs(tmp_path: Path, monkeypatch) -> Path:
    """A working folder with valid inputs of every command; the command runs inside it."""
    (tmp_path / "prog.py").write_text(PROGRAM)
    (tmp_path / "bad.py").write_text("def f(:\n")
    (tmp_path / "a_file").write_text("not a folder\n")
    (tmp_path / "not_json.jsonl").write_text("{oops\n")
    (tmp_path / "rows.jsonl").write_text(json.dumps({"code": PROGRAM, "call": "f([1], 'a')"}) + "\n")
    (tmp_path / "solver_rows.jsonl").write_text(json.dumps({"prompt": "p", "verification": "{}"}) + "\n")
    (tmp_path / "no_verification.jsonl").write_text(json.dumps({"prompt": "p"}) + "\n")
    (tmp_path / "two.jsonl").write_text('"a"\n"b"\n')
    release = tmp_path / "release"
    release.mkdir()
    (release / "README.md").write_text("# a release\n")
    digest = hashlib.sha256((release / "README.md").read_bytes()).hexdigest()
    manifest = {"version": "0.0.1", "seed": 0, "total_rows": 0, "files": {"README.md": {"sha256": digest, "bytes": 13}}}
    (release / "MANIFEST.json").write_text(json.dumps(manifest))
    (tmp_path / "unbuilt").mkdir()
    (tmp_path / "subdir").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(args: list[str]):
    return CliRunner().invoke(main, args)


BR = ["build-release", "--release-version", "0.0.1", "--n", "20"]
SYN = ["synthesize", "--n", "5"]
TRACE = ["trace", "prog.py"]
QUESTIONS = ["questions", "prog.py", "--call", "f([1, 2], 'a')"]

# (args, exit code, fragment of the error line)
BAD_VALUES = [
    # synthesize
    (SYN + ["--n", "abc", "--out", "o"], 2, "'abc' is not a valid integer."),
    (["synthesize", "--n", "0", "--out", "o"], 2, "'--n': 0 is not in the range x>=1"),
    (SYN + ["--levels", "7", "--out", "o"], 2, "'--levels'"),
    (SYN + ["--levels", "3-1", "--out", "o"], 2, "backwards"),
    (SYN + ["--levels", "x", "--out", "o"], 2, "'--levels'"),
    (SYN + ["--inputs-per-program", "2", "--out", "o"], 2, "'--inputs-per-program'"),
    (SYN + ["--workers", "0", "--out", "o"], 2, "'--workers'"),
    (SYN + ["--seed", "-3", "--out", "o"], 2, "'--seed'"),
    (SYN + ["--shard-size", "0", "--out", "o"], 2, "'--shard-size'"),
    (SYN + ["--tracer", "docker", "--out", "o"], 2, "'docker' is not one of"),
    (SYN + ["--bogus", "--out", "o"], 2, "No such option '--bogus'"),
    (SYN, 2, "Missing option '--out'"),
    (SYN + ["--generator", "program", "--share", "0.5", "--generator", "llm:openai:http://127.0.0.1:9/v1#m", "--share", "0.4",
            "--out", "o"], 2, "'--share': the shares sum to 0.9 (0.5 + 0.4); they must sum to 1"),
    (SYN + ["--generator", "program", "--generator", "llm:openai:http://127.0.0.1:9/v1#m", "--share", "0.5", "--out", "o"], 2,
     "'--share': 2 --generator and 1 --share: give one --share per --generator"),
    (SYN + ["--generator", "program", "--share", "0.5", "--out", "o"], 2, "the shares sum to 0.5"),
    (SYN + ["--generator", "program", "--share", "0", "--out", "o"], 2, "'--share': 0.0 is not in the range 0<x<=1"),
    (SYN + ["--generator", "gpt-4", "--out", "o"], 2, "'--generator': 'gpt-4' is not a generator; write 'program' or 'llm:"),
    (SYN + ["--generator", "llm:hf:gpt2", "--out", "o"], 2, "'--generator': unknown backend 'hf'"),
    (SYN + ["--generator", "llm:openai:", "--out", "o"], 2, "has no target"),
    (SYN + ["--generator", "program", "--share", "0.5", "--generator", "program", "--share", "0.5", "--out", "o"], 2,
     "each generator is given once"),
    (SYN + ["--llm-samples", "2", "--llm-prompt", "completion", "--out", "o"], 2,
     "--llm-samples, --llm-prompt: only for LLM rows, and no --generator llm:SPEC was given"),
    (SYN + ["--generator", "llm:openai:http://127.0.0.1:9/v1#m", "--llm-samples", "0", "--out", "o"], 2, "'--llm-samples'"),
    (SYN + ["--generator", "llm:transformers:./no/such/model", "--out", "o"], 2,
     "'--generator': llm:transformers:./no/such/model: no model folder at ./no/such/model"),
    # build-release
    (["build-release", "--release-version", "0.0.1", "--n", "abc", "--out", "r"], 2, "'abc' is not a valid integer."),
    (["build-release", "--release-version", "0.0.1", "--n", "0", "--out", "r"], 2, "'--n': 0 is not in the range x>=1"),
    (["build-release", "--release-version", "1.0", "--n", "5", "--out", "r"], 2, "--release-version must look like 1.0.0"),
    (["build-release", "--n", "5", "--out", "r"], 2, "Missing option '--release-version'"),
    (BR + ["--inputs-per-program", "2", "--out", "r"], 2, "'--inputs-per-program': 2 is not in the range x>=3"),
    (BR + ["--workers", "0", "--out", "r"], 2, "'--workers'"),
    (BR + ["--shard-size", "0", "--out", "r"], 2, "'--shard-size'"),
    (BR + ["--engine", "spark", "--out", "r"], 2, "'spark' is not one of"),
    (BR + ["--ray-address", "auto", "--out", "r"], 2, "--ray-address needs --engine ray"),
    (BR + ["--benchmark", "reval", "--out", "r"], 2, "expected NAME=PATH"),
    (BR + ["--benchmark", "reval=missing.jsonl", "--out", "r"], 2, "no file missing.jsonl"),
    (BR + ["--version", "0.0.2", "--out", "r"], 2, "give the release version once"),
    # from-code
    (["from-code", "missing.jsonl", "--out", "o"], 2, "missing.jsonl: no such file or folder"),
    (["from-code", "not_json.jsonl", "--out", "o"], 2, "not_json.jsonl line 1: not JSON"),
    (["from-code", "two.jsonl", "--out", "o"], 2, "two.jsonl line 1: expected an object with string fields 'code' and 'entry_point'"),
    (["from-code", "subdir", "--out", "o"], 2, "no functions found"),
    (["from-code", "--out", "o"], 2, "give one of SOURCE (a JSONL file or a folder of .py files), --package NAME or --humaneval"),
    (["from-code", "subdir", "--allow-benchmark", "mbpp", "--out", "o"], 2, "unknown benchmark mbpp"),
    (["from-code", "subdir", "--min-inputs", "6", "--out", "o"], 2, "need --min-inputs <= --inputs-per-function"),
    (["from-code", "subdir"], 2, "Missing option '--out'"),
    (["build-release", "--release-version", "0.0.1", "--out", "r"], 2, "Missing option '--n'"),
    (["build-release", "--release-version", "0.0.1", "--programs", "subdir", "--out", "r"], 2, "no record shards"),
    (BR + ["--allow-benchmark", "mbpp", "--out", "r"], 2, "unknown benchmark mbpp"),
    # difficulty
    (["difficulty", "missing.jsonl", "--out", "d.jsonl"], 2, "does not exist"),
    (["difficulty", "not_json.jsonl", "--out", "d.jsonl"], 2, "line 1: not JSON"),
    (["difficulty", "rows.jsonl", "--out", "d.jsonl", "--samples", "0"], 2, "'--samples'"),
    (["difficulty", "rows.jsonl", "--out", "d.jsonl", "--samples", "2"], 2, "'--keep-max-pass': 3 is more than --samples 2"),
    (["difficulty", "rows.jsonl", "--out", "d.jsonl", "--strong-solver", "openai:http://x#m"], 2, "--strong-solver needs --solver"),
    (["difficulty", "no_verification.jsonl", "--out", "d.jsonl", "--solver", "openai:http://127.0.0.1:9#m"], 2,
     "row 1 has no 'prompt' and 'verification'"),
    (["difficulty", "solver_rows.jsonl", "--out", "d.jsonl", "--solver", "hf:gpt2"], 2, "unknown backend 'hf'"),
    (["difficulty", "rows.jsonl", "--out", "subdir"], 2, "File 'subdir' is a directory"),
    # trace
    (TRACE, 2, "Missing option '--call'"),
    (["trace", "missing.py", "--call", "f()"], 2, "does not exist"),
    (["trace", "bad.py", "--call", "f()"], 2, "does not compile"),
    (TRACE + ["--call", "f(x)"], 2, "add --trusted-call"),
    (TRACE + ["--call", "f(len([1]))"], 2, "is not allowed in a literal call"),
    (TRACE + ["--call", "g()"], 2, "no function named 'g'"),
    (TRACE + ["--call", "f()", "--max-steps", "0"], 2, "'--max-steps'"),
    (TRACE + ["--call", "f()", "--max-events", "-1"], 2, "'--max-events'"),
    (TRACE + ["--call", "f()", "--timeout", "0"], 2, "'--timeout'"),
    # questions
    (["questions", "prog.py"], 2, "Missing option '--call'"),
    (["questions", "prog.py", "--call", "f(x)"], 2, "add --trusted-call"),
    (QUESTIONS + ["--n-path", "50"], 2, "this call has only 4 lines to ask path questions about"),
    (QUESTIONS + ["--n-path", "-1"], 2, "'--n-path'"),
    (QUESTIONS + ["--task", "input", "--n-path", "1"], 2, "drop --n-path"),
    (QUESTIONS + ["--style", "markdown"], 2, "'markdown' is not one of"),
    # score
    # a command name
    (["synthesise"], 2, "No such command 'synthesise'. Did you mean 'synthesize'?"),
    (["build_release"], 2, "Did you mean 'build-release'"),
    (["score", "missing.jsonl", "two.jsonl"], 2, "does not exist"),
    (["score", "not_json.jsonl", "two.jsonl"], 2, "line 1: not JSON"),
    (["score", "rows.jsonl", "rows.jsonl"], 2, "no 'verification' field"),
    (["score", "rows.jsonl", "two.jsonl"], 2, "they are matched by row"),
    # push
    (["release", "inspect", "missing"], 2, "no such folder"),
    (["release", "inspect", "unbuilt"], 1, "has no MANIFEST.json"),
    (["push", "missing", "--repo-id", "a/b"], 2, "does not exist"),
    (["push", "unbuilt", "--repo-id", "a/b"], 2, "has no MANIFEST.json"),
    (["push", "release", "--repo-id", "nobody"], 2, "--repo-id must look like ORG/NAME"),
    (["push", "release", "--repo-id", "a/b", "--tag", "v9.9.9"], 2, "--tag 'v9.9.9' does not match the release version 0.0.1"),
    (["push", "release"], 2, "Missing option '--repo-id'"),
    # view
    (["view", "prog.py", "-o", "p.html"], 2, "give the call"),
    (["view", "missing.py", "--call", "f()", "-o", "p.html"], 2, "does not exist"),
    (["view", "prog.py", "--call", "f(x)", "-o", "p.html"], 2, "add --trusted-call"),
    (["view", "prog.py", "--call", "f([1], 'a')", "-o", "subdir"], 2, "File 'subdir' is a directory"),
    (["view", "prog.py", "--call", "f([1], 'a')", "-o", "p.html", "--n-path", "-1"], 2, "'--n-path'"),
    (["view", "release", "no-such-row", "-o", "p.html"], 2, "release is not a release folder"),
    # doctor, tasks-path, the group
    (["doctor", "--bogus"], 2, "No such option '--bogus'"),
    (["tasks-path", "extra"], 2, "unexpected extra argument"),
    (["no-such-command"], 2, "No such command 'no-such-command'"),
]

UNWRITABLE = [  # an output path inside a regular file: unwritable for root too
    (["synthesize", "--n", "5", "--workers", "1", "--out", "a_file/o"], "'--out': cannot create a_file/o: "),
    (BR + ["--out", "a_file/r"], "'--out': cannot create a_file/r: "),
    (BR + ["--out", "r", "--work-dir", "a_file/w"], "'--work-dir': cannot create a_file/w: "),
    (["difficulty", "rows.jsonl", "--out", "a_file/d.jsonl"], "'--out': cannot create a_file/d.jsonl: "),
    (["synthesize", "--n", "5", "--out", "a_file"], "Directory 'a_file' is a file"),
    (["from-code", "subdir", "--out", "a_file/o"], "'--out': cannot create a_file/o: "),
    (["view", "prog.py", "--call", "f([1], 'a')", "-o", "a_file/p.html"], "cannot write a_file/p.html"),
]


def test_every_command_is_in_the_table():
    covered = {args[0] for args, _, _ in BAD_VALUES}
    assert set(COMMANDS) <= covered, set(COMMANDS) - covered


@pytest.mark.parametrize(("args", "code", "fragment"), BAD_VALUES, ids=[" ".join(a)[:60] for a, _, _ in BAD_VALUES])
def test_bad_values(inputs, args, code, fragment):
    before = listing(inputs)
    check(run(args), code, fragment)
    assert listing(inputs) == before


@pytest.mark.parametrize(("args", "fragment"), UNWRITABLE, ids=[" ".join(a)[:60] for a, _ in UNWRITABLE])
def test_unwritable_output(inputs, args, fragment):
    before = listing(inputs)
    check(run(args), 2, fragment)
    assert listing(inputs) == before


@pytest.mark.parametrize("command", [
    ["synthesize", "--n", "5", "--workers", "1", "--out", "o"],
    BR + ["--out", "o"],
    ["difficulty", "rows.jsonl", "--out", "o/d.jsonl"],
])
def test_failing_write_probe(inputs, monkeypatch, command):
    """A folder the permission bits call writable but that refuses files (what a read-only mount does)."""
    import errno

    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr("execverify_data.cli.common.tempfile.mkstemp", refuse)
    before = listing(inputs)
    line = check(run(command), 2, "cannot write o")
    assert "read-only file system" in line and "choose a writable place" in line
    assert listing(inputs) == before


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mkdir d && mount --bind d d && mount -o remount,bind,ro d && ! touch d/x"],
                               capture_output=True, timeout=30, cwd=folder)
    return probe.returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="no user+mount namespaces here (unshare -rm) for a real read-only mount")
@pytest.mark.parametrize("command", [
    "synthesize --n 5 --workers 1 --quiet --out ro/out",
    "build-release --release-version 0.0.1 --n 20 --quiet --out ro/out",
    "difficulty rows.jsonl --out ro/d.jsonl",
    "view prog.py --call 'f([1], \"a\")' -o ro/p.html",
])
def test_read_only_mount(inputs, command):
    """The real thing: the output folder is a read-only bind mount (root cannot write there either)."""
    (inputs / "ro").mkdir()
    before = listing(inputs)
    script = ("mount --bind ro ro && mount -o remount,bind,ro ro && "
              f"exec {sys.executable} -m execverify_data {command}")
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=120, env=env,
                          cwd=inputs)
    result = type("R", (), {"output": done.stdout + done.stderr, "exit_code": done.returncode})
    line = check(result, 2, "cannot write ro/")
    assert "read-only file system" in line
    assert listing(inputs) == before


def _hide(monkeypatch, *modules: str) -> None:
    """A core install: these modules cannot be imported (``sys.modules[name] = None``)."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


MISSING_EXTRAS = [
    (["datasets"], BR + ["--out", "r"], "build-release needs the 'release' extra (datasets not installed): "
                                        "pip install 'execverify-data[release]'"),
    (["matplotlib", "huggingface_hub"], BR + ["--out", "r"], "(matplotlib, huggingface_hub not installed)"),
    (["ray"], BR + ["--out", "r", "--engine", "ray"], "needs the 'ray' extra (ray not installed): pip install 'execverify-data[ray]'"),
    (["huggingface_hub"], ["push", "release", "--repo-id", "a/b"], "push needs the 'release' extra"),
    (["torch"], ["difficulty", "solver_rows.jsonl", "--out", "d.jsonl", "--solver", "transformers:some/model"],
     "--solver transformers:... needs the 'train' extra (torch not installed): pip install torch==2.13.0"),
    (["vllm"], ["difficulty", "solver_rows.jsonl", "--out", "d.jsonl", "--solver", "vllm:some/model"], "needs the 'vllm' extra"),
    (["torch"], SYN + ["--out", "o", "--generator", "llm:transformers:some/model"],
     "--generator llm:transformers:... needs the 'train' extra (torch not installed): pip install torch==2.13.0"),
    (["vllm"], SYN + ["--out", "o", "--generator", "program", "--share", "0.5", "--generator", "llm:vllm:some/model", "--share", "0.5"],
     "--generator llm:vllm:... needs the 'vllm' extra"),
]


@pytest.mark.parametrize(("hidden", "args", "fragment"), MISSING_EXTRAS, ids=[f"{a[0]}-{'+'.join(h)}" for h, a, _ in MISSING_EXTRAS])
def test_missing_extras_fail_before_any_work(inputs, monkeypatch, hidden, args, fragment):
    _hide(monkeypatch, *hidden)
    before = listing(inputs)
    check(run(args), 1, fragment)
    assert listing(inputs) == before  # no OUT/, no OUT.build/


def test_offline_push(inputs, monkeypatch):
    pytest.importorskip("huggingface_hub")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    line = check(run(["push", "release", "--repo-id", "a/b"]), 1, "cannot push to ")
    assert "HF_HUB_OFFLINE is set" in line


def test_unreachable_hub(inputs):
    pytest.importorskip("huggingface_hub")
    line = check(run(["push", "release", "--repo-id", "a/b", "--endpoint", "http://127.0.0.1:9"]), 1,
                 "cannot push to http://127.0.0.1:9")
    assert "check the network, --endpoint" in line


def test_unreachable_solver_server(inputs):
    before = listing(inputs)
    check(run(["difficulty", "solver_rows.jsonl", "--out", "d.jsonl", "--solver", "openai:http://127.0.0.1:9/v1#m", "--samples", "1",
               "--keep-max-pass", "0"]), 1, "is the server running at http://127.0.0.1:9/v1?")
    assert listing(inputs) == before


def test_unreachable_generator_server(inputs):
    before = listing(inputs)
    check(run(SYN + ["--out", "o", "--workers", "1", "--generator", "program", "--share", "0.5", "--generator",
                     "llm:openai:http://127.0.0.1:9/v1#m", "--share", "0.5"]), 1,
          "--generator llm:openai:http://127.0.0.1:9/v1#m: ")
    assert listing(inputs) == before


def test_generator_server_without_the_model(inputs):
    from execverify_data.testing import OpenAICompatibleServer

    class Silent:
        def generate(self, prompts, **kwargs):
            return [[""] for _ in prompts]

    with OpenAICompatibleServer(Silent(), model_name="tiny") as server:
        url = server.base_url
        line = check(run(SYN + ["--out", "o", "--generator", f"llm:openai:{url}#big"]), 2,
                     f"the server at {url} serves ['tiny'], not 'big'")
    assert f"write llm:openai:{url}#NAME" in line and not (inputs / "o").exists()


@pytest.mark.slow
def test_offline_generator_model_id(inputs, monkeypatch):
    pytest.importorskip("transformers")
    pytest.importorskip("torch")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # inherited by the worker that loads the model
    line = check(run(SYN + ["--out", "o", "--workers", "1", "--quiet", "--generator", "llm:transformers:nobody/no-such-model"]), 1,
                 "--generator: cannot load the model of 'llm:transformers:nobody/no-such-model': ")
    assert "a Hub id while online" in line


@pytest.mark.slow
def test_offline_model_id(inputs, monkeypatch):
    pytest.importorskip("transformers")
    pytest.importorskip("torch")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    before = listing(inputs)
    check(run(["difficulty", "solver_rows.jsonl", "--out", "d.jsonl", "--solver", "transformers:nobody/no-such-model", "--samples", "1",
               "--keep-max-pass", "0"]), 1, "cannot load a solver model")
    assert listing(inputs) == before


def test_deprecated_version_flag_still_works_with_a_note(inputs, monkeypatch):
    """``build-release --version`` is the old name of ``--release-version``: a note on stderr, then the same checks."""
    _hide(monkeypatch, "datasets")
    result = run(["build-release", "--version", "0.0.1", "--n", "20", "--out", "r"])
    check(result, 1, "needs the 'release' extra")
    assert "Warning: build-release --version is deprecated; use --release-version" in result.stderr
    assert "--version" not in run(["build-release", "--help"]).output.replace("--release-version", "")
