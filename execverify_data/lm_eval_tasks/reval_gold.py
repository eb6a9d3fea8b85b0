"""REval's gold answers, computed by REval's definition (``dynamics.py`` of r-eval/REval at 2f148b9).

REval runs each function of its HumanEval part under ``sys.settrace`` and keeps one *state* per
run of consecutive trace events with the same line number, in any frame of the program (so a
generator expression or lambda on a line adds to that line's state):

* a ``line`` event replaces the state's locals with the frame's locals at that moment, deep
  copies, leaving out modules, functions, builtin functions, iterators and generators;
* a ``return`` or ``exception`` event marks the state with the same line, or starts a new state
  without locals when the last state has another line (``return g(x)`` after ``g`` ran).

From the states:

* **coverage** of line L: some state has line L;
* **next lines** of L: the line of the state after each state of L (-1 after the last);
  ``{-1}`` when L never runs;
* **the value of** ``var`` **after** L: ``var`` (a name, ``a.b``, ``a[i]``, a tuple of those, read
  as REval's ``VarInterpreter`` does) looked up in the state *after* each state of L (the last
  state itself when L's state is the last); the list of values found (a tuple: every combination
  of its parts' values), or Nil when L never runs or nothing is found;
* **the output**: the call's return value.

This is not the project's tracer (:mod:`execverify_data.trace`): REval's gold differs from it in
about 100 of the HumanEval part's 1,157 state questions, and the official tasks reproduce REval.

The programs are benchmark data and run here, in process, as REval runs them (one function
object per problem, its inputs in order); nothing a model writes runs here.

>>> code = "def f(xs):\\n    m = max(len(x) for x in xs)\\n    return m"
>>> run = run_problem(code, "f", ["(['ab', 'c'],)"])[0]
>>> run.coverage(2), run.next_lines(2), run.value(2, "m"), run.output
(True, [3], [2], 2)
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import itertools
import signal
import sys
import threading
from collections.abc import Generator, Iterator
from copy import deepcopy
from typing import Any

__all__ = ["FILENAME", "NIL", "RevalRun", "run_problem"]

#: The file name REval compiles programs under (``Factory.filename()``): only its frames are traced.
FILENAME = "<internals>"
#: REval's ``Nil``: the line does not run, or no value was found.
NIL = None
_SKIPPED_CLASSES = ("module", "function", "builtin_function_or_method")
_UNSUPPORTED: list = []  # a variable form REval's interpreter does not read: no answer matches
_LOCALS = 1
_FIELDS = {"line": _LOCALS, "return": 2, "exception": 3}  # the state field each trace event sets


def _snapshot(frame_locals: dict) -> dict[str, Any]:
    kept = {}
    for name, value in frame_locals.items():
        if value.__class__.__name__ in _SKIPPED_CLASSES or isinstance(value, (Iterator, Generator)):
            continue
        kept[name] = deepcopy(value)
    return kept


class _Recorder:
    """``sys.settrace`` callbacks building REval's states: ``[line (0-based), locals, returned, raised]``."""

    def __init__(self) -> None:
        self.states: list[list] = []

    def add(self, line: int, field: int, value: Any) -> None:
        states = self.states
        if not states or states[-1][0] != line - 1:
            state = [line - 1, {}, False, False]
            state[field] = value
            states.append(state)
        else:
            states[-1][field] = value

    def local(self, frame, event: str, arg: Any):
        if event in _FIELDS:
            self.add(frame.f_lineno, _FIELDS[event], _snapshot(frame.f_locals) if event == "line" else True)
        return None  # as REval's local_trace: a frame keeps its local trace function

    def call(self, frame, event: str, arg: Any):
        if event == "call" and frame.f_code.co_filename == FILENAME:
            return self.local
        return None


class RevalRun:
    """The states of one call, read as REval's ``States`` reads them (line numbers 1-based)."""

    def __init__(self, states: list[list], output: Any):
        self.states = states
        self.output = output
        self.lines = [state[0] for state in states]

    def coverage(self, line: int) -> bool:
        return line - 1 in self.lines

    def next_lines(self, line: int) -> list[int]:
        """Sorted next lines (1-based; -1: the run ends there, or the line never runs)."""
        target = line - 1
        if target not in self.lines:
            return [-1]
        found = {self.lines[i + 1] + 1 if i + 1 < len(self.lines) else -1
                 for i, at in enumerate(self.lines) if at == target}
        return sorted(found)

    def _after(self, target: int) -> list[dict]:
        last = len(self.states) - 1
        return [self.states[min(i + 1, last)][_LOCALS] for i, at in enumerate(self.lines) if at == target]

    def _local(self, target: int, name: str) -> list | None:
        return [state[name] for state in self._after(target) if name in state] or NIL

    def _read(self, target: int, node: ast.AST) -> list | None:
        if isinstance(node, ast.Constant):
            return [node.value]
        if isinstance(node, ast.Name):
            return self._local(target, node.id)
        if isinstance(node, ast.Attribute):
            objects = self._read(target, node.value)
            return NIL if objects is NIL else [getattr(o, node.attr) for o in objects if hasattr(o, node.attr)] or NIL
        if isinstance(node, ast.Subscript):
            containers, keys = self._read(target, node.value), self._read(target, node.slice)
            if containers is NIL or keys is NIL:
                return NIL
            found = []
            for container, key in itertools.product(containers, keys):
                try:
                    found.append(container[key])
                except (TypeError, KeyError, IndexError):
                    pass
            return found or NIL
        if isinstance(node, ast.Tuple):
            parts = [self._read(target, e) for e in node.elts]
            return NIL if any(p is NIL for p in parts) else list(itertools.product(*parts))
        return _UNSUPPORTED

    def value(self, line: int, var: str) -> list | None:
        """The values of ``var`` after ``line`` over all its executions, or :data:`NIL`."""
        try:
            if not self.coverage(line):
                return NIL
            body = ast.parse(var).body
            if len(body) != 1 or not isinstance(body[0], ast.Expr):
                return NIL
            return self._read(line - 1, body[0].value)
        except Exception:  # noqa: BLE001 - REval's VarInterpreter.get: any failure reads as Nil
            return NIL


@contextlib.contextmanager
def _time_limit(seconds: float):
    """SIGALRM after ``seconds`` (REval's ``time_limit``), where signals can be used (main thread)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def expire(signum, frame):
        raise TimeoutError(f"a REval program ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_problem(code: str, entry_point: str, inputs: list[str], *, timeout: float = 120.0) -> list[RevalRun | None]:
    """REval's runs of one problem: the program defined once, then its function called on each
    input (the input text read as REval reads it) under REval's tracer. ``None`` for a run that raised
    or ran out of time (REval stops there; such a run is left out).

    Args:
        code (`str`): the problem's program (REval's ``code`` field).
        entry_point (`str`): the function to call.
        inputs (`list[str]`): argument tuples as text, REval's ``inputs`` field (``"([1, 2], 3,)"``).
        timeout (`float`, optional, defaults to 120.0, REval's): seconds per run.
    """
    namespace: dict[str, Any] = {"__name__": "__reval__"}
    exec(compile(code, FILENAME, "exec"), namespace)  # trusted: REval's benchmark program, run as REval runs it
    function = namespace[entry_point]
    runs: list[RevalRun | None] = []
    for text in inputs:
        recorder = _Recorder()
        previous = sys.gettrace()
        try:
            with (contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()),
                  _time_limit(timeout)):
                arguments = eval(text, {"__builtins__": builtins})  # trusted: REval's own input data
                sys.settrace(recorder.call)
                try:
                    output = function(*arguments)
                finally:
                    sys.settrace(previous)
        except Exception:  # noqa: BLE001 - REval asserts that every run of its data succeeds
            runs.append(None)
            continue
        runs.append(RevalRun(recorder.states, output))
    return runs
