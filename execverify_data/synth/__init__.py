r"""Program synthesis under structural constraints: specs and the constraint checker.

>>> import random
>>> spec = level_spec(1, "builtin.sorted", random.Random(7))
>>> check("def f(xs):\n    return sorted(list(set(xs)))", spec)["nested_calls"].met
True
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

__all__ = [
    "ALLOWED_IMPORTS",
    "CONTROL_FLOW",
    "FORBIDDEN_NAMES",
    "LEVELS",
    "CheckItem",
    "CheckReport",
    "ConstraintSpec",
    "catalog_entries_used",
    "check",
    "entry_point",
    "level_spec",
]
