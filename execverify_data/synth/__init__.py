r"""Program synthesis under structural constraints: specs, the constraint checker and the generators.

>>> import random
>>> spec = level_spec(1, "builtin.sorted", random.Random(7))
>>> check("def f(xs):\n    return sorted(list(set(xs)))", spec)["nested_calls"].met
True
>>> from execverify_data.synth import generate, spec_for
>>> program = generate(spec_for(3, 10), 10)
>>> check(program.code, spec_for(3, 10)).ok
True
>>> program.description.startswith("Return a dict mapping each value of the name without surrounding whitespace")
True

The generators (``generate``, ``spec_for``, ``Program``, ``GENERATOR_VERSION`` from
:mod:`.generator`; ``LLMProgramGenerator`` from :mod:`.llm`) are imported on first use.
"""

from __future__ import annotations

from execverify_data.synth.checker import (
    ALLOWED_IMPORTS,
    FORBIDDEN_NAMES,
    CheckItem,
    CheckReport,
    catalog_entries_used,
    check,
    entry_point,
)
from execverify_data.synth.spec import CONTROL_FLOW, LEVELS, ConstraintSpec, level_spec

_LAZY = {
    "GENERATOR_VERSION": "execverify_data.synth.generator",
    "Program": "execverify_data.synth.generator",
    "generate": "execverify_data.synth.generator",
    "spec_for": "execverify_data.synth.generator",
    "LLMProgramGenerator": "execverify_data.synth.llm",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ALLOWED_IMPORTS", "GENERATOR_VERSION", "LLMProgramGenerator", "Program", "CONTROL_FLOW", "FORBIDDEN_NAMES",
           "LEVELS", "CheckItem", "CheckReport", "ConstraintSpec", "catalog_entries_used", "check", "entry_point", "generate",
           "level_spec", "spec_for"]
