"""Data preparation shared by the TRL recipes in ``training_examples/`` (imports ``datasets``
and ``transformers`` lazily, inside the functions)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["load_prompt_rows", "model_init_kwargs"]


def load_prompt_rows(
    dataset_name: str,
    configs: Sequence[str | None],
    *,
    columns: Sequence[str],
    optional_columns: Sequence[str] = (),
    revision: str | None = None,
    split: str = "train",
    seed: int = 0,
    chat_format: bool = True,
    max_prompt_length: int | None = None,
    tokenizer_path: str | None = None,
    max_samples: int | None = None,
):
    """GRPO prompts: the ``columns`` of every config in ``configs`` concatenated, shuffled with
    ``seed``, string prompts wrapped as one user message (``chat_format``), rows whose templated
    prompt has more than ``max_prompt_length`` tokens dropped, and the first ``max_samples`` kept.

    Raises:
        ValueError: a config lacks a required column, or no row is left.
    """
    from datasets import concatenate_datasets, load_dataset

    parts = []
    for config in configs:
        part = load_dataset(dataset_name, config, revision=revision, split=split)
        missing = set(columns) - set(part.column_names)
        if missing:
            where = f"the {config!r} config of {dataset_name}" if config else dataset_name
            raise ValueError(f"{where} lacks column(s) {sorted(missing)}; it has {part.column_names}")
        parts.append(part.select_columns([*columns, *(c for c in optional_columns if c in part.column_names)]))
    rows = concatenate_datasets(parts).shuffle(seed=seed)
    if chat_format and getattr(rows.features["prompt"], "dtype", None) == "string":
        rows = rows.map(lambda row: {"prompt": [{"role": "user", "content": row["prompt"]}]})
    if max_prompt_length is not None:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(tokenizer_path)

        def fits(row: dict[str, Any]) -> bool:
            prompt = row["prompt"]
            if not isinstance(prompt, str):
                prompt = tokenizer.apply_chat_template(prompt, tokenize=False, add_generation_prompt=True)
            return len(tokenizer(prompt, add_special_tokens=False).input_ids) <= max_prompt_length

        rows = rows.filter(fits)
    if max_samples is not None:
        rows = rows.select(range(min(max_samples, len(rows))))
    if len(rows) == 0:
        raise ValueError(f"no training rows left in {dataset_name} (check the split and the length filters)")
    return rows


def model_init_kwargs(model_args: Any, training_args: Any) -> dict[str, Any]:
    """The ``model_init_kwargs`` a TRL trainer needs from TRL's ``ModelConfig`` (explicit ones win)."""
    return {
        "revision": model_args.model_revision,
        "trust_remote_code": training_args.trust_remote_code,
        "attn_implementation": model_args.attn_implementation,
        "dtype": model_args.dtype,
        **(training_args.model_init_kwargs or {}),
    }
