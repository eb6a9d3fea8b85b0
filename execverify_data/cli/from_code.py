"""``execverify from-code``: any Python functions become records (inputs, outputs, traces)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from execverify_data.cli.common import IntRange, default_workers, one_line, workers_option, writable_folder


@click.command(name="from-code")
@click.argument("source", required=False, type=click.Path(path_type=Path))
@click.option("--package", "package", metavar="NAME", default=None,
              help="Use the public functions of an installed pure-Python package or standard-library module NAME "
                   "(textwrap, colorsys, more_itertools) as SOURCE; rows record its version and license.")
@click.option("--humaneval", is_flag=True,
              help="Use the shipped HumanEval (164 problems) as SOURCE, seed inputs from its tests' assertions.")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Output folder of record shards (created; rerun to resume).")
@click.option("--seed", type=IntRange(min=0), default=0, show_default=True, help="Global seed; function i depends on (seed, i) only.")
@click.option("--inputs-per-function", "k", type=IntRange(min=1), default=5, show_default=True,
              help="Inputs wanted per function (more when covering every decision needs more, up to --max-inputs).")
@click.option("--min-inputs", type=IntRange(min=1), default=3, show_default=True, help="Fewest inputs a kept function has.")
@click.option("--max-inputs", "k_max", type=IntRange(min=1), default=8, show_default=True, help="Most inputs a kept function has.")
@click.option("--max-steps", type=IntRange(min=1), default=5000, show_default=True, help="Line events allowed per call.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=5.0, show_default=True, help="Seconds allowed per call.")
@click.option("--time-per-function", "function_seconds", type=click.FloatRange(min=0, min_open=True), default=10.0,
              show_default=True, help="Seconds the whole conversion of one function may take; past it, it is given up (time_cap).")
@click.option("--allow-benchmark", "allow", multiple=True, metavar="NAME",
              help="Do not decontaminate against benchmark NAME (cruxeval, humaneval): for when NAME is the input. Repeatable.")
@workers_option()
@click.option("--shard-size", type=IntRange(min=1), default=200, show_default=True, help="Functions per parquet shard (the unit of resume).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--json", "as_json", is_flag=True, help="Print the run's summary as one JSON object (progress goes to stderr).")
def from_code(source: Path | None, package: str | None, humaneval: bool, out: Path, seed: int, k: int, min_inputs: int, k_max: int, max_steps: int,
              timeout: float, function_seconds: float, allow: tuple[str, ...], workers: int | None, shard_size: int, quiet: bool, as_json: bool) -> None:
    """Turn the functions of SOURCE into records under OUT, as `synthesize` writes them.

    SOURCE is a JSONL file of {"code", "entry_point", "inputs"?} objects ("inputs": argument
    texts such as "[1, 2], 3", e.g. from a benchmark's tests) or a folder of .py files (every
    top-level function). Types come from annotations, seed inputs or the body's use of each
    parameter; inputs are the seeds, their mutations and fresh draws, chosen to take every
    branch both ways where they can. Every run is in the untrusted sandbox (a confined child per
    call; the trace is built here from what it streams); functions that read files, import outside
    the standard library or reach the interpreter's frames, nondeterministic and benchmark
    functions are dropped with a reason.
    `execverify build-release --programs OUT` builds a release from the records.

    \b
    Examples:
        execverify from-code functions.jsonl --out data/fromcode
        execverify from-code --humaneval --allow-benchmark humaneval --out data/humaneval
        execverify from-code --package textwrap --out data/textwrap
    """
    from execverify_data.decontam import default_sources
    from execverify_data.errors import InvalidArgument
    from execverify_data.fromcode import FromCodeConfig, FromCodeError, humaneval_functions, load, load_package
    from execverify_data.fromcode import from_code as run

    if sum((source is not None, humaneval, package is not None)) != 1:
        raise click.UsageError("give one of SOURCE (a JSONL file or a folder of .py files), --package NAME or --humaneval")
    known = set(default_sources())
    unknown = sorted(set(allow) - known)
    if unknown:
        raise click.BadParameter(f"unknown benchmark {', '.join(unknown)}; choose among {', '.join(sorted(known))}",
                                 param_hint=["--allow-benchmark"])
    if not min_inputs <= k <= k_max:
        raise click.UsageError(f"need --min-inputs <= --inputs-per-function <= --max-inputs, got {min_inputs}, {k}, {k_max}")
    writable_folder(out, flag="--out")
    config = FromCodeConfig(seed=seed, k=k, min_inputs=min_inputs, k_max=k_max, max_steps=max_steps, timeout=timeout,
                            function_seconds=function_seconds, shard_size=shard_size, allow_benchmarks=allow)
    try:
        functions = humaneval_functions() if humaneval else load_package(package) if package else load(source)
    except FromCodeError as exc:
        raise click.BadParameter(one_line(exc), param_hint=["SOURCE"]) from None

    bar = None
    if not quiet:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        bar = Progress(TextColumn("from-code"), BarColumn(), MofNCompleteColumn(), TextColumn("functions"),
                       TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=as_json))
        task = bar.add_task("functions", total=len(functions))

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.update(task, completed=done)

    workers = workers if workers is not None else default_workers()
    try:
        if bar is not None:
            with bar:
                summary = run(functions, out, config=config, workers=workers, progress=progress)
        else:
            summary = run(functions, out, config=config, workers=workers, progress=progress)
    except InvalidArgument as exc:  # e.g. OUT holds a run of other functions or settings
        raise click.UsageError(one_line(exc)) from None
    if as_json:
        click.echo(json.dumps({"out": str(out), **summary}, sort_keys=True))
        return
    fc = summary["from_code"]
    skipped = ", ".join(f"{name} {count}" for name, count in sorted(summary["rejected"].items(), key=lambda x: (-x[1], x[0]))
                        if not name.startswith("input_"))
    cov = fc["branch_coverage"]
    made = (f"({fc['inputs_per_row_mean']} inputs each on average; {fc['inputs']['seed']} seed, "
            f"{fc['inputs']['generated']} generated; branch coverage mean {cov['mean']}, full on "
            f"{cov['full']}/{cov['rows_with_branches']}); " if fc["rows"] else "(no rows: the reasons are below); ")
    click.echo(f"{fc['rows']} of {fc['functions']} functions became rows under {out} {made}"
               f"skipped: {skipped or 'none'} (summary.json; each one in rejected.jsonl)")
