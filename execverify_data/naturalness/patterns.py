"""AST pattern counts of the naturalness measures: one function per pattern, each taking the program text."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator
from functools import lru_cache
from execverify_data.astwalk import walk
from execverify_data.errors import InvalidArgument, ProgramError

__all__ = ["STRUCTURAL_NUMBERS", "bare_literal_gates", "countdown_loops", "dict_literal_membership", "distinct_calls",
           "finishing_wrappers", "literal_subscripts", "loops_ignoring_variable", "nested_builtins", "round_trips", "self_nested_tests",
           "self_receiver_calls", "shadowed_builtins", "underscore_names"]

_BUILTIN_NAMES = frozenset(name for name in dir(builtins) if not name.startswith("_"))
_BUILTIN_FUNCTIONS = frozenset(
    name for name in _BUILTIN_NAMES
    if callable(getattr(builtins, name))
    and not (isinstance(getattr(builtins, name), type) and issubclass(getattr(builtins, name), BaseException))
)
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


@lru_cache(maxsize=64)
def parse_program(source: str) -> tuple[list[ast.AST], frozenset[str], frozenset[str]]:
    """The module's nodes in walk order, the names the program binds, and the names imports bind."""
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
    return nodes, frozenset(bound), frozenset(imported)


def builtin_called(node: ast.AST, bound: frozenset[str]) -> str | None:
    """The name of the builtin function ``node`` calls (by a name the program does not rebind), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name in _BUILTIN_FUNCTIONS and name not in bound:
            return name
    return None


def _arguments(call: ast.Call) -> list[ast.AST]:
    """The positional (unstarred) and keyword argument expressions of a call."""
    return [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]


def read_names(nodes) -> set[str]:
    return {n.id for st in nodes for n in walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def finishing_wrappers(program: str) -> int:
    """Count ``return f(g(...))``: a returned builtin-function call whose first positional argument is a
    builtin-function call (``return sorted(set(r))``); not methods (``''.join(sorted(r))``) nor rebound builtins.

    >>> finishing_wrappers("def f(xs):\\n    return list(enumerate(sorted(xs)))\\n")
    1
    >>> finishing_wrappers("def f(xs):\\n    return ''.join(sorted(xs)) + str(len(xs))\\n")
    0
    """
    nodes, bound, _ = parse_program(program)
    return sum(1 for n in nodes if isinstance(n, ast.Return) and builtin_called(n.value, bound) and n.value.args
               and builtin_called(n.value.args[0], bound) is not None)


def nested_builtins(program: str, depth: int = 3) -> int:
    """Count chains of ``depth`` builtin-function calls, each a direct argument of the one outside it
    (``list(enumerate(sorted(seen)))``); a longer chain counts once.

    >>> nested_builtins("def f(t):\\n    return list(divmod(abs(t), 10))\\n")
    1
    >>> nested_builtins("def f(t):\\n    return sorted(set(t)), len(t.split())\\n")
    0
    """
    nodes, bound, _ = parse_program(program)
    calls = [n for n in nodes if builtin_called(n, bound)]
    inner: dict[int, list[ast.Call]] = {id(c): [a for a in _arguments(c) if builtin_called(a, bound)] for c in calls}
    chain: dict[int, int] = {}

    def length(call: ast.Call) -> int:
        if id(call) not in chain:
            chain[id(call)] = 1 + max((length(a) for a in inner[id(call)]), default=0)
        return chain[id(call)]

    nested = {id(a) for c in calls for a in inner[id(c)]}
    return sum(1 for c in calls if id(c) not in nested and length(c) >= depth)


def round_trips(program: str) -> int:
    """Count conversion round trips: a builtin call whose first argument is a builtin call that it undoes,
    repeats or discards (the pairs of ``_ROUND_TRIP_PAIRS``: ``str(int(bool(x)))``, ``set(sorted(..))``,
    ``list(list(..))``, ``chr(ord(..))``...; not ``sorted(list(..))``, a harmless copy people write).
    A chain of such pairs counts once (``list(reversed(sorted(x)))`` is one).

    >>> round_trips("def f(x):\\n    return str(int(bool(x))), list(reversed(sorted(x)))\\n")
    2
    >>> round_trips("def f(x):\\n    return sorted(set(x)), list(reversed(x)), int(x) + 1\\n")
    0
    """
    nodes, bound, _ = parse_program(program)
    pairs: dict[int, ast.Call] = {}
    for node in nodes:
        outer = builtin_called(node, bound)
        if outer and node.args:
            inner = builtin_called(node.args[0], bound)
            if inner and (outer, inner) in _ROUND_TRIP_PAIRS:
                pairs[id(node)] = node.args[0]
    inners = {id(i) for i in pairs.values()}
    return sum(1 for key in pairs if key not in inners)


def loops_ignoring_variable(program: str) -> int:
    """Count loops whose body (``else`` left out) never reads the loop variable: a ``for`` whose body reads
    none of its target's names (``for _ in xs:`` counts), a ``while`` whose body reads none of its test's
    names (``i -= 1`` does not read ``i``). Comprehensions do not count.

    >>> loops_ignoring_variable("def f(xs):\\n    n = 0\\n    for x in xs:\\n        n += 1\\n    for y in xs:\\n        n += y\\n    return n\\n")
    1
    >>> loops_ignoring_variable("def f(xs):\\n    i = len(xs)\\n    while i > 0:\\n        i -= 1\\n    while xs:\\n        xs.pop()\\n    return i\\n")
    1
    """
    nodes, _, _ = parse_program(program)
    count = 0
    for node in nodes:
        if isinstance(node, (ast.For, ast.AsyncFor)):
            names = {n.id for n in walk(node.target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.While):
            names = {n.id for n in walk(node.test) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        else:
            continue
        if names and not names & read_names(node.body):
            count += 1
    return count


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


def countdown_loops(program: str) -> int:
    """Count ``while v > 0:`` (or ``0 < v``) loops with ``v -= 1`` among their top-level statements, where
    ``v`` is assigned ``len(...)`` somewhere in the program (the ``i = len(x)`` walk).

    >>> countdown_loops("def f(xs):\\n    i = len(xs)\\n    while i > 0:\\n        i -= 1\\n    return i\\n")
    1
    >>> countdown_loops("def f(n):\\n    while n > 0:\\n        n -= 1\\n    return n\\n")
    0
    """
    nodes, bound, _ = parse_program(program)
    lengths = {n.targets[0].id for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name) and builtin_called(n.value, bound) == "len"}
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
    """Count ``if T:`` inside the body of an ``if T:`` (same AST) that never rebinds a name ``T`` reads.

    >>> self_nested_tests("def f(s):\\n    ok = s.isdigit()\\n    if ok:\\n        if ok:\\n            return 1\\n    return 0\\n")
    1
    >>> self_nested_tests("def f(s):\\n    ok = s.isdigit()\\n    if ok:\\n        ok = len(s) > 2\\n        if ok:\\n            return 1\\n    return 0\\n")
    0
    """
    nodes, _, _ = parse_program(program)
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
    nodes, _, _ = parse_program(program)
    return sum(1 for n in nodes if isinstance(n, ast.Subscript) and _is_literal_container(n.value)
               and any(isinstance(m, ast.Name) for m in walk(n.slice)))


#: Numbers a length or a parameter is compared with that carry no task of their own: empty, one, a pair, "not found".
STRUCTURAL_NUMBERS = frozenset({-1, 0, 1, 2})


def _number(node: ast.AST) -> float | None:
    """The value of a number literal (with its sign), else None (``literal_eval`` of a node runs nothing)."""
    try:
        value = ast.literal_eval(node) if isinstance(node, (ast.Constant, ast.UnaryOp)) else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if type(value) in (int, float) else None


def bare_literal_gates(program: str) -> int:
    """Count comparisons of a length (``len(x)``) or a parameter with a bare number outside
    :data:`STRUCTURAL_NUMBERS` (``if len(words) > 9:``, ``n > 6``): a gate whose constant the task does not name.

    >>> bare_literal_gates("def f(words, n):\\n    return len(words) > 9 or n == 6 or len(words) > 1 or n + 7 > 3\\n")
    2
    """
    nodes, bound, _ = parse_program(program)
    params = {a.arg for n in nodes if isinstance(n, ast.arguments) for a in (*n.posonlyargs, *n.args, *n.kwonlyargs)}

    def measured(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id in params) or builtin_called(node, bound) == "len"

    count = 0
    for n in nodes:
        if isinstance(n, ast.Compare):
            operands = [n.left, *n.comparators]
            for left, right in zip(operands, operands[1:]):
                for side, other in ((left, right), (right, left)):
                    number = _number(other)
                    if measured(side) and number is not None and number not in STRUCTURAL_NUMBERS:
                        count += 1
    return count


def dict_literal_membership(program: str) -> int:
    """Count ``in``/``not in`` tests whose right operand is a dict display (``if n in {10: 1, 2: 1}``).

    >>> dict_literal_membership("def f(n):\\n    return n in {10: 1, 2: 1}, n in {10, 2}\\n")
    1
    """
    nodes, _, _ = parse_program(program)
    return sum(1 for n in nodes if isinstance(n, ast.Compare) for op, right in zip(n.ops, n.comparators)
               if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, ast.Dict))


def self_receiver_calls(program: str) -> int:
    """Count method calls that pass their own receiver as an argument (``line.count(line, 0, 3)``);
    calls on an imported module (``math.gcd(a, a)``) do not count.

    >>> self_receiver_calls("def f(line):\\n    return line.count(line, 0, 3) + line.count('a')\\n")
    1
    """
    nodes, _, imported = parse_program(program)
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
    nodes, bound, imported = parse_program(program)
    names: set[str] = set()
    for n in nodes:
        builtin_name = builtin_called(n, bound)
        if builtin_name:
            names.add(builtin_name)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and not (
                isinstance(n.func.value, ast.Name) and n.func.value.id in imported):
            names.add("." + n.func.attr)
    return len(names)


def shadowed_builtins(program: str) -> int:
    """The number of distinct names the program binds (imports included) that are builtins' names.

    >>> shadowed_builtins("def f(ascii, n):\\n    sum = 0\\n    for x in range(n):\\n        sum += x\\n    return sum + len(ascii)\\n")
    2
    """
    _, bound, imported = parse_program(program)
    return len((bound | imported) & _BUILTIN_NAMES)


def underscore_names(program: str) -> int:
    """The number of distinct bound names of one underscore and a letter (``_integer``, from ``is_integer``).

    >>> underscore_names("def f(value):\\n    _integer = value.is_integer()\\n    for _ in range(2):\\n        pass\\n    return _integer\\n")
    1
    """
    _, bound, _ = parse_program(program)
    return sum(1 for name in bound if re.match(r"_[A-Za-z]", name))


def _printed(nodes: list[ast.AST], bound: frozenset[str]) -> set[int]:
    """ids of f-strings and ``repr`` calls given directly to ``print``: output, not values."""
    return {id(a) for n in nodes if builtin_called(n, bound) == "print" for a in _arguments(n)}


def value_sites(nodes: list[ast.AST], bound: frozenset[str]) -> list[tuple[ast.AST, str, ast.AST]]:
    """``(node, kind, formatted expression)`` for every ``repr(x)`` and f-string field used as a value."""
    printed = _printed(nodes, bound)
    sites = []
    for n in nodes:
        if builtin_called(n, bound) == "repr" and len(n.args) == 1 and id(n) not in printed:
            sites.append((n, "repr", n.args[0]))
        elif isinstance(n, ast.JoinedStr) and id(n) not in printed:
            sites.extend((v, "fstring", v.value) for v in n.values if isinstance(v, ast.FormattedValue))
    return sites


def container_form(expr: ast.AST, annotations: dict[str, str], bound: frozenset[str]) -> bool:
    """Whether ``expr`` is a container by its form: a display, a comprehension, a call that builds one,
    or a parameter annotated with a container type."""
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)):
        return True
    if builtin_called(expr, bound) in _CONTAINER_BUILDERS:
        return True
    return isinstance(expr, ast.Name) and bool(_CONTAINER_ANNOTATION.match(annotations.get(expr.id, "")))
