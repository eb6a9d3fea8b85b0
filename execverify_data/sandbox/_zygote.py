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
import json
import math
import os
import resource
import secrets
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
PREIMPORTS = (
    "abc", "array", "ast", "bisect", "calendar", "cmath", "collections", "collections.abc",
    "contextlib", "copy", "dataclasses", "datetime", "decimal", "enum", "fractions",
    "functools", "hashlib", "heapq", "io", "itertools", "json", "math", "numbers",
    "operator", "random", "re", "statistics", "string", "textwrap", "threading", "time",
    "traceback", "typing", "unicodedata", "ctypes", "ctypes.util", "execverify_data.values",
)

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36


# --------------------------------------------------------------------------- framing


def read_exact(fd: int, n: int) -> bytes | None:
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
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
    return json.loads(body.decode("utf-8"))


def write_frame(fd: int, obj) -> None:
    body = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    data = _HEADER.pack(len(body)) + body
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
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


def _prctl(option: int, arg: int) -> None:
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


def _child(request: dict, cfg: dict, fds: dict, workdir: str, builtins_snapshot: dict) -> None:
    """Runs in the forked child; never returns (``os._exit``)."""
    try:
        os.setsid()
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        # file descriptors: 0 /dev/null, 1-2 capped files, 3 result channel, 4 secret; nothing else
        import fcntl

        order = ("null", "out", "err", "result_w", "secret_r")
        high = [fcntl.fcntl(fds[k], fcntl.F_DUPFD_CLOEXEC, 256) for k in order]
        for target, fd in enumerate(high):
            os.dup2(fd, target)
        os.closerange(SECRET_FD + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
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
        if cfg.get("uid") is not None:
            limits[resource.RLIMIT_NPROC] = (int(request["max_threads"]) + 1,) * 2
        for which, (soft, hard) in limits.items():
            _, current = resource.getrlimit(which)
            if current != resource.RLIM_INFINITY:
                soft, hard = min(soft, current), min(hard, current)
            resource.setrlimit(which, (soft, hard))
        if cfg.get("uid") is not None:
            os.setgroups([])
            os.setgid(cfg["gid"])
            os.setuid(cfg["uid"])
        _prctl(_PR_SET_DUMPABLE, 0)
        if cfg.get("seccomp"):
            from execverify_data.sandbox._seccomp import install_filter

            install_filter()
        os.environ.clear()
        import io

        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace")
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace")
        sys.argv = [""]
    except BaseException as exc:  # noqa: BLE001 - set-up failed: report and die
        try:
            os.write(2, f"sandbox set-up failed: {_describe(exc)}\n".encode())
        finally:
            os._exit(71)
    _run_child(request, builtins_snapshot)


def _run_child(request: dict, builtins_snapshot: dict) -> None:
    from execverify_data.values import encode

    outcome: dict = {"calls": [], "error": None, "test_passed": None, "memory": False}
    namespace = {"__name__": "__sandbox__", "__builtins__": builtins}
    try:
        exec(compile(request["code"], "<completion>", "exec"), namespace)
    except BaseException as exc:  # noqa: BLE001 - the completion's own failure
        outcome["error"] = _describe(exc)
        outcome["memory"] = isinstance(exc, MemoryError)
    if outcome["error"] is None:
        for expr in request["calls"]:
            try:
                value = eval(compile(expr, "<call>", "eval"), namespace)
                outcome["calls"].append({"value": list(encode(value))})
            except BaseException as exc:  # noqa: BLE001
                outcome["memory"] = outcome["memory"] or isinstance(exc, MemoryError)
                outcome["calls"].append({"error": type(exc).__name__, "message": _describe(exc)})
        test = request.get("test")
        if test is not None:
            # undo process-wide patches the completion made before the test runs
            sys.settrace(None)
            sys.setprofile(None)
            current = builtins.__dict__
            for key in [k for k in current if k not in builtins_snapshot]:
                del current[key]
            current.update(builtins_snapshot)
            try:
                exec(compile(test, "<test>", "exec"), namespace)
                outcome["test_passed"] = True
            except BaseException as exc:  # noqa: BLE001
                outcome["test_passed"] = False
                outcome["test_error"] = _describe(exc)
                outcome["memory"] = outcome["memory"] or isinstance(exc, MemoryError)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001
            pass
    try:
        secret = os.read(SECRET_FD, 64).decode("ascii")
        outcome["secret"] = secret
        write_frame(RESULT_FD, outcome)
    except BaseException:  # noqa: BLE001
        os._exit(72)
    os._exit(0)


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
        self.builtins_snapshot = dict(builtins.__dict__)
        self.counter = 0

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
        result_r, result_w = os.pipe2(os.O_CLOEXEC)
        secret_r, secret_w = os.pipe2(os.O_CLOEXEC)
        fds = {"null": self.null, "out": out, "err": err, "result_w": result_w, "secret_r": secret_r}
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            try:
                _child(request, self.cfg, fds, workdir, self.builtins_snapshot)
            finally:
                os._exit(70)
        os.close(result_w)
        os.close(secret_r)
        secret = secrets.token_hex(16)
        os.write(secret_w, secret.encode())  # read by the child only after its code ran
        os.close(secret_w)
        try:
            response = self._supervise(pid, request, result_r, start, secret)
        finally:
            os.close(result_r)
            self._cleanup(pid, workdir)
        output_limit = int(request["output_limit"])
        for name, fd in (("stdout", out), ("stderr", err)):
            size = os.fstat(fd).st_size
            os.lseek(fd, 0, os.SEEK_SET)
            response[name] = os.read(fd, output_limit).decode("utf-8", "replace")
            if size >= output_limit and response["status"] in ("ok", "error", "crashed"):
                response["status"] = "output_limit"
                response["detail"] = f"{name} reached the {output_limit}-byte cap"
            os.close(fd)
        return response

    def _supervise(self, pid: int, request: dict, result_r: int, start: float, secret: str) -> dict:
        deadline = start + float(request["timeout"])
        pidfd = os.pidfd_open(pid)
        poller = select.poll()
        poller.register(result_r, select.POLLIN)
        poller.register(pidfd, select.POLLIN)
        poller.register(self.req_fd, select.POLLHUP)
        data = bytearray()
        timed_out = too_much = False
        exited = False
        try:
            while True:
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
                        if len(data) > _MAX_RESULT_BYTES:
                            too_much = True
                    elif fd == pidfd:
                        exited = True
                    elif fd == self.req_fd and event & (select.POLLHUP | select.POLLERR):
                        _kill(pid)
                        os._exit(0)  # the host is gone
                if exited or too_much:
                    break
            if not exited:
                _kill(pid)
            _, status = os.waitpid(pid, 0)
        finally:
            os.close(pidfd)
        duration = time.monotonic() - start
        # drain whatever the child wrote before exiting (non-blocking: a leftover holder cannot stall us)
        os.set_blocking(result_r, False)
        try:
            while len(data) <= _MAX_RESULT_BYTES:
                chunk = os.read(result_r, 1 << 16)
                if not chunk:
                    break
                data += chunk
        except BlockingIOError:
            pass
        response = {"status": "ok", "detail": "", "error": None, "calls": [], "test_passed": None,
                    "duration_s": duration, "exit_code": None, "signal": None}
        if os.WIFSIGNALED(status):
            response["signal"] = os.WTERMSIG(status)
        else:
            response["exit_code"] = os.WEXITSTATUS(status)
        frame = None
        for candidate in parse_frames(bytes(data[:_MAX_RESULT_BYTES])):
            if isinstance(candidate, dict) and candidate.get("secret") == secret:
                frame = candidate
        if timed_out:
            response.update(status="timeout", detail=f"no result within {request['timeout']} s")
        elif too_much:
            response.update(status="output_limit", detail="result channel exceeded its cap")
        elif frame is not None and response["exit_code"] == 0:
            response["calls"] = frame.get("calls", [])
            response["test_passed"] = frame.get("test_passed")
            response["error"] = frame.get("error")
            if frame.get("test_error"):
                response["detail"] = frame["test_error"]
            if frame.get("memory"):
                response["status"] = "memory"
                response["detail"] = response["detail"] or (frame.get("error") or "MemoryError")
            elif frame.get("error"):
                response.update(status="error", detail=frame["error"])
        else:
            sig = response["signal"]
            if sig == signal.SIGXFSZ:
                response.update(status="output_limit", detail="file size limit (RLIMIT_FSIZE) reached")
            elif sig in (signal.SIGXCPU,) or (sig == signal.SIGKILL and time.monotonic() >= deadline - 0.05):
                response.update(status="timeout", detail="CPU time limit reached")
            elif sig == signal.SIGKILL:
                response.update(status="killed", detail="killed by SIGKILL")
            elif sig is not None:
                response.update(status="crashed", detail=f"killed by signal {signal.Signals(sig).name}")
            else:
                code = response["exit_code"]
                if code == 71:
                    response.update(status="crashed", detail="sandbox set-up failed in the child")
                else:
                    response.update(status="crashed", detail=f"exited with code {code} without a valid result")
        return response

    def _cleanup(self, pid: int, workdir: str) -> None:
        uid = self.cfg.get("uid")
        if uid is not None and not self.cfg.get("seccomp"):
            # without seccomp a grandchild may have escaped the process group: kill every process of the uid
            helper = os.fork()
            if helper == 0:  # pragma: no cover - helper
                try:
                    os.setgid(self.cfg["gid"])
                    os.setuid(uid)
                    os.kill(-1, signal.SIGKILL)
                finally:
                    os._exit(0)
            os.waitpid(helper, 0)
        else:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        _reap_all()
        shutil.rmtree(workdir, ignore_errors=True)


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
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    import importlib

    for name in PREIMPORTS:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    if cfg.get("seccomp"):
        from execverify_data.sandbox import _seccomp

        cfg["seccomp"] = _seccomp.load_library() is not None
    zygote = Zygote(cfg, req_fd, resp_fd)
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
    shutil.rmtree(zygote.private, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover
    main()
