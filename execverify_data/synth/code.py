"""Code as the generator writes it: typed value expressions and statement blocks, rendered to source.

A :class:`Val` is an expression's text with its grain (:mod:`.vocab`) and the names it reads; a
block is a list of statements, each a line of text or a compound :class:`Stmt` (a header, its
body and its ``elif``/``else`` parts). :func:`render` turns functions into source, through
``ast`` so that the text is what ``ast.unparse`` writes (the checker, the tracer and the
questions all read that text). An attempt that cannot be written raises :class:`GenFail`.

>>> body = [Stmt("for word in words:", [Stmt("if len(word) > 3:", ["count += 1"])]), "return count"]
>>> print(render([("count_long", "words: list[str]", "int", ["count = 0", *body])]), end="")
def count_long(words: list[str]) -> int:
    count = 0
    for word in words:
        if len(word) > 3:
            count += 1
    return count
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field
from functools import lru_cache

from execverify_data.synth.vocab import empty_value

__all__ = ["BUILTIN_NAMES", "GenFail", "NoUse", "SIGNATURE", "Stmt", "Val", "atom", "calls_in", "names_read", "render",
           "rewrite", "texts"]


class GenFail(Exception):
    """This attempt cannot be completed; the caller retries with fresh choices."""


class NoUse(GenFail):
    """No attempt can succeed: the spec's target has no use that fits its level (retrying is pointless)."""


#: stands for the entry point's parameter list until the parameters are known (a marker may still become one)
SIGNATURE = "\x00signature\x00"

_ATOMIC = (ast.Name, ast.Call, ast.Attribute, ast.Subscript, ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.JoinedStr)


@lru_cache(maxsize=65536)
def atom(text: str) -> str:
    """``text`` in parentheses unless it is already an atom (a name, call, attribute, subscript, literal...),
    so that it can take a method call or an index: ``atom('a + b') == '(a + b)'``."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return f"({text})"
    return text if isinstance(node, _ATOMIC) else f"({text})"


_READ = re.compile(r"(?<![.\w'\"])[A-Za-z_]\w*")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


@lru_cache(maxsize=1 << 14)
def names_read(text: str) -> frozenset[str]:
    """The identifiers an expression text mentions that are not attributes or inside string literals (a
    superset of the names it reads: keywords and bound comprehension variables are included).

    >>> sorted(names_read("len(word.strip()) > limit and 'x y' in text"))
    ['and', 'in', 'len', 'limit', 'text', 'word']
    """
    return frozenset(_READ.findall(_STRING.sub("''", text)))


_CALL = re.compile(r"(\.?)\b([A-Za-z_]\w*)\(")


@lru_cache(maxsize=65536)
def calls_in(text: str) -> frozenset[str]:
    """The builtins and methods ``text`` (code or a form's template) calls, as :func:`~execverify_data.naturalness.distinct_calls`
    names them: ``len``, ``.upper``.

    >>> sorted(calls_in("len(word.strip()) > {n} and helper(x)"))
    ['.strip', 'len']
    """
    return frozenset(dot + name if dot else name for dot, name in _CALL.findall(text) if dot or name in BUILTIN_NAMES)


#: every name of the ``builtins`` module (a name the synthesized code never binds: it is not renamed or counted as state)
BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass(frozen=True)
class Val:
    """A value expression: its ``text``, its ``grain`` and the names it reads."""

    text: str
    grain: str
    reads: frozenset[str] = frozenset()

    @classmethod
    def of(cls, text: str, grain: str) -> Val:
        return cls(text, grain, names_read(text))

    @property
    def atom(self) -> str:
        return atom(self.text)

    def or_empty(self, guard: str) -> Val:
        """This value where ``guard`` holds, its grain's empty value elsewhere (``s.index(c) if c in s else -1``);
        itself when there is no guard."""
        return Val.of(f"{self.text} if {guard} else {empty_value(self.grain)}", self.grain) if guard else self

    def as_test(self, guard: str) -> str:
        """This value as a test that is asked only where ``guard`` holds (``s and s[0].isupper()``)."""
        return f"{guard} and {self.text}" if guard else self.text


@dataclass
class Stmt:
    """A compound statement: ``head`` (``'for x in xs:'``), its ``body``, then ``tail`` parts
    ``[(head, body), ...]`` (``elif``/``else``)."""

    head: str
    body: list
    tail: list = field(default_factory=list)


def texts(block: list) -> list[str]:
    """The text of every statement of ``block`` in order, compound statements' heads and their ``elif``/``else``
    heads included."""
    out: list[str] = []
    for st in block:
        if isinstance(st, Stmt):
            out += [st.head, *texts(st.body)]
            for head, body in st.tail:
                out += [head, *texts(body)]
        else:
            out.append(st)
    return out


def rewrite(block: list, fn) -> list:
    """``block`` with ``fn`` applied to the text of every statement (heads included)."""
    return [Stmt(fn(st.head), rewrite(st.body, fn), [(fn(h), rewrite(b, fn)) for h, b in st.tail])
            if isinstance(st, Stmt) else fn(st) for st in block]


def _lines(block: list, indent: int, out: list[str]) -> None:
    pad = "    " * indent
    for st in block:
        if isinstance(st, Stmt):
            out.append(pad + st.head)
            _lines(st.body or ["pass"], indent + 1, out)
            for head, body in st.tail:
                out.append(pad + head)
                _lines(body or ["pass"], indent + 1, out)
        else:
            out.append(pad + st)


def render(functions: list[tuple[str, str, str, list]]) -> str:
    """Source of ``(name, parameters text, return annotation, body)`` functions, as ``ast.unparse`` writes it.

    Raises:
        SyntaxError: a statement is not valid Python (a generator bug).
    """
    out: list[str] = []
    for name, params, returns, body in functions:
        if out:
            out += ["", ""]
        out.append(f"def {name}({params}) -> {returns}:")
        _lines(body, 1, out)
    tree = ast.parse("\n".join(out) + "\n")
    return ast.unparse(tree) + "\n"
