"""Difficulty: per-row features, a heuristic score with curriculum buckets, and a model-based filter.

A heuristic (:func:`static_features` and :func:`dynamic_features` give numbers,
:func:`heuristic_score` maps them to ``[0, 1]``, :func:`bucket` cuts the score into curriculum
buckets ``0`` .. ``4``; pure functions of the row), and ExecVerify's rule with solvers
(:class:`PassRateFilter`). ``docs/release.md`` defines each feature and gives the calibration.

>>> src = "def f(xs):\\n    total = 0\\n    for x in xs:\\n        if x > 0:\\n            total += x\\n    return total\\n"
>>> s = static_features(src)
>>> s["lines"], s["nesting_depth"], s["control_flow"]
(6, 2, 2)
>>> from execverify_data.trace import trace_call
>>> d = dynamic_features(trace_call(src, "f([1, -2, 3])"))
>>> d["trace_length"], d["loop_iterations"], d["output_size"]
(11, 6, 1)
>>> 0.0 <= heuristic_score({**s, **d}) <= 1.0
True
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from execverify_data.errors import InvalidArgument

__all__ = ["BUCKET_EDGES", "BUCKET_NAMES", "CAPS", "FEATURES", "WEIGHTS", "PassRateFilter", "PassRateResult", "bucket",
           "dynamic_features", "features", "heuristic_score", "spearman", "static_features"]

STATIC_FEATURES = ("lines", "ast_nodes", "nesting_depth", "catalog_entries", "control_flow")
DYNAMIC_FEATURES = ("trace_length", "distinct_lines", "loop_iterations", "branch_changes", "variables_mutated", "output_size")
#: Every feature, in column order.
FEATURES = STATIC_FEATURES + DYNAMIC_FEATURES

#: Weight of each feature in :func:`heuristic_score` (they sum to 1). Dynamic work
#: (how much a reader must simulate) weighs more than static size.
WEIGHTS: dict[str, float] = {
    "lines": 0.05, "ast_nodes": 0.10, "nesting_depth": 0.10, "catalog_entries": 0.05, "control_flow": 0.10,
    "trace_length": 0.20, "distinct_lines": 0.05, "loop_iterations": 0.10, "branch_changes": 0.10,
    "variables_mutated": 0.10, "output_size": 0.05,
}
#: Value at which a feature saturates (counts as 1.0); features are scaled by ``log1p(x) / log1p(cap)``.
CAPS: dict[str, float] = {
    "lines": 30, "ast_nodes": 200, "nesting_depth": 4, "catalog_entries": 10, "control_flow": 4,
    "trace_length": 300, "distinct_lines": 25, "loop_iterations": 100, "branch_changes": 30,
    "variables_mutated": 40, "output_size": 200,
}
#: Upper edges of buckets 0..3 (bucket 4 is everything above), chosen from the
#: score quintiles of a small seed-0 build (trace config), so buckets are of similar size.
BUCKET_EDGES: tuple[float, ...] = (0.25, 0.45, 0.60, 0.78)
BUCKET_NAMES: tuple[str, ...] = ("very_easy", "easy", "medium", "hard", "very_hard")

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPOUND = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.Try)  # a function's own def is no nesting


def _nesting(node: ast.AST, depth: int = 0) -> int:
    best = depth
    for child in ast.iter_child_nodes(node):
        best = max(best, _nesting(child, depth + 1 if isinstance(child, _COMPOUND) else depth))
    return best


def static_features(source: str, *, catalog_ids: Sequence[str] | None = None) -> dict[str, int]:
    """Features of the program text.

    Args:
        source (`str`): the program.
        catalog_ids (`list[str]`, optional): the catalog entries it uses (computed with
            :func:`~execverify_data.synth.checker.catalog_entries_used` when not given).

    Returns:
        `dict`: ``lines`` (non-blank), ``ast_nodes``, ``nesting_depth`` (compound
        statements inside a function), ``catalog_entries`` (distinct), ``control_flow``
        (``for``/``while``/``if`` statements: the length of the control-flow chain).
    """
    tree = ast.parse(source)
    if catalog_ids is None:
        from execverify_data.synth.checker import catalog_entries_used

        catalog_ids = sorted(catalog_entries_used(source))
    return {"lines": sum(1 for line in source.splitlines() if line.strip()), "ast_nodes": sum(1 for _ in ast.walk(tree)),
            "nesting_depth": _nesting(tree), "catalog_entries": len(set(catalog_ids)),
            "control_flow": sum(isinstance(n, (*_LOOPS, ast.If)) for n in ast.walk(tree))}


def dynamic_features(trace) -> dict[str, int]:
    """Features of one traced call.

    ``trace_length`` (line events), ``distinct_lines``, ``loop_iterations`` (events
    beyond the first on each line that runs more than once: every repeat is one more
    turn of some loop or comprehension), ``branch_changes`` (times a line was followed,
    in its own frame, by another line than the previous time it ran: a condition
    that flipped or a loop that ended), ``variables_mutated`` (times a local's value
    changed after it was first bound), ``output_size`` (characters of the canonical
    output, or of the exception type).
    """
    events = trace.events
    seen: dict[int, int] = {}
    last_next: dict[int, int] = {}
    last_in_frame: dict[int, int] = {}  # frame -> index of its previous event
    changes = mutated = 0
    previous: dict[int, Mapping] = {}
    for i, event in enumerate(events):
        seen[event.line] = seen.get(event.line, 0) + 1
        j = last_in_frame.get(event.frame)
        if j is not None:
            line = events[j].line
            if line in last_next and last_next[line] != event.line:
                changes += 1
            last_next[line] = event.line
        last_in_frame[event.frame] = i
        before = previous.get(event.frame)
        if before is not None:
            for name, value in event.locals.items():
                old = before.get(name)
                if old is not None and old is not value and old != value:
                    mutated += 1
        previous[event.frame] = event.locals
    if trace.output is not None:
        size = len(trace.output.text)
    elif trace.exception is not None:
        size = len(trace.exception.type)
    else:
        size = 0
    return {"trace_length": len(events), "distinct_lines": len(seen), "loop_iterations": sum(c - 1 for c in seen.values()),
            "branch_changes": changes, "variables_mutated": mutated, "output_size": size}


def features(source: str, trace, *, catalog_ids: Sequence[str] | None = None) -> dict[str, int]:
    """:func:`static_features` and :func:`dynamic_features` together, in :data:`FEATURES` order."""
    data = {**static_features(source, catalog_ids=catalog_ids), **dynamic_features(trace)}
    return {name: data[name] for name in FEATURES}


def heuristic_score(feats: Mapping[str, float]) -> float:
    """Weighted mean of ``min(1, log1p(x) / log1p(cap))`` over :data:`WEIGHTS`, rounded to 4 places.

    >>> heuristic_score({name: 0 for name in FEATURES}), heuristic_score({name: 10**6 for name in FEATURES})
    (0.0, 1.0)
    """
    missing = [name for name in WEIGHTS if name not in feats]
    if missing:
        raise InvalidArgument(f"features missing for the score: {', '.join(missing)}")
    total = 0.0
    for name, weight in WEIGHTS.items():
        x = max(0.0, float(feats[name]))
        total += weight * min(1.0, math.log1p(x) / math.log1p(CAPS[name]))
    return round(total, 4)


def bucket(score: float) -> int:
    """The curriculum bucket of a score: 0 (easiest) .. ``len(BUCKET_EDGES)``.

    >>> [bucket(s) for s in (0.0, 0.3, 0.5, 0.7, 0.9)]
    [0, 1, 2, 3, 4]
    """
    for i, edge in enumerate(BUCKET_EDGES):
        if score < edge:
            return i
    return len(BUCKET_EDGES)


def _ranks(xs: Sequence[float]) -> list[float]:
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation (average ranks for ties), no SciPy needed.

    >>> spearman([1, 2, 3, 4], [10, 20, 30, 40]), spearman([1, 2, 3], [3, 2, 1])
    (1.0, -1.0)
    """
    if len(xs) != len(ys) or len(xs) < 2:
        raise InvalidArgument("spearman needs two sequences of the same length >= 2")
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = math.sqrt(sum((a - mx) ** 2 for a in rx))
    vy = math.sqrt(sum((b - my) ** 2 for b in ry))
    return round(cov / (vx * vy), 6) if vx and vy else 0.0


# ---------------------------------------------------------------------------- model-based filter


@dataclass(frozen=True)
class PassRateResult:
    """The verdict of :class:`PassRateFilter` on one row."""

    weak_passes: int
    weak_samples: int
    strong_passes: int | None
    keep: bool


class PassRateFilter:
    """ExecVerify's difficulty rule, configurable: keep what a weak solver mostly fails and a strong one solves.

    Args:
        weak (`TextBackend` or `str`): the weak solver, an object with ``generate`` or a
            backend spec for :func:`~execverify_data.models.get_backend`.
        strong (`TextBackend` or `str`, optional): the strong solver; without it no row is
            dropped for being unsolvable.
        samples (`int`, defaults to 10): completions drawn from the weak solver per row.
        keep_max_pass (`int`, defaults to 3): keep a row when the weak solver passed at most this many times.
        temperature (`float`, defaults to 1.0): the weak solver's sampling temperature.
        strong_samples (`int`, defaults to 1), strong_temperature (`float`, defaults to 0.0): the strong solver's draws.
        max_new_tokens (`int`, defaults to 512), seed (`int`, defaults to 0): passed to ``generate``.
        scorer (`Scorer`, optional): the project's scorer (a default one is made).

    A completion *passes* when every question of the row is answered correctly
    (:class:`~execverify_data.questions.ScoreResult` ``correct`` all true).

    >>> class Oracle:  # answers right on the first `right` samples of each prompt
    ...     def __init__(self, answers, right): self.answers, self.right = answers, right
    ...     def generate(self, prompts, *, n=1, **kw):
    ...         return [[self.answers[p] if i < self.right else "<answer>\\nnope\\n</answer>" for i in range(n)] for p in prompts]
    >>> from execverify_data.questions import build
    >>> r = build("def f(x):\\n    return x + 1\\n", "f(1)", n_path=0, n_state=0)
    >>> flt = PassRateFilter(Oracle({r.prompt: r.reference_completion}, 2), strong=Oracle({r.prompt: r.reference_completion}, 1))
    >>> flt.evaluate([r.prompt], [r.verification])[0]
    PassRateResult(weak_passes=2, weak_samples=10, strong_passes=1, keep=True)
    """

    def __init__(self, weak: Any, strong: Any = None, *, samples: int = 10, keep_max_pass: int = 3,
                 temperature: float = 1.0, strong_samples: int = 1, strong_temperature: float = 0.0,
                 max_new_tokens: int = 512, seed: int = 0, scorer: Any = None):
        for name, value, low in (("samples", samples, 1), ("strong_samples", strong_samples, 1), ("keep_max_pass", keep_max_pass, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidArgument(f"{name} must be an int >= {low}, got {value!r}")
        if keep_max_pass > samples:
            raise InvalidArgument(f"keep_max_pass ({keep_max_pass}) cannot exceed samples ({samples}): every row would be kept")
        self.weak = _solver(weak, "weak")
        self.strong = None if strong is None else _solver(strong, "strong")
        self.samples, self.keep_max_pass = samples, keep_max_pass
        self.temperature, self.strong_samples, self.strong_temperature = temperature, strong_samples, strong_temperature
        self.max_new_tokens, self.seed = max_new_tokens, seed
        if scorer is None:
            from execverify_data.questions import Scorer

            scorer = Scorer()
        self.scorer = scorer

    def _passes(self, generator: Any, prompts: Sequence[Any], verifications: Sequence[Any], n: int, temperature: float) -> list[int]:
        outs = generator.generate(list(prompts), n=n, temperature=temperature, max_new_tokens=self.max_new_tokens, seed=self.seed)
        flat_v, flat_c = [], []
        for v, completions in zip(verifications, outs):
            flat_v += [v] * len(completions)
            flat_c += list(completions)
        results = self.scorer.score_batch(flat_v, flat_c)
        counts, pos = [], 0
        for completions in outs:
            chunk = results[pos: pos + len(completions)]
            pos += len(completions)
            counts.append(sum(1 for r in chunk if r is not None and all(r.correct)))
        return counts

    def evaluate(self, prompts: Sequence[Any], verifications: Sequence[Any]) -> list[PassRateResult]:
        """One :class:`PassRateResult` per row (the strong solver only sees rows the weak one kept)."""
        if len(prompts) != len(verifications):
            raise InvalidArgument(f"{len(prompts)} prompts for {len(verifications)} verifications")
        weak = self._passes(self.weak, prompts, verifications, self.samples, self.temperature)
        hard = [i for i, p in enumerate(weak) if p <= self.keep_max_pass]
        strong: dict[int, int] = {}
        if self.strong is not None and hard:
            counts = self._passes(self.strong, [prompts[i] for i in hard], [verifications[i] for i in hard],
                                  self.strong_samples, self.strong_temperature)
            strong = dict(zip(hard, counts))
        out = []
        for i, p in enumerate(weak):
            s = strong.get(i) if self.strong is not None else None
            keep = p <= self.keep_max_pass and (self.strong is None or (s or 0) >= 1)
            out.append(PassRateResult(p, self.samples, s, keep))
        return out


def _solver(solver: Any, role: str) -> Any:
    if isinstance(solver, str):
        from execverify_data.models import get_backend

        return get_backend(solver)
    if not hasattr(solver, "generate"):
        raise InvalidArgument(f"the {role} solver must be a backend spec ('transformers:PATH', 'vllm:PATH', 'openai:URL#MODEL') or have generate(), got {solver!r:.80}")
    return solver
