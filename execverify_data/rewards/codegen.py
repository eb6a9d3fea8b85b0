"""The paper's Stage II reward (its ``code_gen.py``, ``compute_score_prime``), built on
:class:`~execverify_data.rewards.unit_tests.UnitTestReward`, whose sandbox and verdicts it uses: every column
TRL passes (``tests``, ``stdio_tests``, ``entry_point``...) reaches that reward unchanged.

>>> reward = PaperCodegenReward()
>>> code = "```python\\ndef add(a, b):\\n    return a + b\\n```"
>>> reward(["p"] * 3, [f"<answer>\\n{code}\\n</answer>", code, "<answer>\\nno code\\n</answer>"],
...        tests=[["assert add(1, 2) == 3", "assert add(2, 2) == 5"]] * 3)
[0.55, 0.5, 0.0]
"""

from __future__ import annotations

from typing import Any, Sequence

from execverify_data.completions import completion_text
from execverify_data.errors import InvalidArgument
from execverify_data.rewards.unit_tests import UnitTestReward

__all__ = ["PaperCodegenReward", "paper_codegen_reward"]


class PaperCodegenReward:
    """Unit-test fraction plus ``bonus`` for the answer tags when some test passes (the paper's Stage II rule).

    Args:
        bonus (`float`, optional, defaults to 0.05): added when the fraction is above 0 and the
            completion has ``<answer>`` and ``</answer>``.
        unit_tests (`UnitTestReward`, optional): the reward that runs the tests; by default one
            made with ``**kwargs`` (``timeout``, ``memory_mb``, ``workers``).
    """

    def __init__(self, *, bonus: float = 0.05, unit_tests: UnitTestReward | None = None, **kwargs: Any):
        if isinstance(bonus, bool) or not isinstance(bonus, (int, float)) or not 0 <= bonus < 1:
            raise InvalidArgument(f"bonus must be a number in [0, 1), got {bonus!r}")
        self.bonus = float(bonus)
        self.unit_tests = unit_tests if unit_tests is not None else UnitTestReward(**kwargs)
        self.__name__ = "paper_codegen_reward"

    def __repr__(self) -> str:
        return f"PaperCodegenReward(bonus={self.bonus}, unit_tests={self.unit_tests.__name__})"

    def __call__(self, prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
                 **kwargs: Any) -> list[float | None]:
        values = self.unit_tests(prompts, completions, **kwargs)
        out: list[float | None] = []
        for value, completion in zip(values, completions or ()):
            if not value:  # None (not applicable) or 0.0 (no test passed): the paper gives no bonus
                out.append(value)
                continue
            text = completion_text(completion) or ""
            out.append(value + (self.bonus if "<answer>" in text and "</answer>" in text else 0.0))
        return out


#: Default instance (its unit-test reward uses the process-wide sandbox pool).
paper_codegen_reward = PaperCodegenReward()
