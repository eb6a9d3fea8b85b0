"""What decided each step of a traced call, recorded while the call runs.

A chain that says "the condition is true" teaches less than one that says why: ``len(fields)`` is 6 and
``threshold`` is 3. :func:`trace_with_decisions` traces a call as :func:`~execverify_data.trace.trace_call`
does, with a recorder that also notes, at each line event and in the live frame:

* the operands of an ``if``/``while`` test, in Python's order of evaluation and with its short-circuits
  (an operand Python does not evaluate is not evaluated);
* the sequence a ``for`` walks, when the loop starts (a fresh list of its items: the program's object is
  never consumed, so an iterator or generator the program holds is left alone);
* the compound arguments of a line's outermost call and the index and slice values a line reads;
* the value each call of a program function returns, on the line that called it.

Only side-effect-free sub-expressions are evaluated, by a small interpreter over the expression's AST that
knows builtin values and builtin functions and methods that change nothing (``len``, ``sorted``,
``str.lower``, ``dict.get``...): no ``eval``, no program function, no attribute other than such a method,
and nothing after an operand it cannot evaluate (Python might have changed the state by then). Return
values are not evaluated at all: they are what the frame returned. Nothing the program can observe
changes: the evaluation runs inside the trace callback, where nothing is traced, on the values the line
is about to read.

>>> src = "def f(xs, k):\\n    if len(xs) > k:\\n        return xs[0] * k\\n    return None\\n"
>>> trace, notes = trace_with_decisions(src, "f([5, 6], 1)")
>>> [(e.line, [(n.text, n.value.text) for n in notes.get(i, ())]) for i, e in enumerate(trace.events)]
[(2, [('len(xs)', '2'), ('k', '1')]), (3, [('xs[0]', '5')])]
"""

from __future__ import annotations

import ast
import builtins
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import BuiltinFunctionType, FrameType, FunctionType, MappingProxyType, MethodDescriptorType
from typing import Any

from execverify_data.trace import _CO_GENERATOR_LIKE, PROGRAM_FILENAME, Trace, _Recorder, trace_call
from execverify_data.values import CanonicalValue, encode

__all__ = ["Note", "plan", "trace_with_decisions"]

#: Items of a ``for`` sequence kept in a note (the length is always told).
MAX_ITEMS = 50
#: Sub-expression notes per line, besides a test's operands.
MAX_READS = 2


@dataclass(frozen=True)
class Note:
    """One value that decided a step: ``kind`` is ``operand`` (of an ``if``/``while`` test), ``sequence`` (what a
    ``for`` walks; ``length`` is its number of items), ``read`` (a call argument, an index or a slice) or
    ``returned`` (what a call of a program function returned; ``text`` is the function's name)."""

    kind: str
    text: str
    value: CanonicalValue
    length: int | None = None


class _Unknown(Exception):
    """The sub-expression is not one this module evaluates (it might change something), or evaluating it failed."""


class _Helper(_Unknown):
    """The sub-expression is a call of a program function: its value is what the call returns (noted then)."""


# ----------------------------------------------------------------------------- the evaluator

_SAFE = (int, float, complex, str, bytes, bool, type(None), tuple, list, dict, set, frozenset, range, slice)
_IMMUTABLE = (int, float, complex, str, bytes, bool, tuple, frozenset, range, type(None))
_FUNCTIONS = frozenset({"abs", "all", "any", "bool", "chr", "dict", "divmod", "enumerate", "filter", "float", "frozenset",
                        "int", "len", "list", "map", "max", "min", "ord", "range", "repr", "reversed", "round", "set",
                        "sorted", "str", "sum", "tuple", "zip"})
_IMMUTABLE_TYPES = (str, bytes, int, float, complex, bool, tuple, frozenset)


def _pure_callable(value: Any) -> bool:
    """A callable that changes nothing: a builtin function of :data:`_FUNCTIONS`, a method of an immutable builtin
    type (``str.lower``), or a builtin value type (``int``, ``str``, ``tuple``...)."""
    if isinstance(value, BuiltinFunctionType):
        return value.__name__ in _FUNCTIONS and getattr(builtins, value.__name__, None) is value
    if isinstance(value, MethodDescriptorType):
        return value.__objclass__ in _IMMUTABLE_TYPES and not value.__name__.startswith("_")
    return value in (*_IMMUTABLE_TYPES, list, set, dict)
_MUTABLE_READS = {list: {"count", "index", "copy"}, dict: {"get", "keys", "values", "items", "copy"},
                  set: {"union", "intersection", "difference", "symmetric_difference", "issubset", "issuperset",
                        "isdisjoint", "copy"}}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.BitAnd: operator.and_,
           ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_UNARY = {ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
            ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_BIG = 100_000


_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
_FRESH = (enumerate, zip, reversed, range, filter, map)  # calls whose iterators the evaluator may consume (its own objects)


#: Most values :func:`_plain` looks at in one check; a larger value is not evaluated with (its step goes unexplained).
_PLAIN_BUDGET = 2_000
_SCALARS = (int, float, complex, str, bytes, bool, type(None), range, slice)


def _plain(value: Any, budget: int) -> int:
    """The budget left after checking that ``value`` holds builtin values only (exact types, not subclasses), or 0
    (falsy) when it does not or the budget runs out."""
    todo = [value]
    while todo:
        budget -= 1
        if budget <= 0:
            return 0
        item = todo.pop()
        kind = type(item)
        if kind in _SCALARS:
            continue
        if kind in (tuple, list, set, frozenset):
            if len(item) >= budget:
                return 0
            todo.extend(item)
        elif kind is dict:
            if 2 * len(item) >= budget:
                return 0
            todo.extend(item)
            todo.extend(item.values())
        else:
            return 0
    return budget


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (str, bytes, tuple, list)) else 1


class _Evaluator:
    """Evaluates a side-effect-free expression in a frame's namespaces (see the module docs)."""

    def __init__(self, frame: FrameType):
        self.locals, self.globals = frame.f_locals, frame.f_globals
        self.fresh: set[int] = set()  # ids of iterators this evaluation made (a program's own is never consumed)

    def safe(self, value: Any) -> Any:
        """``value`` if it is made of builtin values only (so comparing, hashing or sorting it runs no code of the
        program's, whose effects the program could observe), a dict view, or an iterator this evaluation made."""
        if id(value) in self.fresh or (isinstance(value, _VIEWS) and _plain(list(value), _PLAIN_BUDGET)) \
                or _plain(value, _PLAIN_BUDGET):
            return value
        raise _Unknown

    def __call__(self, node: ast.expr) -> Any:
        method = getattr(self, type(node).__name__, None)
        if method is None:
            raise _Unknown
        return method(node)

    def Constant(self, node):
        return node.value

    def Name(self, node):
        for scope in (self.locals, self.globals):
            if node.id in scope:
                return scope[node.id]
        if hasattr(builtins, node.id):
            return getattr(builtins, node.id)
        raise _Unknown

    def _items(self, elts):
        if any(isinstance(e, ast.Starred) for e in elts):
            raise _Unknown
        return [self.safe(self(e)) for e in elts]

    def Attribute(self, node):
        owner = self(node.value)
        if owner not in _SAFE or node.attr.startswith("_"):  # only a builtin type's method (``str.lower``)
            raise _Unknown
        return getattr(owner, node.attr)

    def _comprehension(self, node, make):
        """A one-``for`` comprehension: its items evaluated with the target bound in a scope of its own."""
        if len(node.generators) != 1 or node.generators[0].is_async:
            raise _Unknown
        loop = node.generators[0]
        names = [n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)]
        if not all(isinstance(n, (ast.Name, ast.Tuple, ast.Store)) for n in ast.walk(loop.target)):
            raise _Unknown
        items = self.safe(self(loop.iter))
        if not isinstance(items, (list, tuple, str, bytes, dict, set, frozenset, range, *_VIEWS)) and id(items) not in self.fresh:
            raise _Unknown  # the program's own iterator: never consumed here
        saved = self.locals
        out = []
        try:
            for item in items:
                scope = dict(saved)
                if isinstance(loop.target, ast.Name):
                    scope[loop.target.id] = item
                else:
                    values = tuple(item)
                    if len(values) != len(names):
                        raise _Unknown
                    scope.update(zip(names, values))
                self.locals = scope
                if all(self(test) for test in loop.ifs):
                    out.append(self(node.elt))
        finally:
            self.locals = saved
        return make(out)

    def ListComp(self, node):
        return self._comprehension(node, list)

    def SetComp(self, node):
        return self._comprehension(node, set)

    def GeneratorExp(self, node):
        made = self._comprehension(node, iter)
        self.fresh.add(id(made))
        return made

    def Tuple(self, node):
        return tuple(self._items(node.elts))

    def List(self, node):
        return self._items(node.elts)

    def Set(self, node):
        return set(self._items(node.elts))

    def Dict(self, node):
        if any(k is None for k in node.keys):
            raise _Unknown
        return dict(zip(self._items(node.keys), self._items(node.values)))

    def Subscript(self, node):
        container = self.safe(self(node.value))
        if not isinstance(container, (str, bytes, tuple, list, dict, range)):
            raise _Unknown
        return container[self.safe(self(node.slice))]

    def Slice(self, node):
        parts = [None if p is None else self.safe(self(p)) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def BinOp(self, node):
        left = self.safe(self(node.left))
        right = self.safe(self(node.right))
        op = type(node.op)
        if op is ast.Mult and _size(left) * _size(right) > _BIG:
            raise _Unknown
        if op in (ast.Pow, ast.LShift) and isinstance(right, int) and abs(right) > 256:
            raise _Unknown
        if op not in _BINARY:
            raise _Unknown
        return _BINARY[op](left, right)

    def UnaryOp(self, node):
        return _UNARY[type(node.op)](self.safe(self(node.operand)))

    def BoolOp(self, node):
        value = None
        for operand in node.values:
            value = self.safe(self(operand))
            if bool(value) is isinstance(node.op, ast.Or):
                return value
        return value

    def Compare(self, node):
        left = self.safe(self(node.left))
        for op, right_node in zip(node.ops, node.comparators):
            right = self.safe(self(right_node))
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def IfExp(self, node):
        return self(node.body) if self.safe(self(node.test)) else self(node.orelse)

    def Call(self, node):
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise _Unknown
        if isinstance(node.func, ast.Name):
            bound = self.globals.get(node.func.id)
            if isinstance(bound, FunctionType) and bound.__code__.co_filename == PROGRAM_FILENAME \
                    and node.func.id not in self.locals:
                raise _Helper
            if node.func.id not in _FUNCTIONS or node.func.id in self.locals or node.func.id in self.globals:
                raise _Unknown
            function = getattr(builtins, node.func.id)
            if function in (map, filter) and node.args and not (
                    isinstance(node.args[0], ast.Constant) and node.args[0].value is None or _pure_callable(self(node.args[0]))):
                raise _Unknown  # a function of the program's, or one with effects, would run here
        elif isinstance(node.func, ast.Attribute):
            receiver = self.safe(self(node.func.value))
            name = node.func.attr
            reads = _MUTABLE_READS.get(type(receiver), ())
            if name.startswith("_") or not (isinstance(receiver, _IMMUTABLE) or name in reads):
                raise _Unknown
            function = getattr(receiver, name)
        else:
            raise _Unknown
        args = []
        for a in node.args:
            value = self(a)
            args.append(value if callable(value) and _pure_callable(value) else self.safe(value))
        kwargs = {}
        for keyword in node.keywords:
            value = self(keyword.value)
            if keyword.arg == "key" and value is not None and not _pure_callable(value):
                raise _Unknown  # a key function of the program's runs program code
            kwargs[keyword.arg] = self.safe(value) if keyword.arg != "key" else value
        result = function(*args, **kwargs)
        if function in _FRESH:
            self.fresh.add(id(result))
        return self.safe(result)


def _evaluate(node: ast.expr, evaluator: _Evaluator) -> Any:
    try:
        return evaluator(node)
    except _Helper:
        raise
    except Exception as exc:  # noqa: BLE001 - _Unknown, or what evaluating raised: not noted
        raise _Unknown from exc


def _walk_test(node: ast.expr, evaluator: _Evaluator, out: list) -> Any:
    """The value of a test, evaluated as Python does (``and``/``or`` and chained comparisons stop where Python
    stops), appending ``(text, value)`` for each non-literal operand evaluated; :class:`_Unknown` stops it."""
    if isinstance(node, ast.BoolOp):
        value = None
        for operand in node.values:
            value = _walk_test(operand, evaluator, out)
            if bool(value) is isinstance(node.op, ast.Or):
                return value
        return value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _walk_test(node.operand, evaluator, out)
    if isinstance(node, ast.Compare):
        left = _leaf(node.left, evaluator, out)
        for op, comparator in zip(node.ops, node.comparators):
            right = _leaf(comparator, evaluator, out)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    return _leaf(node, evaluator, out)


def _leaf(node: ast.expr, evaluator: _Evaluator, out: list) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    try:
        value = _evaluate(node, evaluator)
    except _Helper:
        if isinstance(node, ast.Call):  # the helper call itself: its value comes when it returns
            out.append((ast.unparse(node), _PENDING))
        raise
    out.append((ast.unparse(node), value))
    return value


_PENDING = object()  # a helper call's value, noted when the call returns


# ----------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class _Line:
    kind: str  # "test" (if/while), "for", "reads"
    exprs: tuple[tuple[str, ast.expr], ...]  # what to note, in evaluation order
    span: range = range(0)  # a for's lines (loop start: the frame's previous line is outside it)


#: Method names that change their receiver: a line calling one may change the state before its other reads.
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "add",
                       "discard", "setdefault", "popitem", "difference_update", "intersection_update",
                       "symmetric_difference_update", "send", "throw", "close", "write"})


def _may_change(node: ast.AST) -> bool:
    """Whether evaluating ``node`` (not what lies under it) may change the state: a call of anything but a builtin
    function of :data:`_FUNCTIONS` or a method not among :data:`_MUTATORS`, an assignment expression, a yield."""
    if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
        return True
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name):
            return node.func.id not in _FUNCTIONS
        return not isinstance(node.func, ast.Attribute) or node.func.attr in _MUTATORS
    return False


def _reads(statement: ast.stmt) -> list[ast.expr]:
    """What a statement reads that a reader must compute: the compound arguments of an outermost call that may
    change something (``out.append(word[1:])``); else the calls and subscripts inside its value
    (``total += len(word)``), the value itself only where the line does not tell it (not an assignment's or a
    return's); none when anything inside could change the state before the rest is read."""
    value = getattr(statement, "value", None)
    if not isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)) or value is None:
        return []
    changing = [n for n in _outer_nodes(value) if _may_change(n)]
    if changing and changing != [value]:
        return []  # a call that might change the state before the rest is read
    if changing:  # only the outermost call: its arguments are read before it runs
        parts = [*value.args, *(k.value for k in value.keywords)]
        found = [p for p in parts if not isinstance(p, (ast.Constant, ast.Name, ast.Starred))]
    else:
        told = isinstance(statement, (ast.Assign, ast.AnnAssign, ast.Return))
        found = [n for n in _outer_nodes(value) if isinstance(n, (ast.Call, ast.Subscript)) and not (told and n is value)]
        found.sort(key=lambda n: (n.end_lineno, n.end_col_offset, -n.col_offset))  # as Python computes them: inner first
    return found[:MAX_READS]


_SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda, ast.IfExp)


def _outer_nodes(node: ast.AST):
    """``ast.walk(node)`` without what lies inside a comprehension, a lambda or a conditional expression (their
    names are not the frame's, or Python may not evaluate them)."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        if not isinstance(current, _SCOPES):
            todo.extend(ast.iter_child_nodes(current))


@lru_cache(maxsize=64)
def plan(source: str) -> Mapping[int, _Line]:
    """What to note at each line of ``source``: a test's operands, a ``for``'s sequence, a line's reads."""
    tree = ast.parse(source)
    lines: dict[int, _Line] = {}

    def texts(nodes):
        return tuple((ast.unparse(n), n) for n in nodes)

    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While)):
            lines[node.lineno] = _Line("test", ((ast.unparse(node.test), node.test),))
        elif isinstance(node, ast.For):
            lines[node.lineno] = _Line("for", texts([node.iter]), range(node.lineno, node.end_lineno + 1))
        elif isinstance(node, ast.stmt) and node.lineno not in lines:
            reads = _reads(node)
            if reads:
                lines[node.lineno] = _Line("reads", texts(reads))
    return MappingProxyType(lines)


# ----------------------------------------------------------------------------- the recorder


def _sequence(value: Any, *, fresh: bool) -> list | None:
    """The items a ``for`` over ``value`` walks, or None: a container or view is iterated afresh (it does not
    change); an iterator only when the evaluator made it (``fresh``), never the program's own."""
    if isinstance(value, range) and len(value) > _BIG:
        return None
    if isinstance(value, (list, tuple, str, bytes, dict, set, frozenset, range, *_VIEWS)) or fresh:
        return list(value)
    return None


class _DecidingRecorder(_Recorder):
    """The tracer's recorder, noting what decided each line (the module docs) in ``notes``: event index -> notes."""

    def __init__(self, max_steps: int, deadline: float | None, lines: Mapping[int, _Line]):
        super().__init__(max_steps, deadline)
        self.lines = lines
        self.notes: dict[int, list[Note]] = {}
        self.where: dict[int, int] = {}  # id of a frame's pending event -> its index
        self.last_line: dict[int, int] = {}  # frame id -> its previous line

    def on_event(self, frame: FrameType, event: str, arg: Any):
        record = self.stack[-1] if self.stack else None
        if event == "return" and record is not None and not frame.f_code.co_flags & _CO_GENERATOR_LIKE \
                and not record.function.startswith("<") and len(self.stack) > 1 and frame.f_lasti >= 0:
            caller = self.stack[-2].pending
            if caller is not None and id(caller) in self.where and not self._raising(frame):
                try:
                    value = encode(arg)
                except Exception:  # noqa: BLE001 - a value the encoder refuses: not noted
                    value = None
                if value is not None:
                    notes = self.notes.setdefault(self.where[id(caller)], [])
                    for k, note in enumerate(notes):
                        if note.kind == "operand" and note.value is None and note.text.startswith(record.function + "("):
                            notes[k] = Note("operand", note.text, value)
                            break
                    notes.append(Note("returned", record.function, value))
        result = super().on_event(frame, event, arg)
        if event == "line" and self.stopped is None:
            record = self.stack[-1]
            index = len(self.events) - 1
            self.where[id(record.pending)] = index
            previous = self.last_line.get(record.id)
            self.last_line[record.id] = frame.f_lineno
            line = self.lines.get(frame.f_lineno)
            if line is not None and not record.function.startswith("<"):  # a comprehension's frame: not the line's
                self._note(line, frame, index, previous)
        return result

    @staticmethod
    def _raising(frame: FrameType) -> bool:
        import dis

        code = frame.f_code.co_code
        return frame.f_lasti < len(code) and dis.opname[code[frame.f_lasti]] not in ("RETURN_VALUE", "RETURN_CONST")

    def _note(self, line: _Line, frame: FrameType, index: int, previous: int | None) -> None:
        if line.kind == "for" and previous is not None and previous in line.span:
            return  # a next iteration, not the loop's start
        evaluator = _Evaluator(frame)
        found: list = []
        for text, node in line.exprs:
            try:
                if line.kind == "test":
                    _walk_test(node, evaluator, found)
                else:
                    found.append((text, _evaluate(node, evaluator)))
            except _Unknown:
                break  # Python may have changed the state before a later operand
        notes = []
        for text, value in found:
            if value is _PENDING:
                notes.append(Note("operand", text, None))  # filled when the helper returns
            elif line.kind == "for":
                items = _sequence(value, fresh=id(value) in evaluator.fresh)
                if items is not None:
                    notes.append(Note("sequence", text, encode(items[:MAX_ITEMS]), len(items)))
            elif not hasattr(value, "__next__"):  # an iterator's text would name the evaluator's object, not Python's
                notes.append(Note("operand" if line.kind == "test" else "read", text, encode(value)))
        if notes:
            self.notes.setdefault(index, []).extend(notes)


def trace_with_decisions(source: str, call: str, **options: Any) -> tuple[Trace, dict[int, tuple[Note, ...]]]:
    """:func:`~execverify_data.trace.trace_call`'s trace of ``call`` (``options`` are its options), and the notes of
    what decided each event, by event index (the module docs). Trusted programs only, as ``trace_call``."""
    lines = plan(source)
    made: list[_DecidingRecorder] = []

    def recorder(max_steps: int, deadline: float | None) -> _DecidingRecorder:
        made.append(_DecidingRecorder(max_steps, deadline, lines))
        return made[0]

    trace = trace_call(source, call, recorder=recorder, **options)
    notes = made[0].notes if made else {}
    return trace, {i: tuple(n) for i, n in sorted(notes.items()) if i < len(trace.events)}
