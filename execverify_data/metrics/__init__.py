"""Metric modules for Hugging Face ``evaluate`` (loaded by path, not imported from here).

>>> import os
>>> os.path.isfile(os.path.join(scorer_path(), "execverify_scorer.py"))
True
"""

from __future__ import annotations

__all__ = ["scorer_path"]


def scorer_path() -> str:
    """Folder of the ``execverify_scorer`` metric: ``evaluate.load(scorer_path())``."""
    from importlib import resources

    return str(resources.files(__name__).joinpath("execverify_scorer"))
