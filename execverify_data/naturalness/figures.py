"""The per-program figures of the naturalness measures, and their measuring in spawned workers."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from execverify_data.errors import AnswerError, InvalidArgument
from execverify_data.naturalness import patterns
from execverify_data.naturalness.edits import _edited_runs
from execverify_data.naturalness.execution import (
    _check_budget,
    _Program,
    dead_statements,
    never_evaluated_tests,
    one_sided_tests,
)
from execverify_data.naturalness.lint import lint_counts
from execverify_data.trace import Status

__all__ = ["measure_programs", "program_figures"]

#: The AST pattern counts of :func:`program_figures`, each a function of :mod:`~execverify_data.naturalness.patterns`.
_DETECTORS = {name: getattr(patterns, name) for name in (
    "finishing_wrappers", "nested_builtins", "round_trips", "loops_ignoring_variable", "countdown_loops",
    "self_nested_tests", "literal_subscripts", "dict_literal_membership", "self_receiver_calls", "distinct_calls",
    "shadowed_builtins", "underscore_names")}


def program_figures(source: str, entry_point: str, inputs: Sequence[str], *, types: Sequence[str] | None = None,
                    seed: int = 0, max_steps: int = 20_000, timeout: float = 2.0, trusted_inputs: bool = False) -> dict:
    """Every per-program figure the naturalness benchmark adds up, as a JSON-ready dict: each execution
    measure as ``[hits, total]`` on the ``inputs`` (``own``) and on the first input plus two small edits
    (``edits``), and each AST pattern count (linters are run over many programs at once by :func:`lint_counts`).

    >>> figures = program_figures("def f(n):\\n    return 'big' if n > 9 else 'small'\\n", "f", ["3", "12"])
    >>> figures["own_one_sided"], figures["finishing_wrappers"]
    ([0, 1], 0)
    """
    _check_budget(max_steps, timeout)
    out: dict = {name: detector(source) for name, detector in _DETECTORS.items()}
    program = _Program(source, entry_point, max_steps=max_steps, timeout=timeout)
    own_runs = [(text, program.run(text, trusted=trusted_inputs)) for text in inputs]
    own = program.observation(own_runs)
    completed = [(text, probe) for text, probe in own_runs if probe.status is Status.OK]
    edit_runs = completed[:1]
    if completed:
        first, probe = completed[0]
        first = probe.text or first
        with contextlib.suppress(AnswerError):  # arguments without a literal text (a lambda) get no edits
            edit_runs += _edited_runs(program, first, types, seed, 2, 20)
    edits = program.observation(edit_runs)
    out.update(
        own_inputs=len(own.inputs), own_failed=own.failed, own_one_sided=list(one_sided_tests(own)),
        edit_inputs=len(edits.inputs), edits_one_sided=list(one_sided_tests(edits)),
        edits_never_evaluated=list(never_evaluated_tests(edits)), edits_dead_statements=list(dead_statements(edits)),
        container_reprs=patterns.container_reprs(source, own),
    )
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

    Each program is a dict with ``source``, ``entry_point``, ``inputs`` and optionally ``types``,
    ``trusted`` (inputs may be expressions) and ``spec`` (a ``ConstraintSpec`` dict: adds ``checker_ok``,
    whether :func:`execverify_data.synth.checker.check` accepts the program for it). The programs run in
    ``workers`` spawned processes started with ``PYTHONHASHSEED=0`` and an address-space limit of
    ``memory_mb`` (the pipeline's worker set-up), so set orders inside programs, and the figures, do
    not depend on the number of workers; pylint uses ``workers`` processes too.
    """
    from execverify_data.pipeline import _init_worker
    from execverify_data.workpool import spawn_pool

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidArgument(f"workers must be a positive int, got {workers!r}")
    programs = list(programs)
    if not programs:
        return []
    with spawn_pool(workers, initializer=_init_worker, initargs=(memory_mb,)) as submit:
        chunks = [submit(_program_jobs, programs[i:i + 32], seed) for i in range(0, len(programs), 32)]
        figures = [f for chunk in chunks for f in chunk.result()]
    if lint:
        for row, counts in zip(figures, lint_counts([p["source"] for p in programs], jobs=workers)):
            row.update(counts)
    return figures
