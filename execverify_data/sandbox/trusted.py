"""The trusted runner: trace synthesized programs and benchmark data in a warm pool of worker
processes, with a step budget, a hard wall-clock kill, a memory limit and a fixed hash seed
(``docs/tracing.md``, "Limits and the trusted runner", describes the clocks, the crashes and the batches).

"Trusted" means the code was written by us or by a benchmark, not by a model: the runner
protects the caller from bugs (endless loops, runaway memory, crashes, programs that change
global state), not from malice. Model-written code goes through the untrusted runner.
Model-written *arguments* (an ``oi`` answer) do reach it, so a worker sees nothing of the
caller's environment (:func:`~execverify_data.sandbox.warm.minimal_env`).

Each worker forks one child per job (or per batch of jobs) from its warm, pre-imported state,
so every job starts from the same process state: a result does not depend on which worker ran
it, on the number of workers, or on what earlier jobs changed.

>>> with TrustedRunner(workers=1, timeout=2.0) as runner:
...     trace = runner.trace("def f(x):\\n    return x * 2\\n", "f(21)")
>>> trace.status.value, trace.output.text
('ok', '42')
"""

from __future__ import annotations

import dataclasses
import os
import select
import signal
import sys
import time
from collections import deque
from types import CodeType
from typing import Iterable, NamedTuple, Sequence

from execverify_data.errors import InvalidArgument, ProgramError
from execverify_data.sandbox import _wire
from execverify_data.sandbox.warm import Boot, WarmProcess, minimal_env
from execverify_data.trace import (
    DEFAULT_MAX_STEPS,
    DEFAULT_TIMEOUT,
    ExceptionInfo,
    Status,
    Trace,
)

__all__ = ["DEFAULT_MEMORY_MB", "Job", "TrustedRunner", "run_traced"]

#: Default address-space limit of a job's process, in MiB.
DEFAULT_MEMORY_MB = 2048
#: Modules imported by each worker before it forks jobs (cheap imports for programs).
PREIMPORTED = ("execverify_data.trace", "collections", "copy", "functools", "heapq", "bisect", "itertools", "math",
               "operator", "random", "re", "string", "typing")
#: The largest result frame a worker may send (a trace of a million events fits).
MAX_RESULT_BYTES = 1 << 30
_RESULT_KINDS = (_wire.PICKLE,)


class Job(NamedTuple):
    """One unit of work for :meth:`TrustedRunner.map`: a program, a call and whether the call is trusted."""

    source: str
    call: str
    trusted_call: bool = False


# ---------------------------------------------------------------------- the worker side


def _worker_main() -> None:  # pragma: no cover - runs in the worker process
    """Entry point of a worker process: pre-import, then run each job in forked children."""
    import gc
    import importlib

    channel = _wire.take_channel()
    _wire.read_frame(channel)  # the configuration (nothing to configure yet)
    for name in PREIMPORTED:
        importlib.import_module(name)
    importlib.import_module("pickle")  # for the result frames: not imported again in every job's process
    gc.collect()
    gc.freeze()  # keep the collector away from inherited objects: fewer copy-on-write faults per job
    _wire.write_all(channel, _wire.pack_json({"ready": True, "pid": os.getpid()}))
    while True:
        try:
            job = _wire.read_frame(channel)
        except _wire.FrameError:
            os._exit(1)
        if job is None:
            os._exit(0)
        calls, done = job["calls"], 0
        while done < len(calls):  # one child, or more when a child stops before the last call
            done = _run_in_child(channel, job, done)


def _run_in_child(channel: int, job: dict, first: int) -> int:  # pragma: no cover - runs in the worker process
    """Fork a process that runs the job's calls from ``first`` on, supervise it, send the parent one
    result frame per call it finished (or one that says why not), and return the next call to run.

    The clocks restart at every result: each call has its own ``timeout`` and ``grace``. A call
    whose process died without a result (not by the clocks) gets a fresh process when calls ran
    before it in that one, so its result is the one it gets alone; as the first call it is ``crashed``.
    """
    timeout, grace = float(job["timeout"]), float(job["grace"])
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            os.close(read_end)
            os.close(channel)
            _child_setup(job.get("memory_mb"), write_end, job.get("events", True))
            _run_calls(write_end, job, first)
        except BaseException:  # noqa: BLE001 - never return into the worker's loop
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    buffer = bytearray()
    current = first  # the call running now
    timed_out = None  # the call the clocks stopped
    stopped = False  # the child asked for a fresh process for the calls after its last result
    start, asked = time.monotonic(), False  # the clocks restart at every result
    while True:
        now = time.monotonic()
        checkpoint, deadline = start + timeout + grace / 2, start + timeout + grace
        if now >= deadline and timed_out is None:
            os.kill(pid, signal.SIGKILL)
            timed_out = current  # what the pipe still holds is read below, to its end
        if now >= checkpoint and not asked:
            os.kill(pid, signal.SIGUSR1)  # a program that swallowed the timeout: send the events so far
            asked = True
        # once the child is killed, only what the pipe holds is read (a process it started may keep it open)
        wake = now if timed_out is not None else deadline if asked else checkpoint
        ready, _, _ = select.select([read_end], [], [], max(0.0, wake - now))
        if not ready:
            if timed_out is not None:
                break
            continue
        chunk = os.read(read_end, 1 << 20)
        if not chunk:
            break
        buffer += chunk
        while len(buffer) >= _wire.HEADER.size:
            end = _wire.HEADER.size + _wire.HEADER.unpack_from(buffer)[0]
            if len(buffer) < end:
                break
            frame = bytes(buffer[:end])
            del buffer[:end]
            if frame[_wire.HEADER.size:_wire.HEADER.size + 1] == _wire.JSON:
                stopped = True
                continue
            _wire.write_all(channel, frame)
            current += 1
            start, asked = time.monotonic(), False
    os.close(read_end)
    _, wait_status = os.waitpid(pid, 0)
    if stopped or current == len(job["calls"]):
        return current
    if timed_out is not None:
        if timed_out < current:  # the call the clocks stopped had just sent its result
            return current
        _wire.write_all(channel, _wire.pack_pickle(("trace", Trace(Status.TIMEOUT))))
        return current + 1
    if current > first:
        return current
    if os.WIFSIGNALED(wait_status):
        why = f"the job's process was killed by signal {os.WTERMSIG(wait_status)}"
    else:
        why = f"the job's process exited with code {os.WEXITSTATUS(wait_status)} without a result"
    _wire.write_all(channel, _wire.pack_pickle(("trace", _crashed(why))))
    return current + 1


#: True while a result frame is being written: a checkpoint request is then ignored.
_sending = False
#: When the running call started (``time.monotonic()``) and its timeout.
_call_started, _call_timeout = 0.0, 0.0


def _run_calls(fd: int, job: dict, first: int) -> None:  # pragma: no cover - runs in the job's process
    """Trace the job's calls from ``first`` on in this process, one result frame each, while this
    process stays as a fresh fork would be for the next call of the same program (see :func:`_shares_nothing`);
    then, and always before another program's call, a ``{"fresh": true}`` frame asks the worker for a new process
    for the rest. A call that fails in
    a way a past call may have caused (``MemoryError``, a crash) after others ran here sends nothing:
    the worker runs it again first in a new process."""
    global _call_started, _call_timeout
    from execverify_data.trace import trace_call

    sources, calls = job["sources"], job["calls"]
    max_steps, timeout = int(job["max_steps"]), float(job["timeout"])
    shares: dict[int, bool] = {}  # program -> whether calls may run after its calls here (decided before they run)
    depth = sys.getrecursionlimit()
    for position in range(first, len(calls)):
        which, call, trusted_call = calls[position]
        source = sources[which]
        if position > first:
            # a program compiled after others interned their strings, or a call whose text did
            if (which not in shares and _builds_a_string_set(source, "exec")) or _builds_a_string_set(call):
                _wire.write_all(fd, _wire.pack_json({"fresh": True}))
                return
            sys.modules["random"].seed(0)  # as _child_setup left it for the first call
        if which not in shares:
            # (a unit holds each program's calls together: a program whose next call is another's has no more here)
            shares[which] = position + 1 < len(calls) and calls[position + 1][0] == which and _shares_nothing(source)
        modules = len(sys.modules)
        _call_started, _call_timeout = time.monotonic(), timeout
        try:
            if job.get("notes"):  # what decided each step too (execverify_data.decisions): a third element
                from execverify_data.decisions import trace_with_decisions

                result = ("trace", *trace_with_decisions(source, call, trusted_call=bool(trusted_call),
                                                         max_steps=max_steps, timeout=timeout))
            else:
                result = ("trace", trace_call(source, call, trusted_call=bool(trusted_call), max_steps=max_steps,
                                              timeout=timeout))
        except ProgramError as exc:
            result = ("program_error", str(exc))
        # a module the call imported would be there already for the next call
        clean = (result[0] == "program_error" or _clean_end(result[1])) and len(sys.modules) == modules
        if position > first and result[0] == "trace" and _may_depend_on_the_past(result[1]):
            return
        if result[0] == "trace" and not job.get("events", True):  # the outcome only: no events to pickle and read
            result = ("trace", dataclasses.replace(result[1], events=()), *result[2:])
        _send_result(fd, result)
        # another program's call always gets a fresh fork: no check of a program's code can prove that it leaves
        # the interpreter as it found it (``re._cache``, ``copy._deepcopy_dispatch``, ``ABC.register``)
        if position + 1 < len(calls) and not (calls[position + 1][0] == which and shares[which] and clean
                                              and sys.getrecursionlimit() == depth):
            _wire.write_all(fd, _wire.pack_json({"fresh": True}))
            return


#: Modules a program may import and still run several calls in one process: pre-imported, and with
#: no state a call can change without an attribute store (which :func:`_shares_nothing` refuses);
#: ``random``'s generator is seeded again before every call.
SHARED_IMPORTS = frozenset(name for name in PREIMPORTED if not name.startswith("execverify_data"))
#: Names that reach the process's shared state (module and class attributes, builtins, frames,
#: open files, the interpreter's exit): a program that uses one gets a fresh process per call.
_UNSHARED_NAMES = frozenset({"breakpoint", "delattr", "eval", "exec", "exit", "getattr", "globals", "help", "open", "quit",
                             "setattr", "vars", "ag_frame", "cr_frame", "f_back", "f_builtins", "f_globals", "f_locals",
                             "gi_frame", "tb_frame"})


def _shares_nothing(source: str) -> bool:  # pragma: no cover - runs in the job's process
    """Whether calls of ``source`` can run one after another in one process and each get the
    result it gets in a fresh fork.

    Each call runs the module body afresh in a new namespace, so what it changes in its own
    globals is gone at the next call. What else it could change is refused here, from the
    compiled code (every nested code object): an attribute store or delete (``math.pi = 3``,
    ``builtins.len = ...``, a class patched), a name of :data:`_UNSHARED_NAMES`, a dunder name
    other than ``__name__`` (``__dict__``, ``__builtins__``, ``__class__``), an import of a module
    outside :data:`SHARED_IMPORTS`. A program that does not compile raises the same error in every call.

    >>> _shares_nothing("def f(xs):\\n    ys = sorted(xs)\\n    return ys[0]\\n")
    True
    >>> _shares_nothing("import math\\ndef f():\\n    math.pi = 3\\n")
    False
    """
    import opcode

    from execverify_data.trace import compile_program

    try:
        code = compile_program(source)
    except ProgramError:
        return True
    refused = {opcode.opmap["STORE_ATTR"], opcode.opmap["DELETE_ATTR"]}
    import_name, extended = opcode.opmap["IMPORT_NAME"], opcode.EXTENDED_ARG
    todo = [code]
    while todo:
        code = todo.pop()
        names = code.co_names
        if any(name in _UNSHARED_NAMES or (name.startswith("__") and name != "__name__") for name in names):
            return False
        raw = code.co_code
        ops = raw[::2]  # word code: an opcode, then its argument byte
        if any(op in ops for op in refused):
            return False
        if import_name in ops:
            prefix = 0
            for at in range(0, len(raw), 2):
                op, arg = raw[at], raw[at + 1] | prefix
                prefix = arg << 8 if op == extended else 0
                if op == import_name and names[arg].partition(".")[0] not in SHARED_IMPORTS:
                    return False
        todo.extend(const for const in code.co_consts if isinstance(const, CodeType))
    return True


def _builds_a_string_set(text: str, mode: str = "eval") -> bool:  # pragma: no cover - runs in the job's process
    """Whether ``text`` (a call's arguments, or with ``mode="exec"`` a program) holds a set display
    with a string in it, whose iteration order depends on the strings this process interned before.

    CPython compiles a set display of constants to a frozenset constant and, when it interns the
    code's strings, builds that frozenset again (in its iteration order, so with another hash
    table where hashes collide) if an element equals a string interned earlier. The strings an
    earlier call's text or an earlier program interned would change the order a program sees, so
    such a call, or the first call of such a program, runs first in a process of its own.
    """
    if "{" not in text or ("'" not in text and '"' not in text):
        return False
    import ast

    try:
        tree = ast.parse(text, mode=mode)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return any(isinstance(node, ast.Set) and any(isinstance(inner, ast.Constant) and isinstance(inner.value, str)
                                                 for inner in ast.walk(node))
               for node in ast.walk(tree))


def _clean_end(trace: Trace) -> bool:  # pragma: no cover - runs in the job's process
    """The call ended where the process state is whole: it returned, raised (not ``MemoryError``)
    or ran out of steps (raised in the program's own code). A timeout can interrupt any code."""
    if trace.status is Status.EXCEPTION:
        return trace.exception.type != "MemoryError"
    return trace.status in (Status.OK, Status.STEP_LIMIT)


def _may_depend_on_the_past(trace: Trace) -> bool:  # pragma: no cover - runs in the job's process
    return trace.status is Status.CRASHED or (trace.status is Status.EXCEPTION and trace.exception.type == "MemoryError")


def _send_result(fd: int, result: tuple) -> None:  # pragma: no cover - runs in the job's process
    global _sending
    _sending = True  # meanwhile a checkpoint request is ignored: one frame per call
    _wire.write_all(fd, _wire.pack_pickle(result))
    _sending = False


def _running_recorder():  # pragma: no cover - runs in the job's process
    """The recorder of the ``trace_call`` running in this process, or ``None``: the tracer keeps
    it on the SIGALRM handler it installs for the call (``execverify_data.trace._Alarm``).
    ``tests/test_trusted_runner.py`` fails if the tracer stops doing so."""
    handler = signal.getsignal(signal.SIGALRM)
    return getattr(getattr(handler, "__self__", None), "recorder", None)


def _checkpoint_handler(fd: int, with_events: bool = True):  # pragma: no cover - runs in the job's process
    def on_checkpoint(signum, frame):
        if _sending or time.monotonic() - _call_started < _call_timeout / 2:
            return  # a request for the call whose result was just sent
        signal.setitimer(signal.ITIMER_REAL, 0)  # no late SIGALRM of the tracer interrupts the checkpoint
        recorder = _running_recorder()
        events: tuple = ()
        if recorder is not None:
            recorder.done = True
            recorder.stop(Status.TIMEOUT, frame)  # freezes the pending events (no-op once stopped)
            events = recorder.build_events() if with_events else ()
        stdout = sys.stdout.getvalue() if hasattr(sys.stdout, "getvalue") else ""
        try:
            _send_result(fd, ("trace", Trace(Status.TIMEOUT, events, stdout=stdout)))
        finally:
            os._exit(0)

    return on_checkpoint


def _child_setup(memory_mb: int | None, result_fd: int, with_events: bool = True) -> None:  # pragma: no cover - runs in the job's process
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGUSR1, _checkpoint_handler(result_fd, with_events))
    if memory_mb is not None:
        import resource

        limit = int(memory_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    null = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(null, target)
    os.close(null)
    sys.modules["random"].seed(0)


# ---------------------------------------------------------------------- the parent side


def _worker_boot(python: str) -> Boot:
    return Boot(name="a trusted-runner worker", target="execverify_data.sandbox.trusted:_worker_main",
                python=python, env=minimal_env(PYTHONHASHSEED="0"))


def _positive(name: str, value, kind=(int, float), allow_none: bool = False):
    if value is None and allow_none:
        return value
    if isinstance(value, bool) or not isinstance(value, kind) or not value > 0:  # NaN is not
        raise InvalidArgument(f"{name} must be a positive number, got {value!r}")
    return value


class TrustedRunner:
    """A pool of warm worker processes that trace programs (see the module docs).

    Args:
        workers (`int`, optional, defaults to 2): worker processes, i.e. jobs run in parallel.
        max_steps (`int`, optional, defaults to `DEFAULT_MAX_STEPS`): line events per job.
        timeout (`float`, optional, defaults to `DEFAULT_TIMEOUT`): seconds per job.
        memory_mb (`int`, optional, defaults to `DEFAULT_MEMORY_MB`): address-space limit
            of a job's process in MiB; ``None`` for no limit.
        grace (`float`, optional, defaults to 1.0): extra seconds before the hard kills.
        python (`str`, optional, defaults to `sys.executable`): the interpreter the workers
            run; it must be able to import this package (its root is put first on ``sys.path``).

    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, workers: int = 2, *, max_steps: int = DEFAULT_MAX_STEPS, timeout: float = DEFAULT_TIMEOUT,
                 memory_mb: int | None = DEFAULT_MEMORY_MB, grace: float = 1.0, python: str | None = None):
        self.workers = _positive("workers", workers, int)
        self.max_steps = _positive("max_steps", max_steps, int)
        self.timeout = float(_positive("timeout", timeout))
        self.memory_mb = _positive("memory_mb", memory_mb, int, allow_none=True)
        self.grace = float(_positive("grace", grace))
        self.python = python or sys.executable
        self._pool: list[WarmProcess] = []
        self._closed = False

    def __enter__(self) -> TrustedRunner:
        self._start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _start(self) -> None:
        if self._closed:
            raise InvalidArgument("this TrustedRunner is closed; create a new one")
        while len(self._pool) < self.workers:
            self._pool.append(WarmProcess(_worker_boot(self.python)))

    def close(self) -> None:
        """Stop the workers. Idempotent."""
        self._closed = True
        pool, self._pool = self._pool, []
        for worker in pool:
            worker.close()

    def __del__(self):  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass

    def trace(self, source: str, call: str, *, trusted_call: bool = False) -> Trace:
        """Trace one call (same arguments and errors as :func:`execverify_data.trace.trace_call`).

        Raises:
            ProgramError: the program does not compile, the call is not a literal call
                (without ``trusted_call``), or the program has no such function.
        """
        return self.map([Job(source, call, trusted_call)])[0]

    def map(self, jobs: Iterable[Job | Sequence], *, return_exceptions: bool = False, batch: int = 1,
            events: bool = True, notes: bool = False) -> list:
        """Trace many jobs in parallel; results come back in the order of ``jobs``.

        Args:
            jobs (`Iterable[Job | tuple]`): ``Job``s or ``(source, call[, trusted_call])`` tuples.
            return_exceptions (`bool`, optional, defaults to `False`): put a job's
                :class:`ProgramError` in its place in the list instead of raising it
                (after all jobs ran).
            batch (`int`, optional, defaults to 1): most jobs sent to a worker at once, each program's
                together (fewer when there are fewer jobs than workers to share them); the calls of one
                program run one after another in one forked process, and each program gets a fork of its own.
                Each job gets the result it gets alone (``docs/tracing.md``, batches); a fork costs far more than
                tracing a short call.
            events (`bool`, optional, defaults to `True`): ``False`` sends each trace back
                without its events (status, output, exception and stdout as traced, the call
                traced as with events), for callers that need only the outcome.
            notes (`bool`, optional, defaults to `False`): also record what decided each step
                (:func:`execverify_data.decisions.trace_with_decisions`); each result is then a pair
                ``(Trace, notes)`` (``notes`` empty for a trace that timed out or crashed).

        Returns:
            `list[Trace]` (or ``Trace | ProgramError`` with ``return_exceptions``; pairs with ``notes``).
        """
        batch = _positive("batch", batch, int)
        work: list[Job] = []
        for index, job in enumerate(jobs):
            job = Job(*job)
            if not isinstance(job.source, str) or not isinstance(job.call, str):
                raise InvalidArgument(f"job {index}: source and call must be str, got {type(job.source).__name__}, {type(job.call).__name__}")
            work.append(job)
        results: list = [None] * len(work)
        units = deque(_units(work, min(batch, -(-len(work) // self.workers))))
        self._start()
        idle = list(self._pool)
        busy: dict[WarmProcess, tuple[list[int], float]] = {}  # the unit's jobs still waiting for a result
        single, batched = self.timeout + 3 * self.grace, 2 * self.timeout + 3 * self.grace  # per result

        def lose(worker: WarmProcess, unit: list[int], result: Trace) -> None:
            results[unit[0]] = (result, {}) if notes else result
            if unit[1:]:
                units.appendleft(unit[1:])  # the jobs after it run in the replacement
            idle.append(self._replace(worker))

        try:
            while units or busy:
                while units and idle:
                    worker = idle.pop()
                    unit = units.popleft()
                    sources = {source: at for at, source in enumerate(dict.fromkeys(work[i].source for i in unit))}
                    message = _wire.pack_json({
                        "sources": list(sources),
                        "calls": [[sources[work[i].source], work[i].call, bool(work[i].trusted_call)] for i in unit],
                        "max_steps": self.max_steps, "timeout": self.timeout, "memory_mb": self.memory_mb,
                        "grace": self.grace, "events": bool(events), "notes": bool(notes)})
                    worker.wait_ready()
                    try:
                        worker.send(message)
                    except OSError:
                        lose(worker, unit, _crashed("the worker process died before taking the job"))
                        continue
                    busy[worker] = (unit, time.monotonic() + (single if len(unit) == 1 else batched))
                if not busy:
                    continue
                wait = max(0.0, min(deadline for _, deadline in busy.values()) - time.monotonic())
                ready, _, _ = select.select(list(busy), [], [], wait)
                for worker in ready:
                    unit, _ = busy.pop(worker)
                    # a worker that starts a reply finishes it quickly
                    reply = worker.recv(time.monotonic() + 60.0, kinds=_RESULT_KINDS, max_bytes=MAX_RESULT_BYTES)
                    if not _is_result(reply):
                        lose(worker, unit, _crashed("the worker process died while running the job"))
                        continue
                    kind, value = reply[:2]
                    if kind != "trace":
                        results[unit[0]] = ProgramError(value)
                    else:
                        results[unit[0]] = (value, reply[2] if len(reply) > 2 else {}) if notes else value
                    if unit[1:]:
                        busy[worker] = (unit[1:], time.monotonic() + batched)
                    else:
                        idle.append(worker)
                now = time.monotonic()
                for worker, (unit, deadline) in list(busy.items()):
                    if now >= deadline:
                        del busy[worker]
                        lose(worker, unit, Trace(Status.TIMEOUT))
        except BaseException:
            # interrupted (Ctrl-C, a worker that cannot start): replies still on their way
            # must not reach a later call, so the workers holding jobs are replaced
            for worker in busy:
                self._replace(worker)
            raise
        if not return_exceptions:
            for result in results:
                if isinstance(result, ProgramError):
                    raise result
        return results

    def _replace(self, worker: WarmProcess) -> WarmProcess:
        worker.kill()
        fresh = WarmProcess(_worker_boot(self.python))
        self._pool[self._pool.index(worker)] = fresh
        return fresh


def _units(work: Sequence[Job], size: int) -> list[list[int]]:
    """The positions of ``work`` in units of at most ``size`` jobs: each program's jobs one after another
    (programs in order of first appearance), a program's run cut only where a unit is full."""
    if size <= 1:
        return [[i] for i in range(len(work))]
    by_program: dict[str, list[int]] = {}
    for i, job in enumerate(work):
        by_program.setdefault(job.source, []).append(i)
    ordered = [i for positions in by_program.values() for i in positions]
    return [ordered[at:at + size] for at in range(0, len(ordered), size)]


def _is_result(reply) -> bool:
    return (isinstance(reply, tuple) and len(reply) in (2, 3)
            and ((reply[0] == "trace" and isinstance(reply[1], Trace) and (len(reply) == 2 or isinstance(reply[2], dict)))
                 or (reply[0] == "program_error" and isinstance(reply[1], str) and len(reply) == 2)))


def _crashed(why: str) -> Trace:
    return Trace(Status.CRASHED, exception=ExceptionInfo("Crash", why))


def run_traced(source: str, call: str, *, trusted_call: bool = False, max_steps: int = DEFAULT_MAX_STEPS,
               timeout: float = DEFAULT_TIMEOUT, memory_mb: int | None = DEFAULT_MEMORY_MB) -> Trace:
    """Trace one call in a fresh one-worker :class:`TrustedRunner` (convenient, not fast).

    >>> run_traced("def f():\\n    while True: pass\\n", "f()", timeout=0.5, max_steps=10**9).status.value
    'timeout'
    """
    with TrustedRunner(1, max_steps=max_steps, timeout=timeout, memory_mb=memory_mb) as runner:
        return runner.trace(source, call, trusted_call=trusted_call)
