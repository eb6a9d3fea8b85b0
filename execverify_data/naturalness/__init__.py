"""Naturalness measures: how much a set of programs reads like code people write (issue #13).

The definitions, side by side, and the benchmark that prints them are in ``docs/synthesis.md``
("Naturalness measures"). One module per family: ``execution`` (:func:`observe` runs a program on inputs
with probes; :func:`one_sided_tests`, :func:`never_evaluated_tests` and :func:`dead_statements` read its
:class:`Observation`; :func:`edited_inputs` makes the small same-type edits), ``patterns`` (the AST pattern
counts, one function each, taking the program text) and ``lint`` (:func:`lint_counts`, ruff and pylint
rules); then ``figures`` (:func:`program_figures` of one program, :func:`measure_programs` of many in
spawned workers, :func:`aggregate` into the table of :data:`MEASURES`). The programs are trusted (ours,
benchmark data): :func:`observe` runs them in this process under a statement budget and an alarm.

>>> source = "def f(xs):\\n    n = 0\\n    for x in xs:\\n        if x > 0:\\n            n += x\\n    return n\\n"
>>> obs = observe(source, "f", ["[1, 2]", "[3]"])
>>> one_sided_tests(obs), dead_statements(obs)
(Share(hits=1, total=1), Share(hits=0, total=5))
>>> one_sided_tests(observe(source, "f", ["[1, -2]"]))
Share(hits=0, total=1)
"""

from __future__ import annotations

from execverify_data.naturalness.execution import (TEST_KINDS, Observation, Share, Site, container_reprs,
                                                   dead_statements, edited_inputs, effectless_calls, effectless_sites,
                                                   never_evaluated_tests, observe, one_sided_tests, small_edits)
from execverify_data.naturalness.figures import (CRUXEVAL, EXECUTION_INPUTS, HUMANEVAL, MEASURES, aggregate,
                                                 benchmark_programs, measure_programs, program_figures)
from execverify_data.naturalness.lint import LINT_RULES, lint_counts
from execverify_data.naturalness.patterns import (STRUCTURAL_NUMBERS, bare_literal_gates, countdown_loops,
                                                  dict_literal_membership, distinct_calls, finishing_wrappers,
                                                  literal_subscripts, loops_ignoring_variable, nested_builtins,
                                                  round_trips, self_nested_tests, self_receiver_calls,
                                                  shadowed_builtins, underscore_names)

__all__ = [
    "CRUXEVAL", "EXECUTION_INPUTS", "HUMANEVAL", "LINT_RULES", "MEASURES", "STRUCTURAL_NUMBERS", "TEST_KINDS",
    "Observation", "Share", "Site", "aggregate", "bare_literal_gates", "benchmark_programs", "container_reprs",
    "countdown_loops", "dead_statements", "dict_literal_membership", "distinct_calls", "edited_inputs",
    "effectless_calls", "effectless_sites", "finishing_wrappers", "lint_counts",
    "literal_subscripts", "loops_ignoring_variable", "measure_programs", "nested_builtins", "never_evaluated_tests",
    "observe", "one_sided_tests", "program_figures", "round_trips", "self_nested_tests", "self_receiver_calls",
    "shadowed_builtins", "small_edits", "underscore_names",
]
