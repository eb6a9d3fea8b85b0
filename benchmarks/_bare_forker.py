"""The floor of ``bench_sandbox.py``: fork-per-check from a warm process, with no sandbox at all.

Started once per concurrent check (``python -I benchmarks/_bare_forker.py``). It pre-imports
``typing`` (most HumanEval prompts import it), freezes its objects for the collector, then
loops: read a length-prefixed program (``!I`` + UTF-8) on stdin, fork, let the child run it
(``exec``, an alarm as its only limit) and write one byte (``1`` passed, ``0`` not) on a pipe,
reap the child and relay the byte on stdout. No privilege drop, no seccomp, no Landlock, no
namespaces, no request or result validation, no output capture: what any design that runs each
completion in a fresh fork of a warm interpreter must at least pay. The sandbox's own numbers
are read against it (``bench_sandbox.py`` prints both ratios); it is not a way to run untrusted code.
"""

from __future__ import annotations

import gc
import os
import signal
import struct
import typing  # noqa: F401 - pre-imported, as the zygote does

TIMEOUT_S = 4


def _read_exactly(fd: int, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            raise SystemExit(0)  # the benchmark closed our stdin
        data += chunk
    return data


def _run(program: bytes, verdict: int) -> None:
    signal.alarm(TIMEOUT_S)
    gc.enable()
    try:
        exec(compile(program, "<check>", "exec"), {})
        os.write(verdict, b"1")
    except BaseException:  # noqa: BLE001 - any failure is a failed check
        os.write(verdict, b"0")


def main() -> None:
    gc.collect()
    gc.freeze()
    gc.disable()
    while True:
        (size,) = struct.unpack("!I", _read_exactly(0, 4))
        program = _read_exactly(0, size)
        verdict_r, verdict_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            try:
                os.close(verdict_r)
                _run(program, verdict_w)
            finally:
                os._exit(0)
        os.close(verdict_w)
        byte = os.read(verdict_r, 1) or b"0"
        os.close(verdict_r)
        os.waitpid(pid, 0)
        os.write(1, byte)


if __name__ == "__main__":
    main()
