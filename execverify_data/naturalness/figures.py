"""The per-program figures of the naturalness measures, their measuring in spawned workers, and the table they
add up to, beside the benchmark programs measured the same way."""

from __future__ import annotations

import contextlib
import statistics as _statistics
from collections.abc import Sequence

from execverify_data.errors import AnswerError, check_int
from execverify_data.naturalness import patterns
from execverify_data.naturalness.execution import (ProbedProgram, container_reprs, dead_statements, edited_runs,
                                                   effectless_calls, never_evaluated_tests, one_sided_tests)
from execverify_data.naturalness.lint import lint_counts
from execverify_data.trace import Status
from execverify_data.values import literal_calls

__all__ = ["CRUXEVAL", "EXECUTION_INPUTS", "HUMANEVAL", "MEASURES", "aggregate", "benchmark_programs",
           "measure_programs", "program_figures"]

#: The AST pattern counts of :func:`program_figures`, each a function of :mod:`~execverify_data.naturalness.patterns`.
_DETECTORS = {name: getattr(patterns, name) for name in (
    "finishing_wrappers", "nested_builtins", "round_trips", "loops_ignoring_variable", "countdown_loops",
    "self_nested_tests", "literal_subscripts", "dict_literal_membership", "self_receiver_calls", "distinct_calls",
    "shadowed_builtins", "underscore_names", "bare_literal_gates")}


def program_figures(source: str, entry_point: str, inputs: Sequence[str], *, types: Sequence[str] | None = None,
                    seed: int = 0, max_steps: int = 20_000, timeout: float = 2.0, trusted_inputs: bool = False) -> dict:
    """Every per-program figure the naturalness benchmark adds up, as a JSON-ready dict: each execution
    measure as ``[hits, total]`` on the ``inputs`` (``own``) and on the first input plus two small edits
    (``edits``), and each AST pattern count (linters are run over many programs at once by :func:`lint_counts`).

    >>> figures = program_figures("def f(n):\\n    return 'big' if n > 9 else 'small'\\n", "f", ["3", "12"])
    >>> figures["own_one_sided"], figures["finishing_wrappers"]
    ([0, 1], 0)
    """
    out: dict = {name: detector(source) for name, detector in _DETECTORS.items()}
    program = ProbedProgram(source, entry_point, max_steps=max_steps, timeout=timeout)
    own_runs = [(text, program.run(text, trusted=trusted_inputs)) for text in inputs]
    own = program.observation(own_runs)
    completed = [(text, probe) for text, probe in own_runs if probe.status is Status.OK]
    edit_runs = completed[:1]
    if completed:
        first, probe = completed[0]
        first = probe.text or first
        with contextlib.suppress(AnswerError):  # arguments without a literal text (a lambda) get no edits
            edit_runs += edited_runs(program, first, types, seed, 2, 20)
    edits = program.observation(edit_runs)
    out.update(
        own_inputs=len(own.inputs), own_failed=own.failed, own_one_sided=list(one_sided_tests(own)),
        edit_inputs=len(edits.inputs), edits_one_sided=list(one_sided_tests(edits)),
        edits_never_evaluated=list(never_evaluated_tests(edits)), edits_dead_statements=list(dead_statements(edits)),
        container_reprs=container_reprs(source, own),
    )
    first = effectless_calls(source, entry_point, inputs[0], max_steps=max_steps, timeout=timeout,
                             trusted=trusted_inputs) if inputs else None
    out["first_effectless_calls"] = None if first is None else list(first)
    return out


def _program_jobs(programs: list[dict], seed: int) -> list[dict]:  # pragma: no cover - runs in worker processes
    out = []
    for program in programs:
        out.append(program_figures(program["source"], program["entry_point"], program["inputs"], seed=seed,
                                   types=program.get("types"), trusted_inputs=program.get("trusted", False)))
        if program.get("spec") is not None:
            from execverify_data.synth.checker import check
            from execverify_data.synth.spec import ConstraintSpec

            out[-1]["checker_ok"] = check(program["source"], ConstraintSpec.from_dict(program["spec"]),
                                          entry=program["entry_point"]).ok
    return out


def measure_programs(programs: Sequence[dict], *, workers: int = 1, seed: int = 0, memory_mb: int = 2048,
                     lint: bool = True) -> list[dict]:
    """:func:`program_figures` of every program, then (with ``lint``) its :func:`lint_counts` merged in, in order.

    Each program is a dict with ``source``, ``entry_point``, ``inputs`` and optionally ``types``, ``trusted``
    (inputs may be expressions) and ``spec`` (a ``ConstraintSpec`` dict: adds ``checker_ok``, the checker's
    verdict). The programs run in ``workers`` spawned processes with ``PYTHONHASHSEED=0`` and ``memory_mb`` of
    address space, so set orders inside programs, and the figures, do not depend on the number of workers.
    """
    from execverify_data.shards import limit_worker, spawn_pool

    check_int("workers", workers)
    programs = list(programs)
    if not programs:
        return []
    with spawn_pool(workers, initializer=limit_worker, initargs=(memory_mb,)) as submit:
        chunks = [submit(_program_jobs, programs[i:i + 32], seed) for i in range(0, len(programs), 32)]
        figures = [f for chunk in chunks for f in chunk.result()]
    if lint:
        for row, counts in zip(figures, lint_counts([p["source"] for p in programs], jobs=workers)):
            row.update(counts)
    return figures


#: Every measure of the naturalness table, in its order: ``(key, label, how the per-program figures add up)``,
#: where ``pooled`` is the sum of hits over the sum of totals, in %; ``mean_share`` the mean over programs of
#: hits / total, in %; ``per100`` a count per 100 programs; ``programs`` the % of programs with at least one;
#: ``first_programs`` the same over the programs whose first input returned a value with a literal;
#: ``mean`` the mean per program. The linter rows (:data:`LINT_RULES`) need :func:`lint_counts`.
MEASURES = (
    ("own_one_sided", "if-tests taking one branch on all of the row's own inputs (%)", "pooled"),
    ("edits_one_sided", "same, on the first input plus two small same-type edits (%)", "pooled"),
    ("edits_never_evaluated", "conditions never evaluated under those edits (%)", "pooled"),
    ("edits_dead_statements", "dead statement share under those edits (%, mean over programs)", "mean_share"),
    ("finishing_wrappers", "finishing wrappers `return f(g(...))`", "per100"),
    ("nested_builtins", "three builtins nested in one expression", "per100"),
    ("round_trips", "conversion round trips (`str(int(bool(x)))`, `list(reversed(sorted(...)))`)", "per100"),
    ("loops_ignoring_variable", "loops whose body never reads the loop variable", "per100"),
    ("countdown_loops", "`i = len(x)` / `while i > 0: i -= 1` (% of programs)", "programs"),
    ("self_nested_tests", "the same test nested in itself (`if ok:` inside `if ok:`)", "per100"),
    ("literal_subscripts", "a literal container subscripted or sliced by a variable", "per100"),
    ("dict_literal_membership", "membership in a dict literal", "per100"),
    ("container_reprs", "`repr()` or an f-string of a container used as a value", "per100"),
    ("first_effectless_calls", "a call whose replacement by its receiver or first argument leaves the first input's "
     "output unchanged (% of programs)", "first_programs"),
    ("bare_literal_gates", "a length or parameter compared with a bare number other than -1, 0, 1, 2 (% of programs)",
     "programs"),
    ("self_receiver_calls", "a method called with its own receiver", "per100"),
    ("distinct_calls", "distinct builtins and methods per program", "mean"),
    ("SIM300", "ruff SIM300 yoda condition", "per100"),
    ("SIM102", "ruff SIM102 collapsible if", "per100"),
    ("SIM114", "ruff SIM114 if arms with the same body", "per100"),
    ("C413", "ruff C413 list()/reversed() around sorted()", "per100"),
    ("R5601", "pylint R5601 confusing consecutive elif", "per100"),
    ("shadowed_builtins", "names shadowing a builtin", "per100"),
    ("underscore_names", "names such as `_integer` (one underscore, then a letter)", "per100"),
)
#: The execution measures and the per-program count of completed runs each one needs.
EXECUTION_INPUTS = {"own_one_sided": "own_inputs", "edits_one_sided": "edit_inputs", "edits_never_evaluated": "edit_inputs",
                    "edits_dead_statements": "edit_inputs"}


def aggregate(rows: list[dict], keys: Sequence[str] | None = None) -> dict:
    """Each measure of :data:`MEASURES` (or only those named in ``keys``) over ``rows``, the per-program
    figures of :func:`program_figures` (with :func:`lint_counts` merged in for the linter rows), with the
    counts behind it.

    >>> row = program_figures("def f(n):\\n    return 'big' if n > 9 else 'small'\\n", "f", ["3", "12"])
    >>> table = aggregate([row], keys=["own_one_sided", "distinct_calls"])
    >>> table["programs"], table["own_one_sided"], table["own_one_sided_counts"], table["distinct_calls"]
    (1, 0.0, [0, 1], 0.0)
    """
    out: dict = {"programs": len(rows)}
    for key, _, how in MEASURES:
        if keys is not None and key not in keys:
            continue
        if key in EXECUTION_INPUTS:
            # execution measures: programs with a completed run (for the own inputs: two, or nothing varies)
            need = 2 if key == "own_one_sided" else 1
            measured = [r[key] for r in rows if r[EXECUTION_INPUTS[key]] >= need]
            if how == "pooled":
                hits, total = sum(h for h, _ in measured), sum(t for _, t in measured)
                out[key] = round(100 * hits / total, 2) if total else None
                out[key + "_counts"] = [hits, total]
            else:
                shares = [h / t for h, t in measured if t]
                out[key] = round(100 * _statistics.fmean(shares), 2) if shares else None
                out[key + "_counts"] = [len(shares)]
        elif how == "first_programs":
            measured = [r[key] for r in rows if r.get(key) is not None]
            out[key] = round(100 * sum(1 for h, _ in measured if h) / len(measured), 2) if measured else None
            out[key + "_counts"] = [sum(1 for h, _ in measured if h), len(measured)]
        elif not rows:
            out[key] = None
        elif how == "per100":
            out[key] = round(100 * sum(r[key] for r in rows) / len(rows), 2)
        elif how == "programs":
            out[key] = round(100 * sum(1 for r in rows if r[key]) / len(rows), 2)
        else:
            out[key] = round(_statistics.fmean(r[key] for r in rows), 2)
    return out


#: The group names of :func:`benchmark_programs`.
CRUXEVAL, HUMANEVAL = "CRUXEval", "HumanEval"


def benchmark_programs(humaneval_inputs: int, limit: int | None = None) -> list[dict]:
    """Jobs for :func:`measure_programs`: CRUXEval's 800 shipped programs, each with its one input, and
    HumanEval's 164 solutions, each with the arguments of its first ``humaneval_inputs`` literal
    ``candidate(...)`` test calls (:func:`execverify_data.values.literal_calls`, read by AST, never run);
    the first ``limit`` of each when given. Each job has ``group`` (:data:`CRUXEVAL` or :data:`HUMANEVAL`)."""
    from execverify_data.data import cruxeval_records, humaneval_records

    jobs = [{"group": CRUXEVAL, "level": None, "source": r["code"], "entry_point": "f", "inputs": [r["input"]],
             "types": None, "trusted": True} for r in cruxeval_records()[:limit]]
    jobs += [{"group": HUMANEVAL, "level": None, "source": r["prompt"] + r["canonical_solution"],
              "entry_point": r["entry_point"], "inputs": literal_calls(r["test"])[:humaneval_inputs],
              "types": None, "trusted": True} for r in humaneval_records()[:limit]]
    return jobs
