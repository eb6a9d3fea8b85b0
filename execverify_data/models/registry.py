"""``get_backend(spec)``: build a backend from a short string (the table of specs is in ``docs/models.md``).

Keyword arguments go to the backend's constructor.

>>> gen = get_backend("openai:http://localhost:8000/v1#Qwen/Qwen2.5-Coder-7B-Instruct", timeout=30)
>>> gen.base_url, gen.model, gen.timeout
('http://localhost:8000/v1', 'Qwen/Qwen2.5-Coder-7B-Instruct', 30.0)
>>> get_backend("hf:gpt2")
Traceback (most recent call last):
...
execverify_data.models.registry.BackendSpecError: unknown backend 'hf' in 'hf:gpt2'; valid backends are ['openai', 'transformers', 'vllm'] (spec form 'NAME:TARGET', e.g. 'transformers:/path/to/model')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from execverify_data.errors import ExecVerifyError
from execverify_data.models.base import TextBackend
from execverify_data.models.hf import TransformersBackend
from execverify_data.models.openai_compat import OpenAICompatibleBackend
from execverify_data.models.vllm_backend import VLLMBackend

__all__ = ["BACKENDS", "BackendSpecError", "get_backend", "parse_spec"]


class BackendSpecError(ExecVerifyError, ValueError):
    """A backend spec string names no known backend or lacks its target."""


def _openai(target: str, **kwargs: Any) -> TextBackend:
    url, _, model = target.partition("#")
    if model:
        if "model" in kwargs:
            raise BackendSpecError(f"the model is given twice: '#{model}' in the spec and model={kwargs['model']!r}")
        kwargs["model"] = model
    return OpenAICompatibleBackend(url, **kwargs)


#: Backend name -> factory ``(target, **kwargs) -> TextBackend``; a backend imports its dependency when built.
BACKENDS: dict[str, Callable[..., TextBackend]] = {
    "openai": _openai,
    "transformers": TransformersBackend,
    "vllm": VLLMBackend,
}


def parse_spec(spec: str) -> tuple[str, str]:
    """``(name, target)`` of a backend spec, checked as :func:`get_backend` checks it, without building anything.

    >>> parse_spec("openai:http://localhost:8000/v1#tiny")
    ('openai', 'http://localhost:8000/v1#tiny')
    """
    valid = sorted(BACKENDS)
    if not isinstance(spec, str):
        raise BackendSpecError(f"spec must be a string 'NAME:TARGET' with NAME in {valid}, got {type(spec).__name__}")
    name, sep, target = spec.partition(":")
    if name not in BACKENDS:
        raise BackendSpecError(
            f"unknown backend {name!r} in {spec!r}; valid backends are {valid} "
            "(spec form 'NAME:TARGET', e.g. 'transformers:/path/to/model')"
        )
    if not sep or not target:
        raise BackendSpecError(
            f"spec {spec!r} has no target; write '{name}:TARGET' (a model path, or a URL for openai)"
        )
    return name, target


def get_backend(spec: str, **kwargs: Any) -> TextBackend:
    """Build the backend named by ``spec`` (``NAME:TARGET``); ``kwargs`` go to its constructor.

    Args:
        spec (`str`): ``transformers:PATH``, ``vllm:PATH`` or ``openai:URL#MODEL``.

    Raises:
        BackendSpecError (a ``ValueError``): unknown name or empty target.
        BackendUnavailable (an ``ImportError``): the backend's extra is not installed.
    """
    name, target = parse_spec(spec)
    return BACKENDS[name](target, **kwargs)
