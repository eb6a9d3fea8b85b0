"""Check a program's source against a :class:`ConstraintSpec` from its AST alone.

The checker never runs code and knows nothing about the generator, so it applies
equally to LLM-written programs. Each constraint becomes one :class:`CheckItem`
(name, met, detail), in the order of :data:`ITEM_NAMES`; docs/catalog.md ("The checker")
says how each one is decided (``while True`` is refused, an ``elif`` is told from
``else: if`` by the source line, a method target's receiver type is inferred where it can be).
The entry point is the ``entry`` argument when given, else the last top-level function that
no other top-level function calls. A constraint the spec does not ask for
(``nested_depth=0``...) is reported as met, "not required".

>>> from execverify_data.synth.spec import MAX_HELPER_DEPTH, ConstraintSpec
>>> src = '''
... def helper(words):
...     return sorted(set(words))
...
... def main(text):
...     out = []
...     for w in helper(text.split()):
...         if len(w) > 2:
...             out.append(w.upper())
...     return out
... '''
>>> spec = ConstraintSpec("str.split", nested_depth=1, other_methods=True,
...                       control_flow=("for", "if"), helper_depth=1, n_params=1)
>>> report = check(src, spec)
>>> report.ok, report.entry_point
(True, 'main')
>>> print(report["control_flow"].detail)
for (line 7) > if (line 8)
>>> check(src, ConstraintSpec("str.split", control_flow=("if", "for"))).missed[0].detail
'found if (line 8) but no for inside it (the opposite order is there: for (line 7) > if (line 8))'
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from execverify_data import catalog
from execverify_data.astwalk import walk
from execverify_data.catalog.usage import Usage, analyze
from execverify_data.errors import InvalidArgument
from execverify_data.synth.measures import Chains, deepest_call
from execverify_data.synth.spec import MAX_HELPER_DEPTH, ConstraintSpec

__all__ = ["ALLOWED_IMPORTS", "FORBIDDEN_NAMES", "CheckItem", "CheckReport", "catalog_entries_used", "check",
           "entry_point"]

#: Modules a program may import: pure, deterministic standard-library helpers.
ALLOWED_IMPORTS = frozenset(
    {"__future__", "bisect", "collections", "functools", "heapq", "itertools", "math", "re", "string", "typing"})
#: Builtins that reach outside the program, run code from strings or reach its internals.
FORBIDDEN_NAMES = frozenset({"eval", "exec", "compile", "open", "input", "__import__", "globals", "locals", "vars",
                             "getattr", "setattr", "delattr", "breakpoint", "help", "exit", "quit", "memoryview",
                             "dir"})
#: The check items, in report order.
ITEM_NAMES = ("parses", "module_shape", "imports", "safe_names", "no_while_true", "target_used", "nested_calls",
              "other_methods", "control_flow", "helper_chain", "param_count")


@dataclass(frozen=True)
class CheckItem:
    """One constraint: its ``name``, whether it is ``met``, and a human-readable ``detail``."""

    name: str
    met: bool
    detail: str

    def __str__(self) -> str:
        return f"[{'x' if self.met else ' '}] {self.name}: {self.detail}"


@dataclass(frozen=True)
class CheckReport:
    """The result of :func:`check`: one :class:`CheckItem` per constraint, the entry point used,
    and the catalog ids the program uses (as :func:`catalog_entries_used` gives them; empty if it does not parse)."""

    items: tuple[CheckItem, ...]
    entry_point: str | None
    catalog_ids: frozenset[str] = frozenset()

    @property
    def ok(self) -> bool:
        """True when every constraint is met."""
        return all(item.met for item in self.items)

    @property
    def missed(self) -> tuple[CheckItem, ...]:
        """The constraints not met, in report order."""
        return tuple(item for item in self.items if not item.met)

    def __getitem__(self, name: str) -> CheckItem:
        for item in self.items:
            if item.name == name:
                return item
        raise KeyError(f"no check item {name!r}; items are {[i.name for i in self.items]}")

    def __str__(self) -> str:
        return "\n".join(str(item) for item in self.items)


def catalog_entries_used(source: str) -> set[str]:
    """The catalog ids the program uses, statically approximated (see :mod:`execverify_data.catalog.usage`).

    >>> sorted(catalog_entries_used("def f(xs: list):\\n    xs.append(len(xs))\\n    return xs[::-1]"))
    ['builtin.len', 'list.append', 'op.slice_reverse']
    """
    return analyze(source).ids


def _functions(tree: ast.Module) -> list[ast.FunctionDef]:
    return [n for n in tree.body if isinstance(n, ast.FunctionDef)]


def _call_graph(tree: ast.Module) -> dict[str, list[str]]:
    """Top-level function name -> top-level functions it calls by name, in first-call order."""
    functions = _functions(tree)
    names = {f.name for f in functions}
    graph: dict[str, list[str]] = {}
    for f in functions:
        calls = [n for n in walk(f) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        calls.sort(key=lambda n: (n.lineno, n.col_offset))
        graph[f.name] = list(dict.fromkeys(n.func.id for n in calls if n.func.id in names))
    return graph


def entry_point(tree: ast.Module) -> str | None:
    """The last top-level function no other top-level function calls (or the last one at all).

    >>> entry_point(ast.parse("def a(x): return x\\ndef b(y): return a(y)"))
    'b'
    """
    functions = _functions(tree)
    if not functions:
        return None
    graph = _call_graph(tree)
    called = {c for caller, callees in graph.items() for c in callees if c != caller}
    roots = [f.name for f in functions if f.name not in called]
    return (roots or [functions[-1].name])[-1]


def check(source: str, spec: ConstraintSpec, *, entry: str | None = None, tree: ast.Module | None = None) -> CheckReport:
    """Check ``source`` against ``spec``; see the module docstring for each rule.

    Args:
        source (`str`): the program text.
        spec (`ConstraintSpec`): the constraints.
        entry (`str`, optional): the entry point's name; by default the last
            top-level function that no other one calls.
        tree (`ast.Module`, optional): ``ast.parse(source)``, when the caller has parsed it already (it is
            only read; a tree of another text gives a report about that text).
    """
    if not isinstance(source, str):
        raise InvalidArgument(f"source must be the program text (str), got {type(source).__name__}")
    if not isinstance(spec, ConstraintSpec):
        raise InvalidArgument(f"spec must be a ConstraintSpec, got {type(spec).__name__}; see ConstraintSpec.from_dict")
    if entry is not None and not isinstance(entry, str):
        raise InvalidArgument(f"entry must be a function name or None, got {entry!r}")
    try:
        tree = ast.parse(source) if tree is None else tree
    except SyntaxError as exc:
        detail = f"SyntaxError: {exc.msg} (line {exc.lineno})"
        items = [CheckItem("parses", False, detail)]
        items += [CheckItem(n, False, "not checked: the source does not parse") for n in ITEM_NAMES[1:]]
        return CheckReport(tuple(items), None)
    return _Checker(source, tree, spec, entry).report()


class _Checker:
    def __init__(self, source: str, tree: ast.Module, spec: ConstraintSpec, entry: str | None) -> None:
        self.source, self.tree, self.spec = source, tree, spec
        self.functions = {f.name: f for f in _functions(tree)}
        self.entry = entry if entry is not None else entry_point(tree)
        self.usage: Usage = analyze(tree)
        self.nodes = walk(tree)  # every check reads the same nodes (the checker never changes the tree)

    def report(self) -> CheckReport:
        items = [CheckItem("parses", True, "ast.parse accepts the source"), self.module_shape(), self.imports(),
                 self.safe_names(), self.no_while_true(), self.target_used(), self.nested_calls(),
                 self.other_methods(), self.control_flow(), self.helper_chain(), self.param_count()]
        return CheckReport(tuple(items), self.entry if self.entry in self.functions else None, frozenset(self.usage.ids))

    # --- general sanity -------------------------------------------------------------

    def module_shape(self) -> CheckItem:
        bad = []
        for i, node in enumerate(self.tree.body):
            docstring = (i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                         and isinstance(node.value.value, str))
            if not (docstring or isinstance(node, (ast.FunctionDef, ast.Import, ast.ImportFrom))):
                bad.append(f"{type(node).__name__} at line {node.lineno}")
        if bad:
            return CheckItem("module_shape", False,
                             "only defs, imports and a docstring may be top level; found " + ", ".join(bad))
        if not self.functions:
            return CheckItem("module_shape", False, "the module defines no function")
        return CheckItem("module_shape", True,
                         f"{len(self.functions)} top-level function(s): {', '.join(self.functions)}")

    def imports(self) -> CheckItem:
        bad = []
        for node in self.nodes:
            if isinstance(node, ast.Import):
                bad += [f"{a.name} (line {node.lineno})" for a in node.names
                        if a.name.split(".")[0] not in ALLOWED_IMPORTS]
            elif isinstance(node, ast.ImportFrom):
                if node.level or (node.module or "").split(".")[0] not in ALLOWED_IMPORTS:
                    bad.append(f"{'.' * node.level}{node.module or ''} (line {node.lineno})")
        if bad:
            return CheckItem("imports", False, f"imports outside {sorted(ALLOWED_IMPORTS)}: {', '.join(bad)}")
        return CheckItem("imports", True, "only allowed modules are imported")

    def safe_names(self) -> CheckItem:
        bad = []
        for node in self.nodes:
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if name is None:
                continue
            if isinstance(node, ast.Name) and name in FORBIDDEN_NAMES:
                bad.append(f"{name} (line {node.lineno})")
            elif name.startswith("__") and name.endswith("__"):
                bad.append(f"dunder {name} (line {node.lineno})")
        if bad:
            return CheckItem("safe_names", False, "forbidden: " + ", ".join(bad))
        return CheckItem("safe_names", True, "no eval/exec/open/input/getattr-like builtins, no dunder access")

    def no_while_true(self) -> CheckItem:
        for node in self.nodes:
            if isinstance(node, ast.While) and isinstance(node.test, ast.Constant) and node.test.value:
                return CheckItem("no_while_true", False,
                                 f"`while {node.test.value!r}` at line {node.lineno}: loops must have a real condition")
        return CheckItem("no_while_true", True, "every while loop has a non-constant condition")

    # --- spec constraints --------------------------------------------------------------

    def _snippet(self, node: ast.AST, limit: int = 60) -> str:
        text = ast.get_source_segment(self.source, node) or ast.unparse(node)
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def target_used(self) -> CheckItem:
        target = catalog.get(self.spec.target)
        for use in self.usage.calls:
            if target.id not in use.ids:
                continue
            where = f"`{self._snippet(use.node)}` at line {use.node.lineno}"
            if use.how == "function":
                return CheckItem("target_used", True, f"{where} calls builtin {target.name}")
            if use.how == "type-method":
                return CheckItem("target_used", True, f"{where} calls {target.id} on the type")
            if use.receiver_types is None:
                how = f"receiver type unknown statically; name and argument count fit {target.id}"
            else:
                how = f"receiver inferred as {'/'.join(sorted(use.receiver_types))}"
            return CheckItem("target_used", True, f"{where} ({how})")
        return CheckItem("target_used", False, self._target_miss(target))

    def _target_miss(self, target: catalog.Entry) -> str:
        name = target.name
        if target.kind == "function":
            for node in self.nodes:
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
                    return f"{name}(...) at line {node.lineno} does not reach builtin {name}: the name is rebound in this module or the arguments do not fit"
            return f"no call to builtin {name}(...)"
        for node in self.nodes:
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr == name:
                    return (f"`{self._snippet(node)}` at line {node.lineno} is not {target.id}: its receiver is a "
                            "module, of another type, or the arguments do not fit")
                if isinstance(func, ast.Name) and func.id == name:
                    return f"`{self._snippet(node)}` at line {node.lineno} calls a function named {name}, not the method {target.id}"
        return f"no call `.{name}(...)` on a value that can be a {target.receiver}"

    def nested_calls(self) -> CheckItem:
        best, where = deepest_call(self.tree, self.nodes)
        need = self.spec.nested_depth
        found = (f"deepest: `{self._snippet(where)}` at line {where.lineno}, depth {best}" if where
                 else "no call has a call as argument")
        if need == 0:
            return CheckItem("nested_calls", True, f"not required ({found})")
        return CheckItem("nested_calls", best >= need, f"{found}; needs depth {need}")

    def other_methods(self) -> CheckItem:
        others = sorted({i for use in self.usage.calls if self.spec.target not in use.ids for i in use.ids})
        found = (f"other catalog calls: {', '.join(others)}" if others
                 else "no catalog method or builtin function besides the target")
        if not self.spec.other_methods:
            return CheckItem("other_methods", True, f"not required ({found})")
        return CheckItem("other_methods", bool(others), found)

    def control_flow(self) -> CheckItem:
        chain = self.spec.control_flow
        if not chain:
            return CheckItem("control_flow", True, "not required")
        chains = Chains(self.source, self.tree)
        path = chains.find(chain)
        if path is not None:
            return CheckItem("control_flow", True, " > ".join(f"{k} (line {n.lineno})" for k, n in zip(chain, path)))
        prefix = chains.longest_prefix(chain)
        if prefix:
            detail = f"found {' > '.join(f'{k} (line {n.lineno})' for k, n in zip(chain, prefix))} but no {chain[len(prefix)]} inside it"
        elif len(chain) == 1:
            detail = f"no {chain[0]} statement" + (
                " (an if with elif is needed; `else:` + `if` is not an elif)" if chain[0] == "if-elif" else "")
        else:
            detail = f"no {chain[1]} inside a{'n' if chain[0][0] in 'aeiou' else ''} {chain[0]}"
        reverse = chains.find(chain[::-1]) if len(chain) > 1 else None
        if reverse is not None:
            detail += f" (the opposite order is there: {' > '.join(f'{k} (line {n.lineno})' for k, n in zip(chain[::-1], reverse))})"
        return CheckItem("control_flow", False, detail)

    def helper_chain(self) -> CheckItem:
        need = self.spec.helper_depth
        if self.entry not in self.functions:
            detail = f"entry point {self.entry!r} is not a top-level function" if self.entry else "no entry point"
            return CheckItem("helper_chain", need == 0, ("not required; " if need == 0 else "") + detail)
        graph = _call_graph(self.tree)
        path = self._longest_path(graph, [self.entry])
        found = (f"chain {' -> '.join(path)}, depth {len(path) - 1}" if len(path) > 1
                 else f"entry point {self.entry} calls no other module function")
        if need == 0:
            return CheckItem("helper_chain", True, f"not required ({found})")
        if len(path) - 1 >= need:
            return CheckItem("helper_chain", True, f"entry point {self.entry}: {found}")
        unused = [f for f in self.functions if f not in path and f != self.entry]
        shown = ", ".join(unused[:5]) + (f" and {len(unused) - 5} more" if len(unused) > 5 else "")
        extra = f"; defined but not called from {self.entry}: {shown}" if unused else ""
        return CheckItem("helper_chain", False, f"entry point {self.entry}: {found}; needs depth {need}{extra}")

    def _longest_path(self, graph: dict[str, list[str]], path: list[str]) -> list[str]:
        best = path
        if len(path) > MAX_HELPER_DEPTH:  # deep enough for any spec; keeps the search polynomial
            return path
        for callee in graph.get(path[-1], []):
            if callee not in path:
                candidate = self._longest_path(graph, [*path, callee])
                if len(candidate) > len(best):
                    best = candidate
        return best

    def param_count(self) -> CheckItem:
        need = self.spec.n_params
        fn = self.functions.get(self.entry) if self.entry else None
        if fn is None:
            return CheckItem("param_count", False, f"entry point {self.entry!r} is not a top-level function")
        args = fn.args
        names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        if args.vararg or args.kwarg:
            return CheckItem("param_count", False, f"entry point {fn.name} takes *args/**kwargs; "
                                                   f"the spec needs exactly {need} named parameter(s)")
        return CheckItem("param_count", len(names) == need, f"entry point {fn.name}({', '.join(names)}) has "
                                                            f"{len(names)} parameter(s); the spec needs {need}")
