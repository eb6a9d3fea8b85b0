"""The small typed IR the programmatic generator builds programs in.

A program is a list of :class:`Function`\\ s; a function has typed parameters, a
:class:`Scope` of typed variables and a body of ``ast`` statements. Expressions
are :class:`Expr`: an ``ast.expr`` node with its type (a parsed
:class:`~execverify_data.catalog.typelang.Type`), the catalog entries it uses and
the variables it reads. Rendering goes through ``ast.unparse``, so every program
is syntactically valid by construction.

>>> scope = Scope()
>>> text = scope.declare("text", "str", param=True)
>>> e = call_method(Expr.var(text), "upper", [], "str", entry="str.upper")
>>> e.text, str(e.type), sorted(e.entries), sorted(e.reads)
('text.upper()', 'str', ['str.upper'], ['text'])
>>> f = Function("shout", [text], [ast.Return(e.node)], "str")
>>> print(render([f]), end="")
def shout(text: str) -> str:
    return text.upper()
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import lru_cache

from execverify_data.astwalk import walk
from execverify_data.catalog import typelang
from execverify_data.catalog.typelang import Type

__all__ = ["T", "Var", "Expr", "Scope", "Function", "render", "call_method", "call_function", "literal", "ATOMIC"]


@lru_cache(maxsize=None)
def T(text: str) -> Type:
    """Parse a type string once (cached)."""
    return typelang.parse(text)


#: Node types that never need parentheses when used as an operand.
ATOMIC = (ast.Name, ast.Constant, ast.Call, ast.Attribute, ast.Subscript, ast.List, ast.Dict, ast.Set, ast.Tuple)


@dataclass
class Var:
    """A typed variable: a parameter, a local, or a loop target."""

    name: str
    type: Type
    param: bool = False
    mutable_local: bool = False  # a container created in this function (safe to mutate)

    def __post_init__(self) -> None:
        if isinstance(self.type, str):
            self.type = T(self.type)


@dataclass(frozen=True)
class Expr:
    """A typed expression: its ``ast`` node, type, catalog entries used, variables read."""

    node: ast.expr
    type: Type
    entries: frozenset[str] = frozenset()
    reads: frozenset[str] = frozenset()
    value: object = None  # the Python value, for literals
    is_literal: bool = False

    @property
    def text(self) -> str:
        return ast.unparse(self.node)

    @classmethod
    def var(cls, v: Var) -> Expr:
        return cls(ast.Name(v.name, ast.Load()), v.type, frozenset(), frozenset({v.name}))


def literal(value: object, type_: Type | str) -> Expr:
    """A literal expression for a plain value (``ast.parse`` of its repr keeps sets sorted)."""
    if isinstance(type_, str):
        type_ = T(type_)
    if isinstance(value, (set, frozenset)):
        items = sorted(value, key=lambda v: (type(v).__name__, v))
        if not items:
            text = "set()" if isinstance(value, set) else "frozenset()"
        else:
            text = "{" + ", ".join(repr(v) for v in items) + "}"
            if isinstance(value, frozenset):
                text = f"frozenset({text})"
        node = ast.parse(text, mode="eval").body
    elif isinstance(value, (str, bytes, bool, type(None))) or (isinstance(value, (int, float)) and value >= 0):
        node = ast.Constant(value)
    elif isinstance(value, (int, float)):
        node = ast.UnaryOp(ast.USub(), ast.Constant(-value))
    elif isinstance(value, list):
        node = ast.List([literal(v, "object").node for v in value], ast.Load())
    elif isinstance(value, tuple):
        node = ast.Tuple([literal(v, "object").node for v in value], ast.Load())
    elif isinstance(value, dict):
        node = ast.Dict([literal(k, "object").node for k in value], [literal(v, "object").node for v in value.values()])
    else:
        node = ast.parse(repr(value), mode="eval").body
    return Expr(node, type_, frozenset(), frozenset(), value, True)


def _operand(e: Expr) -> ast.expr:
    return e.node


def call_method(receiver: Expr, name: str, args: list[Expr], returns: Type | str, *, entry: str,
                keywords: list[tuple[str, Expr]] = ()) -> Expr:
    """``receiver.name(*args, **keywords)`` using catalog entry ``entry``."""
    if isinstance(returns, str):
        returns = T(returns)
    node = ast.Call(ast.Attribute(receiver.node, name, ast.Load()), [a.node for a in args],
                    [ast.keyword(k, v.node) for k, v in keywords])
    parts = [receiver, *args, *(v for _, v in keywords)]
    return Expr(node, returns, frozenset({entry}).union(*(p.entries for p in parts)), frozenset().union(*(p.reads for p in parts)))


def call_function(name: str, args: list[Expr], returns: Type | str, *, entry: str | None,
                  keywords: list[tuple[str, Expr]] = ()) -> Expr:
    """``name(*args, **keywords)``; ``entry`` is the catalog id (None for helpers)."""
    if isinstance(returns, str):
        returns = T(returns)
    node = ast.Call(ast.Name(name, ast.Load()), [a.node for a in args], [ast.keyword(k, v.node) for k, v in keywords])
    parts = [*args, *(v for _, v in keywords)]
    used = frozenset({entry}) if entry else frozenset()
    return Expr(node, returns, used.union(*(p.entries for p in parts)), frozenset().union(*(p.reads for p in parts)))


def from_template(template: str, operands: dict[str, Expr], returns: Type | str, *, entry: str) -> Expr:
    """An operator expression from its catalog template (``"{a} + {b}"``)."""
    if isinstance(returns, str):
        returns = T(returns)
    texts = {}
    for key, e in operands.items():
        text = e.text
        texts[key] = text if isinstance(e.node, ATOMIC) and not (isinstance(e.node, ast.Constant) and isinstance(e.node.value, (int, float)) and e.node.value < 0) else f"({text})"
    source = template.format(**texts)
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:  # statement forms: a[i] = v, del a[i], a += b
        node = ast.parse(source).body[0]
    parts = list(operands.values())
    return Expr(node, returns, frozenset({entry}).union(*(p.entries for p in parts)), frozenset().union(*(p.reads for p in parts)))


class Scope:
    """Typed variables visible at a point of a function, with fresh-name allocation."""

    def __init__(self, parent: Scope | None = None, taken: set[str] | None = None) -> None:
        self.parent = parent
        self.vars: list[Var] = []
        self.taken: set[str] = taken if taken is not None else (parent.taken if parent else set())

    def child(self) -> Scope:
        return Scope(self, self.taken)

    def declare(self, name: str, type_: Type | str, *, param: bool = False, mutable_local: bool = False) -> Var:
        v = Var(name, type_ if isinstance(type_, Type) else T(type_), param, mutable_local)
        self.vars.append(v)
        self.taken.add(name)
        return v

    def fresh(self, base: str) -> str:
        name, k = base, 2
        while name in self.taken or name in _RESERVED:
            name = f"{base}{k}" if not base[-1].isdigit() else f"{base}_{k}"
            k += 1
        return name

    def all_vars(self) -> list[Var]:
        out = list(self.parent.all_vars()) if self.parent else []
        names = {v.name for v in self.vars}
        return [v for v in out if v.name not in names] + self.vars

    def of_type(self, type_: Type) -> list[Var]:
        return [v for v in self.all_vars() if v.type == type_]


_RESERVED = frozenset(
    {"list", "dict", "set", "str", "int", "float", "bool", "bytes", "tuple", "len", "sum", "max", "min", "map",
     "filter", "range", "type", "sorted", "print", "id", "hash", "input", "iter", "next", "zip", "all", "any",
     "abs", "round", "chr", "ord", "frozenset", "reversed", "enumerate", "format", "object", "repr", "pow",
     "divmod", "bin", "hex", "oct", "isinstance"}
)


@dataclass
class Function:
    """A function: name, typed parameters, body statements, return type text."""

    name: str
    params: list[Var]
    body: list[ast.stmt]
    returns: str | None = None
    meta: dict = field(default_factory=dict)

    def to_ast(self) -> ast.FunctionDef:
        args = ast.arguments(
            posonlyargs=[],
            args=[ast.arg(p.name, ast.parse(str(p.type), mode="eval").body) for p in self.params],
            kwonlyargs=[], kw_defaults=[], defaults=[],
        )
        returns = ast.parse(self.returns, mode="eval").body if self.returns else None
        return ast.FunctionDef(self.name, args, self.body or [ast.Pass()], [], returns, type_params=[])


def render(functions: list[Function]) -> str:
    """Source text of the functions (helpers first, entry point last)."""
    module = ast.Module([f.to_ast() for f in functions], type_ignores=[])
    for node in walk(module):  # ast.unparse reads lineno here and there; the text does not depend on it
        if "lineno" in node._attributes and not hasattr(node, "lineno"):
            node.lineno = node.end_lineno = 1
            node.col_offset = node.end_col_offset = 0
    return ast.unparse(module) + "\n"
