"""Naturalness measures: how much a set of programs reads like code people write (issue #13).

Three families, each a function importable by tests (``docs/synthesis.md``, section
"Naturalness measures", has the definitions side by side and the benchmark that prints them):

* **Execution measures.** :func:`observe` runs a program on some inputs with probes that
  record the outcome of every ``if``/``elif``/``while`` test and conditional expression,
  every statement that ran, and the type of every value given to ``repr()`` or an
  f-string. :func:`one_sided_tests`, :func:`never_evaluated_tests` and
  :func:`dead_statements` read an :class:`Observation`; :func:`edited_inputs` makes the
  "small same-type edits" of a first input.
* **AST pattern counts**, one function per pattern, each taking the program text:
  :func:`finishing_wrappers`, :func:`nested_builtins`, :func:`round_trips`,
  :func:`loops_ignoring_variable`, :func:`countdown_loops`, :func:`self_nested_tests`,
  :func:`literal_subscripts`, :func:`dict_literal_membership`, :func:`container_reprs`,
  :func:`self_receiver_calls`, :func:`distinct_calls`, :func:`shadowed_builtins`,
  :func:`underscore_names`.
* **Linter rates**: :func:`lint_counts` runs ruff (SIM300, SIM102, SIM114, C413) and pylint
  (R5601) as subprocesses over files in a temporary folder.

The programs are trusted (our own synthesized programs, benchmark data): :func:`observe`
runs them in this process, with a statement budget and a wall-clock alarm.

>>> source = "def f(xs):\\n    n = 0\\n    for x in xs:\\n        if x > 0:\\n            n += x\\n    return n\\n"
>>> obs = observe(source, "f", ["[1, 2]", "[3]"])
>>> one_sided_tests(obs), dead_statements(obs)
(Share(hits=1, total=1), Share(hits=0, total=5))
>>> one_sided_tests(observe(source, "f", ["[1, -2]"]))
Share(hits=0, total=1)
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import hashlib
import io
import json
import os
import random
import re
import signal
import statistics as _statistics
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, NamedTuple, Sequence

from execverify_data.astwalk import walk
from execverify_data.errors import AnswerError, ExecVerifyError, InvalidArgument, ProgramError
from execverify_data.trace import _trusted_arguments  # the one evaluation of trusted call expressions
from execverify_data.values import format_arguments, parse_arguments

__all__ = [
    "CRUXEVAL",
    "EXECUTION_INPUTS",
    "HUMANEVAL",
    "LINT_RULES",
    "MEASURES",
    "aggregate",
    "TEST_KINDS",
    "Observation",
    "Share",
    "Site",
    "container_reprs",
    "countdown_loops",
    "dead_statements",
    "dict_literal_membership",
    "distinct_calls",
    "benchmark_programs",
    "candidate_inputs",
    "edited_inputs",
    "finishing_wrappers",
    "lint_counts",
    "literal_subscripts",
    "loops_ignoring_variable",
    "measure_programs",
    "nested_builtins",
    "never_evaluated_tests",
    "observe",
    "one_sided_tests",
    "program_figures",
    "round_trips",
    "self_nested_tests",
    "self_receiver_calls",
    "shadowed_builtins",
    "small_edits",
    "type_text_of",
    "underscore_names",
]

#: The tests the execution measures count by default: ``if``, ``elif``, ``while`` and conditional
#: expressions. :func:`observe` also records ``"boolop"`` tests (each operand of ``and``/``or`` but the
#: last: its truth decides whether the next one runs), counted when ``kinds`` names them.
#: Comprehension filters are not recorded.
TEST_KINDS = ("if", "elif", "while", "ifexp")
#: The linter rules of :func:`lint_counts`: ruff's codes, then pylint's.
LINT_RULES = ("SIM300", "SIM102", "SIM114", "C413", "R5601")
_RUFF_RULES = LINT_RULES[:4]

_BUILTIN_NAMES = frozenset(name for name in dir(builtins) if not name.startswith("_"))
_BUILTIN_FUNCTIONS = frozenset(
    name for name in _BUILTIN_NAMES
    if callable(getattr(builtins, name))
    and not (isinstance(getattr(builtins, name), type) and issubclass(getattr(builtins, name), BaseException))
)
_CONTAINER_TYPES = frozenset({"list", "tuple", "dict", "set", "frozenset", "deque", "Counter", "defaultdict",
                              "OrderedDict", "dict_keys", "dict_values", "dict_items"})
_CONTAINER_BUILDERS = frozenset({"list", "tuple", "dict", "set", "frozenset", "sorted"})
_CONTAINER_ANNOTATION = re.compile(r"^(list|tuple|dict|set|frozenset|List|Tuple|Dict|Set|FrozenSet)\b")
_SCALAR_CONVERSIONS = frozenset({"bool", "int", "float", "str"})
#: (outer, inner) pairs of builtin calls whose outer call undoes, repeats or discards the inner one.
_ROUND_TRIP_PAIRS = frozenset(
    {(o, i) for o in _SCALAR_CONVERSIONS for i in _SCALAR_CONVERSIONS}
    | {("reversed", "sorted"), ("sorted", "sorted"), ("sorted", "reversed"), ("set", "sorted"), ("set", "reversed"),
       ("frozenset", "sorted"), ("list", "sorted"), ("list", "list"),
       ("tuple", "tuple"), ("set", "set"), ("frozenset", "frozenset"), ("dict", "dict"), ("ord", "chr"), ("chr", "ord")}
)


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
    """What the probes saw over the runs of one program that completed.

    Args:
        tests (`dict[Site, frozenset[bool]]`): every test of the functions the entry point reaches,
            with the outcomes it took (an empty set: never evaluated).
        statements (`dict[Site, bool]`): every statement of those functions (docstrings left out),
            and whether it ran.
        values (`dict[Site, frozenset[str]]`): every ``repr(x)`` and f-string field, with the type
            names of the values it formatted.
        inputs (`tuple[str, ...]`): the inputs whose runs completed (the ones observed).
        failed (`int`): runs that raised or went past the budget (not observed).
    """

    tests: dict
    statements: dict
    values: dict
    inputs: tuple = ()
    failed: int = 0


# ---------------------------------------------------------------------- parsing and names


@lru_cache(maxsize=64)
def _parsed(source: str) -> tuple[ast.Module, list[ast.AST], frozenset[str], frozenset[str]]:
    """The module, its nodes in walk order, the names the program binds, and the names imports bind."""
    if not isinstance(source, str):
        raise InvalidArgument(f"a program must be given as its source text (str), got {type(source).__name__}")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ProgramError(f"the program does not parse: {exc.msg} (line {exc.lineno}); pass valid Python source") from None
    nodes = walk(tree)
    bound: set[str] = set()
    imported: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                imported.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return tree, nodes, frozenset(bound), frozenset(imported)


def _builtin(node: ast.AST, bound: frozenset[str]) -> str | None:
    """The name of the builtin function ``node`` calls (by a name the program does not rebind), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name in _BUILTIN_FUNCTIONS and name not in bound:
            return name
    return None


def _arguments(call: ast.Call) -> list[ast.AST]:
    """The positional (unstarred) and keyword argument expressions of a call."""
    return [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]


def _read_names(nodes) -> set[str]:
    return {n.id for st in nodes for n in walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


# ---------------------------------------------------------------------- AST pattern counts


def finishing_wrappers(program: str) -> int:
    """Count ``return f(g(...))``: ``return`` statements whose value is a call of a builtin function
    whose first positional argument is itself a call of a builtin function (``return sorted(set(r))``,
    ``return list(divmod(abs(t), 10))``). Methods do not count (``return ''.join(sorted(r))`` is not one),
    nor builtins the program rebinds.

    >>> finishing_wrappers("def f(xs):\\n    return list(enumerate(sorted(xs)))\\n")
    1
    >>> finishing_wrappers("def f(xs):\\n    return ''.join(sorted(xs)) + str(len(xs))\\n")
    0
    """
    _, nodes, bound, _ = _parsed(program)
    count = 0
    for node in nodes:
        if isinstance(node, ast.Return) and _builtin(node.value, bound) and node.value.args:
            count += _builtin(node.value.args[0], bound) is not None
    return count


def nested_builtins(program: str, depth: int = 3) -> int:
    """Count chains of ``depth`` (default 3) builtin-function calls, each a direct argument of the one
    outside it, in one expression (``list(enumerate(sorted(seen)))``); a longer chain counts once.

    >>> nested_builtins("def f(t):\\n    return list(divmod(abs(t), 10))\\n")
    1
    >>> nested_builtins("def f(t):\\n    return sorted(set(t)), len(t.split())\\n")
    0
    """
    _, nodes, bound, _ = _parsed(program)
    calls = [n for n in nodes if _builtin(n, bound)]
    inner: dict[int, list[ast.Call]] = {id(c): [a for a in _arguments(c) if _builtin(a, bound)] for c in calls}
    chain: dict[int, int] = {}

    def length(call: ast.Call) -> int:
        if id(call) not in chain:
            chain[id(call)] = 1 + max((length(a) for a in inner[id(call)]), default=0)
        return chain[id(call)]

    nested = {id(a) for c in calls for a in inner[id(c)]}
    return sum(1 for c in calls if id(c) not in nested and length(c) >= depth)


def round_trips(program: str) -> int:
    """Count conversion round trips: a builtin call whose first argument is a builtin call that it undoes,
    repeats or discards. The pairs (outer, inner): any two of ``bool``/``int``/``float``/``str``
    (``str(int(bool(x)))``); ``reversed(sorted(..))``, ``sorted(sorted(..))``, ``sorted(reversed(..))``,
    ``set(sorted(..))``, ``set(reversed(..))``, ``frozenset(sorted(..))``; a copy into the type the inner
    call already gives: ``list(sorted(..))``, ``list(list(..))``, ``tuple(tuple(..))``, ``set(set(..))``,
    ``frozenset(frozenset(..))``, ``dict(dict(..))``; ``ord(chr(..))`` and ``chr(ord(..))`` (a code point and its
    character, each the other's inverse). ``sorted(list(..))`` does not count (a redundant
    but harmless copy people write). A chain of such pairs counts once
    (``list(reversed(sorted(x)))`` is one).

    >>> round_trips("def f(x):\\n    return str(int(bool(x))), list(reversed(sorted(x)))\\n")
    2
    >>> round_trips("def f(x):\\n    return sorted(set(x)), list(reversed(x)), int(x) + 1\\n")
    0
    """
    _, nodes, bound, _ = _parsed(program)
    pairs: dict[int, ast.Call] = {}
    for node in nodes:
        outer = _builtin(node, bound)
        if outer and node.args:
            inner = _builtin(node.args[0], bound)
            if inner and (outer, inner) in _ROUND_TRIP_PAIRS:
                pairs[id(node)] = node.args[0]
    inners = {id(i) for i in pairs.values()}
    return sum(1 for key in pairs if key not in inners)


def loops_ignoring_variable(program: str) -> int:
    """Count loops whose body (``else`` left out) never reads the loop variable: ``for`` statements whose
    body reads none of the names the target binds (``for _ in xs:`` counts), and ``while`` statements
    whose body reads none of the names the test reads (``while i > 0: i -= 1; ...`` with ``i`` unread:
    an augmented assignment's target is not a read). Comprehensions do not count.

    >>> loops_ignoring_variable("def f(xs):\\n    n = 0\\n    for x in xs:\\n        n += 1\\n    for y in xs:\\n        n += y\\n    return n\\n")
    1
    >>> loops_ignoring_variable("def f(xs):\\n    i = len(xs)\\n    while i > 0:\\n        i -= 1\\n    while xs:\\n        xs.pop()\\n    return i\\n")
    1
    """
    _, nodes, _, _ = _parsed(program)
    count = 0
    for node in nodes:
        if isinstance(node, (ast.For, ast.AsyncFor)):
            names = {n.id for n in walk(node.target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.While):
            names = {n.id for n in walk(node.test) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        else:
            continue
        if names and not names & _read_names(node.body):
            count += 1
    return count


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


def countdown_loops(program: str) -> int:
    """Count the ``i = len(x)`` / ``while i > 0: i -= 1`` walk: ``while v > 0:`` loops (or ``0 < v``)
    whose body has ``v -= 1`` among its top-level statements, where ``v`` is assigned ``len(...)``
    somewhere in the program. The benchmark reports the share of programs with at least one.

    >>> countdown_loops("def f(xs):\\n    i = len(xs)\\n    while i > 0:\\n        i -= 1\\n    return i\\n")
    1
    >>> countdown_loops("def f(n):\\n    while n > 0:\\n        n -= 1\\n    return n\\n")
    0
    """
    _, nodes, bound, _ = _parsed(program)
    lengths = {n.targets[0].id for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name) and _builtin(n.value, bound) == "len"}
    count = 0
    for node in nodes:
        if not (isinstance(node, ast.While) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1):
            continue
        test, op, right = node.test.left, node.test.ops[0], node.test.comparators[0]
        if isinstance(op, ast.Gt) and isinstance(test, ast.Name) and _is_zero(right):
            name = test.id
        elif isinstance(op, ast.Lt) and _is_zero(test) and isinstance(right, ast.Name):
            name = right.id
        else:
            continue
        count += name in lengths and any(
            isinstance(st, ast.AugAssign) and isinstance(st.op, ast.Sub) and isinstance(st.target, ast.Name)
            and st.target.id == name and isinstance(st.value, ast.Constant) and st.value.value == 1
            for st in node.body
        )
    return count


def _scope_nodes(statements: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes under ``statements``, not entering nested function or class definitions."""
    todo = list(statements)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


def self_nested_tests(program: str) -> int:
    """Count ``if T:`` statements inside the body of an ``if T:`` with the same test (same AST), when the
    body never rebinds a name the test reads (``if ok:`` inside ``if ok:``).

    >>> self_nested_tests("def f(s):\\n    ok = s.isdigit()\\n    if ok:\\n        if ok:\\n            return 1\\n    return 0\\n")
    1
    >>> self_nested_tests("def f(s):\\n    ok = s.isdigit()\\n    if ok:\\n        ok = len(s) > 2\\n        if ok:\\n            return 1\\n    return 0\\n")
    0
    """
    _, nodes, _, _ = _parsed(program)
    count = 0
    for node in nodes:
        if not isinstance(node, ast.If):
            continue
        test = ast.dump(node.test)
        names = {n.id for n in walk(node.test) if isinstance(n, ast.Name)}
        inside = list(_scope_nodes(node.body))
        if any(isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id in names for n in inside):
            continue
        count += sum(1 for n in inside if isinstance(n, ast.If) and ast.dump(n.test) == test)
    return count


def _is_literal_container(node: ast.AST) -> bool:
    return isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)) or (
        isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))


def literal_subscripts(program: str) -> int:
    """Count subscripts and slices of a literal container (a list, tuple, set or dict display, or a
    string or bytes constant) whose index or slice reads a variable (``'an'[:4:x]``, ``[3, 5][i]``).

    >>> literal_subscripts("def f(x):\\n    return 'an'[:4:x] + 'ab'[0]\\n")
    1
    """
    _, nodes, _, _ = _parsed(program)
    return sum(
        1 for n in nodes
        if isinstance(n, ast.Subscript) and _is_literal_container(n.value)
        and any(isinstance(m, ast.Name) for m in walk(n.slice))
    )


def dict_literal_membership(program: str) -> int:
    """Count ``in``/``not in`` tests whose right operand is a dict display (``if n in {10: 1, 2: 1}``).

    >>> dict_literal_membership("def f(n):\\n    return n in {10: 1, 2: 1}, n in {10, 2}\\n")
    1
    """
    _, nodes, _, _ = _parsed(program)
    return sum(
        1 for n in nodes if isinstance(n, ast.Compare)
        for op, right in zip(n.ops, n.comparators)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, ast.Dict)
    )


def self_receiver_calls(program: str) -> int:
    """Count method calls that pass their own receiver as an argument (``line.count(line, 0, 3)``);
    calls on an imported module (``math.gcd(a, a)``) do not count.

    >>> self_receiver_calls("def f(line):\\n    return line.count(line, 0, 3) + line.count('a')\\n")
    1
    """
    _, nodes, _, imported = _parsed(program)
    count = 0
    for n in nodes:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            receiver = n.func.value
            if isinstance(receiver, ast.Name) and receiver.id in imported:
                continue
            text = ast.dump(receiver)
            count += any(ast.dump(a) == text for a in _arguments(n))
    return count


def distinct_calls(program: str) -> int:
    """The number of distinct builtin functions and method names the program calls (calls on an
    imported module and the program's own functions do not count).

    >>> distinct_calls("def f(xs):\\n    xs.sort()\\n    xs.sort()\\n    return len(xs), sum(xs), abs(len(xs))\\n")
    4
    """
    _, nodes, bound, imported = _parsed(program)
    names: set[str] = set()
    for n in nodes:
        if not isinstance(n, ast.Call):
            continue
        builtin_name = _builtin(n, bound)
        if builtin_name:
            names.add(builtin_name)
        elif isinstance(n.func, ast.Attribute) and not (isinstance(n.func.value, ast.Name) and n.func.value.id in imported):
            names.add("." + n.func.attr)
    return len(names)


def shadowed_builtins(program: str) -> int:
    """The number of distinct names the program binds (parameters, assignments, loop and ``with``
    targets, functions, imports) that are names of builtins (``ascii``, ``sum``, ``list``, ``id``).

    >>> shadowed_builtins("def f(ascii, n):\\n    sum = 0\\n    for x in range(n):\\n        sum += x\\n    return sum + len(ascii)\\n")
    2
    """
    _, _, bound, imported = _parsed(program)
    return len((bound | imported) & _BUILTIN_NAMES)


def underscore_names(program: str) -> int:
    """The number of distinct names the program binds that start with one underscore and a letter
    (``_integer``, left by a generator that cut ``is_`` off ``is_integer``); ``_`` itself does not count.

    >>> underscore_names("def f(value):\\n    _integer = value.is_integer()\\n    for _ in range(2):\\n        pass\\n    return _integer\\n")
    1
    """
    _, _, bound, _ = _parsed(program)
    return sum(1 for name in bound if re.match(r"_[A-Za-z]", name))


def _printed(nodes: list[ast.AST], bound: frozenset[str]) -> set[int]:
    """ids of f-strings and ``repr`` calls given directly to ``print``: output, not values."""
    return {id(a) for n in nodes if _builtin(n, bound) == "print" for a in _arguments(n)}


def _value_sites(nodes: list[ast.AST], bound: frozenset[str]) -> list[tuple[ast.AST, str, ast.AST]]:
    """``(node, kind, formatted expression)`` for every ``repr(x)`` and f-string field used as a value."""
    printed = _printed(nodes, bound)
    sites = []
    for n in nodes:
        if _builtin(n, bound) == "repr" and len(n.args) == 1 and id(n) not in printed:
            sites.append((n, "repr", n.args[0]))
        elif isinstance(n, ast.JoinedStr) and id(n) not in printed:
            sites.extend((v, "fstring", v.value) for v in n.values if isinstance(v, ast.FormattedValue))
    return sites


def _static_container(expr: ast.AST, annotations: dict[str, str], bound: frozenset[str]) -> bool:
    """Whether ``expr`` is a container by its form: a display, a comprehension, a call that builds one,
    or a parameter annotated with a container type."""
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)):
        return True
    if _builtin(expr, bound) in _CONTAINER_BUILDERS:
        return True
    return isinstance(expr, ast.Name) and bool(_CONTAINER_ANNOTATION.match(annotations.get(expr.id, "")))


def container_reprs(program: str, observation: Observation | None = None) -> int:
    """Count ``repr(x)`` calls and f-string fields (``f'{x}'``) that format a container (list, tuple,
    dict, set, deque, Counter, dict views...) as a value; those passed straight to ``print`` do not count.
    Types come from ``observation`` (the values the site formatted in the runs) where the site ran, else
    from the expression's form (a display, ``list(...)``/``sorted(...)``..., a parameter annotated
    ``list[...]``...).

    >>> source = "def f(xs: list[int], n: int):\\n    return repr(xs) + f'{n}' + f'{sorted(xs)}'\\n"
    >>> container_reprs(source)
    2
    >>> container_reprs("def f(v):\\n    return repr(v)\\n", observe("def f(v):\\n    return repr(v)\\n", "f", ["[1]"]))
    1
    """
    tree, nodes, bound, _ = _parsed(program)
    annotations = {n.arg: ast.unparse(n.annotation) for n in nodes if isinstance(n, ast.arg) and n.annotation is not None}
    order = {id(n): i for i, n in enumerate(nodes)}
    seen = {site.index: kinds for site, kinds in observation.values.items()} if observation is not None else {}
    count = 0
    for node, _, expr in _value_sites(nodes, bound):
        kinds = seen.get(order[id(node)])
        count += bool(kinds & _CONTAINER_TYPES) if kinds else _static_container(expr, annotations, bound)
    return count


# ---------------------------------------------------------------------- execution: probes


class _OverBudget(BaseException):
    """Raised into a run at its statement budget (a BaseException: programs' ``except Exception`` miss it)."""


class _Timeout(BaseException):
    """Raised into a run by the wall-clock alarm."""


def _on_alarm(signum, frame):  # pragma: no cover - timing dependent
    raise _Timeout


class _Probe:
    """The functions the instrumented program calls, collecting what one run does."""

    __slots__ = ("tests", "statements", "values", "steps", "limit", "text")

    def __init__(self, limit: int):
        self.text: str | None = None  # the literal text of arguments given as expressions (trusted inputs)
        self.tests: set[tuple[int, bool]] = set()
        self.statements: set[int] = set()
        self.values: set[tuple[int, str]] = set()
        self.steps, self.limit = 0, limit

    def test(self, index: int, value) -> bool:
        outcome = True if value else False
        self.tests.add((index, outcome))
        return outcome

    def statement(self, index: int) -> None:
        self.statements.add(index)
        self.steps += 1
        if self.steps > self.limit:
            raise _OverBudget

    def operand(self, index: int, value):
        self.tests.add((index, True if value else False))
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
        todo.extend(sorted(_read_names([functions[name]]) & functions.keys() - set(order)))
    return [functions[name] for name in order]


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


_STATEMENT_LISTS = ("body", "orelse", "finalbody")


class _Program:
    """One program, instrumented once (a fresh parse of its source) and run on any number of inputs."""

    def __init__(self, source: str, entry_point: str, *, max_steps: int, timeout: float):
        _, _, bound, _ = _parsed(source)  # validates the source
        tree = ast.parse(source)
        nodes = walk(tree)
        order = {id(n): i for i, n in enumerate(nodes)}
        self.entry_point, self.max_steps, self.timeout = entry_point, max_steps, timeout
        self.tests: list[Site] = []
        self.statements: list[Site] = []
        self.values: list[Site] = []
        inside = [n for f in _reached(tree, entry_point) for n in walk(f)]
        elifs = {id(n.orelse[0]) for n in inside if isinstance(n, ast.If) and len(n.orelse) == 1
                 and isinstance(n.orelse[0], ast.If) and n.orelse[0].col_offset == n.col_offset}
        for node, kind, expr in _value_sites(inside, bound):
            site = Site(order[id(node)], node.lineno, kind)
            self.values.append(site)
            wrapped = ast.copy_location(_call("__nat_v__", ast.Constant(site.index), expr), expr)
            if kind == "repr":
                node.args[0] = wrapped
            else:
                node.value = wrapped
        for node in inside:
            if isinstance(node, ast.BoolOp):  # each operand but the last decides whether the next one runs
                for position, operand in enumerate(node.values[:-1]):
                    site = Site(order[id(operand)], operand.lineno, "boolop")
                    self.tests.append(site)
                    node.values[position] = ast.copy_location(
                        _call("__nat_o__", ast.Constant(site.index), operand), operand)
            elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
                kind = ("elif" if id(node) in elifs else "if") if isinstance(node, ast.If) else (
                    "while" if isinstance(node, ast.While) else "ifexp")
                site = Site(order[id(node)], node.lineno, kind)
                self.tests.append(site)
                node.test = ast.copy_location(_call("__nat_t__", ast.Constant(site.index), node.test), node.test)
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
                    probe = ast.Expr(_call("__nat_s__", ast.Constant(site.index)))
                    probed += [ast.copy_location(probe, statement), statement]
                setattr(node, field, probed)
        # handlers (ExceptHandler) and match cases have bodies of their own: they are nodes of ``inside`` too
        self.code = compile(ast.fix_missing_locations(tree), "<naturalness>", "exec", dont_inherit=True)

    def run(self, text: str, *, trusted: bool = False) -> _Probe | str:
        """Run the entry point on the argument text: the probe when the call returned, else why not
        (``"raised"``, or ``"budget"`` past the statement budget or the time limit).

        With ``trusted``, an argument text that is not a list of literals (a few CRUXEval inputs, such as
        ``"''.join(['A'] * 20)"``) is evaluated in the program's namespace, as the tracer's
        ``trusted_call`` does; the probe's ``text`` is then the arguments' literal text, when they have one.
        """
        try:
            args, kwargs = parse_arguments(text)
        except AnswerError as exc:
            if not trusted:
                raise ProgramError(f"the input {text[:80]!r} is not a literal argument list ({exc}); "
                                   "for trusted benchmark data pass trusted_inputs=True") from None
            args = kwargs = None
        probe = _Probe(self.max_steps)
        namespace = {"__name__": "__main__", "__builtins__": builtins, "__nat_t__": probe.test,
                     "__nat_s__": probe.statement, "__nat_v__": probe.value, "__nat_o__": probe.operand}
        alarm = threading.current_thread() is threading.main_thread()
        if alarm:
            previous = signal.signal(signal.SIGALRM, _on_alarm)
            signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(self.code, namespace)  # trusted: our synthesized programs and benchmark data, with probes
                    if args is None:
                        _, args, kwargs = _trusted_arguments(f"{self.entry_point}({text})", namespace)
                        with contextlib.suppress(Exception):
                            probe.text = format_arguments(args, kwargs)
                    namespace[self.entry_point](*args, **kwargs)
            finally:
                if alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except (_OverBudget, _Timeout):  # a late alarm, between the call's end and the disarm, lands here too
            return "budget"
        except (Exception, SystemExit):  # noqa: BLE001 - a run that raised is not observed
            return "raised"
        finally:
            if alarm:
                signal.signal(signal.SIGALRM, previous)
        return probe

    def observation(self, runs: list[tuple[str, _Probe | str]]) -> Observation:
        """What the completed runs of ``runs`` (``(input, probe or failure)`` pairs) did, merged."""
        done = [(text, probe) for text, probe in runs if isinstance(probe, _Probe)]
        outcomes: dict[int, set[bool]] = {}
        kinds: dict[int, set[str]] = {}
        ran: set[int] = set()
        for _, probe in done:
            for index, outcome in probe.tests:
                outcomes.setdefault(index, set()).add(outcome)
            for index, kind in probe.values:
                kinds.setdefault(index, set()).add(kind)
            ran |= probe.statements
        return Observation(
            tests={s: frozenset(outcomes.get(s.index, ())) for s in self.tests},
            statements={s: s.index in ran for s in self.statements},
            values={s: frozenset(kinds.get(s.index, ())) for s in self.values},
            inputs=tuple(text for text, _ in done),
            failed=len(runs) - len(done),
        )


def _check_budget(max_steps: int, timeout: float) -> None:
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
        raise InvalidArgument(f"max_steps must be a positive int, got {max_steps!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise InvalidArgument(f"timeout must be a positive number of seconds, got {timeout!r}")


def observe(source: str, entry_point: str, inputs: Sequence[str], *, max_steps: int = 20_000,
            timeout: float = 2.0, trusted_inputs: bool = False) -> Observation:
    """Run ``entry_point(*args)`` for each argument text of ``inputs`` (CRUXEval ``input`` format, such as
    ``"[1, 2], 'a'"``) with probes, and return what the runs that completed did.

    The probed functions are the entry point and the module-level functions it reaches by name.
    A run stops (and is counted in ``failed``, not observed) when it raises, executes more than
    ``max_steps`` statements or runs past ``timeout`` seconds (the alarm works in the main thread only).
    ``trusted_inputs`` lets argument texts be expressions, evaluated in the program's namespace
    (trusted benchmark data only).

    >>> obs = observe("def f(n):\\n    return 'big' if n > 9 else 'small'\\n", "f", ["3", "12", "'x'"])
    >>> [(s.kind, sorted(o)) for s, o in obs.tests.items()], obs.failed
    ([('ifexp', [False, True])], 1)
    """
    _check_budget(max_steps, timeout)
    if isinstance(inputs, str):
        raise InvalidArgument("inputs must be a sequence of argument texts such as [\"[1, 2], 'a'\"], not one str")
    program = _Program(source, entry_point, max_steps=max_steps, timeout=timeout)
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


def type_text_of(value: object) -> str | None:
    """The catalog type text of a literal value, for :func:`execverify_data.inputs.mutate`: element types
    are the union of the elements' (in order of first appearance); an empty container gets ``int``
    elements (``str`` keys and ``int`` values for a dict). ``None`` for a value of another kind.

    >>> type_text_of([1, 'a', 2]), type_text_of((1, 'a')), type_text_of({'k': [1.5]}), type_text_of([])
    ('list[int | str]', 'tuple[int, str]', 'dict[str, list[float]]', 'list[int]')
    """
    kind = type(value)
    if kind in (bool, int, float, str, bytes):
        return kind.__name__
    if value is None:
        return "None"

    def union(items, empty: str) -> str | None:
        texts: list[str] = []
        for item in items:
            text = type_text_of(item)
            if text is None:
                return None
            if text not in texts:
                texts.append(text)
        return " | ".join(texts) if texts else empty

    if kind in (list, set, frozenset):
        element = union(value, "int")
        return None if element is None else f"{kind.__name__}[{element}]"
    if kind is tuple:
        if not value:
            return "tuple[int, ...]"
        parts = [type_text_of(v) for v in value]
        return None if None in parts else f"tuple[{', '.join(parts)}]"
    if kind is dict:
        keys, values = union(value.keys(), "str"), union(value.values(), "int")
        return None if keys is None or values is None else f"dict[{keys}, {values}]"
    return None


def _edit_seed(seed: int, first: str) -> int:
    return int.from_bytes(hashlib.sha256(f"naturalness-edit\0{seed}\0{first}".encode()).digest()[:8], "big")


def small_edits(first: str, types: Sequence[str] | None = None, *, seed: int = 0, tries: int = 20) -> Iterator[str]:
    """Up to ``tries`` candidate small same-type edits of the argument text ``first``, distinct from it and
    from each other.

    A small same-type edit is one :func:`execverify_data.inputs.mutate` of one positional argument,
    chosen uniformly among those whose type is known (``types``, else :func:`type_text_of` of the value):
    an int moves by 1 or 2 (clamped to the inputs' range, -3..12) or, one time in five, is drawn again
    from that range; a float moves by 0.5 or 1; a bool flips; a string or bytes value gets one character
    changed, inserted or deleted, or two swapped; a list or tuple gets one element mutated, inserted or
    deleted, or two swapped; a set one element replaced or added; a dict one key or value changed or an
    item added. The random choices come from ``seed`` and ``first`` only.

    >>> edits = list(small_edits("[1, 2, 3], 'ab'", seed=0, tries=3))
    >>> len(edits), edits == list(small_edits("[1, 2, 3], 'ab'", seed=0, tries=3)), "[1, 2, 3], 'ab'" in edits
    (3, True, False)
    """
    from execverify_data.inputs import mutate

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
    """The first ``k`` candidates of :func:`small_edits` on which the program completes (does not raise,
    stays within ``max_steps`` statements and ``timeout`` seconds); fewer if ``tries`` candidates
    give fewer, or once two candidates have run past the budget (a program that loops on edits costs
    two budgets, not ``tries``). "First input plus two small same-type edits" is ``[first] + edited_inputs(...)``.

    >>> list(small_edits("2", seed=2))[:3]  # n = 4 divides by zero: that edit is passed over
    ['0', '4', '3']
    >>> edited_inputs("def f(n):\\n    return 10 // (n - 4)\\n", "f", "2", seed=2)
    ['0', '3']
    """
    _check_budget(max_steps, timeout)
    program = _Program(source, entry_point, max_steps=max_steps, timeout=timeout)
    return [text for text, _ in _edited_runs(program, first, types, seed, k, tries)]


def _edited_runs(program: _Program, first: str, types, seed: int, k: int, tries: int) -> list[tuple[str, _Probe]]:
    kept, stalls = [], 0
    for text in small_edits(first, types, seed=seed, tries=tries):
        probe = program.run(text)
        if isinstance(probe, _Probe):
            kept.append((text, probe))
            if len(kept) >= k:
                break
        elif probe == "budget":
            stalls += 1
            if stalls >= _MAX_STALLS:
                break
    return kept


#: Candidate edits past the budget (statements or time) after which a program gets no more candidates.
_MAX_STALLS = 2


def program_figures(source: str, entry_point: str, inputs: Sequence[str], *, types: Sequence[str] | None = None,
                    seed: int = 0, max_steps: int = 20_000, timeout: float = 2.0, trusted_inputs: bool = False) -> dict:
    """Every per-program figure the naturalness benchmark adds up, as a JSON-ready dict: each execution
    measure as ``[hits, total]`` on the ``inputs`` (``own``) and on the first input plus two small edits
    (``edits``), and each AST pattern count (linters are run over many programs at once by :func:`lint_counts`).

    >>> figures = program_figures("def f(n):\\n    return 'big' if n > 9 else 'small'\\n", "f", ["3", "12"])
    >>> figures["own_one_sided"], figures["finishing_wrappers"]
    ([0, 1], 0)
    """
    _check_budget(max_steps, timeout)
    out: dict = {name: detector(source) for name, detector in _DETECTORS.items()}
    program = _Program(source, entry_point, max_steps=max_steps, timeout=timeout)
    own_runs = [(text, program.run(text, trusted=trusted_inputs)) for text in inputs]
    own = program.observation(own_runs)
    completed = [(text, probe) for text, probe in own_runs if isinstance(probe, _Probe)]
    edit_runs = completed[:1]
    if completed:
        first, probe = completed[0]
        first = probe.text or first
        with contextlib.suppress(AnswerError):  # arguments without a literal text (a lambda) get no edits
            edit_runs += _edited_runs(program, first, types, seed, 2, 20)
    edits = program.observation(edit_runs)
    out.update(
        own_inputs=len(own.inputs), own_failed=own.failed, own_one_sided=list(one_sided_tests(own)),
        edit_inputs=len(edits.inputs), edits_one_sided=list(one_sided_tests(edits)),
        edits_never_evaluated=list(never_evaluated_tests(edits)), edits_dead_statements=list(dead_statements(edits)),
        container_reprs=container_reprs(source, own),
    )
    return out


def _program_job(job: tuple[dict, int]) -> dict:  # pragma: no cover - runs in worker processes
    program, seed = job
    figures = program_figures(program["source"], program["entry_point"], program["inputs"], types=program.get("types"),
                              seed=seed, trusted_inputs=program.get("trusted", False))
    if program.get("spec") is not None:
        from execverify_data.synth.checker import check
        from execverify_data.synth.spec import ConstraintSpec

        figures["checker_ok"] = check(program["source"], ConstraintSpec.from_dict(program["spec"]),
                                      entry=program["entry_point"]).ok
    return figures


def measure_programs(programs: Sequence[dict], *, workers: int = 1, seed: int = 0, memory_mb: int = 2048,
                     lint: bool = True) -> list[dict]:
    """:func:`program_figures` of every program, then (with ``lint``) its :func:`lint_counts` merged in, in order.

    Each program is a dict with ``source``, ``entry_point``, ``inputs`` and optionally ``types``,
    ``trusted`` (inputs may be expressions) and ``spec`` (a ``ConstraintSpec`` dict: adds ``checker_ok``,
    whether :func:`execverify_data.synth.checker.check` accepts the program for it). The programs run in
    ``workers`` spawned processes started with ``PYTHONHASHSEED=0`` and an address-space limit of
    ``memory_mb`` (the pipeline's worker set-up), so set orders inside programs, and the figures, do
    not depend on the number of workers; pylint uses ``workers`` processes too.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from execverify_data.shards import limit_worker

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidArgument(f"workers must be a positive int, got {workers!r}")
    programs = list(programs)
    if not programs:
        return []
    saved = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = "0"
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                 initializer=limit_worker, initargs=(memory_mb,)) as pool:
            figures = list(pool.map(_program_job, [(p, seed) for p in programs], chunksize=32))
    finally:
        if saved is None:
            os.environ.pop("PYTHONHASHSEED", None)
        else:
            os.environ["PYTHONHASHSEED"] = saved
    if lint:
        for row, counts in zip(figures, lint_counts([p["source"] for p in programs], jobs=workers)):
            row.update(counts)
    return figures


# ---------------------------------------------------------------------- the table

#: Every measure of the naturalness table, in its order: ``(key, label, how the per-program figures add up)``,
#: where ``pooled`` is the sum of hits over the sum of totals, in %; ``mean_share`` the mean over programs of
#: hits / total, in %; ``per100`` a count per 100 programs; ``programs`` the % of programs with at least one;
#: ``mean`` the mean per program. The linter rows (:data:`LINT_RULES`) need :func:`lint_counts`.
MEASURES = (
    ("own_one_sided", "if-tests taking one branch on all of the row's own inputs (%)", "pooled"),
    ("edits_one_sided", "same, on the first input plus two small same-type edits (%)", "pooled"),
    ("edits_never_evaluated", "conditions never evaluated under those edits (%)", "pooled"),
    ("edits_dead_statements", "dead statement share under those edits (%, mean over programs)", "mean_share"),
    ("finishing_wrappers", "finishing wrappers `return f(g(...))`", "per100"),
    ("nested_builtins", "three builtins nested in one expression", "per100"),
    ("round_trips", "conversion round trips (`str(int(bool(x)))`, `list(reversed(sorted(...)))`)", "per100"),
    ("loops_ignoring_variable", "loops whose body never reads the loop variable", "per100"),
    ("countdown_loops", "`i = len(x)` / `while i > 0: i -= 1` (% of programs)", "programs"),
    ("self_nested_tests", "the same test nested in itself (`if ok:` inside `if ok:`)", "per100"),
    ("literal_subscripts", "a literal container subscripted or sliced by a variable", "per100"),
    ("dict_literal_membership", "membership in a dict literal", "per100"),
    ("container_reprs", "`repr()` or an f-string of a container used as a value", "per100"),
    ("self_receiver_calls", "a method called with its own receiver", "per100"),
    ("distinct_calls", "distinct builtins and methods per program", "mean"),
    ("SIM300", "ruff SIM300 yoda condition", "per100"),
    ("SIM102", "ruff SIM102 collapsible if", "per100"),
    ("SIM114", "ruff SIM114 if arms with the same body", "per100"),
    ("C413", "ruff C413 list()/reversed() around sorted()", "per100"),
    ("R5601", "pylint R5601 confusing consecutive elif", "per100"),
    ("shadowed_builtins", "names shadowing a builtin", "per100"),
    ("underscore_names", "names such as `_integer` (one underscore, then a letter)", "per100"),
)
#: The execution measures and the per-program count of completed runs each one needs.
EXECUTION_INPUTS = {"own_one_sided": "own_inputs", "edits_one_sided": "edit_inputs", "edits_never_evaluated": "edit_inputs",
                    "edits_dead_statements": "edit_inputs"}


def aggregate(rows: list[dict], keys: Sequence[str] | None = None) -> dict:
    """Each measure of :data:`MEASURES` (or only those named in ``keys``) over ``rows``, the per-program
    figures of :func:`program_figures` (with :func:`lint_counts` merged in for the linter rows), with the
    counts behind it.

    >>> row = program_figures("def f(n):\\n    return 'big' if n > 9 else 'small'\\n", "f", ["3", "12"])
    >>> table = aggregate([row], keys=["own_one_sided", "distinct_calls"])
    >>> table["programs"], table["own_one_sided"], table["own_one_sided_counts"], table["distinct_calls"]
    (1, 0.0, [0, 1], 0.0)
    """
    out: dict = {"programs": len(rows)}
    for key, _, how in MEASURES:
        if keys is not None and key not in keys:
            continue
        if key in EXECUTION_INPUTS:
            # execution measures: programs with a completed run (for the own inputs: two, or nothing varies)
            need = 2 if key == "own_one_sided" else 1
            measured = [r[key] for r in rows if r[EXECUTION_INPUTS[key]] >= need]
            if how == "pooled":
                hits, total = sum(h for h, _ in measured), sum(t for _, t in measured)
                out[key] = round(100 * hits / total, 2) if total else None
                out[key + "_counts"] = [hits, total]
            else:
                shares = [h / t for h, t in measured if t]
                out[key] = round(100 * _statistics.fmean(shares), 2) if shares else None
                out[key + "_counts"] = [len(shares)]
        elif not rows:
            out[key] = None
        elif how == "per100":
            out[key] = round(100 * sum(r[key] for r in rows) / len(rows), 2)
        elif how == "programs":
            out[key] = round(100 * sum(1 for r in rows if r[key]) / len(rows), 2)
        else:
            out[key] = round(_statistics.fmean(r[key] for r in rows), 2)
    return out


_DETECTORS = {
    "finishing_wrappers": finishing_wrappers,
    "nested_builtins": nested_builtins,
    "round_trips": round_trips,
    "loops_ignoring_variable": loops_ignoring_variable,
    "countdown_loops": countdown_loops,
    "self_nested_tests": self_nested_tests,
    "literal_subscripts": literal_subscripts,
    "dict_literal_membership": dict_literal_membership,
    "self_receiver_calls": self_receiver_calls,
    "distinct_calls": distinct_calls,
    "shadowed_builtins": shadowed_builtins,
    "underscore_names": underscore_names,
}


#: The group names of :func:`benchmark_programs`.
CRUXEVAL, HUMANEVAL = "CRUXEval", "HumanEval"


def benchmark_programs(humaneval_inputs: int, limit: int | None = None) -> list[dict]:
    """Jobs for :func:`measure_programs`: CRUXEval's 800 shipped programs, each with its one input, and
    HumanEval's 164 solutions, each with the arguments of its first ``humaneval_inputs`` literal
    ``candidate(...)`` test calls (:func:`candidate_inputs`, read by AST, never run); the first ``limit``
    of each when given. Each job has ``group`` (:data:`CRUXEVAL` or :data:`HUMANEVAL`)."""
    from execverify_data.data import cruxeval_records, humaneval_records

    jobs = [{"group": CRUXEVAL, "level": None, "source": r["code"], "entry_point": "f", "inputs": [r["input"]],
             "types": None, "trusted": True} for r in cruxeval_records()[:limit]]
    jobs += [{"group": HUMANEVAL, "level": None, "source": r["prompt"] + r["canonical_solution"],
              "entry_point": r["entry_point"], "inputs": candidate_inputs(r["test"])[:humaneval_inputs],
              "types": None, "trusted": True} for r in humaneval_records()[:limit]]
    return jobs


def candidate_inputs(test: str, name: str = "candidate") -> list[str]:
    """The argument texts of the ``candidate(...)`` calls in a HumanEval-style test source, in source
    order, read from its AST without running it; calls whose arguments are not all literals
    (:func:`execverify_data.values.parse_arguments` refuses them) are left out, repeats too.

    >>> candidate_inputs("def check(candidate):\\n    assert candidate([1, 2], -3) == 0\\n    assert candidate(x) == 1\\n")
    ['[1, 2], -3']
    """
    try:
        tree = ast.parse(test)
    except SyntaxError as exc:
        raise ProgramError(f"the test does not parse: {exc.msg} (line {exc.lineno})") from None
    calls = sorted((n for n in walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name),
                   key=lambda n: (n.lineno, n.col_offset))
    out: list[str] = []
    for call in calls:
        parts = [ast.unparse(a) for a in call.args] + [f"{k.arg}={ast.unparse(k.value)}" for k in call.keywords if k.arg]
        try:
            args, kwargs = parse_arguments(", ".join(parts))
        except (AnswerError, ValueError, RecursionError):  # an expression, not a literal
            continue
        text = format_arguments(args, kwargs)
        if text not in out:
            out.append(text)
    return out


# ---------------------------------------------------------------------- linters


def _linter(module: str) -> None:
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise ImportError(f"the linter rates need {module}: pip install 'execverify-data[test]' (ruff and pylint)")


def lint_counts(sources: Sequence[str], *, jobs: int = 1) -> list[dict[str, int]]:
    """For each program, how many times each rule of :data:`LINT_RULES` fires: ruff's SIM300 (yoda
    condition), SIM102 (collapsible ``if``), SIM114 (``if`` arms with the same body), C413 (``list``
    or ``reversed`` around ``sorted``), and pylint's R5601 (confusing consecutive ``elif``).

    The programs are written to a temporary folder, in ``jobs`` parts; ruff runs once over it and one
    pylint process per part, ``jobs`` at a time (pylint's own ``--jobs`` costs several times the CPU of
    one process per part), all as subprocesses of this interpreter and with no configuration file
    (``ruff --isolated``; pylint with every other message disabled).

    >>> counts = lint_counts(["def f(x):\\n    if 3 == x:\\n        return 1\\n    return 0\\n", "def g():\\n    return 1\\n"])
    >>> counts[0]["SIM300"], counts[1]["SIM300"]
    (1, 0)
    """
    if isinstance(sources, str):
        raise InvalidArgument("sources must be a sequence of program texts, not one str")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InvalidArgument(f"jobs must be a positive int, got {jobs!r}")
    _linter("ruff")
    _linter("pylint")
    counts = [dict.fromkeys(LINT_RULES, 0) for _ in sources]
    if not counts:
        return counts
    names: dict[str, int] = {}

    def tally(messages: list[dict], file_key: str, code_key: str) -> None:
        for message in messages:
            index = names.get(os.path.basename(message[file_key]))
            if index is not None and message[code_key] in counts[index]:
                counts[index][message[code_key]] += 1

    with tempfile.TemporaryDirectory(prefix="execverify-lint-") as folder:
        parts = [os.path.join(folder, f"part-{k}") for k in range(min(jobs, len(sources)))]
        size = -(-len(sources) // len(parts))
        for k, part in enumerate(parts):
            os.mkdir(part)
            for i in range(k * size, min(len(sources), (k + 1) * size)):
                names[f"p{i:07d}.py"] = i
                with open(os.path.join(part, f"p{i:07d}.py"), "w", encoding="utf-8") as handle:
                    handle.write(sources[i])
        pylint = []
        for part in parts:
            with open(part + ".json", "w", encoding="utf-8") as out, open(part + ".err", "w", encoding="utf-8") as err:
                pylint.append(subprocess.Popen(
                    [sys.executable, "-m", "pylint", "--disable=all", "--enable=confusing-consecutive-elif",
                     "--load-plugins=pylint.extensions.confusing_elif", "--output-format=json", "--score=n",
                     "--persistent=n", "--recursive=y", "--rcfile=/dev/null", part],
                    stdout=out, stderr=err, cwd=part,
                ))
        ruff = subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", ",".join(_RUFF_RULES),
             "--output-format", "json", "--exit-zero", folder],
            capture_output=True, text=True, check=False,
        )
        returns = [process.wait() for process in pylint]
        if ruff.returncode != 0:
            raise ExecVerifyError(f"ruff failed (exit {ruff.returncode}): {ruff.stderr.strip()[:500]}")
        tally(json.loads(ruff.stdout or "[]"), "filename", "code")
        for part, code in zip(parts, returns):
            if code & (1 | 32):  # a fatal message or a usage error
                with open(part + ".err", encoding="utf-8") as err:
                    raise ExecVerifyError(f"pylint failed (exit {code}): {err.read().strip()[:500]}")
            with open(part + ".json", encoding="utf-8") as out:
                tally(json.loads(out.read() or "[]"), "path", "message-id")
    return counts
