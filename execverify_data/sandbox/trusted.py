"""The trusted runner: trace synthesized programs and benchmark data in a warm pool
of worker processes, with a step budget, a hard wall-clock kill, a memory limit
and a fixed hash seed.

"Trusted" means the code was written by us or by a benchmark, not by a model:
the runner protects the caller from bugs (endless loops, runaway memory, crashes,
programs that change global state), not from malice. Model-written code goes
through the untrusted runner.

How it works
------------
* Each worker is a fresh ``python -c`` interpreter started with
  ``PYTHONHASHSEED=0`` in its own session. It pre-imports the tracer, the values
  layer and the standard modules programs commonly use, then waits for jobs on a
  socket.
* For every job the worker forks a child from that warm, pre-imported state. The
  child sets ``RLIMIT_AS`` to ``memory_mb``, seeds ``random`` with 0, sends its
  stdin/stdout/stderr to ``/dev/null``, runs :func:`execverify_data.trace.trace_call`
  and writes the pickled :class:`~execverify_data.trace.Trace` to a pipe. Every job
  therefore starts from the same process state: a program that patches builtins
  or module globals cannot affect the next job, and a result does not depend on
  which worker ran it or on the number of workers.
* Three clocks stop a runaway job. Inside the child, ``trace_call``'s SIGALRM
  timer interrupts the program after ``timeout`` seconds and returns the events so
  far with status ``timeout``. If the child is stuck where Python cannot
  interrupt it (a long C call such as ``10 ** 10 ** 8``), the worker kills it after
  ``timeout + grace`` seconds (status ``timeout``, no events). If the worker itself
  stops answering, the parent kills the worker's whole process group after
  ``timeout + 3 * grace`` seconds and starts a replacement.
* A child that dies without a result (``os._exit``, a signal, memory exhaustion
  outside Python's ``MemoryError``) gives status ``crashed``; so does a worker that
  dies, which is then replaced.

>>> with TrustedRunner(workers=1, timeout=2.0) as runner:
...     trace = runner.trace("def f(x):\\n    return x * 2\\n", "f(21)")
>>> trace.status.value, trace.output.text
('ok', '42')
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

from execverify_data.errors import ExecVerifyError, InvalidArgument, ProgramError
from execverify_data.trace import DEFAULT_MAX_STEPS, DEFAULT_TIMEOUT, ExceptionInfo, Status, Trace

__all__ = ["DEFAULT_MEMORY_MB", "Job", "TrustedRunner", "run_traced"]

#: Default address-space limit of a job's process, in MiB.
DEFAULT_MEMORY_MB = 2048
#: Modules imported by each worker before it forks jobs (cheap imports for programs).
PREIMPORTED = (
    "execverify_data.trace",
    "collections",
    "copy",
    "functools",
    "heapq",
    "bisect",
    "itertools",
    "math",
    "operator",
    "random",
    "re",
    "string",
    "typing",
)

_HEADER = struct.Struct("!Q")
_READY = b"ready"
_BOOT = "import sys; from execverify_data.sandbox.trusted import _worker_main; _worker_main(int(sys.argv[1]))"
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


class Job(NamedTuple):
    """One unit of work for :meth:`TrustedRunner.map`: a program, a call and whether the call is trusted."""

    source: str
    call: str
    trusted_call: bool = False


# ---------------------------------------------------------------------- framing


def _send(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(_HEADER.pack(len(payload)) + payload)


def _recv_exactly(sock: socket.socket, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _recv(sock: socket.socket) -> bytes | None:
    header = _recv_exactly(sock, _HEADER.size)
    if header is None:
        return None
    return _recv_exactly(sock, _HEADER.unpack(header)[0])


# ---------------------------------------------------------------------- the worker side


def _worker_main(fd: int) -> None:  # pragma: no cover - runs in the worker process
    """Entry point of a worker process: pre-import, then fork one child per job."""
    import gc
    import importlib

    for name in PREIMPORTED:
        importlib.import_module(name)
    gc.collect()
    gc.freeze()  # keep the collector away from inherited objects: fewer copy-on-write faults per job
    sock = socket.socket(fileno=fd)
    _send(sock, _READY)
    while True:
        message = _recv(sock)
        if message is None:
            os._exit(0)
        _send(sock, _run_in_child(sock, *pickle.loads(message)))


def _run_in_child(  # pragma: no cover - runs in the worker process
    sock: socket.socket,
    source: str,
    call: str,
    trusted_call: bool,
    max_steps: int,
    timeout: float,
    memory_mb: int | None,
    grace: float,
) -> bytes:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            os.close(read_end)
            sock.close()
            _child_setup(memory_mb)
            from execverify_data.trace import trace_call

            try:
                result = ("trace", trace_call(source, call, trusted_call=trusted_call, max_steps=max_steps, timeout=timeout))
            except ProgramError as exc:
                result = ("program_error", str(exc))
            payload = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(payload)
            while view:
                view = view[os.write(write_end, view) :]
        except BaseException:  # noqa: BLE001 - never return into the worker's loop
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout + grace
    killed = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            killed = True
            break
        ready, _, _ = select.select([read_end], [], [], left)
        if ready:
            chunk = os.read(read_end, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    os.close(read_end)
    _, wait_status = os.waitpid(pid, 0)
    if killed:
        return pickle.dumps(("trace", Trace(Status.TIMEOUT)))
    if chunks and os.WIFEXITED(wait_status) and os.WEXITSTATUS(wait_status) == 0:
        return b"".join(chunks)
    if os.WIFSIGNALED(wait_status):
        why = f"the job's process was killed by signal {os.WTERMSIG(wait_status)}"
    else:
        why = f"the job's process exited with code {os.WEXITSTATUS(wait_status)} without a result"
    return pickle.dumps(("trace", Trace(Status.CRASHED, exception=ExceptionInfo("Crash", why))))


def _child_setup(memory_mb: int | None) -> None:  # pragma: no cover - runs in the job's process
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    if memory_mb is not None:
        import resource

        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    null = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(null, target)
    os.close(null)
    sys.modules["random"].seed(0)


# ---------------------------------------------------------------------- the parent side


class _Worker:
    def __init__(self, python: str):
        self.python = python
        self.ready = False
        self.stderr = tempfile.TemporaryFile()  # read only if the worker fails to start
        parent_end, worker_end = socket.socketpair()
        env = dict(os.environ)
        env["PYTHONHASHSEED"] = "0"
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH", "")) if p)
        env.pop("PYTHONSTARTUP", None)
        self.process = subprocess.Popen(
            [python, "-c", _BOOT, str(worker_end.fileno())],
            pass_fds=(worker_end.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.stderr,
            env=env,
            start_new_session=True,
        )
        worker_end.close()
        self.sock = parent_end
        self.sock.settimeout(60.0)  # a worker that starts a reply finishes it quickly

    def fileno(self) -> int:
        return self.sock.fileno()

    def wait_ready(self) -> None:
        """Wait for the worker's start-up handshake; raise if it could not start."""
        if self.ready:
            return
        try:
            message = _recv(self.sock)
        except OSError:
            message = None
        if message != _READY:
            try:
                self.process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
            self.stderr.seek(0)
            tail = self.stderr.read().decode("utf-8", "replace").strip().splitlines()[-3:]
            self.kill()
            raise ExecVerifyError(
                f"a trusted-runner worker ({self.python}) could not start: "
                + (" | ".join(tail) or f"exit status {self.process.returncode}")
                + "; check that this interpreter can import execverify_data"
            )
        self.ready = True

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.sock.close()
        self.process.wait()
        self.stderr.close()

    def close(self, wait: float = 2.0) -> None:
        self.sock.close()  # the worker reads EOF and exits
        try:
            self.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            self.kill()
        self.stderr.close()


def _positive(name: str, value, kind=(int, float), allow_none: bool = False):
    if value is None and allow_none:
        return value
    if isinstance(value, bool) or not isinstance(value, kind) or value <= 0:
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
            run; it must be able to import this package (its root is put on ``PYTHONPATH``).

    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        workers: int = 2,
        *,
        max_steps: int = DEFAULT_MAX_STEPS,
        timeout: float = DEFAULT_TIMEOUT,
        memory_mb: int | None = DEFAULT_MEMORY_MB,
        grace: float = 1.0,
        python: str | None = None,
    ):
        self.workers = _positive("workers", workers, int)
        self.max_steps = _positive("max_steps", max_steps, int)
        self.timeout = float(_positive("timeout", timeout))
        self.memory_mb = _positive("memory_mb", memory_mb, int, allow_none=True)
        self.grace = float(_positive("grace", grace))
        self.python = python or sys.executable
        self._pool: list[_Worker] = []
        self._closed = False

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> TrustedRunner:
        self._start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _start(self) -> None:
        if self._closed:
            raise InvalidArgument("this TrustedRunner is closed; create a new one")
        while len(self._pool) < self.workers:
            self._pool.append(_Worker(self.python))

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

    # ------------------------------------------------------------------ work
    def trace(self, source: str, call: str, *, trusted_call: bool = False) -> Trace:
        """Trace one call (same arguments and errors as :func:`execverify_data.trace.trace_call`).

        Raises:
            ProgramError: the program does not compile, the call is not a literal call
                (without ``trusted_call``), or the program has no such function.
        """
        return self.map([Job(source, call, trusted_call)])[0]

    def map(self, jobs: Iterable[Job | Sequence], *, return_exceptions: bool = False) -> list:
        """Trace many jobs in parallel; results come back in the order of ``jobs``.

        Args:
            jobs (`Iterable[Job | tuple]`): ``Job``s or ``(source, call[, trusted_call])`` tuples.
            return_exceptions (`bool`, optional, defaults to `False`): put a job's
                :class:`ProgramError` in its place in the list instead of raising it
                (after all jobs ran).

        Returns:
            `list[Trace]` (or ``Trace | ProgramError`` with ``return_exceptions``).
        """
        work = deque()
        for index, job in enumerate(jobs):
            job = Job(*job)
            if not isinstance(job.source, str) or not isinstance(job.call, str):
                raise InvalidArgument(f"job {index}: source and call must be str, got {type(job.source).__name__}, {type(job.call).__name__}")
            work.append((index, job))
        results: list = [None] * len(work)
        self._start()
        idle = list(self._pool)
        busy: dict[_Worker, tuple[int, float]] = {}
        hard_limit = self.timeout + 3 * self.grace
        try:
            while work or busy:
                while work and idle:
                    worker = idle.pop()
                    index, job = work.popleft()
                    message = pickle.dumps(
                        (job.source, job.call, bool(job.trusted_call), self.max_steps, self.timeout, self.memory_mb, self.grace)
                    )
                    worker.wait_ready()
                    try:
                        _send(worker.sock, message)
                    except OSError:
                        results[index] = _crashed("the worker process died before taking the job")
                        idle.append(self._replace(worker))
                        continue
                    busy[worker] = (index, time.monotonic() + hard_limit)
                if not busy:
                    continue
                wait = max(0.0, min(deadline for _, deadline in busy.values()) - time.monotonic())
                ready, _, _ = select.select(list(busy), [], [], wait)
                for worker in ready:
                    index, _ = busy.pop(worker)
                    try:
                        payload = _recv(worker.sock)
                    except OSError:
                        payload = None
                    if payload is None:
                        results[index] = _crashed("the worker process died while running the job")
                        idle.append(self._replace(worker))
                        continue
                    kind, value = pickle.loads(payload)
                    results[index] = value if kind == "trace" else ProgramError(value)
                    idle.append(worker)
                now = time.monotonic()
                for worker, (index, deadline) in list(busy.items()):
                    if now >= deadline:
                        del busy[worker]
                        results[index] = Trace(Status.TIMEOUT)
                        idle.append(self._replace(worker))
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

    def _replace(self, worker: _Worker) -> _Worker:
        worker.kill()
        fresh = _Worker(self.python)
        self._pool[self._pool.index(worker)] = fresh
        return fresh


def _crashed(why: str) -> Trace:
    return Trace(Status.CRASHED, exception=ExceptionInfo("Crash", why))


def run_traced(
    source: str,
    call: str,
    *,
    trusted_call: bool = False,
    max_steps: int = DEFAULT_MAX_STEPS,
    timeout: float = DEFAULT_TIMEOUT,
    memory_mb: int | None = DEFAULT_MEMORY_MB,
) -> Trace:
    """Trace one call in a fresh one-worker :class:`TrustedRunner` (convenient, not fast).

    >>> run_traced("def f():\\n    while True: pass\\n", "f()", timeout=0.5, max_steps=10**9).status.value
    'timeout'
    """
    with TrustedRunner(1, max_steps=max_steps, timeout=timeout, memory_mb=memory_mb) as runner:
        return runner.trace(source, call, trusted_call=trusted_call)
