"""TRL reward functions.

Every reward follows TRL's contract, ``fn(prompts, completions, **columns) -> list[float | None]`` (``None``:
not applicable to that row), is a picklable callable class with ``__name__`` set (TRL forwards reward functions
to worker processes and logs each as ``rewards/<name>/mean``), and decides every verdict in the calling process
with :func:`execverify_data.values.same`. :data:`REWARDS` names them; what each scores and the formulas are in
``docs/questions.md`` ("Rewards"), the sandbox scheme in ``docs/sandbox.md``.

>>> reward = get_reward("io")
>>> reward.__name__
'io_reward'
>>> get_reward("nope")
Traceback (most recent call last):
...
ValueError: unknown reward 'nope'; valid names: format, io, oi, paper, paper_codegen, unit_test, whitebox
"""

from __future__ import annotations

from typing import Any

from execverify_data.rewards.codegen import PaperCodegenReward, paper_codegen_reward
from execverify_data.rewards.execution import (ExecutionReward, FormatReward, IOReward, OIReward, PaperReward,
                                               WhiteboxReward, format_reward, io_reward, oi_reward, paper_reward,
                                               whitebox_reward)
from execverify_data.rewards.unit_tests import (UnitTestReward, extract_code, split_assertion, stdout_matches,
                                                unit_test_reward, validate_tests)

__all__ = [
    "REWARDS", "ExecutionReward", "FormatReward", "IOReward", "OIReward", "PaperCodegenReward", "PaperReward",
    "UnitTestReward", "WhiteboxReward", "extract_code", "format_reward", "get_reward", "io_reward", "oi_reward",
    "paper_codegen_reward", "paper_reward", "split_assertion", "stdout_matches", "unit_test_reward",
    "validate_tests", "whitebox_reward",
]

#: reward name -> class; built by :func:`get_reward`.
REWARDS: dict[str, type] = {"whitebox": WhiteboxReward, "io": IOReward, "oi": OIReward, "format": FormatReward,
                             "paper": PaperReward, "unit_test": UnitTestReward, "paper_codegen": PaperCodegenReward}


def get_reward(name: str, **kwargs: Any):
    """Build the reward called ``name`` with ``kwargs``; ``ValueError`` lists the valid names."""
    if name not in REWARDS:
        raise ValueError(f"unknown reward {name!r}; valid names: {', '.join(sorted(REWARDS))}")
    return REWARDS[name](**kwargs)
