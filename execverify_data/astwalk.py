"""``walk`` and ``children``: the nodes of an ``ast`` tree, as :func:`ast.walk` yields them, about twice as fast;
``parse_ast``: :func:`ast.parse` that threads may call at once.

The synthesizer, its checker and the catalog's usage analysis walk small trees tens
of thousands of times per second; :func:`ast.walk` spends most of that time in
generator plumbing (``iter_child_nodes``/``iter_fields``).

>>> import ast
>>> tree = ast.parse("def f(x):\\n    return [x.upper() for _ in 'ab']\\n")
>>> all(a is b for a, b in zip(walk(tree), ast.walk(tree))) and len(walk(tree)) == len(list(ast.walk(tree)))
True
"""

from __future__ import annotations

import ast
import threading
from ast import AST

__all__ = ["children", "parse_ast", "walk"]

# CPython 3.11 keeps one depth counter for turning parser output into ``ast`` objects per interpreter; when a
# thread switch lands inside that conversion (a garbage collection running a finalizer can cause one) and
# another thread parses, the first raises "SystemError: AST constructor recursion depth mismatch" (seen in
# CI: three threads scoring answers through the sandbox pool). Reentrant: a finalizer may parse.
_PARSING = threading.RLock()


def parse_ast(source: str, mode: str = "exec") -> ast.AST:
    """:func:`ast.parse` of ``source`` in ``mode``, one thread at a time (the scoring paths run in threads).

    >>> parse_ast("[1, 2]", mode="eval").body.elts[1].value
    2
    """
    with _PARSING:
        return ast.parse(source, mode=mode)


def walk(node: AST) -> list[AST]:
    """Every node under ``node`` (itself first), in :func:`ast.walk`'s breadth-first order, as a list."""
    todo = [node]
    append = todo.append
    for current in todo:  # the list grows while it is read: a breadth-first queue
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        append(item)
            elif isinstance(value, AST):
                append(value)
    return todo


def children(node: AST) -> list[AST]:
    """The direct child nodes of ``node``, in :func:`ast.iter_child_nodes`' order, as a list."""
    out: list[AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            out.extend(item for item in value if isinstance(item, AST))
        elif isinstance(value, AST):
            out.append(value)
    return out
