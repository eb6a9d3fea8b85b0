"""What the tester runs: a persistent child of the zygote, with a uid of its own, that runs test
text against a candidate's functions through proxies and writes the verdict straight to the
host. It never executes untrusted code (see ``docs/sandbox.md``, "Verdicts that cannot be forged").
"""

from __future__ import annotations

import builtins
import os
import socket
from collections import deque

from execverify_data.sandbox import _linux, _prefetch, _wire
from execverify_data.sandbox._candidate import (
    MAX_NAMES,
    RPC_MAX_BYTES,
    RPC_MAX_CHARS,
    RPC_MAX_ITEMS,
    describe,
)

TESTER_NAME = b"ev-tester"  # the persistent test child's process name (``/proc/<pid>/comm``)
_MAX_TEST_BYTES = 16 * 1024 * 1024


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


def _test_once(test: str, replies: int, calls: int) -> dict:
    """Run one test against the candidate behind ``replies``/``calls``; return the verdict.

    Runs in the test child, which never executes untrusted code: the test's names for the
    candidate's functions are proxies that send pickled arguments to the candidate child
    and parse its answers (canonical text) with the restricted parser. The calls the test
    is sure to make first (:func:`~execverify_data.sandbox._prefetch.plan`) go out as one
    batch; a proxy call that matches the next of them takes its answer from the batch."""
    from execverify_data.values import encode, read_canonical

    verdict: dict = {"test_passed": False, "detail": "", "candidate_error": None, "memory": False,
                     "candidate_died": False}
    state: dict = {"memory": False, "owed": deque()}  # owed: (pickled call, call) of the batch, in order
    answers = _wire.Reader(replies)

    def receive(name: str):
        try:
            reply = answers.frame(kinds=(_wire.RECORD,), max_bytes=RPC_MAX_BYTES, max_fields=4)
        except (OSError, _wire.FrameError):
            reply = None
        if not (isinstance(reply, list) and len(reply) == 4 and reply[0] in ("v", "e")):
            raise _CandidateDied(f"the candidate process died during {name}()")
        return reply

    def canonical(call: tuple) -> str | None:
        try:
            value = encode(call, max_chars=RPC_MAX_CHARS)
        except Exception:  # noqa: BLE001
            return None
        return value.text if value.askable else None

    def remote(name: str):
        def call(*args, **kwargs):
            owed = state["owed"]
            try:
                request = _wire.pack_pickle(("call", name, args, kwargs))
            except Exception:  # noqa: BLE001 - a lambda, an object of a class the test defines...
                raise TypeError(f"arguments of {name}() cannot cross the sandbox boundary") from None
            if owed and (request == owed[0][0] or canonical((name, args, kwargs)) == canonical(owed[0][1])):
                owed.popleft()
                reply = receive(name)
            else:
                while owed:  # the test left the batch's order: take the answers still owed, then ask
                    owed.popleft()
                    receive(name)
                try:
                    _wire.write_all(calls, request)
                except OSError:
                    raise _CandidateDied(f"the candidate process died during {name}()") from None
                reply = receive(name)
            if reply[0] == "v":
                _, text, type_name, askable = reply
                if askable != "1":
                    raise TypeError(f"{name}() returned a {type_name}, which has no canonical value")
                return read_canonical(text, type_name, max_chars=RPC_MAX_CHARS, max_items=RPC_MAX_ITEMS)
            _, error, message, memory = reply
            state["memory"] = state["memory"] or memory == "1"
            exc_type = getattr(builtins, error, None)
            if not (isinstance(exc_type, type) and issubclass(exc_type, Exception)):
                exc_type = RuntimeError
            raise exc_type(message)

        call.__name__ = call.__qualname__ = name
        return call

    try:
        hello = answers.frame(kinds=(_wire.RECORD,), max_bytes=1 << 20, max_fields=MAX_NAMES + 3)
    except (OSError, _wire.FrameError):
        hello = None
    if not (isinstance(hello, list) and len(hello) >= 3 and hello[0] in ("ok", "error")):
        verdict.update(candidate_died=True, detail="the candidate process died before answering")
    elif hello[0] == "error":
        verdict.update(candidate_error=hello[1], memory=hello[2] == "1", detail=hello[1])
    else:
        namespace = {"__name__": "__test__", "__builtins__": builtins}
        for name in hello[3:]:
            # never let the candidate shadow a builtin the test relies on (abs, isinstance, len...)
            if name.isidentifier() and name not in builtins.__dict__:
                namespace[name] = remote(name)
        batch = _prefetch.plan(test, set(namespace) - {"__name__", "__builtins__"})
        if batch:
            try:
                _wire.write_all(calls, _wire.pack_pickle(("batch", batch)))
                state["owed"].extend((_wire.pack_pickle(("call", *entry)), entry) for entry in batch)
            except OSError:
                pass  # the candidate is gone: the first call says so
        try:
            exec(_compile_test(test), namespace)  # trusted: test text, in the tester process that runs no model code
            verdict["test_passed"] = True
        except _CandidateDied as exc:
            verdict.update(candidate_died=True, detail=str(exc))
        except BaseException as exc:  # noqa: BLE001
            verdict["detail"] = describe(exc)
        verdict["memory"] = state["memory"]
    return verdict


def serve_tests() -> None:
    """Role of the persistent test child (fds: 0-2 null, 3 control socket to the zygote).

    Each job is a message ``{"id"}`` carrying, as ``SCM_RIGHTS``, the candidate's reply and
    call pipes, the test's memfd and the host's verdict pipe. Started once per zygote (and
    again after a time-out), so a test costs one fork (the candidate's), not two."""
    _linux.prctl(_linux.PR_SET_NAME, TESTER_NAME)
    control = socket.socket(fileno=3)
    while True:
        try:
            job, fds = _wire.recv_message(control)
        except _wire.FrameError:
            os._exit(74)
        if job is None:
            os._exit(0)
        if len(fds) != 4:
            os._exit(74)
        replies, calls, test_fd, verdict_fd = fds
        try:
            test = _wire.read_file(test_fd, _MAX_TEST_BYTES).decode("utf-8", "replace")
            verdict = _test_once(test, replies, calls)
            _wire.write_all(verdict_fd, _wire.pack_json(verdict))
        except OSError:
            pass
        finally:
            for fd in fds:
                os.close(fd)
        _wire.send_message(control, _wire.pack_json({"id": job.get("id")}))


