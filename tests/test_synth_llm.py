"""The LLM-backed program generator: prompt rendering, extraction, gates and counts, real backends."""

from __future__ import annotations

import os
import random

import pytest

from execverify_data.errors import InvalidArgument
from execverify_data.synth.checker import check
from execverify_data.synth.llm import (
    PROMPT_VERSION,
    LLMProgramGenerator,
    extract_code,
    render_completion_prompt,
    render_messages,
    render_prompt,
    split_description,
)
from execverify_data.synth.spec import ConstraintSpec, level_spec

os.environ.setdefault("OMP_NUM_THREADS", "1")

LEVEL6 = ConstraintSpec(
    "str.split",
    nested_depth=1,
    other_methods=True,
    control_flow=("for", "if"),
    helper_depth=1,
    n_params=1,
    min_size=6,
    max_size=10,
)
GOOD6 = """\
def helper(words: list[str]) -> list[str]:
    return sorted(set(words))


def main(text: str) -> list[str]:
    out = []
    for w in helper(text.split()):
        if len(w) > 2:
            out.append(w.upper())
    return out
"""
SORTED1 = ConstraintSpec("builtin.sorted", nested_depth=1, n_params=2)
GOOD_SORTED = "def f(xs: list[int], k: int) -> list[int]:\n    return sorted(set(xs))[:k]\n"


def fenced(code: str, prose: str = "Here is the program:") -> str:
    return f"{prose}\n```python\n{code}```\nIt meets every requirement."


class Scripted:
    """A backend answering, for each prompt, the given completions in turn."""

    def __init__(self, *answers: str) -> None:
        self.answers, self.calls = list(answers), []

    def generate(self, prompts, *, n=1, temperature=1.0, max_new_tokens=256, seed=None, stop=None, top_p=1.0):
        self.calls.append(dict(prompts=prompts, n=n, seed=seed, stop=stop, temperature=temperature))
        return [[self.answers[j % len(self.answers)] for j in range(n)] for _ in prompts]

    def __repr__(self) -> str:
        return "Scripted()"


# ---------------------------------------------------------------- prompt


def test_prompt_renders_every_constraint_of_the_spec():
    text = render_prompt(LEVEL6)
    assert text.startswith(
        "Write Python code that tests the `split` method of the `str` type.\n\nHard requirements:\n1. "
    )
    for piece in (
        "1 level deep, e.g. `f(g(x))`",
        "besides `split`",
        "a `for` loop, then inside it an `if` statement",
        "helper functions 1 call long",
        "exactly 1 parameter ",
        "between 6 and 10 elements",
        "```python code block",
    ):
        assert piece in text, piece
    deep = render_prompt(
        ConstraintSpec(
            "list.pop",
            nested_depth=2,
            control_flow=("while", "if-elif", "for"),
            helper_depth=3,
            n_params=3,
            min_size=0,
            max_size=4,
        )
    )
    assert "tests the `pop` method of the `list` type" in deep
    assert "2 levels deep, e.g. `f(g(h(x)))`" in deep and "exactly 3 parameters" in deep
    assert (
        "a `while` loop whose condition eventually becomes false, then inside it an `if` statement with an "
        "`elif` branch, then inside it a `for` loop"
    ) in deep
    assert (
        "3 calls long: the entry-point function calls a helper function defined in the code, "
        "which calls another helper, which calls another." in deep
    )
    plain = render_prompt(ConstraintSpec("builtin.sorted"))
    assert plain.startswith("Write Python code that tests the built-in function `sorted`.")
    assert "nested" not in plain and "control-flow" not in plain and "besides" not in plain
    assert PROMPT_VERSION == "llm-prompt-v2"
    assert plain.endswith("Reply with the complete program in a single ```python code block. Its first line is a comment "
                          "that says in one or two sentences what the entry-point function returns for its inputs, with "
                          'the parameter names in backticks, e.g. "# Description: Return the number of words in `words` '
                          'that start with `prefix`."')


def test_prompt_is_a_pure_function_of_the_spec():
    rng = random.Random(3)
    for level in range(1, 7):
        spec = level_spec(level, "dict.get", rng)
        assert render_prompt(spec) == render_prompt(ConstraintSpec.from_dict(spec.to_dict()))
        assert render_messages(spec)[1]["content"] == render_prompt(spec)
        assert render_completion_prompt(spec).endswith(render_prompt(spec) + "\n\n```python\n")
    with pytest.raises(InvalidArgument, match="spec must be a ConstraintSpec"):
        render_prompt("str.split")


@pytest.mark.parametrize(
    "text, code",
    [
        (fenced("def a():\n    return 1\n"), "def a():\n    return 1\n"),
        ("```\ndef b():\n    return 2\n```", "def b():\n    return 2\n"),
        ("```python\nx = 1\n```\ntext\n```python\ndef c():\n    return 3\n```", "def c():\n    return 3\n"),
        ("```json\n{}\n```\n```python\ndef d():\n    return 4\n```", "def d():\n    return 4\n"),
        ("def e():\n    return 5\n", "def e():\n    return 5\n"),
        ("def g():\n    return 6\n```\nbye", "def g():\n    return 6\n"),
        ("Sure.\n```python\ndef h():\n    return 7\n", "def h():\n    return 7\n"),
        ("```python\n\n```", ""),
        ("", ""),
    ],
)
def test_extract_code(text, code):
    assert extract_code(text) == code


# ---------------------------------------------------------------- gates and counts


def test_known_good_programs_are_accepted_end_to_end():
    assert check(GOOD6, LEVEL6).ok and check(GOOD_SORTED, SORTED1).ok
    backend = Scripted(fenced(GOOD6))
    gen = LLMProgramGenerator(backend, samples_per_spec=1)
    accepted, counts = gen.generate([LEVEL6], seed=7)
    assert counts == {"accepted": 1}
    [program] = accepted
    assert program.source == GOOD6 and program.entry_point == "main" and program.spec == LEVEL6
    assert (program.seed, program.spec_index, program.sample_index) == (7, 0, 0)
    assert program.prompt_version == PROMPT_VERSION and program.backend == "Scripted()"
    assert check(program.source, program.spec).ok
    call = backend.calls[0]
    assert call["prompts"] == [render_messages(LEVEL6)] and call["seed"] == 7 and call["stop"] is None


def test_rejections_are_counted_by_reason():
    no_flow = "def main(text: str) -> list[str]:\n    return sorted(set(text.split()))\n"
    answers = [
        "",  # no_code
        "I cannot write this program.",  # syntax_error
        fenced("def main(text):\n    return text.split(\n"),  # syntax_error
        fenced("import os\n\ndef main(text: str) -> list[str]:\n    return text.split()\n"),  # checker:imports
        fenced(no_flow),  # checker:control_flow
        fenced(GOOD6),  # accepted
        fenced(GOOD6, "Again:"),  # duplicate
        fenced(GOOD6.replace("len(w) > 2", "len(w) > 3")),  # accepted
    ]
    gen = LLMProgramGenerator(Scripted(*answers), samples_per_spec=len(answers))
    accepted, counts = gen.generate([LEVEL6], seed=0)
    assert counts == {
        "no_code": 1,
        "syntax_error": 2,
        "checker:imports": 1,
        "checker:control_flow": 1,
        "accepted": 2,
        "duplicate": 1,
    }
    assert [p.sample_index for p in accepted] == [5, 7]
    assert sum(counts.values()) == len(answers)


def test_several_specs_and_completion_mode():
    backend = Scripted(GOOD_SORTED + "```\n")  # a base model continuing a prompt that opened the block
    gen = LLMProgramGenerator(backend, samples_per_spec=2, chat=False)
    accepted, counts = gen.generate([SORTED1, LEVEL6], seed=1)
    assert counts == {"accepted": 1, "duplicate": 1, "checker:target_used": 2}
    assert accepted[0].spec == SORTED1 and accepted[0].source == GOOD_SORTED
    assert backend.calls[0]["prompts"] == [render_completion_prompt(SORTED1), render_completion_prompt(LEVEL6)]
    assert backend.calls[0]["stop"] == ["\n```"] and backend.calls[0]["n"] == 2
    assert gen.generate([], seed=0) == ([], {})


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: LLMProgramGenerator(object()), "backend must be a TextBackend"),
        (lambda: LLMProgramGenerator(Scripted("x"), samples_per_spec=0), "samples_per_spec must be an int"),
        (lambda: LLMProgramGenerator(Scripted("x"), chat="yes"), "chat must be True or False"),
        (lambda: LLMProgramGenerator(Scripted("x"), temperature=-1), "temperature must be a number >= 0"),
        (lambda: LLMProgramGenerator(Scripted("x"), max_new_tokens=0), "max_new_tokens must be an int"),
        (lambda: LLMProgramGenerator(Scripted("x"), filters={"k": 2}), "filters must be a FilterConfig"),
        (lambda: LLMProgramGenerator(Scripted("x"), tracer=object()), "tracer is only used by the filters"),
        (lambda: LLMProgramGenerator(Scripted("x")).generate(LEVEL6, seed=0), "specs must be a list"),
        (lambda: LLMProgramGenerator(Scripted("x")).generate(["str.split"], seed=0), r"specs\[0\] must be"),
        (lambda: LLMProgramGenerator(Scripted("x")).generate([LEVEL6], seed=None), "seed must be an int"),
    ],
)
def test_bad_arguments(make, match):
    with pytest.raises(InvalidArgument, match=match):
        make()


def test_a_backend_returning_the_wrong_shape_is_an_error():
    class Wrong(Scripted):
        def generate(self, prompts, **kwargs):
            return [["x"]]

    with pytest.raises(InvalidArgument, match=r"returned \[1\] completions for 2 prompts with n=1"):
        LLMProgramGenerator(Wrong(), samples_per_spec=1).generate([LEVEL6, SORTED1], seed=0)


@pytest.mark.parametrize(
    "code, source, description",
    [
        ("# Description: Return the `k` smallest distinct items of `xs`.\n" + GOOD_SORTED, GOOD_SORTED,
         "Return the `k` smallest distinct items of `xs`."),
        ("#description:   Return `xs`, sorted.  \n\n" + GOOD_SORTED, GOOD_SORTED, "Return `xs`, sorted."),
        ("import math\n# Description: Two sentences. Still one line.\n" + GOOD_SORTED, "import math\n" + GOOD_SORTED,
         "Two sentences. Still one line."),
        (GOOD_SORTED, GOOD_SORTED, ""),
        ("# a comment\n" + GOOD_SORTED, "# a comment\n" + GOOD_SORTED, ""),
    ],
)
def test_split_description(code, source, description):
    assert split_description(code) == (source, description)


def test_the_description_line_becomes_the_programs_description():
    """The reply's description comment is taken out of the program (chat and completion replies alike) and kept."""
    text = "Return the `k` smallest distinct items of `xs`."
    accepted, counts = LLMProgramGenerator(Scripted(fenced(f"# Description: {text}\n" + GOOD_SORTED)),
                                           samples_per_spec=1).generate([SORTED1], seed=0)
    assert counts == {"accepted": 1}
    assert accepted[0].source == GOOD_SORTED and accepted[0].description == text
    base = LLMProgramGenerator(Scripted(f"# Description: {text}\n" + GOOD_SORTED + "```\n"), samples_per_spec=1, chat=False)
    [program], _ = base.generate([SORTED1], seed=0)
    assert program.source == GOOD_SORTED and program.description == text
    [program], _ = LLMProgramGenerator(Scripted(fenced(GOOD_SORTED)), samples_per_spec=1).generate([SORTED1], seed=0)
    assert program.description == ""  # a reply without the line is kept, without a description


# ---------------------------------------------------------------- the programmatic pipeline's filters


def test_filters_run_on_llm_programs():
    filters = pytest.importorskip("execverify_data.synth.filters")
    unannotated = GOOD_SORTED.replace("xs: list[int], k: int", "xs, k")
    constant = "def f(xs: list[int], k: int) -> int:\n    return len(sorted(set([1, 2])))\n"
    with filters.TraceBackend("inprocess") as tracer:
        gen = LLMProgramGenerator(
            Scripted(fenced(GOOD_SORTED), fenced(unannotated), fenced(constant)),
            samples_per_spec=3,
            filters=filters.FilterConfig(k=2),
            tracer=tracer,
        )
        accepted, counts = gen.generate([SORTED1], seed=0)
    assert counts["accepted"] == 1 and counts["filter:param_types"] == 1
    assert sum(counts.values()) == 3 and any(
        key.startswith("filter:") and key != "filter:param_types" for key in counts
    )
    [program] = accepted
    assert len(program.filtered.inputs) == 2 and program.filtered.program.code == GOOD_SORTED


def test_filtered_programs_carry_the_description_into_their_record():
    """The filters' program (what the pipeline makes the record of) has the reply's description."""
    filters = pytest.importorskip("execverify_data.synth.filters")
    from execverify_data.pipeline import SynthConfig, program_record

    text = "Return the `k` smallest distinct items of `xs`."
    with filters.TraceBackend("inprocess") as tracer:
        gen = LLMProgramGenerator(Scripted(fenced(f"# Description: {text}\n" + GOOD_SORTED)), samples_per_spec=1,
                                  filters=filters.FilterConfig(k=2), tracer=tracer)
        [program], _ = gen.generate([SORTED1], seed=0)
    assert program.filtered.program.description == text and program.filtered.program.code == GOOD_SORTED
    record = program_record(SynthConfig(n_programs=1), 0, 0, program.filtered, ("llm:test", PROMPT_VERSION))
    assert record.description == text and record.code == GOOD_SORTED


# ---------------------------------------------------------------- real backends on the tiny model


@pytest.fixture(scope="module")
def tiny_generator(tmp_path_factory):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    torch.set_num_threads(1)  # OMP_NUM_THREADS=1 comes too late when torch was imported earlier
    from execverify_data.models import get_backend
    from execverify_data.testing import build_tiny_model

    path = build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")
    return get_backend(f"transformers:{path}", device="cpu", batch_size=8)


def _all_rejected(counts, total):
    assert sum(counts.values()) == total and counts["accepted"] == 0
    assert set(counts) <= {"accepted", "no_code", "syntax_error", "duplicate"} | {
        key for key in counts if key.startswith("checker:")
    }


@pytest.mark.parametrize("chat", [True, False])
def test_tiny_model_garbage_is_rejected_gracefully(tiny_generator, chat):
    specs = [LEVEL6, SORTED1]
    gen = LLMProgramGenerator(tiny_generator, samples_per_spec=3, max_new_tokens=24, chat=chat)
    accepted, counts = gen.generate(specs, seed=0)
    assert accepted == []
    _all_rejected(counts, 6)
    assert gen.generate(specs, seed=0) == (accepted, counts)  # seeded: the same counts again


def test_tiny_model_served_over_http(tiny_generator):
    from execverify_data.models import OpenAICompatibleBackend
    from execverify_data.testing import OpenAICompatibleServer

    with OpenAICompatibleServer(tiny_generator, model_name="tiny") as server:
        for chat in (True, False):
            remote = OpenAICompatibleBackend(server.base_url, max_retries=0, timeout=60)
            gen = LLMProgramGenerator(remote, samples_per_spec=2, max_new_tokens=16, chat=chat)
            accepted, counts = gen.generate([LEVEL6], seed=4)
            _all_rejected(counts, 2)
            local = LLMProgramGenerator(tiny_generator, samples_per_spec=2, max_new_tokens=16, chat=chat)
            assert local.generate([LEVEL6], seed=4)[1] == counts
        routes = {route for route, _ in server.requests}
        assert routes == {"/v1/chat/completions", "/v1/completions"}
        body = next(b for r, b in server.requests if r == "/v1/chat/completions")
        assert body["messages"] == render_messages(LEVEL6) and body["n"] == 2 and body["seed"] == 4


def test_filters_default_to_the_trusted_runner():
    filters = pytest.importorskip("execverify_data.synth.filters")
    gen = LLMProgramGenerator(Scripted(fenced(GOOD6)), samples_per_spec=1, filters=filters.FilterConfig(k=2))
    accepted, counts = gen.generate([LEVEL6], seed=3)
    assert counts == {"accepted": 1}
    assert len(accepted[0].filtered.traces) == 2


def test_pathological_completions_are_rejected_not_raised():
    deep = "def f(x: int) -> int:\n    return " + "(" * 5000 + "x" + ")" * 5000 + "\n"
    calls = "def f(x: int) -> int:\n    return " + "abs(" * 3000 + "x" + ")" * 3000 + "\n"
    gen = LLMProgramGenerator(Scripted(fenced(deep), fenced(calls), "\x00\x01", "```python\n```"), samples_per_spec=4)
    accepted, counts = gen.generate([SORTED1], seed=0)
    assert accepted == [] and sum(counts.values()) == 4
    assert counts["no_code"] == 1
