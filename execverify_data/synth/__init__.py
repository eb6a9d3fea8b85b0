"""Program synthesis under structural constraints: specs and the constraint checker."""

from __future__ import annotations

from execverify_data.synth.spec import CONTROL_FLOW, LEVELS, ConstraintSpec, level_spec

__all__ = ["CONTROL_FLOW", "LEVELS", "ConstraintSpec", "level_spec"]
