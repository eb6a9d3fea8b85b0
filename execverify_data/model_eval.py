"""Evaluate a saved model with lm-eval tasks and write the scores into its model card.

The training recipes call :func:`evaluate_saved_model` after a stage when ``--eval_tasks`` is
set (``docs/training.md``). lm-eval runs in a fresh process (``execverify-lm-eval``, so the
``execverify_*`` tasks are included) on the saved folder, without the launcher's distributed
environment, so it loads the model as any user would; its results file is kept as
``eval_results.json`` beside the model, and the card's Evaluation section becomes a table of
those scores with the command that produced them.

>>> print(score_rows({"results": {"execverify_cruxeval_o": {"alias": "execverify_cruxeval_o",
...     "acc,none": 0.5, "acc_stderr,none": 0.1}}, "n-samples": {"execverify_cruxeval_o": {"effective": 4}}}))
| execverify_cruxeval_o | acc | 0.5000 | 0.1000 | 4 |
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from execverify_data.errors import ExecVerifyError

__all__ = ["EVAL_RESULTS_FILE", "EvaluationFailed", "evaluate_saved_model", "score_rows", "write_eval_section"]

#: File beside an evaluated model holding lm-eval's results (its own JSON, unchanged).
EVAL_RESULTS_FILE = "eval_results.json"
#: Environment a launcher sets for its ranks; the evaluation process must not inherit them (lm-eval would
#: join a process group of WORLD_SIZE ranks that no longer exist).
_LAUNCH_ENV = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "ROLE_RANK", "ROLE_WORLD_SIZE",
               "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT",
               "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_USE_AGENT_STORE")
_EVAL_HEADING = "## Evaluation"


class EvaluationFailed(ExecVerifyError, RuntimeError):
    """The lm-eval process ended without results (its own output, printed as it ran, says why)."""


def _command(output_dir: Path, tasks: str, limit: float | None, batch_size: str) -> list[str]:
    command = ["execverify-lm-eval", "--model", "hf", "--model_args", f"pretrained={output_dir}", "--tasks", tasks,
               "--batch_size", str(batch_size)]
    return command + (["--limit", f"{limit:g}"] if limit is not None else [])


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in _LAUNCH_ENV and not k.startswith("ACCELERATE_")}


def evaluate_saved_model(output_dir: str | os.PathLike[str], tasks: str | Sequence[str], *, limit: float | None = None,
                         batch_size: str | int = 1, timeout: float | None = None) -> dict[str, Any]:
    """Run lm-eval's ``tasks`` on the model saved in ``output_dir``; write :data:`EVAL_RESULTS_FILE` and the card's
    Evaluation section (:func:`write_eval_section`); return lm-eval's results mapping.

    ``limit`` is lm-eval's ``--limit`` (docs per task, or a fraction): for a dry run only, and the card says so.

    Raises:
        EvaluationFailed: lm-eval exited with an error or wrote no results (the message ends with its last lines).
    """
    output_dir = Path(output_dir)
    names = tasks if isinstance(tasks, str) else ",".join(tasks)
    results_dir = output_dir / "_eval"
    command = _command(output_dir, names, limit, str(batch_size))
    argv = [sys.executable, "-m", "execverify_data.lm_eval_cli", *command[1:], "--output_path", str(results_dir)]
    shutil.rmtree(results_dir, ignore_errors=True)  # a results file left by an earlier run is not this run's
    done = subprocess.run(argv, check=False, env=_clean_env(), timeout=timeout)  # its progress shows as it runs
    found = sorted(results_dir.rglob("results_*.json"), key=lambda p: p.stat().st_mtime)
    if done.returncode != 0 or not found:
        raise EvaluationFailed(f"lm-eval on {output_dir} exited with status {done.returncode} (its output is above)")
    results = json.loads(found[-1].read_text(encoding="utf-8"))
    (output_dir / EVAL_RESULTS_FILE).write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
    shutil.rmtree(results_dir, ignore_errors=True)
    write_eval_section(output_dir / "README.md", results, shlex.join(command), limit=limit)
    return results


def score_rows(results: Mapping[str, Any]) -> str:
    """Markdown rows ``| task | metric | value | stderr | docs |`` of lm-eval's results mapping, one per metric."""
    rows = []
    samples = results.get("n-samples", {})
    for task, metrics in sorted(results.get("results", {}).items()):
        n = samples.get(task, {}).get("effective", "")
        for key, value in metrics.items():
            metric, _, _filter = key.partition(",")
            if metric in ("alias", "sample_len") or metric.endswith("_stderr") or not isinstance(value, (int, float)):
                continue
            stderr = metrics.get(f"{metric}_stderr,{_filter}")
            err = f"{stderr:.4f}" if isinstance(stderr, (int, float)) else ""
            rows.append(f"| {task} | {metric} | {value:.4f} | {err} | {n} |")
    return "\n".join(rows)


def write_eval_section(card: str | os.PathLike[str], results: Mapping[str, Any], command: str, *,
                       limit: float | None = None) -> None:
    """Replace the ``## Evaluation`` section of the model card at ``card`` with the scores and the command."""
    card = Path(card)
    text = card.read_text(encoding="utf-8")
    start = text.find(_EVAL_HEADING)
    if start < 0:
        raise ExecVerifyError(f"{card} has no '{_EVAL_HEADING}' section to fill")
    end = text.find("\n## ", start + len(_EVAL_HEADING))
    end = len(text) if end < 0 else end + 1
    caveat = (f"\n\nA dry run: each task scored on at most {limit:g} docs (`--limit`), so these are no measure of the "
              "model." if limit is not None else "")
    section = (f"{_EVAL_HEADING}\n\nScored by lm-eval on the saved model after training ({EVAL_RESULTS_FILE} holds "
               f"lm-eval's full results):{caveat}\n\n| task | metric | value | stderr | docs |\n| --- | --- | --- | --- | --- |\n"
               f"{score_rows(results)}\n\n```bash\n{command}\n```\n\n")
    card.write_text(text[:start] + section + text[end:], encoding="utf-8")
