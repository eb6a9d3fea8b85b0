"""Warm helper processes: the one way this package starts an interpreter that stays up between
jobs, shakes hands with it, talks to it in frames (:mod:`execverify_data.sandbox._wire`), and
kills and replaces it (``docs/sandbox.md``, "The warm-process primitive", lists the three
configurations). A helper's environment is only what :attr:`Boot.env` says (by default
:func:`minimal_env`): nothing of the caller's environment reaches code that runs in it.

>>> minimal_env(PYTHONHASHSEED="0")["PYTHONHASHSEED"]
'0'
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from execverify_data.errors import ExecVerifyError
from execverify_data.sandbox import _wire

# the helper's side of the protocol, for helpers outside this package (``synth.retrace``)
from execverify_data.sandbox._wire import (
    FrameError,
    pack_json,
    read_frame,
    take_channel,
    write_all,
)

__all__ = ["PACKAGE_ROOT", "Boot", "FrameError", "WarmProcess", "minimal_env", "pack_json", "read_frame", "take_channel",
           "write_all"]

#: The directory that holds the ``execverify_data`` package (put on a helper's ``sys.path``).
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


def minimal_env(**extra: str) -> dict[str, str]:
    """The whole environment of a helper process: a default ``PATH``, a UTF-8 locale and ``extra``.

    Nothing else of the caller's environment (tokens, keys, paths) reaches a helper, so no
    program a helper runs can read it, or answer differently depending on it.
    """
    return {"PATH": os.defpath, "LC_ALL": "C.UTF-8", **extra}


@dataclass(frozen=True)
class Boot:
    """How to start one kind of helper.

    Args:
        name (`str`): what the helper is, for error messages ("a trusted-runner worker").
        target (`str`): ``"module:function"`` the helper runs.
        python (`str`, optional, defaults to `sys.executable`): the interpreter.
        flags (`tuple[str, ...]`): interpreter options before ``-c``.
        path (`tuple[str, ...]`): entries put first on the helper's ``sys.path``.
        env (`Mapping[str, str]`, optional): the helper's whole environment (defaults to :func:`minimal_env`).
        wrapper (`tuple[str, ...]`): a command the interpreter runs under (a ``bwrap ... --`` prefix).
        pass_fds (`tuple[int, ...]`): descriptors the helper inherits besides its channel.
        config (`dict`): the first frame the helper reads (its configuration).
        seqpacket (`bool`): a message channel (``SOCK_SEQPACKET``, one frame per message, with
            descriptors attached) instead of a byte stream.
        startup_timeout (`float`): seconds to wait for the ready frame.
        hint (`str`): what to do when the helper cannot start.
    """

    name: str
    target: str
    python: str = sys.executable
    flags: tuple[str, ...] = ("-s",)
    path: tuple[str, ...] = (PACKAGE_ROOT,)
    env: Mapping[str, str] | None = None
    wrapper: tuple[str, ...] = ()
    pass_fds: tuple[int, ...] = ()
    config: dict = field(default_factory=dict)
    seqpacket: bool = False
    startup_timeout: float = 60.0
    hint: str = "check that this interpreter can import execverify_data"

    def argv(self) -> list[str]:
        module, function = self.target.split(":")
        code = f"import sys; sys.path[:0] = {list(self.path)!r}; from {module} import {function}; {function}()"
        return [*self.wrapper, self.python, *self.flags, "-c", code]


# ``bwrap --die-with-parent`` (PR_SET_PDEATHSIG) ties a helper to the *thread* that started it:
# helpers are started from one long-lived thread, never from a short-lived worker thread.
_spawner: ThreadPoolExecutor | None = None
_spawner_lock = threading.Lock()


def _spawn(fn):
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = ThreadPoolExecutor(1, thread_name_prefix="execverify-spawner")
        executor = _spawner
    return executor.submit(fn).result()


def _forget_after_fork() -> None:
    global _spawner, _spawner_lock
    _spawner = None
    _spawner_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)


class WarmProcess:
    """One started helper process and its channel (see the module docs); call
    :meth:`wait_ready` before the first request."""

    def __init__(self, boot: Boot):
        self.boot = boot
        kind = socket.SOCK_SEQPACKET if boot.seqpacket else socket.SOCK_STREAM
        ours, theirs = socket.socketpair(socket.AF_UNIX, kind)
        self.sock = ours
        self.stderr = tempfile.TemporaryFile()  # read only when the helper fails to start
        env = minimal_env() if boot.env is None else dict(boot.env)
        try:
            self.process = _spawn(lambda: subprocess.Popen(
                boot.argv(), stdin=theirs.fileno(), stdout=subprocess.DEVNULL, stderr=self.stderr, env=env,
                pass_fds=boot.pass_fds, close_fds=True, start_new_session=True, cwd="/"))
        except OSError as exc:
            ours.close()
            self.stderr.close()
            raise ExecVerifyError(f"{boot.name} ({boot.python}) could not start: {exc}; {boot.hint}") from None
        finally:
            theirs.close()
        self.pid = self.process.pid
        self.ready: dict | None = None
        try:
            self.send(_wire.pack_json(boot.config))
        except OSError:
            pass  # it is gone already: wait_ready says why

    def wait_ready(self) -> dict:
        """The helper's ready frame (waited for once; helpers started together start in parallel).

        Raises:
            ExecVerifyError: the helper did not answer with a ready frame.
        """
        if self.ready is None:
            ready = self.recv(time.monotonic() + self.boot.startup_timeout)
            if not isinstance(ready, dict) or ready.get("ready") is not True:
                self._fail_to_start()
            self.ready = ready
        return self.ready

    def _fail_to_start(self):
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=1.0)
        self.stderr.seek(0)
        tail = self.stderr.read()[-4096:].decode("utf-8", "replace").strip().splitlines()[-3:]
        status = self.process.returncode
        self.kill()
        why = " | ".join(tail) or ("no answer" if status is None else f"exit status {status}")
        raise ExecVerifyError(f"{self.boot.name} ({self.boot.python}) could not start: {why}; {self.boot.hint}")

    def fileno(self) -> int:
        return self.sock.fileno()

    def send(self, frame: bytes, fds: Sequence[int] = ()) -> None:
        """Send one packed frame (``_wire.pack_*``), with descriptors on a message channel."""
        if self.boot.seqpacket:
            _wire.send_message(self.sock, frame, fds)
        else:
            self.sock.sendall(frame)

    def recv(self, deadline: float | None = None, *, kinds: Sequence[bytes] = (_wire.JSON,),
             max_bytes: int = _wire.DEFAULT_MAX_BYTES):
        """The next frame, or ``None`` when the helper is gone, sent a bad frame or ``deadline`` passed."""
        try:
            if self.boot.seqpacket:
                if deadline is not None and not _wait_readable(self.sock, deadline):
                    return None
                frame, _ = _wire.recv_message(self.sock, kinds=kinds, max_fds=0)
                return frame
            return _wire.read_frame(self.sock.fileno(), kinds=kinds, max_bytes=max_bytes, deadline=deadline)
        except (OSError, TimeoutError, _wire.FrameError):
            return None

    def kill(self) -> None:
        """Kill the helper's process group now and reap it (idempotent, never raises)."""
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self._release()

    def close(self, wait: float = 2.0) -> None:
        """Let the helper exit on end of file; kill it if it has not within ``wait`` seconds."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        try:
            self.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self._release()

    def _release(self) -> None:
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.process.wait(timeout=10.0)
        for closable in (self.sock, self.stderr):
            with contextlib.suppress(OSError):
                closable.close()


def _wait_readable(sock: socket.socket, deadline: float) -> bool:
    import select

    left = deadline - time.monotonic()
    return left > 0 and bool(select.select([sock], [], [], left)[0])
