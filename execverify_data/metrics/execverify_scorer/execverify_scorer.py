"""``execverify_scorer``: the execverify_data scorer as a Hugging Face ``evaluate`` metric.

The same verdicts as the lm-eval tasks, the TRL rewards and the released dataset: each
prediction (a completion) is scored against its reference (a ``verification`` object, dict
or JSON string, as ``execverify_data.questions.render`` makes it and the dataset stores it)
by :class:`execverify_data.questions.Scorer`.

>>> import evaluate
>>> from execverify_data.metrics import scorer_path
>>> from execverify_data.questions import build
>>> r = build("def f(x):\\n    return [x] * 2\\n", "f('a')", n_path=1, n_state=0)
>>> metric = evaluate.load(scorer_path())
>>> metric.compute(predictions=[r.reference_completion, "<answer>\\n['a']\\n3\\n</answer>"],
...                references=[json.dumps(r.verification)] * 2)
{'accuracy': 0.5, 'question_accuracy': 0.5, 'final_accuracy': 0.5, 'well_formed': 1.0}
"""

from __future__ import annotations

import json

import datasets
import evaluate

_CITATION = """\
@misc{tang2026execverify,
  title         = {ExecVerify: White-Box RL with Verifiable Stepwise Rewards for Code Execution Reasoning},
  author        = {Tang, Lingxiao and Ye, He and Chu, Zhaoyang and Ye, Muyang and Liu, Zhongxin and Ren, Xiaoxue and Bao, Lingfeng},
  year          = {2026},
  eprint        = {2603.11226},
  archivePrefix = {arXiv},
  primaryClass  = {cs.SE},
  url           = {https://arxiv.org/abs/2603.11226}
}
"""

_DESCRIPTION = """\
Scores completions against execverify verification objects with the project's single scorer
(execverify_data.questions.Scorer): io, oi (run in the trusted runner), path, state and
coverage questions, every value compared by execverify_data.values.same.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list[str]`): completions (the text a model wrote).
    references (`list[str]`): the `verification` object of each row, as a JSON string.
Returns:
    accuracy (`float`): fraction of rows with every question right.
    question_accuracy (`float`): mean over rows of the fraction of questions right.
    final_accuracy (`float`): fraction right among rows that ask an io/oi question (0.0 if none).
    well_formed (`float`): fraction of rows whose answer block has one readable answer per question.
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ExecverifyScorer(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            homepage="https://arxiv.org/abs/2603.11226",
        )

    def _compute(self, predictions, references):
        from execverify_data.questions import Scorer

        verifications = [r if not isinstance(r, str) else json.loads(r) for r in references]
        results = Scorer().score_batch(verifications, list(predictions))
        n = len(results)
        if n == 0:
            return {"accuracy": 0.0, "question_accuracy": 0.0, "final_accuracy": 0.0, "well_formed": 0.0}
        finals = [r.final_correct for r in results if r.final_correct is not None]
        return {
            "accuracy": sum(all(r.correct) for r in results) / n,
            "question_accuracy": sum(sum(r.correct) / len(r.correct) for r in results) / n,
            "final_accuracy": sum(finals) / len(finals) if finals else 0.0,
            "well_formed": sum(r.well_formed for r in results) / n,
        }
