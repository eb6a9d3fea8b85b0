"""The structural measures a :class:`~execverify_data.synth.spec.ConstraintSpec` is judged by, defined once.

The checker (:mod:`.checker`) judges a program with them and the generator builds programs
that meet them, so the two can never disagree on what "nested depth 2" or "a ``for`` inside an
``if``" means:

* :func:`call_depth`: how deeply calls nest as *arguments* of calls (``f(g(x))`` is 1; method
  chains such as ``s.strip().split()`` are receivers, not arguments, and do not count);
* :func:`deepest_call`: the call of greatest depth in a tree; :func:`nested_depth`, the same of a
  text (the generator measures what it writes before it is a program);
* :func:`builtin_chain`: builtins called on a builtin's result (``sorted(set(x))`` is 2), which the
  generator keeps short;
* :class:`Chains`: control-flow statements nested in a given order (``for`` > ``if``...), each
  inside the previous one's controlled blocks, ``if-elif`` being an ``if`` whose ``else`` is one
  ``if`` written with the ``elif`` keyword.

>>> import ast
>>> call_depth(ast.parse("len(set(s.split()))", mode="eval").body)
2
>>> call_depth(ast.parse("s.strip().split()", mode="eval").body)
0
>>> src = "def f(xs):\\n    for x in xs:\\n        if x:\\n            pass\\n        elif x > 1:\\n            pass\\n"
>>> [type(n).__name__ for n in Chains(src, ast.parse(src)).find(("for", "if-elif"))]
['For', 'If']
"""

from __future__ import annotations

import ast
import builtins
from functools import lru_cache

from execverify_data.astwalk import walk

__all__ = ["Chains", "builtin_chain", "call_depth", "deepest_call", "nested_depth"]


def call_depth(node: ast.Call) -> int:
    """Levels of calls passed as arguments (positional, keyword or ``*``-unpacked) below ``node``."""
    if not isinstance(node, ast.Call):
        return 0
    best = 0
    for arg in (*node.args, *(k.value for k in node.keywords)):
        if isinstance(arg, ast.Starred):
            arg = arg.value
        if isinstance(arg, ast.Call):
            best = max(best, 1 + call_depth(arg))
    return best


def deepest_call(tree: ast.AST, nodes: list[ast.AST] | None = None) -> tuple[int, ast.Call | None]:
    """``(depth, call)`` of the call with the greatest :func:`call_depth` (the first one met in a walk)."""
    best, where = 0, None
    for node in nodes if nodes is not None else walk(tree):
        if isinstance(node, ast.Call):
            depth = call_depth(node)
            if depth > best:
                best, where = depth, node
    return best, where


@lru_cache(maxsize=65536)
def nested_depth(text: str) -> int:
    """The nested-call depth of an expression or of statements (0 when the text does not parse).

    >>> nested_depth("total += len(word.strip())"), nested_depth("len(set(")
    (1, 0)
    """
    if text.count("(") < 2:  # a call passed to a call takes two parentheses: most texts have fewer, and parse for nothing
        return 0
    for mode in ("eval", "exec"):
        try:
            return deepest_call(ast.parse(text, mode=mode))[0]
        except SyntaxError:
            continue
    return 0


@lru_cache(maxsize=65536)
def builtin_chain(text: str) -> int:
    """The longest chain of builtin function calls, each the first argument of the one around it, in ``text``
    (counted from the outermost call).

    >>> builtin_chain("sorted(set(x))"), builtin_chain("len(word.strip())"), builtin_chain("len(")
    (2, 1, 0)
    """
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return 0

    def chain(n) -> int:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and hasattr(builtins, n.func.id):
            return 1 + max((chain(a) for a in n.args[:1]), default=0)
        return 0

    return max((chain(n) for n in walk(node)), default=0)


class Chains:
    """Control-flow chains of one module (``source`` is needed to tell ``elif`` from ``else: if``)."""

    def __init__(self, source: str, tree: ast.Module):
        self.lines = source.splitlines()
        self.tree = tree

    def is_elif(self, node: ast.If) -> bool:
        if len(node.orelse) != 1 or not isinstance(node.orelse[0], ast.If):
            return False
        inner = node.orelse[0]
        line = self.lines[inner.lineno - 1].encode()
        return line[inner.col_offset:].startswith(b"elif")

    def matches(self, node: ast.AST, kind: str) -> bool:
        if kind == "if-elif":
            return isinstance(node, ast.If) and self.is_elif(node)
        return isinstance(node, {"for": ast.For, "while": ast.While, "if": ast.If}[kind])

    def branches(self, node: ast.If) -> list[ast.stmt]:
        """The statements of every branch of an if / elif / else chain (elif heads excluded)."""
        if self.is_elif(node):
            return node.body + self.branches(node.orelse[0])
        return node.body + node.orelse

    def inside(self, node: ast.AST) -> list[ast.stmt]:
        """Statements nested in ``node``'s controlled blocks, not crossing a def or class."""
        if isinstance(node, ast.If):
            blocks = self.branches(node)
        elif isinstance(node, (ast.For, ast.While)):
            blocks = node.body  # a loop's else clause is not inside the loop
        elif isinstance(node, ast.Try):
            blocks = [*node.body, *(s for h in node.handlers for s in h.body), *node.orelse, *node.finalbody]
        else:
            blocks = list(getattr(node, "body", []))
        out: list[ast.stmt] = []
        for child in blocks:
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            out.append(child)
            out.extend(self.inside(child))
        return out

    def scope(self) -> list[ast.stmt]:
        """Every statement inside the module's top-level functions."""
        return [s for f in self.tree.body if isinstance(f, ast.FunctionDef) for s in self.inside(f)]

    def find(self, chain: tuple[str, ...], scope: list[ast.stmt] | None = None) -> list[ast.AST] | None:
        """The statements of ``chain``, each nested in the previous one, or None."""
        if not chain:
            return []
        for node in self.scope() if scope is None else scope:
            if self.matches(node, chain[0]):
                if len(chain) == 1:
                    return [node]
                rest = self.find(chain[1:], self.inside(node))
                if rest is not None:
                    return [node, *rest]
        return None

    def longest_prefix(self, chain: tuple[str, ...]) -> list[ast.AST]:
        for n in range(len(chain) - 1, 0, -1):
            found = self.find(chain[:n])
            if found:
                return found
        return []
