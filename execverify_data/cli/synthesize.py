"""``execverify synthesize``: make programs, inputs and outputs with the programmatic generator."""

from __future__ import annotations

import json
from pathlib import Path

import click

from execverify_data.cli.common import IntRange, default_workers, workers_option, writable_folder


def _levels(text: str) -> tuple[int, ...]:
    """Read ``1-6``, ``2,4`` or ``3`` into a tuple of levels."""
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise ValueError("empty level")
        if "-" in part:
            lo, hi = (int(x) for x in part.split("-", 1))
            if lo > hi:
                raise ValueError(f"range {part} is backwards")
            out.extend(range(lo, hi + 1))
        else:
            out.append(int(part))
    if any(lv not in range(1, 7) for lv in out) or len(set(out)) != len(out):
        raise ValueError("levels are distinct numbers from 1 to 6")
    return tuple(out)


def _levels_option(ctx: click.Context, param: click.Parameter, text: str) -> tuple[int, ...]:
    try:
        return _levels(text)
    except ValueError as exc:
        raise click.BadParameter(f"{text!r}: {exc}; write e.g. '1-6', '3' or '2,4'") from None


@click.command(name="synthesize")
@click.option("--n", "n", type=IntRange(min=1), required=True, help="Number of program rows.")
@click.option("--seed", type=IntRange(min=0), default=0, show_default=True, help="Global seed; row i depends on (seed, i) only.")
@click.option("--levels", "levels", default="1-6", show_default=True, callback=_levels_option,
              help="Levels in equal shares: '1-6', '3', '2,4'.")
@click.option("--inputs-per-program", "k", type=IntRange(min=3), default=3, show_default=True, help="Inputs kept per program (>= 3).")
@workers_option()
@click.option("--shard-size", type=IntRange(min=1), default=500, show_default=True,
              help="Rows per parquet shard (the unit of resume).")
@click.option("--tracer", type=click.Choice(["inprocess", "trusted"]), default="inprocess", show_default=True,
              help="Trace in the worker (fast) or in the trusted runner's fork pool (slower, isolated).")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Output folder (created; rerun to resume).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--json", "as_json", is_flag=True, help="Print the run's summary as one JSON object (progress goes to stderr).")
def synthesize(n: int, seed: int, levels: tuple[int, ...], k: int, workers: int | None, shard_size: int, tracer: str,
               out: Path, quiet: bool, as_json: bool) -> None:
    """Synthesize N programs with inputs and outputs into parquet shards under OUT.

    Programs meet their level's constraints by construction (checked by the
    constraint checker), run under a step budget, are deterministic and
    non-trivial, and are deduplicated by normalized AST. Killing the command and
    running it again resumes: finished shards are kept. Output bytes do not depend
    on --workers.

    \b
    Example:
        execverify synthesize --n 1200 --seed 0 --levels 1-6 --out data/synth
    """
    from execverify_data.errors import InvalidArgument
    from execverify_data.pipeline import SynthConfig
    from execverify_data.pipeline import synthesize as run

    writable_folder(out, flag="--out")
    workers = workers if workers is not None else default_workers()
    try:
        config = SynthConfig(n=n, seed=seed, levels=levels, k=k, shard_size=shard_size, tracer=tracer)
    except InvalidArgument as exc:
        raise click.UsageError(str(exc)) from None

    bar = None
    if not quiet:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        bar = Progress(TextColumn("synthesize"), BarColumn(), MofNCompleteColumn(), TextColumn("programs"),
                       TimeElapsedColumn(), TimeRemainingColumn(), transient=False, console=Console(stderr=as_json))
        task = bar.add_task("programs", total=n)

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.update(task, completed=done)

    try:
        if bar is not None:
            with bar:
                summary = run(config, out, workers=workers, progress=progress)
        else:
            summary = run(config, out, workers=workers, progress=progress)
    except InvalidArgument as exc:  # e.g. OUT holds a run with other settings
        raise click.UsageError(str(exc)) from None
    if as_json:
        click.echo(json.dumps({"out": str(out), **summary}, sort_keys=True))
        return
    cov = summary["catalog_coverage"]
    click.echo(
        f"{summary['accepted']} programs in {summary['shards']} shard(s) under {out} ({summary['rows']} rows tried); "
        f"acceptance {summary['acceptance_rate']}, catalog coverage {cov['entries_used']}/{cov['entries_total']}, "
        f"structural uniqueness {summary['structural_uniqueness']}, "
        f"{summary['throughput']['accepted_per_second']} programs/s this run"
    )
