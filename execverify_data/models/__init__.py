"""Text-generation backends for solvers and the LLM-backed program generator.

One interface, :class:`TextBackend` (``generate(prompts, *, n, temperature,
max_new_tokens, seed, stop, top_p) -> list[list[str]]``), three backends:

* :class:`TransformersBackend` (``transformers:PATH``): local model, seeded batched sampling.
* :class:`VLLMBackend` (``vllm:PATH``): in-process vLLM engine (``pip install 'execverify-data[vllm]'``).
* :class:`OpenAICompatibleBackend` (``openai:URL#MODEL``): any OpenAI-compatible server, e.g. ``vllm serve``.

Importing this package imports neither torch, transformers nor vLLM.

>>> from execverify_data.models import get_backend
>>> sorted(BACKENDS)
['openai', 'transformers', 'vllm']
"""

from __future__ import annotations

from execverify_data.models.base import (BackendError, BackendUnavailable, Message, Prompt, TextBackend, check_generate_args,
                                          is_torch_available, is_transformers_available, is_vllm_available, prompt_seeds,
                                          prompt_text, truncate_at_stop)
from execverify_data.models.hf import TransformersBackend
from execverify_data.models.openai_compat import OpenAICompatibleBackend
from execverify_data.models.registry import BACKENDS, BackendSpecError, get_backend, parse_spec
from execverify_data.models.vllm_backend import VLLMBackend

__all__ = ["BACKENDS", "BackendError", "BackendSpecError", "BackendUnavailable", "Message", "OpenAICompatibleBackend",
           "Prompt", "TextBackend", "TransformersBackend", "VLLMBackend", "check_generate_args", "get_backend",
           "is_torch_available", "is_transformers_available", "is_vllm_available", "parse_spec", "prompt_seeds",
           "prompt_text", "truncate_at_stop"]
