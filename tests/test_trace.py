"""Semantics of the tracer (docs/tracing.md): events, after-states, helpers, limits.

These tests import only the standard library and execverify_data, so they also
run under interpreters without pytest plugins:
``PYTHONPATH=. python3.12 -m pytest tests/test_trace.py``.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import pytest

from execverify_data.errors import InvalidArgument, ProgramError
from execverify_data.trace import Event, Status, Trace, trace_call

INLINED_COMPREHENSIONS = sys.version_info >= (3, 12)  # PEP 709


def run(source: str, call: str, **options) -> Trace:
    return trace_call(textwrap.dedent(source), call, **options)


def rows(trace: Trace) -> list[tuple]:
    return [(e.function, e.frame, e.depth, e.line, e.occurrence) for e in trace.events]


def texts(event: Event) -> dict[str, str]:
    return {name: value.text for name, value in event.locals.items()}


# --------------------------------------------------------------------------- basics

STRAIGHT = """\
def f(x):
    y = x + 1
    y = y * 2
    return y
"""


def test_straight_line_events_and_after_states():
    trace = run(STRAIGHT, "f(3)")
    assert trace.status is Status.OK
    assert trace.output.text == "8" and trace.output.type == "int"
    assert trace.exception is None
    assert rows(trace) == [("f", 0, 0, 2, 1), ("f", 0, 0, 3, 1), ("f", 0, 0, 4, 1)]
    assert [texts(e) for e in trace.events] == [{"x": "3", "y": "4"}, {"x": "3", "y": "8"}, {"x": "3", "y": "8"}]


def test_python_version_is_recorded():
    trace = run(STRAIGHT, "f(1)")
    assert trace.python == ".".join(map(str, sys.version_info[:3]))
    assert trace.to_json()["python"] == trace.python


def test_helpers():
    trace = run(STRAIGHT, "f(3)")
    assert trace.lines_executed() == {2, 3, 4}
    assert trace.occurrences(3) == 1 and trace.occurrences(1) == 0 and trace.occurrences(99) == 0
    assert trace.next_line(2, 1) == 3
    assert trace.next_line(4, 1) == -1
    assert trace.state_after(2, 1, "y").text == "4"
    assert trace.state_after(3, 1, "y").text == "8"
    assert trace.state_after(2, 1, "nope") is None
    with pytest.raises(InvalidArgument, match="occurrences"):
        trace.next_line(2, 2)
    with pytest.raises(InvalidArgument):
        trace.state_after(7, 1, "y")
    with pytest.raises(InvalidArgument):
        trace.next_line(2, 0)


def test_variable_unbound_before_assignment_is_absent():
    trace = run(
        """\
        def f(x):
            if x:
                y = 1
            return x
        """,
        "f(0)",
    )
    assert trace.lines_executed() == {2, 4}
    assert trace.state_after(2, 1, "y") is None
    assert trace.next_line(2, 1) == 4


def test_trace_is_frozen_picklable_and_json_ready():
    import json

    trace = run(STRAIGHT, "f(3)")
    with pytest.raises(AttributeError):
        trace.status = Status.EXCEPTION  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(trace)) == trace
    data = json.loads(json.dumps(trace.to_json()))
    assert set(data) >= {"status", "output", "exception", "python", "events"}
    assert data["status"] == "ok" and data["output"] == {"text": "8", "type": "int"}
    assert data["events"][0] == {
        "function": "f",
        "frame": 0,
        "depth": 0,
        "line": 2,
        "occurrence": 1,
        "locals": {"x": {"text": "3", "type": "int", "askable": True}, "y": {"text": "4", "type": "int", "askable": True}},
    }


def test_mutation_is_seen_in_later_states_only():
    trace = run(
        """\
        def f():
            xs = []
            xs.append(1)
            xs.append(2)
            return xs
        """,
        "f()",
    )
    assert [trace.state_after(line, 1, "xs").text for line in (2, 3, 4)] == ["[]", "[1]", "[1, 2]"]


def test_non_askable_locals_are_recorded_but_not_askable():
    trace = run(
        """\
        def f(xs):
            it = iter(xs)
            return next(it)
        """,
        "f([5])",
    )
    value = trace.state_after(2, 1, "it")
    assert value.type == "list_iterator" and not value.askable


def test_stdout_is_captured_not_printed(capsys):
    trace = run("def f():\n    print('hi')\n    return 1\n", "f()")
    assert trace.stdout == "hi\n"
    assert capsys.readouterr().out == ""


# --------------------------------------------------------------------------- helpers and frames

HELPER = """\
def g(a):
    b = a * 10
    return b

def f(x):
    y = g(x)
    z = g(y) + 1
    return z
"""


def test_helper_function_frames_depths_and_own_after_state():
    trace = run(HELPER, "f(2)")
    assert trace.output.text == "201"
    assert rows(trace) == [
        ("f", 0, 0, 6, 1),
        ("g", 1, 1, 2, 1),
        ("g", 1, 1, 3, 1),
        ("f", 0, 0, 7, 1),
        ("g", 2, 1, 2, 2),
        ("g", 2, 1, 3, 2),
        ("f", 0, 0, 8, 1),
    ]
    # Our rule: the state after line 6 is f's own locals once line 6 finished (y bound),
    # not the callee's locals at its first line (REval would report {'a': 2}).
    assert texts(trace.events[0]) == {"x": "2", "y": "20"}
    # g's last line: its after-state is taken at g's return.
    assert texts(trace.events[2]) == {"a": "2", "b": "20"}
    # next_line follows execution into the callee and back.
    assert trace.next_line(6, 1) == 2
    assert trace.next_line(3, 1) == 7
    assert trace.next_line(3, 2) == 8
    assert trace.state_after(2, 2, "b").text == "200"


def test_occurrences_count_across_frames():
    trace = run(HELPER, "f(2)")
    assert trace.occurrences(2) == 2
    assert [e.frame for e in trace.events if e.line == 2] == [1, 2]


RECURSION = """\
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)
"""


def test_recursion_frames_and_depths():
    trace = run(RECURSION, "fact(3)")
    assert trace.output.text == "6"
    assert rows(trace) == [
        ("fact", 0, 0, 2, 1),
        ("fact", 0, 0, 4, 1),
        ("fact", 1, 1, 2, 2),
        ("fact", 1, 1, 4, 2),
        ("fact", 2, 2, 2, 3),
        ("fact", 2, 2, 3, 1),
    ]
    assert [trace.state_after(2, k, "n").text for k in (1, 2, 3)] == ["3", "2", "1"]
    assert trace.next_line(4, 1) == 2  # into the recursive call
    assert trace.next_line(3, 1) == -1  # the innermost return is the last line event


def test_frame_ids_are_unique_per_call():
    trace = run(RECURSION, "fact(4)")
    frames = {}
    for event in trace.events:
        frames.setdefault(event.frame, set()).add(event.depth)
    assert sorted(frames) == [0, 1, 2, 3]
    assert all(len(depths) == 1 for depths in frames.values())


# --------------------------------------------------------------------------- loops

def test_loop_on_one_line_counts_each_iteration():
    trace = run(
        """\
        def f(xs):
            t = 0
            for x in xs: t += x
            return t
        """,
        "f([1, 2, 3])",
    )
    assert trace.output.text == "6"
    # one event per pass of the loop header: each covers fetching the next item and
    # running the body up to the jump back; the last one finds the iterator exhausted
    assert trace.occurrences(3) == 4
    assert [trace.state_after(3, k, "t").text for k in (1, 2, 3, 4)] == ["1", "3", "6", "6"]
    assert [trace.next_line(3, k) for k in (1, 2, 3, 4)] == [3, 3, 3, 4]


def test_while_loop_lines():
    trace = run(
        """\
        def f(n):
            i = 0
            while i < n:
                i += 1
            return i
        """,
        "f(2)",
    )
    assert [e.line for e in trace.events] == [2, 3, 4, 3, 4, 3, 5]
    assert [trace.state_after(4, k, "i").text for k in (1, 2)] == ["1", "2"]
    assert trace.next_line(3, 3) == 5


# --------------------------------------------------------------------------- comprehensions, generators, lambdas

COMPREHENSION = """\
def f(xs):
    ys = [x * 2 for x in xs]
    return ys
"""


def test_list_comprehension_frames_depend_on_the_version():
    trace = run(COMPREHENSION, "f([1, 2])")
    assert trace.output.text == "[2, 4]"
    if INLINED_COMPREHENSIONS:
        # PEP 709: the comprehension runs in f's frame; line 2 repeats once per element,
        # and the loop variable is a local of f only while the comprehension runs.
        assert rows(trace) == [("f", 0, 0, 2, 1), ("f", 0, 0, 2, 2), ("f", 0, 0, 2, 3), ("f", 0, 0, 3, 1)]
        assert [texts(e) for e in trace.events[:3]] == [
            {"xs": "[1, 2]", "x": "1"},
            {"xs": "[1, 2]", "x": "2"},
            {"xs": "[1, 2]", "ys": "[2, 4]"},
        ]
    else:
        assert rows(trace) == [
            ("f", 0, 0, 2, 1),
            ("<listcomp>", 1, 1, 2, 2),
            ("<listcomp>", 1, 1, 2, 3),
            ("<listcomp>", 1, 1, 2, 4),
            ("f", 0, 0, 3, 1),
        ]
        assert texts(trace.events[0]) == {"xs": "[1, 2]", "ys": "[2, 4]"}
        # the hidden iterator argument ".0" is not a local we report
        assert [texts(e) for e in trace.events[1:4]] == [{"x": "1"}, {"x": "2"}, {"x": "2"}]
    assert trace.state_after(3, 1, "ys").text == "[2, 4]"


def test_dict_and_set_comprehensions():
    trace = run("def f(xs):\n    d = {x: x for x in xs}\n    s = {x for x in xs}\n    return d, s\n", "f([1])")
    assert trace.output.text == "({1: 1}, {1})"
    names = {e.function for e in trace.events}
    assert names == ({"f"} if INLINED_COMPREHENSIONS else {"f", "<dictcomp>", "<setcomp>"})


GENEXPR = """\
def f(xs):
    total = sum(x * x for x in xs)
    return total
"""


def test_generator_expression_is_its_own_frame_in_every_version():
    trace = run(GENEXPR, "f([1, 2])")
    assert trace.output.text == "5"
    assert rows(trace) == [
        ("f", 0, 0, 2, 1),
        ("<genexpr>", 1, 1, 2, 2),
        ("<genexpr>", 1, 1, 2, 3),
        ("<genexpr>", 1, 1, 2, 4),
        ("f", 0, 0, 3, 1),
    ]
    # a generator keeps one frame id across resumptions; its after-state is taken when it yields
    assert [texts(e) for e in trace.events[1:4]] == [{"x": "1"}, {"x": "2"}, {"x": "2"}]


def test_generator_function_resumptions_keep_frame_id():
    trace = run(
        """\
        def gen(n):
            for i in range(n):
                yield i

        def f():
            return list(gen(2))
        """,
        "f()",
    )
    assert trace.output.text == "[0, 1]"
    gen_events = [e for e in trace.events if e.function == "gen"]
    assert {e.frame for e in gen_events} == {1}
    assert [e.line for e in gen_events] == [2, 3, 2, 3, 2]
    assert [texts(e).get("i") for e in gen_events] == ["0", "0", "1", "1", "1"]


def test_lambda_frames():
    trace = run(
        """\
        def f(xs):
            key = lambda v: -v
            return sorted(xs, key=key)
        """,
        "f([1, 3, 2])",
    )
    assert trace.output.text == "[3, 2, 1]"
    lambdas = [e for e in trace.events if e.function == "<lambda>"]
    assert len(lambdas) == 3
    assert [e.line for e in lambdas] == [2, 2, 2]
    assert len({e.frame for e in lambdas}) == 3 and {e.depth for e in lambdas} == {1}
    assert [texts(e) for e in lambdas] == [{"v": "1"}, {"v": "3"}, {"v": "2"}]
    assert trace.occurrences(2) == 4  # f's own line 2 and three lambda calls


# --------------------------------------------------------------------------- exceptions

def test_caught_exception():
    trace = run(
        """\
        def f(x):
            try:
                y = 1 // x
            except ZeroDivisionError:
                y = -1
            return y
        """,
        "f(0)",
    )
    assert trace.status is Status.OK and trace.output.text == "-1"
    assert [e.line for e in trace.events] == [2, 3, 4, 5, 6]
    assert trace.state_after(3, 1, "y") is None  # the raising line bound nothing
    assert trace.next_line(3, 1) == 4
    assert trace.state_after(5, 1, "y").text == "-1"


def test_exception_caught_from_a_callee():
    trace = run(
        """\
        def g(x):
            return [][x]

        def f():
            try:
                g(1)
            except IndexError as e:
                return 'caught'
        """,
        "f()",
    )
    assert trace.output.text == "'caught'"
    assert [(e.function, e.line) for e in trace.events] == [("f", 5), ("f", 6), ("g", 2), ("f", 7), ("f", 8)]
    assert trace.next_line(2, 1) == 7


def test_uncaught_exception():
    trace = run(
        """\
        def f(xs):
            n = len(xs)
            return xs[n]
        """,
        "f([1])",
    )
    assert trace.status is Status.EXCEPTION
    assert trace.output is None
    assert trace.exception.type == "IndexError" and trace.exception.message == "list index out of range"
    assert trace.to_json()["exception"] == {"type": "IndexError", "message": "list index out of range"}
    # the raising line's after-state is taken when the exception leaves the frame
    assert texts(trace.events[-1]) == {"xs": "[1]", "n": "1"}
    assert trace.next_line(3, 1) == -1


def test_system_exit_is_an_exception_of_the_program():
    trace = run("import sys\ndef f():\n    sys.exit(3)\n", "f()")
    assert trace.status is Status.EXCEPTION and trace.exception.type == "SystemExit"


# --------------------------------------------------------------------------- limits

def test_step_limit_keeps_the_events_so_far():
    trace = run(
        """\
        def f():
            i = 0
            while True:
                i += 1
        """,
        "f()",
        max_steps=10,
    )
    assert trace.status is Status.STEP_LIMIT
    assert len(trace.events) == 10
    assert trace.output is None and trace.exception is None
    assert trace.events[-1].locals  # unfinished line: locals when the trace stopped


def test_step_limit_cannot_be_swallowed_by_the_program():
    trace = run(
        """\
        def f():
            n = 0
            for _ in range(1000):
                try:
                    n += 1
                except BaseException:
                    pass
            return n
        """,
        "f()",
        max_steps=20,
    )
    assert trace.status is Status.STEP_LIMIT
    assert len(trace.events) == 20


def test_timeout_in_process_without_line_events():
    # On 3.11 this loop emits a single line event: only the SIGALRM timer stops it.
    trace = run("def f():\n    while True: pass\n", "f()", timeout=0.3, max_steps=10**9)
    assert trace.status is Status.TIMEOUT
    assert trace.output is None


def test_timeout_with_line_events():
    trace = run("def f():\n    i = 0\n    while True:\n        i += 1\n", "f()", timeout=0.3, max_steps=10**9)
    assert trace.status is Status.TIMEOUT
    assert len(trace.events) > 10


# --------------------------------------------------------------------------- calls and errors

def test_keyword_arguments_and_literal_values():
    trace = run("def f(a, b=2, *, c):\n    return (a, b, c)\n", "f({3, 1}, c=frozenset())")
    assert trace.output.text == "({1, 3}, 2, frozenset())"


def test_non_literal_call_is_refused_without_trusted_call():
    source = "def f(x):\n    return x\n"
    for call in ("f(len([1]))", "f(''.join(['A'] * 3))", "f(lambda: 1)", "f(dict())", "f(x)"):
        with pytest.raises(ProgramError, match="trusted_call=True"):
            trace_call(source, call)


def test_trusted_call_evaluates_in_the_program_namespace():
    source = "LIMIT = 3\ndef f(x, y=None):\n    return x\n"
    assert trace_call(source, "f(''.join(['A'] * 3))", trusted_call=True).output.text == "'AAA'"
    assert trace_call(source, "f(LIMIT)", trusted_call=True).output.text == "3"
    assert trace_call(source, "f(range(2, 4))", trusted_call=True).output.text == "range(2, 4)"
    assert trace_call(source, "f(*[7])", trusted_call=True).output.text == "7"
    # a lambda from the call is not program code: it is called but not traced
    trace = trace_call("def f(g):\n    return g(2)\n", "f(lambda v: v + 1)", trusted_call=True)
    assert trace.output.text == "3" and [e.function for e in trace.events] == ["f"]


def test_trusted_call_must_still_be_a_call_by_name():
    with pytest.raises(ProgramError, match="by name"):
        trace_call("def f():\n    return 1\n", "[f()]", trusted_call=True)


@pytest.mark.parametrize(
    ("source", "call", "message"),
    [
        ("def f(:\n", "f()", "does not compile"),
        ("def f():\n    return 1\n", "g()", "no function named 'g'"),
        ("X = 1\n", "X()", "no function named 'X'"),
        ("raise RuntimeError('boom')\ndef f():\n    pass\n", "f()", "failed before the call"),
        ("def f():\n    return 1\n", "f(", "not a literal call"),
    ],
)
def test_unusable_programs_and_calls(source, call, message):
    with pytest.raises(ProgramError, match=message):
        trace_call(source, call)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_steps": 0}, "max_steps"),
        ({"max_steps": 1.5}, "max_steps"),
        ({"timeout": 0}, "timeout"),
        ({"timeout": "1"}, "timeout"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises(InvalidArgument, match=message):
        trace_call("def f():\n    return 1\n", "f()", **options)


def test_bad_argument_types():
    with pytest.raises(InvalidArgument):
        trace_call(b"def f(): pass", "f()")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        trace_call("def f(): pass", None)  # type: ignore[arg-type]


def test_module_body_is_not_traced_and_other_files_are_not_traced():
    trace = run(
        """\
        import json
        TABLE = [i for i in range(3)]
        def f():
            return json.dumps(TABLE)
        """,
        "f()",
    )
    assert trace.output.text == "'[0, 1, 2]'"
    assert [(e.function, e.line) for e in trace.events] == [("f", 4)]


def test_tracing_is_removed_after_the_call():
    run(STRAIGHT, "f(1)")
    assert sys.gettrace() is None
    run("def f():\n    while True: pass\n", "f()", timeout=0.2)
    assert sys.gettrace() is None


def test_tracing_lost_at_the_recursion_limit_is_reported_not_hidden():
    # At the recursion limit CPython switches a failing trace callback off: the trace
    # would silently miss every later line, so it is reported as crashed.
    trace = run(
        """\
        def g(n):
            return g(n + 1)

        def f():
            try:
                g(0)
            except RecursionError:
                pass
            return 1
        """,
        "f()",
    )
    assert trace.status is Status.CRASHED
    assert trace.exception.type == "TracerError" and "recursion limit" in trace.exception.message
    assert trace.output is None


def test_program_that_switches_tracing_off_is_reported():
    trace = run("import sys\ndef f():\n    sys.settrace(None)\n    x = 1\n    return x\n", "f()")
    assert trace.status is Status.CRASHED and trace.exception.type == "TracerError"


def test_a_previous_trace_function_is_put_back():
    def outer(frame, event, arg):
        return None

    sys.settrace(outer)
    try:
        trace = run(STRAIGHT, "f(2)")
        assert sys.gettrace() is outer
    finally:
        sys.settrace(None)
    assert trace.status is Status.OK and len(trace.events) == 3


def test_an_outer_alarm_timer_and_handler_are_put_back():
    import signal

    fired = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        run(STRAIGHT, "f(1)")
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25.0 < left <= 30.0
        assert signal.getsignal(signal.SIGALRM) is not None and not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_timeout_survives_a_raise_swallowed_by_a_finalizer():
    # Exceptions raised inside __del__ are printed and dropped by the interpreter: the
    # first _Timeout (from the line-event clock check or the alarm) is likely to land
    # in D.__del__ and vanish, with tracing already off. The repeating alarm must still
    # end the call. Run in a subprocess so a regression fails instead of hanging.
    source = (
        "class D:\n"
        "    def __del__(self):\n"
        "        for _ in range(300):\n"
        "            pass\n"
        "def f():\n"
        "    while True:\n"
        "        D()\n"
    )
    code = (
        "import sys\n"
        "from execverify_data.trace import trace_call\n"
        f"t = trace_call({source!r}, 'f()', timeout=0.3, max_steps=10**9)\n"
        "print(t.status.value)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "timeout", done.stderr[-2000:]


def test_a_timeout_never_escapes_as_another_error():
    """The repeating alarm can fire while the call's ``finally`` restores the tracer; that was an
    ``UnboundLocalError`` out of ``trace_call`` in about 1 call in 12 (and the tracer left installed)."""
    import sys

    statuses = [trace_call("def f(x):\n    while x:\n        pass\n", "f(1)", timeout=0.03).status for _ in range(120)]
    assert set(statuses) == {Status.TIMEOUT}
    assert sys.gettrace() is None or "coverage" in type(sys.gettrace()).__module__


def test_a_timeout_dropped_in_a_finalizer_reaches_no_unraisable_hook():
    """A raise the interpreter drops (the alarm lands in ``__del__``) would go to ``sys.unraisablehook``; pytest's
    formats it slowly, the next tick landed inside that and failed the test run ("Failed to process unraisable
    exception"). While armed, the alarm's own exception is dropped quietly and others still reach the hook."""
    import sys

    seen = []
    previous, sys.unraisablehook = sys.unraisablehook, seen.append
    try:
        source = ("class Slow:\n    def __del__(self):\n        n = 0\n        while n < 20000:\n            n += 1\n\n"
                  "def f():\n    while True:\n        Slow()\n")
        trace = trace_call(source, "f()", timeout=0.1, max_steps=10**9)
        assert trace.status is Status.TIMEOUT
        assert sys.unraisablehook == seen.append  # put back
    finally:
        sys.unraisablehook = previous
    assert [u.exc_type.__name__ for u in seen] == []
