"""Branch coverage of a program's runs, and the choice of inputs that make every branch matter.

A row's step questions are only worth asking when the code's decisions depend on the row's own
inputs. :func:`instrument` compiles a program with every decision (the test of each ``if``/``elif``,
``while``, conditional expression and comprehension ``if``) and every used call that reads a variable
wrapped in a recorder. A :class:`Probe` runs the entry point on an input, untraced (line events are
only counted, by :class:`execverify_data.instrument.Budget`), and returns a :class:`Run`.
:func:`choose` then picks, by greedy set cover over the candidates in order (the same candidates
always give the same choice), at least ``k`` and at most ``k_max`` inputs on which every decision
goes both ways (``one_sided_branch`` otherwise), every statement runs (``dead_code``), the outputs
differ (``constant_output``) and each used call evaluated twice or more gives two values
(``constant_value``: ``ord(ch)`` under ``if ch == 'n':``; docs/synthesis.md, "Filters").

>>> code = "def f(xs):\\n    n = 0\\n    for x in xs:\\n        if x > 2:\\n            n += 1\\n    return n\\n"
>>> probe = Probe(code, "f")
>>> runs = [probe.run(([1, 2],)), probe.run(([5, 1],)), probe.run(([3, 4],))]
>>> [r.output for r in runs], choose(runs, probe, k=2)
(['0', '1', '2'], [1, 0])
>>> choose([runs[0], runs[0]], probe, k=2)
'one_sided_branch'
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from execverify_data.astwalk import walk
from execverify_data.instrument import OVER_BUDGET, Budget, probe_call, wrap_tests
from execverify_data.synth.code import BUILTIN_NAMES
from execverify_data.trace import Status
from execverify_data.values import encode, format_arguments, parse, self_equal

__all__ = ["Probe", "Run", "TracedProbe", "branch_coverage", "choose", "instrument", "raising_sides"]

FILENAME = "<synth-probe>"
RECORD = "_probe_record_"
VALUE = "_probe_value_"


def _definitions(tree: ast.AST) -> list[ast.AST]:
    """What of ``tree`` is instrumented: a module's functions and classes (its other statements run before
    the recorders, defined after the program, exist: ``EMAIL_RE = re.compile(...)``), or ``tree`` itself."""
    if isinstance(tree, ast.Module):
        return [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    return [tree]


def _wrap_decisions(tree: ast.AST) -> dict[int, tuple[int, str]]:
    """Wrap the test of every decision in ``tree``'s functions (not ``and``/``or`` operands) in a call of the
    recorder; ``{id: (line, kind)}``, ids in the post-order of :func:`~execverify_data.instrument.wrap_tests`."""
    tests: dict[int, tuple[int, str]] = {}

    def record(test: ast.expr, node: ast.AST, kind: str) -> ast.expr:
        if kind == "boolop":
            return test
        tests[len(tests)] = (test.lineno if kind == "comprehension" else node.lineno, kind)
        return probe_call(RECORD, len(tests) - 1, test)

    for node in _definitions(tree):
        wrap_tests(node, record)
    return tests


def _ends_raising(block: list[ast.stmt]) -> bool:
    """Whether running ``block`` always ends in its last statement, a ``raise`` (nothing in it returns, breaks,
    continues or yields first)."""
    leaves = (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Await)
    return bool(block) and isinstance(block[-1], ast.Raise) and not any(
        isinstance(n, leaves) for stmt in block for n in walk(stmt))


def _decisions(tree: ast.AST):
    """``(id, test, node, kind, function)`` of every decision of ``tree``'s functions, ids as :func:`_wrap_decisions`
    numbers them (``tree`` is left as it is)."""
    out = []
    for fn in _definitions(tree):
        def record(test: ast.expr, node: ast.AST, kind: str) -> ast.expr:
            if kind != "boolop":
                out.append((len(out), test, node, kind, fn))
            return test

        wrap_tests(fn, record)
    return out


def decision_tests(tree: ast.AST) -> dict[int, ast.expr]:
    """The test expression of each decision of ``tree``'s functions, by id (:func:`_wrap_decisions`)."""
    return {i: test for i, test, *_ in _decisions(tree)}


def raising_sides(tree: ast.Module) -> tuple[frozenset, frozenset]:
    """``(sides, lines)``: the decision outcomes ``(id, bool)`` of ``tree``'s functions (ids as
    :func:`_wrap_decisions` numbers them) whose block ends the call raising, and the statement lines of those
    blocks. A side is one when the block an ``if`` runs on it (its body; its ``else``, or for an ``if`` (or
    ``elif``) of the function's body without one, the statements after it) ends in ``raise`` with no ``return``,
    ``break`` or ``continue`` before (``if v in FALSE: return False`` then ``raise ValueError(v)``), and nothing can catch the exception on the
    way out: the ``if`` is in no ``try`` of its function and the function is called in no ``try`` of the
    module. Only inputs that make the function raise take such a side (``if score < 0: raise ValueError``),
    so inputs that return never cover it (:func:`branch_coverage` ``returning``).

    >>> code = "def f(x):\\n    if x < 0:\\n        raise ValueError(x)\\n    return 1 if x else 2\\n"
    >>> raising_sides(ast.parse(code))
    (frozenset({(0, True)}), frozenset({3}))
    """
    guarded_calls = {n.func.id for t in ast.walk(tree) if isinstance(t, ast.Try) for stmt in t.body for n in walk(stmt)
                     if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    guarded = {id(n) for t in ast.walk(tree) if isinstance(t, ast.Try) for stmt in t.body for n in walk(stmt)}
    after: dict[int, list] = {}  # an ``if`` of a function's body (or its ``elif``): the statements after it
    for fn in _definitions(tree):
        for at, stmt in enumerate(getattr(fn, "body", ())):
            while isinstance(stmt, ast.If):
                after[id(stmt)] = fn.body[at + 1:]
                stmt = stmt.orelse[0] if len(stmt.orelse) == 1 else None
    sides: set = set()
    lines: set = set()
    for i, _, node, kind, fn in _decisions(tree):
        if kind != "if" or id(node) in guarded or getattr(fn, "name", None) in guarded_calls:
            continue
        for outcome, block in ((True, node.body), (False, node.orelse or after.get(id(node), []))):
            if _ends_raising(block):
                sides.add((i, outcome))
                lines.update(n.lineno for stmt in block for n in walk(stmt) if isinstance(n, ast.stmt))
    return frozenset(sides), frozenset(lines)


def _reads_a_variable(call: ast.Call) -> bool:
    return any(isinstance(n, ast.Name) and n.id not in BUILTIN_NAMES for n in walk(call))


def _wrap_values(tree: ast.AST) -> None:
    """Wrap every call in ``tree``'s functions whose value is used (not a statement of its own) and that reads a
    variable in a call of the value recorder (ids ``0, 1, ...`` in post-order). Done before
    :func:`_wrap_decisions`, whose recorder calls are not values."""
    count = 0

    def wrap(call: ast.Call) -> ast.expr:
        nonlocal count
        count += 1
        return probe_call(VALUE, count - 1, call)

    def wanted(child: ast.AST, parent: ast.AST) -> bool:
        return type(child) is ast.Call and not isinstance(parent, ast.Expr) and _reads_a_variable(child)

    def visit(node: ast.AST) -> None:
        for name, value in ast.iter_fields(node):
            if isinstance(value, list):
                for k, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        visit(item)
                        if wanted(item, node):
                            value[k] = wrap(item)
            elif isinstance(value, ast.AST):
                visit(value)
                if wanted(value, node):
                    setattr(node, name, wrap(value))

    for node in _definitions(tree):
        visit(node)


def instrument(code: str) -> tuple[object, dict[int, tuple[int, str]], frozenset[int]]:
    """``(code object, {decision id: (line, kind)}, statement lines)`` of a program.

    The statement lines are those of every statement inside the module's functions (not the
    ``def`` lines, not docstrings); a line event on one means the statement ran. The used calls that
    read a variable are wrapped in a recorder too (``_probe_value_(id, call)``).
    """
    tree = ast.parse(code)
    lines = _statement_lines(tree)
    _wrap_values(tree)
    tests = _wrap_decisions(tree)
    return compile(tree, FILENAME, "exec", dont_inherit=True), tests, lines


@dataclass(frozen=True)
class Run:
    """One probed call: ``status`` (:class:`~execverify_data.trace.Status`), the output's canonical text
    (``OK`` only), the decisions' outcomes ``{(id, bool)}``, the lines executed, the line events counted,
    the values of the used calls ``{(id, type:repr)}`` (at most two per call) and the calls evaluated
    twice or more with one value."""

    status: Status
    output: str | None
    askable: bool
    outcomes: frozenset
    lines: frozenset
    steps: int
    values: frozenset = frozenset()
    repeated: frozenset = frozenset()


#: The recorders the instrumented program calls (one text: run in this process by :class:`Probe`, written after
#: the program by :class:`TracedProbe`): each decision's outcomes, and per used call its first two values as
#: ``type:repr`` (not an object whose ``repr`` is only its address: an iterator is not judged) and whether it
#: was evaluated twice.
_RECORDERS = """

_probe_seen_ = []


def _probe_record_(i, value):
    _probe_seen_.append((i, bool(value)))
    return value


_probe_values_ = {}


def _probe_value_(i, value):
    seen = _probe_values_.get(i)
    if seen is None:
        if type(value).__repr__ is not object.__repr__:
            _probe_values_[i] = [type(value).__name__ + ':' + repr(value), None, False]
    elif seen[1] is None:
        key = None if type(value).__repr__ is object.__repr__ else type(value).__name__ + ':' + repr(value)
        if key != seen[0]:
            seen[1] = key
        seen[2] = True
    return value
"""
_RECORDERS_CODE = compile(_RECORDERS, "<synth-probe-recorders>", "exec")


class Probe:
    """The entry point of ``code``, instrumented, ready to run on inputs (trusted code only)."""

    def __init__(self, code: str, entry: str):
        compiled, self.tests, self.statements = instrument(code)
        self.raising, self.raising_lines = raising_sides(ast.parse(code))
        self._namespace: dict = {"__name__": "__synth__"}
        exec(_RECORDERS_CODE, self._namespace)  # trusted: our own text
        exec(compiled, self._namespace)  # trusted: our own synthesized program, instrumented
        self.fn = self._namespace[entry]

    def run(self, args: tuple, *, max_steps: int = 5000, timeout: float = 2.0) -> Run:
        outcomes, values = self._namespace["_probe_seen_"], self._namespace["_probe_values_"]
        outcomes.clear()
        values.clear()
        budget = Budget(max_steps)  # the line events of the program, and the lines they were on
        status, result = budget.run(lambda: self.fn(*args), timeout=timeout, lines_of=FILENAME)
        if status is not Status.OK:
            return Run(status, None, False, frozenset(), frozenset(), budget.steps)
        value = encode(result)
        askable = value.askable and self_equal(value.text)
        return Run(status, value.text, askable, frozenset(outcomes), frozenset(budget.ran), budget.steps,
                   *_value_sets(values.items()))


def _value_sets(items) -> tuple[frozenset, frozenset]:
    """``(values, repeated)`` of a :class:`Run` from ``(id, [first key, second key, evaluated twice])``."""
    values = frozenset((i, key) for i, keys in items for key in keys[:2] if key is not None)
    return values, frozenset(i for i, keys in items if keys[2])


_ENTRY = """

def _probe_entry_(*args):
    _probe_seen_.clear()
    _probe_values_.clear()
    result = {entry}(*args)
    return [result, sorted(set(_probe_seen_)), sorted(_probe_values_.items())]
"""


class TracedProbe:
    """The same runs as :class:`Probe`, made through a tracer (the trusted runner: a fork per call, for
    code that must not run in this process): the instrumented program, with a recorder and an entry that
    returns ``[result, outcomes]`` written after it (so its line numbers are the program's), is traced."""

    def __init__(self, code: str, entry: str, tracer):
        tree = ast.parse(code)
        _wrap_values(tree)
        self.tests = _wrap_decisions(tree)
        text = ast.unparse(tree)
        self.statements = _statement_lines(ast.parse(text))
        self.raising, self.raising_lines = raising_sides(ast.parse(text))
        self.program_lines = text.count("\n") + 1
        self.source = text + _RECORDERS + _ENTRY.format(entry=entry)
        self.tracer = tracer
        self.refused: str | None = None  # what the sandbox refused a run (a sandbox tracer's ``SandboxRefused``)

    def run_many(self, batch: list[tuple], *, max_steps: int, timeout: float) -> list[Run]:
        calls = [f"_probe_entry_({format_arguments(args)})" for args in batch]
        runs = []
        for trace in self.tracer.trace_many(self.source, calls):
            if trace.exception is not None and trace.exception.type == "SandboxRefused" and self.refused is None:
                self.refused = trace.exception.message
            steps = sum(1 for e in trace.events if e.line <= self.program_lines)
            status = Status.STEP_LIMIT if steps > max_steps and trace.status not in OVER_BUDGET else trace.status
            parsed = parse(trace.output.text) if status is Status.OK and trace.output.askable else None
            if parsed is None:  # stopped, raised, or a result without a literal
                runs.append(Run(status, None, False, frozenset(), frozenset(), steps))
                continue
            try:  # what the probe's entry returned: the program shares its namespace and could change it
                result, outcomes, values = parsed
                value = encode(result)
                lines = frozenset(e.line for e in trace.events if e.line <= self.program_lines)
                runs.append(Run(status, value.text, value.askable and self_equal(value.text),
                                frozenset((i, b) for i, b in outcomes), lines, steps, *_value_sets(values)))
            except (TypeError, ValueError):
                runs.append(Run(Status.CRASHED, None, False, frozenset(), frozenset(), steps))
        return runs


def _statement_lines(tree: ast.Module) -> frozenset[int]:
    lines: set[int] = set()
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef):
            for node in walk(fn):
                if isinstance(node, ast.stmt) and node is not fn and not isinstance(node, ast.FunctionDef):
                    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                        continue
                    lines.add(node.lineno)
    return frozenset(lines)


def goals(probe, *, returning: bool = False) -> frozenset:
    """What a chosen set of inputs must cover: both outcomes of every decision, every statement line; with
    ``returning``, not the sides that end the call raising, nor their lines (:func:`raising_sides`)."""
    out = frozenset({(i, b) for i in probe.tests for b in (True, False)} | {("line", n) for n in probe.statements})
    if not returning:
        return out
    return out - probe.raising - {("line", n) for n in probe.raising_lines}


def _covers(run: Run) -> frozenset:
    return run.outcomes | frozenset(("line", n) for n in run.lines)


def constant_values(runs) -> list[int]:
    """The used calls that ``runs`` (the usable ones) evaluate twice or more, always to one value."""
    keys: dict[int, set] = {}
    evaluated: dict[int, int] = {}
    for run in runs:
        if run.status is not Status.OK:
            continue
        for i, key in run.values:
            keys.setdefault(i, set()).add(key)
        for i in {i for i, _ in run.values}:
            evaluated[i] = evaluated.get(i, 0) + (2 if i in run.repeated else 1)
    return sorted(i for i, k in keys.items() if len(k) < 2 and evaluated[i] >= 2)


class Cover:
    """What a growing list of runs covers, kept up to date as runs are added (``missing()`` without
    recomputing the union every time). With ``values`` (programs we wrote) the used calls must give two
    values too (``constant_value``)."""

    def __init__(self, probe, *, values: bool = False, returning: bool = False) -> None:
        self.goals = goals(probe, returning=returning)
        self.covered: set = set()
        self.outputs: set = set()
        self.usable = 0
        self.values = values
        self.runs: list[Run] = []

    def add(self, run: Run) -> None:
        if run.status is Status.OK:
            self.usable += 1
            self.covered |= _covers(run)
            self.outputs.add(run.output)
            if self.values:
                self.runs.append(run)

    def repairable(self) -> bool:
        """Whether more inputs drawn around these are worth trying: at most one decision still goes one
        way only (none never met), or every branch is covered and only the outputs are all equal. Other
        gaps are almost never closed by mutations (measured: 5 of 123 programs with a decision never
        evaluated, 1 of 35 with two one-sided decisions, 0 of 15 with a dead statement and every
        decision covered; 38 of 179 with one one-sided decision, 11 of 42 constant outputs)."""
        left = self.goals - self.covered
        decisions = {g[0] for g in left if isinstance(g[0], int)}
        if not decisions:
            return not left  # dead statements with every decision covered: no
        (only,) = decisions if len(decisions) == 1 else (None,)
        return only is not None and not ((only, True) in left and (only, False) in left)

    def missing(self) -> str | None:
        return _why(self.goals - self.covered, self.outputs, self.runs if self.values else ())


def _why(left, outputs, runs) -> str | None:
    if any(isinstance(g[0], int) for g in left):
        return "one_sided_branch"
    if left:
        return "dead_code"
    if len(outputs) < 2:
        return "constant_output"
    if runs and constant_values(runs):
        return "constant_value"
    return None


def missing(runs: list[Run], probe, *, values: bool = False) -> str | None:
    """Why ``runs`` (the usable ones) cannot cover the goals, or None when they can (with ``values``, the
    used calls' two values among the goals)."""
    usable = [r for r in runs if r.status is Status.OK]
    covered = frozenset().union(*(_covers(r) for r in usable)) if usable else frozenset()
    return _why(goals(probe) - covered, {r.output for r in usable}, usable if values else ())


def choose(runs: list[Run], probe, *, k: int, k_max: int | None = None, best_effort: bool = False) -> list[int] | str:
    """Indices (into ``runs``, in order) of the inputs to keep, or the reason no choice exists.

    Greedy set cover of :func:`goals` (ties to the earliest run), then, if the outputs are all
    equal, one run with another output, then runs in order up to ``k`` (preferring new outputs). The
    run that covers the most comes first (a row's first input then exercises most of its code).
    With ``best_effort`` (code we did not write, :mod:`execverify_data.fromcode`), the goals are those
    the runs reach: a branch no input takes, or outputs all equal, do not reject the choice; otherwise
    each used call that the runs evaluate twice or more must give two values on the chosen ones (a run
    that gives another value is added, the first in order).
    """
    k_max = k_max if k_max is not None else k + 3
    usable = [i for i, r in enumerate(runs) if r.status is Status.OK]
    if best_effort:
        if not usable:
            return "too_few_inputs"
        reached = frozenset().union(*(_covers(runs[i]) for i in usable))
        left = set(goals(probe) & reached)
    else:
        why = missing(runs, probe, values=True)
        if why is not None:
            return why
        left = set(goals(probe))
    chosen: list[int] = []
    while left:
        best = max(usable, key=lambda i: (len(_covers(runs[i]) & left), -i))
        gain = _covers(runs[best]) & left
        if not gain:  # pragma: no cover - missing() said every goal is covered by some run
            return "dead_code"
        chosen.append(best)
        left -= gain
    outputs = {runs[i].output for i in chosen}
    if len(outputs) < 2 and (not best_effort or any(runs[i].output not in outputs for i in usable)):
        other = next(i for i in usable if runs[i].output not in outputs)
        chosen.append(other)
        outputs.add(runs[other].output)

    def vary() -> None:  # a run that gives another value of each call the chosen evaluate twice to one value
        if best_effort:
            return
        for call in constant_values([runs[i] for i in chosen]):
            if call in constant_values([runs[i] for i in chosen]):  # an earlier addition may have varied it
                keys = {key for i in chosen for c, key in runs[i].values if c == call}
                chosen.append(next(i for i in usable if any(c == call and key not in keys for c, key in runs[i].values)))

    def keeps_values(i: int) -> bool:
        return best_effort or not constant_values([runs[j] for j in (*chosen, i)])

    vary()
    for i in usable:  # up to k: new outputs first, then runs that leave no call with one value, then any
        if len(chosen) >= k:
            break
        if i not in chosen and runs[i].output not in outputs and keeps_values(i):
            chosen.append(i)
            outputs.add(runs[i].output)
    for fits in (keeps_values, lambda i: True):
        for i in usable:
            if len(chosen) >= k:
                break
            if i not in chosen and fits(i):
                chosen.append(i)
    vary()
    if len(chosen) < k and not best_effort:  # best effort: what there is (the caller sets its own minimum)
        return "too_few_inputs"
    if len(chosen) > k_max:
        if not best_effort:
            return "too_many_inputs"
        chosen = chosen[:k_max]  # the greedy order: the inputs that cover the most come first
    return [chosen[0], *sorted(chosen[1:])]  # the input that reaches the most first, the others in order


def branch_coverage(runs: list[Run], probe, *, returning: bool = False) -> float | None:
    """The share of decision outcomes (both ways of every ``if``, ``while``, conditional expression and
    comprehension ``if``) that ``runs`` reach; None for code without decisions. With ``returning``, of the
    outcomes an input that returns can take: the sides that end the call raising (:func:`raising_sides`) are
    not counted (None when no other is left)."""
    wanted = {(i, b) for i in probe.tests for b in (True, False)} - (probe.raising if returning else frozenset())
    if not wanted:
        return None
    reached = set().union(*(r.outcomes for r in runs if r.status is Status.OK)) if runs else set()
    return round(len(wanted & reached) / len(wanted), 4)
