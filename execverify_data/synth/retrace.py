"""The determinism filter's second run: the same calls traced again in another interpreter,
started with another hash seed, compared by digest.

A second run in the same process proves little: string hashes, and with them the
iteration order of a ``set`` of strings, are fixed for the life of a process. A
program whose trace depends on that order (``for w in {'a', 'b'}``, ``f'{tags}'``,
``labels.pop()``, ``[*seen]``) gives the same trace twice in one process and a
different one under another ``PYTHONHASHSEED``; its "ground truth" is an accident of
the hash seed that no reader of the code can know. About 1% of synthesized programs
are like that (measured over 600 accepted programs under seeds 0, 1 and 2).

:class:`Retracer` keeps one helper interpreter (a warm process of
:mod:`execverify_data.sandbox.warm`, ``PYTHONHASHSEED`` set to ``hash_seed``) per
instance. It receives ``(source, calls)`` as a frame, traces each
call with :func:`execverify_data.trace.trace_call` under the same step budget and
timeout, in a child forked for that program alone (a program cannot change what the
next one sees), and answers with one :func:`trace_digest` per call. It is not a
sandbox (no layer of :mod:`execverify_data.sandbox` confines the child). A helper
that dies or stops answering is replaced, the calls it was given counting as not
reproduced.

>>> with Retracer(max_steps=100, timeout=2.0) as again:
...     digests = again.digests("def f(xs):\\n    return sorted(xs)\\n", ["f({'b', 'a'})"])
>>> from execverify_data.trace import trace_call
>>> digests == [trace_digest(trace_call("def f(xs):\\n    return sorted(xs)\\n", "f({'b', 'a'})"))]
True
"""

from __future__ import annotations

import ast
import hashlib
import os
import time
from operator import itemgetter

from execverify_data.astwalk import walk
from execverify_data.errors import check_int, check_seconds
from execverify_data.sandbox.warm import (Boot, FrameError, WarmProcess, minimal_env, pack_json, read_frame, take_channel,
                                          write_all)
from execverify_data.trace import Trace

__all__ = ["Retracer", "may_depend_on_hash_seed", "trace_digest"]

_BOOT = "execverify_data.synth.retrace:_main"
_TEXT, _TYPE = itemgetter(0), itemgetter(1)  # CanonicalValue.text, .type


def trace_digest(trace: Trace) -> str:
    """A SHA-1 of everything a trace says: status, output, exception, stdout and every event with its locals.

    Events share their locals mapping while a frame's state does not change; each
    distinct mapping is rendered once (its content, not its identity, enters the digest).
    About 100 us for a 70-event trace: a sixth of the cost of tracing it.
    """
    rendered: dict[int, str] = {}
    parts = [trace.status.value, repr(trace.output), repr(trace.exception), trace.stdout or ""]
    append, join = parts.append, "\x1e".join
    for function, frame, depth, line, occurrence, state in trace.events:
        text = rendered.get(id(state))
        if text is None:
            values = state.values()
            text = rendered[id(state)] = f"{join(state)}\x1f{join(map(_TEXT, values))}\x1f{join(map(_TYPE, values))}"
        append(f"{function}\x1d{frame}\x1d{depth}\x1d{line}\x1d{occurrence}\x1d{text}")
    return hashlib.sha1("\x1c".join(parts).encode("utf-8", "backslashreplace")).hexdigest()


_VIEW_OPS = (ast.BitAnd, ast.BitOr, ast.BitXor, ast.Sub)
_HASHED = frozenset({"set", "frozenset", "hash", "id"})


def may_depend_on_hash_seed(code: str | ast.Module, param_types) -> bool:
    """Whether a trusted program's trace could change with ``PYTHONHASHSEED``: only a set's
    iteration order can (dicts keep insertion order; ints, floats and ``None`` hash the same in
    every process), so a program that never holds a set cannot. Conservative: a set parameter,
    a set display or comprehension, the names ``set``, ``frozenset``, ``hash``, ``id``, or a set
    operator where a dict view appears (``d.keys() & other`` is a set) all say yes. ``code`` may be the
    program's parsed module (only read).

    >>> may_depend_on_hash_seed("def f(xs):\\n    return sorted(xs)\\n", ("list[str]",))
    False
    >>> may_depend_on_hash_seed("def f(xs):\\n    return list(set(xs))\\n", ("list[str]",))
    True
    """
    if any("set" in t for t in param_types):
        return True
    views = operators = False
    for node in walk(ast.parse(code) if isinstance(code, str) else code):
        if isinstance(node, (ast.Set, ast.SetComp)) or (isinstance(node, ast.Name) and node.id in _HASHED):
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("keys", "items"):
            views = True
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, _VIEW_OPS):
            operators = True
    return views and operators


def _main() -> None:  # pragma: no cover - runs in the helper interpreter
    import warnings

    from execverify_data.trace import trace_call

    warnings.simplefilter("ignore")
    channel = take_channel()  # a program's own input() or print() never touches the protocol
    read_frame(channel)  # the configuration (nothing to configure)
    write_all(channel, pack_json({"ready": True}))
    while True:
        try:
            request = read_frame(channel)
        except FrameError:
            return
        if request is None:  # the parent is gone
            return
        source, calls, max_steps, timeout = request
        write_all(channel, pack_json(_in_a_fork(channel, source, calls, max_steps, timeout, trace_call)))


def _in_a_fork(channel: int, source: str, calls: list, max_steps: int, timeout: float, trace_call) -> list:  # pragma: no cover
    """The digests of one program's calls, traced in a child forked for this program alone: whatever the program
    changes in the interpreter ends with the child, so it cannot change the next program's traces. The child
    holds no end of the parent's channel, only a pipe for its answer; one that dies without a whole answer
    gets digests that match nothing."""
    import json

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            os.close(channel)
            out = []
            for call in calls:
                try:
                    out.append(trace_digest(trace_call(source, call, max_steps=max_steps, timeout=timeout)))
                except Exception as exc:  # noqa: BLE001 - reported as a digest that matches nothing
                    out.append(f"error: {type(exc).__name__}")
            data = json.dumps(out).encode()
            while data:
                data = data[os.write(write_end, data):]
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    with os.fdopen(read_end, "rb") as answer:
        while chunk := answer.read(1 << 16):
            chunks.append(chunk)
    os.waitpid(pid, 0)
    try:
        out = json.loads(b"".join(chunks))
    except ValueError:
        out = None
    if not (isinstance(out, list) and len(out) == len(calls) and all(isinstance(a, str) for a in out)):
        return ["error: the program's process ended without an answer"] * len(calls)
    return out


def other_hash_seed() -> str:
    """A ``PYTHONHASHSEED`` different from this process's (``"1"``, or ``"2"`` when this one runs with 1)."""
    return "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"


class Retracer:
    """A helper interpreter with another hash seed that re-traces calls (see the module docs).

    Args:
        max_steps (`int`), timeout (`float`): the budgets of each traced call, as for ``trace_call``.
        hash_seed (`str`, optional): the helper's ``PYTHONHASHSEED``; by default one different
            from this process's (:func:`other_hash_seed`).
        grace (`float`, optional, defaults to 2.0): seconds beyond ``timeout`` per call before
            the helper is declared stuck and replaced.
    """

    def __init__(self, *, max_steps: int, timeout: float, hash_seed: str | None = None, grace: float = 2.0):
        check_int("max_steps", max_steps)
        check_seconds("timeout", timeout)
        self.max_steps, self.timeout, self.grace = max_steps, float(timeout), float(grace)
        self.hash_seed = str(hash_seed) if hash_seed is not None else other_hash_seed()
        self._process: WarmProcess | None = None
        self.restarts = 0

    def __enter__(self) -> Retracer:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _boot(self) -> Boot:
        return Boot(name=f"the determinism check's second interpreter (PYTHONHASHSEED={self.hash_seed})",
                    target=_BOOT, env=minimal_env(PYTHONHASHSEED=self.hash_seed))

    def start(self) -> None:
        """Start the helper now (it is started on first use otherwise), so its start-up overlaps other work."""
        if self._process is None:
            self._process = WarmProcess(self._boot())

    def digests(self, source: str, calls: list[str]) -> list[str] | None:
        """One :func:`trace_digest` per call, traced in the helper; ``None`` if the helper died or got stuck.

        Raises:
            ExecVerifyError: the helper interpreter cannot start at all.
        """
        self.start()
        process = self._process
        process.wait_ready()
        answer = None
        try:
            process.send(pack_json([source, list(calls), self.max_steps, self.timeout]))
            answer = process.recv(time.monotonic() + 5.0 + len(calls) * (self.timeout + self.grace))
        except OSError:
            pass
        if not (isinstance(answer, list) and len(answer) == len(calls) and all(isinstance(a, str) for a in answer)):
            self._kill()
            self.restarts += 1
            return None
        return answer

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.kill()

    def __del__(self):  # pragma: no cover - best effort for a Retracer nobody closed
        process, self._process = getattr(self, "_process", None), None
        if process is not None:
            try:
                process.sock.close()  # the helper reads end of file and exits; Popen reaps it later
                process.stderr.close()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass

    def close(self) -> None:
        """Stop the helper (idempotent)."""
        process, self._process = self._process, None
        if process is not None:
            process.close()
