"""The untrusted runner: layered isolation for model-written code (``docs/sandbox.md``).

:func:`run_untrusted` runs a piece of code in a fresh child forked from a pre-imported zygote
and returns each requested call's canonical value (:func:`execverify_data.values.encode`) or
exception. The child never sees expected values: verdicts are decided in the caller's process
(:mod:`execverify_data.rewards`). Everything a child produces comes back here directly, on
descriptors created here, and is checked against the request before it becomes a
:class:`SandboxResult`; whatever arrives, a call ends within its timeout plus :data:`HOST_GRACE`.

>>> result = run_untrusted("def add(a, b):\\n    return a + b", ["add(1, 2)", "add(1, None)"], timeout=5)
>>> result.status, result.calls[0].value.text, result.calls[1].error
(<Status.OK: 'ok'>, '3', 'TypeError')
>>> run_untrusted("while True: pass", timeout=0.5).status
<Status.TIMEOUT: 'timeout'>
"""

from __future__ import annotations

import atexit
import contextlib
import enum
import fcntl
import os
import queue
import select
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from execverify_data.errors import ExecVerifyError, InvalidArgument, check_int
from execverify_data.sandbox import _fs, _wire
from execverify_data.sandbox import layers as _layers
from execverify_data.sandbox.warm import PACKAGE_ROOT, Boot, WarmProcess
from execverify_data.values import CanonicalValue

if TYPE_CHECKING:
    from execverify_data.trace import Trace

__all__ = ["CallResult", "SandboxResult", "Status", "UntrustedPool", "default_pool", "default_workers",
           "run_untrusted"]

#: Largest accepted code text, in UTF-8 bytes (longer code gives ``Status.REJECTED``).
MAX_CODE_BYTES = 1 << 20
#: Seconds a call may take beyond its timeout before its worker is killed and replaced.
HOST_GRACE = 0.8
#: Largest result frame of a call (the canonical values of all its calls).
MAX_RESULT_BYTES = 16 * 1024 * 1024
_MAX_VERDICT_BYTES = 1 << 20
_UID_BASE = 1_990_000_000
_UID_SLOTS = 4096
_STARTUP_TIMEOUT = 60.0


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
    bwrap: tuple[str, ...] | None
    seccomp: bool
    drop_privileges: bool
    landlock: int  # the ABI, 0 when off
    python: str
    hash_seed: str | None = None


# --------------------------------------------------------------------------- worker processes


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


def _import_failure(why: str, config: _Config) -> str:
    hidden = _layers.unreadable_ancestors(_layers.interpreter_dirs(config.python))
    where = (f"the interpreter is below {', '.join(hidden)}, which the sandbox's unprivileged uid cannot read"
             if hidden else "the sandbox's unprivileged uid cannot read the interpreter's files")
    return (f"sandboxed children cannot import modules here ({why}): {where}; install bubblewrap (Debian package "
            "bubblewrap), which shows them the interpreter, or install Python where other users can read it "
            "(for example under /usr/local or /opt); `execverify doctor` checks this")


class _Worker:
    """One zygote process (inside bwrap when configured), its uids and its private directory."""

    def __init__(self, config: _Config):
        self.locks: list[int] = []
        self.uids: list[int] = []
        self.tmpdir = None
        self.proc = None
        cfg: dict = {"seccomp": config.seccomp, "landlock": config.landlock, "bwrap": bool(config.bwrap),
                     "read_paths": list(_layers.sandbox_paths(config.python)), "devices": list(_layers.DEVICES),
                     "site_dirs": list(_layers.site_dirs(config.python))}
        package_fd = None
        try:
            if config.drop_privileges:
                for key in ("uid", "tester_uid"):  # the tester has a uid of its own
                    uid, lock = _allocate_uid()
                    self.uids.append(uid)
                    self.locks.append(lock)
                    cfg[key], cfg[key.replace("uid", "gid")] = uid, uid
            if config.bwrap:
                # the zygote imports this package through a descriptor it closes before forking anything:
                # the sandbox's filesystem holds neither the package (its data has benchmark solutions) nor the checkout
                package_fd = os.open(PACKAGE_ROOT, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                path, wrapper, cfg["tmpdir"], cfg["package_fd"] = f"/proc/self/fd/{package_fd}", (*config.bwrap, "--"), \
                    "/tmp", package_fd
            else:
                self.tmpdir = tempfile.mkdtemp(prefix="execverify-sandbox-")
                os.chmod(self.tmpdir, 0o711)
                path, wrapper, cfg["tmpdir"] = PACKAGE_ROOT, (), self.tmpdir
            self.proc = WarmProcess(Boot(
                name="a sandbox worker", target="execverify_data.sandbox._zygote:main", python=config.python,
                # -I (isolated) ignores PYTHONHASHSEED: a fixed hash seed comes with the parts of -I
                # that matter here (-s -P; the environment is empty but for it, so -E has nothing to drop)
                flags=("-I", "-B") if config.hash_seed is None else ("-s", "-P", "-B"), path=(path,),
                env={} if config.hash_seed is None else {"PYTHONHASHSEED": config.hash_seed}, wrapper=wrapper,
                pass_fds=(package_fd,) if package_fd is not None else (), config=cfg, seqpacket=True,
                startup_timeout=_STARTUP_TIMEOUT, hint="run `execverify doctor` to see which layers work here"))
            ready = self.proc.wait_ready()
            if ready.get("imports"):
                raise ExecVerifyError(_import_failure(str(ready["imports"]), config))
        except BaseException:
            self.close()
            raise
        finally:
            if package_fd is not None:
                os.close(package_fd)

    def run(self, job: dict, fds: list[int], reader: int, cap: int, deadline: float):
        """Send ``job`` with ``fds``; read ``reader`` (up to ``cap`` bytes) until the zygote answers.

        ``reader`` is this method's to close: it is closed as soon as more than ``cap`` bytes
        came, so that the child's next write fails at once instead of blocking until its timeout.
        Returns ``(response, data, overflow)``; ``response`` is ``None`` when the zygote died,
        broke the protocol or missed ``deadline``."""
        data = bytearray()
        overflow = False
        try:
            try:
                self.proc.send(_wire.pack_json(job), fds)
            except OSError:
                return None, b"", False
            poller = select.poll()
            poller.register(self.proc.sock, select.POLLIN)
            poller.register(reader, select.POLLIN)
            response = None
            while response is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None, bytes(data[:cap]), overflow
                for fd, _ in poller.poll(left * 1000):
                    if fd == reader:
                        chunk = _read_some(reader, cap + 1 - len(data))
                        if chunk is None:  # nothing after all
                            continue
                        data += chunk
                        if not chunk or len(data) > cap:  # end of file, or more than anything valid
                            poller.unregister(reader)
                            overflow = len(data) > cap
                            if overflow:
                                os.close(reader)
                                reader = -1
                    elif fd == self.proc.sock.fileno():
                        response = self.proc.recv(deadline)
                        if not isinstance(response, dict):
                            return None, bytes(data[:cap]), overflow
            while reader >= 0 and not overflow:  # what the child wrote before it ended (nobody still writes)
                chunk = _read_some(reader, cap + 1 - len(data))
                if not chunk:
                    break
                data += chunk
                overflow = len(data) > cap
            return response, bytes(data[:cap]), overflow
        finally:
            if reader >= 0:
                _close(reader)

    def close(self) -> None:
        """Stop the zygote and remove what it leaves (idempotent; never raises)."""
        proc, self.proc = self.proc, None
        with contextlib.suppress(Exception):
            if proc is not None:
                proc.close()
        if self.tmpdir:
            with contextlib.suppress(Exception):
                _fs.remove_tree(self.tmpdir)
            self.tmpdir = None
        locks, self.locks = self.locks, []
        for lock in locks:
            with contextlib.suppress(OSError):
                os.close(lock)

    def kill(self) -> None:
        """Kill the zygote now; what it leaves on disk stays until ``close``."""
        if self.proc is not None:
            self.proc.kill()


def _read_some(fd: int, n: int) -> bytes | None:
    """Up to ``n`` bytes of a non-blocking pipe: ``b""`` at end of file, ``None`` when nothing is there yet."""
    try:
        return os.read(fd, max(1, min(n, 1 << 20)))
    except (BlockingIOError, InterruptedError):
        return None
    except OSError:
        return b""


def _memfd(name: str, data: bytes = b"") -> int:
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    if data:
        _wire.write_all(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _close(*fds: int) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


# --------------------------------------------------------------------------- reading what came back


class _Bad(Exception):
    """What a child sent does not match its request."""


def _flag(text: str) -> bool:
    if text not in ("0", "1"):
        raise _Bad(f"a flag field holds {text[:20]!r}")
    return text == "1"


def _calls_from_record(fields: list[str], secret: str, n_calls: int):
    """``(error, memory, calls)`` from a call-mode result record, checked against the request."""
    if len(fields) < 4 or fields[0] != secret:
        raise _Bad("the result frame does not carry the call's secret")
    has_error, error, memory = _flag(fields[1]), fields[2], _flag(fields[3])
    expected = 4 if has_error else 4 + 5 * n_calls
    if len(fields) != expected:
        raise _Bad(f"the result frame has {len(fields)} fields for {n_calls} calls")
    calls = []
    for i in range(4, len(fields), 5):
        tag, a, b, c, d = fields[i:i + 5]
        if tag == "v":
            calls.append(CallResult(value=CanonicalValue(a, b, _flag(c), d or None)))
        elif tag == "e" and a.isidentifier():
            calls.append(CallResult(error=a, message=b))
        else:
            raise _Bad(f"a call result of kind {tag[:10]!r}")
    return (error if has_error else None), memory, tuple(calls)


def _valid_response(response) -> bool:
    if not isinstance(response, dict):
        return False
    if "error" in response:
        return isinstance(response["error"], str)
    status = response.get("exit_status")
    return (isinstance(status, int) and not isinstance(status, bool) and isinstance(response.get("killed"), bool)
            and isinstance(response.get("timed_out"), bool) and isinstance(response.get("duration_s"), (int, float))
            and response.get("tester") in (None, "ok", "died", "stuck"))


def _exit_info(status: int) -> tuple[int | None, int | None]:
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status)
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status), None
    return None, None


def _death(status: int) -> tuple[Status, str]:
    """Status and detail for a child that ended without a valid result."""
    exit_code, sig = _exit_info(status)
    if sig == signal.SIGXFSZ:
        return Status.OUTPUT_LIMIT, "file size limit (RLIMIT_FSIZE) reached"
    if sig == signal.SIGXCPU:
        return Status.TIMEOUT, "CPU time limit (RLIMIT_CPU) reached"
    if sig == signal.SIGKILL:
        return Status.KILLED, "killed by SIGKILL"
    if sig is not None:
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        return Status.CRASHED, f"killed by signal {name}"
    if exit_code == 71:
        return Status.CRASHED, "sandbox set-up failed in the child"
    return Status.CRASHED, f"exited with code {exit_code} without a valid result"


def _output(fd: int, limit: int) -> tuple[str, bool]:
    """A child's captured stream, truncated to ``limit`` bytes, and whether it reached the cap."""
    try:
        size = os.fstat(fd).st_size
        text = _wire.read_file(fd, limit).decode("utf-8", "replace")
    except OSError:
        return "", False
    return text, size >= limit


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
        landlock (`bool`, optional): same, for the Landlock confinement of each child.
        python (`str`, optional, defaults to `sys.executable`): the interpreter the zygotes run.
        hash_seed (`int`, optional): the zygotes' ``PYTHONHASHSEED`` (the order of a set of strings depends
            on it: :meth:`trace` of code whose trace must be the trusted tracer's, under 0); by default
            each zygote's is random.

    Workers start on first use (the first one checks that a confined child can import the
    standard library and the installed packages, and raises ``ExecVerifyError`` naming the
    fix when it cannot) and are replaced when one dies or hangs. Use as a context manager
    or call :meth:`close`.

    >>> with UntrustedPool(1) as pool:
    ...     pool.run("x = 6 * 7", ["x"]).calls[0].value.text
    '42'
    """

    def __init__(self, workers: int | None = None, *, bwrap: bool | None = None, seccomp: bool | None = None,
                 drop_privileges: bool | None = None, landlock: bool | None = None, python: str | None = None,
                 hash_seed: int | None = None):
        if workers is None:
            workers = default_workers()
        _check_positive("workers", workers, int)
        if python is not None and not (isinstance(python, str) and os.access(python, os.X_OK)):
            raise InvalidArgument(f"python must be the path of an interpreter, got {python!r}")
        if not _layers.layer("zygote").available:
            raise ExecVerifyError(f"the untrusted runner cannot work here: {_layers.layer('zygote').detail}")
        from execverify_data.sandbox import _linux

        python = python or sys.executable
        use_bwrap = _resolve(bwrap, "bwrap")
        use_landlock = _resolve(landlock, "landlock")
        command = _layers.bwrap_command(python) if use_bwrap else None
        if hash_seed is not None:
            check_int("hash_seed", hash_seed, minimum=0)
        self.config = _Config(bwrap=tuple(command) if command else None, seccomp=_resolve(seccomp, "seccomp"),
                              drop_privileges=_resolve(drop_privileges, "privilege_drop"),
                              landlock=_linux.landlock_abi() if use_landlock else 0, python=python,
                              hash_seed=None if hash_seed is None else str(hash_seed))
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
        self._removers: list[threading.Thread] = []  # what killed workers left is removed off the caller's path

    @property
    def active_layers(self) -> tuple[str, ...]:
        """Names of the layers this pool uses."""
        config = self.config
        used = {"privilege_drop": config.drop_privileges, "seccomp": config.seccomp, "landlock": config.landlock,
                "bwrap": config.bwrap}
        return ("zygote", *(name for name, on in used.items() if on))

    def run(self, code: str | bytes, calls: Sequence[str] = (), *, test: str | None = None, timeout: float = 5.0,
            memory_mb: int = 512, output_limit: int = 64 * 1024, max_threads: int = 16,
            max_code_bytes: int = MAX_CODE_BYTES, stdin: str | None = None) -> SandboxResult:
        """Run ``code``, then evaluate each expression of ``calls``, or ``test`` (see :func:`run_untrusted`)."""
        _check_positive("timeout", timeout)
        _check_positive("memory_mb", memory_mb, int)
        _check_positive("output_limit", output_limit, int)
        _check_positive("max_threads", max_threads, int)
        if isinstance(calls, str) or not all(isinstance(c, str) for c in calls):
            raise InvalidArgument("calls must be a sequence of expression strings, such as ['add(1, 2)']")
        if test is not None and not isinstance(test, str):
            raise InvalidArgument(f"test must be a string of Python code or None, got {type(test).__name__}")
        if stdin is not None and not isinstance(stdin, str):
            raise InvalidArgument(f"stdin must be a string or None, got {type(stdin).__name__}")
        if test is not None and (calls or stdin is not None):
            raise InvalidArgument("pass either calls (or stdin) or test, not both: they run in different modes")
        if isinstance(code, (bytes, bytearray)):
            try:
                code = bytes(code).decode("utf-8")
            except UnicodeDecodeError as exc:
                return SandboxResult(Status.REJECTED, detail=f"code is not UTF-8: {exc}")
        if not isinstance(code, str):
            raise InvalidArgument(f"code must be str or bytes, got {type(code).__name__}")
        try:
            size = len(code.encode("utf-8"))
            test_bytes = test.encode("utf-8") if test is not None else b""
            stdin_bytes = stdin.encode("utf-8") if stdin is not None else None
        except UnicodeEncodeError as exc:
            return SandboxResult(Status.REJECTED, detail=f"code, test or stdin is not valid Unicode text: {exc}")
        if size > max_code_bytes:
            return SandboxResult(Status.REJECTED, detail=f"code is {size} bytes, more than max_code_bytes={max_code_bytes}")
        limits = {"timeout": float(timeout), "memory_mb": int(memory_mb), "output_limit": int(output_limit),
                  "max_threads": int(max_threads)}
        request = _wire.pack_record([code, "1" if stdin is not None else "0", *calls])  # see _candidate._read_request
        deadline = time.monotonic() + float(timeout) + HOST_GRACE
        worker = self._acquire()
        healthy = False
        try:
            if test is None:
                result, healthy = _run_calls(worker, limits, request, len(calls), stdin_bytes, deadline)
            else:
                result, healthy = _run_test(worker, limits, request, test_bytes, deadline)
        finally:
            self._release(worker, healthy)
        return result

    def run_many(self, jobs: Iterable[dict]) -> list[SandboxResult]:
        """Run several ``run`` keyword dicts concurrently on the pool's workers, results in order."""
        return self._many(self.run, jobs)

    def _many(self, method, jobs: Iterable[dict]) -> list:
        jobs = list(jobs)
        if len(jobs) <= 1:
            return [method(**job) for job in jobs]
        if self._pid != os.getpid():
            self._reset()
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.size, thread_name_prefix="execverify-sandbox")
            executor = self._executor
        return list(executor.map(lambda job: method(**job), jobs))

    def trace(self, code: str, call: str, *, max_steps: int = 5000, timeout: float = 5.0,
              memory_mb: int = 512) -> Trace:
        """Trace ``call`` of untrusted ``code`` in a fresh sandboxed child: the child streams each line
        event as it happens and the :class:`~execverify_data.trace.Trace` is built here from the stream
        (:mod:`execverify_data.sandbox._tracing`), so nothing the program can reach is the record.

        The call's arguments must be literals (as for :func:`~execverify_data.trace.trace_call`). A child
        that runs past ``timeout`` gives a ``timeout`` trace; one that dies, breaks the stream's rules or
        is refused an act (its program read a frame, opened a file, imported a new module...) a
        ``crashed`` one whose ``exception`` says why (``SandboxRefused``, ``SandboxStream``, ``Sandbox``).

        >>> with UntrustedPool(1) as pool:
        ...     t = pool.trace("def f(x):\\n    y = x + 1\\n    return y * 2\\n", "f(3)")
        >>> t.status.value, t.output.text, [(e.line, e.locals['y'].text) for e in t.events]
        ('ok', '8', [(2, '4'), (3, '4')])
        """
        from execverify_data.trace import ExceptionInfo, Trace  # the tracer, on first use: not the reward path's import
        from execverify_data.trace import Status as TraceStatus

        check_int("max_steps", max_steps)
        _check_positive("timeout", timeout)
        if not isinstance(code, str) or not isinstance(call, str):
            raise InvalidArgument("code and call must be strings, such as 'def f(x): ...' and 'f(1)'")
        try:
            code.encode("utf-8")
            call.encode("utf-8")
        except UnicodeError as exc:
            return Trace(TraceStatus.CRASHED, exception=ExceptionInfo("Sandbox", f"not valid Unicode text: {exc}"))
        request = _wire.pack_record([code, "0", call, str(max_steps), repr(float(timeout))])  # see _tracing.run_trace
        # the child's own clock stops the call at ``timeout``; the zygote's kill comes a second later
        limits = {"timeout": float(timeout) + 1.0, "memory_mb": int(memory_mb), "output_limit": 64 * 1024,
                  "max_threads": 4}
        deadline = time.monotonic() + limits["timeout"] + HOST_GRACE
        worker = self._acquire()
        healthy = False
        try:
            result, trace, healthy = _run_trace(worker, limits, request, code, max_steps, deadline)
        finally:
            self._release(worker, healthy)
        if trace is not None:
            return trace
        if result.status is Status.TIMEOUT:
            return Trace(TraceStatus.TIMEOUT)
        return Trace(TraceStatus.CRASHED, exception=ExceptionInfo("Sandbox", f"{result.status.value}: {result.detail}"[:500]))

    def trace_many(self, code: str, calls: Sequence[str], *, max_steps: int = 5000, timeout: float = 5.0,
                   memory_mb: int = 512) -> list[Trace]:
        """:meth:`trace` for each call, each in a child of its own, concurrently on the pool's workers."""
        return self._many(self.trace, [{"code": code, "call": c, "max_steps": max_steps, "timeout": timeout,
                                        "memory_mb": memory_mb} for c in calls])

    def _acquire(self) -> _Worker:
        if self._closed:
            raise ExecVerifyError("this UntrustedPool is closed")
        if self._pid != os.getpid():
            self._reset()
        self._slots.acquire()
        with contextlib.suppress(queue.Empty):
            return self._idle.get_nowait()
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
            worker.kill()
            # its directory may hold all the disk a completion filled (a GiB in a second): the call
            # returns now, and the worker's uids are released only once the tree is gone
            remover = threading.Thread(target=worker.close, name="execverify-sandbox-remover", daemon=True)
            remover.start()
            with self._lock:
                self._workers.discard(worker)
                self._removers = [r for r in self._removers if r.is_alive()] + [remover]
        self._slots.release()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called (the pool runs nothing more)."""
        return self._closed

    def close(self) -> None:
        """Stop every worker (idempotent; never raises)."""
        self._closed = True
        if self._pid != os.getpid():
            return
        with self._lock:
            workers, self._workers = list(self._workers), set()
            executor, self._executor = self._executor, None
            removers, self._removers = self._removers, []
        if executor is not None:
            executor.shutdown(wait=False)
        for worker in workers:
            worker.close()
        for remover in removers:
            remover.join()

    def __enter__(self) -> UntrustedPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __getstate__(self):
        raise TypeError("UntrustedPool holds processes and cannot be pickled; pickle its settings instead")


_KILLED = SandboxResult(Status.KILLED, detail="the sandbox worker died or hung; it was replaced")
_INODES_DETAIL = "the code made more files and folders than the sandbox's /tmp allows (its inode cap)"


def _run_job(worker: _Worker, job: dict, fds: list[int], out: int, err: int, reader: int, cap: int, deadline: float,
             judge) -> tuple[SandboxResult, bool]:
    """Send ``job`` with ``fds`` to ``worker`` and read its answer (``reader``, up to ``cap`` bytes);
    ``judge(response, data, overflow, base)`` makes the result of a valid response. Returns
    ``(result, whether the worker is still usable)``; every descriptor is closed here."""
    try:
        response, data, overflow = worker.run(job, fds, reader, cap, deadline)
    finally:
        _close(*(fd for fd in fds if fd not in (out, err)))
    try:
        if not _valid_response(response):
            return _KILLED, False
        if "error" in response:
            return SandboxResult(Status.CRASHED, detail=response["error"][:2000]), True
        result = judge(response, data, overflow, _base(response))
        return _with_output(result, out, err, job["output_limit"]), True
    finally:
        _close(out, err)


def _channels(request: bytes, stdin: bytes | None) -> tuple[list[int], int, str, int, int]:
    """The descriptors of a call- or trace-mode job: ``(fds, result reader, secret, stdout, stderr)``."""
    result_r, result_w = os.pipe2(os.O_CLOEXEC)
    os.set_blocking(result_r, False)
    secret_r, secret_w = os.pipe2(os.O_CLOEXEC)
    secret = os.urandom(16).hex()
    os.write(secret_w, secret.encode())  # made here: never in the memory of the zygote any child is forked from
    os.close(secret_w)
    out, err = _memfd("stdout"), _memfd("stderr")
    fds = [_memfd("request", request), result_w, secret_r, out, err]
    if stdin is not None:
        fds.append(_memfd("stdin", stdin))
    return fds, result_r, secret, out, err


def _ended_early(response: dict, overflow: bool, base: dict, limits: dict, too_much: str) -> SandboxResult | None:
    """The result of a call- or trace-mode child that did not end as it should (files past the inode cap,
    its time, ``too_much`` on its channel, a death), or None when it exited cleanly."""
    if response.get("inodes"):
        return SandboxResult(Status.OUTPUT_LIMIT, detail=_INODES_DETAIL, **base)
    if response["timed_out"]:
        return SandboxResult(Status.TIMEOUT, detail=f"no result within {limits['timeout']} s", **base)
    if overflow:
        return SandboxResult(Status.OUTPUT_LIMIT, detail=too_much, **base)
    status = response["exit_status"]
    if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and not response["killed"]):
        state, detail = _death(status)
        return SandboxResult(state, detail=detail, **base)
    return None


def _run_calls(worker: _Worker, limits: dict, request: bytes, n_calls: int, stdin: bytes | None,
               deadline: float) -> tuple[SandboxResult, bool]:
    """One call-mode job on ``worker``: ``(result, whether the worker is still usable)``."""
    fds, result_r, secret, out, err = _channels(request, stdin)

    def judge(response: dict, data: bytes, overflow: bool, base: dict) -> SandboxResult:
        ended = _ended_early(response, overflow, base, limits, "result channel exceeded its cap")
        if ended is not None:
            return ended
        try:
            fields = _wire.decode(data, kinds=(_wire.RECORD,), max_bytes=MAX_RESULT_BYTES, max_fields=4 + 5 * n_calls)
            error, memory, calls = _calls_from_record(fields, secret, n_calls)
        except (_wire.FrameError, _Bad) as exc:
            return SandboxResult(Status.CRASHED, detail=f"no valid result: {exc}", **base)
        state = Status.MEMORY if memory else Status.ERROR if error else Status.OK
        detail = (error or "MemoryError in a call") if memory else (error or "")
        return SandboxResult(state, calls=calls, error=error, detail=detail, **base)

    job = {"mode": "calls", "stdin": stdin is not None, **limits}
    return _run_job(worker, job, fds, out, err, result_r, MAX_RESULT_BYTES, deadline, judge)


def _run_trace(worker: _Worker, limits: dict, request: bytes, source: str, max_steps: int,
               deadline: float) -> tuple[SandboxResult, Trace | None, bool]:
    """One trace-mode job on ``worker``: ``(result, the trace assembled here or None, whether the worker
    is still usable)``."""
    from execverify_data.sandbox._tracing import assemble

    fds, result_r, secret, out, err = _channels(request, None)
    made: list = []

    def judge(response: dict, data: bytes, overflow: bool, base: dict) -> SandboxResult:
        ended = _ended_early(response, overflow, base, limits, "the trace stream exceeded its cap")
        if ended is not None:
            return ended
        made.append(assemble(data, secret, source, max_steps=max_steps))  # the secret is the MAC key
        return SandboxResult(Status.OK, **base)

    result, healthy = _run_job(worker, {"mode": "trace", **limits}, fds, out, err, result_r, MAX_RESULT_BYTES,
                               deadline, judge)
    return result, (made[0] if made and result.status is Status.OK else None), healthy


def _run_test(worker: _Worker, limits: dict, request: bytes, test: bytes,
              deadline: float) -> tuple[SandboxResult, bool]:
    """One test-mode job on ``worker``: ``(result, whether the worker is still usable)``."""
    out, err = _memfd("stdout"), _memfd("stderr")
    verdict_r, verdict_w = os.pipe2(os.O_CLOEXEC)
    os.set_blocking(verdict_r, False)
    fds = [_memfd("request", request), out, err, _memfd("test", test), verdict_w]

    def judge(response: dict, data: bytes, overflow: bool, base: dict) -> SandboxResult:
        verdict = None
        if data and not overflow:
            with contextlib.suppress(_wire.FrameError):
                verdict = _wire.decode(data, max_bytes=_MAX_VERDICT_BYTES)
        if response.get("inodes"):
            return SandboxResult(Status.OUTPUT_LIMIT, test_passed=False, detail=_INODES_DETAIL, **base)
        if response["timed_out"]:
            return SandboxResult(Status.TIMEOUT, test_passed=False, detail=f"no result within {limits['timeout']} s",
                                 **base)
        if not _valid_verdict(verdict):
            return SandboxResult(Status.CRASHED, test_passed=False, detail="the test process died without a verdict",
                                 **base)
        if verdict["candidate_error"]:
            state = Status.MEMORY if verdict["memory"] else Status.ERROR
            return SandboxResult(state, test_passed=False, error=verdict["candidate_error"], detail=verdict["detail"],
                                 **base)
        if verdict["candidate_died"]:
            state, detail = (_death(response["exit_status"]) if not response["killed"]
                             else (Status.CRASHED, verdict["detail"]))
            return SandboxResult(state, test_passed=False, detail=detail, **base)
        state = Status.MEMORY if verdict["memory"] else Status.OK
        return SandboxResult(state, test_passed=verdict["test_passed"], detail=verdict["detail"], **base)

    return _run_job(worker, {"mode": "test", **limits}, fds, out, err, verdict_r, _MAX_VERDICT_BYTES, deadline, judge)


def _valid_verdict(verdict) -> bool:
    return (isinstance(verdict, dict) and isinstance(verdict.get("test_passed"), bool)
            and isinstance(verdict.get("detail"), str) and isinstance(verdict.get("memory"), bool)
            and isinstance(verdict.get("candidate_died"), bool)
            and (verdict.get("candidate_error") is None or isinstance(verdict.get("candidate_error"), str)))


def _base(response: dict) -> dict:
    exit_code, sig = (None, None) if response["killed"] else _exit_info(response["exit_status"])
    return {"duration_s": float(response["duration_s"]), "exit_code": exit_code, "signal": sig}


def _with_output(result: SandboxResult, out: int, err: int, limit: int) -> SandboxResult:
    import dataclasses

    stdout, out_full = _output(out, limit)
    stderr, err_full = _output(err, limit)
    changes = {"stdout": stdout, "stderr": stderr}
    if (out_full or err_full) and result.status in (Status.OK, Status.ERROR, Status.CRASHED):
        name = "stdout" if out_full else "stderr"
        changes.update(status=Status.OUTPUT_LIMIT, detail=f"{name} reached the {limit}-byte cap")
        if result.test_passed is not None:
            changes["test_passed"] = False
    return dataclasses.replace(result, **changes)


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
    # a forked process (TRL, multiprocessing) must not share the parent's zygote channels
    global _default, _default_lock
    _default = None
    _default_lock = threading.Lock()


atexit.register(_close_default)
os.register_at_fork(after_in_child=_forget_after_fork)


def run_untrusted(code: str | bytes, calls: Sequence[str] = (), *, timeout: float = 5.0, memory_mb: int = 512,
                  output_limit: int = 64 * 1024, test: str | None = None, max_threads: int = 16,
                  max_code_bytes: int = MAX_CODE_BYTES, stdin: str | None = None,
                  pool: UntrustedPool | None = None) -> SandboxResult:
    """Run untrusted ``code`` in the sandbox, then evaluate ``calls`` and ``test`` in its namespace.

    Args:
        code (`str` or `bytes`): the untrusted program (bytes must be UTF-8).
        calls (`Sequence[str]`, optional): expressions such as ``"add(1, 2)"``, evaluated after ``code``;
            each gives a :class:`CallResult` with the canonical value or the exception.
        timeout (`float`, optional, defaults to 5.0): wall-clock seconds for the whole child.
        memory_mb (`int`, optional, defaults to 512): address-space limit of the child.
        output_limit (`int`, optional, defaults to 65536): cap in bytes on stdout, stderr and any written file.
        test (`str`, optional): test code run in a separate test process against the code's
            functions (instead of ``calls``); :attr:`SandboxResult.test_passed` says whether it
            ran to its end without raising.
        max_threads (`int`, optional, defaults to 16): threads the child may start (enforced with
            ``RLIMIT_NPROC`` when privileges are dropped).
        max_code_bytes (`int`, optional): larger code gives ``Status.REJECTED``.
        stdin (`str`, optional): run ``code`` as a script (``__name__ == "__main__"``) with this
            text as its standard input; its output is :attr:`SandboxResult.stdout` (``SystemExit``
            with status 0 is not an error then).
        pool (`UntrustedPool`, optional, defaults to :func:`default_pool`).

    Bad code (syntax errors, infinite loops, endless output, crashes) never raises here: the
    result's :class:`Status` says what happened. Wrong argument types raise ``InvalidArgument``.
    """
    return (pool or default_pool()).run(code, calls, test=test, timeout=timeout, memory_mb=memory_mb,
                                        output_limit=output_limit, max_threads=max_threads,
                                        max_code_bytes=max_code_bytes, stdin=stdin)
