"""Which calls of a test the tester may send to the candidate in one batch, before the test runs.

A test's calls to the candidate normally cross the process boundary one round trip at a
time. Most tests (HumanEval's ``check(candidate)`` bodies, MBPP's lines) start with a
straight line of statements whose every candidate call has literal arguments; those calls
happen in that order whatever the candidate answers, until an assertion fails (and then
the verdict no longer depends on the rest). :func:`plan` finds that prefix: the tester
sends it as one batch, the candidate answers each call in order, and the proxies of the
test consume the answers as the test makes the same calls (matched by canonical value);
a call that does not match ends the batch and goes back to one round trip per call.

The prefix ends before the first statement the analysis cannot order exactly: a loop, a
condition, ``try``, a short-circuit (``and``/``or``, ``x if c else y``, chained
comparisons), a comprehension or lambda, a call whose arguments are not literals, a
candidate function used other than by calling it (``map(candidate, xs)``), a call of a
function the test defines (other than the ``check(candidate)`` it ends with), a name the
test rebinds, an assertion message that calls anything.

>>> plan("def check(candidate):\\n    assert candidate([1, 2]) == 3\\n    assert candidate([]) == 0\\n"
...      "check(total)\\n", {"total"})
[('total', ([1, 2],), {}), ('total', ([],), {})]
>>> plan("assert f(1) == 1\\nfor x in range(3):\\n    assert f(x) == x\\n", {"f"})
[('f', (1,), {})]
"""

from __future__ import annotations

import ast
import re

__all__ = ["plan"]

#: Most calls in one batch.
MAX_CALLS = 1000
_UNORDERED = (ast.BoolOp, ast.IfExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda,
              ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Starred)
_cache: dict[tuple[str, frozenset], list] = {}


class _Stop(Exception):
    pass


def _calls_in(node: ast.AST, proxied: set[str], helpers: set[str]) -> list[tuple[str, tuple, dict]]:
    """The candidate calls of an expression, in evaluation order; ``_Stop`` when they cannot be
    ordered, or when it calls a function of the test's own."""
    calls, names, unordered = [], 0, False
    for sub in ast.walk(node):
        if isinstance(sub, _UNORDERED) or (isinstance(sub, ast.Compare) and len(sub.ops) > 1):
            unordered = True
        elif isinstance(sub, ast.Name) and sub.id in proxied | helpers:
            names += 1
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
            if sub.func.id in helpers:
                raise _Stop
            if sub.func.id in proxied:
                calls.append(sub)
    if not calls and not names:
        return []
    if unordered or names != len(calls):  # a candidate function passed around, not called
        raise _Stop
    found = []
    for call in calls:
        try:
            if any(k.arg is None for k in call.keywords):
                raise ValueError
            args = tuple(ast.literal_eval(arg) for arg in call.args)
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise _Stop from None
        found.append(((call.lineno, call.col_offset), (call.func.id, args, kwargs)))
    return [entry for _, entry in sorted(found, key=lambda item: item[0])]


def _bound(statement: ast.stmt) -> set[str]:
    names = set()
    for sub in ast.walk(statement):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            names.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(sub.name)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in sub.names)
    return names


def _walk(body: list[ast.stmt], proxied: set[str], helpers: dict[str, ast.FunctionDef], rename: dict[str, str],
          out: list, active: frozenset = frozenset()) -> None:
    """Append the ordered calls of ``body`` to ``out`` until a statement the analysis stops at."""
    for statement in body:
        if len(out) >= MAX_CALLS:
            raise _Stop
        if _bound(statement) & proxied:
            raise _Stop  # the test rebinds a name of the candidate's
        if isinstance(statement, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)) or (
                isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)):
            continue  # defines a name or does nothing: no call of the candidate
        value = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in helpers:
            _follow(value, proxied, helpers, rename, out, active)
            continue
        if isinstance(statement, ast.Assert):
            if statement.msg is not None and any(isinstance(sub, ast.Call) for sub in ast.walk(statement.msg)):
                raise _Stop
            calls = _calls_in(statement.test, proxied, set(helpers))
        elif isinstance(statement, ast.Expr):
            calls = _calls_in(statement.value, proxied, set(helpers))
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(_calls_in(target, proxied, set(helpers)) for target in targets):
                raise _Stop  # targets are evaluated after the value
            calls = _calls_in(statement.value, proxied, set(helpers))
        else:
            raise _Stop
        out += [(rename.get(name, name), args, kwargs) for name, args, kwargs in calls]


def _follow(call: ast.Call, proxied: set[str], helpers: dict[str, ast.FunctionDef], rename: dict[str, str],
            out: list, active: frozenset) -> None:
    """``check(entry_point)``: the body of the test's own function, its parameters bound to the
    candidate's functions (plain positional parameters only, candidate names as arguments)."""
    function = helpers[call.func.id]
    params = function.args
    if function.name in active or (params.posonlyargs or params.vararg or params.kwonlyargs or params.kwarg or params.defaults
            or call.keywords or len(call.args) != len(params.args)):
        raise _Stop
    inner = dict(rename)
    for param, arg in zip(params.args, call.args):
        if not (isinstance(arg, ast.Name) and arg.id in proxied):
            raise _Stop
        inner[param.arg] = rename.get(arg.id, arg.id)
    _walk(function.body, proxied | set(inner), helpers, inner, out, active | {function.name})


def plan(test: str, proxied: set[str]) -> list[tuple[str, tuple, dict]]:
    """The calls ``(name, args, kwargs)`` the test makes first, in order, whatever the answers
    (see the module docs); ``proxied`` are the names bound to the candidate's functions."""
    key = (test, frozenset(proxied))
    found = _cache.get(key)
    if found is None:
        found = []
        try:
            tree = ast.parse(test)
            helpers = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
            _walk(tree.body, set(proxied) - set(helpers), helpers, {}, found)
        except (_Stop, SyntaxError, ValueError, MemoryError, RecursionError):
            pass
        if len(_cache) >= 512:
            _cache.clear()
        _cache[key] = found = found[:MAX_CALLS]
    return list(found)


# --------------------------------------------------------------------------- tests decided from their calls' answers

#: Builtins a test decided in the caller may apply to answers (on plain values they run no model code).
SAFE_BUILTINS = {name: getattr(__import__("builtins"), name) for name in (
    "abs", "len", "sorted", "round", "set", "list", "tuple", "sum", "min", "max", "int", "float", "str", "bool")}


class Decidable:
    """A test whose outcome is a function of the answers to its calls (see :func:`decidable`).

    Attributes:
        calls (`tuple[str, ...]`): the calls, as source text, in the order the test makes them.
    """

    __slots__ = ("calls", "asserts")

    def __init__(self, calls: tuple[str, ...], asserts: tuple[ast.expr, ...]):
        self.calls = calls
        self.asserts = asserts

    def verdict(self, answers: list) -> bool:
        """Whether the test passes when its calls return ``answers`` (plain values, in order; an
        exception instance stands for a call that raised). Python's semantics, as the test's own."""
        try:
            return all(_evaluate(node, answers) for node in self.asserts)
        except Exception:  # noqa: BLE001 - the test would have raised: it fails
            return False


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


_LINE = re.compile(r"[^\r\n]*(?:\r\n|[\r\n])|[^\r\n]+\Z")


class _Source:
    """``ast.get_source_segment`` for many nodes of one text, which is split into lines once
    (``ast`` splits the whole text again for every node)."""

    def __init__(self, text: str):
        self.lines = _LINE.findall(text)  # the lines ast counts: ends kept, a form feed ends none

    def segment(self, node: ast.AST) -> str | None:
        try:
            if node.end_lineno is None or node.end_col_offset is None:
                return None
            first, last = node.lineno - 1, node.end_lineno - 1
            start, end = node.col_offset, node.end_col_offset
        except AttributeError:
            return None
        if not 0 <= first <= last < len(self.lines):
            return None
        if first == last:  # the offsets count UTF-8 bytes
            return self.lines[first].encode()[start:end].decode()
        head = self.lines[first].encode()[start:].decode()
        tail = self.lines[last].encode()[:end].decode()
        return "".join([head, *self.lines[first + 1:last], tail])


def _convert(node: ast.expr, test: _Source, names: dict[str, str], calls: list[str]) -> ast.expr:
    """``node`` with each candidate call replaced by a placeholder; ``_Stop`` for anything else
    than literals, those calls, a few builtins, arithmetic and one comparison."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names:
        if not all(_literal(arg) for arg in node.args) or not all(k.arg and _literal(k.value) for k in node.keywords):
            raise _Stop
        parts = [test.segment(arg) for arg in node.args]
        parts += [f"{k.arg}={test.segment(k.value)}" for k in node.keywords]
        if any(part is None for part in parts):
            raise _Stop
        calls.append(f"{names[node.func.id]}({', '.join(parts)})")
        return ast.Name(id=f"\x00{len(calls) - 1}", ctx=ast.Load())
    if _literal(node):
        return ast.Constant(ast.literal_eval(node))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SAFE_BUILTINS \
            and not node.keywords and node.func.id not in names:
        return ast.Call(node.func, [_convert(arg, test, names, calls) for arg in node.args], [])
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return ast.BinOp(_convert(node.left, test, names, calls), node.op, _convert(node.right, test, names, calls))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
        return ast.UnaryOp(node.op, _convert(node.operand, test, names, calls))
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left = _convert(node.left, test, names, calls)
        return ast.Compare(left, node.ops, [_convert(node.comparators[0], test, names, calls)])
    raise _Stop


def _evaluate(node: ast.expr, answers: list):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        value = answers[int(node.id[1:])]
        if isinstance(value, BaseException):
            raise value
        return value
    if isinstance(node, ast.Call):
        return SAFE_BUILTINS[node.func.id](*[_evaluate(arg, answers) for arg in node.args])
    if isinstance(node, ast.BinOp):
        return _binop(node.op, _evaluate(node.left, answers), _evaluate(node.right, answers))
    if isinstance(node, ast.UnaryOp):
        value = _evaluate(node.operand, answers)
        return -value if isinstance(node.op, ast.USub) else not value
    left, right, op = _evaluate(node.left, answers), _evaluate(node.comparators[0], answers), node.ops[0]
    return _compare(op, left, right)


def _binop(op: ast.operator, left, right):
    import operator

    return {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}[type(op)](
        left, right)


def _compare(op: ast.cmpop, left, right) -> bool:
    import operator

    table = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
             ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
             ast.In: lambda a, b: operator.contains(b, a), ast.NotIn: lambda a, b: not operator.contains(b, a)}
    return table[type(op)](left, right)


def _decidable_body(body: list[ast.stmt], test: _Source, names: dict[str, str], calls: list, asserts: list,
                    helpers: dict[str, ast.FunctionDef], top: bool) -> None:
    for statement in body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue
        if top and isinstance(statement, ast.FunctionDef):
            continue
        if top and isinstance(statement, ast.Assign) and _literal(statement.value) and not (_bound(statement) & set(names)):
            continue
        if top and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
                and isinstance(statement.value.func, ast.Name) and statement.value.func.id in helpers:
            call, function = statement.value, helpers[statement.value.func.id]
            params = function.args
            if (params.posonlyargs or params.vararg or params.kwonlyargs or params.kwarg or params.defaults
                    or call.keywords or len(call.args) != len(params.args)
                    or not all(isinstance(a, ast.Name) and a.id in names for a in call.args)):
                raise _Stop
            inner = dict(names)
            inner.update({p.arg: names[a.id] for p, a in zip(params.args, call.args)})
            _decidable_body(function.body, test, inner, calls, asserts, {}, top=False)
            continue
        if isinstance(statement, ast.Assert) and (statement.msg is None or isinstance(statement.msg, ast.Constant)):
            asserts.append(_convert(statement.test, test, names, calls))
            continue
        raise _Stop


def decidable(test: str, entry_point: str | None) -> Decidable | None:
    """The test as a :class:`Decidable` when its outcome follows from the answers to its calls, else ``None``.

    That is: its statements are assertions (with a literal message, if any), literal
    assignments, function definitions, docstrings, and one ``check(entry_point)`` whose body is
    assertions too; each assertion is one comparison (or a truth test) of candidate calls with
    literal arguments, literals, the :data:`SAFE_BUILTINS` and ``+ - * /``, so that its value
    depends on nothing but the answers. A name counts as a candidate function when the test
    calls it and it is neither a builtin nor defined by the test (``entry_point`` always does).

    >>> d = decidable("def check(candidate):\\n    assert candidate([1, 2]) == 3\\n    "
    ...               "assert abs(candidate([0.5]) - 0.5) < 1e-9\\n\\ncheck(total)\\n", "total")
    >>> d.calls, d.verdict([3, 0.5]), d.verdict([3, 0.6])
    (('total([1, 2])', 'total([0.5])'), True, False)
    >>> decidable("for x in range(3):\\n    assert f(x) == x\\n", "f") is None
    True
    """
    try:
        tree = ast.parse(test)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    helpers = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    import builtins

    called = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    names = {name: name for name in called if name not in helpers and not hasattr(builtins, name)}
    if entry_point:
        if hasattr(builtins, entry_point):  # the tester would leave the builtin of that name in place
            return None
        names[entry_point] = entry_point
    calls: list[str] = []
    asserts: list[ast.expr] = []
    try:
        _decidable_body(tree.body, _Source(test), names, calls, asserts, helpers, top=True)
    except (_Stop, RecursionError):
        return None
    if not asserts or len(calls) > MAX_CALLS:
        return None
    return Decidable(tuple(calls), tuple(asserts))
