"""The :class:`TextBackend` interface shared by every backend, its errors and argument checks.

A backend turns prompts into ``n`` completions each. A prompt is either a plain
string (sent as-is, a completion) or a list of chat messages
(``[{"role": "user", "content": "..."}]``, rendered with the model's chat template).

>>> class Echo:
...     def generate(self, prompts, *, n=1, temperature=1.0, max_new_tokens=256, seed=None, stop=None, top_p=1.0):
...         check_generate_args(prompts, n=n, temperature=temperature, max_new_tokens=max_new_tokens,
...                             seed=seed, stop=stop, top_p=top_p)
...         return [[prompt_text(p)] * n for p in prompts]
>>> isinstance(Echo(), TextBackend)
True
>>> Echo().generate(["hi", [{"role": "user", "content": "yo"}]], n=2)
[['hi', 'hi'], ['yo', 'yo']]
>>> Echo().generate(["hi"], n=0)
Traceback (most recent call last):
...
execverify_data.errors.InvalidArgument: n must be an int of at least 1 (completions per prompt), got 0
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from execverify_data.errors import ExecVerifyError, InvalidArgument

__all__ = ["BackendError", "BackendUnavailable", "Message", "Prompt", "TextBackend", "check_generate_args",
           "is_torch_available", "is_transformers_available", "is_vllm_available", "module_available", "prompt_seeds",
           "prompt_text", "truncate_at_stop"]

#: One chat message: ``{"role": "system" | "user" | "assistant", "content": str}``.
Message = Mapping[str, str]
#: A plain completion prompt or a list of chat messages.
Prompt = str | Sequence[Message]


class BackendUnavailable(ExecVerifyError, ImportError):
    """A backend's optional dependency is not installed; the message gives the ``pip install`` line."""


class BackendError(ExecVerifyError, RuntimeError):
    """A backend failed to produce completions (server error, bad response...); the message says what happened."""


@runtime_checkable
class TextBackend(Protocol):
    """Anything with this ``generate`` method is a backend; the contract is in ``docs/models.md`` ("The interface").

    ``generate`` returns one list of ``n`` completion strings per prompt, in prompt order. The shipped backends
    subclass this protocol and inherit its ``generate``: it checks the arguments (:func:`check_generate_args`)
    and calls the backend's ``_sample(prompts, n, temperature, max_new_tokens, seed, stop, top_p)`` with them
    (``stop`` as a list or None).
    """

    def generate(self, prompts: Sequence[Prompt], *, n: int = 1, temperature: float = 1.0, max_new_tokens: int = 256,
                 seed: int | Sequence[int] | None = None, stop: Sequence[str] | None = None,
                 top_p: float = 1.0) -> list[list[str]]:
        stop = check_generate_args(prompts, n=n, temperature=temperature, max_new_tokens=max_new_tokens, seed=seed,
                                   stop=stop, top_p=top_p)
        return self._sample(prompts, n, temperature, max_new_tokens, seed, stop, top_p)  # type: ignore[attr-defined]


def module_available(name: str) -> bool:
    """True when module ``name`` can be imported (checked without importing it)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def is_torch_available() -> bool:
    """True when ``torch`` can be imported (checked without importing it)."""
    return module_available("torch")


def is_transformers_available() -> bool:
    """True when ``transformers`` and ``torch`` can be imported (checked without importing them)."""
    return module_available("transformers") and is_torch_available()


def is_vllm_available() -> bool:
    """True when ``vllm`` can be imported (checked without importing it)."""
    return module_available("vllm")


def prompt_seeds(seed: int | Sequence[int] | None, count: int) -> list[int | None]:
    """The seed of each of ``count`` prompts: ``seed`` itself for every prompt, or its items when it is a list.

    >>> prompt_seeds(7, 2), prompt_seeds([3, 4], 2), prompt_seeds(None, 1)
    ([7, 7], [3, 4], [None])
    """
    if isinstance(seed, Sequence):
        return list(seed)
    return [seed] * count


def prompt_text(prompt: Prompt) -> str:
    """The text of a plain prompt, or the last message's content of a chat prompt.

    >>> prompt_text([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}])
    'hi'
    """
    return prompt if isinstance(prompt, str) else str(prompt[-1]["content"])


def _check_prompt(i: int, prompt: object) -> None:
    if isinstance(prompt, str):
        return
    if not isinstance(prompt, Sequence) or not prompt:
        raise InvalidArgument(
            f"prompts[{i}] must be a str or a non-empty list of chat messages "
            f"({{'role': ..., 'content': ...}}), got {type(prompt).__name__}"
        )
    for j, message in enumerate(prompt):
        if (
            not isinstance(message, Mapping)
            or not isinstance(message.get("role"), str)
            or not isinstance(message.get("content"), str)
        ):
            raise InvalidArgument(
                f"prompts[{i}][{j}] must be a dict with str 'role' and 'content', got {message!r:.80}"
            )


def check_generate_args(
    prompts: object,
    *,
    n: object,
    temperature: object,
    max_new_tokens: object,
    seed: object,
    stop: object,
    top_p: object = 1.0,
) -> list[str] | None:
    """Check the arguments of :meth:`TextBackend.generate`; return ``stop`` as a list (or None).

    >>> check_generate_args(["x"], n=1, temperature=-1, max_new_tokens=8, seed=None, stop=None)
    Traceback (most recent call last):
    ...
    execverify_data.errors.InvalidArgument: temperature must be a number >= 0 (0 is greedy), got -1
    >>> check_generate_args(["x"], n=1, temperature=0, max_new_tokens=8, seed=None, stop="\\n")
    Traceback (most recent call last):
    ...
    execverify_data.errors.InvalidArgument: stop must be a list of strings (e.g. ['\\n```']) or None, got '\\n'
    """
    if isinstance(prompts, (str, Mapping)) or not isinstance(prompts, Sequence):
        raise InvalidArgument(
            f"prompts must be a list of prompts (str or list of chat messages), got {type(prompts).__name__}"
        )
    for i, prompt in enumerate(prompts):
        _check_prompt(i, prompt)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidArgument(f"n must be an int of at least 1 (completions per prompt), got {n!r}")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature >= 0:
        raise InvalidArgument(f"temperature must be a number >= 0 (0 is greedy), got {temperature!r}")
    if isinstance(top_p, bool) or not isinstance(top_p, (int, float)) or not 0 < top_p <= 1:
        raise InvalidArgument(f"top_p must be a number in (0, 1], got {top_p!r}")
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 1:
        raise InvalidArgument(f"max_new_tokens must be an int of at least 1, got {max_new_tokens!r}")
    if isinstance(seed, Sequence) and not isinstance(seed, (str, bytes)):
        if len(seed) != len(prompts) or any(isinstance(s, bool) or not isinstance(s, int) for s in seed):
            raise InvalidArgument(
                f"seed must be an int, None or a list of {len(prompts)} ints (one per prompt), got {seed!r:.80}"
            )
    elif seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidArgument(f"seed must be an int or None, got {seed!r}")
    if stop is None:
        return None
    if isinstance(stop, str) or not isinstance(stop, Sequence) or not all(isinstance(s, str) and s for s in stop):
        raise InvalidArgument(f"stop must be a list of strings (e.g. ['\\n```']) or None, got {stop!r}")
    return list(stop)


def truncate_at_stop(text: str, stop: Sequence[str] | None) -> tuple[str, bool]:
    """Cut ``text`` before the earliest stop string; return the text and whether one was found.

    >>> truncate_at_stop("a = 1\\n```\\nmore", ["```", "\\n\\n"])
    ('a = 1\\n', True)
    """
    if not stop:
        return text, False
    cuts = [i for i in (text.find(s) for s in stop) if i >= 0]
    return (text[: min(cuts)], True) if cuts else (text, False)

