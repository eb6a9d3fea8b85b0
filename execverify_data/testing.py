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

:class:`OpenAICompatibleServer` serves any :class:`~execverify_data.models.TextBackend`
over HTTP on ``127.0.0.1`` (``/v1/models``, ``/v1/completions``, ``/v1/chat/completions``),
so clients of ``vllm serve`` can be tested offline; it needs only the standard library.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from execverify_data.errors import InvalidArgument

__all__ = ["CHATML_TEMPLATE", "QWEN2_SPLIT_REGEX", "TINY_SPECIAL_TOKENS", "OpenAICompatibleServer", "build_tiny_model",
           "train_tiny_tokenizer"]

#: Special tokens, in id order (0, 1, 2): padding/end of text, start and end of a chat turn.
TINY_SPECIAL_TOKENS: tuple[str, ...] = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")

#: The pre-tokenization regex of Qwen2 (``transformers.models.qwen2.tokenization_qwen2``).
QWEN2_SPLIT_REGEX = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""

#: ChatML, as Qwen2.5 writes it (without a default system message), with ``{% generation %}``
#: markers around assistant replies so that TRL's ``assistant_only_loss=True`` can mask the rest.
CHATML_TEMPLATE = (
    "{%- for message in messages %}"
    "{%- if message['role'] == 'assistant' %}"
    "{{- '<|im_start|>assistant\\n' }}"
    "{%- generation %}{{- message['content'] + '<|im_end|>' }}{%- endgeneration %}"
    "{{- '\\n' }}"
    "{%- else %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

_INSTALL_HINT = "pip install torch==2.13.0 && pip install 'execverify-data[train]'"


def _require(*modules: str) -> None:
    from execverify_data.models.base import BackendUnavailable, module_available

    missing = [m for m in modules if not module_available(m)]
    if missing:
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
        raise InvalidArgument(f"vocab_size must be an int of at least {floor} (256 bytes + "
                              f"{len(TINY_SPECIAL_TOKENS)} special tokens), got {vocab_size!r}")
    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_SPLIT_REGEX), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(TINY_SPECIAL_TOKENS),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train_from_iterator(texts, trainer)
    return tokenizer


def build_tiny_model(out_dir: str | os.PathLike[str], *, corpus: Sequence[str] | None = None, vocab_size: int = 1024,
                     hidden_size: int = 64, layers: int = 2, heads: int = 4, max_position_embeddings: int = 4096,
                     seed: int = 0) -> Path:
    """Write a tiny Qwen2 causal LM and its tokenizer to ``out_dir``; return the folder.

    Takes about 0.1 s on a CPU once torch and transformers are imported (about 3 s cold).
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
    for name, value, lo in (("hidden_size", hidden_size, 1), ("layers", layers, 1), ("heads", heads, 1),
                            ("max_position_embeddings", max_position_embeddings, 16)):
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise InvalidArgument(f"{name} must be an int of at least {lo}, got {value!r}")
    if hidden_size % heads or (hidden_size // heads) % 2:
        raise InvalidArgument(f"hidden_size ({hidden_size}) must be divisible by heads ({heads}) "
                              "with an even head size (rotary embeddings)")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidArgument(f"seed must be an int, got {seed!r}")
    if not isinstance(out_dir, (str, os.PathLike)):
        raise InvalidArgument(f"out_dir must be a path, got {type(out_dir).__name__}")
    _require("torch", "transformers", "tokenizers")
    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM, Qwen2Tokenizer

    raw = train_tiny_tokenizer(corpus, vocab_size=vocab_size)
    model_json = raw.get_vocab(with_added_tokens=True)
    bpe = json.loads(raw.to_str())["model"]
    tokenizer = Qwen2Tokenizer(
        vocab=bpe["vocab"], merges=[tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in bpe["merges"]],
        unk_token=None, eos_token="<|im_end|>", pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>", "<|im_end|>"])
    tokenizer.chat_template = CHATML_TEMPLATE
    ids = {token: tokenizer.convert_tokens_to_ids(token) for token in TINY_SPECIAL_TOKENS}
    if [ids[t] for t in TINY_SPECIAL_TOKENS] != [model_json[t] for t in TINY_SPECIAL_TOKENS]:
        raise RuntimeError(f"special token ids moved when wrapping the tokenizer: {ids}")

    kv_heads = heads // 2 if heads % 2 == 0 else heads
    config = Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=hidden_size, intermediate_size=2 * hidden_size, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=kv_heads, max_position_embeddings=max_position_embeddings,
        tie_word_embeddings=True, use_sliding_window=False, bos_token_id=None, eos_token_id=ids["<|im_end|>"],
        pad_token_id=ids["<|endoftext|>"])
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = Qwen2ForCausalLM(config)
    model.generation_config = GenerationConfig(eos_token_id=[ids["<|im_end|>"], ids["<|endoftext|>"]],
                                               pad_token_id=ids["<|endoftext|>"], do_sample=True)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


class OpenAICompatibleServer:
    """A minimal OpenAI-compatible HTTP server in a thread, on ``127.0.0.1`` and a free port.

    Serves ``GET /v1/models``, ``POST /v1/completions`` (``prompt``: one string) and
    ``POST /v1/chat/completions`` (``messages``) by calling ``backend.generate`` with
    the request's ``n``, ``temperature``, ``top_p``, ``max_tokens``, ``seed`` and ``stop``.
    Requests are handled one at a time (a local model is not thread-safe). Every
    request body is appended to :attr:`requests` as ``(path, body)``; statuses put in
    :attr:`fail_next` are answered (with an error body) before serving, to test retries.

    Args:
        backend (`TextBackend`): what produces the completions.
        model_name (`str`, defaults to ``"tiny"``): the served model id; requests naming
            another model get HTTP 404, as with ``vllm serve``.

    >>> class Upper:
    ...     def generate(self, prompts, *, n=1, temperature=1.0, max_new_tokens=16, seed=None, stop=None, top_p=1.0):
    ...         return [[str(p).upper()] * n for p in prompts]
    >>> from execverify_data.models import OpenAICompatibleBackend
    >>> with OpenAICompatibleServer(Upper()) as server:
    ...     OpenAICompatibleBackend(server.base_url).generate(["abc"], n=2)
    [['ABC', 'ABC']]
    """

    def __init__(self, backend: Any, *, model_name: str = "tiny") -> None:
        if not callable(getattr(backend, "generate", None)):
            raise InvalidArgument(f"backend must have a generate method, got {type(backend).__name__}")
        self.backend = backend
        self.model_name = model_name
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.fail_next: list[int] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` (only while running)."""
        if self._server is None:
            raise RuntimeError("the server is not running; use it as a context manager")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> OpenAICompatibleServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _error(self, status: int, message: str) -> None:
                self._send(status, {"error": {"message": message, "type": "invalid_request_error", "code": status}})

            def do_GET(self) -> None:
                if self.path.rstrip("/") != "/v1/models":
                    return self._error(404, f"no route GET {self.path}")
                self._send(200, {"object": "list", "data": [{"id": owner.model_name, "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError as exc:
                    return self._error(400, f"body is not JSON: {exc}")
                route = self.path.rstrip("/")
                owner.requests.append((route, body))
                if owner.fail_next:
                    status = owner.fail_next.pop(0)
                    return self._error(status, f"injected failure {status}")
                if route not in ("/v1/completions", "/v1/chat/completions"):
                    return self._error(404, f"no route POST {self.path}")
                if body.get("model") != owner.model_name:
                    return self._error(404, f"The model `{body.get('model')}` does not exist.")
                chat = route == "/v1/chat/completions"
                prompt = body.get("messages") if chat else body.get("prompt")
                stop = body.get("stop")
                try:
                    with owner._lock:
                        texts = owner.backend.generate(
                            [prompt], n=body.get("n", 1), temperature=body.get("temperature", 1.0),
                            top_p=body.get("top_p", 1.0), max_new_tokens=body.get("max_tokens", 16),
                            seed=body.get("seed"), stop=[stop] if isinstance(stop, str) else stop)[0]
                except (TypeError, ValueError) as exc:
                    return self._error(400, str(exc))
                if chat:
                    choices = [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                               for i, t in enumerate(texts)]
                else:
                    choices = [{"index": i, "text": t, "finish_reason": "stop"} for i, t in enumerate(texts)]
                kind = "chat.completion" if chat else "text_completion"
                self._send(200, {"id": f"cmpl-{len(owner.requests)}", "object": kind, "created": int(time.time()),
                                 "model": owner.model_name, "choices": choices})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="openai-test-server",
                                        daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
