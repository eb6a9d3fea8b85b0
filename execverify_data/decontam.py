"""Decontamination against evaluation benchmarks: normalized-AST hashes and token n-gram overlap.

A program is *contaminated* by a benchmark when the normalized-AST hash
(:func:`execverify_data.synth.filters.normalized_hash`) of the whole program or of one of its
functions is a benchmark program's or function's, or when at least ``threshold`` of its token
``n``-grams occur in the benchmark. CRUXEval and HumanEval ship with the package; REval and
LiveCodeBench-Exec are read from a local copy (:func:`load_local`). See ``docs/release.md``.

>>> d = Decontaminator.from_sources({"toy": ["def g(a):\\n    b = a * 2\\n    return sorted(b)\\n"]})
>>> d.check("def f(xs):\\n    ys = xs * 3\\n    return sorted(ys)\\n")
Match(benchmark='toy', kind='ast', overlap=1.0)
>>> d.check("def f(s):\\n    return s.upper()\\n") is None
True
"""

from __future__ import annotations

import ast
import io
import json
import os
import tokenize
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from execverify_data.errors import InvalidArgument, check_int

__all__ = ["Decontaminator", "Match", "default_sources", "load_local", "ngrams", "program_hashes"]

DEFAULT_N = 10
DEFAULT_THRESHOLD = 0.5


@dataclass(frozen=True)
class Match:
    """Why a program was found in a benchmark: ``kind`` ``'ast'`` (a normalized-AST hash) or ``'ngram'``."""

    benchmark: str
    kind: str
    overlap: float


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def program_hashes(source: str) -> set[str]:
    """Normalized-AST hashes of the whole program (imports dropped) and of each top-level function.

    >>> len(program_hashes("import math\\ndef a(x):\\n    '''doc'''\\n    return x\\ndef b(y):\\n    return a(y) + 1\\n"))
    3
    """
    from execverify_data.synth.filters import normalized_hash

    try:
        tree = _strip_docstrings(ast.parse(source))
    except (SyntaxError, ValueError):
        return set()
    body = [n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
    out = {normalized_hash(ast.unparse(ast.Module(body=body, type_ignores=[])))}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(normalized_hash(ast.unparse(node)))
    return out


_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}


def _tokens(source: str) -> list[str]:
    try:
        text = ast.unparse(_strip_docstrings(ast.parse(source)))
        return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in _SKIP]
    except (SyntaxError, ValueError, tokenize.TokenError):
        return source.split()


def ngrams(source: str, n: int = DEFAULT_N) -> set[tuple[str, ...]]:
    """The program's token ``n``-grams (the whole token list when it is shorter than ``n``).

    >>> sorted(ngrams("x = 1", 2))
    [('=', '1'), ('x', '=')]
    """
    toks = _tokens(source)
    if len(toks) < n:
        return {tuple(toks)} if toks else set()
    return {tuple(toks[i: i + n]) for i in range(len(toks) - n + 1)}


class Decontaminator:
    """Finds programs that appear (exactly up to renaming, or by n-gram overlap) in benchmarks.

    Args:
        sources (`Mapping[str, Iterable[str]]`): benchmark name -> program texts.
        n (`int`, defaults to 10): n-gram length.
        threshold (`float`, defaults to 0.5): the n-gram overlap at or above which a row is dropped.

    Use :meth:`from_sources` or :meth:`default` to build one.
    """

    def __init__(self, *, hashes: Mapping[str, str], grams: Mapping[tuple[str, ...], str], sizes: Mapping[str, int],
                 n: int = DEFAULT_N, threshold: float = DEFAULT_THRESHOLD):
        check_int("n", n)
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
            raise InvalidArgument(f"threshold must be a number in (0, 1], got {threshold!r}")
        self.hashes, self.grams, self.sizes, self.n, self.threshold = dict(hashes), dict(grams), dict(sizes), n, float(threshold)

    @classmethod
    def from_sources(cls, sources: Mapping[str, Iterable[str]], *, n: int = DEFAULT_N, threshold: float = DEFAULT_THRESHOLD) -> "Decontaminator":
        hashes: dict[str, str] = {}
        grams: dict[tuple[str, ...], str] = {}
        sizes: dict[str, int] = {}
        for name in sorted(sources):
            count = 0
            for code in sources[name]:
                count += 1
                for h in program_hashes(code):
                    hashes.setdefault(h, name)
                for g in ngrams(code, n):
                    grams.setdefault(g, name)
            sizes[name] = count
        return cls(hashes=hashes, grams=grams, sizes=sizes, n=n, threshold=threshold)

    @classmethod
    def default(cls, *, local: Mapping[str, str | os.PathLike] | None = None, n: int = DEFAULT_N,
                threshold: float = DEFAULT_THRESHOLD, exclude: Iterable[str] = ()) -> "Decontaminator":
        """CRUXEval and HumanEval, plus ``local`` benchmarks (name -> JSONL file or folder, see :func:`load_local`),
        less the benchmarks named in ``exclude`` (e.g. the one a from-code run takes its functions from)."""
        sources = default_sources()
        for name, path in (local or {}).items():
            sources[name] = load_local(path)
        for name in exclude:
            sources.pop(name, None)
        return cls.from_sources(sources, n=n, threshold=threshold)

    def check(self, source: str) -> Match | None:
        """The first reason ``source`` counts as contaminated, or None."""
        for h in sorted(program_hashes(source)):
            if h in self.hashes:
                return Match(self.hashes[h], "ast", 1.0)
        grams = ngrams(source, self.n)
        if not grams:
            return None
        hits: dict[str, int] = {}
        for g in grams:
            name = self.grams.get(g)
            if name is not None:
                hits[name] = hits.get(name, 0) + 1
        if hits:
            name = max(sorted(hits), key=hits.__getitem__)
            overlap = round(hits[name] / len(grams), 4)
            if overlap >= self.threshold:
                return Match(name, "ngram", overlap)
        return None

    def describe(self) -> dict:
        """Settings and reference sizes (for the manifest and the card)."""
        return {"n": self.n, "threshold": self.threshold, "benchmarks": dict(sorted(self.sizes.items()))}


def default_sources() -> dict[str, list[str]]:
    """The shipped benchmarks' programs: ``cruxeval`` and ``humaneval``."""
    from execverify_data.data import cruxeval_records, humaneval_records

    return {"cruxeval": [r["code"] for r in cruxeval_records()],
            "humaneval": [p["prompt"] + p["canonical_solution"] for p in humaneval_records()]}


def _row_code(row: Mapping) -> str | None:
    for key in ("code", "program", "function", "source"):
        if isinstance(row.get(key), str):
            return row[key]
    if isinstance(row.get("prompt"), str) and isinstance(row.get("canonical_solution"), str):
        return row["prompt"] + row["canonical_solution"]
    return None


def load_local(path: str | os.PathLike) -> list[str]:
    """Programs from a local benchmark copy (REval, LiveCodeBench-Exec...): a JSONL file or a folder of them."""
    path = Path(path)
    files = sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
    if not files or not all(f.is_file() for f in files):
        raise InvalidArgument(f"{path}: no JSONL file found (give a .jsonl file or a folder holding some)")
    out = []
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                code = _row_code(json.loads(line))
                if code:
                    out.append(code)
    if not out:
        raise InvalidArgument(f"{path}: no row has a 'code', 'program', 'function' or 'prompt'+'canonical_solution' field")
    return out
