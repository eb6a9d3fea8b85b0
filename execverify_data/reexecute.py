"""Independent re-execution: every row's text run as ordinary source in a fresh interpreter.

A label is what Python gives for the row's text. This module checks that claim
against an execution that shares nothing with the code that produced the label:

* ``output``: the program and ``__result__ = f(INPUT)`` are compiled from text and run
  as a plain module; the canonical text of the result must be the recorded output.
* ``assert``: ``assert f(INPUT) == OUTPUT`` appended to the program text, compiled and
  run as ordinary source, must hold (this is how a reader would check a row).
* ``states`` (optional): a small line tracer written independently of
  :mod:`execverify_data.trace` (the after-state rule of ``docs/tracing.md``, nothing
  else) records every line event of the call run from text; the project's tracer must
  give the same events: function, frame, depth, line, occurrence, and every local's
  canonical text and type.

The checks run in child interpreters (``python -c``) started with their own
``PYTHONHASHSEED``; the child may be another Python (3.12, 3.13) than the one that
made the rows: it needs nothing but the standard library and this package's
``values``/``trace`` modules (found through ``PYTHONPATH``). The code is trusted
(our own synthesized programs); use the sandbox for anything else.

>>> rows = [{"id": "r", "code": "def f(xs):\\n    return list(xs)\\n", "entry_point": "f",
...          "inputs": ["{-2, -1, 0}"], "outputs": [repr(list({-2, -1, 0}))]}]
>>> check_rows(rows, states=True).mismatches
[]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Iterable

from execverify_data.errors import check_int

__all__ = ["Mismatch", "Report", "check_rows"]

_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_BOOT = "from execverify_data.reexecute import _main; _main()"


@dataclass(frozen=True)
class Mismatch:
    """One disagreement: row ``id``, input index ``input``, ``kind`` (``output``, ``assert``,
    ``states``, ``error``) and a short ``detail``."""

    id: str
    input: int
    kind: str
    detail: str


@dataclass
class Report:
    """What :func:`check_rows` found: ``calls`` checked, ``events`` compared, the ``mismatches``."""

    calls: int = 0
    events: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def check_rows(rows: Iterable[dict], *, python: str | None = None, hash_seed: int = 12345, states: bool = False,
               workers: int = 1, max_steps: int = 5000, timeout: float = 30.0) -> Report:
    """Re-execute every ``(code, input)`` pair of ``rows`` as source in fresh interpreters.

    Args:
        rows (`Iterable[dict]`): records with ``id``, ``code``, ``entry_point``, ``inputs``
            (argument texts) and ``outputs`` (canonical texts), as ``execverify synthesize`` writes.
        python (`str`, optional): the interpreter to run (defaults to this one).
        hash_seed (`int`, defaults to 12345): ``PYTHONHASHSEED`` of the children.
        states (`bool`, defaults to `False`): also compare every event of the project's tracer with
            the independent tracer (both run in the child).
        workers (`int`, defaults to 1): child interpreters, each given an equal share of the rows.
        max_steps (`int`), timeout (`float`): budgets per call.
    """
    check_int("workers", workers)
    jobs = [json.dumps({"id": r["id"], "code": r["code"], "entry": r["entry_point"], "inputs": list(r["inputs"]),
                        "outputs": list(r["outputs"])}) for r in rows]
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed),
           "PYTHONPATH": os.pathsep.join(p for p in (_PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p)}
    settings = json.dumps({"states": states, "max_steps": max_steps, "timeout": timeout})
    from concurrent.futures import ThreadPoolExecutor

    shares = [share for share in (jobs[i::workers] for i in range(workers)) if share]
    procs = [subprocess.Popen([python or sys.executable, "-c", _BOOT, settings], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for _ in shares]

    def talk(proc: subprocess.Popen, share: list[str]) -> tuple[str, str]:
        return proc.communicate("\n".join(share) + "\n")

    with ThreadPoolExecutor(max(1, len(procs))) as pool:  # one thread per child: all pipes are drained at once
        outputs = list(pool.map(talk, procs, shares))
    report = Report()
    for proc, (out, err) in zip(procs, outputs):
        if proc.returncode != 0:
            raise RuntimeError(f"the re-execution child ({python or sys.executable}) failed: {err.strip()[-2000:]}")
        for line in out.splitlines():
            data = json.loads(line)
            report.calls += data["calls"]
            report.events += data["events"]
            report.mismatches.extend(Mismatch(**m) for m in data["mismatches"])
    report.mismatches.sort(key=lambda m: (m.id, m.input, m.kind))
    return report


# ------------------------------------------------------------------ the child (runs in the fresh interpreter)

_PROGRAM = "<reexecuted-program>"
_CALL = "<reexecuted-call>"


class _StepLimit(BaseException):
    pass


class _IndependentTracer:
    """Line events of code compiled under ``_PROGRAM``, with each frame's locals at its next
    event or when it is left (the after-state of ``docs/tracing.md``)."""

    def __init__(self, max_steps: int, encode):
        self.max_steps = max_steps
        self.encode = encode
        self.events: list[list] = []
        self.ids: dict[int, int] = {}
        self.keep: list = []  # frames stay alive, so their ids are never reused
        self.pending: dict[int, int] = {}
        self.occurrences: dict[int, int] = {}

    def on_call(self, frame, event, arg):
        if frame.f_code.co_filename != _PROGRAM:
            return None
        if id(frame) not in self.ids:
            self.ids[id(frame)] = len(self.ids)
            self.keep.append(frame)
        return self.on_event

    def state(self, frame) -> dict:
        return {name: list(self.encode(value)[:2]) for name, value in frame.f_locals.items() if name.isidentifier()}

    def settle(self, frame) -> None:
        index = self.pending.pop(id(frame), None)
        if index is not None:
            self.events[index][5] = self.state(frame)

    def on_event(self, frame, event, arg):
        if event == "line":
            self.settle(frame)
            if len(self.events) >= self.max_steps:
                raise _StepLimit
            line = frame.f_lineno
            self.occurrences[line] = self.occurrences.get(line, 0) + 1
            depth, back = 0, frame.f_back
            while back is not None:
                depth += back.f_code.co_filename == _PROGRAM
                back = back.f_back
            self.pending[id(frame)] = len(self.events)
            self.events.append([frame.f_code.co_name, self.ids[id(frame)], depth, line, self.occurrences[line], None])
        elif event == "return":
            self.settle(frame)
        return self.on_event


def _run_call(code: str, entry: str, call_args: str, tracer=None):
    namespace = {"__name__": "__main__"}
    exec(compile(code, _PROGRAM, "exec", dont_inherit=True), namespace)  # trusted: our own synthesized programs
    call = compile(f"{entry}({call_args})", _CALL, "eval", dont_inherit=True)
    if tracer is None:
        return eval(call, namespace)  # trusted: the row's own call text, as a reader would run it
    sys.settrace(tracer.on_call)
    try:
        return eval(call, namespace)  # trusted: as above, under the independent tracer
    finally:
        sys.settrace(None)
        for frame in list(tracer.keep):  # frames still running (a generator left suspended): settle them now
            tracer.settle(frame)


def _check_row(job: dict, settings: dict) -> dict:
    import signal
    import warnings

    from execverify_data.trace import trace_call
    from execverify_data.values import encode

    warnings.simplefilter("ignore")
    mismatches, calls, events = [], 0, 0

    def bad(i: int, kind: str, detail: str) -> None:
        mismatches.append({"id": job["id"], "input": i, "kind": kind, "detail": detail[:500]})

    def on_alarm(signum, frame):
        raise TimeoutError("the call ran past the re-execution timeout")

    signal.signal(signal.SIGALRM, on_alarm)
    for i, (args, expected) in enumerate(zip(job["inputs"], job["outputs"])):
        calls += 1
        signal.setitimer(signal.ITIMER_REAL, settings["timeout"])
        try:
            got = encode(_run_call(job["code"], job["entry"], args)).text
            if got != expected:
                bad(i, "output", f"recorded {expected[:200]}, Python gives {got[:200]}")
            source = f"{job['code']}\n\nassert {job['entry']}({args}) == {expected}\n"
            try:
                exec(compile(source, "<row>", "exec", dont_inherit=True), {"__name__": "__main__"})  # trusted: as above
            except AssertionError:
                bad(i, "assert", f"assert {job['entry']}({args[:100]}) == {expected[:100]} fails")
            if settings["states"]:
                tracer = _IndependentTracer(settings["max_steps"], encode)
                _run_call(job["code"], job["entry"], args, tracer)
                ours = trace_call(job["code"], f"{job['entry']}({args})", max_steps=settings["max_steps"],
                                  timeout=settings["timeout"])
                mine = [[e.function, e.frame, e.depth, e.line, e.occurrence,
                         {k: [v.text, v.type] for k, v in e.locals.items()}] for e in ours.events]
                events += len(mine)
                if mine != tracer.events:
                    first = next((j for j, (a, b) in enumerate(zip(mine, tracer.events)) if a != b), min(len(mine), len(tracer.events)))
                    a = mine[first] if first < len(mine) else None
                    b = tracer.events[first] if first < len(tracer.events) else None
                    bad(i, "states", f"event {first} of {len(mine)}/{len(tracer.events)}: ours {a}, independent {b}")
        except BaseException as exc:  # noqa: BLE001 - any failure is a finding about the row
            bad(i, "error", f"{type(exc).__name__}: {exc}")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return {"calls": calls, "events": events, "mismatches": mismatches}


def _main() -> None:  # pragma: no cover - runs in the child interpreter
    settings = json.loads(sys.argv[1])
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(_check_row(json.loads(line), settings)), flush=True)
