"""Execution measures: a program run on inputs with probes (:mod:`execverify_data.instrument`) that record every
test's outcome, every statement that ran and the type of every formatted value; on its own inputs, and on small
same-type edits of its first."""

from __future__ import annotations

import ast
import builtins
import contextlib
import hashlib
import io
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from execverify_data.astwalk import walk
from execverify_data.errors import (
    AnswerError,
    InvalidArgument,
    ProgramError,
    check_int,
    check_seconds,
)
from execverify_data.instrument import OVER_BUDGET, Budget, probe_call, wrap_tests
from execverify_data.naturalness.patterns import (
    builtin_called,
    container_form,
    parse_program,
    read_names,
    value_sites,
)
from execverify_data.trace import Status, trusted_arguments
from execverify_data.values import encode, format_arguments, parse_arguments

__all__ = ["TEST_KINDS", "Observation", "Share", "Site", "container_reprs", "dead_statements", "edited_inputs",
           "effectless_calls", "never_evaluated_tests", "observe", "one_sided_tests", "small_edits"]

#: The tests the execution measures count by default: ``if``, ``elif``, ``while`` and conditional
#: expressions. :func:`observe` also records ``"boolop"`` tests (each operand of ``and``/``or`` but the
#: last: its truth decides whether the next one runs), counted when ``kinds`` names them.
#: Comprehension filters are not recorded.
TEST_KINDS = ("if", "elif", "while", "ifexp")


class Share(NamedTuple):
    """``hits`` of ``total`` (``percent`` is ``None`` when ``total`` is 0)."""

    hits: int
    total: int

    @property
    def percent(self) -> float | None:
        return 100.0 * self.hits / self.total if self.total else None


class Site(NamedTuple):
    """A place in a program: ``index`` in :func:`execverify_data.astwalk.walk` order of the module,
    its ``line``, and its ``kind`` (a test kind of :data:`TEST_KINDS` or ``'boolop'``, a statement's
    class name, or ``'repr'``/``'fstring'`` for a formatted value)."""

    index: int
    line: int
    kind: str


@dataclass(frozen=True)
class Observation:
    """What the probes saw over the runs of one program that completed: ``tests`` (every test of the functions
    the entry point reaches, ``Site -> frozenset`` of the outcomes it took: empty if never evaluated),
    ``statements`` (``Site -> bool``, whether it ran; docstrings left out), ``values`` (every ``repr(x)`` and
    f-string field, ``Site -> frozenset`` of the formatted values' type names), ``inputs`` (those whose runs
    completed) and ``failed`` (runs that raised or went past the budget, not observed)."""

    tests: dict
    statements: dict
    values: dict
    inputs: tuple = ()
    failed: int = 0


class _Probe(Budget):
    """What one run does: the tests' outcomes, the statements that ran (``ran``, the budget's steps), the type
    names of the formatted values, and how the run ended (``status``)."""

    __slots__ = ("status", "tests", "text", "values")

    def __init__(self, max_steps: int):
        super().__init__(max_steps)
        self.tests, self.values, self.status = set(), set(), Status.OK  # {(index, outcome)}, {(index, type name)}
        self.text: str | None = None  # the literal text of arguments given as expressions (trusted inputs)

    def test(self, index: int, value):
        self.tests.add((index, bool(value)))
        return value

    def value(self, index: int, value):
        self.values.add((index, type(value).__name__))
        return value


def _reached(tree: ast.Module, entry_point: str) -> list[ast.AST]:
    """The module-level functions the entry point reaches by name (itself first), transitively."""
    functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if entry_point not in functions:
        raise ProgramError(f"the program defines no function named {entry_point!r} at module level; "
                           f"pass one of {sorted(functions)}")
    order, todo = [], [entry_point]
    while todo:
        name = todo.pop(0)
        if name in order:
            continue
        order.append(name)
        todo.extend(sorted(read_names([functions[name]]) & functions.keys() - set(order)))
    return [functions[name] for name in order]


_STATEMENT_LISTS = ("body", "orelse", "finalbody")


class ProbedProgram:
    """One program, instrumented once (a fresh parse of its source) and run on any number of inputs."""

    def __init__(self, source: str, entry_point: str, *, max_steps: int, timeout: float):
        check_int("max_steps", max_steps)
        check_seconds("timeout", timeout)
        _, bound, _ = parse_program(source)  # validates the source
        tree = ast.parse(source)
        nodes = walk(tree)
        order = {id(n): i for i, n in enumerate(nodes)}
        self.entry_point, self.max_steps, self.timeout = entry_point, max_steps, timeout
        self.tests: list[Site] = []
        self.statements: list[Site] = []
        self.values: list[Site] = []
        reached = _reached(tree, entry_point)
        inside = [n for f in reached for n in walk(f)]
        elifs = {id(n.orelse[0]) for n in inside if isinstance(n, ast.If) and len(n.orelse) == 1
                 and isinstance(n.orelse[0], ast.If) and n.orelse[0].col_offset == n.col_offset}
        for node, kind, expr in value_sites(inside, bound):
            site = Site(order[id(node)], node.lineno, kind)
            self.values.append(site)
            if kind == "repr":
                node.args[0] = probe_call("__nat_v__", site.index, expr)
            else:
                node.value = probe_call("__nat_v__", site.index, expr)

        def test(expr: ast.expr, node: ast.AST, kind: str) -> ast.expr:
            if kind == "comprehension":
                return expr
            where = expr if kind == "boolop" else node
            site = Site(order[id(where)], where.lineno, "elif" if id(node) in elifs else kind)
            self.tests.append(site)
            return probe_call("__nat_t__", site.index, expr)

        for function in reached:
            wrap_tests(function, test)
        self.tests.sort()  # walk order
        for node in inside:
            for field in _STATEMENT_LISTS:
                body = getattr(node, field, None)
                if not isinstance(body, list) or not body or not isinstance(body[0], ast.stmt):
                    continue
                probed = []
                for position, statement in enumerate(body):
                    if (position == 0 and field == "body" and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                            and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
                            and isinstance(statement.value.value, str)):
                        probed.append(statement)  # a docstring: not a statement that runs
                        continue
                    site = Site(order[id(statement)], statement.lineno, type(statement).__name__)
                    self.statements.append(site)
                    probe = ast.Expr(probe_call("__nat_s__", site.index, statement, wrap=False))
                    probed += [ast.copy_location(probe, statement), statement]
                setattr(node, field, probed)
        # handlers (ExceptHandler) and match cases have bodies of their own: they are nodes of ``inside`` too
        self.code = compile(tree, "<naturalness>", "exec", dont_inherit=True)

    def run(self, text: str, *, trusted: bool = False) -> _Probe:
        """Run the entry point on the argument text; the probe's ``status`` says how the call ended.

        With ``trusted``, a text that is not a list of literals (a few CRUXEval inputs: ``"''.join(['A'] * 20)"``)
        is evaluated in the program's namespace, as the tracer's ``trusted_call`` does; the probe's ``text`` is
        then the arguments' literal text, when they have one."""
        try:
            args, kwargs = parse_arguments(text)
        except AnswerError as exc:
            if not trusted:
                raise ProgramError(f"the input {text[:80]!r} is not a literal argument list ({exc}); "
                                   "for trusted benchmark data pass trusted_inputs=True") from None
            args = kwargs = None
        probe = _Probe(self.max_steps)
        namespace = {"__name__": "__main__", "__builtins__": builtins, "__nat_t__": probe.test,
                     "__nat_s__": probe.step, "__nat_v__": probe.value}

        def call():
            nonlocal args, kwargs
            with contextlib.redirect_stdout(io.StringIO()):
                exec(self.code, namespace)  # trusted: our synthesized programs and benchmark data, with probes
                if args is None:
                    _, args, kwargs = trusted_arguments(f"{self.entry_point}({text})", namespace)
                    with contextlib.suppress(Exception):
                        probe.text = format_arguments(args, kwargs)
                namespace[self.entry_point](*args, **kwargs)

        probe.status, _ = probe.run(call, timeout=self.timeout)
        return probe

    def observation(self, runs: list[tuple[str, _Probe]]) -> Observation:
        """What the completed runs of ``runs`` (``(input, probe)`` pairs) did, merged."""
        done = [(text, probe) for text, probe in runs if probe.status is Status.OK]
        outcomes: dict[int, set[bool]] = {}
        kinds: dict[int, set[str]] = {}
        ran: set[int] = set()
        for _, probe in done:
            for index, outcome in probe.tests:
                outcomes.setdefault(index, set()).add(outcome)
            for index, kind in probe.values:
                kinds.setdefault(index, set()).add(kind)
            ran |= probe.ran
        return Observation(
            tests={s: frozenset(outcomes.get(s.index, ())) for s in self.tests},
            statements={s: s.index in ran for s in self.statements},
            values={s: frozenset(kinds.get(s.index, ())) for s in self.values},
            inputs=tuple(text for text, _ in done),
            failed=len(runs) - len(done),
        )


def observe(source: str, entry_point: str, inputs: Sequence[str], *, max_steps: int = 20_000,
            timeout: float = 2.0, trusted_inputs: bool = False) -> Observation:
    """Run ``entry_point(*args)`` with probes for each argument text of ``inputs`` (CRUXEval ``input`` format,
    ``"[1, 2], 'a'"``): what the runs that completed did, in the entry point and the module-level functions it
    reaches by name. A run that raises, executes more than ``max_steps`` statements or runs past ``timeout``
    seconds (an alarm: main thread only) is counted in ``failed``. ``trusted_inputs`` lets argument texts be
    expressions, evaluated in the program's namespace (trusted benchmark data only).

    >>> obs = observe("def f(n):\\n    return 'big' if n > 9 else 'small'\\n", "f", ["3", "12", "'x'"])
    >>> [(s.kind, sorted(o)) for s, o in obs.tests.items()], obs.failed
    ([('ifexp', [False, True])], 1)
    """
    if isinstance(inputs, str):
        raise InvalidArgument("inputs must be a sequence of argument texts such as [\"[1, 2], 'a'\"], not one str")
    program = ProbedProgram(source, entry_point, max_steps=max_steps, timeout=timeout)
    return program.observation([(text, program.run(text, trusted=trusted_inputs)) for text in inputs])


def one_sided_tests(observation: Observation, kinds: Sequence[str] = TEST_KINDS) -> Share:
    """Tests (of ``kinds``) that did not take both outcomes over the observed runs, of all tests; a test
    never evaluated counts as one-sided too.

    >>> obs = observe("def f(n):\\n    if n > 0:\\n        return 1\\n    return 2\\n", "f", ["1", "2"])
    >>> one_sided_tests(obs).percent
    100.0
    """
    tests = [o for s, o in observation.tests.items() if s.kind in kinds]
    return Share(sum(1 for o in tests if len(o) < 2), len(tests))


def never_evaluated_tests(observation: Observation, kinds: Sequence[str] = TEST_KINDS) -> Share:
    """Tests (of ``kinds``) that no observed run evaluated, of all tests.

    >>> source = "def f(n):\\n    if n > 0:\\n        return 1\\n    while n < -5:\\n        n += 1\\n    return n\\n"
    >>> never_evaluated_tests(observe(source, "f", ["1"]))
    Share(hits=1, total=2)
    """
    tests = [o for s, o in observation.tests.items() if s.kind in kinds]
    return Share(sum(1 for o in tests if not o), len(tests))


def dead_statements(observation: Observation) -> Share:
    """Statements that no observed run executed, of all statements of the probed functions (every
    statement counts, compound ones too; docstrings do not).

    >>> dead_statements(observe("def f(n):\\n    if n > 0:\\n        return 1\\n    return 2\\n", "f", ["1"]))
    Share(hits=1, total=3)
    """
    return Share(sum(1 for ran in observation.statements.values() if not ran), len(observation.statements))


# ---------------------------------------------------------------------- small same-type edits


def _edit_seed(seed: int, first: str) -> int:
    return int.from_bytes(hashlib.sha256(f"naturalness-edit\0{seed}\0{first}".encode()).digest()[:8], "big")


def small_edits(first: str, types: Sequence[str] | None = None, *, seed: int = 0, tries: int = 20) -> Iterator[str]:
    """Up to ``tries`` candidate small same-type edits of the argument text ``first``, distinct from it and
    from each other: each one :func:`execverify_data.inputs.mutate` of one positional argument, chosen
    uniformly among those whose type is known (``types``, else :func:`~execverify_data.inputs.type_text_of`
    of the value; what each type's edit is: ``docs/synthesis.md``). The random choices come from ``seed``
    and ``first`` only.

    >>> edits = list(small_edits("[1, 2, 3], 'ab'", seed=0, tries=3))
    >>> len(edits), edits == list(small_edits("[1, 2, 3], 'ab'", seed=0, tries=3)), "[1, 2, 3], 'ab'" in edits
    (3, True, False)
    """
    from execverify_data.inputs import mutate, type_text_of

    args, kwargs = parse_arguments(first)
    if types is None:
        types = [type_text_of(a) for a in args]
    elif len(types) != len(args):
        raise InvalidArgument(f"{len(types)} types given for the {len(args)} arguments of {first[:80]!r}")
    editable = [i for i, t in enumerate(types) if t is not None]
    rng = random.Random(_edit_seed(seed, first))
    seen = {format_arguments(args, kwargs)}
    for _ in range(tries if editable else 0):
        i = rng.choice(editable)
        fresh, _ = parse_arguments(first)
        try:
            fresh = list(fresh)
            fresh[i] = mutate(fresh[i], types[i], rng)
            text = format_arguments(fresh, kwargs)
        except Exception:  # noqa: BLE001 - a value the type language cannot edit: no candidate
            continue
        if text not in seen:
            seen.add(text)
            yield text


def edited_inputs(source: str, entry_point: str, first: str, *, types: Sequence[str] | None = None, seed: int = 0,
                  k: int = 2, tries: int = 20, max_steps: int = 20_000, timeout: float = 2.0) -> list[str]:
    """The first ``k`` candidates of :func:`small_edits` on which the program completes within the budget;
    fewer if ``tries`` candidates give fewer, or once two have run past the budget (a program that loops on
    edits costs two budgets, not ``tries``). "First input plus two edits" is ``[first] + edited_inputs(...)``.

    >>> list(small_edits("2", seed=2))[:3]  # n = 4 divides by zero: that edit is passed over
    ['0', '4', '3']
    >>> edited_inputs("def f(n):\\n    return 10 // (n - 4)\\n", "f", "2", seed=2)
    ['0', '3']
    """
    program = ProbedProgram(source, entry_point, max_steps=max_steps, timeout=timeout)
    return [text for text, _ in edited_runs(program, first, types, seed, k, tries)]


def edited_runs(program: ProbedProgram, first: str, types, seed: int, k: int, tries: int) -> list[tuple[str, _Probe]]:
    kept, stalls = [], 0
    for text in small_edits(first, types, seed=seed, tries=tries):
        probe = program.run(text)
        if probe.status is Status.OK:
            kept.append((text, probe))
            if len(kept) >= k:
                break
        elif probe.status in OVER_BUDGET:
            stalls += 1
            if stalls >= _MAX_STALLS:
                break
    return kept


#: Candidate edits past the budget (statements or time) after which a program gets no more candidates.
_MAX_STALLS = 2

#: The type names of containers (an observed value of one, formatted, is a container repr).
_CONTAINER_TYPES = frozenset({"list", "tuple", "dict", "set", "frozenset", "deque", "Counter", "defaultdict",
                              "OrderedDict", "dict_keys", "dict_values", "dict_items"})


def container_reprs(program: str, observation: Observation | None = None) -> int:
    """Count ``repr(x)`` calls and f-string fields that format a container as a value (not straight to
    ``print``). Types come from ``observation`` where the site ran, else from the expression's form.

    >>> source = "def f(xs: list[int], n: int):\\n    return repr(xs) + f'{n}' + f'{sorted(xs)}'\\n"
    >>> container_reprs(source)
    2
    >>> from execverify_data.naturalness import observe
    >>> container_reprs("def f(v):\\n    return repr(v)\\n", observe("def f(v):\\n    return repr(v)\\n", "f", ["[1]"]))
    1
    """
    nodes, bound, _ = parse_program(program)
    annotations = {n.arg: ast.unparse(n.annotation) for n in nodes if isinstance(n, ast.arg) and n.annotation is not None}
    order = {id(n): i for i, n in enumerate(nodes)}
    seen = {site.index: kinds for site, kinds in observation.values.items()} if observation is not None else {}
    count = 0
    for node, _, expr in value_sites(nodes, bound):
        kinds = seen.get(order[id(node)])
        count += bool(kinds & _CONTAINER_TYPES) if kinds else container_form(expr, annotations, bound)
    return count


def _span(node: ast.AST) -> tuple:
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset


def _stand_in(call: ast.Call, bound: frozenset[str]) -> ast.expr | None:
    """What a call is replaced with: a method call by its receiver, a builtin call by its first argument
    (``print`` and calls without a plain first argument have none)."""
    if isinstance(call.func, ast.Attribute):
        return call.func.value
    name = builtin_called(call, bound)
    if name is not None and name != "print" and call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return None


def _output(code, entry_point: str, text: str, *, trusted: bool, max_steps: int, timeout: float,
            active: int = -1) -> tuple[str | None, bool]:
    """The canonical text of ``entry_point``'s return value on the argument text ``text`` (None when the run does
    not return within the budget, or returns a value without a literal), and whether ``__ran__`` was reached;
    ``code`` is :func:`_switchable`'s, with call ``active`` replaced by its stand-in (none: -1)."""
    ran = []

    def reached(value, orders: bool = False):
        """The stand-in's value; for a ``sorted`` over a set, the set's items in reverse order rather than in this
        process's hash order, which another process does not share (sorting a set is an effect where order counts)."""
        ran.append(1)
        if orders and isinstance(value, (set, frozenset)):
            try:
                return sorted(value, reverse=True)
            except TypeError:  # items with no order: sorted(...) itself raises on them
                return value
        return value

    namespace = {"__name__": "__main__", "__builtins__": builtins, "__ran__": reached, "__active__": active}
    budget = Budget(max_steps)

    def call():
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, namespace)  # trusted: our synthesized programs and benchmark data
            if trusted:
                _, args, kwargs = trusted_arguments(f"{entry_point}({text})", namespace)
            else:
                args, kwargs = parse_arguments(text)
            return namespace[entry_point](*args, **kwargs)

    status, value = budget.run(call, timeout=timeout, lines_of="<effect>")
    canonical = encode(value) if status is Status.OK else None
    return (canonical.text if canonical is not None and canonical.askable else None), bool(ran)


def effectless_calls(source: str, entry_point: str, text: str, *, max_steps: int = 20_000, timeout: float = 2.0,
                     trusted: bool = False) -> tuple[int, int] | None:
    """``(hits, calls)``: of the builtin and method calls in the functions the entry point reaches that run on the
    argument text ``text`` (``calls``), those whose replacement by their receiver or first argument (``sorted(xs)``
    -> ``xs``, ``text.expandtabs(4)`` -> ``text``) leaves the return value the same (``hits``): a step with no
    effect on the result. None when the unchanged program does not return a value with a literal on ``text``.

    >>> effectless_calls("def f(xs):\\n    return sum(sorted(xs)) + len(xs) if xs else 0\\n", "f", "[3, 1]")
    (1, 3)
    """
    runs = _replaced_runs(source, entry_point, [text], max_steps=max_steps, timeout=timeout, trusted=trusted)
    if runs is None:
        return None
    outcomes = [r[0] for r in runs.values()]
    return sum(ran and same for ran, same in outcomes), sum(ran for ran, _ in outcomes)


def effectless_sites(source: str, entry_point: str, texts: list[str], *, max_steps: int = 20_000,
                     timeout: float = 2.0) -> list[str]:
    """The calls (as source text) that run on some of the argument texts ``texts`` and, replaced by their receiver or
    first argument, leave the return value the same on every one where they run: steps with no effect on any
    input. Empty when a text gives no value with a literal.

    >>> effectless_sites("def f(xs):\\n    return sum(sorted(xs))\\n", "f", ["[3, 1]", "[2]"])
    ['sorted(xs)']
    """
    runs = _replaced_runs(source, entry_point, texts, max_steps=max_steps, timeout=timeout, trusted=False)
    if runs is None:
        return []
    lines = source.splitlines()
    out = []
    for (line, col, end_line, end_col), outcomes in runs.items():
        if any(ran for ran, _ in outcomes) and all(same for ran, same in outcomes if ran):
            out.append(lines[line - 1][col:end_col] if line == end_line else f"line {line}")
    return out


def _replaced_runs(source: str, entry_point: str, texts: list[str], *, max_steps: int, timeout: float,
                   trusted: bool) -> dict[tuple, list[tuple[bool, bool]]] | None:
    """For each call with a stand-in (its span): on each text, whether it ran and whether the output with the call
    replaced by its stand-in is the unchanged output. None when the unchanged program gives no value on a text."""
    _, bound, _ = parse_program(source)
    tree = ast.parse(source)
    reached = _reached(tree, entry_point)
    calls = [n for f in reached for n in walk(f) if isinstance(n, ast.Call) and _stand_in(n, bound) is not None]
    code = _switchable(tree, calls, bound)
    run = {"trusted": trusted, "max_steps": max_steps, "timeout": timeout}
    expected = []
    for text in texts:
        out, _ = _output(code, entry_point, text, **run)
        if out is None:
            return None
        expected.append(out)
    result: dict[tuple, list[tuple[bool, bool]]] = {}
    for i, node in enumerate(calls):
        outcomes = []
        for text, want in zip(texts, expected):
            output, ran = _output(code, entry_point, text, active=i, **run)
            outcomes.append((ran, output == want))
        result[_span(node)] = outcomes
    return result


def _switchable(tree: ast.Module, calls: list[ast.Call], bound: frozenset[str]):
    """``tree`` compiled once with each of ``calls`` (the ``i``-th) made ``(__ran__(stand_in) if __active__ == i
    else call)``: the program itself while ``__active__`` is -1, with one call replaced by its stand-in otherwise
    (``__ran__`` notes that the step was reached). ``tree`` is changed."""
    index = {id(c): i for i, c in enumerate(calls)}

    class Switch(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)  # calls inside it first: a stand-in may hold one (sorted(set(xs)))
            i = index.get(id(node))
            if i is None:
                return node
            orders = [ast.Constant(True)] if builtin_called(node, bound) == "sorted" else []
            marked = ast.Call(ast.Name("__ran__", ast.Load()), [_stand_in(node, bound), *orders], [])
            test = ast.Compare(ast.Name("__active__", ast.Load()), [ast.Eq()], [ast.Constant(i)])
            return ast.copy_location(ast.IfExp(test, marked, node), node)

    switched = ast.fix_missing_locations(Switch().visit(tree))
    return compile(switched, "<effect>", "exec", dont_inherit=True)
