"""The untrusted runner: layered isolation for model-written code.

:func:`run_untrusted` runs a piece of code in a fresh child forked from a
pre-imported zygote, evaluates the requested calls there, and returns each call's
canonical value (:func:`execverify_data.values.encode`) or exception. The child
never sees expected values: verdicts are decided in the caller's process (see
:mod:`execverify_data.rewards`). Layers (``docs/sandbox.md``, ``execverify doctor``):
zygote + rlimits, privilege drop, seccomp, bubblewrap; each is used when this
machine supports it.

>>> result = run_untrusted("def add(a, b):\\n    return a + b", ["add(1, 2)", "add(1, None)"], timeout=5)
>>> result.status, result.calls[0].value.text, result.calls[1].error
(<Status.OK: 'ok'>, '3', 'TypeError')
>>> run_untrusted("while True: pass", timeout=0.5).status
<Status.TIMEOUT: 'timeout'>
"""

from __future__ import annotations

import atexit
import enum
import fcntl
import os
import queue
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from execverify_data.errors import ExecVerifyError, InvalidArgument
from execverify_data.sandbox import _zygote, layers as _layers
from execverify_data.values import CanonicalValue

__all__ = [
    "CallResult",
    "SandboxResult",
    "Status",
    "UntrustedPool",
    "default_pool",
    "default_workers",
    "run_untrusted",
]

#: Largest accepted code text, in UTF-8 bytes (longer code gives ``Status.REJECTED``).
MAX_CODE_BYTES = 1 << 20
_UID_BASE = 1_990_000_000
_UID_SLOTS = 4096
_STARTUP_TIMEOUT = 60.0
_GRACE = 10.0


class Status(str, enum.Enum):
    """How an untrusted execution ended."""

    #: the code ran; every call returned a value or raised (see :attr:`CallResult.error`)
    OK = "ok"
    #: the code itself failed: syntax error, exception at top level, ``sys.exit``
    ERROR = "error"
    #: wall-clock or CPU time limit reached
    TIMEOUT = "timeout"
    #: ``MemoryError`` under the address-space limit
    MEMORY = "memory"
    #: stdout/stderr, a written file or the result channel reached its cap
    OUTPUT_LIMIT = "output_limit"
    #: the child died without a valid result (signal, ``os._exit``, forged result, set-up failure)
    CRASHED = "crashed"
    #: the child or its worker was killed from outside (SIGKILL, worker died or hung)
    KILLED = "killed"
    #: refused before running: not UTF-8, larger than ``max_code_bytes``
    REJECTED = "rejected"


@dataclass(frozen=True)
class CallResult:
    """The outcome of one requested call.

    Args:
        value (`CanonicalValue`, optional): the returned value, canonically encoded.
        error (`str`, optional): the exception's type name when the call raised.
        message (`str`): ``"Type: message"`` of the exception, or ``""``.
    """

    value: CanonicalValue | None = None
    error: str | None = None
    message: str = ""

    @property
    def ok(self) -> bool:
        """Whether the call returned (rather than raised)."""
        return self.error is None and self.value is not None


@dataclass(frozen=True)
class SandboxResult:
    """What :func:`run_untrusted` observed.

    Args:
        status (`Status`): how the execution ended.
        calls (`tuple[CallResult, ...]`): one per requested call when the code ran; empty otherwise.
        test_passed (`bool`, optional): whether the ``test`` code ran to its end (``None`` without a test).
        error (`str`, optional): ``"Type: message"`` of the exception the code raised at top level.
        detail (`str`): a human-readable explanation of the status.
        stdout (`str`), stderr (`str`): captured output, truncated to ``output_limit`` bytes.
        duration_s (`float`): wall time of the child, fork to reap.
        exit_code (`int`, optional), signal (`int`, optional): how the child ended.
    """

    status: Status
    calls: tuple[CallResult, ...] = ()
    test_passed: bool | None = None
    error: str | None = None
    detail: str = ""
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    exit_code: int | None = None
    signal: int | None = None

    @property
    def ok(self) -> bool:
        return self.status is Status.OK


@dataclass(frozen=True)
class _Config:
    bwrap: list[str] | None
    seccomp: bool
    drop_privileges: bool


# --------------------------------------------------------------------------- worker processes

_spawner: ThreadPoolExecutor | None = None
_spawner_lock = threading.Lock()


def _spawn(fn, *args):
    """Run ``fn`` in one long-lived thread: ``bwrap --die-with-parent`` ties the sandbox to the
    *thread* that started it, so workers must not be started from short-lived threads."""
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = ThreadPoolExecutor(1, thread_name_prefix="execverify-sandbox-spawner")
        executor = _spawner
    return executor.submit(fn, *args).result()


def _allocate_uid() -> tuple[int, int]:
    """A uid no other pool on this machine uses, held by an ``flock`` for the worker's lifetime."""
    directory = Path(tempfile.gettempdir()) / "execverify-sandbox-uids"
    directory.mkdir(mode=0o700, exist_ok=True)
    start = os.getpid() % _UID_SLOTS
    for offset in range(_UID_SLOTS):
        uid = _UID_BASE + (start + offset) % _UID_SLOTS
        fd = os.open(directory / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return uid, fd
    raise ExecVerifyError("no free sandbox uid: too many untrusted workers on this machine")


def _read_frame(fd: int, deadline: float):
    """Read one frame from ``fd`` before ``deadline`` (``None`` on EOF or time-out)."""
    buffer = bytearray()
    need = _zygote._HEADER.size
    size = None
    while True:
        while len(buffer) < need:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(fd, max(1 << 16, need - len(buffer)))
            if not chunk:
                return None
            buffer += chunk
        if size is None:
            (size,) = _zygote._HEADER.unpack_from(buffer)
            need = _zygote._HEADER.size + size
            continue
        import json

        return json.loads(bytes(buffer[_zygote._HEADER.size:need]).decode("utf-8"))


class _Worker:
    """One zygote process (inside bwrap when configured) and its pipes."""

    def __init__(self, config: _Config):
        self.uid_lock = None
        self.tmpdir = None
        self.uid = None
        cfg: dict = {"seccomp": config.seccomp}
        if config.drop_privileges:
            self.uid, self.uid_lock = _allocate_uid()
            cfg.update(uid=self.uid, gid=self.uid)
        package_root = str(Path(__file__).resolve().parents[2])
        boot = (f"import sys; sys.path.insert(0, {package_root!r}); "
                "from execverify_data.sandbox._zygote import main; main()")
        python = [sys.executable, "-I", "-B", "-c", boot]
        if config.bwrap:
            argv = [*config.bwrap, "--", shutil.which("env") or "/usr/bin/env", "-i", *python]
            cfg["tmpdir"] = "/tmp"
        else:
            argv = python
            self.tmpdir = tempfile.mkdtemp(prefix="execverify-sandbox-")
            os.chmod(self.tmpdir, 0o711)
            cfg["tmpdir"] = self.tmpdir
        self.proc = _spawn(lambda: subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={}, close_fds=True, start_new_session=True, cwd="/"))
        self.req_fd = self.proc.stdin.fileno()
        self.resp_fd = self.proc.stdout.fileno()
        try:
            _zygote.write_frame(self.req_fd, cfg)
            ready = _read_frame(self.resp_fd, time.monotonic() + _STARTUP_TIMEOUT)
        except OSError:
            ready = None
        if not ready or not ready.get("ready"):
            self.close()
            raise ExecVerifyError(f"the sandbox worker did not start (command: {' '.join(argv[:3])} ...); "
                                  "run `execverify doctor` to see which layers work here")
        self.info = ready

    def request(self, frames: list[dict], deadline: float) -> dict | None:
        try:
            for frame in frames:
                _zygote.write_frame(self.req_fd, frame)
            return _read_frame(self.resp_fd, deadline)
        except (OSError, ValueError):
            return None

    def close(self) -> None:
        proc = self.proc if hasattr(self, "proc") else None
        if proc is not None:
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, 9)
                except OSError:
                    pass
                proc.wait()
        if self.tmpdir:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
        if self.uid_lock is not None:
            os.close(self.uid_lock)
            self.uid_lock = None


# --------------------------------------------------------------------------- pool


def _check_positive(name: str, value, kind=(int, float)) -> None:
    if isinstance(value, bool) or not isinstance(value, kind) or not value > 0:
        raise InvalidArgument(f"{name} must be a positive number, got {value!r}")


def _resolve(requested: bool | None, layer_name: str) -> bool:
    found = _layers.layer(layer_name)
    if requested is None:
        return found.available
    if requested and not found.available:
        raise ExecVerifyError(f"the {layer_name} layer was required but is not available: {found.detail}")
    return bool(requested)


def default_workers() -> int:
    """Workers of a default pool: 1.5 per usable CPU (at least 2). In test mode a worker's
    candidate and test child wait on each other, so one CPU's worth of workers alone would idle."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(2, cpus + cpus // 2)


class UntrustedPool:
    """A thread-safe pool of zygote workers that run untrusted code.

    Args:
        workers (`int`, optional, defaults to :func:`default_workers`, 1.5 per usable CPU): zygote processes.
        bwrap (`bool`, optional): run zygotes inside bubblewrap; ``None`` = when it works here,
            ``True`` = required (``ExecVerifyError`` when missing), ``False`` = off.
        seccomp (`bool`, optional): same, for the seccomp filter.
        drop_privileges (`bool`, optional): same, for the uid/gid drop (needs root).

    Workers start on first use and are replaced when one dies or hangs. Use as a
    context manager or call :meth:`close`.

    >>> with UntrustedPool(1) as pool:
    ...     pool.run("x = 6 * 7", ["x"]).calls[0].value.text
    '42'
    """

    def __init__(self, workers: int | None = None, *, bwrap: bool | None = None, seccomp: bool | None = None,
                 drop_privileges: bool | None = None):
        if workers is None:
            workers = default_workers()
        _check_positive("workers", workers, int)
        if not _layers.layer("zygote").available:
            raise ExecVerifyError(f"the untrusted runner cannot work here: {_layers.layer('zygote').detail}")
        use_bwrap = _resolve(bwrap, "bwrap")
        self.config = _Config(
            bwrap=_layers.bwrap_command() if use_bwrap else None,
            seccomp=_resolve(seccomp, "seccomp"),
            drop_privileges=_resolve(drop_privileges, "privilege_drop"),
        )
        self.size = workers
        self._closed = False
        self._reset()

    def _reset(self) -> None:
        # also used in a forked copy of this process: the parent's workers are not ours to use or stop
        self._pid = os.getpid()
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._slots = threading.Semaphore(self.size)
        self._lock = threading.Lock()
        self._workers: set[_Worker] = set()
        self._executor: ThreadPoolExecutor | None = None

    # -- layers
    @property
    def active_layers(self) -> tuple[str, ...]:
        """Names of the layers this pool uses."""
        names = ["zygote"]
        if self.config.drop_privileges:
            names.append("privilege_drop")
        if self.config.seccomp:
            names.append("seccomp")
        if self.config.bwrap:
            names.append("bwrap")
        return tuple(names)

    # -- running
    def run(self, code: str | bytes, calls: Sequence[str] = (), *, test: str | None = None, timeout: float = 5.0,
            memory_mb: int = 512, output_limit: int = 64 * 1024, max_threads: int = 16,
            max_code_bytes: int = MAX_CODE_BYTES) -> SandboxResult:
        """Run ``code``, then evaluate each expression of ``calls``, then ``test`` (see :func:`run_untrusted`)."""
        _check_positive("timeout", timeout)
        _check_positive("memory_mb", memory_mb, int)
        _check_positive("output_limit", output_limit, int)
        _check_positive("max_threads", max_threads, int)
        if isinstance(calls, str) or not all(isinstance(c, str) for c in calls):
            raise InvalidArgument("calls must be a sequence of expression strings, such as ['add(1, 2)']")
        if test is not None and not isinstance(test, str):
            raise InvalidArgument(f"test must be a string of Python code or None, got {type(test).__name__}")
        if test is not None and calls:
            raise InvalidArgument("pass either calls or test, not both: they run in different modes")
        if isinstance(code, (bytes, bytearray)):
            try:
                code = bytes(code).decode("utf-8")
            except UnicodeDecodeError as exc:
                return SandboxResult(Status.REJECTED, detail=f"code is not UTF-8: {exc}")
        if not isinstance(code, str):
            raise InvalidArgument(f"code must be str or bytes, got {type(code).__name__}")
        try:
            size = len(code.encode("utf-8"))
        except UnicodeEncodeError as exc:
            return SandboxResult(Status.REJECTED, detail=f"code is not valid Unicode text: {exc}")
        if size > max_code_bytes:
            return SandboxResult(Status.REJECTED, detail=f"code is {size} bytes, more than max_code_bytes={max_code_bytes}")
        payload = {"code": code, "calls": list(calls), "test_follows": test is not None, "timeout": float(timeout),
                   "memory_mb": int(memory_mb), "output_limit": int(output_limit), "max_threads": int(max_threads)}
        frames = [payload] if test is None else [payload, {"test": test}]
        worker = self._acquire()
        healthy = False
        try:
            response = worker.request(frames, time.monotonic() + float(timeout) + _GRACE)
            healthy = response is not None
        finally:
            self._release(worker, healthy)
        if response is None:
            return SandboxResult(Status.KILLED, detail="the sandbox worker died or hung; it was replaced")
        return _to_result(response)

    def run_many(self, jobs: Iterable[dict]) -> list[SandboxResult]:
        """Run several ``run`` keyword dicts concurrently on the pool's workers, results in order."""
        jobs = list(jobs)
        if len(jobs) <= 1:
            return [self.run(**job) for job in jobs]
        if self._pid != os.getpid():
            self._reset()
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.size, thread_name_prefix="execverify-sandbox")
            executor = self._executor
        return list(executor.map(lambda job: self.run(**job), jobs))

    def _acquire(self) -> _Worker:
        if self._closed:
            raise ExecVerifyError("this UntrustedPool is closed")
        if self._pid != os.getpid():
            self._reset()
        self._slots.acquire()
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        try:
            worker = _Worker(self.config)
        except BaseException:
            self._slots.release()
            raise
        with self._lock:
            self._workers.add(worker)
        return worker

    def _release(self, worker: _Worker, healthy: bool) -> None:
        if healthy and not self._closed:
            self._idle.put(worker)
        else:
            with self._lock:
                self._workers.discard(worker)
            _kill_worker(worker)
        self._slots.release()

    def close(self) -> None:
        """Stop every worker (idempotent)."""
        self._closed = True
        if self._pid != os.getpid():
            return
        with self._lock:
            workers, self._workers = list(self._workers), set()
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False)
        for worker in workers:
            worker.close()

    def __enter__(self) -> UntrustedPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __getstate__(self):
        raise TypeError("UntrustedPool holds processes and cannot be pickled; pickle its settings instead")


def _kill_worker(worker: _Worker) -> None:
    try:
        os.killpg(worker.proc.pid, 9)
    except OSError:
        pass
    worker.close()


def _to_result(response: dict) -> SandboxResult:
    calls = []
    for item in response.get("calls") or ():
        if "value" in item:
            text, type_name, askable, reason = item["value"]
            calls.append(CallResult(value=CanonicalValue(text, type_name, bool(askable), reason)))
        else:
            calls.append(CallResult(error=str(item.get("error")), message=str(item.get("message", ""))))
    try:
        status = Status(response.get("status"))
    except ValueError:
        status = Status.CRASHED
    return SandboxResult(
        status=status, calls=tuple(calls), test_passed=response.get("test_passed"), error=response.get("error"),
        detail=response.get("detail") or "", stdout=response.get("stdout", ""), stderr=response.get("stderr", ""),
        duration_s=float(response.get("duration_s") or 0.0), exit_code=response.get("exit_code"),
        signal=response.get("signal"),
    )


# --------------------------------------------------------------------------- module-level default pool

_default: UntrustedPool | None = None
_default_lock = threading.Lock()


def default_pool() -> UntrustedPool:
    """The process-wide pool (every available layer, :func:`default_workers` workers), started on first use."""
    global _default
    with _default_lock:
        if _default is None or _default._closed:
            _default = UntrustedPool()
        return _default


def _close_default() -> None:
    if _default is not None:
        _default.close()


def _forget_after_fork() -> None:
    # a forked process (TRL, multiprocessing) must not share the parent's zygote pipes
    global _default, _spawner, _default_lock, _spawner_lock
    _default = None
    _spawner = None
    _default_lock = threading.Lock()
    _spawner_lock = threading.Lock()


atexit.register(_close_default)
os.register_at_fork(after_in_child=_forget_after_fork)


def run_untrusted(code: str | bytes, calls: Sequence[str] = (), *, timeout: float = 5.0, memory_mb: int = 512,
                  output_limit: int = 64 * 1024, test: str | None = None, max_threads: int = 16,
                  max_code_bytes: int = MAX_CODE_BYTES, pool: UntrustedPool | None = None) -> SandboxResult:
    """Run untrusted ``code`` in the sandbox, then evaluate ``calls`` and ``test`` in its namespace.

    Args:
        code (`str` or `bytes`): the untrusted program (bytes must be UTF-8).
        calls (`Sequence[str]`, optional): expressions such as ``"add(1, 2)"``, evaluated after ``code``;
            each gives a :class:`CallResult` with the canonical value or the exception.
        timeout (`float`, optional, defaults to 5.0): wall-clock seconds for the whole child.
        memory_mb (`int`, optional, defaults to 512): address-space limit of the child.
        output_limit (`int`, optional, defaults to 65536): cap in bytes on stdout, stderr and any written file.
        test (`str`, optional): code run after the calls (builtins and trace hooks restored first);
            :attr:`SandboxResult.test_passed` says whether it ran to its end without raising.
        max_threads (`int`, optional, defaults to 16): threads the child may start (enforced with
            ``RLIMIT_NPROC`` when privileges are dropped).
        max_code_bytes (`int`, optional): larger code gives ``Status.REJECTED``.
        pool (`UntrustedPool`, optional, defaults to :func:`default_pool`).

    Bad code (syntax errors, infinite loops, endless output, crashes) never raises here: the
    result's :class:`Status` says what happened. Wrong argument types raise ``InvalidArgument``.
    """
    return (pool or default_pool()).run(code, calls, test=test, timeout=timeout, memory_mb=memory_mb,
                                        output_limit=output_limit, max_threads=max_threads,
                                        max_code_bytes=max_code_bytes)
