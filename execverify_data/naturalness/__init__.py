"""Naturalness measures: how much a set of programs reads like code people write (issue #13).

Three families, each a function importable by tests (``docs/synthesis.md``, section
"Naturalness measures", has the definitions side by side and the benchmark that prints them):

* **Execution measures.** :func:`observe` runs a program on some inputs with probes that
  record the outcome of every ``if``/``elif``/``while`` test and conditional expression,
  every statement that ran, and the type of every value given to ``repr()`` or an
  f-string. :func:`one_sided_tests`, :func:`never_evaluated_tests` and
  :func:`dead_statements` read an :class:`Observation`; :func:`edited_inputs` makes the
  "small same-type edits" of a first input.
* **AST pattern counts**, one function per pattern, each taking the program text:
  :func:`finishing_wrappers`, :func:`nested_builtins`, :func:`round_trips`,
  :func:`loops_ignoring_variable`, :func:`countdown_loops`, :func:`self_nested_tests`,
  :func:`literal_subscripts`, :func:`dict_literal_membership`, :func:`container_reprs`,
  :func:`self_receiver_calls`, :func:`distinct_calls`, :func:`shadowed_builtins`,
  :func:`underscore_names`.
* **Linter rates**: :func:`lint_counts` runs ruff (SIM300, SIM102, SIM114, C413) and pylint
  (R5601) as subprocesses over files in a temporary folder.

One module per family (``execution``, with the small edits; ``patterns``; ``lint``), then ``figures``
(:func:`program_figures` of one program, :func:`measure_programs` of many in spawned workers, the table
they add up to: :data:`MEASURES`, :func:`aggregate`, :func:`benchmark_programs`). The programs are
trusted (our own synthesized programs, benchmark data): :func:`observe` runs them in this process,
with a statement budget and a wall-clock alarm (:mod:`execverify_data.instrument`).

>>> source = "def f(xs):\\n    n = 0\\n    for x in xs:\\n        if x > 0:\\n            n += x\\n    return n\\n"
>>> obs = observe(source, "f", ["[1, 2]", "[3]"])
>>> one_sided_tests(obs), dead_statements(obs)
(Share(hits=1, total=1), Share(hits=0, total=5))
>>> one_sided_tests(observe(source, "f", ["[1, -2]"]))
Share(hits=0, total=1)
"""

from __future__ import annotations

from execverify_data.naturalness.execution import (TEST_KINDS, Observation, Share, Site, dead_statements,
                                                   edited_inputs, never_evaluated_tests, observe, one_sided_tests,
                                                   small_edits)
from execverify_data.naturalness.figures import (CRUXEVAL, EXECUTION_INPUTS, HUMANEVAL, MEASURES, aggregate,
                                                 benchmark_programs, measure_programs, program_figures)
from execverify_data.naturalness.lint import LINT_RULES, lint_counts
from execverify_data.naturalness.patterns import (container_reprs, countdown_loops, dict_literal_membership,
                                                  distinct_calls, finishing_wrappers, literal_subscripts,
                                                  loops_ignoring_variable, nested_builtins, round_trips,
                                                  self_nested_tests, self_receiver_calls, shadowed_builtins,
                                                  underscore_names)

__all__ = [
    "CRUXEVAL", "EXECUTION_INPUTS", "HUMANEVAL", "LINT_RULES", "MEASURES", "TEST_KINDS", "Observation", "Share", "Site",
    "aggregate", "benchmark_programs", "container_reprs", "countdown_loops", "dead_statements",
    "dict_literal_membership", "distinct_calls", "edited_inputs", "finishing_wrappers", "lint_counts",
    "literal_subscripts", "loops_ignoring_variable", "measure_programs", "nested_builtins", "never_evaluated_tests",
    "observe", "one_sided_tests", "program_figures", "round_trips", "self_nested_tests", "self_receiver_calls",
    "shadowed_builtins", "small_edits", "underscore_names",
]
