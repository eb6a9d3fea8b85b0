"""Running code: the trusted runner for synthesized programs (``sandbox.trusted``)
and the layered runner for untrusted, model-written code (``sandbox.untrusted``).

The untrusted runner's public names are re-exported here (imported on first use, so that
the zygote process, which imports ``sandbox._zygote``, stays small); see ``docs/sandbox.md``.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    **dict.fromkeys(("CallResult", "SandboxResult", "Status", "UntrustedPool", "default_pool", "default_workers",
                     "run_untrusted"), "execverify_data.sandbox.untrusted"),
    **dict.fromkeys(("Layer", "detect_layers"), "execverify_data.sandbox.layers"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
