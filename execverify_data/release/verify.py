"""Self-verification of a release: every reference answer of every config, scored by the very
functions a consumer calls, must get full marks.

* ``io``, ``oi``, ``trace``, ``sft``: the :class:`~execverify_data.questions.Scorer` (every question
  right, the answer block well formed; ``oi`` answers are run, once), and the TRL rewards a trainer
  would use on the row, each with its own formula on that scoring (``whitebox_reward`` at its
  maximum ``final_weight + step_weight`` on white-box rows, ``io_reward`` / ``oi_reward`` 1.0 on
  CRUXEval-style rows, ``paper_reward`` at its maximum, ``format_reward`` 1.0 on all);
* ``codegen``: ``unit_test_reward`` (in the untrusted sandbox) gives the reference solution,
  written as a model writes it (a fenced ``python`` block), 1.0 on the examples and the hidden
  tests.

A row that does not get full marks is a defect of the pipeline, not of the data: the build fails
and names it (:class:`VerificationError`), nothing is dropped silently.

>>> import json
>>> from execverify_data.questions import build
>>> r = build("def f(x):\\n    return x + 1\\n", "f(1)", n_path=0, n_state=0, style="cruxeval")
>>> row = {"id": "r-io-0", "verification": json.dumps(r.verification), "reference_completion": r.reference_completion}
>>> with Verifier() as verifier:
...     verifier.check({"io": [row]})
[]
"""

from __future__ import annotations

from execverify_data.errors import ExecVerifyError
from execverify_data.questions.kinds import Kind

__all__ = ["VerificationError", "Verifier"]


class VerificationError(ExecVerifyError):
    """Reference answers that do not get full marks under the consumers' scorers."""


def _codegen_completion(solution: str) -> str:
    return f"```python\n{solution.rstrip()}\n```"


class Verifier:
    """Scores the reference answers of release rows; one instance per worker process (it holds an
    ``oi`` runner and a sandbox pool, started on first use)."""

    def __init__(self, *, sandbox_workers: int = 1, oi_workers: int = 1):
        from execverify_data.questions import OiExecutor, Scorer
        from execverify_data.rewards import FormatReward, IOReward, OIReward, PaperReward, UnitTestReward, WhiteboxReward

        self.scorer = Scorer(OiExecutor(workers=oi_workers))
        self.whitebox = WhiteboxReward(scorer=self.scorer)
        self.whitebox_full = self.whitebox.final_weight + self.whitebox.step_weight
        self.io = IOReward(scorer=self.scorer)
        self.oi = OIReward(scorer=self.scorer)
        self.format = FormatReward(scorer=self.scorer)
        self.paper = PaperReward(scorer=self.scorer)
        self.unit = UnitTestReward(workers=sandbox_workers)
        #: The ids of the rows the last :meth:`check` scored (every reward run on them).
        self.checked: set[str] = set()

    def check(self, rows: dict[str, list[dict]]) -> list[dict]:
        """Failures among ``rows`` (config -> rows as the release writes them): ``{"id", "config", "why"}``."""
        failures: list[dict] = []
        self.checked = set()
        for config, items in rows.items():
            if not items:
                continue
            if config == "codegen":
                failures += self._codegen(items)
            else:
                failures += self._questions(config, items)
            self.checked.update(r["id"] for r in items)
        return failures

    def _questions(self, config: str, items: list[dict]) -> list[dict]:
        answer = "completion" if config == "sft" else "reference_completion"
        verification = [r["verification"] for r in items]
        completions = [r[answer] for r in items]
        # one scoring (oi answers run once), then each reward's own formula on it: a TRL reward's call is
        # exactly reward.rewards(scorer.score_batch(verification, completions), completions, verification)
        results = self.scorer.score_batch(verification, completions)

        def marks(reward):
            return reward.rewards(results, completions, verification)

        checks = [("format_reward", marks(self.format), [1.0] * len(items))]
        paper_full = [None if r is None else (self.paper.oi_correct if r.kinds[r.final_index] is Kind.OI
                                              else 2.0 if r.step_correct else self.paper.mismatch) for r in results]
        checks.append(("paper_reward", marks(self.paper), paper_full))
        if config in ("trace", "sft"):
            checks.append(("whitebox_reward", marks(self.whitebox), [self.whitebox_full] * len(items)))
        elif config == "io":
            checks.append(("io_reward", marks(self.io), [1.0] * len(items)))
        elif config == "oi":
            checks.append(("oi_reward", marks(self.oi), [1.0] * len(items)))
        failures = []
        for i, row in enumerate(items):
            why = []
            result = results[i]
            if result is None or not all(result.correct) or not result.well_formed:
                why.append("the Scorer does not give every question right" if result is not None else "the Scorer cannot read the row")
            for name, scores, full in checks:
                if scores[i] != full[i]:
                    why.append(f"{name} {scores[i]} (full marks {full[i]})")
            if why:
                failures.append({"id": row["id"], "config": config, "why": "; ".join(why)})
        return failures

    def _codegen(self, items: list[dict]) -> list[dict]:
        scores = self.unit(prompts=[r["prompt"] for r in items], completions=[_codegen_completion(r["reference_solution"]) for r in items],
                           tests=[list(r["examples"]) + list(r["tests"]) for r in items],
                           entry_point=[r["entry_point"] for r in items])
        return [{"id": r["id"], "config": "codegen", "why": f"unit_test_reward {score} (full marks 1.0)"}
                for r, score in zip(items, scores) if score != 1.0]

    def close(self) -> None:
        """Stop the ``oi`` runner and the sandbox pool. Idempotent."""
        oi = getattr(self.scorer, "_oi", None)
        if oi is not None:
            oi.close()
        pool = getattr(self.unit, "_pool", None)
        if pool is not None:
            pool.close()

    def __enter__(self) -> Verifier:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
