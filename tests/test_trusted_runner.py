"""The trusted runner: results, order, limits, crashes, isolation and the fixed hash seed."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from execverify_data.errors import InvalidArgument, ProgramError
from execverify_data.sandbox.trusted import Job, TrustedRunner, run_traced
from execverify_data.trace import Status, trace_call

DOUBLE = "def f(x):\n    y = x * 2\n    return y\n"
SPIN = "def f():\n    while True: pass\n"


@pytest.fixture(scope="module")
def runner():
    # a step budget large enough that SPIN ends by timeout on every version
    # (3.12+ emit a line event per iteration of `while True: pass`, 3.11 only one)
    with TrustedRunner(2, timeout=1.0, grace=0.5, max_steps=10**9) as pool:
        yield pool


def test_trace_matches_in_process_tracing(runner):
    remote = runner.trace(DOUBLE, "f(21)")
    local = trace_call(DOUBLE, "f(21)")
    assert remote.status is Status.OK and remote.output.text == "42"
    assert remote.events == local.events
    assert remote.python == local.python


def test_map_preserves_order(runner):
    jobs = [(DOUBLE, f"f({i})") for i in range(20)]
    results = runner.map(jobs)
    assert [r.output.text for r in results] == [str(2 * i) for i in range(20)]


def test_map_accepts_job_tuples_with_trusted_flag(runner):
    results = runner.map([Job(DOUBLE, "f(len('abc'))", trusted_call=True), (DOUBLE, "f(1)", False)])
    assert [r.output.text for r in results] == ["6", "2"]


def test_timeout_without_trace_events_does_not_hang(runner):
    start = time.monotonic()
    result = runner.trace(SPIN, "f()")
    assert result.status is Status.TIMEOUT
    assert time.monotonic() - start < 5
    # the pool still works afterwards
    assert runner.trace(DOUBLE, "f(1)").output.text == "2"


SWALLOWS_TIMEOUT = (
    "import time\n"
    "def f():\n"
    "    n = 0\n"
    "    try:\n"
    "        while True:\n"
    "            n += 1\n"
    "            time.sleep(0.01)\n"
    "    except BaseException:\n"
    "        pass\n"
    "    while True:\n"
    "        try:\n"
    "            time.sleep(1)\n"
    "        except BaseException:\n"
    "            pass\n"
)


def test_a_job_that_swallows_the_timeout_keeps_its_events():
    # The program catches the in-process timeout and runs on: after timeout + grace / 2 the
    # worker asks the job for a checkpoint, and the events recorded until the trace stopped
    # come back with status timeout (before: none survived the hard kill).
    with TrustedRunner(1, timeout=0.5, grace=1.0, max_steps=10**9) as pool:
        start = time.monotonic()
        result = pool.trace(SWALLOWS_TIMEOUT, "f()")
        elapsed = time.monotonic() - start
        assert result.status is Status.TIMEOUT
        lines = [event.line for event in result.events]
        assert lines[:3] == [3, 4, 5] and lines.count(6) >= 5, lines[:20]
        assert result.events[-1].locals["n"].type == "int"
        assert 0.9 < elapsed < 5
        assert pool.trace(DOUBLE, "f(2)").output.text == "4"
        # without events (the oi scorer's map): the same checkpoint, its events left out
        bare = pool.map([(SWALLOWS_TIMEOUT, "f()"), (DOUBLE, "f(2)")], events=False)
        assert bare[0].status is Status.TIMEOUT and bare[0].events == ()
        assert bare[1].output.text == "4" and bare[1].events == ()


def test_the_cli_prints_the_events_of_a_hard_killed_timeout(tmp_path):
    from click.testing import CliRunner

    from execverify_data.cli import main

    program = tmp_path / "swallow.py"
    program.write_text(SWALLOWS_TIMEOUT)
    result = CliRunner().invoke(main, ["trace", str(program), "--call", "f()", "--timeout", "0.5", "--json"])
    assert result.exit_code == 0, result.output
    import json

    printed = json.loads(result.output)
    assert printed["status"] == "timeout" and len(printed["events"]) >= 10


def test_a_checkpoint_that_does_not_come_ends_in_a_kill():
    # a job stuck in one C call cannot answer the checkpoint: it is killed, without events
    with TrustedRunner(1, timeout=0.3, grace=0.4) as pool:
        start = time.monotonic()
        result = pool.trace("def f():\n    x = 1\n    return sum(range(10 ** 15))\n", "f()")
        assert result.status is Status.TIMEOUT and result.events == ()
        assert time.monotonic() - start < 5


def test_uninterruptible_c_call_is_killed():
    with TrustedRunner(1, timeout=0.5, grace=0.5) as pool:
        start = time.monotonic()
        result = pool.trace("def f():\n    return sum(range(10 ** 15))\n", "f()")
        assert result.status is Status.TIMEOUT
        assert time.monotonic() - start < 5


def test_step_limit(runner):
    pool = TrustedRunner(1, max_steps=50, timeout=2.0)
    with pool:
        result = pool.trace("def f():\n    i = 0\n    while True:\n        i += 1\n", "f()")
    assert result.status is Status.STEP_LIMIT and len(result.events) == 50


def test_memory_limit():
    with TrustedRunner(1, memory_mb=512, timeout=5.0) as pool:
        result = pool.trace("def f():\n    return len(bytearray(2 * 1024 ** 3))\n", "f()")
    assert result.status is Status.EXCEPTION and result.exception.type == "MemoryError"


def test_crash_of_the_job_process(runner):
    result = runner.trace("import os\ndef f():\n    os._exit(3)\n", "f()")
    assert result.status is Status.CRASHED
    assert "code 3" in result.exception.message
    assert runner.trace(DOUBLE, "f(3)").output.text == "6"


def test_a_killed_worker_is_replaced(runner):
    worker = runner._pool[0]
    os.killpg(worker.process.pid, 9)
    worker.process.wait()
    results = runner.map([(DOUBLE, "f(5)"), (DOUBLE, "f(6)"), (DOUBLE, "f(7)")])
    statuses = [r.status for r in results]
    assert statuses.count(Status.CRASHED) <= 1
    assert [r.output.text for r in results if r.status is Status.OK] == [
        t for t, r in zip(["10", "12", "14"], results) if r.status is Status.OK
    ]
    assert all(w.process.poll() is None for w in runner._pool)
    assert runner.trace(DOUBLE, "f(8)").output.text == "16"


def test_program_errors(runner):
    with pytest.raises(ProgramError, match="does not compile"):
        runner.trace("def f(:\n", "f()")
    with pytest.raises(ProgramError, match="trusted_call=True"):
        runner.trace(DOUBLE, "f(len('a'))")
    results = runner.map([(DOUBLE, "f(1)"), ("def f(:\n", "f()")], return_exceptions=True)
    assert results[0].output.text == "2" and isinstance(results[1], ProgramError)


def test_jobs_are_isolated_from_each_other():
    # a job that patches builtins and module state cannot affect the next job
    patch = "import builtins, math\ndef f():\n    builtins.len = lambda x: 0\n    math.pi = 3\n    return 1\n"
    probe = "import math\ndef f():\n    return len('abc'), math.pi\n"
    with TrustedRunner(1) as pool:
        results = pool.map([(patch, "f()"), (probe, "f()")])
    assert results[1].output.text == "(3, 3.141592653589793)"


def test_randomness_is_the_same_in_every_job():
    source = "import random\ndef f():\n    return random.random()\n"
    with TrustedRunner(2) as pool:
        outputs = {r.output.text for r in pool.map([(source, "f()")] * 6)}
    assert len(outputs) == 1


SET_ORDER = """\
def f(words):
    seen = set(words)
    order = []
    for w in seen:
        order.append(w)
    return order
"""


def test_workers_run_with_a_fixed_hash_seed(runner):
    call = "f(['pear', 'apple', 'fig', 'kiwi', 'plum', 'lime', 'date'])"
    expected = subprocess.run(
        [sys.executable, "-c", "print(list(set(['pear', 'apple', 'fig', 'kiwi', 'plum', 'lime', 'date'])))"],
        env={**os.environ, "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    traces = runner.map([(SET_ORDER, call)] * 4)
    assert {t.output.text for t in traces} == {expected}
    with TrustedRunner(1) as other:
        assert other.trace(SET_ORDER, call).events == traces[0].events


def test_run_traced():
    assert run_traced(DOUBLE, "f(4)").output.text == "8"
    assert run_traced(SPIN, "f()", timeout=0.3, max_steps=10**9).status is Status.TIMEOUT


@pytest.mark.parametrize(
    "options",
    [{"workers": 0}, {"timeout": 0}, {"max_steps": -1}, {"memory_mb": 0}, {"workers": True}],
)
def test_bad_options(options):
    with pytest.raises(InvalidArgument):
        TrustedRunner(**options)


def test_closed_runner_refuses_work():
    pool = TrustedRunner(1)
    pool.close()
    with pytest.raises(InvalidArgument, match="closed"):
        pool.trace(DOUBLE, "f(1)")


def test_a_stuck_worker_is_killed_and_replaced():
    # A worker that stops answering (here: stopped by SIGSTOP before it reads the job)
    # is killed after timeout + 3 * grace; the job gets status timeout.
    import signal

    with TrustedRunner(1, timeout=0.3, grace=0.2) as pool:
        assert pool.trace(DOUBLE, "f(1)").output.text == "2"
        stuck = pool._pool[0]
        os.kill(stuck.process.pid, signal.SIGSTOP)
        start = time.monotonic()
        result = pool.trace(DOUBLE, "f(2)")
        assert result.status is Status.TIMEOUT
        assert 0.8 < time.monotonic() - start < 5
        assert stuck.process.poll() is not None and pool._pool[0] is not stuck
        assert pool.trace(DOUBLE, "f(3)").output.text == "6"


def test_a_worker_that_cannot_start_is_an_error(tmp_path):
    from execverify_data.errors import ExecVerifyError

    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'No module named execverify_data' >&2\nexit 1\n")
    fake.chmod(0o755)
    with TrustedRunner(1, python=str(fake)) as pool:
        with pytest.raises(ExecVerifyError, match="could not start.*No module named execverify_data"):
            pool.trace(DOUBLE, "f(1)")
