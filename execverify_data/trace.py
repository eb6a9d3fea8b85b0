"""The execution tracer: run one call of a program and record every line it executes.

:func:`trace_call` compiles a program, reads the call's arguments as literals
(with :func:`execverify_data.values.parse_call`, never ``eval``), runs the call
under ``sys.settrace`` and returns a frozen :class:`Trace`: one :class:`Event`
per line event in the program's own code, each with the state of that frame's
locals *after* the line finished, plus the return value, the exception and a
:class:`Status`. ``docs/tracing.md`` defines the semantics and lists how they
differ from REval's tracer and between Python versions.

In-process tracing is for trusted programs only. Synthesized programs and
benchmark data go through :class:`execverify_data.sandbox.trusted.TrustedRunner`,
which adds a hard wall-clock kill, a memory limit and a fixed hash seed.

>>> t = trace_call("def f(x):\\n    y = x + 1\\n    return y * 2\\n", "f(3)")
>>> t.status.value, t.output.text
('ok', '8')
>>> [(e.line, e.occurrence, {k: v.text for k, v in e.locals.items()}) for e in t.events]
[(2, 1, {'x': '3', 'y': '4'}), (3, 1, {'x': '3', 'y': '4'})]
>>> t.next_line(2, 1), t.next_line(3, 1), t.state_after(2, 1, "y").text
(3, -1, '4')
"""

from __future__ import annotations

import ast
import builtins
import enum
import functools
import io
import platform
import signal
import sys
import threading
import time
from dataclasses import dataclass
from operator import is_
from types import CodeType, FrameType
from typing import Any, Mapping, NamedTuple

from execverify_data import values
from execverify_data.errors import AnswerError, InvalidArgument, ProgramError, check_int
from execverify_data.values import CanonicalValue, encode

__all__ = ["DEFAULT_MAX_STEPS", "DEFAULT_TIMEOUT", "PROGRAM_FILENAME", "Event", "ExceptionInfo", "Status", "Trace",
           "compile_program", "trace_call", "trusted_arguments"]

#: Default budget of line events per trace.
DEFAULT_MAX_STEPS = 100_000
#: Default wall-clock budget of one call, in seconds.
DEFAULT_TIMEOUT = 5.0
#: Filename the program is compiled under; only code with this filename is traced.
PROGRAM_FILENAME = "<execverify-program>"
#: Longest captured standard output kept in a trace, in characters.
MAX_STDOUT_CHARS = 65_536

_CALL_FILENAME = "<execverify-call>"
_CO_GENERATOR_LIKE = 0x20 | 0x80 | 0x200  # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR
# Types whose objects cannot change: a local bound to the same object as at the
# previous event of its frame keeps its previous CanonicalValue.
_IMMUTABLE_SCALARS = frozenset({int, float, str, bool, type(None), bytes, complex, range})
_PYTHON = platform.python_version()


class Status(str, enum.Enum):
    """How a traced call ended: ``ok`` (``Trace.output`` holds the value), ``exception`` (``Trace.exception`` says
    what), ``step_limit`` (more than ``max_steps`` lines), ``timeout`` (longer than ``timeout`` seconds), or
    ``crashed``: no complete trace exists. From :func:`trace_call`: tracing was switched off before the call ended
    (a trace callback failed, usually with a RecursionError when the program recursed to the limit, or the program
    called ``sys.settrace``). From :mod:`execverify_data.sandbox.trusted`: the process running the call died
    without a result (``os._exit``, a signal, memory exhaustion outside Python's control). ``exception`` says which.
    """

    OK = "ok"
    EXCEPTION = "exception"
    STEP_LIMIT = "step_limit"
    TIMEOUT = "timeout"
    CRASHED = "crashed"


@dataclass(frozen=True)
class ExceptionInfo:
    """An exception that left the traced call: its type name and ``str()`` message."""

    type: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"type": self.type, "message": self.message}


class Event(NamedTuple):
    """One line event in the program's code, with the frame's state after the line.

    Args:
        function (`str`): ``co_name`` of the frame: ``'f'``, ``'<listcomp>'``, ``'<genexpr>'``, ``'<lambda>'``...
        frame (`int`): id of the call, unique within the trace (0 is the entry call); a generator keeps its id.
        depth (`int`): number of traced frames below this one on the stack (0 for the entry call).
        line (`int`): 1-based line number in the program source.
        occurrence (`int`): k in "the k-th execution of line N", over the whole trace (all frames), from 1.
        locals (`Mapping[str, CanonicalValue]`): the frame's locals after the line finished
            (read-only by convention; events may share one mapping).

    An immutable named tuple (cheap to build: one per line event).
    """

    function: str
    frame: int
    depth: int
    line: int
    occurrence: int
    locals: Mapping[str, CanonicalValue]

    def to_json(self) -> dict[str, Any]:
        return {"function": self.function, "frame": self.frame, "depth": self.depth, "line": self.line,
                "occurrence": self.occurrence, "locals": {name: value.to_json() for name, value in self.locals.items()}}


@dataclass(frozen=True)
class Trace:
    """The record of one traced call (see ``docs/tracing.md`` for the exact semantics).

    Args:
        status (`Status`): how the call ended.
        events (`tuple[Event, ...]`): the line events, in execution order.
        output (`CanonicalValue`, optional): the return value when ``status`` is ``ok``.
        exception (`ExceptionInfo`, optional): the exception when ``status`` is ``exception``.
        python (`str`): the interpreter version that produced the trace, e.g. ``'3.11.7'``.
        stdout (`str`): what the program printed (at most ``MAX_STDOUT_CHARS`` characters).
    """

    status: Status
    events: tuple[Event, ...] = ()
    output: CanonicalValue | None = None
    exception: ExceptionInfo | None = None
    python: str = _PYTHON
    stdout: str = ""

    def lines_executed(self) -> frozenset[int]:
        """The line numbers with at least one event ("is line N executed")."""
        return frozenset(event.line for event in self.events)

    def occurrences(self, line: int) -> int:
        """How many times line ``line`` was executed, over all frames."""
        return sum(1 for event in self.events if event.line == line)

    def _index(self, line: int, k: int) -> int:
        if not isinstance(k, int) or k < 1:
            raise InvalidArgument(f"k counts executions from 1, got {k!r}")
        for index, event in enumerate(self.events):
            if event.line == line and event.occurrence == k:
                return index
        raise InvalidArgument(f"line {line} was executed {self.occurrences(line)} time(s), so it has no execution "
                              f"number {k}; check trace.occurrences(line) first")

    def event_at(self, line: int, k: int) -> Event:
        """The event of line ``line``'s ``k``-th execution (k from 1); raises InvalidArgument if none."""
        return self.events[self._index(line, k)]

    def next_line(self, line: int, k: int) -> int:
        """The line executed immediately after line ``line``'s ``k``-th execution, in any
        frame, or ``-1`` when no line of the program follows it.

        Raises:
            InvalidArgument: line ``line`` was not executed ``k`` times.
        """
        index = self._index(line, k)
        return self.events[index + 1].line if index + 1 < len(self.events) else -1

    def state_after(self, line: int, k: int, var: str) -> CanonicalValue | None:
        """The value of local ``var`` of the executing frame after line ``line``'s ``k``-th
        execution, or ``None`` when that frame has no bound local of that name then.

        Raises:
            InvalidArgument: line ``line`` was not executed ``k`` times.
        """
        return self.events[self._index(line, k)].locals.get(var)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: ``status``, ``output`` (``{"text","type"}`` or ``None``),
        ``exception`` (``{"type","message"}`` or ``None``), ``python``, ``stdout``, ``events``."""
        return {
            "status": self.status.value,
            "output": None if self.output is None else {"text": self.output.text, "type": self.output.type},
            "exception": None if self.exception is None else self.exception.to_json(),
            "python": self.python,
            "stdout": self.stdout,
            "events": [event.to_json() for event in self.events],
        }


# ---------------------------------------------------------------------- compiling and calls


def compile_program(source: str) -> CodeType:
    """Compile program text under :data:`PROGRAM_FILENAME`; a syntax error raises ProgramError.

    The last few code objects are kept (code objects are immutable and every call
    runs the module body afresh), so tracing one program on several inputs compiles it once.
    """
    if not isinstance(source, str):
        raise InvalidArgument(f"source must be a str, got {type(source).__name__}")
    code = _COMPILED.get(source)
    if code is None:
        try:
            code = compile(source, PROGRAM_FILENAME, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:  # ValueError: null bytes
            where = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
            raise ProgramError(f"the program does not compile: {exc.__class__.__name__}: {getattr(exc, 'msg', exc)}{where}") from None
        if len(_COMPILED) >= _COMPILED_KEPT:
            try:
                del _COMPILED[next(iter(_COMPILED))]  # the oldest
            except (KeyError, StopIteration, RuntimeError):  # another thread got there first
                pass
        _COMPILED[source] = code
    return code


_COMPILED: dict[str, CodeType] = {}
_COMPILED_KEPT = 8


def _literal_call(call: str) -> tuple[str, tuple, dict]:
    try:
        return values.parse_call(call)
    except AnswerError as exc:
        raise ProgramError(f"the call {call[:80]!r} is not a literal call ({exc}); for trusted benchmark data whose "
                           "arguments are expressions, pass trusted_call=True (CLI: --trusted-call)") from None


def trusted_arguments(call: str, namespace: dict) -> tuple[str, tuple, dict]:
    """Evaluate the arguments of ``call`` in the program's namespace (trusted data only)."""
    try:
        node = ast.parse(call.strip(), _CALL_FILENAME, mode="eval").body
    except SyntaxError as exc:
        raise ProgramError(f"the call {call[:80]!r} is not a Python expression: {exc.msg}") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ProgramError(f"the call {call[:80]!r} must call a function by name, such as f(1, 'a')")
    name = node.func.id
    node.func = ast.Name(id=values._PACK, ctx=ast.Load())
    code = compile(ast.fix_missing_locations(ast.Expression(body=node)), _CALL_FILENAME, "eval", dont_inherit=True)
    namespace[values._PACK] = values._pack  # lambdas in the call see the program's own globals
    try:
        args, kwargs = eval(code, namespace)  # trusted: benchmark call expressions, only with trusted_call=True
    finally:
        del namespace[values._PACK]
    return name, args, kwargs


# ---------------------------------------------------------------------- the recorder


_new_event = functools.partial(tuple.__new__, Event)  # skips the NamedTuple's Python-level __new__
_FLAT_CONTAINERS = (list, tuple, dict)
_SHAPE_LIMIT = 10_000
_NOT_CACHED = (object(), None, False)  # a cache entry whose object is no program's value


def _shape(value: Any):
    """What the snapshot cache compares at the next event: ``None`` for an immutable
    scalar or a tuple of immutable scalars (same object, same value); ``(elements,)``
    or ``(keys, values)`` copies for a list or dict of immutable scalars (same object
    and same elements, same value); ``False`` for anything else (always re-encoded)."""
    kind = type(value)
    if kind in _IMMUTABLE_SCALARS:
        return None
    if kind is tuple and set(map(type, value)) <= _IMMUTABLE_SCALARS:
        return None  # an immutable tuple of immutable scalars cannot change either
    if kind in _FLAT_CONTAINERS and len(value) <= _SHAPE_LIMIT:
        if kind is dict:
            if set(map(type, value)) <= _IMMUTABLE_SCALARS and set(map(type, value.values())) <= _IMMUTABLE_SCALARS:
                return (list(value), list(value.values()))
        elif set(map(type, value)) <= _IMMUTABLE_SCALARS:
            return (list(value),)
    return False


class _StepLimit(BaseException):
    """Raised into the program when it exceeds its step budget."""


class _Timeout(BaseException):
    """Raised into the program when it exceeds its wall-clock budget."""


class _Frame:
    __slots__ = ("id", "function", "depth", "pending", "cache", "last")

    def __init__(self, frame_id: int, function: str):
        self.id = frame_id
        self.function = function
        self.depth = 0
        self.pending: list | None = None  # the frame's last event, waiting for its after-state
        self.cache: dict[str, tuple[Any, CanonicalValue]] = {}
        self.last: dict[str, CanonicalValue] | None = None


class _Recorder:
    """sys.settrace callbacks that build events; one per traced call."""

    #: whether :func:`trace_call` arms a SIGALRM timer (which holds the recorder) for the deadline; without
    #: one, line events check the clock and the process's owner kills it (the sandbox's streaming recorder)
    alarm = True

    def __init__(self, max_steps: int, deadline: float | None):
        self.max_steps = max_steps
        self.deadline = deadline
        self.checkpoint = 0  # the next step count at which the limits are checked
        self.events: list[list] = []
        self.counts: dict[int, int] = {}
        self.stack: list[_Frame] = []
        self.frames: dict[FrameType, _Frame] = {}
        self.stopped: Status | None = None
        self.next_id = 0
        self.done = False  # the call is over: a late alarm must not raise
        self.local = self.on_event  # one bound method, returned at every event

    def snapshot(self, record: _Frame, frame: FrameType) -> dict[str, CanonicalValue]:
        """The frame's locals as canonical values, re-encoding only what may have changed.

        A local still bound to the same object as at the frame's previous snapshot keeps
        its CanonicalValue when the object is an immutable scalar, or a list, tuple or
        dict whose elements (keys and values) are immutable scalars and are still the
        very same objects in the same order.
        """
        cache = record.cache
        state: dict[str, CanonicalValue] = {}
        changed = False
        for name, value in frame.f_locals.items():
            cached, canonical, shape = cache.get(name, _NOT_CACHED)
            if cached is value:
                if shape is None or (shape and len(value) == len(shape[0]) and all(map(is_, value, shape[0]))
                                     and (len(shape) == 1 or all(map(is_, value.values(), shape[1])))):
                    state[name] = canonical
                    continue
            elif name[0] == ".":  # compiler-made locals such as a comprehension's ".0" (never cached)
                continue
            canonical = encode(value)
            cache[name] = (value, canonical, None if type(value) in _IMMUTABLE_SCALARS else _shape(value))
            state[name] = canonical
            changed = True
        last = record.last
        if not changed and last is not None and len(last) == len(state) and last == state:
            return last  # share one mapping between consecutive identical states
        record.last = state
        return state

    def on_call(self, frame: FrameType, event: str, arg: Any):
        if frame.f_code.co_filename != PROGRAM_FILENAME or self.stopped is not None:
            return None
        record = self.frames.get(frame)
        if record is None:
            record = _Frame(self.next_id, frame.f_code.co_name)
            self.next_id += 1
            self.frames[frame] = record
        stack = self.stack
        record.depth = len(stack)
        stack.append(record)
        return self.local

    def on_event(self, frame: FrameType, event: str, arg: Any):
        if event == "line":
            events = self.events
            steps = len(events)
            if steps >= self.checkpoint:  # every 64 steps, and at the step budget
                self.limit(frame, steps)
            record = self.stack[-1]
            pending = record.pending
            if pending is not None:
                pending[5] = self.snapshot(record, frame)
            line = frame.f_lineno
            counts = self.counts
            occurrence = counts[line] = counts.get(line, 0) + 1
            record.pending = pending = [record.function, record.id, record.depth, line, occurrence, None]
            events.append(pending)
        elif event == "return":
            record = self.stack.pop()
            pending = record.pending
            if pending is not None:
                pending[5] = self.snapshot(record, frame)
                record.pending = None
            if not frame.f_code.co_flags & _CO_GENERATOR_LIKE:
                del self.frames[frame]
        return self.local

    def limit(self, frame: FrameType, steps: int) -> None:
        """Called when ``steps`` reaches ``checkpoint``: stop the trace at the step budget or
        the deadline (raises into the program), else set the next checkpoint. The clock
        is read at every 64th step (0, 64, 128...)."""
        if steps >= self.max_steps:
            self.stop(Status.STEP_LIMIT, frame)
            raise _StepLimit
        if steps & 63 == 0 and self.deadline is not None and time.monotonic() > self.deadline:
            self.stop(Status.TIMEOUT, frame)
            raise _Timeout
        self.checkpoint = min((steps | 63) + 1, self.max_steps)

    def stop(self, status: Status, frame: FrameType | None) -> None:
        """Freeze the trace: pending events get their frame's locals as they are now."""
        if self.stopped is not None:
            return
        self.stopped = status
        sys.settrace(None)  # trace_call puts back the previous trace function
        live = {record: None for record in self.stack}
        for frame_object, record in list(self.frames.items()):
            if record.pending is not None and record in live:
                try:
                    record.pending[5] = self.snapshot(record, frame_object)
                except Exception:  # pragma: no cover - a frame being torn down
                    record.pending[5] = {}
                record.pending = None

    def build_events(self) -> tuple[Event, ...]:
        # An event still waiting for its after-state can only be the pending event of a
        # frame that was never left (tracing lost): those get an empty state.
        for record in self.frames.values():
            if record.pending is not None and record.pending[5] is None:
                record.pending[5] = {}
        return tuple(map(_new_event, self.events))


# ---------------------------------------------------------------------- trace_call


try:  # the C function behind signal.signal, without its enum conversions (10x faster)
    from _signal import signal as _set_signal_handler
except ImportError:  # pragma: no cover - not CPython
    _set_signal_handler = signal.signal


_HAS_TIMER = hasattr(signal, "setitimer")
if _HAS_TIMER:
    _SIGALRM = int(signal.SIGALRM)
    _ITIMER_REAL = signal.ITIMER_REAL
    _setitimer = signal.setitimer
#: Seconds between repeated SIGALRMs after the deadline, until the call has unwound.
_ALARM_REPEAT = 0.05
_main_thread = threading.main_thread
_get_ident = threading.get_ident
_monotonic = time.monotonic


def _drop_timeouts(previous, unraisable) -> None:
    """The unraisable hook while an alarm is armed: drops the alarm's own exception, passes on the rest."""
    if unraisable.exc_type is not _Timeout:
        previous(unraisable)


class _Alarm:
    """SIGALRM-based interruption (main thread only): works even when no trace event fires.

    The timer repeats every ``_ALARM_REPEAT`` seconds after the deadline and the
    handler raises while the call is running, so a raise that the interpreter
    drops (a handler that ran inside a finalizer) is repeated; once the call is
    over (``recorder.done``) a late signal does nothing, so it never escapes from
    :func:`trace_call`. A dropped raise is reported to ``sys.unraisablehook``
    ("Exception ignored in ..."): while armed, the hook drops the alarm's own
    exception and passes every other on to the hook that was set (pytest's,
    which formats it slowly enough for the next tick to land inside it and fail
    the test run). A timer and handler that were set before
    (pytest-timeout's, for instance) are put back afterwards, the timer with the
    time it had left.
    """

    __slots__ = ("recorder", "previous", "previous_timer", "previous_unraisable", "armed", "started")

    def __init__(self, seconds: float | None, recorder: _Recorder):
        self.recorder = recorder
        # The module-level aliases above spare a few attribute look-ups per call.
        self.armed = seconds is not None and _HAS_TIMER and _get_ident() == _main_thread().ident
        if self.armed:
            self.previous_unraisable = sys.unraisablehook
            sys.unraisablehook = functools.partial(_drop_timeouts, self.previous_unraisable)
            self.previous = _set_signal_handler(_SIGALRM, self.on_alarm)
            self.started = _monotonic()
            self.previous_timer = _setitimer(_ITIMER_REAL, max(seconds, 1e-3), _ALARM_REPEAT)

    def on_alarm(self, signum, frame):
        recorder = self.recorder
        if recorder.done:
            return
        recorder.stop(Status.TIMEOUT, frame)  # no-op when already stopped
        # Raised again at every tick until the call has unwound: an exception raised
        # from a signal handler is lost when the handler happens to run inside a
        # finalizer or a gc callback ("Exception ignored in ..."), and a lost raise
        # would leave the program running with tracing already switched off.
        raise _Timeout

    def disarm(self) -> None:
        self.recorder.done = True
        if self.armed:
            self.armed = False
            _setitimer(_ITIMER_REAL, 0)
            _set_signal_handler(_SIGALRM, self.previous)
            sys.unraisablehook = self.previous_unraisable
            left, interval = self.previous_timer
            if left > 0:
                left = max(left - (_monotonic() - self.started), 1e-3)
                _setitimer(_ITIMER_REAL, left, interval)


def _gettrace(gettrace=sys.gettrace):
    """``sys.gettrace()``, through a reference held where only an audited read finds it (``__defaults__``):
    the sandbox's traced child replaces ``sys.gettrace``, which would hand a program its recorder."""
    return gettrace()


class _Capped(io.StringIO):
    def write(self, text: str) -> int:
        if self.tell() < MAX_STDOUT_CHARS:
            super().write(text[: MAX_STDOUT_CHARS - self.tell()])
        return len(text)


def trace_call(source: str, call: str, *, trusted_call: bool = False, max_steps: int = DEFAULT_MAX_STEPS,
               timeout: float | None = DEFAULT_TIMEOUT, recorder: type[_Recorder] = _Recorder) -> Trace:
    """Run ``call`` against ``source`` in this process and record its execution.

    The module body of ``source`` runs first, untraced (it defines the functions);
    then the call runs with every line event of the program's own code recorded.

    Args:
        source (`str`): the program text.
        call (`str`): a call such as ``"f([1, 2], 'a', k=3)"``; its arguments must be
            literals that :func:`execverify_data.values.parse` accepts.
        trusted_call (`bool`, optional, defaults to `False`): evaluate the call's arguments
            as expressions in the program's namespace. Only for trusted benchmark data.
        max_steps (`int`, optional, defaults to `DEFAULT_MAX_STEPS`): most line events;
            one more gives status ``step_limit``.
        timeout (`float`, optional, defaults to `DEFAULT_TIMEOUT`): seconds of wall clock
            for the module body and the call; ``None`` for no limit. In the main thread a
            SIGALRM timer interrupts even loops that emit no trace event; elsewhere only
            line events check the clock. Use the trusted runner for a hard kill.
        recorder (`type`, optional): the class that records the events; the untrusted sandbox's
            streams them out of the traced process instead of keeping them
            (:mod:`execverify_data.sandbox._tracing`), and the trace returned then has none.

    Returns:
        `Trace`: frozen.

    Raises:
        ProgramError: the program does not compile, the call is not a literal call (and
            ``trusted_call`` is false), or the called name is not a function of the program.
        InvalidArgument: an option has the wrong type or range.

    >>> trace_call("def f(n):\\n    return [i for i in range(n)]\\n", "f(2)").output.text
    '[0, 1]'
    >>> trace_call("def f(n):\\n    return n\\n", "f(len([1]))")
    Traceback (most recent call last):
    ...
    execverify_data.errors.ProgramError: the call 'f(len([1]))' is not a literal call (...); for trusted benchmark data whose arguments are expressions, pass trusted_call=True (CLI: --trusted-call)
    """
    if not isinstance(call, str):
        raise InvalidArgument(f"call must be a str such as \"f(1, 'a')\", got {type(call).__name__}")
    check_int("max_steps", max_steps)
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
        raise InvalidArgument(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    code = compile_program(source)
    if not trusted_call:
        name, args, kwargs = _literal_call(call)

    deadline = None if timeout is None else time.monotonic() + timeout
    recorder = recorder(max_steps, deadline)
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    stdout = _Capped()
    output = exception = None
    status = Status.OK
    saved_stdout, sys.stdout = sys.stdout, stdout  # the program's prints go to the trace
    alarm = _Alarm(timeout if recorder.alarm else None, recorder)
    try:
        try:
            exec(code, namespace)  # trusted: the program under trace (trusted code; untrusted code uses sandbox.untrusted)
            if trusted_call:
                name, args, kwargs = trusted_arguments(call, namespace)
            function = namespace.get(name)
            if not callable(function):
                raise ProgramError(f"the program defines no function named {name!r} to call")
        except ProgramError:
            raise
        except _Timeout:
            return Trace(Status.TIMEOUT, stdout=stdout.getvalue())
        except BaseException as exc:  # noqa: BLE001 - the program's own failure at definition time
            raise ProgramError(f"the program failed before the call: {type(exc).__name__}: {exc}") from None
        tracer = recorder.on_call
        previous_tracer = _gettrace()  # e.g. coverage's: put back afterwards
        lost = None
        try:
            sys.settrace(tracer)
            try:
                result = function(*args, **kwargs)
            finally:
                while True:  # the alarm raises again at every tick until this is done: finish it whatever happens
                    try:
                        if lost is None:
                            lost = _gettrace() is not tracer
                        sys.settrace(previous_tracer)
                        break
                    except _Timeout:
                        continue
            if recorder.stopped is None:
                output = encode(result)
        except (_StepLimit, _Timeout):
            pass
        except BaseException as exc:  # noqa: BLE001 - any exception of the program is data
            if recorder.stopped is None:
                status = Status.EXCEPTION
                exception = ExceptionInfo(type(exc).__name__, _message(exc))
        recorder.done = True
        if lost and recorder.stopped is None:
            # CPython switches tracing off when a trace callback raises (typically a
            # RecursionError when the program recurses to the limit) or when the
            # program calls sys.settrace itself: the events are incomplete.
            outcome = "returned" if status is Status.OK else f"raised {exception.type}"
            recorder.stopped = Status.CRASHED
            lost_info = ExceptionInfo("TracerError", "tracing stopped before the call ended (a trace callback failed, "
                                      "usually at the recursion limit, or the program changed sys.settrace); the "
                                      f"events are incomplete; the call {outcome}")
    except _Timeout:  # a late alarm outside the call
        recorder.stop(Status.TIMEOUT, None)
    finally:
        alarm.disarm()
        sys.stdout = saved_stdout
    if recorder.stopped is not None:
        status, output, exception = recorder.stopped, None, None
        if status is Status.CRASHED:
            exception = lost_info
    return _new_trace(status, recorder.build_events(), output, exception, stdout.getvalue())


def _new_trace(status: Status, events: tuple[Event, ...], output: CanonicalValue | None,
               exception: ExceptionInfo | None, stdout: str) -> Trace:
    """``Trace(status, events, output, exception, _PYTHON, stdout)``, built without the frozen
    dataclass's ``__init__`` (one ``object.__setattr__`` call per field: a microsecond per trace)."""
    trace = object.__new__(Trace)
    trace.__dict__.update(status=status, events=events, output=output, exception=exception, python=_PYTHON, stdout=stdout)
    return trace


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - a program's exception with a broken __str__
        return f"<{type(exc).__name__} with an unprintable message>"
