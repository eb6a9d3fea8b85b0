"""What a candidate child runs: the untrusted code, then its calls (call mode) or the tester's
calls (test mode); and the zygote's start-up probe. Forked from the zygote and confined first
(:func:`execverify_data.sandbox._zygote._confine`); see ``docs/sandbox.md``, "Process model".

Descriptors of a child in call mode: 0 stdin (or ``/dev/null``), 1 stdout, 2 stderr (memfds),
3 the result pipe to the host, 4 the secret pipe from the host, 5 the request memfd (a record:
the code, ``"1"`` to run it as a script, the calls). It writes one *record* (``_wire``) on fd 3:
the secret (read only after the code and the calls ran), its error, and five fields per call.

In test mode: 3 the calls from the tester, 4 the answers to it, 5 the request memfd.
"""

from __future__ import annotations

import builtins
import operator
import os
import pickle
import sys
import time

from execverify_data.sandbox import _wire

# Values crossing between the test child and the candidate child may be large (tests with big inputs).
RPC_MAX_CHARS = 16 * 1024 * 1024
RPC_MAX_ITEMS = 2_000_000
RPC_MAX_BYTES = 4 * RPC_MAX_CHARS + 4096
MAX_NAMES = 10_000
_MAX_REQUEST_BYTES = 64 * 1024 * 1024
_RESULT_FD, _SECRET_FD, _REQUEST_FD = 3, 4, 5
_CALLS_IN_FD, _REPLIES_OUT_FD = 3, 4
_PRISTINE_BUILTINS = dict(builtins.__dict__)  # taken in the zygote: a child restores it after the completion ran
_PRISTINE_VALUES = tuple(_PRISTINE_BUILTINS.values())
#: Modules the start-up probe imports in a confined child (none is pre-imported): standard
#: library, pure Python and C extensions.
PROBE_MODULES = ("random", "email.mime.text", "decimal")


def describe(exc: BaseException) -> str:
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001 - a hostile __str__
        message = "<unprintable>"
    return f"{type(exc).__name__}: {message[:500]}" if message else type(exc).__name__


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001
            pass


def _read_request() -> dict:
    """The job's request (``{"code", "calls", "script"}``), from the memfd on fd 5, which is then closed.

    It is a record (code, script flag, calls...): reading one runs a few lines of ``_wire``, where
    JSON would run the ``json`` and ``re`` machinery, each page of which a child touches is a
    copy-on-write fault."""
    fields = _wire.decode(_wire.read_file(_REQUEST_FD, _MAX_REQUEST_BYTES), kinds=(_wire.RECORD,),
                          max_bytes=_MAX_REQUEST_BYTES, max_fields=_MAX_REQUEST_BYTES)
    os.close(_REQUEST_FD)
    return {"code": fields[0], "script": fields[1] == "1", "calls": fields[2:]}


def _exec_completion(code: str, script: bool = False):
    """Run the untrusted code; return its namespace and ``"Type: message"`` of its failure, if any.

    As a ``script`` it runs as ``__main__``, and ``sys.exit()`` / ``sys.exit(0)`` end it without error."""
    namespace = {"__name__": "__main__" if script else "__sandbox__", "__builtins__": builtins}
    try:
        exec(compile(code, "<completion>", "exec"), namespace)  # trusted: inside the sandboxed child, its purpose
    except SystemExit as exc:
        if not (script and exc.code in (None, 0)):
            return namespace, describe(exc), False
    except BaseException as exc:  # noqa: BLE001 - the completion's own failure
        return namespace, describe(exc), isinstance(exc, MemoryError)
    return namespace, None, False


def _restore_builtins() -> None:
    """Put back the builtins the zygote had. Most completions change none: the check compares the
    values in place (a C loop over them), without touching the names, whose objects lie all over
    the zygote's memory (each page a child touches is a copy-on-write fault)."""
    current = builtins.__dict__
    if len(current) == len(_PRISTINE_VALUES) and all(map(operator.is_, current.values(), _PRISTINE_VALUES)):
        return
    for key in [k for k in current if k not in _PRISTINE_BUILTINS]:
        del current[key]
    current.update(_PRISTINE_BUILTINS)


def run_calls() -> None:
    """Role of the child in call mode (fds: 0 stdin or null, 1 out, 2 err, 3 result, 4 secret, 5 request)."""
    from execverify_data.values import encode

    request = _read_request()
    namespace, error, memory = _exec_completion(request["code"], request["script"])
    returned = []
    if error is None:
        for expr in request["calls"]:
            try:
                returned.append((True, eval(compile(expr, "<call>", "eval"), namespace)))  # trusted: sandboxed child
            except BaseException as exc:  # noqa: BLE001
                memory = memory or isinstance(exc, MemoryError)
                returned.append((False, exc))
    # the harness's own work runs with the builtins and hooks the completion may have replaced restored
    sys.settrace(None)
    sys.setprofile(None)
    _restore_builtins()
    fields = ["", "1" if error else "0", error or "", "1" if memory else "0"]
    for ok, item in returned:
        if ok:
            value = encode(item)
            fields += ["v", value.text, value.type, "1" if value.askable else "0", value.reason or ""]
        else:
            fields += ["e", type(item).__name__, describe(item), "", ""]
    _flush_std()
    try:
        fields[0] = os.read(_SECRET_FD, 64).decode("ascii")
        _wire.write_all(_RESULT_FD, _wire.pack_record(fields))
    except BaseException:  # noqa: BLE001
        os._exit(72)
    os._exit(0)


def serve_candidate() -> None:
    """Role of the candidate child in test mode (fds: see the module docs).

    Runs the untrusted code, then answers calls from the tester, one at a time or a batch
    of them in order: arguments arrive pickled (the tester is trusted), results leave as
    canonical text in record frames."""
    from execverify_data.values import encode

    namespace, error, memory = _exec_completion(_read_request()["code"])
    names = sorted(k for k, v in namespace.items() if not k.startswith("__") and callable(v))[:MAX_NAMES]
    _flush_std()
    _wire.write_all(_REPLIES_OUT_FD, _wire.pack_record(["error" if error else "ok", error or "",
                                                        "1" if memory else "0", *names]))
    calls = _wire.Reader(_CALLS_IN_FD)
    while True:
        try:
            message = calls.frame(kinds=(_wire.PICKLE,), max_bytes=RPC_MAX_BYTES, pickle_loads=pickle.loads)
        except _wire.FrameError:
            os._exit(74)
        if message is None:
            os._exit(0)
        # ("call", name, args, kwargs), or ("batch", [(name, args, kwargs), ...]): answered in order, the
        # answers of a batch written together (at least every 20 ms, so a slow call does not hold the others)
        pending: list[bytes] = []
        since = time.monotonic()
        for name, args, kwargs in ([message[1:]] if message[0] == "call" else message[1]):
            try:
                value = encode(namespace[name](*args, **kwargs), max_chars=RPC_MAX_CHARS)
                reply = ["v", value.text, value.type, "1" if value.askable else "0"]
            except BaseException as exc:  # noqa: BLE001
                reply = ["e", type(exc).__name__, describe(exc), "1" if isinstance(exc, MemoryError) else "0"]
            pending.append(_wire.pack_record(reply))
            if time.monotonic() - since > 0.02:
                _flush_std()
                _wire.write_all(_REPLIES_OUT_FD, b"".join(pending))
                pending, since = [], time.monotonic()
        _flush_std()
        _wire.write_all(_REPLIES_OUT_FD, b"".join(pending))


def probe_imports(sites: list[str]) -> None:
    """Role of the start-up probe (fds: 0 null, 1 null, 2 null, 3 report): import modules the
    zygote did not pre-import and list the site directories, as a candidate would."""
    import importlib

    try:
        for name in PROBE_MODULES:
            importlib.import_module(name)
        for site in sites:
            os.listdir(site)
    except BaseException as exc:  # noqa: BLE001 - reported to the host
        _wire.write_all(3, describe(exc).encode("utf-8", "replace"))
        os._exit(1)
    os._exit(0)


