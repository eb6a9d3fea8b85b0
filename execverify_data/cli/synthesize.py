"""``execverify synthesize``: make programs, inputs and outputs with the programmatic generator."""

from __future__ import annotations

import os

import click


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


class _OneLineErrors(click.Command):
    """Report bad arguments as one line: ``Error: ...``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            if isinstance(exc, click.NoSuchOption) or isinstance(exc, click.BadParameter) or isinstance(exc, click.UsageError):
                raise click.ClickException(exc.format_message().replace("\n", " ")) from None
            raise


@click.command(name="synthesize", cls=_OneLineErrors)
@click.option("--n", "n", type=int, required=True, help="Number of program rows.")
@click.option("--seed", type=int, default=0, show_default=True, help="Global seed; row i depends on (seed, i) only.")
@click.option("--levels", "levels_text", default="1-6", show_default=True, help="Levels in equal shares: '1-6', '3', '2,4'.")
@click.option("--inputs-per-program", "k", type=int, default=3, show_default=True, help="Inputs kept per program (>= 3).")
@click.option("--workers", type=int, default=None, help="Worker processes [default: number of cores].")
@click.option("--shard-size", type=int, default=500, show_default=True, help="Rows per parquet shard (the unit of resume).")
@click.option("--tracer", type=click.Choice(["inprocess", "trusted"]), default="inprocess", show_default=True,
              help="Trace in the worker (fast) or in the trusted runner's fork pool (slower, isolated).")
@click.option("--out", "out", type=click.Path(file_okay=False), required=True, help="Output folder (created; rerun to resume).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def synthesize(n: int, seed: int, levels_text: str, k: int, workers: int | None, shard_size: int, tracer: str,
               out: str, quiet: bool) -> None:
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

    if n < 1:
        raise click.ClickException(f"--n must be at least 1, got {n}")
    if seed < 0:
        raise click.ClickException(f"--seed must be non-negative, got {seed}")
    try:
        levels = _levels(levels_text)
    except ValueError as exc:
        raise click.ClickException(f"--levels {levels_text!r}: {exc}; write e.g. '1-6', '3' or '2,4'") from None
    if k < 3:
        raise click.ClickException(f"--inputs-per-program must be at least 3, got {k}")
    workers = workers if workers is not None else (os.cpu_count() or 1)
    if workers < 1:
        raise click.ClickException(f"--workers must be at least 1, got {workers}")
    if shard_size < 1:
        raise click.ClickException(f"--shard-size must be at least 1, got {shard_size}")
    try:
        config = SynthConfig(n=n, seed=seed, levels=levels, k=k, shard_size=shard_size, tracer=tracer)
    except InvalidArgument as exc:
        raise click.ClickException(str(exc)) from None

    if quiet:
        def progress(done: int, total: int) -> None:
            pass
        bar = None
    else:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        bar = Progress(TextColumn("synthesize"), BarColumn(), MofNCompleteColumn(), TextColumn("programs"),
                       TimeElapsedColumn(), TimeRemainingColumn(), transient=False)
        task = bar.add_task("programs", total=n)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done)

    try:
        if bar is not None:
            with bar:
                summary = run(config, out, workers=workers, progress=progress)
        else:
            summary = run(config, out, workers=workers, progress=progress)
    except InvalidArgument as exc:
        raise click.ClickException(str(exc)) from None
    cov = summary["catalog_coverage"]
    click.echo(
        f"{summary['accepted']} programs in {summary['shards']} shard(s) under {out} ({summary['rows']} rows tried); "
        f"acceptance {summary['acceptance_rate']}, catalog coverage {cov['entries_used']}/{cov['entries_total']}, "
        f"structural uniqueness {summary['structural_uniqueness']}, "
        f"{summary['throughput']['accepted_per_second']} programs/s this run"
    )
