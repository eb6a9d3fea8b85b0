"""``OpenAICompatibleBackend``: any OpenAI-compatible HTTP server (``openai:URL#MODEL``): ``vllm serve``,
SGLang, TGI's Messages API, llama.cpp's server, the OpenAI API. Requests and retries: ``docs/models.md``.

>>> from execverify_data.models import OpenAICompatibleBackend
>>> gen = OpenAICompatibleBackend("http://127.0.0.1:8000/v1", model="my-model")
>>> gen.base_url, gen.model
('http://127.0.0.1:8000/v1', 'my-model')
>>> OpenAICompatibleBackend("127.0.0.1:8000")
Traceback (most recent call last):
...
execverify_data.errors.InvalidArgument: base_url must start with http:// or https:// (e.g. 'http://localhost:8000/v1'), got '127.0.0.1:8000'
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from execverify_data.errors import InvalidArgument, check_seconds
from execverify_data.models.base import BackendError, Prompt, TextBackend, prompt_seeds

__all__ = ["OpenAICompatibleBackend"]

_RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class OpenAICompatibleBackend(TextBackend):
    """Generate through an OpenAI-compatible server.

    Args:
        base_url (`str`): the API root, e.g. ``"http://localhost:8000/v1"``.
        model (`str`, optional): the served model name; when None, the first id listed
            by ``GET {base_url}/models`` (fetched on first use).
        api_key (`str`, optional): sent as ``Authorization: Bearer ...`` (``vllm serve
            --api-key``); read no environment variable for you.
        timeout (`float`, defaults to 600): seconds per request.
        max_retries (`int`, defaults to 3): retries of a failed request (see the module docs).
        backoff (`float`, defaults to 1.0): first retry delay in seconds, doubled each time.
        concurrency (`int`, defaults to 8): requests in flight at once.
        extra_body (`dict`, optional): more JSON fields for every request
            (``{"top_k": 20}``, ``{"chat_template_kwargs": {...}}`` for vLLM).
    """

    def __init__(
        self,
        base_url: str,
        *,
        model: str | None = None,
        api_key: str | None = None,
        timeout: float = 600.0,
        max_retries: int = 3,
        backoff: float = 1.0,
        concurrency: int = 8,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise InvalidArgument(
                f"base_url must start with http:// or https:// (e.g. 'http://localhost:8000/v1'), got {base_url!r}"
            )
        if model is not None and (not isinstance(model, str) or not model):
            raise InvalidArgument(f"model must be the served model's name or None, got {model!r}")
        if api_key is not None and not isinstance(api_key, str):
            raise InvalidArgument("api_key must be a str or None")
        check_seconds("timeout", timeout)
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise InvalidArgument(f"max_retries must be an int >= 0, got {max_retries!r}")
        if isinstance(backoff, bool) or not isinstance(backoff, (int, float)) or backoff < 0:
            raise InvalidArgument(f"backoff must be a number of seconds >= 0, got {backoff!r}")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise InvalidArgument(f"concurrency must be an int of at least 1, got {concurrency!r}")
        if extra_body is not None and not isinstance(extra_body, dict):
            raise InvalidArgument(f"extra_body must be a dict or None, got {type(extra_body).__name__}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._api_key = api_key
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.backoff = float(backoff)
        self.concurrency = concurrency
        self.extra_body = dict(extra_body or {})
        host = (urllib.parse.urlsplit(self.base_url).hostname or "").lower()
        # proxies from the environment apply, except to a server on this machine
        handlers = [urllib.request.ProxyHandler({})] if host in ("localhost", "127.0.0.1", "::1") else []
        self._opener = urllib.request.build_opener(*handlers)

    def __repr__(self) -> str:
        return f"OpenAICompatibleBackend({self.base_url!r}, model={self.model!r})"

    def _request(self, method: str, route: str, body: dict[str, Any] | None = None) -> Any:
        url = f"{self.base_url}/{route}"
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        last = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with self._opener.open(request, timeout=self.timeout) as response:
                    payload = response.read()
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode("utf-8", "replace")[:500]
                last = f"HTTP {exc.code} from {method} {url}: {detail}"
                if exc.code in _RETRY_STATUS:
                    continue
                raise BackendError(last) from None
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                last = f"{method} {url} failed: {reason}"
                continue
            try:
                return json.loads(payload)
            except json.JSONDecodeError:
                raise BackendError(f"{method} {url} returned non-JSON: {payload[:200]!r}") from None
        raise BackendError(
            f"{last} (gave up after {self.max_retries + 1} attempts; is the server running at {self.base_url}?)"
        )

    def served_models(self) -> list[str]:
        """The model ids the server lists at ``GET {base_url}/models``."""
        listing = self._request("GET", "models")
        try:
            return [str(m["id"]) for m in listing["data"]]
        except (KeyError, TypeError):
            raise BackendError(f"unexpected /models response from {self.base_url}: {str(listing)[:200]}") from None

    def _model_name(self) -> str:
        if self.model is None:
            names = self.served_models()
            if not names:
                raise BackendError(f"{self.base_url}/models lists no model; pass model= explicitly")
            self.model = names[0]
        return self.model

    def _one(self, prompt: Prompt, fields: dict[str, Any], n: int) -> list[str]:
        chat = not isinstance(prompt, str)
        body = {"model": self._model_name(), **fields, **self.extra_body}
        if chat:
            body["messages"] = [dict(m) for m in prompt]
        else:
            body["prompt"] = prompt
        response = self._request("POST", "chat/completions" if chat else "completions", body)
        try:
            choices = sorted(response["choices"], key=lambda c: c.get("index", 0))
            texts = [(c["message"]["content"] if chat else c["text"]) or "" for c in choices]
        except (KeyError, TypeError, AttributeError):
            raise BackendError(f"unexpected response from {self.base_url}: {str(response)[:300]}") from None
        if len(texts) != n:
            raise BackendError(f"asked {self.base_url} for n={n} completions, got {len(texts)}")
        return texts

    def _sample(self, prompts, n, temperature, max_new_tokens, seed, stop, top_p) -> list[list[str]]:
        fields: dict[str, Any] = {"n": n, "temperature": temperature, "top_p": top_p, "max_tokens": max_new_tokens}
        if stop:
            fields["stop"] = stop
        if not prompts:
            return []
        self._model_name()

        def one(item: tuple[Prompt, int | None]) -> list[str]:
            prompt, prompt_seed = item
            return self._one(prompt, fields if prompt_seed is None else {**fields, "seed": prompt_seed}, n)

        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(prompts))) as pool:
            return list(pool.map(one, zip(prompts, prompt_seeds(seed, len(prompts)))))
