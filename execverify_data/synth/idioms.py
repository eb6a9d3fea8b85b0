"""Idioms: the shapes people write loops and branches in.

An :class:`Accumulator` is the value a function builds and returns: a running total,
a counter, a filtered list, a string being built, a dict of groups or counts, a best-so-far,
or a search that returns early. Control constructs (``for`` over a finite iterable,
``if``, a ``while`` over a strictly decreasing bounded counter, a two-pointer walk)
nest around the accumulator's update, so loops terminate by construction.

>>> [k.name for k in KINDS][:4]
['total', 'count', 'collect', 'build']
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from execverify_data.synth.ir import Expr, T

__all__ = ["Kind", "KINDS", "Accumulator", "stmt", "expr_node"]


def stmt(text: str) -> ast.stmt:
    """One statement from source text."""
    return ast.parse(text).body[0]


def expr_node(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


@dataclass(frozen=True)
class Kind:
    """An accumulator kind: its name, the type it holds, its base name, whether its update sits under an ``if``."""

    name: str
    type: str
    base: str
    needs_if: bool
    #: (type of the value the update consumes, or None)
    consumes: str | None


KINDS = (
    Kind("total", "int", "total", False, "int"),
    Kind("count", "int", "count", True, None),
    Kind("collect", "list[X]", "result", False, "X"),
    Kind("build", "str", "out", False, "str"),
    Kind("group", "dict[X, int]", "counts", False, "X"),
    Kind("best", "int", "best", True, "int"),
    Kind("search", "X", "", True, "X"),
    Kind("unique", "set[X]", "seen", False, "X"),
)


@dataclass
class Accumulator:
    """A chosen accumulator: kind, variable name, element type (for X)."""

    kind: Kind
    name: str
    elem: str = "int"

    @property
    def type(self):
        return T(self.kind.type.replace("X", self.elem))

    @property
    def consumes(self):
        c = self.kind.consumes
        return None if c is None else T(c.replace("X", self.elem))

    def init(self) -> list[ast.stmt]:
        k = self.kind.name
        if k in ("total", "count"):
            return [stmt(f"{self.name} = 0")]
        if k == "collect":
            return [stmt(f"{self.name} = []")]
        if k == "build":
            return [stmt(f"{self.name} = ''")]
        if k == "group":
            return [stmt(f"{self.name} = {{}}")]
        if k == "unique":
            return [stmt(f"{self.name} = set()")]
        if k == "best":
            return [stmt(f"{self.name} = 0")]
        return []

    def update(self, value: Expr | None) -> tuple[list[ast.stmt], frozenset[str]]:
        """The update statement(s) consuming ``value``; returns the entries the update itself uses."""
        k, n = self.kind.name, self.name
        v = value.text if value is not None else None
        if k == "total":
            return [stmt(f"{n} += {v}")], frozenset({"op.iadd"})
        if k == "count":
            return [stmt(f"{n} += 1")], frozenset({"op.iadd"})
        if k == "collect":
            return [stmt(f"{n}.append({v})")], frozenset({"list.append"})
        if k == "build":
            return [stmt(f"{n} += {v}")], frozenset({"op.iadd"})
        if k == "group":
            return [stmt(f"{n}[{v}] = {n}.get({v}, 0) + 1")], frozenset({"op.setitem", "dict.get", "op.add"})
        if k == "unique":
            return [stmt(f"{n}.add({v})")], frozenset({"set.add"})
        if k == "best":
            return [stmt(f"{n} = {v}")], frozenset()
        if k == "search":
            return [stmt(f"return {v}")], frozenset()
        raise AssertionError(k)

    def best_condition(self, value: Expr) -> Expr:
        node = ast.Compare(value.node, [ast.Gt()], [ast.Name(self.name, ast.Load())])
        return Expr(node, T("bool"), value.entries | {"op.gt"}, value.reads | {self.name})

    def finish(self, default: Expr | None) -> ast.stmt:
        if self.kind.name == "search":
            return ast.Return(default.node)
        return stmt(f"return {self.name}")
