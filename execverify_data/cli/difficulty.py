"""``execverify difficulty``: heuristic features and the model-based pass-rate filter over a file of rows."""

from __future__ import annotations

import json
from pathlib import Path

import click

from execverify_data.errors import ExecVerifyError


def _read_rows(path: Path) -> list[dict]:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    rows = []
    with path.open("r", encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError as exc:
                    raise click.ClickException(f"{path} line {number}: not JSON ({exc})") from None
    return rows


@click.command(name="difficulty")
@click.argument("rows_file", metavar="ROWS.jsonl|ROWS.parquet", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Output JSONL (rows with difficulty columns).")
@click.option("--solver", default=None, help="Weak solver: transformers:PATH, vllm:PATH or openai:URL#MODEL. Without it only heuristic features are added.")
@click.option("--strong-solver", default=None, help="Strong solver (same forms); rows it never solves are dropped.")
@click.option("--samples", default=10, show_default=True, type=int, help="Weak-solver samples per row.")
@click.option("--keep-max-pass", default=3, show_default=True, type=int, help="Keep rows the weak solver passes at most this many times.")
@click.option("--temperature", default=1.0, show_default=True, type=float, help="Weak-solver temperature.")
@click.option("--strong-samples", default=1, show_default=True, type=int)
@click.option("--max-new-tokens", default=512, show_default=True, type=int)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--keep-all", is_flag=True, help="Write every row with its verdict instead of only the kept ones.")
def difficulty(rows_file: Path, out: Path, solver, strong_solver, samples, keep_max_pass, temperature, strong_samples,
               max_new_tokens, seed, keep_all) -> None:
    """Add difficulty features, score and bucket to ROWS (fields `code`, `call` or `verification`),
    and, with --solver, filter them by the weak/strong solvers' pass counts.

    \b
    Example:
      execverify difficulty rows.jsonl --out hard.jsonl --solver transformers:Qwen/Qwen2.5-Coder-0.5B-Instruct \\
          --samples 10 --keep-max-pass 3 --strong-solver openai:http://localhost:8000/v1#Qwen2.5-Coder-32B
    """
    from execverify_data import difficulty as dif
    from execverify_data.trace import trace_call

    try:
        rows = _read_rows(rows_file)
        for row in rows:
            code = row.get("code") or row.get("program")
            call = row.get("call")
            if code and call and "difficulty" not in row:
                feats = dif.features(code, trace_call(code, call))
                row.update(feats)
                row["difficulty"] = dif.heuristic_score(feats)
                row["bucket"] = dif.bucket(row["difficulty"])
        kept = rows
        if solver:
            missing = [i for i, r in enumerate(rows) if "prompt" not in r or "verification" not in r]
            if missing:
                raise click.ClickException(f"row {missing[0] + 1} has no 'prompt' and 'verification' (needed by --solver)")
            flt = dif.PassRateFilter(solver, strong_solver, samples=samples, keep_max_pass=keep_max_pass, temperature=temperature,
                                     strong_samples=strong_samples, max_new_tokens=max_new_tokens, seed=seed)
            verdicts = flt.evaluate([r["prompt"] for r in rows], [r["verification"] for r in rows])
            for row, v in zip(rows, verdicts):
                row.update(weak_passes=v.weak_passes, weak_samples=v.weak_samples, strong_passes=v.strong_passes, keep=v.keep)
            kept = rows if keep_all else [r for r in rows if r["keep"]]
    except ExecVerifyError as exc:
        raise click.ClickException(str(exc)) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        for row in kept:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    click.echo(f"{len(kept)} of {len(rows)} rows written to {out}")
