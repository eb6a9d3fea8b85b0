"""Running trusted code with its decisions recorded, under a budget: :func:`wrap_tests` puts recorder calls
(:func:`probe_call`) around the tests of a tree's decisions, a :class:`Budget` runs the compiled code in this process
under a step budget (statement probes, or line events) and an alarm, and ends with a
:class:`~execverify_data.trace.Status`. The coverage probe of synthesis and the naturalness measures run this way.

>>> import ast
>>> tree = ast.parse("def f(n):\\n    while n > 0:\\n        n -= 1\\n    return n\\n")
>>> outcomes, space = [], {"seen": lambda i, value: outcomes.append(bool(value)) or value}
>>> wrap_tests(tree, lambda test, node, kind: probe_call("seen", len(outcomes), test))
>>> exec(compile(tree, "<doc>", "exec"), space)  # trusted: the doctest's own program
>>> budget = Budget(100)
>>> budget.run(lambda: space["f"](2), timeout=1.0, lines_of="<doc>"), outcomes, budget.steps, sorted(budget.ran)
((<Status.OK: 'ok'>, 0), [True, True, False], 6, [2, 3, 4])
>>> Budget(100).run(lambda: space["f"](10**9), timeout=1.0, lines_of="<doc>")
(<Status.STEP_LIMIT: 'step_limit'>, None)
"""

from __future__ import annotations

import ast
import signal
import sys
import threading
from collections.abc import Callable

from execverify_data.astwalk import children
from execverify_data.trace import Status

__all__ = ["OVER_BUDGET", "Budget", "probe_call", "wrap_tests"]

#: The ends of a run stopped by its budget: steps, time, or (in the trusted runner) memory or recursion.
OVER_BUDGET = frozenset({Status.STEP_LIMIT, Status.TIMEOUT, Status.CRASHED})


class _Stop(BaseException):
    """Raised into a run at its step budget or by the alarm, with the status the run ends with (a BaseException:
    programs' ``except Exception`` miss it)."""


def _on_alarm(signum, frame):  # pragma: no cover - timing dependent
    raise _Stop(Status.TIMEOUT)


def probe_call(name: str, index: int, node: ast.AST, *, wrap: bool = True) -> ast.Call:
    """The call ``name(index, node)`` (``name(index)`` without ``wrap``: a probe put before the statement
    ``node``), every new node at ``node``'s location (what ``ast.fix_missing_locations`` would give it)."""
    where = {"lineno": node.lineno, "col_offset": node.col_offset,
             "end_lineno": node.end_lineno, "end_col_offset": node.end_col_offset}
    args = [ast.Constant(index, **where), node] if wrap else [ast.Constant(index, **where)]
    return ast.Call(ast.Name(name, ast.Load(), **where), args, [], **where)


_DECISIONS = {ast.If: "if", ast.While: "while", ast.IfExp: "ifexp"}


def wrap_tests(root: ast.AST, wrap: Callable[[ast.expr, ast.AST, str], ast.expr]) -> None:
    """Put ``wrap(test, node, kind)`` in the place of every test under ``root``: of each ``if``, ``while`` and
    conditional expression ``node`` (kinds ``if``, ``while``, ``ifexp``), each ``if`` of a comprehension
    (``comprehension``), each operand of ``and``/``or`` but the last (``boolop``: its truth decides whether the
    next one runs); ``wrap`` returns the test to leave it alone. Post-order: the tests nested in a node's fields
    (in ``_fields`` order, as an ``ast.NodeTransformer`` visits them) come before its own."""
    for child in children(root):
        wrap_tests(child, wrap)
    kind = _DECISIONS.get(type(root))
    if kind is not None:
        root.test = wrap(root.test, root, kind)
    elif type(root) is ast.comprehension:
        root.ifs = [wrap(t, root, "comprehension") for t in root.ifs]
    elif type(root) is ast.BoolOp:
        root.values[:-1] = [wrap(v, root, "boolop") for v in root.values[:-1]]


class Budget:
    """The steps of one run (``steps``) and where they were (``ran``), stopping it past ``max_steps``: a step
    is a call of :meth:`step` (a statement probe) or, with ``lines_of``, a line event of that file's code."""

    __slots__ = ("steps", "max_steps", "ran")

    def __init__(self, max_steps: int) -> None:
        self.steps, self.max_steps, self.ran = 0, max_steps, set()

    def step(self, where: int) -> None:
        self.ran.add(where)
        self.steps += 1
        if self.steps > self.max_steps:
            raise _Stop(Status.STEP_LIMIT)

    def run(self, call: Callable[[], object], *, timeout: float, lines_of: str | None = None) -> tuple[Status, object]:
        """``(Status.OK, call())``, or ``(status, None)`` when the call did not return: ``EXCEPTION`` (it
        raised, or exited), ``STEP_LIMIT`` or ``TIMEOUT`` (the alarm, in the main thread only). Trusted code
        only: it runs in this process."""
        alarm = threading.current_thread() is threading.main_thread()
        if alarm:
            previous = signal.signal(signal.SIGALRM, _on_alarm)
            signal.setitimer(signal.ITIMER_REAL, timeout)
        if lines_of is not None:
            step, previous_trace = self.step, sys.gettrace()

            def on_line(frame, event, arg):
                if event == "line":
                    step(frame.f_lineno)
                return on_line

            sys.settrace(lambda frame, event, arg: on_line if frame.f_code.co_filename == lines_of else None)
        try:
            try:
                return Status.OK, call()
            finally:
                if lines_of is not None:
                    sys.settrace(previous_trace)
                if alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except _Stop as stop:  # a late alarm, between the call's end and the disarm, lands here too
            return stop.args[0], None
        except (Exception, SystemExit):  # noqa: BLE001 - the code's own failure
            return Status.EXCEPTION, None
        finally:
            if alarm:
                signal.signal(signal.SIGALRM, previous)
