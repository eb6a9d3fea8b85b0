"""Traces of untrusted code: made in a sandboxed child, assembled in the host (``docs/sandbox.md``,
"Traces of untrusted code").

The child (trace mode of :mod:`~execverify_data.sandbox._zygote`, descriptors as in call mode: 1
stdout, 2 stderr, 3 the stream to the host, 4 the secret, 5 the request: the code, ``"0"``, one
call) traces the call with :func:`execverify_data.trace.trace_call` and a :class:`StreamingRecorder`,
which writes each line event to the host *as it happens* and keeps none: what the program can
reach afterwards (the recorder, its frames) is not the record, and what was written cannot be
taken back. The stream is a sequence of records (:mod:`~execverify_data.sandbox._wire`):

``["L", frame, function, depth, line]``
    a line starts in a traced frame (its occurrence number is counted by the host);
``["S", frame, name, text, type, askable, reason, ...]`` or ``["=", frame]``
    the frame's locals after its last line (``=``: the same as that frame's previous state);
``["X", event, detail]``
    the program did what a function of its arguments has no reason to do (:data:`REFUSED`:
    reach the interpreter's frames or objects, open a file, import a module, start a process...),
    seen by an audit hook that cannot be removed; the act is refused and the trace is worthless;
``["E", status, output text, type, askable, reason, exception type, message, stdout, python]``
    the end, written after the call.

:func:`assemble` builds the :class:`~execverify_data.trace.Trace` from the stream and checks it as
it goes: a frame whose state comes twice or before its line, a line outside the program, more
events than the step budget, a missing or second end, or a record whose MAC does not check make the trace
``crashed`` (``ExceptionInfo("SandboxStream", why)``); a refusal makes it ``crashed`` with
``ExceptionInfo("SandboxRefused", what)``. Every record but ``X`` ends with a MAC keyed by the
job's key (read from descriptor 4 and closed before the program runs; held by the recorder alone)
and chained over the records before it: a record the program writes, drops or moves fails the
host's check (``docs/sandbox.md``, "Traces of untrusted code", says what keeps the recorder out of
the program's reach, and what does not).
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import sys
import sysconfig

from execverify_data.errors import ProgramError
from execverify_data.sandbox import _wire
from execverify_data.trace import (
    _CO_GENERATOR_LIKE,
    ExceptionInfo,
    Status,
    Trace,
    _new_event,
    _Recorder,
    trace_call,
)
from execverify_data.values import CanonicalValue

__all__ = ["REFUSED", "SandboxStreamError", "StreamingRecorder", "assemble", "run_trace"]

_RESULT_FD, _SECRET_FD, _REQUEST_FD = 3, 4, 5
_MAX_REQUEST_BYTES = 64 * 1024 * 1024
#: Audit events (``sys.addaudithook``) a traced program is refused, by prefix: the interpreter's own
#: frames and objects (what would reach the tracer), native code, files, imports of modules outside
#: the standard library, processes, the network, the clock's sleep. A module of the standard library
#: may be imported, by the program or lazily by Python itself (a codec, ``_strptime``): reading the
#: interpreter's own files for it (:func:`_python_file`) is allowed.
REFUSED = ("sys._getframe", "sys._current_frames", "sys.setprofile", "sys.addaudithook", "gc.", "ctypes.",
           "open", "import", "os.", "subprocess.", "socket.", "shutil.", "glob.", "tempfile.", "pty.", "fcntl.",
           "mmap.", "resource.", "signal.", "urllib.", "http.", "ftplib.", "smtplib.", "webbrowser.", "sqlite3.",
           "syslog.", "time.sleep", "code.__new__", "function.__new__", "sys.monitoring")
#: Attributes (audit event ``object.__getattr__``) that hand out a frame.
_FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|<(listcomp|dictcomp|setcomp|genexpr|lambda|module)>")
_VERSION = re.compile(r"\d+\.\d+\.\d+[A-Za-z0-9+]*")
# bound at import, in the zygote: a program that patches ``_wire`` in its child cannot reroute the stream
_pack, _write = _wire.pack_record, _wire.write_all
_blake2b = hashlib.blake2b


class SandboxStreamError(ValueError):
    """What a traced child sent is not a trace of its request."""


# --------------------------------------------------------------------------- the child's side


def _no_tracer():  # pragma: no cover - runs in the sandboxed child
    """``sys.gettrace`` in a traced child: the real one would hand the program its recorder."""
    return


def _python_file(path) -> bool:
    """Whether ``path`` (a str) names a file or folder of the interpreter's own installation."""
    if not isinstance(path, str) or not path.startswith("/"):
        return False
    path = os.path.normpath(path)
    return any(path == d or path.startswith(d + "/") for d in _PYTHON_DIRS)


def _stdlib_module(name) -> bool:
    top = name.split(".")[0] if isinstance(name, str) else ""
    return top in sys.stdlib_module_names and not top.startswith("_test")


_PYTHON_DIRS = tuple(sorted({os.path.normpath(p) for p in (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"],
                                                             os.path.dirname(os.__file__))}))
_READ_ONLY = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _refuse(event: str, args) -> None:  # pragma: no cover - runs in the sandboxed child
    """The audit hook: stateless (nothing a program could switch off), it writes the refusal to the
    stream before anything else happens and raises into the act."""
    if event == "object.__getattr__":
        if len(args) < 2 or args[1] not in _FRAME_ATTRIBUTES:
            return
        detail = f"read .{args[1]}"
    elif event == "import" and args and _stdlib_module(args[0]) or event == "open" and len(args) >= 3 and _python_file(args[0]) and (args[1] in (None, "r", "rb")) \
            and not (isinstance(args[2], int) and args[2] & _READ_ONLY) or event in ("os.listdir", "os.scandir") and args and _python_file(args[0]):
        return
    elif event.startswith(REFUSED):
        detail = event if event != "import" or not args else f"import {args[0]}"
    else:
        return
    try:
        _wire.write_all(_RESULT_FD, _wire.pack_record(["X", event, str(detail)[:200]]))
    finally:
        raise RuntimeError(f"refused in the sandbox: {detail}")


def _preimport(code: str) -> None:  # pragma: no cover - runs in the sandboxed child
    """Import the modules ``code`` names in its import statements, before the audit hook refuses new
    imports: a function may use the standard library (its modules' code is not the program's)."""
    import ast
    import importlib

    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
        for name in names:
            try:
                importlib.import_module(name)
            except BaseException:  # noqa: BLE001 - the program's own import fails as it would
                pass


def _namedtuple_without_a_frame() -> None:  # pragma: no cover - runs in the sandboxed child
    """``collections.namedtuple`` reads its caller's frame for the module to name (``sys._getframe``, refused
    here): a module of records (``Member = namedtuple("Member", "name joined")``) would stop before its first call.
    A program runs as ``__main__`` (:func:`~execverify_data.trace.trace_call`), the name that read gives; it is
    passed instead, so the class is the one an unsandboxed run makes and no frame is handed out."""
    collections = sys.modules.get("collections")
    if collections is None:
        return
    made = collections.namedtuple

    def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
        return made(typename, field_names, rename=rename, defaults=defaults,
                    module="__main__" if module is None else module)

    namedtuple.__doc__ = made.__doc__
    collections.namedtuple = namedtuple


def _mac(key: bytes, chain: bytes, body: bytes) -> bytes:
    return _blake2b(chain + body, key=key, digest_size=16).digest()


class StreamingRecorder(_Recorder):
    """A recorder that writes every line event and every after-state to the stream as it happens and
    keeps none (see the module docs); the occurrence numbers are counted by the host. Each record
    ends with a MAC keyed by the job's key, chained over the records before it: a record the
    program wrote itself, or one it left out or moved, fails the host's check."""

    alarm = False  # a SIGALRM handler would hold the recorder where a program can ask for it

    def __init__(self, max_steps: int, deadline: float | None, *, key: bytes):
        super().__init__(max_steps, deadline)
        self.steps = 0
        self.key, self.chain = key, b""

    def started(self, max_steps: int, deadline: float | None) -> StreamingRecorder:
        """This recorder, as :func:`~execverify_data.trace.trace_call` makes its recorder (it is made
        before, so that the end record is signed in the same chain)."""
        self.max_steps, self.deadline = max_steps, deadline
        return self

    def sign(self, fields: list[str]) -> bytes:  # pragma: no cover - runs in the sandboxed child
        body = _pack(fields)
        self.chain = _mac(self.key, self.chain, body)
        fields.append(self.chain.hex())
        return _pack(fields)

    def state(self, record, frame) -> bytes:  # pragma: no cover - runs in the sandboxed child
        before = record.last
        state = self.snapshot(record, frame)
        if state is before:
            return self.sign(["=", str(record.id)])
        fields = ["S", str(record.id)]
        for name, value in state.items():
            fields += [name, value.text, value.type, "1" if value.askable else "0", value.reason or ""]
        return self.sign(fields)

    def on_event(self, frame, event, arg):  # pragma: no cover - runs in the sandboxed child
        if event == "line":
            steps = self.steps
            if steps >= self.checkpoint:
                self.limit(frame, steps)
            self.steps = steps + 1
            record = self.stack[-1]
            data = self.state(record, frame) if record.pending is not None else b""
            record.pending = True
            _write(_RESULT_FD, data + self.sign(["L", str(record.id), record.function, str(record.depth),
                                                 str(frame.f_lineno)]))
        elif event == "return":
            record = self.stack.pop()
            if record.pending is not None:
                record.pending = None
                _write(_RESULT_FD, self.state(record, frame))
            if not frame.f_code.co_flags & _CO_GENERATOR_LIKE:
                del self.frames[frame]
        return self.local

    def stop(self, status: Status, frame) -> None:  # pragma: no cover - runs in the sandboxed child
        if self.stopped is not None:
            return
        self.stopped = status
        sys.settrace(None)
        live = {record: None for record in self.stack}
        for frame_object, record in list(self.frames.items()):
            if record.pending is not None and record in live:
                try:
                    data = self.state(record, frame_object)
                except Exception:  # noqa: BLE001 - a frame being torn down
                    data = self.sign(["S", str(record.id)])
                record.pending = None
                _write(_RESULT_FD, data)

    def build_events(self) -> tuple:
        return ()


def run_trace() -> None:  # pragma: no cover - runs in the sandboxed child
    """Role of the child in trace mode (see the module docs). ``max_steps`` and ``timeout`` come in
    the request after the call, so the zygote never reads a request's content."""
    fields = _wire.decode(_wire.read_file(_REQUEST_FD, _MAX_REQUEST_BYTES), kinds=(_wire.RECORD,),
                          max_bytes=_MAX_REQUEST_BYTES, max_fields=5)
    os.close(_REQUEST_FD)
    code, call, max_steps, timeout = fields[0], fields[2], int(fields[3]), float(fields[4])
    key = os.read(_SECRET_FD, 64)  # the MAC key: held by the recorder only, which no program can ask for
    os.close(_SECRET_FD)
    recorder = StreamingRecorder(max_steps, None, key=key)
    del key
    _preimport(code)
    _namedtuple_without_a_frame()
    sys.gettrace = _no_tracer  # it would hand the program the recorder (trace_call keeps its own reference)
    sys.addaudithook(_refuse)
    try:
        trace = trace_call(code, call, max_steps=max_steps, timeout=timeout, recorder=recorder.started)
        output, exception = trace.output, trace.exception
        end = [trace.status.value, *(("", "", "", "") if output is None else
                                     (output.text, output.type, "1" if output.askable else "0", output.reason or "")),
               *(("", "") if exception is None else (exception.type, exception.message)), trace.stdout]
    except ProgramError as exc:
        end = ["crashed", "", "", "", "", "ProgramError", str(exc)[:2000], ""]
    sys.settrace(None)
    sys.stdout.flush()
    try:
        _wire.write_all(_RESULT_FD, recorder.sign(["E", *end, platform.python_version()]))
    except BaseException:  # noqa: BLE001
        os._exit(72)
    os._exit(0)


# --------------------------------------------------------------------------- the host's side


def _value(text: str, kind: str, askable: str, reason: str) -> CanonicalValue:
    if askable not in ("0", "1"):
        raise SandboxStreamError(f"an askable flag of {askable[:10]!r}")
    return CanonicalValue(text, kind, askable == "1", reason or None)


def assemble(data: bytes, key: str, source: str, *, max_steps: int) -> Trace:
    """The :class:`~execverify_data.trace.Trace` a traced child's stream ``data`` describes (see the
    module docs); a stream that breaks the protocol gives a ``crashed`` trace saying why."""
    try:
        return _assemble(data, key.encode("ascii"), source.count("\n") + 1, max_steps)
    except SandboxRefused as exc:
        return Trace(Status.CRASHED, exception=ExceptionInfo("SandboxRefused", str(exc)))
    except (SandboxStreamError, _wire.FrameError) as exc:
        return Trace(Status.CRASHED, exception=ExceptionInfo("SandboxStream", str(exc)[:500]))


class SandboxRefused(Exception):
    """The traced program did something it is refused (``X`` record)."""


def _assemble(data: bytes, key: bytes, n_lines: int, max_steps: int) -> Trace:
    events: list[list] = []
    pending: dict[int, list] = {}  # frame -> its event waiting for the after-state
    last: dict[int, dict] = {}  # frame -> its last state
    counts: dict[int, int] = {}
    end = None
    chain = b""
    for fields in _wire.records(data, max_bytes=len(data) + 1, max_fields=1 << 22):
        kind = fields[0] if fields else ""
        if kind == "X" and len(fields) == 3:  # the audit hook's: unsigned (it holds no key), and fatal anyway
            raise SandboxRefused(f"{fields[2][:200]} (audit event {fields[1][:80]})")
        if end is not None:
            raise SandboxStreamError("records after the end")
        if len(fields) < 2:
            raise SandboxStreamError("a record without its MAC")
        chain = _mac(key, chain, _pack(fields[:-1]))
        if fields.pop() != chain.hex():
            raise SandboxStreamError(f"a record of kind {kind[:10]!r} the tracer did not write (its MAC does not check)")
        if kind == "E":
            end = fields
            continue
        if kind not in ("L", "S", "=") or len(fields) < 2 or not fields[1].isdigit() or len(fields[1]) > 9:
            raise SandboxStreamError(f"a record of kind {kind[:10]!r} with {len(fields)} fields")
        frame = int(fields[1])
        if kind == "L":
            if len(fields) != 5 or not _NAME.fullmatch(fields[2]) or not fields[3].isdigit() or not fields[4].isdigit():
                raise SandboxStreamError("a line record that is not (frame, function, depth, line)")
            line = int(fields[4])
            if frame in pending:
                raise SandboxStreamError(f"frame {frame} started a line before its last one ended")
            if not 1 <= line <= n_lines:
                raise SandboxStreamError(f"line {line} is not a line of the program")
            if len(events) >= max_steps:
                raise SandboxStreamError(f"more than {max_steps} line events")
            occurrence = counts[line] = counts.get(line, 0) + 1
            pending[frame] = event = [fields[2], frame, int(fields[3]), line, occurrence, None]
            events.append(event)
            continue
        event = pending.pop(frame, None)
        if event is None:
            raise SandboxStreamError(f"a state of frame {frame}, which has no line waiting for one")
        if kind == "=":
            if len(fields) != 2 or frame not in last:
                raise SandboxStreamError(f"frame {frame} repeats a state it never gave")
            event[5] = last[frame]
            continue
        if (len(fields) - 2) % 5:
            raise SandboxStreamError("a state record whose fields are not (name, text, type, askable, reason)")
        state = {}
        for i in range(2, len(fields), 5):
            if not _NAME.fullmatch(fields[i]) or fields[i] in state:
                raise SandboxStreamError(f"a local named {fields[i][:40]!r}")
            state[fields[i]] = _value(*fields[i + 1:i + 5])
        event[5] = last[frame] = state
    if end is None:
        raise SandboxStreamError("the stream has no end record")
    if len(end) != 10:
        raise SandboxStreamError(f"an end record of {len(end)} fields")
    status_text, out, exc_type, exc_message, stdout, python = end[1], end[2:6], end[6], end[7], end[8], end[9]
    try:
        status = Status(status_text)
    except ValueError:
        raise SandboxStreamError(f"an end of status {status_text[:20]!r}") from None
    if not _VERSION.fullmatch(python):
        raise SandboxStreamError(f"an interpreter version {python[:20]!r}")
    output = _value(*out) if status is Status.OK else None
    if (status is Status.OK and exc_type) or (status is Status.EXCEPTION and not exc_type.isidentifier()):
        raise SandboxStreamError(f"an end of status {status.value} with exception {exc_type[:40]!r}")
    exception = ExceptionInfo(exc_type, exc_message) if exc_type else None
    for event in pending.values():  # a frame never left (tracing stopped): no after-state
        event[5] = {}
    trace = Trace(status, tuple(map(_new_event, events)), output, exception, python, stdout)
    return trace
