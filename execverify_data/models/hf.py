"""``TransformersBackend``: local seeded sampling with a transformers causal LM (``transformers:PATH``).

The decoding loop and its seeds are described in ``docs/models.md``.

>>> from execverify_data.models import TransformersBackend
>>> TransformersBackend(42)
Traceback (most recent call last):
...
execverify_data.errors.InvalidArgument: model must be a local path, a Hub id or a transformers PreTrainedModel, got int
"""

from __future__ import annotations

import inspect
import os
import random
from collections.abc import Sequence
from typing import Any

from execverify_data.errors import InvalidArgument
from execverify_data.models.base import (
    BackendUnavailable,
    Prompt,
    TextBackend,
    is_transformers_available,
    truncate_at_stop,
)
from execverify_data.seeds import derive_seed

__all__ = ["TransformersBackend"]

INSTALL_HINT = "pip install torch==2.13.0 && pip install 'execverify-data[train]'"


class TransformersBackend(TextBackend):
    """Generate with a local causal LM through transformers.

    Args:
        model (`str`, `os.PathLike` or `PreTrainedModel`): a local folder, a Hub id
            (downloaded by transformers unless offline), or an already loaded model.
        tokenizer (`PreTrainedTokenizerBase`, optional): defaults to
            ``AutoTokenizer.from_pretrained(model)`` (required when ``model`` is an object
            without a ``name_or_path`` folder).
        device (`str`, optional): ``"cpu"``, ``"cuda"``, ...; defaults to CUDA when available.
        dtype (`str`, defaults to ``"auto"``): passed to ``from_pretrained`` when loading.
        batch_size (`int`, defaults to 8): completion rows decoded together.
        model_kwargs (`dict`, optional): extra ``from_pretrained`` arguments.

    Chat prompts go through ``tokenizer.apply_chat_template`` (``add_generation_prompt=True``).
    """

    def __init__(
        self,
        model: Any,
        *,
        tokenizer: Any = None,
        device: str | None = None,
        dtype: str = "auto",
        batch_size: int = 8,
        model_kwargs: dict[str, Any] | None = None,
    ) -> None:
        is_path = isinstance(model, (str, os.PathLike))
        if not is_path and not hasattr(model, "generation_config"):
            raise InvalidArgument(
                f"model must be a local path, a Hub id or a transformers PreTrainedModel, got {type(model).__name__}"
            )
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidArgument(f"batch_size must be an int of at least 1, got {batch_size!r}")
        if not is_transformers_available():
            raise BackendUnavailable(f"TransformersBackend needs torch and transformers; install with: {INSTALL_HINT}")
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        if is_path:
            model = AutoModelForCausalLM.from_pretrained(os.fspath(model), dtype=dtype, **(model_kwargs or {}))
            model.to(self.device)
        elif device is None:
            self.device = next(model.parameters()).device
        else:
            model.to(self.device)
        if tokenizer is None:
            source = getattr(model, "name_or_path", None)
            if not source:
                raise InvalidArgument("pass tokenizer= with a model object that has no name_or_path folder")
            tokenizer = AutoTokenizer.from_pretrained(source)
        self.model = model
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.eos_ids = self._eos_ids()
        pad = tokenizer.pad_token_id
        self.pad_id = pad if pad is not None else (sorted(self.eos_ids)[0] if self.eos_ids else 0)

    def __repr__(self) -> str:
        return f"TransformersBackend({getattr(self.model, 'name_or_path', '?')!r}, device={str(self.device)!r})"

    def _eos_ids(self) -> set[int]:
        ids: set[int] = set()
        for value in (getattr(self.model.generation_config, "eos_token_id", None), self.tokenizer.eos_token_id):
            if isinstance(value, int):
                ids.add(value)
            elif isinstance(value, (list, tuple)):
                ids.update(int(v) for v in value)
        return ids

    def encode(self, prompt: Prompt) -> list[int]:
        """Token ids of one prompt (chat template applied to message lists)."""
        if isinstance(prompt, str):
            return list(self.tokenizer(prompt).input_ids)
        if not getattr(self.tokenizer, "chat_template", None):
            raise InvalidArgument(
                "chat prompts need a tokenizer with a chat template; pass plain strings or a chat model"
            )
        text = self.tokenizer.apply_chat_template([dict(m) for m in prompt], add_generation_prompt=True, tokenize=False)
        return list(self.tokenizer(text, add_special_tokens=False).input_ids)

    def _sample(self, prompts, n, temperature, max_new_tokens, seed, stop, top_p) -> list[list[str]]:
        if seed is None:
            seed = random.SystemRandom().getrandbits(63)
        # one base seed per prompt, as generate([prompts[i]], seed=seed[i]) would use it
        seeds = [(s, 0) for s in seed] if isinstance(seed, Sequence) else [(seed, i) for i in range(len(prompts))]
        encoded = [self.encode(p) for p in prompts]
        rows = [(i, j) for i in range(len(encoded)) for j in range(n)]
        texts: dict[tuple[int, int], str] = {}
        training = self.model.training
        self.model.eval()  # no dropout while sampling; a model lent by a trainer gets its mode back
        try:
            for start in range(0, len(rows), self.batch_size):
                chunk = rows[start : start + self.batch_size]
                outs = self._decode_batch(
                    [encoded[i] for i, _ in chunk],
                    [derive_seed(*seeds[i], j) for i, j in chunk],
                    temperature=float(temperature),
                    top_p=float(top_p),
                    max_new_tokens=max_new_tokens,
                    stop=stop,
                )
                texts.update(zip(chunk, outs))
        finally:
            self.model.train(training)
        return [[texts[i, j] for j in range(n)] for i in range(len(encoded))]

    def _decode_batch(
        self,
        prompts: list[list[int]],
        seeds: list[int],
        *,
        temperature: float,
        top_p: float,
        max_new_tokens: int,
        stop: list[str] | None,
    ) -> list[str]:
        import torch

        width = max(len(p) for p in prompts)
        if width == 0:
            raise InvalidArgument("a prompt encodes to no tokens; give the model some text to continue")
        ids = torch.tensor([[self.pad_id] * (width - len(p)) + p for p in prompts], device=self.device)
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=self.device)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        generators = [torch.Generator(device=self.device).manual_seed(s) for s in seeds]
        generated: list[list[int]] = [[] for _ in prompts]
        done = [False] * len(prompts)
        window = 4 * max((len(s) for s in stop), default=0) + 8 if stop else 0
        # transformers 5.x renamed ``past_key_values`` to ``cache`` (input and output).
        cache_name = "cache" if "cache" in inspect.signature(self.model.forward).parameters else "past_key_values"
        past = None
        step_ids, step_pos = ids, positions
        with torch.inference_mode():
            for _ in range(max_new_tokens):
                out = self.model(
                    input_ids=step_ids, attention_mask=mask, position_ids=step_pos, use_cache=True, **{cache_name: past}
                )
                past = getattr(out, cache_name)
                logits = out.logits[:, -1, :].float()
                next_ids = []
                for r, row in enumerate(logits):
                    if done[r]:
                        next_ids.append(self.pad_id)
                        continue
                    token = self._pick(row, temperature, top_p, generators[r])
                    if token in self.eos_ids:
                        done[r] = True
                    else:
                        generated[r].append(token)
                        if stop:
                            tail = self.tokenizer.decode(generated[r][-window:])
                            done[r] = truncate_at_stop(tail, stop)[1]
                    next_ids.append(token)
                if all(done):
                    break
                step_ids = torch.tensor(next_ids, device=self.device).unsqueeze(-1)
                step_pos = step_pos[:, -1:] + 1
                mask = torch.cat([mask, torch.ones_like(step_ids)], dim=-1)
        return [truncate_at_stop(self.tokenizer.decode(g, skip_special_tokens=True), stop)[0] for g in generated]

    @staticmethod
    def _pick(logits: Any, temperature: float, top_p: float, generator: Any) -> int:
        import torch

        if temperature == 0:
            return int(torch.argmax(logits))
        probs = torch.softmax(logits / temperature, dim=-1)
        if top_p < 1.0:
            sorted_probs, order = torch.sort(probs, descending=True)
            keep = sorted_probs.cumsum(-1) - sorted_probs < top_p
            probs = torch.zeros_like(probs).scatter(0, order[keep], sorted_probs[keep])
        return int(torch.multinomial(probs, 1, generator=generator))
