"""``execverify score``: score a file of completions against a file of questions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from execverify_data.cli.common import one_line, read_rows
from execverify_data.errors import ExecVerifyError


def _verification(row: Any, number: int, path: Path) -> Any:
    if isinstance(row, dict) and "verification" in row:
        return row["verification"]
    raise click.BadParameter(f"{path} row {number}: no 'verification' field (write it with `execverify questions --json`)",
                             param_hint=["QUESTIONS.jsonl"])


def _completion(row: Any, number: int, path: Path) -> Any:
    if isinstance(row, (str, list)):
        return row
    if isinstance(row, dict):
        for key in ("completion", "response", "output", "text"):
            if key in row:
                return row[key]
    raise click.BadParameter(f"{path} row {number}: expected a JSON string or an object with a 'completion' field",
                             param_hint=["COMPLETIONS.jsonl"])


@click.command(name="score")
@click.argument("questions_file", metavar="QUESTIONS.jsonl", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("completions_file", metavar="COMPLETIONS.jsonl", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option("--per-row", is_flag=True, help="Also list every row's verdicts (in the JSON output: a 'per_row' list).")
def score(questions_file: Path, completions_file: Path, as_json: bool, per_row: bool) -> None:
    """Score COMPLETIONS.jsonl against QUESTIONS.jsonl and print per-kind accuracy.

    QUESTIONS.jsonl holds objects with a "verification" field (the output of
    `execverify questions --json`, or a release's parquet file of a config
    such as trace or io). Either file may be JSONL or parquet.
    COMPLETIONS.jsonl holds, on the same row numbers, a JSON string, a list of chat messages, or an object with a
    "completion" field. Every answer is decided by execverify_data.values.same;
    oi answers are run in the trusted runner.

    \b
    Example:
        execverify score q.jsonl completions.jsonl --json
        execverify score q.jsonl completions.jsonl --per-row
    """
    from execverify_data.questions import Scorer
    from execverify_data.rewards import WhiteboxReward

    question_rows = read_rows(questions_file, flag="QUESTIONS.jsonl")
    completion_rows = read_rows(completions_file, flag="COMPLETIONS.jsonl")
    if len(question_rows) != len(completion_rows):
        raise click.UsageError(
            f"{questions_file} has {len(question_rows)} rows but {completions_file} has {len(completion_rows)}; they are matched by row"
        )
    verifications = [_verification(row, n, questions_file) for n, row in enumerate(question_rows, 1)]
    completions = [_completion(row, n, completions_file) for n, row in enumerate(completion_rows, 1)]
    scorer = Scorer()
    try:
        results = scorer.score_batch(verifications, completions)
    except ExecVerifyError as exc:
        raise click.UsageError(one_line(exc)) from None
    finally:
        scorer.close()
    whitebox = WhiteboxReward(scorer=scorer)
    per_kind: dict[str, list[int]] = {}
    rewards, well_formed, rows = [], 0, []
    for number, result in enumerate(results, 1):
        if result is None:
            rows.append({"row": number, "scored": False})
            continue
        for kind, ok in zip(result.kinds, result.correct):
            counts = per_kind.setdefault(kind.value, [0, 0])
            counts[0] += 1
            counts[1] += int(ok)
        well_formed += int(result.well_formed)
        reward = whitebox.reward(result)
        if reward is not None:
            rewards.append(reward)
        rows.append({"row": number, "scored": True, "kinds": [k.value for k in result.kinds], "correct": list(result.correct),
                     "well_formed": result.well_formed, "whitebox_reward": reward})
    scored = sum(1 for r in results if r is not None)
    summary = {
        "rows": scored,
        "per_kind": {
            kind: {"questions": n, "correct": c, "accuracy": c / n if n else 0.0}
            for kind, (n, c) in sorted(per_kind.items(), key=lambda item: _KIND_ORDER.get(item[0], 9))
        },
        "well_formed": well_formed / scored if scored else 0.0,
        "whitebox_reward_mean": sum(rewards) / len(rewards) if rewards else None,
    }
    if per_row:
        summary["per_row"] = rows
    if as_json:
        click.echo(json.dumps(summary))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{scored} completions")
    for column in ("kind", "questions", "correct", "accuracy"):
        table.add_column(column, justify="left" if column == "kind" else "right")
    for kind, stats in summary["per_kind"].items():
        table.add_row(kind, str(stats["questions"]), str(stats["correct"]), f"{stats['accuracy']:.3f}")
    console = Console(highlight=False)
    if per_row:
        console.print(_row_table(rows))
    console.print(table)
    console.print(f"well-formed answer blocks: {summary['well_formed']:.3f}", markup=False)
    if summary["whitebox_reward_mean"] is not None:
        console.print(f"mean whitebox reward (0 to 2): {summary['whitebox_reward_mean']:.3f}", markup=False)


def _row_table(rows: list[dict]):
    from rich.table import Table
    from rich.text import Text

    table = Table(title="per row")
    for column in ("row", "correct", "verdicts", "reward"):
        table.add_column(column, justify="left" if column == "verdicts" else "right")
    for row in rows:
        if not row["scored"]:
            table.add_row(str(row["row"]), "-", "not scored (no questions)", "-")
            continue
        verdicts = " ".join(f"{kind}:{'ok' if ok else 'wrong'}" for kind, ok in zip(row["kinds"], row["correct"]))
        if not row["well_formed"]:
            verdicts += " (no answer block)"
        reward = "-" if row["whitebox_reward"] is None else f"{row['whitebox_reward']:.3f}"
        table.add_row(str(row["row"]), f"{sum(row['correct'])}/{len(row['correct'])}", Text(verdicts), reward)
    return table


_KIND_ORDER = {"io": 0, "oi": 1, "path": 2, "state": 3, "coverage": 4}
