"""Card templates (``string.Template`` syntax), shipped with the package.

``dataset_card.md`` is rendered by the release builder, ``model_card.md`` by the
training recipes. The repository's top-level ``cards/`` points here.

>>> "$changelog" in template_path("dataset_card.md").read_text(encoding="utf-8")
True
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["TEMPLATES", "template_path"]

TEMPLATES = ("dataset_card.md", "model_card.md")


def template_path(name: str) -> Path:
    """Path of the card template ``name`` (one of :data:`TEMPLATES`)."""
    if name not in TEMPLATES:
        raise ValueError(f"unknown card template {name!r}; valid names: {', '.join(TEMPLATES)}")
    return Path(str(resources.files(__name__).joinpath(name)))
