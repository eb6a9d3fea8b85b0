"""Which calls of a test the tester may send to the candidate in one batch, before the test runs.

Most tests (HumanEval's ``check(candidate)`` bodies, MBPP's lines) start with a straight line
of statements whose every candidate call has literal arguments: those calls happen in that
order whatever the candidate answers, until an assertion fails (and then the verdict no longer
depends on the rest). :func:`plan` finds that prefix; the tester sends it as one batch, and a
call of the test that does not match the next answer goes back to one round trip per call.

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

