"""Public code-problem formats (PRIME/Eurus-2, APPS, HumanEval) as codegen rows, scored by
unit_test_reward: right programs 1.0, wrong ones 0.0, rows without a real test rejected at load.
The rows are fixtures written here (tests/fixtures/codegen_formats.json), nothing is downloaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execverify_data.errors import InvalidArgument
from execverify_data.rewards import UnitTestReward
from execverify_data.rewards.problem_formats import FORMATS, to_codegen

FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "codegen_formats.json").read_text())
ROWS = {case["name"]: case for case in FIXTURES["rows"]}


@pytest.fixture(scope="module")
def reward():
    return UnitTestReward(timeout=3.0, workers=2)


def _score(reward, row: dict, program: str) -> float:
    return reward(prompts=[row["prompt"]], completions=[f"```python\n{program}```"], tests=[row["tests"]],
                  stdio_tests=[row["stdio_tests"]], entry_point=[row["entry_point"]])[0]


@pytest.mark.parametrize("name", list(ROWS))
def test_right_programs_score_one_and_wrong_ones_zero(reward, name):
    case = ROWS[name]
    row = to_codegen(case["row"], case["format"])
    assert set(row) == {"prompt", "tests", "stdio_tests", "entry_point"}
    assert row == to_codegen(case["row"])  # the format is recognised from the columns too
    assert _score(reward, row, case["right"]) == 1.0
    assert _score(reward, row, case["wrong"]) == 0.0


def test_what_each_format_becomes():
    assert to_codegen(ROWS["prime_stdio"]["row"])["stdio_tests"][0] == {"stdin": "3\n1 2 3\n", "stdout": "6\n"}
    call = to_codegen(ROWS["prime_call"]["row"])
    assert call["tests"][0] == "assert solve([1, 2, 3]) in ([6], 6)" and call["entry_point"] == "solve"
    lines = to_codegen(ROWS["apps_stdio"]["row"])["stdio_tests"][0]
    assert lines == {"stdin": "2\n1 3", "stdout": "0.5\n1.5"}  # lists of lines are joined
    apps = to_codegen(ROWS["apps_call"]["row"])
    assert apps["prompt"].endswith("def bigger(a, b):\n") and apps["tests"][2] == "assert bigger('b', 'a') == 'b'"
    humaneval = to_codegen(ROWS["humaneval"]["row"])
    assert humaneval["tests"] == [ROWS["humaneval"]["row"]["test"]] and humaneval["entry_point"] == "count_vowels"


@pytest.mark.parametrize("case", FIXTURES["bad"], ids=[case["name"] for case in FIXTURES["bad"]])
def test_rows_that_cannot_fail_a_program_are_rejected(case):
    with pytest.raises(InvalidArgument, match=case["why"]) as raised:
        to_codegen(case["row"], case["format"])
    assert "\n" not in str(raised.value)


def test_unknown_formats_and_rows():
    with pytest.raises(ValueError, match="valid names: " + ", ".join(FORMATS)):
        to_codegen({"prompt": "p"}, "mbpp")
    with pytest.raises(InvalidArgument, match="cannot tell the format"):
        to_codegen({"prompt": "p"})
    with pytest.raises(InvalidArgument, match="same length"):
        to_codegen({"question": "q", "input_output": '{"inputs": ["1"], "outputs": []}'})
