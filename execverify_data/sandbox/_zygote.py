"""The zygote of the untrusted runner: a small pre-imported process that forks one
child per execution (see ``docs/sandbox.md``).

This module runs in its own process, started by :class:`~execverify_data.sandbox.UntrustedPool`
(inside ``bwrap`` when available). It is trusted code: it never executes untrusted
code itself, only forks children that do. Protocol with the host, on the zygote's
stdin/stdout: frames of a 4-byte big-endian length and UTF-8 JSON.

Host -> zygote: first a configuration frame, then one request frame per execution::

    {"code": str, "calls": [expr, ...], "test": str | null, "timeout": float,
     "memory_mb": int, "output_limit": int, "max_threads": int}

Zygote -> host: ``{"ready": ...}`` once, then one response per request::

    {"status": str, "detail": str, "error": str | null, "calls": [...],
     "test_passed": bool | null, "stdout": str, "stderr": str, "duration_s": float,
     "exit_code": int | null, "signal": int | null}

Child -> zygote, on fd 3 (the result channel), one frame carrying the secret the
zygote put in the child's fd 4 *after* forking it; the child reads fd 4 only once
the untrusted code and the test have finished. Frames without that secret are
ignored, so bytes written to fd 3 by the untrusted code cannot forge a result.
"""

from __future__ import annotations

import builtins
import fcntl
import io
import json
import math
import os
import resource
import select
import shutil
import signal
import struct
import sys
import time

_HEADER = struct.Struct(">I")
_MAX_FRAME = 64 * 1024 * 1024
_MAX_RESULT_BYTES = 16 * 1024 * 1024
RESULT_FD = 3
SECRET_FD = 4

# Modules a completion commonly imports; pre-importing them keeps the per-call cost a fork.
# Kept small on purpose: every pre-imported module makes each fork (and each child's exit) a
# little dearer, and some (``threading``, ``random``) add at-fork hooks that run in every child.
# A completion that needs another module imports it itself (a fraction of a millisecond to a few).
PREIMPORTS = (
    "abc", "ast", "bisect", "collections", "collections.abc", "contextlib", "copy", "functools",
    "heapq", "io", "itertools", "json", "math", "operator", "re", "string", "time", "typing",
    "ctypes", "execverify_data.values",
)

# Values crossing between the test child and the candidate child may be large (tests with big inputs).
RPC_MAX_CHARS = 16 * 1024 * 1024
RPC_MAX_ITEMS = 2_000_000
TESTER_NAME = b"ev-tester"  # the persistent test child's process name (``/proc/<pid>/comm``)
_PR_SET_NAME = 15
_TESTER_JOBS = 1000  # the persistent test child is replaced after this many tests
_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36


# --------------------------------------------------------------------------- framing


def read_exact(fd: int, n: int) -> bytes | None:
    chunks = []
    while n:
        chunk = _os_read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int):
    header = read_exact(fd, _HEADER.size)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
    if size > _MAX_FRAME:
        raise ValueError(f"frame of {size} bytes exceeds {_MAX_FRAME}")
    body = read_exact(fd, size)
    if body is None:
        return None
    return _loads(body.decode("utf-8"))


# bound at import: a completion that patches ``json`` or ``os`` in its own child cannot reroute the harness
_dumps = json.dumps
_loads = json.loads
_os_write = os.write
_os_read = os.read


def write_frame(fd: int, obj) -> None:
    body = _dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    data = _HEADER.pack(len(body)) + body
    view = memoryview(data)
    while view:
        written = _os_write(fd, view)
        view = view[written:]


def parse_frames(data: bytes):
    """Every well-formed frame in ``data``, in order (garbage between frames is skipped)."""
    frames = []
    pos = 0
    while pos + _HEADER.size <= len(data):
        (size,) = _HEADER.unpack_from(data, pos)
        end = pos + _HEADER.size + size
        if size <= len(data) and end <= len(data):
            try:
                frames.append(json.loads(data[pos + _HEADER.size:end].decode("utf-8")))
                pos = end
                continue
            except (ValueError, UnicodeDecodeError):
                pass
        pos += 1
    return frames


# --------------------------------------------------------------------------- libc helpers

_libc = None


def _prctl(option: int, arg) -> None:
    global _libc
    if _libc is None:
        import ctypes

        _libc = ctypes.CDLL(None, use_errno=True)
    _libc.prctl(option, arg, 0, 0, 0)


# --------------------------------------------------------------------------- child side


def _describe(exc: BaseException) -> str:
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001 - a hostile __str__
        message = "<unprintable>"
    return f"{type(exc).__name__}: {message[:500]}" if message else type(exc).__name__


def _confine(request: dict, cfg: dict, fd_list: list[int], workdir: str, cpu_limit: bool = True) -> None:
    """Set up a freshly forked child: session, fds ``0..n-1`` = ``fd_list``, rlimits, uid, seccomp."""
    os.setsid()
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 256) for fd in fd_list]
    for target, fd in enumerate(high):
        os.dup2(fd, target)
    os.closerange(len(fd_list), resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    os.chdir(workdir)
    timeout = float(request["timeout"])
    cpu = max(1, math.ceil(timeout)) + 1
    limits = {
        resource.RLIMIT_CPU: (cpu, cpu + 1),
        resource.RLIMIT_AS: (int(request["memory_mb"]) << 20,) * 2,
        resource.RLIMIT_FSIZE: (int(request["output_limit"]),) * 2,
        resource.RLIMIT_NOFILE: (64, 64),
        resource.RLIMIT_CORE: (0, 0),
    }
    if not cpu_limit:  # the persistent test child: the zygote's wall-clock limit applies per test
        del limits[resource.RLIMIT_CPU]
    if cfg.get("uid") is not None:
        # the main thread, the threads it may start, and the persistent test child (same uid)
        limits[resource.RLIMIT_NPROC] = (int(request["max_threads"]) + 2,) * 2
    for which, (soft, hard) in limits.items():
        _, current = resource.getrlimit(which)
        if current != resource.RLIM_INFINITY:
            soft, hard = min(soft, current), min(hard, current)
        resource.setrlimit(which, (soft, hard))
    if cfg.get("uid") is not None:
        os.setgroups([])
        os.setgid(cfg["gid"])
        os.setuid(cfg["uid"])
    _prctl(_PR_SET_DUMPABLE, 0)  # no ptrace, no /proc/<pid>/mem from another process of the same uid
    if cfg.get("seccomp"):
        from execverify_data.sandbox import _seccomp

        if cfg.get("seccomp_program"):
            _seccomp.install_compiled(cfg["seccomp_program"], os.getpid())
        else:
            _seccomp.install_filter()
    os.environ.clear()
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace")
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace")
    sys.argv = [""]


def _child(role, request: dict, cfg: dict, fd_list: list[int], workdir: str, *args) -> None:
    """Runs in a forked child; never returns (``os._exit``)."""
    try:
        _confine(request, cfg, fd_list, workdir, cpu_limit=role is not _serve_tests)
    except BaseException as exc:  # noqa: BLE001 - set-up failed: report and die
        try:
            os.write(2, f"sandbox set-up failed: {_describe(exc)}\n".encode())
        finally:
            os._exit(71)
    try:
        role(request, *args)
    finally:
        os._exit(73)


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001
            pass


def _exec_completion(code: str):
    """Run the untrusted code; return its namespace and ``"Type: message"`` of its failure, if any."""
    namespace = {"__name__": "__sandbox__", "__builtins__": builtins}
    try:
        exec(compile(code, "<completion>", "exec"), namespace)  # trusted: inside the sandboxed child, its purpose
    except BaseException as exc:  # noqa: BLE001 - the completion's own failure
        return namespace, _describe(exc), isinstance(exc, MemoryError)
    return namespace, None, False


def _run_calls(request: dict) -> None:
    """Role of the child in call mode (fds: 0 null, 1 out, 2 err, 3 result, 4 secret)."""
    from execverify_data.values import encode

    pristine = dict(builtins.__dict__)
    namespace, error, memory = _exec_completion(request["code"])
    outcome: dict = {"calls": [], "error": error, "memory": memory}
    returned = []
    if error is None:
        for expr in request["calls"]:
            try:
                returned.append((True, eval(compile(expr, "<call>", "eval"), namespace)))  # trusted: sandboxed child
            except BaseException as exc:  # noqa: BLE001
                outcome["memory"] = outcome["memory"] or isinstance(exc, MemoryError)
                returned.append((False, {"error": type(exc).__name__, "message": _describe(exc)}))
    # the harness's own work runs with the builtins and hooks the completion may have replaced restored
    sys.settrace(None)
    sys.setprofile(None)
    current = builtins.__dict__
    for key in [k for k in current if k not in pristine]:
        del current[key]
    current.update(pristine)
    for ok, item in returned:
        outcome["calls"].append({"value": list(encode(item))} if ok else item)
    _flush_std()
    try:
        outcome["secret"] = _os_read(SECRET_FD, 64).decode("ascii")
        write_frame(RESULT_FD, outcome)
    except BaseException:  # noqa: BLE001
        os._exit(72)
    os._exit(0)


def _serve_candidate(request: dict) -> None:
    """Role of the candidate child in test mode (fds: 0 null, 1 out, 2 err, 3 requests in, 4 replies out).

    Runs the untrusted code, then answers calls from the test child: arguments arrive as
    canonical text (read with the restricted parser), results leave as canonical text."""
    from execverify_data.values import encode, parse

    namespace, error, memory = _exec_completion(request["code"])
    names = sorted(k for k, v in namespace.items() if not k.startswith("__") and callable(v))
    _flush_std()
    write_frame(4, {"names": names, "error": error, "memory": memory})
    while True:
        call = read_frame(3)
        if call is None:
            os._exit(0)
        try:
            args = parse(call["args"], max_chars=RPC_MAX_CHARS, max_items=RPC_MAX_ITEMS)
            kwargs = parse(call["kwargs"], max_chars=RPC_MAX_CHARS, max_items=RPC_MAX_ITEMS)
            value = namespace[call["name"]](*args, **kwargs)
            reply = {"value": list(encode(value, max_chars=RPC_MAX_CHARS))}
        except BaseException as exc:  # noqa: BLE001
            reply = {"error": type(exc).__name__, "message": _describe(exc), "memory": isinstance(exc, MemoryError)}
        _flush_std()
        write_frame(4, reply)


class _CandidateDied(Exception):
    pass


_compiled_tests: dict[str, object] = {}


def _compile_test(test: str):
    """Compile a test's text, cached in the persistent test child: under GRPO every test is run
    against many completions of the same prompt."""
    code = _compiled_tests.get(test)
    if code is None:
        code = compile(test, "<test>", "exec")
        if len(_compiled_tests) >= 512:
            _compiled_tests.clear()
        _compiled_tests[test] = code
    return code


def _test_once(test: str, reply_fd: int, request_fd: int) -> dict:
    """Run one test against the candidate behind ``reply_fd``/``request_fd``; return the outcome.

    Runs in the test child, which never executes untrusted code: the test's names for the
    candidate's functions are proxies that send canonical arguments to the candidate child
    and parse its answers with the restricted parser."""
    from execverify_data.values import encode, parse

    outcome: dict = {"test_passed": False, "detail": "", "candidate_error": None, "memory": False,
                     "candidate_died": False}
    state = {"memory": False}

    def remote(name: str):
        def call(*args, **kwargs):
            args_value = encode(tuple(args), max_chars=RPC_MAX_CHARS)
            kwargs_value = encode(dict(kwargs), max_chars=RPC_MAX_CHARS)
            if not (args_value.askable and kwargs_value.askable):
                raise TypeError(f"arguments of {name}() cannot cross the sandbox boundary")
            try:
                write_frame(request_fd, {"name": name, "args": args_value.text, "kwargs": kwargs_value.text})
                reply = read_frame(reply_fd)
            except (OSError, ValueError):
                reply = None
            if not isinstance(reply, dict):
                raise _CandidateDied(f"the candidate process died during {name}()")
            if "value" in reply:
                text, type_name, askable, _ = reply["value"]
                if not askable:
                    raise TypeError(f"{name}() returned a {type_name}, which has no canonical value")
                return parse(text, max_chars=RPC_MAX_CHARS, max_items=RPC_MAX_ITEMS)
            state["memory"] = state["memory"] or bool(reply.get("memory"))
            exc_type = getattr(builtins, str(reply.get("error")), None)
            if not (isinstance(exc_type, type) and issubclass(exc_type, Exception)):
                exc_type = RuntimeError
            raise exc_type(reply.get("message", ""))

        call.__name__ = call.__qualname__ = name
        return call

    try:
        hello = read_frame(reply_fd)
    except (OSError, ValueError):
        hello = None
    if not isinstance(hello, dict):
        outcome.update(candidate_died=True, detail="the candidate process died before answering")
    elif hello.get("error"):
        outcome.update(candidate_error=str(hello["error"]), memory=bool(hello.get("memory")),
                       detail=str(hello["error"]))
    else:
        namespace = {"__name__": "__test__", "__builtins__": builtins}
        for name in hello.get("names", []):
            # never let the candidate shadow a builtin the test relies on (abs, isinstance, len...)
            if isinstance(name, str) and name.isidentifier() and name not in builtins.__dict__:
                namespace[name] = remote(name)
        try:
            exec(_compile_test(test), namespace)  # trusted: test text, in the tester process that runs no model code
            outcome["test_passed"] = True
        except _CandidateDied as exc:
            outcome.update(candidate_died=True, detail=str(exc))
        except BaseException as exc:  # noqa: BLE001
            outcome["detail"] = _describe(exc)
        outcome["memory"] = state["memory"]
    return outcome


def _serve_tests(request: dict) -> None:
    """Role of the persistent test child (fds: 0-2 null, 3 verdicts out, 4 control socket in).

    Each job is a frame ``{"id", "test"}`` followed by one byte carrying, as ``SCM_RIGHTS``, the
    two pipe ends connected to that job's candidate child. Started once per zygote (and again
    after a time-out), so a test costs one fork (the candidate's), not two."""
    import socket

    _prctl(_PR_SET_NAME, TESTER_NAME)
    control = socket.socket(fileno=4)
    while True:
        job = read_frame(4)
        if not isinstance(job, dict):
            os._exit(0)
        _, fds, _, _ = socket.recv_fds(control, 1, 2)
        if len(fds) != 2:
            os._exit(74)
        reply_fd, request_fd = fds
        try:
            outcome = _test_once(str(job.get("test", "")), reply_fd, request_fd)
        finally:
            os.close(reply_fd)
            os.close(request_fd)
        outcome["id"] = job.get("id")
        write_frame(3, outcome)


# --------------------------------------------------------------------------- zygote side


class Zygote:
    def __init__(self, cfg: dict, req_fd: int, resp_fd: int):
        self.cfg = cfg
        self.req_fd = req_fd
        self.resp_fd = resp_fd
        self.base = cfg.get("tmpdir") or "/tmp"
        self.private = os.path.join(self.base, f"zygote-{os.getpid()}")
        os.makedirs(self.private, mode=0o700, exist_ok=True)
        self.null = os.open(os.devnull, os.O_RDWR)
        self.counter = 0
        self.jobs = 0
        self.tester = None
        # the test child's working directory: owned by the zygote, so no child (the candidates run as
        # the same uid as the test child) can plant anything in it
        self.tester_dir = os.path.join(self.base, f"tester-{os.getpid()}")
        os.mkdir(self.tester_dir, 0o711)
        os.chmod(self.tester_dir, 0o711)

    def _fork(self, role, request: dict, fd_list: list[int], workdir: str, *args) -> int:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            try:
                _child(role, request, self.cfg, fd_list, workdir, *args)
            finally:
                os._exit(70)
        return pid

    def handle(self, request: dict) -> dict:
        self.counter += 1
        workdir = os.path.join(self.base, f"call-{os.getpid()}-{self.counter}")
        os.mkdir(workdir, 0o700)
        uid = self.cfg.get("uid")
        if uid is not None:
            os.chown(workdir, uid, self.cfg["gid"])
        flags = os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
        out = os.open(os.path.join(self.private, "stdout"), flags, 0o600)
        err = os.open(os.path.join(self.private, "stderr"), flags, 0o600)
        pids: list[int] = []
        try:
            if request.get("test_follows"):
                response = self._handle_test(request, workdir, out, err, pids)
            else:
                response = self._handle_calls(request, workdir, out, err, pids)
        finally:
            self._cleanup(pids, workdir)
        output_limit = int(request["output_limit"])
        for name, fd in (("stdout", out), ("stderr", err)):
            size = os.fstat(fd).st_size
            os.lseek(fd, 0, os.SEEK_SET)
            response[name] = os.read(fd, output_limit).decode("utf-8", "replace")
            if size >= output_limit and response["status"] in ("ok", "error", "crashed"):
                response.update(status="output_limit", detail=f"{name} reached the {output_limit}-byte cap")
            os.close(fd)
        return response

    # -- call mode: one child runs the code and evaluates the calls
    def _handle_calls(self, request: dict, workdir: str, out: int, err: int, pids: list[int]) -> dict:
        result_r, result_w = os.pipe2(os.O_CLOEXEC)
        secret_r, secret_w = os.pipe2(os.O_CLOEXEC)
        start = time.monotonic()
        deadline = start + float(request["timeout"])
        pid = self._fork(_run_calls, request, [self.null, out, err, result_w, secret_r], workdir)
        pids.append(pid)
        os.close(result_w)
        os.close(secret_r)
        secret = os.urandom(16).hex()
        os.write(secret_w, secret.encode())  # generated after the fork: never in the child's memory image
        os.close(secret_w)
        try:
            status, data, timed_out, too_much = self._watch(pid, result_r, deadline)
        finally:
            os.close(result_r)
        response = _base_response(time.monotonic() - start, status)
        frame = None
        for candidate in parse_frames(data):
            if isinstance(candidate, dict) and candidate.get("secret") == secret:
                frame = candidate
        if timed_out:
            response.update(status="timeout", detail=f"no result within {request['timeout']} s")
        elif too_much:
            response.update(status="output_limit", detail="result channel exceeded its cap")
        elif frame is not None and response["exit_code"] == 0:
            response["calls"] = frame.get("calls", [])
            response["error"] = frame.get("error")
            if frame.get("memory"):
                response.update(status="memory", detail=frame.get("error") or "MemoryError in a call")
            elif frame.get("error"):
                response.update(status="error", detail=frame["error"])
        else:
            response.update(_death(status, deadline))
        return response

    # -- test mode: the candidate child runs the code; the persistent test child runs the test
    def _tester(self, request: dict):
        """The persistent test child (started on first use and after a failure)."""
        if self.tester is None:
            import socket

            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            verdict_r, verdict_w = os.pipe2(os.O_CLOEXEC)
            limits = {**request, "memory_mb": max(1024, int(request["memory_mb"])), "output_limit": 1 << 20}
            pid = self._fork(_serve_tests, limits, [self.null, self.null, self.null, verdict_w, theirs.fileno()],
                             self.tester_dir)
            theirs.close()
            os.close(verdict_w)
            self.tester = {"pid": pid, "socket": ours, "verdicts": verdict_r, "jobs": 0}
        return self.tester

    def _drop_tester(self) -> None:
        tester, self.tester = self.tester, None
        if tester is not None:
            _kill(tester["pid"])
            try:
                os.waitpid(tester["pid"], 0)
            except ChildProcessError:
                pass
            tester["socket"].close()
            os.close(tester["verdicts"])

    def _handle_test(self, request: dict, workdir: str, out: int, err: int, pids: list[int]) -> dict:
        import socket

        req_r, req_w = os.pipe2(os.O_CLOEXEC)
        rep_r, rep_w = os.pipe2(os.O_CLOEXEC)
        start = time.monotonic()
        deadline = start + float(request["timeout"])
        candidate = self._fork(_serve_candidate, request, [self.null, out, err, req_r, rep_w], workdir)
        pids.append(candidate)
        os.close(req_r)
        os.close(rep_w)
        # the test text is read only now, so the candidate's memory never held it
        test_frame = read_frame(self.req_fd)
        if not isinstance(test_frame, dict):
            _kill(candidate)
            os._exit(0)  # the host is gone
        self.jobs += 1
        job_id = self.jobs
        tester = self._tester(request)
        try:
            write_frame(tester["socket"].fileno(), {"id": job_id, "test": str(test_frame.get("test", ""))})
            socket.send_fds(tester["socket"], [b"F"], [rep_r, req_w])
        except OSError:
            self._drop_tester()
            tester = None
        finally:
            os.close(rep_r)
            os.close(req_w)
        frame, timed_out = None, False
        if tester is not None:
            frame, timed_out = self._await_verdict(tester, job_id, candidate, deadline)
        try:
            done, candidate_status = os.waitpid(candidate, os.WNOHANG)
        except ChildProcessError:
            done, candidate_status = 0, 0
        if not done:
            _kill(candidate)
            os.waitpid(candidate, 0)
        response = _base_response(time.monotonic() - start, candidate_status if done else 0)
        if not done:
            response["exit_code"] = None
        if timed_out:
            response.update(status="timeout", detail=f"no result within {request['timeout']} s")
        elif frame is None:
            response.update(status="crashed", detail="the test process died without a verdict")
        else:
            response["test_passed"] = bool(frame.get("test_passed"))
            response["detail"] = str(frame.get("detail") or "")
            if frame.get("candidate_error"):
                response["error"] = str(frame["candidate_error"])
                response["status"] = "memory" if frame.get("memory") else "error"
            elif frame.get("candidate_died"):
                response["test_passed"] = False
                if done:
                    response.update(_death(candidate_status, deadline))
                else:
                    response.update(status="crashed", detail=response["detail"])
            elif frame.get("memory"):
                response["status"] = "memory"
        if self.tester is not None and self.tester["jobs"] >= _TESTER_JOBS:
            self._drop_tester()
        return response

    def _await_verdict(self, tester: dict, job_id: int, candidate: int, deadline: float):
        """The test child's verdict for ``job_id`` (``None`` if it died), and whether time ran out.

        On time-out the candidate is killed first: the test child then sees end-of-file and
        answers at once; one that still does not answer within a second is replaced."""
        tester["jobs"] += 1
        pidfd = os.pidfd_open(tester["pid"])
        poller = select.poll()
        poller.register(tester["verdicts"], select.POLLIN)
        poller.register(pidfd, select.POLLIN)
        poller.register(self.req_fd, select.POLLHUP)
        buffer = bytearray()
        timed_out = False
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    if timed_out:  # the grace period is over too
                        self._drop_tester()
                        return None, True
                    timed_out = True
                    _kill(candidate)
                    deadline = time.monotonic() + 1.0
                    continue
                for fd, event in poller.poll(remaining * 1000):
                    if fd == tester["verdicts"]:
                        chunk = os.read(fd, 1 << 16)
                        if not chunk:
                            self._drop_tester()
                            return None, timed_out
                        buffer += chunk
                        for frame in parse_frames(bytes(buffer)):
                            if isinstance(frame, dict) and frame.get("id") == job_id:
                                return frame, timed_out
                    elif fd == pidfd:
                        self._drop_tester()
                        return None, timed_out
                    elif fd == self.req_fd and event & (select.POLLHUP | select.POLLERR):
                        _kill(candidate)
                        self._drop_tester()
                        os._exit(0)  # the host is gone
        finally:
            os.close(pidfd)

    # -- shared
    def _watch(self, pid: int, result_r: int, deadline: float):
        """Wait for ``pid`` until ``deadline`` while reading ``result_r``; kill it on time-out."""
        pidfd = os.pidfd_open(pid)
        poller = select.poll()
        poller.register(result_r, select.POLLIN)
        poller.register(pidfd, select.POLLIN)
        poller.register(self.req_fd, select.POLLHUP)
        data = bytearray()
        timed_out = too_much = exited = False
        try:
            while not (exited or too_much):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                for fd, event in poller.poll(remaining * 1000):
                    if fd == result_r:
                        chunk = os.read(result_r, 1 << 16)
                        if not chunk:
                            poller.unregister(result_r)
                        data += chunk
                        too_much = len(data) > _MAX_RESULT_BYTES
                    elif fd == pidfd:
                        exited = True
                    elif fd == self.req_fd and event & (select.POLLHUP | select.POLLERR):
                        _kill(pid)
                        os._exit(0)  # the host is gone
            if not exited:
                _kill(pid)
            _, status = os.waitpid(pid, 0)
        finally:
            os.close(pidfd)
        # drain what the child wrote before exiting (non-blocking: a leftover holder cannot stall us)
        os.set_blocking(result_r, False)
        try:
            while len(data) <= _MAX_RESULT_BYTES:
                chunk = os.read(result_r, 1 << 16)
                if not chunk:
                    break
                data += chunk
        except BlockingIOError:
            pass
        return status, bytes(data[:_MAX_RESULT_BYTES]), timed_out, too_much

    def _cleanup(self, pids: list[int], workdir: str) -> None:
        for pid in pids:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        uid = self.cfg.get("uid")
        if uid is not None and not self.cfg.get("seccomp"):
            # without seccomp a grandchild may have left the process group: kill every process of the
            # uid (the persistent test child included, it is restarted on the next test)
            self._drop_tester()
            helper = os.fork()
            if helper == 0:  # pragma: no cover - helper
                try:
                    os.setgroups([])
                    os.setgid(self.cfg["gid"])
                    os.setuid(uid)
                    os.kill(-1, signal.SIGKILL)
                finally:
                    os._exit(0)
            os.waitpid(helper, 0)
        _reap_all()
        try:
            os.rmdir(workdir)  # the common case: the code wrote no files
        except OSError:
            shutil.rmtree(workdir, ignore_errors=True)


def _exit_info(status: int) -> tuple[int | None, int | None]:
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status)
    return os.WEXITSTATUS(status), None


def _base_response(duration: float, status: int) -> dict:
    exit_code, sig = _exit_info(status)
    return {"status": "ok", "detail": "", "error": None, "calls": [], "test_passed": None,
            "duration_s": duration, "exit_code": exit_code, "signal": sig}


def _death(status: int, deadline: float) -> dict:
    """Status and detail for a child that ended without a valid result."""
    exit_code, sig = _exit_info(status)
    if sig == signal.SIGXFSZ:
        return {"status": "output_limit", "detail": "file size limit (RLIMIT_FSIZE) reached"}
    if sig == signal.SIGXCPU:
        return {"status": "timeout", "detail": "CPU time limit (RLIMIT_CPU) reached"}
    if sig == signal.SIGKILL:
        return {"status": "killed", "detail": "killed by SIGKILL"}
    if sig is not None:
        return {"status": "crashed", "detail": f"killed by signal {signal.Signals(sig).name}"}
    if exit_code == 71:
        return {"status": "crashed", "detail": "sandbox set-up failed in the child"}
    return {"status": "crashed", "detail": f"exited with code {exit_code} without a valid result"}


def _kill(pid: int) -> None:
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _reap_all() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main() -> None:
    """Entry point of the zygote process (stdin: requests, stdout: responses)."""
    req_fd = os.dup(0)
    resp_fd = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.set_inheritable(req_fd, False)
    os.set_inheritable(resp_fd, False)
    cfg = read_frame(req_fd)
    if cfg is None:
        return
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    import importlib

    for name in PREIMPORTS:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    if cfg.get("seccomp"):
        from execverify_data.sandbox import _seccomp

        cfg["seccomp"] = _seccomp.load_library() is not None
        try:  # compiled once here; each child only patches in its pid and loads it
            cfg["seccomp_program"] = _seccomp.compile_filter()
            _seccomp._libc()
        except OSError:
            cfg["seccomp_program"] = None
    zygote = Zygote(cfg, req_fd, resp_fd)
    import gc

    gc.collect()
    gc.freeze()  # children's collections then skip (and do not copy-on-write) the zygote's objects
    write_frame(resp_fd, {"ready": True, "pid": os.getpid(), "uid": os.getuid(), "seccomp": bool(cfg.get("seccomp"))})
    while True:
        request = read_frame(req_fd)
        if request is None:
            break
        try:
            response = zygote.handle(request)
        except Exception as exc:  # noqa: BLE001 - report, keep serving
            response = {"status": "crashed", "detail": f"zygote error: {_describe(exc)}", "error": None,
                        "calls": [], "test_passed": None, "stdout": "", "stderr": "", "duration_s": 0.0,
                        "exit_code": None, "signal": None}
        write_frame(resp_fd, response)
    zygote._drop_tester()
    shutil.rmtree(zygote.private, ignore_errors=True)
    shutil.rmtree(zygote.tester_dir, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover
    main()
