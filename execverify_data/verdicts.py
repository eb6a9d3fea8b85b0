"""Deciding an ``assert`` in the trusted parent, from the values the sandbox computed.

The sandbox computes only the expressions a verdict needs (:attr:`Decidable.calls`); their values
come back as canonical text, read here with the restricted parser (:func:`answers`), and each
assertion is decided with Python's operators on plain values: one comparison rule
(:func:`compare`), one truth rule (:func:`truth`). Two plans cut an assertion at different places:

* :func:`decidable`, a unit test (the unit-test reward): only the candidate's calls run there;
  literals, the test's builtins and arithmetic are applied here, to the plain values the tester's
  proxies would give it. Any other test is not decidable here.
* :func:`plan_program`, a benchmark's verdict program (:mod:`~execverify_data.lm_eval_tasks.official`):
  literals, ``and``/``or``/``not``/``x if c else y`` and comparisons here; any other expression,
  and any statement but ``assert``, runs in the program's namespace, where a name may mean
  anything. A value that has no literal reads as :class:`Opaque`.

>>> d = plan_program("assert f(2) == [4] and 'b' not in f(1)")
>>> d.calls, d.verdict([[4], ['a']]), d.verdict([[4], ['b']]), d.verdict([[4], Opaque("iterator")])
(('(f(2)\\n)', '(f(1)\\n)'), True, False, False)
"""

from __future__ import annotations

import ast
import builtins
import functools
import operator
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from execverify_data.astwalk import parse_ast
from execverify_data.errors import AnswerError
from execverify_data.values import CanonicalValue, read_canonical

__all__ = ["SAFE_BUILTINS", "Decidable", "Opaque", "answers", "compare", "decidable", "is_literal", "matches",
           "plan_program", "truth"]

#: Most calls of a test decided here.
MAX_CALLS = 1000
#: Builtins a test decided here may apply to answers (on plain values they run no model code).
SAFE_BUILTINS = {name: getattr(builtins, name) for name in (
    "abs", "len", "sorted", "round", "set", "list", "tuple", "sum", "min", "max", "int", "float", "str", "bool")}
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_OPERATORS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
              ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_SINGLETONS = (type(None), bool)
_LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)


@dataclass(frozen=True, slots=True, eq=False)
class Opaque:
    """A value the sandbox returned without a literal (of type ``type``): unequal to everything, true."""

    type: str

    def __repr__(self) -> str:
        return f"<{self.type} object>"


class _Raised(Exception):
    """A call that raised, or whose value cannot be used: the assertion that reads it fails."""


class _Stop(Exception):
    """The text is not decidable here."""


# --------------------------------------------------------------------------- the rules


def truth(value: Any) -> bool:
    """The truth of a value in an assertion decided here: Python's; an :class:`Opaque` value is true."""
    return True if isinstance(value, Opaque) else bool(value)


def compare(op: type, left: Any, right: Any) -> bool:
    """The comparison rule of every assertion decided here (``op``: an :mod:`ast` class): Python's
    operator on plain values; ``is`` holds only between the same ``None``, ``True`` or ``False``;
    an :class:`Opaque` value is unequal to everything and cannot be ordered (``TypeError``).

    >>> compare(ast.Eq, 1, 1.0), compare(ast.NotIn, 3, [1, 2]), compare(ast.Is, 2, 2)
    (True, True, False)
    """
    if op in (ast.Is, ast.IsNot):
        identical = isinstance(left, _SINGLETONS) and isinstance(right, _SINGLETONS) and left is right
        return identical if op is ast.Is else not identical
    if isinstance(left, Opaque) or isinstance(right, Opaque):
        if op in (ast.Eq, ast.NotEq):
            return op is ast.NotEq
        raise TypeError(f"{op.__name__} of a value without a literal")
    return bool(_OPERATORS[op](left, right))


def matches(expected: CanonicalValue, answer: CanonicalValue) -> bool:
    """``assert CALL == EXPECTED`` with a literal ``EXPECTED``, decided as Python decides it: ``==`` on the two
    values read back from their canonical texts (:func:`~execverify_data.values.read_canonical`: builtin values
    only, so nothing of the program runs here). ``1 == 1.0`` holds; ``0.1 + 0.2 == 0.3`` and NaN do not; a value
    without a literal matches nothing.

    >>> from execverify_data.values import encode
    >>> matches(encode([1, 2]), encode([1, 2])), matches(encode(1), encode(1.0)), matches(encode(0.3), encode(0.1 + 0.2))
    (True, True, False)
    >>> matches(encode([1]), encode((1,))), matches(encode(float("nan")), encode(float("nan")))
    (False, False)
    >>> matches(encode(1), encode(iter([])))
    False
    """
    if not (expected.askable and answer.askable):
        return False
    try:
        return bool(read_canonical(expected.text, expected.type) == read_canonical(answer.text, answer.type))
    except (AnswerError, RecursionError):
        return False


def answers(calls: Sequence, *, opaque: bool = False) -> list:
    """The values of the sandbox's call results (:class:`~execverify_data.sandbox.CallResult`), read
    with :func:`execverify_data.values.read_canonical`, for :meth:`Decidable.verdict`: a call that
    raised stands as an exception (the assertion that reads it fails); so does a value with no
    literal, or it is an :class:`Opaque` one when ``opaque`` (a benchmark's program)."""
    return [_read(call.value, opaque) if call.ok else _Raised() for call in calls]


def _read(value: CanonicalValue, opaque: bool) -> Any:
    if value.askable:
        try:
            return read_canonical(value.text, value.type)
        except (ValueError, TypeError, RecursionError, MemoryError):
            pass
    return Opaque(value.type) if opaque else _Raised()


# --------------------------------------------------------------------------- deciding


@dataclass(frozen=True, slots=True)
class Decidable:
    """Assertion text cut in two (see :func:`decidable` and :func:`plan_program`).

    Args:
        calls (`tuple[str, ...]`): the expressions the sandbox computes, as source text, in order.
        steps (`tuple[tuple, ...]`): what each assertion (or statement run there) applies here to their values.
    """

    calls: tuple[str, ...]
    steps: tuple[tuple, ...]

    def verdict(self, answers: Sequence) -> bool:
        """Whether every assertion holds, and no statement raises, when the calls give ``answers``
        (plain values in order, as :func:`answers` reads them; an exception stands for a call that raised)."""
        try:
            return all(truth(_value(step, answers)) for step in self.steps)
        except Exception:  # noqa: BLE001 - the assertion raises: it fails
            return False


def _value(plan: tuple, answers: Sequence) -> Any:
    kind = plan[0]
    if kind == "value":
        return plan[1]
    if kind in ("leaf", "run"):
        value = answers[plan[1]]  # past the end (the sandbox failed): IndexError, the check fails
        if isinstance(value, BaseException):
            raise value
        return value if kind == "leaf" else True  # "run": a statement that did not raise
    if kind == "raise":
        raise _Raised
    if kind == "not":
        return not truth(_value(plan[1], answers))
    if kind == "if":
        return _value(plan[2] if truth(_value(plan[1], answers)) else plan[3], answers)
    if kind == "bool":  # and / or: the operand that decides, as Python returns it
        for operand in plan[2]:
            value = _value(operand, answers)
            if truth(value) != plan[1]:
                break
        return value
    if kind == "compare":
        left = _value(plan[1][0], answers)
        for op, right_plan in zip(plan[2], plan[1][1:]):
            right = _value(right_plan, answers)
            if not compare(op, left, right):
                return False
            left = right
        return True
    return plan[1](*[_value(arg, answers) for arg in plan[2]])  # "apply": a test's builtin or arithmetic


# --------------------------------------------------------------------------- planning


def is_literal(node: ast.AST) -> bool:
    """Whether ``ast.literal_eval`` reads ``node`` with exactly the value ``eval`` gives it in any
    namespace (``set()`` and ``1 + 2j`` are not literals there)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(is_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return None not in node.keys and all(map(is_literal, node.keys)) and all(map(is_literal, node.values))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        return isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float, complex)
    return False


def _literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except _LITERAL_ERRORS:
        return False
    return True


def _is_singleton(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and any(node.value is v for v in (None, True, False))


_LINE = re.compile(r"[^\r\n]*(?:\r\n|[\r\n])|[^\r\n]+\Z")


class _Planner:
    """Cuts assertion text into the sandbox's calls and the plan of what is applied here: a unit
    test's when ``names`` (the candidate's functions, by the names the test calls them), else a
    program's (``known``: values already known, by the :func:`ast.dump` of their expression)."""

    def __init__(self, text: str, names: dict[str, str] | None = None, known: dict[str, CanonicalValue] | None = None):
        self.lines = _LINE.findall(text)  # the lines ast counts: ends kept, a form feed ends none
        self.names, self.known, self.calls = names, known, []

    def segment(self, node: ast.AST) -> str | None:
        """``ast.get_source_segment``, without splitting the whole text again for every node."""
        first, last = node.lineno - 1, node.end_lineno - 1
        if not 0 <= first <= last < len(self.lines):
            return None
        text = "".join(self.lines[first:last + 1]).encode()  # the offsets count UTF-8 bytes
        return text[node.col_offset:len(text) - len(self.lines[last].encode()) + node.end_col_offset].decode()

    def leaf(self, text: str, kind: str = "leaf") -> tuple:
        self.calls.append(text)
        return (kind, len(self.calls) - 1)

    def expr(self, node: ast.expr) -> tuple:
        names = self.names
        if names is None:  # a program's: literals here, and the operators that decide
            if self.known and (value := self.known.get(ast.dump(node))) is not None:
                return ("value", _read(value, opaque=True))
            if is_literal(node):
                try:
                    return ("value", ast.literal_eval(node))
                except _LITERAL_ERRORS:
                    return ("raise",)  # an unhashable set element or dict key raises upstream too
            if isinstance(node, ast.BoolOp):
                return ("bool", isinstance(node.op, ast.And), [self.expr(v) for v in node.values])
            if isinstance(node, ast.IfExp):
                return ("if", self.expr(node.test), self.expr(node.body), self.expr(node.orelse))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names:
            if not all(_literal(arg) for arg in node.args) or not all(k.arg and _literal(k.value) for k in node.keywords):
                raise _Stop
            parts = [self.segment(arg) for arg in node.args] + [f"{k.arg}={self.segment(k.value)}" for k in node.keywords]
            if None in parts:
                raise _Stop
            return self.leaf(f"{names[node.func.id]}({', '.join(parts)})")
        elif _literal(node):
            return ("value", ast.literal_eval(node))
        elif isinstance(node, ast.Compare) and (len(node.ops) > 1 or isinstance(node.ops[0], (ast.Is, ast.IsNot))
                                                and not any(map(_is_singleton, (node.left, *node.comparators)))):
            raise _Stop  # a test's comparison: one, and `is` only against None, True, False
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return ("not", self.expr(node.operand))
        if isinstance(node, ast.Compare):
            return ("compare", [self.expr(node.left), *map(self.expr, node.comparators)], [type(op) for op in node.ops])
        if names is None:  # anything else of a program's runs in its namespace
            return self.leaf(f"({self.segment(node) or ast.unparse(node)}\n)")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SAFE_BUILTINS \
                and not node.keywords:
            return ("apply", SAFE_BUILTINS[node.func.id], [self.expr(arg) for arg in node.args])
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            return ("apply", _ARITHMETIC[type(node.op)], [self.expr(node.left), self.expr(node.right)])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return ("apply", operator.neg, [self.expr(node.operand)])
        raise _Stop

    def statement(self, node: ast.stmt) -> tuple:
        """A program's statement: an assertion decided here, or a statement run there."""
        if isinstance(node, ast.Assert):
            return self.expr(node.test)
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            return ("raise",)  # a future import after the program is a SyntaxError upstream
        source = self.segment(node) or ast.unparse(node)
        # Run inside the sandbox's namespace (its globals) after the program: not exec here.
        return self.leaf(f"exec(compile({source!r}, '<answer>', 'exec'), globals())", "run")  # trusted: text for the sandbox

    def test_body(self, body: list[ast.stmt], helpers: dict[str, ast.FunctionDef], top: bool) -> list[tuple]:
        """A unit test's assertions; ``_Stop`` at any statement whose outcome is not theirs."""
        steps = []
        for statement in body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue
            if top and isinstance(statement, ast.FunctionDef):
                continue
            if top and isinstance(statement, ast.Assign) and _literal(statement.value) and not any(
                    isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in self.names
                    for target in statement.targets for n in ast.walk(target)):
                continue
            if top and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
                    and isinstance(statement.value.func, ast.Name) and statement.value.func.id in helpers:
                call, params = statement.value, helpers[statement.value.func.id].args
                if (params.posonlyargs or params.vararg or params.kwonlyargs or params.kwarg or params.defaults
                        or call.keywords or len(call.args) != len(params.args)
                        or not all(isinstance(a, ast.Name) and a.id in self.names for a in call.args)):
                    raise _Stop
                outer = self.names
                self.names = {**outer, **{p.arg: outer[a.id] for p, a in zip(params.args, call.args)}}
                steps += self.test_body(helpers[call.func.id].body, {}, top=False)
                self.names = outer
                continue
            if isinstance(statement, ast.Assert) and (statement.msg is None or isinstance(statement.msg, ast.Constant)):
                steps.append(self.expr(statement.test))
                continue
            raise _Stop
        return steps


@functools.lru_cache(maxsize=8192)  # a GRPO group decides every test for each of its completions
def decidable(test: str, entry_point: str | None) -> Decidable | None:
    """The test as a :class:`Decidable` when its outcome follows from the answers to its calls, else ``None``.

    That is: its statements are assertions (with a literal message, if any), literal
    assignments, function definitions, docstrings, and one ``check(entry_point)`` whose body is
    assertions too; each assertion is one comparison (or a truth test) of candidate calls with
    literal arguments, literals, the :data:`SAFE_BUILTINS` and ``+ - * /``, so that its value
    depends on nothing but the answers (``is`` only against ``None``, ``True``, ``False``). A
    name counts as a candidate function when the test calls it and it is neither a builtin nor
    defined by the test (``entry_point`` always does). The verdict is the tester's.

    >>> d = decidable("def check(candidate):\\n    assert candidate([1, 2]) == 3\\n    "
    ...               "assert abs(candidate([0.5]) - 0.5) < 1e-9\\n\\ncheck(total)\\n", "total")
    >>> d.calls, d.verdict([3, 0.5]), d.verdict([3, 0.6])
    (('total([1, 2])', 'total([0.5])'), True, False)
    >>> decidable("for x in range(3):\\n    assert f(x) == x\\n", "f") is None
    True
    """
    try:
        tree = parse_ast(test)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    helpers = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    called = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    names = {name: name for name in called if name not in helpers and not hasattr(builtins, name)}
    if entry_point:
        if hasattr(builtins, entry_point):  # the tester would leave the builtin of that name in place
            return None
        names[entry_point] = entry_point
    planner = _Planner(test, names=names)
    try:
        steps = planner.test_body(tree.body, helpers, top=True)
    except (_Stop, RecursionError):
        return None
    if not steps or len(planner.calls) > MAX_CALLS:
        return None
    return Decidable(tuple(planner.calls), tuple(steps))


def plan_program(statements: str, known: Sequence[tuple[str, CanonicalValue]] = ()) -> Decidable | None:
    """``statements`` as a benchmark's harness runs them after its program, cut in two (see the
    module docs); ``None`` when they do not compile. ``known``: ``(expression, value)`` pairs whose
    value is known already (REval's question call and its traced output); an expression that is
    the same (compared as an AST) takes that value instead of running.

    >>> d = plan_program("x = f(1)\\nassert 2 == 2.0")
    >>> d.calls, d.verdict([None]), d.verdict([])
    (("exec(compile('x = f(1)', '<answer>', 'exec'), globals())",), True, False)
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = parse_ast(statements, mode="exec")
        values = {ast.dump(parse_ast(source, mode="eval").body): value for source, value in known}
        planner = _Planner(statements, known=values)
        steps = [planner.statement(node) for node in module.body]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return Decidable(tuple(planner.calls), tuple(steps))
