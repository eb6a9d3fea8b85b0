"""Which catalog entries a program uses, read from its AST alone (never run).

A static approximation, which coverage statistics rely on; its rules are in ``docs/catalog.md`` ("Target
used", "Catalog usage"). Operators are read off the syntax exactly; an unknown receiver's method call gives
every method of that name whose arity fits (an over-approximation).

>>> sorted(entries_used("def f(s: str):\\n    return sorted(s.split(','))[1:]"))
['builtin.sorted', 'op.slice_from', 'str.split']
>>> sorted(entries_used("def f(xs):\\n    return xs.count(1)"))
['bytes.count', 'list.count', 'str.count', 'tuple.count']
>>> sorted(entries_used("import re\\ndef f(s):\\n    return re.split(',', s)"))
[]
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from execverify_data.astwalk import children, walk
from execverify_data.catalog import ENTRIES, TYPES, get
from execverify_data.catalog.entry import Entry, Signature
from execverify_data.catalog.operators import SLICE_FORMS
from execverify_data.catalog.typelang import parse as parse_type

__all__ = ["CallUse", "Usage", "analyze", "call_counts", "entries_used"]

_METHODS: dict[str, list[Entry]] = {}
for _e in ENTRIES:
    if _e.kind == "method":
        _METHODS.setdefault(_e.name, []).append(_e)
_BUILTINS = {e.name: e for e in ENTRIES if e.kind == "function"}


def _syntax_keys() -> dict[tuple[type, type], str]:
    """(node class, operator class) -> operator key, read off the catalog's operator templates: ``"{a} + {b}"``
    parses to a ``BinOp`` with ``Add``, so that is ``add`` (the first entry wins: ``a * b`` is ``mul``)."""
    keys: dict[tuple[type, type], str] = {}
    for e in ENTRIES:
        if e.kind == "operator":
            node = ast.parse(e.template.format(**{p.name: p.name for p in e.signatures[0].params})).body[0]
            node = node.value if isinstance(node, ast.Expr) else node
            for op in getattr(node, "ops", [getattr(node, "op", None)]):
                if op is not None:
                    keys.setdefault((type(node), type(op)), e.name)
    return keys


_SYNTAX = _syntax_keys()
#: (lower, upper, step present) -> slice key, read off the templates' ``{i}``, ``{j}``, ``{k}`` holes.
_SLICES = {tuple("{" + n + "}" in t for n in "ijk"): key for key, t in SLICE_FORMS.items() if key != "slice_reverse"}

_SEQUENCES = frozenset({"str", "list", "tuple", "bytes"})
#: Expressions whose type head their syntax tells: displays, comprehensions, f-strings, comparisons.
_DISPLAYS = {ast.List: "list", ast.ListComp: "list", ast.Tuple: "tuple", ast.Set: "set", ast.SetComp: "set",
             ast.Dict: "dict", ast.DictComp: "dict", ast.JoinedStr: "str", ast.Compare: "bool"}
_TYPING_ALIASES = {"List": "list", "Dict": "dict", "Set": "set", "FrozenSet": "frozenset", "Tuple": "tuple"}

Types = frozenset[str] | None  # possible type heads; None = unknown


@dataclass(frozen=True)
class CallUse:
    """One call that maps to catalog entries.

    ``ids`` are the candidate entries; ``receiver_types`` is what was inferred about the
    receiver (``None``: unknown); ``how`` is ``"function"``, ``"method"`` or ``"type-method"``.
    """

    node: ast.Call
    ids: tuple[str, ...]
    receiver_types: Types
    how: str


@dataclass(frozen=True)
class Usage:
    """All catalog uses found in a module: calls and operator ids."""

    calls: tuple[CallUse, ...]
    operators: frozenset[str]

    @property
    def ids(self) -> set[str]:
        """Every catalog id used (candidates included)."""
        return set(self.operators).union(*(c.ids for c in self.calls))


def _heads(type_text: str) -> Types:
    t = parse_type(type_text)
    members = t.args if t.name == "|" else (t,)
    if any(m.is_var for m in members):
        return None
    return frozenset(m.name for m in members)


def _union(types: Iterable[Types]) -> Types:
    """The union of possible type heads, read in order up to the first unknown (None), which makes it unknown."""
    heads: set[str] = set()
    for t in types:
        if t is None:
            return None
        heads |= t
    return frozenset(heads)


def _owners(types: frozenset[str]) -> set[str]:
    return set(types) | ({"int"} if "bool" in types else set())


def _fits(s: Signature, n_positional: int | None, keywords: set[str]) -> bool:
    lo, hi = s.arity
    names = {p.name for p in s.params}
    if not keywords <= names:
        return False
    if n_positional is None:  # a *starred argument: any count
        return True
    given = n_positional + sum(1 for p in s.params if p.name in keywords and not p.keyword)
    return lo <= given and (hi is None or given <= hi)


class _Analyzer:
    def __init__(self, tree: ast.Module) -> None:
        self.modules: set[str] = set()
        self.bound: set[str] = set()
        self.skip: set[int] = set()
        self.memo: dict[tuple[int, str], Types] = {}
        self.parent_fn: dict[int, ast.AST] = {}
        self.assigned: dict[tuple[int, str], list[ast.AST | str]] = {}
        self.nodes = walk(tree)  # nothing here changes the tree: every pass reads the same nodes
        for node in self.nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.modules.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                self.bound.update(a.asname or a.name for a in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.bound.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.bound.add(node.id)
            elif isinstance(node, ast.arg):
                self.bound.add(node.arg)
                if node.annotation is not None:
                    self.skip.update(id(n) for n in walk(node.annotation))
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self.bound.add(node.name)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
                self.skip.update(id(n) for n in walk(node.returns))
            if isinstance(node, ast.AnnAssign):
                self.skip.update(id(n) for n in walk(node.annotation))
        self.bound |= self.modules
        for fn in self.nodes:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                self._index_function(fn)

    def _index_function(self, fn: ast.AST) -> None:
        args = fn.args
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            self.assigned.setdefault((id(fn), a.arg), []).append(self._annotation(a.annotation))
        for extra, head in ((args.vararg, "tuple"), (args.kwarg, "dict")):
            if extra is not None:
                self.assigned.setdefault((id(fn), extra.arg), []).append(head)
        stack = children(fn)
        while stack:
            node = stack.pop()
            self.parent_fn[id(node)] = fn
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue  # its own scope
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault((id(fn), target.id), []).append(node.value)
                    else:
                        self._unknown_targets(fn, target)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                self.assigned.setdefault((id(fn), node.target.id), []).append(self._annotation(node.annotation))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self.assigned.setdefault((id(fn), node.target.id), []).append(
                    ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value)
                )
            elif isinstance(node, (ast.For, ast.comprehension, ast.withitem, ast.NamedExpr)):
                target = getattr(node, "target", None) or getattr(node, "optional_vars", None)
                if target is not None:
                    self._unknown_targets(fn, target)
            stack.extend(children(node))

    def _unknown_targets(self, fn: ast.AST, target: ast.AST) -> None:
        for n in walk(target):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):  # not xs in xs[0] = ...
                self.assigned.setdefault((id(fn), n.id), []).append("?")

    def _annotation(self, node: ast.AST | None) -> str:
        if node is None:
            return "?"
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return "?"
        if isinstance(node, ast.Subscript):
            node = node.value
        if isinstance(node, ast.Name):
            name = _TYPING_ALIASES.get(node.id, node.id)
            return name if name in TYPES else "?"
        return "?"

    # --- type inference -----------------------------------------------------------

    def types(self, node: ast.AST, seen: frozenset[tuple[int, str]] = frozenset()) -> Types:
        if isinstance(node, str):
            return None if node == "?" else frozenset({node})
        if isinstance(node, ast.Constant):
            return frozenset({type(node.value).__name__})
        if type(node) in _DISPLAYS:
            return frozenset({_DISPLAYS[type(node)]})
        if isinstance(node, ast.Subscript):
            inner = self.types(node.value, seen)
            if isinstance(node.slice, ast.Slice):
                return inner if inner and inner <= _SEQUENCES else None
            return frozenset({"str"}) if inner == {"str"} else (frozenset({"int"}) if inner == {"bytes"} else None)
        if isinstance(node, ast.IfExp):
            a, b = self.types(node.body, seen), self.types(node.orelse, seen)
            return a | b if a is not None and b is not None else None
        if isinstance(node, ast.BinOp):
            return self._binop_types(node, seen)
        if isinstance(node, ast.Call):
            use = self.call_use(node, seen)
            if use is None or not use.ids:
                return None
            return _union(_heads(s.returns) for entry_id in use.ids for s in get(entry_id).signatures)
        if isinstance(node, ast.Name):
            fn = self.parent_fn.get(id(node))
            key = (id(fn), node.id)
            if fn is None or key in seen or key not in self.assigned:
                return None
            if key not in self.memo:  # memoized: chains of variables stay linear
                self.memo[key] = _union(self.types(value, seen | {key}) for value in self.assigned[key])
            return self.memo[key]
        return None

    def _binop_types(self, node: ast.BinOp, seen: frozenset) -> Types:
        key = self._binop_key(node, seen)
        left, right = self.types(node.left, seen), self.types(node.right, seen)
        if key is None or left is None or right is None or len(left) != 1 or len(right) != 1:
            return None
        lt, rt = _owners(left), _owners(right)

        def fits(s: Signature) -> bool:
            a, b = (parse_type(p.type).name for p in s.params)
            return (a in lt or a.isupper() and len(a) == 1) and (b in rt or b.isupper() and len(b) == 1)

        return _union(_heads(s.returns) for s in get("op." + key).signatures if fits(s)) or None

    def _binop_key(self, node: ast.BinOp, seen: frozenset = frozenset()) -> str | None:
        key = _SYNTAX.get((ast.BinOp, type(node.op)))
        if key == "mul":
            sides = [self.types(node.left, seen), self.types(node.right, seen)]
            if any(t is not None and t & _SEQUENCES for t in sides):
                return "repeat"
        if key == "mod" and (self.types(node.left, seen) or set()) & {"str", "bytes"}:
            return None  # %-formatting is not catalogued
        return key

    # --- calls --------------------------------------------------------------------

    def call_use(self, node: ast.Call, seen: frozenset = frozenset()) -> CallUse | None:
        starred = any(isinstance(a, ast.Starred) for a in node.args)
        n_pos = None if starred else len(node.args)
        keywords = {k.arg for k in node.keywords if k.arg is not None}
        func = node.func
        if isinstance(func, ast.Name):
            entry = _BUILTINS.get(func.id)
            if entry is None or func.id in self.bound:
                return None
            fits = any(_fits(s, n_pos, keywords) for s in entry.signatures)
            return CallUse(node, (entry.id,) if fits else (), None, "function")
        if not isinstance(func, ast.Attribute) or func.attr not in _METHODS:
            return None
        recv = func.value
        if isinstance(recv, ast.Name) and recv.id in self.modules:
            return None
        if isinstance(recv, ast.Name) and recv.id in TYPES and recv.id not in self.bound:  # str.upper(s)
            recv_types, how = frozenset({recv.id}), "type-method"
            n_pos = None if n_pos is None else n_pos - 1  # the first argument is the receiver
        else:
            recv_types, how = self.types(recv, seen), "method"
        owners = _owners(recv_types) if recv_types is not None else None
        ids = tuple(e.id for e in _METHODS[func.attr] if (owners is None or e.receiver in owners)
                    and any(_fits(s, n_pos, keywords) for s in e.signatures))
        return CallUse(node, ids, recv_types, how)

    def operator_ids(self, node: ast.AST) -> list[str]:
        if isinstance(node, ast.BinOp):
            key = self._binop_key(node)
            return [key] if key else []
        signed = isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd))
        if signed and isinstance(node.operand, ast.Constant):
            return []  # -1 is a literal, not op.neg
        if isinstance(node, (ast.AugAssign, ast.UnaryOp, ast.BoolOp)):
            key = _SYNTAX.get((type(node), type(node.op)))
            return [key] if key else []
        if isinstance(node, ast.Compare):
            return [_SYNTAX[ast.Compare, type(op)] for op in node.ops]
        if isinstance(node, ast.IfExp):
            return ["ifexp"]
        if isinstance(node, ast.JoinedStr) and any(isinstance(v, ast.FormattedValue) for v in node.values):
            return ["fstring"]
        if isinstance(node, ast.Subscript):
            return [self._subscript_key(node)]
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return ["unpack_" + type(node).__name__.lower()]
        if isinstance(node, ast.Dict) and any(k is None for k in node.keys):
            return ["unpack_dict"]
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Starred) for a in node.args):
            return ["unpack_call"]
        return []

    @staticmethod
    def _subscript_key(node: ast.Subscript) -> str:
        sl = node.slice
        if not isinstance(sl, ast.Slice):
            return {ast.Load: "getitem", ast.Store: "setitem", ast.Del: "delitem"}[type(node.ctx)]
        if isinstance(node.ctx, ast.Store):
            return "slice_assign"
        if isinstance(node.ctx, ast.Del):
            return "slice_delete"
        step = sl.step
        reverse = (isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub)
                   and isinstance(step.operand, ast.Constant) and step.operand.value == 1)
        if reverse and sl.lower is None and sl.upper is None:
            return "slice_reverse"
        return _SLICES[sl.lower is not None, sl.upper is not None, step is not None]

    def usage(self) -> Usage:
        calls, ops = [], set()
        for node in self.nodes:
            if id(node) in self.skip:
                continue
            if isinstance(node, ast.Call):
                use = self.call_use(node)
                if use is not None and use.ids:
                    calls.append(use)
            ops.update("op." + k for k in self.operator_ids(node))
        return Usage(tuple(calls), frozenset(ops))


def analyze(source: str | ast.Module) -> Usage:
    """Every catalog use in ``source`` (text or a parsed module); raises ``SyntaxError`` if it does not parse.

    >>> use = analyze("def f(xs: list):\\n    return xs.pop()").calls[0]
    >>> use.ids, sorted(use.receiver_types), use.how
    (('list.pop',), ['list'], 'method')
    """
    tree = ast.parse(source) if isinstance(source, str) else source
    return _Analyzer(tree).usage()


def entries_used(source: str | ast.Module) -> set[str]:
    """The catalog ids ``source`` uses, statically approximated (see the module docs)."""
    return analyze(source).ids


def call_counts(sources: Iterable[str | ast.Module]) -> dict[str, float]:
    """How often a corpus calls each catalog entry (operators are not counted).

    A call whose entry the analysis tells (``xs.append(x)``, ``len(s)``) counts 1 for it. A call it cannot tell
    (``line.split()`` of an unknown ``line``: ``str.split`` or ``bytes.split``) is shared among its candidates in
    proportion to the told calls of each, plus one, so that code that splits text does not make bytes look common.
    A source that does not parse is skipped.

    >>> counts = call_counts(["def f(s: str, b: bytes):\\n    return s.split(), s.split(), b.split()",
    ...                       "def g(line):\\n    return line.split()"])
    >>> round(counts["str.split"], 2), round(counts["bytes.split"], 2)
    (2.6, 1.4)
    """
    told: dict[str, float] = {}
    untold: list[tuple[str, ...]] = []
    for source in sources:
        try:
            calls = analyze(source).calls
        except (SyntaxError, ValueError, RecursionError):
            continue
        for use in calls:
            if len(use.ids) == 1:
                told[use.ids[0]] = told.get(use.ids[0], 0.0) + 1.0
            else:
                untold.append(use.ids)
    counts = dict(told)
    for ids in untold:
        weights = [told.get(i, 0.0) + 1.0 for i in ids]
        total = sum(weights)
        for i, w in zip(ids, weights):
            counts[i] = counts.get(i, 0.0) + w / total
    return counts
