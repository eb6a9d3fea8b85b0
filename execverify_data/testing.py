"""Helpers for tests and smoke runs: a tiny, offline, randomly initialized causal LM.

:func:`build_tiny_model` writes a folder that ``AutoTokenizer.from_pretrained`` and
``AutoModelForCausalLM.from_pretrained`` load without any network access: a small
Qwen2 model (random weights from a fixed seed) and a byte-level BPE tokenizer
trained in milliseconds on Python code, with a ChatML chat template and the Qwen
special tokens ``<|endoftext|>``, ``<|im_start|>`` and ``<|im_end|>``. Its output is
garbage, but it is a real causal LM: ``generate()``, chat templates, SFT and GRPO
with TRL all run on it in seconds on a CPU.

The tokenizer is trained with exactly the pipeline that transformers'
``Qwen2Tokenizer`` rebuilds on load (NFC normalization, Qwen2's split regex,
byte-level mapping), so ``tokenizer(text).input_ids`` are the same before saving and
after reloading.

Needs the ``train`` extra (``pip install torch==2.13.0`` first, then
``pip install 'execverify-data[train]'``); importing this module does not.

>>> from execverify_data.testing import TINY_SPECIAL_TOKENS, CHATML_TEMPLATE
>>> TINY_SPECIAL_TOKENS
('<|endoftext|>', '<|im_start|>', '<|im_end|>')
>>> "<|im_start|>assistant" in CHATML_TEMPLATE
True
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path

from execverify_data.errors import InvalidArgument

__all__ = ["CHATML_TEMPLATE", "QWEN2_SPLIT_REGEX", "TINY_SPECIAL_TOKENS", "build_tiny_model", "train_tiny_tokenizer"]

#: Special tokens, in id order (0, 1, 2): padding/end of text, start and end of a chat turn.
TINY_SPECIAL_TOKENS: tuple[str, ...] = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")

#: The pre-tokenization regex of Qwen2 (``transformers.models.qwen2.tokenization_qwen2``).
QWEN2_SPLIT_REGEX = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

#: ChatML, as Qwen2.5 writes it (without a default system message).
CHATML_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

_INSTALL_HINT = "pip install torch==2.13.0 && pip install 'execverify-data[train]'"


def _require(*modules: str) -> None:
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        from execverify_data.models.base import BackendUnavailable

        raise BackendUnavailable(f"build_tiny_model needs {', '.join(missing)}; install with: {_INSTALL_HINT}")


def _default_corpus() -> list[str]:
    from execverify_data.data import cruxeval_records

    return [record["code"] for record in cruxeval_records()]


def _check_corpus(corpus: object) -> list[str]:
    if isinstance(corpus, str) or not isinstance(corpus, Sequence):
        raise InvalidArgument(f"corpus must be a list of texts (e.g. Python programs), got {type(corpus).__name__}")
    texts = list(corpus)
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        raise InvalidArgument(f"corpus[{bad[0]}] is a {type(texts[bad[0]]).__name__}; every item must be a str")
    if not any(texts):
        raise InvalidArgument("corpus holds no text; pass some programs or leave it None for the CRUXEval code")
    return texts


def train_tiny_tokenizer(corpus: Sequence[str] | None = None, *, vocab_size: int = 1024):
    """Train a byte-level BPE ``tokenizers.Tokenizer`` with Qwen2's pipeline on ``corpus``.

    Args:
        corpus (`list[str]`, optional): training texts; defaults to the 800 CRUXEval programs.
        vocab_size (`int`, defaults to 1024): at most this many tokens (the 256 byte
            symbols and the 3 special tokens included); a small corpus may give fewer.

    Returns:
        A ``tokenizers.Tokenizer`` whose ids 0, 1, 2 are :data:`TINY_SPECIAL_TOKENS`.
    """
    _require("tokenizers")
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    texts = _default_corpus() if corpus is None else _check_corpus(corpus)
    floor = 256 + len(TINY_SPECIAL_TOKENS)
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < floor:
        raise InvalidArgument(
            f"vocab_size must be an int of at least {floor} (256 bytes + {len(TINY_SPECIAL_TOKENS)} special tokens), "
            f"got {vocab_size!r}"
        )
    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN2_SPLIT_REGEX), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(TINY_SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    return tokenizer


def build_tiny_model(
    out_dir: str | os.PathLike[str],
    *,
    corpus: Sequence[str] | None = None,
    vocab_size: int = 1024,
    hidden_size: int = 64,
    layers: int = 2,
    heads: int = 4,
    max_position_embeddings: int = 4096,
    seed: int = 0,
) -> Path:
    """Write a tiny Qwen2 causal LM and its tokenizer to ``out_dir``; return the folder.

    Builds in well under a second on a CPU (about 0.1 s to train the tokenizer).
    The same arguments give the same weights and the same tokenizer files.

    Args:
        out_dir (`str` or `os.PathLike`): folder to write (created if missing).
        corpus (`list[str]`, optional): tokenizer training texts; defaults to the
            CRUXEval programs shipped with the package.
        vocab_size (`int`, defaults to 1024): tokenizer size bound (see :func:`train_tiny_tokenizer`);
            the model's embedding matrix has exactly the tokenizer's length.
        hidden_size (`int`, defaults to 64): width; must be divisible by ``heads``.
        layers (`int`, defaults to 2): decoder layers.
        heads (`int`, defaults to 4): attention heads (key/value heads: half of them when even).
        max_position_embeddings (`int`, defaults to 4096): longest sequence.
        seed (`int`, defaults to 0): torch seed of the random weights (the global torch
            random state is left as it was).

    Returns:
        `pathlib.Path`: ``out_dir``, loadable with ``AutoModelForCausalLM.from_pretrained``
        and ``AutoTokenizer.from_pretrained`` offline.

    Example (needs torch and transformers)::

        path = build_tiny_model(tmp_path / "tiny")
        model = AutoModelForCausalLM.from_pretrained(path)
        tokenizer = AutoTokenizer.from_pretrained(path)
    """
    for name, value, lo in (
        ("hidden_size", hidden_size, 1),
        ("layers", layers, 1),
        ("heads", heads, 1),
        ("max_position_embeddings", max_position_embeddings, 16),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise InvalidArgument(f"{name} must be an int of at least {lo}, got {value!r}")
    if hidden_size % heads or (hidden_size // heads) % 2:
        raise InvalidArgument(
            f"hidden_size ({hidden_size}) must be divisible by heads ({heads}) with an even head size (rotary embeddings)"
        )
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidArgument(f"seed must be an int, got {seed!r}")
    if not isinstance(out_dir, (str, os.PathLike)):
        raise InvalidArgument(f"out_dir must be a path, got {type(out_dir).__name__}")
    _require("torch", "transformers", "tokenizers")
    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM, Qwen2Tokenizer

    raw = train_tiny_tokenizer(corpus, vocab_size=vocab_size)
    model_json = raw.get_vocab(with_added_tokens=True)
    import json

    bpe = json.loads(raw.to_str())["model"]
    tokenizer = Qwen2Tokenizer(
        vocab=bpe["vocab"],
        merges=[tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in bpe["merges"]],
        unk_token=None,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>", "<|im_end|>"],
    )
    tokenizer.chat_template = CHATML_TEMPLATE
    ids = {token: tokenizer.convert_tokens_to_ids(token) for token in TINY_SPECIAL_TOKENS}
    if [ids[t] for t in TINY_SPECIAL_TOKENS] != [model_json[t] for t in TINY_SPECIAL_TOKENS]:
        raise RuntimeError(f"special token ids moved when wrapping the tokenizer: {ids}")

    kv_heads = heads // 2 if heads % 2 == 0 else heads
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=max_position_embeddings,
        tie_word_embeddings=True,
        use_sliding_window=False,
        bos_token_id=None,
        eos_token_id=ids["<|im_end|>"],
        pad_token_id=ids["<|endoftext|>"],
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = Qwen2ForCausalLM(config)
    model.generation_config = GenerationConfig(
        eos_token_id=[ids["<|im_end|>"], ids["<|endoftext|>"]],
        pad_token_id=ids["<|endoftext|>"],
        do_sample=True,
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
