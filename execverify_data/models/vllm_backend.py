"""``VLLMBackend``: offline batched sampling with a ``vllm.LLM`` engine (``vllm:PATH``).

vLLM is optional and heavy; it is imported only when a generator is built.

>>> from execverify_data.models import VLLMBackend, is_vllm_available
>>> if not is_vllm_available():
...     try:
...         VLLMBackend("Qwen/Qwen2.5-Coder-7B-Instruct")
...     except ImportError as exc:
...         print(str(exc).split(";")[1].strip())
... else:
...     print("install with: pip install 'execverify-data[vllm]'")
install with: pip install 'execverify-data[vllm]'
"""

from __future__ import annotations

import os
from typing import Any

from execverify_data.errors import InvalidArgument
from execverify_data.models.base import BackendUnavailable, TextBackend, is_vllm_available, prompt_seeds

__all__ = ["VLLMBackend"]

INSTALL_HINT = "pip install 'execverify-data[vllm]'"


class VLLMBackend(TextBackend):
    """Generate with an in-process vLLM engine.

    Args:
        model (`str` or `os.PathLike`): local folder or Hub id.
        engine_kwargs: passed to ``vllm.LLM`` (``tensor_parallel_size``, ``gpu_memory_utilization``,
            ``max_model_len``, ``dtype``...).

    ``seed`` becomes each request's ``SamplingParams.seed``: reproducible for a fixed engine configuration.
    """

    def __init__(self, model: str | os.PathLike[str], **engine_kwargs: Any) -> None:
        if not isinstance(model, (str, os.PathLike)):
            raise InvalidArgument(f"model must be a local path or a Hub id, got {type(model).__name__}")
        if not is_vllm_available():
            raise BackendUnavailable(f"VLLMBackend needs vllm, which is not installed; install with: {INSTALL_HINT}")
        from vllm import LLM

        self.model_name = os.fspath(model)
        self.llm = LLM(model=self.model_name, **engine_kwargs)

    def __repr__(self) -> str:
        return f"VLLMBackend({self.model_name!r})"

    def _sample(self, prompts, n, temperature, max_new_tokens, seed, stop, top_p) -> list[list[str]]:
        from vllm import SamplingParams

        params = [
            SamplingParams(
                n=n, temperature=float(temperature), top_p=float(top_p), max_tokens=max_new_tokens, seed=s, stop=stop
            )
            for s in prompt_seeds(seed, len(prompts))
        ]
        results: dict[int, list[str]] = {}
        plain = [i for i, p in enumerate(prompts) if isinstance(p, str)]
        chats = [i for i, p in enumerate(prompts) if not isinstance(p, str)]
        if plain:
            outs = self.llm.generate([prompts[i] for i in plain], [params[i] for i in plain], use_tqdm=False)
            results.update((i, [c.text for c in o.outputs]) for i, o in zip(plain, outs))
        if chats:
            messages = [[dict(m) for m in prompts[i]] for i in chats]
            outs = self.llm.chat(messages, [params[i] for i in chats], use_tqdm=False)
            results.update((i, [c.text for c in o.outputs]) for i, o in zip(chats, outs))
        return [results[i] for i in range(len(prompts))]
