"""TRL reward functions for execution reasoning (white-box, io, oi, format, and the paper's single reward).

Each reads the ``verification`` column (made by :func:`execverify_data.questions.render`, or its JSON string)
and scores with :class:`execverify_data.questions.Scorer` (formulas: ``docs/questions.md``, "Rewards"); ``oi``
answers run in a warm trusted runner, started on first use (never at import or unpickling; pickling drops it).

>>> from execverify_data.questions import build
>>> r = build("def f(x):\\n    y = x + 1\\n    return y * 2\\n", "f(3)", n_path=1, n_state=1)
>>> whitebox_reward([""], [r.reference_completion], verification=[r.verification])
[2.0]
>>> whitebox_reward([""], ["<answer>\\n8\\n-1\\n4; str\\n</answer>"], verification=[r.verification])
[1.5]
>>> whitebox_reward([""], ["<answer>\\nf(3)\\n-1\\n4; int\\n</answer>"], verification=[r.verification])
[0.0]
>>> io_reward([""], ["<answer>\\n8\\n</answer>"], verification=[r.verification]), oi_reward([""], ["x"], verification=[r.verification])
([1.0], [None])
>>> paper_reward([""], ["<answer>\\n8\\n-1\\n4; str\\n</answer>", "<answer>\\n8\\n</answer>"], verification=[r.verification] * 2)
[1.5, 1.0]
"""

from __future__ import annotations

from typing import Any, Sequence

from execverify_data.errors import InvalidArgument, check_int
from execverify_data.questions.extract import has_answer_block
from execverify_data.questions.kinds import Kind
from execverify_data.questions.scoring import OiExecutor, ScoreResult, Scorer, load_verification

__all__ = ["ExecutionReward", "FormatReward", "IOReward", "OIReward", "PaperReward", "WhiteboxReward", "format_reward",
           "io_reward", "oi_reward", "paper_reward", "whitebox_reward"]


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        raise InvalidArgument(f"{name} must be a non-negative number, got {value!r}")
    return float(value)


class ExecutionReward:
    """Base class: reads the ``verification`` column and scores with a shared :class:`Scorer`.

    Args:
        oi_workers (`int`, optional, defaults to 2): trusted-runner processes for ``oi`` checks.
        oi_timeout (`float`, optional, defaults to 2.0): seconds per ``oi`` check.
        scorer (`Scorer`, optional): a scorer to use instead of a new one.
    """

    name = "execution_reward"
    runs_oi = True  # whether the scorer runs ``oi`` answers (FormatReward needs no execution)

    def __init__(self, *, oi_workers: int = 2, oi_timeout: float = 2.0, scorer: Scorer | None = None):
        check_int("oi_workers", oi_workers)
        self.scorer = scorer or Scorer(OiExecutor(workers=oi_workers, timeout=_number("oi_timeout", oi_timeout)))
        self.__name__ = self.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.__name__!r})"

    def _results(self, completions: Sequence[Any], verification: Any) -> list[ScoreResult | None]:
        if verification is None:
            raise InvalidArgument(f"{self.__name__} needs the dataset column 'verification' (made by execverify "
                                  "questions / questions.render); TRL passes dataset columns to reward functions as "
                                  "keyword arguments")
        if completions is None or len(completions) != len(verification):
            raise InvalidArgument(f"{self.__name__}: {0 if completions is None else len(completions)} completions "
                                  f"for {len(verification)} verification rows")
        return self.scorer.score_batch(list(verification), list(completions), run_oi=self.runs_oi)

    def reward(self, result: ScoreResult) -> float | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def rewards(self, results: Sequence[ScoreResult | None], completions: Sequence[Any], verification: Sequence[Any]) -> list[float | None]:
        """This reward's values for a scored batch: the call is ``self.rewards(scorer.score_batch(verification,
        completions), completions, verification)``, so one scoring (with ``oi`` run) serves several rewards."""
        return [None if r is None else self.reward(r) for r in results]

    def __call__(self, prompts: Any = None, completions: Any = None, verification: Any = None, **kwargs: Any) -> list[float | None]:
        return self.rewards(self._results(completions, verification), completions, verification)


class WhiteboxReward(ExecutionReward):
    """Final-answer gate plus step accuracy (the formula is in ``docs/questions.md``, "Rewards").

    Args:
        final_weight (`float`, optional, defaults to 1.0): weight of the final answer.
        step_weight (`float`, optional, defaults to 1.0): weight of the step fraction.
        gate (`bool`, optional, defaults to `True`): 0 for the whole row when the final
            answer is wrong (the paper's rule); `False` gives partial credit.
        **kwargs: as :class:`ExecutionReward`.
    """

    name = "whitebox_reward"

    def __init__(self, *, final_weight: float = 1.0, step_weight: float = 1.0, gate: bool = True, **kwargs: Any):
        super().__init__(**kwargs)
        self.final_weight = _number("final_weight", final_weight)
        self.step_weight = _number("step_weight", step_weight)
        if not isinstance(gate, bool):
            raise InvalidArgument(f"gate must be a bool, got {gate!r}")
        self.gate = gate

    def reward(self, result: ScoreResult) -> float | None:
        final = result.final_correct
        if final is None:
            return None
        if self.gate and not final:
            return 0.0
        return self.final_weight * float(final) + self.step_weight * result.step_fraction


class _FinalKindReward(ExecutionReward):
    kind: Kind

    def reward(self, result: ScoreResult) -> float | None:
        index = result.final_index
        if index is None or result.kinds[index] is not self.kind:
            return None
        return float(result.correct[index])


class IOReward(_FinalKindReward):
    """1.0 when the ``io`` answer is right, 0.0 otherwise; None for rows without an ``io`` question."""

    kind = Kind.IO
    name = "io_reward"


class OIReward(_FinalKindReward):
    """1.0 when the ``oi`` answer's call returns the expected output, 0.0 otherwise; None elsewhere."""

    kind = Kind.OI
    name = "oi_reward"


class FormatReward(ExecutionReward):
    """1.0 when the style's answer block holds exactly one readable answer per question, else 0.0: form only
    (a ``state`` answer is ``value; type``), and the block is required (a ``cruxeval`` completion without
    ``[ANSWER]`` earns 0.0 though the scorer reads its text as a bare answer)."""

    name = "format_reward"
    runs_oi = False  # form needs no execution

    def reward(self, result: ScoreResult) -> float | None:
        return float(result.well_formed)

    def rewards(self, results: Sequence[ScoreResult | None], completions: Sequence[Any], verification: Sequence[Any]) -> list[float | None]:
        return [None if r is None else float(r.well_formed and has_answer_block(c, load_verification(v).style))
                for r, c, v in zip(results, completions, verification)]


class PaperReward(ExecutionReward):
    """The paper's Stage I reward: one value per row, for white-box and ``oi`` rows alike.

    Args:
        mismatch (`float`, optional, defaults to 1.0): the value of a right final answer when
            the answer count differs from the question count, or when no step was asked.
        oi_correct (`float`, optional, defaults to 2.0): the value of a right ``oi`` answer.
        **kwargs: as :class:`ExecutionReward`.
    """

    name = "paper_reward"

    def __init__(self, *, mismatch: float = 1.0, oi_correct: float = 2.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.mismatch = _number("mismatch", mismatch)
        self.oi_correct = _number("oi_correct", oi_correct)

    def reward(self, result: ScoreResult) -> float | None:
        final = result.final_correct
        if final is None:
            return None
        if result.kinds[result.final_index] is Kind.OI:  # type: ignore[index]
            return self.oi_correct if final else 0.0
        if not final:
            return 0.0
        steps = result.step_correct
        if not steps or result.n_answers != len(result.kinds):
            return self.mismatch
        return 1.0 + sum(steps) / len(steps)


# The default instances share one scorer, hence one oi runner (started on first use).
_DEFAULT_SCORER = Scorer(OiExecutor())

#: Default instances, the names TRL logs.
whitebox_reward = WhiteboxReward(scorer=_DEFAULT_SCORER)
io_reward = IOReward(scorer=_DEFAULT_SCORER)
oi_reward = OIReward(scorer=_DEFAULT_SCORER)
format_reward = FormatReward(scorer=_DEFAULT_SCORER)
paper_reward = PaperReward(scorer=_DEFAULT_SCORER)
