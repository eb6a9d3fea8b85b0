"""The paper's Stage II rule over the unit-test reward (``execverify_data.rewards.codegen``)."""

from __future__ import annotations

import pickle

import pytest

from execverify_data.errors import InvalidArgument
from execverify_data.rewards import PaperCodegenReward, get_reward, paper_codegen_reward

CODE = "```python\ndef add(a, b):\n    return a + b\n```"
TESTS = ["assert add(1, 2) == 3", "assert add(2, 2) == 5"]


def test_fraction_plus_the_tag_bonus_only_when_a_test_passes():
    completions = [f"<reasoning>\nsum\n</reasoning>\n<answer>\n{CODE}\n</answer>", CODE, f"<answer>\n{CODE}",
                   "<answer>\n```python\ndef add(a, b):\n    return 0\n```\n</answer>"]
    values = paper_codegen_reward(["p"] * 4, completions, tests=[TESTS] * 4)
    assert values == [pytest.approx(0.55), 0.5, 0.5, 0.0]  # both tags; none; one; no test passed: no bonus
    assert paper_codegen_reward(["p"], [CODE], tests=[None]) == [None]


def test_columns_reach_the_unit_test_reward_unchanged():
    seen = {}

    class Recorder:
        __name__ = "recorder"

        def __call__(self, prompts, completions, **kwargs):
            seen.update(kwargs)
            return [1.0] * len(completions)

    reward = PaperCodegenReward(unit_tests=Recorder())
    stdio = [[{"stdin": "1 2\n", "stdout": "3\n"}]]
    assert reward(["p"], ["<answer>x</answer>"], tests=[TESTS], stdio_tests=stdio, entry_point=["add"]) == [1.05]
    assert seen == {"tests": [TESTS], "stdio_tests": stdio, "entry_point": ["add"]}


def test_settings_pickling_and_the_registry():
    with pytest.raises(InvalidArgument, match="bonus"):
        PaperCodegenReward(bonus=-1)
    copy = pickle.loads(pickle.dumps(PaperCodegenReward(bonus=0.1, timeout=2.0)))
    assert copy.__name__ == "paper_codegen_reward" and copy.bonus == 0.1 and copy.unit_tests.timeout == 2.0
    assert get_reward("paper_codegen").__name__ == "paper_codegen_reward"
