"""Text-generation backends: the interface, the registry, transformers on a tiny model, HTTP, vLLM's hint."""

from __future__ import annotations

import os
import socket

import pytest

from execverify_data.errors import InvalidArgument
from execverify_data.models import (
    BACKENDS,
    BackendError,
    BackendSpecError,
    BackendUnavailable,
    OpenAICompatibleBackend,
    TextBackend,
    VLLMBackend,
    check_generate_args,
    get_backend,
    is_vllm_available,
)
from execverify_data.testing import OpenAICompatibleServer

os.environ.setdefault("OMP_NUM_THREADS", "1")

CHAT = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "def f(x):"}]


class Recorder:
    """A backend that answers a fixed text and records its calls."""

    def __init__(self, text: str = "ok") -> None:
        self.text, self.calls = text, []

    def generate(self, prompts, *, n=1, temperature=1.0, max_new_tokens=256, seed=None, stop=None, top_p=1.0):
        check_generate_args(
            prompts, n=n, temperature=temperature, max_new_tokens=max_new_tokens, seed=seed, stop=stop, top_p=top_p
        )
        self.calls.append(
            dict(
                prompts=prompts,
                n=n,
                temperature=temperature,
                max_new_tokens=max_new_tokens,
                seed=seed,
                stop=stop,
                top_p=top_p,
            )
        )
        return [[f"{self.text}{j}" for j in range(n)] for _ in prompts]


# ---------------------------------------------------------------- registry and arguments


def test_registry_names_and_errors():
    assert sorted(BACKENDS) == ["openai", "transformers", "vllm"]
    with pytest.raises(ValueError, match=r"unknown backend 'hf'.*\['openai', 'transformers', 'vllm'\]"):
        get_backend("hf:gpt2")
    with pytest.raises(ValueError, match="unknown backend 'gpt2'"):
        get_backend("gpt2")
    with pytest.raises(BackendSpecError, match="has no target; write 'vllm:TARGET'"):
        get_backend("vllm:")
    with pytest.raises(BackendSpecError, match="model is given twice"):
        get_backend("openai:http://127.0.0.1:1/v1#a", model="b")
    with pytest.raises(BackendSpecError, match="spec must be a string"):
        get_backend(None)


def test_openai_spec_parsing():
    gen = get_backend("openai:http://127.0.0.1:8000/v1/#org/model-7b", max_retries=0)
    assert isinstance(gen, TextBackend)
    assert (gen.base_url, gen.model, gen.max_retries) == ("http://127.0.0.1:8000/v1", "org/model-7b", 0)
    assert get_backend("openai:http://127.0.0.1:8000/v1").model is None


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n": 0}, "n must be an int of at least 1"),
        ({"n": True}, "n must be an int"),
        ({"temperature": -0.1}, "temperature must be a number >= 0"),
        ({"temperature": float("nan")}, "temperature must be a number >= 0"),
        ({"top_p": 0}, r"top_p must be a number in \(0, 1\]"),
        ({"max_new_tokens": 0}, "max_new_tokens must be an int of at least 1"),
        ({"seed": "1"}, "seed must be an int or None"),
        ({"seed": [1, 2]}, r"seed must be an int, None or a list of 1 ints \(one per prompt\)"),
        ({"seed": [True]}, "a list of 1 ints"),
        ({"stop": "\n"}, "stop must be a list of strings"),
        ({"stop": [""]}, "stop must be a list of strings"),
    ],
)
def test_bad_generate_arguments(kwargs, match):
    gen = OpenAICompatibleBackend("http://127.0.0.1:1/v1", model="m", max_retries=0)
    with pytest.raises(InvalidArgument, match=match):
        gen.generate(["x"], **kwargs)


@pytest.mark.parametrize(
    "prompts, match",
    [
        ("abc", "prompts must be a list of prompts"),
        ([3], r"prompts\[0\] must be a str or a non-empty list of chat messages"),
        ([[]], r"prompts\[0\] must be a str or a non-empty list"),
        ([[{"role": "user"}]], r"prompts\[0\]\[0\] must be a dict with str 'role' and 'content'"),
    ],
)
def test_bad_prompts(prompts, match):
    gen = OpenAICompatibleBackend("http://127.0.0.1:1/v1", model="m", max_retries=0)
    with pytest.raises(InvalidArgument, match=match):
        gen.generate(prompts)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"base_url": "localhost:8000"}, "base_url must start with http"),
        ({"timeout": 0}, "timeout must be a positive number"),
        ({"max_retries": -1}, "max_retries must be an int >= 0"),
        ({"concurrency": 0}, "concurrency must be an int of at least 1"),
        ({"model": ""}, "model must be the served model's name"),
    ],
)
def test_bad_openai_constructor(kwargs, match):
    kwargs = {"base_url": "http://127.0.0.1:1/v1", **kwargs}
    with pytest.raises(InvalidArgument, match=match):
        OpenAICompatibleBackend(**kwargs)


@pytest.mark.skipif(is_vllm_available(), reason="vllm is installed")
def test_vllm_missing_raises_import_error_with_hint():
    for make in (lambda: VLLMBackend("some/model"), lambda: get_backend("vllm:some/model")):
        with pytest.raises(ImportError, match=r"pip install 'execverify-data\[vllm\]'") as info:
            make()
        assert isinstance(info.value, BackendUnavailable)


# ---------------------------------------------------------------- OpenAI-compatible HTTP


def test_http_round_trip_completions_and_chat():
    backend = Recorder("hello")
    with OpenAICompatibleServer(backend, model_name="m1") as server:
        gen = OpenAICompatibleBackend(server.base_url, max_retries=0)  # model from GET /models
        out = gen.generate(["a", CHAT, "b"], n=2, temperature=0.5, max_new_tokens=7, seed=11, stop=["\n```"])
        assert out == [["hello0", "hello1"]] * 3
        assert gen.model == "m1"
        routes = sorted(route for route, _ in server.requests)
        assert routes == ["/v1/chat/completions", "/v1/completions", "/v1/completions"]
        body = next(b for r, b in server.requests if r == "/v1/chat/completions")
        assert body == {
            "model": "m1",
            "n": 2,
            "temperature": 0.5,
            "top_p": 1.0,
            "max_tokens": 7,
            "seed": 11,
            "stop": ["\n```"],
            "messages": CHAT,
        }
        plain = next(b for r, b in server.requests if r == "/v1/completions")
        assert plain["prompt"] in ("a", "b") and "seed" in plain
        server.requests.clear()
        gen.generate(["c"], temperature=0, max_new_tokens=3)  # no seed, no stop: not sent
        assert set(server.requests[0][1]) == {"model", "n", "temperature", "top_p", "max_tokens", "prompt"}
    assert gen.generate([], n=1) == []


def test_http_per_prompt_seeds_go_to_their_own_requests():
    with OpenAICompatibleServer(Recorder()) as server:
        gen = OpenAICompatibleBackend(server.base_url, model="tiny", max_retries=0)
        assert gen.generate(["a", CHAT, "b"], seed=[5, 6, 7]) == [["ok0"]] * 3
        seeds = {body.get("prompt", "chat"): body["seed"] for _, body in server.requests}
        assert seeds == {"a": 5, "chat": 6, "b": 7}


def test_http_retries_transient_errors_then_succeeds():
    with OpenAICompatibleServer(Recorder()) as server:
        server.fail_next = [503, 429]
        gen = OpenAICompatibleBackend(server.base_url, model="tiny", max_retries=2, backoff=0.01)
        assert gen.generate(["x"]) == [["ok0"]]
        assert len(server.requests) == 3
        server.fail_next = [500, 500, 500]
        with pytest.raises(BackendError, match=r"HTTP 500 .*injected failure 500.*gave up after 3 attempts"):
            gen.generate(["x"])


def test_http_client_errors_are_not_retried_and_say_why():
    with OpenAICompatibleServer(Recorder(), model_name="tiny") as server:
        gen = OpenAICompatibleBackend(server.base_url, model="other", max_retries=3, backoff=0.01)
        with pytest.raises(BackendError, match=r"HTTP 404 .*The model `other` does not exist"):
            gen.generate(["x"])
        assert len(server.requests) == 1
        bad_n = OpenAICompatibleBackend(server.base_url, model="tiny", extra_body={"n": 0}, max_retries=0)
        with pytest.raises(BackendError, match="HTTP 400 .*n must be an int of at least 1"):
            bad_n.generate(["x"])


def test_http_unreachable_server():
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    gen = OpenAICompatibleBackend(f"http://127.0.0.1:{port}/v1", model="m", max_retries=1, backoff=0.01, timeout=5)
    with pytest.raises(BackendError, match=r"failed: .*gave up after 2 attempts; is the server running"):
        gen.generate(["x"])


def test_http_wrong_number_of_choices():
    class Short(Recorder):
        def generate(self, prompts, **kwargs):
            return [["only one"] for _ in prompts]

    with OpenAICompatibleServer(Short()) as server:
        gen = OpenAICompatibleBackend(server.base_url, model="tiny", max_retries=0)
        with pytest.raises(BackendError, match="asked .* for n=2 completions, got 1"):
            gen.generate(["x"], n=2)


# ---------------------------------------------------------------- transformers on the tiny model


@pytest.fixture(scope="module")
def tiny_generator(tmp_path_factory):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    torch.set_num_threads(1)  # OMP_NUM_THREADS=1 comes too late when torch was imported earlier
    from execverify_data.testing import build_tiny_model

    path = build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")
    return get_backend(f"transformers:{path}", device="cpu", batch_size=4)


PROMPTS = ["def f(x):\n", CHAT, "x = [1, 2"]


def test_transformers_seeded_batched_and_shaped(tiny_generator):
    gen = tiny_generator
    a = gen.generate(PROMPTS, n=3, temperature=1.0, max_new_tokens=12, seed=5)
    assert [len(row) for row in a] == [3, 3, 3] and all(isinstance(t, str) for row in a for t in row)
    assert a == gen.generate(PROMPTS, n=3, temperature=1.0, max_new_tokens=12, seed=5)
    assert a != gen.generate(PROMPTS, n=3, temperature=1.0, max_new_tokens=12, seed=6)
    assert len(set(a[0])) > 1  # samples of one prompt differ
    gen.batch_size = 1
    try:  # one row at a time gives the same completions
        assert a == gen.generate(PROMPTS, n=3, temperature=1.0, max_new_tokens=12, seed=5)
    finally:
        gen.batch_size = 4


def test_transformers_per_prompt_seeds_sample_each_prompt_as_alone(tiny_generator):
    gen = tiny_generator
    kwargs = dict(n=2, temperature=1.0, max_new_tokens=8)
    together = gen.generate(PROMPTS, seed=[5, 6, 7], **kwargs)
    assert together == [gen.generate([p], seed=s, **kwargs)[0] for p, s in zip(PROMPTS, [5, 6, 7])]
    assert together[0] == gen.generate(PROMPTS, seed=5, **kwargs)[0]  # prompt 0 of an int seed: the same base


def test_transformers_greedy_matches_hf_generate(tiny_generator):
    import torch

    gen = tiny_generator
    ours = gen.generate(PROMPTS, n=2, temperature=0, max_new_tokens=10)
    for prompt, row in zip(PROMPTS, ours):
        assert row[0] == row[1]
        ids = torch.tensor([gen.encode(prompt)])
        ref = gen.model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False, max_new_tokens=10)
        assert row[0] == gen.tokenizer.decode(ref[0, ids.shape[1] :], skip_special_tokens=True)


def test_transformers_chat_template_is_applied(tiny_generator):
    ids = tiny_generator.encode(CHAT)
    text = tiny_generator.tokenizer.decode(ids)
    assert text.startswith("<|im_start|>system\nbe brief<|im_end|>") and text.endswith("<|im_start|>assistant\n")


def test_transformers_stop_and_eos(tiny_generator):
    gen = tiny_generator
    greedy = gen.generate(["def f(x):\n"], temperature=0, max_new_tokens=16)[0][0]
    assert len(greedy) > 4
    stop = greedy[2:4]
    cut = gen.generate(["def f(x):\n"], temperature=0, max_new_tokens=16, stop=[stop])[0][0]
    assert cut == greedy[: greedy.index(stop)]
    first = gen.encode("def f(x):\n")  # make the greedy first token an end-of-sequence id
    import torch

    with torch.inference_mode():
        token = int(gen.model(torch.tensor([first])).logits[0, -1].argmax())
    saved = set(gen.eos_ids)
    gen.eos_ids = saved | {token}
    try:
        assert gen.generate(["def f(x):\n"], temperature=0, max_new_tokens=16) == [[""]]
    finally:
        gen.eos_ids = saved


def test_transformers_served_over_http_matches_local(tiny_generator):
    with OpenAICompatibleServer(tiny_generator, model_name="tiny-qwen2") as server:
        remote = get_backend(f"openai:{server.base_url}#tiny-qwen2", max_retries=0, timeout=60)
        kwargs = dict(n=2, temperature=0.9, max_new_tokens=8, seed=3)
        for prompt in ("def f(x):\n", CHAT):
            assert remote.generate([prompt], **kwargs) == tiny_generator.generate([prompt], **kwargs)


def test_transformers_bad_arguments(tiny_generator):
    from execverify_data.models import TransformersBackend

    with pytest.raises(InvalidArgument, match="batch_size must be an int of at least 1"):
        TransformersBackend(tiny_generator.model, tokenizer=tiny_generator.tokenizer, batch_size=0)
    with pytest.raises(InvalidArgument, match="model must be a local path"):
        TransformersBackend(3.5)


def test_transformers_top_p_and_training_mode(tiny_generator):
    gen = tiny_generator
    greedy = gen.generate(PROMPTS, temperature=0, max_new_tokens=8)
    assert gen.generate(PROMPTS, temperature=1.0, top_p=1e-6, max_new_tokens=8, seed=9) == greedy
    gen.model.train()
    try:
        assert gen.generate(PROMPTS, temperature=0, max_new_tokens=8) == greedy
        assert gen.model.training  # a model lent by a trainer gets its mode back
    finally:
        gen.model.eval()
