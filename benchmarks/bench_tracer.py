"""Tracer throughput over the CRUXEval programs with literal inputs.

Every method does the same surrounding work per program (compile the source,
run its module body in a fresh namespace, read the literal arguments, call
``f``); they differ only in what watches the call:

* plain:  nothing;
* naive:  ``sys.settrace`` storing ``repr`` of every local at every line event
          (the approach of the research code: no canonical values, no
          after-states, no limits);
* ours:   :func:`execverify_data.trace.trace_call` in this process (canonical
          values, per-frame after-states, step and time limits), no fork;
* ours, no timer: the same with ``timeout=None`` (no SIGALRM timer and handler
          to install and remove per call; an added measurement, for the per-call
          share of the timer only; the ratios use the default ``ours``);
* runner: :class:`execverify_data.sandbox.trusted.TrustedRunner` ``map`` with
          one fork per job, reported separately.

Usage: ``python benchmarks/bench_tracer.py [--rounds 3] [--workers 2]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import platform
import sys
import time

from execverify_data import values
from execverify_data.data import cruxeval_records
from execverify_data.errors import AnswerError
from execverify_data.sandbox.trusted import TrustedRunner
from execverify_data.trace import Status, trace_call

FILENAME = "<bench-program>"


def literal_jobs() -> list[tuple[str, str]]:
    jobs = []
    for record in cruxeval_records():
        call = f"f({record['input']})"
        try:
            values.parse_call(call)
        except AnswerError:
            continue
        jobs.append((record["code"], call))
    return jobs


def run_plain(jobs):
    for source, call in jobs:
        namespace = {"__name__": "__main__"}
        exec(compile(source, FILENAME, "exec"), namespace)  # trusted: CRUXEval benchmark programs
        name, args, kwargs = values.parse_call(call)
        namespace[name](*args, **kwargs)


# The baseline, kept exactly as it was: the research code's approach (repr of every local at every line).
def run_naive(jobs):
    for source, call in jobs:
        namespace = {"__name__": "__main__"}
        exec(compile(source, FILENAME, "exec"), namespace)  # trusted: CRUXEval benchmark programs
        name, args, kwargs = values.parse_call(call)
        states = []

        def local(frame, event, arg):
            if event == "line":
                states.append((frame.f_lineno, {k: repr(v) for k, v in frame.f_locals.items()}))
            return local

        def global_(frame, event, arg):
            return local if frame.f_code.co_filename == FILENAME else None

        sys.settrace(global_)
        try:
            namespace[name](*args, **kwargs)
        finally:
            sys.settrace(None)


def run_ours(jobs):
    events = 0
    for source, call in jobs:
        trace = trace_call(source, call)
        assert trace.status is Status.OK, (call, trace.status)
        events += len(trace.events)
    return events


def run_ours_no_timer(jobs):
    for source, call in jobs:
        trace = trace_call(source, call, timeout=None)
        assert trace.status is Status.OK, (call, trace.status)


def best_of(rounds: int, function, jobs) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            function(jobs)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="repetitions; the best time is reported")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the runner")
    options = parser.parse_args()

    jobs = literal_jobs()
    events = run_ours(jobs)
    n = len(jobs)
    plain = best_of(options.rounds, run_plain, jobs)
    naive = best_of(options.rounds, run_naive, jobs)
    ours = best_of(options.rounds, run_ours, jobs)
    no_timer = best_of(options.rounds, run_ours_no_timer, jobs)
    with TrustedRunner(options.workers) as runner:
        runner.map(jobs[:10])  # warm the workers
        start = time.perf_counter()
        traces = runner.map(jobs)
        pooled = time.perf_counter() - start
    assert all(t.status is Status.OK for t in traces)

    print(f"CRUXEval programs with literal inputs: {n}, line events traced: {events} (Python {platform.python_version()})")
    print(f"plain calls:            {n / plain:9.0f} calls/s")
    print(f"naive settrace + repr:  {n / naive:9.0f} calls/s")
    print(f"ours (trace_call):      {n / ours:9.0f} calls/s   ({events / ours:,.0f} events/s)")
    print(f"ours, timeout=None:     {n / no_timer:9.0f} calls/s   (per-call cost of the SIGALRM timer: {(ours - no_timer) / n * 1e6:.1f} us)")
    print(f"runner ({options.workers} workers, fork per job): {n / pooled:9.0f} calls/s")
    print(f"ratios: ours/naive time {ours / naive:.2f}x, ours/plain time {ours / plain:.2f}x, naive/plain time {naive / plain:.2f}x")


if __name__ == "__main__":
    main()
