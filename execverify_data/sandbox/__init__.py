"""Running code: the trusted runner for synthesized programs (``sandbox.trusted``)
and the layered runner for untrusted, model-written code (``sandbox.untrusted``).

The untrusted runner's public names are re-exported here; see ``docs/sandbox.md``.
"""

from execverify_data.sandbox.layers import Layer, detect_layers
from execverify_data.sandbox.untrusted import (
    CallResult,
    SandboxResult,
    Status,
    UntrustedPool,
    default_pool,
    run_untrusted,
)

__all__ = [
    "CallResult",
    "Layer",
    "SandboxResult",
    "Status",
    "UntrustedPool",
    "default_pool",
    "detect_layers",
    "run_untrusted",
]
