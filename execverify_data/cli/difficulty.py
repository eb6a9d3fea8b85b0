"""``execverify difficulty``: heuristic features and the model-based pass-rate filter over a file of rows."""

from __future__ import annotations

import json
from pathlib import Path

import click

from execverify_data.cli.common import IntRange, one_line, read_jsonl, require_backend_extra, writable_file
from execverify_data.errors import ExecVerifyError

_ROWS = ["ROWS"]


def _read_rows(path: Path) -> list[dict]:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            return pq.read_table(path).to_pylist()
        except Exception as exc:  # pyarrow raises its own ArrowInvalid for a file that is not parquet
            raise click.BadParameter(f"{path} is not a readable parquet file ({one_line(exc)[:200]})", param_hint=_ROWS) from None
    rows = read_jsonl(path, flag=_ROWS[0])
    for number, row in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise click.BadParameter(f"{path} row {number}: expected a JSON object, got {type(row).__name__}", param_hint=_ROWS)
    return rows


def _filter(solver: str, strong_solver: str | None, **settings):
    """Load the solvers (before any row is rated), with their failures in one line."""
    from execverify_data import difficulty as dif
    from execverify_data.models import BackendSpecError

    for spec, flag in ((solver, "--solver"), (strong_solver, "--strong-solver")):
        if spec is not None:
            require_backend_extra(spec, needed_by=flag)
    try:
        return dif.PassRateFilter(solver, strong_solver, **settings)
    except BackendSpecError as exc:
        raise click.BadParameter(one_line(exc), param_hint=["--solver", "--strong-solver"]) from None
    except OSError as exc:  # transformers: not a local folder and not downloadable (offline, private, misspelled)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise click.ClickException(
            f"cannot load a solver model ({first[:200]}); give a local model folder, or go online for a Hub id"
        ) from None


@click.command(name="difficulty")
@click.argument("rows_file", metavar="ROWS.jsonl|ROWS.parquet", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Output JSONL (rows with difficulty columns).")
@click.option("--solver", default=None, help="Weak solver: transformers:PATH, vllm:PATH or openai:URL#MODEL. Without it only heuristic features are added.")
@click.option("--strong-solver", default=None, help="Strong solver (same forms); rows it never solves are dropped.")
@click.option("--samples", default=10, show_default=True, type=IntRange(min=1), help="Weak-solver samples per row.")
@click.option("--keep-max-pass", default=3, show_default=True, type=IntRange(min=0),
              help="Keep rows the weak solver passes at most this many times.")
@click.option("--temperature", default=1.0, show_default=True, type=click.FloatRange(min=0), help="Weak-solver temperature.")
@click.option("--strong-samples", default=1, show_default=True, type=IntRange(min=1), help="Strong-solver samples per row.")
@click.option("--max-new-tokens", default=512, show_default=True, type=IntRange(min=1), help="Longest completion, in tokens.")
@click.option("--seed", default=0, show_default=True, type=IntRange(min=0), help="Sampling seed.")
@click.option("--keep-all", is_flag=True, help="Write every row with its verdict instead of only the kept ones.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
def difficulty(rows_file: Path, out: Path, solver, strong_solver, samples, keep_max_pass, temperature, strong_samples,
               max_new_tokens, seed, keep_all, as_json) -> None:
    """Add difficulty features, score and bucket to ROWS (fields `code`, `call` or `verification`),
    and, with --solver, filter them by the weak/strong solvers' pass counts.

    \b
    Example:
      execverify difficulty rows.jsonl --out hard.jsonl --solver transformers:Qwen/Qwen2.5-Coder-0.5B-Instruct \\
          --samples 10 --keep-max-pass 3 --strong-solver openai:http://localhost:8000/v1#Qwen2.5-Coder-32B
    """
    from execverify_data import difficulty as dif
    from execverify_data.trace import trace_call
    from execverify_data.shards import write_atomic

    if keep_max_pass > samples:
        raise click.BadParameter(f"{keep_max_pass} is more than --samples {samples}: every row would be kept",
                                 param_hint=["--keep-max-pass"])
    if strong_solver and not solver:
        raise click.UsageError("--strong-solver needs --solver (the weak solver decides which rows it sees)")
    writable_file(out, flag="--out")
    rows = _read_rows(rows_file)
    if solver:
        missing = [i for i, r in enumerate(rows) if "prompt" not in r or "verification" not in r]
        if missing:
            raise click.BadParameter(f"row {missing[0] + 1} has no 'prompt' and 'verification' (needed by --solver)", param_hint=_ROWS)
        flt = _filter(solver, strong_solver, samples=samples, keep_max_pass=keep_max_pass, temperature=temperature,
                      strong_samples=strong_samples, max_new_tokens=max_new_tokens, seed=seed)
    for number, row in enumerate(rows, 1):
        code = row.get("code") or row.get("program")
        call = row.get("call")
        if code and call and "difficulty" not in row:
            try:
                feats = dif.features(code, trace_call(code, call))
            except ExecVerifyError as exc:
                raise click.BadParameter(f"row {number}: {one_line(exc)}", param_hint=_ROWS) from None
            row.update(feats)
            row["difficulty"] = dif.heuristic_score(feats)
            row["bucket"] = dif.bucket(row["difficulty"])
    kept = rows
    if solver:
        verdicts = flt.evaluate([r["prompt"] for r in rows], [r["verification"] for r in rows])
        for row, v in zip(rows, verdicts):
            row.update(weak_passes=v.weak_passes, weak_samples=v.weak_samples, strong_passes=v.strong_passes, keep=v.keep)
        kept = rows if keep_all else [r for r in rows if r["keep"]]
    out.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in kept)
    write_atomic(out, lambda p: p.write_text(text, encoding="utf-8"))
    if as_json:
        click.echo(json.dumps({"rows": len(rows), "written": len(kept), "out": str(out), "solver": solver,
                               "strong_solver": strong_solver, "kept": sum(1 for r in rows if r.get("keep")) if solver else None}))
    else:
        click.echo(f"{len(kept)} of {len(rows)} rows written to {out}")
