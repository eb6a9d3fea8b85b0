"""The tiny offline model of :mod:`execverify_data.testing`: loads, round-trips ids, generates."""

from __future__ import annotations

import os
import unicodedata

import pytest

from execverify_data.errors import InvalidArgument
from execverify_data.testing import TINY_SPECIAL_TOKENS, build_tiny_model, train_tiny_tokenizer

os.environ.setdefault("OMP_NUM_THREADS", "1")

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
torch.set_num_threads(1)  # OMP_NUM_THREADS=1 comes too late when torch was imported earlier

UNICODE_CODE = [
    "def f(s):\n    return s.replace('é', 'e\u0301') + '日本語 ∑ 🙂'\n",
    "def g(xs):\n\tout = {'ключ': [1, 2.5, -3]}\n    return [x ** 2 for x in xs if x != 'ß']  # naïve\n",
    '  \n\n\r\nx = "tab\\there"  \u00a0nbsp\u3000ideographic space\n',
    "s = 'I'm' + \"WE'LL\" + '123456' + 'x'*7\n",
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def loaded(tiny):
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny)
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny)
    return tokenizer, model


def test_folder_loads_offline_as_qwen2(tiny, loaded):
    tokenizer, model = loaded
    assert type(model).__name__ == "Qwen2ForCausalLM"
    assert type(tokenizer).__name__ == "Qwen2Tokenizer"
    assert model.config.vocab_size == len(tokenizer)
    assert sum(p.numel() for p in model.parameters()) < 500_000
    assert tokenizer.convert_tokens_to_ids(list(TINY_SPECIAL_TOKENS)) == [0, 1, 2]
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|endoftext|>"
    assert model.config.eos_token_id == 2 and model.config.pad_token_id == 0


@pytest.mark.parametrize("text", UNICODE_CODE)
def test_ids_round_trip_through_save_and_reload(tiny, loaded, text):
    raw = train_tiny_tokenizer()  # the same trainer build_tiny_model used, before any save
    tokenizer, _ = loaded
    before = raw.encode(text).ids
    assert tokenizer(text).input_ids == before
    assert tokenizer.decode(before) == unicodedata.normalize("NFC", text)


def test_special_tokens_are_single_ids_and_chat_template_is_chatml(loaded):
    tokenizer, _ = loaded
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "def f(x): 日本"}]
    text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    assert text == (
        "<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\ndef f(x): 日本<|im_end|>\n<|im_start|>assistant\n"
    )
    ids = tokenizer(text).input_ids
    assert ids.count(1) == 3 and ids.count(2) == 2
    assert tokenizer.decode(ids) == text


def test_chat_template_marks_assistant_replies_for_training(loaded):
    tokenizer, _ = loaded
    messages = [{"role": "user", "content": "f(1)?"}, {"role": "assistant", "content": "2"}]
    text = tokenizer.apply_chat_template(messages, tokenize=False)
    assert text == "<|im_start|>user\nf(1)?<|im_end|>\n<|im_start|>assistant\n2<|im_end|>\n"
    out = tokenizer.apply_chat_template(messages, return_dict=True, return_assistant_tokens_mask=True)
    ids, mask = out["input_ids"], out["assistant_masks"]
    assert tokenizer.decode([i for i, m in zip(ids, mask) if m]) == "2<|im_end|>"


def test_generate_works_and_is_seeded(loaded):
    tokenizer, model = loaded
    batch = tokenizer(["def f(x):\n    return", "x = [1, 2"], return_tensors="pt", padding=True, padding_side="left")
    outs = []
    for _ in range(2):
        torch.manual_seed(123)
        outs.append(model.generate(**batch, max_new_tokens=8, do_sample=True, min_new_tokens=8))
    assert outs[0].shape == (2, batch.input_ids.shape[1] + 8)
    assert torch.equal(outs[0], outs[1])


def test_same_arguments_give_same_bytes(tmp_path, tiny):
    again = build_tiny_model(tmp_path / "again")
    for name in ("model.safetensors", "tokenizer.json", "config.json", "chat_template.jinja"):
        assert (again / name).read_bytes() == (tiny / name).read_bytes(), name
    other = build_tiny_model(tmp_path / "other", seed=1)
    assert (other / "model.safetensors").read_bytes() != (tiny / "model.safetensors").read_bytes()


def test_custom_corpus_and_size(tmp_path):
    corpus = ["def add(a, b):\n    return a + b\n"] * 20
    path = build_tiny_model(tmp_path / "small", corpus=corpus, vocab_size=300, hidden_size=32, layers=1, heads=2)
    config = transformers.AutoConfig.from_pretrained(path)
    assert config.num_hidden_layers == 1 and config.hidden_size == 32 and config.vocab_size <= 300


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"vocab_size": 100}, "vocab_size must be an int of at least 259"),
        ({"hidden_size": 30, "heads": 4}, "must be divisible by heads"),
        ({"layers": 0}, "layers must be an int of at least 1"),
        ({"corpus": "def f(): pass"}, "corpus must be a list of texts"),
        ({"corpus": [1]}, r"corpus\[0\] is a int"),
        ({"corpus": ["", ""]}, "corpus holds no text"),
        ({"seed": 1.5}, "seed must be an int"),
    ],
)
def test_bad_arguments(tmp_path, kwargs, match):
    with pytest.raises(InvalidArgument, match=match):
        build_tiny_model(tmp_path / "bad", **kwargs)


def test_missing_train_extra_raises_import_error_with_hint(tmp_path, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "transformers", None)
    with pytest.raises(ImportError, match=r"needs transformers; install with: pip install torch==2\.13\.0"):
        build_tiny_model(tmp_path / "never")
