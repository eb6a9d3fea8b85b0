"""``execverify synthesize``: make programs, inputs and outputs with the programmatic generator,
an LLM-backed one (``--generator llm:SPEC``), or a mix of them by share."""

from __future__ import annotations

import json
from pathlib import Path

import click

from execverify_data.cli.common import (
    IntRange,
    default_workers,
    one_line,
    require_backend_extra,
    workers_option,
    writable_folder,
)

_LLM_OPTIONS = ("llm_samples", "llm_temperature", "llm_max_new_tokens", "llm_prompt")
_LOCAL_BACKENDS = ("transformers", "vllm")


def parse_levels(text: str) -> tuple[int, ...]:
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
        return parse_levels(text)
    except ValueError as exc:
        raise click.BadParameter(f"{text!r}: {exc}; write e.g. '1-6', '3' or '2,4'") from None


def _generators(names: tuple[str, ...], shares: tuple[float, ...]) -> tuple[tuple[str, float], ...]:
    """``--generator`` and ``--share`` paired in order: known names, one share each, summing to 1."""
    names = names or ("program",)
    for name in names:
        if name != "program" and not name.startswith("llm:"):
            raise click.BadParameter(
                f"{name!r} is not a generator; write 'program' or 'llm:BACKEND_SPEC' "
                "(llm:transformers:PATH, llm:vllm:PATH or llm:openai:URL#MODEL)", param_hint=["--generator"])
    if len(names) == 1 and not shares:
        return ((names[0], 1.0),)
    example = "(e.g. --generator program --share 0.8 --generator llm:openai:URL#MODEL --share 0.2)"
    if len(shares) != len(names):
        raise click.BadParameter(
            f"{len(names)} --generator and {len(shares)} --share: give one --share per --generator, in the same order "
            + example, param_hint=["--share"])
    if len(set(names)) != len(names):
        raise click.BadParameter(f"each generator is given once, got {', '.join(names)}", param_hint=["--generator"])
    if abs(sum(shares) - 1) > 1e-9:
        raise click.BadParameter(
            f"the shares sum to {sum(shares):g} ({' + '.join(f'{s:g}' for s in shares)}); they must sum to 1 "
            + example, param_hint=["--share"])
    return tuple(zip(names, shares))


def _check_backends(specs: tuple[str, ...]) -> None:
    """Before any work: each backend's extra is installed, and an OpenAI-compatible server answers."""
    from execverify_data.models import BackendError, BackendSpecError, get_backend

    for spec in specs:
        require_backend_extra(spec, needed_by="--generator", prefix="llm:")
        backend, _, target = spec.partition(":")
        if backend in _LOCAL_BACKENDS and target.startswith(("/", "./", "../", "~")) \
                and not Path(target).expanduser().is_dir():
            raise click.BadParameter(f"llm:{spec}: no model folder at {target}; give a folder that "
                                     "from_pretrained loads, or a Hub id (ORG/NAME)", param_hint=["--generator"])
        if spec.partition(":")[0] != "openai":
            continue  # a local model loads in the worker that uses it (once per process), not twice
        try:
            server = get_backend(spec, max_retries=1, backoff=0.5, timeout=30)
            served = server.served_models()
        except (BackendError, BackendSpecError) as exc:
            raise click.ClickException(f"--generator llm:{spec}: {one_line(exc)}") from None
        if server.model is not None and server.model not in served:
            raise click.BadParameter(f"the server at {server.base_url} serves {served}, not {server.model!r}; "
                                     f"write llm:openai:{server.base_url}#NAME with one of them", param_hint=["--generator"])


@click.command(name="synthesize")
@click.option("--n-programs", "--n", "n", type=IntRange(min=1), required=True, help="Distinct programs the run keeps.")
@click.option("--seed", type=IntRange(min=0), default=0, show_default=True, help="Global seed; row i depends on (seed, i) only.")
@click.option("--levels", "levels", default="1-6", show_default=True, callback=_levels_option,
              help="Levels in equal shares: '1-6', '3', '2,4'.")
@click.option("--inputs-per-program", "k", type=IntRange(min=3), default=3, show_default=True, help="Inputs kept per program (>= 3).")
@workers_option()
@click.option("--shard-size", type=IntRange(min=1), default=500, show_default=True,
              help="Rows per parquet shard (the unit of resume).")
@click.option("--tracer", type=click.Choice(["inprocess", "trusted", "sandbox"]), default="inprocess", show_default=True,
              help="Trace programmatic rows in the worker (fast), in the trusted runner's fork pool (slower, "
                   "limits only) or in the untrusted sandbox (confined); LLM rows are always traced in the sandbox.")
@click.option("--generator", "generator_names", multiple=True, metavar="program|llm:SPEC",
              help="Who writes the programs [default: program]: 'program' (the programmatic generator) or "
                   "'llm:SPEC' with the backend specs of `difficulty --solver` (llm:transformers:PATH, llm:vllm:PATH, "
                   "llm:openai:URL#MODEL). Repeat it, each with a --share, for a mix.")
@click.option("--share", "shares", multiple=True, type=click.FloatRange(min=0, max=1, min_open=True),
              help="The share of rows of each --generator, in the same order; the shares sum to 1. Row i's generator "
                   "depends on (seed, i) only.")
@click.option("--llm-samples", type=IntRange(min=1), default=4, show_default=True,
              help="LLM rows: completions asked per row (the first that passes the checker and filters is kept).")
@click.option("--llm-temperature", type=click.FloatRange(min=0), default=0.8, show_default=True,
              help="LLM rows: sampling temperature (0 is greedy).")
@click.option("--llm-max-new-tokens", type=IntRange(min=1), default=1024, show_default=True,
              help="LLM rows: longest completion, in tokens.")
@click.option("--llm-prompt", type=click.Choice(["chat", "completion"]), default="chat", show_default=True,
              help="LLM rows: chat messages (instruct models) or a plain prompt that opens a code block (base models).")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Output folder (created; rerun to resume).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--json", "as_json", is_flag=True, help="Print the run's summary as one JSON object (progress goes to stderr).")
@click.pass_context
def synthesize(ctx: click.Context, n: int, seed: int, levels: tuple[int, ...], k: int, workers: int | None,
               shard_size: int, tracer: str, generator_names: tuple[str, ...], shares: tuple[float, ...],
               llm_samples: int, llm_temperature: float, llm_max_new_tokens: int, llm_prompt: str,
               out: Path, quiet: bool, as_json: bool) -> None:
    """Synthesize N programs with inputs and outputs into parquet shards under OUT.

    Programs meet their level's constraints (checked by the constraint
    checker), run under a step budget, are deterministic and non-trivial, and
    are deduplicated by normalized AST. Killing the command and running it again
    resumes: finished shards are kept. Output bytes do not depend on --workers.

    With --generator llm:SPEC a model writes the programs from each row's
    constraint spec; its code goes through the same checker and filters, traced
    in the trusted runner, and summary.json counts what was rejected, per
    generator. A local model (transformers, vllm) loads once per worker
    process, and runs with one worker unless --workers says otherwise.

    \b
    Examples:
        execverify synthesize --n 1200 --seed 0 --levels 1-6 --out data/synth
        execverify synthesize --n 200 --generator llm:vllm:Qwen/Qwen2.5-Coder-7B-Instruct --out data/llm
        execverify synthesize --n 1000 --generator program --share 0.8 \\
            --generator llm:openai:http://127.0.0.1:8000/v1#Qwen/Qwen2.5-Coder-7B-Instruct --share 0.2 --out data/mix
    """
    from concurrent.futures.process import BrokenProcessPool

    from execverify_data.errors import InvalidArgument
    from execverify_data.models import BackendError, BackendSpecError
    from execverify_data.pipeline import GeneratorLoadError, SynthConfig
    from execverify_data.pipeline import synthesize as run

    writable_folder(out, flag="--out")
    generators = _generators(generator_names, shares)
    llm_specs = tuple(name[len("llm:"):] for name, _ in generators if name != "program")
    if not llm_specs:
        given = [f"--{name.replace('_', '-')}" for name in _LLM_OPTIONS
                 if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT]
        if given:
            raise click.UsageError(f"{', '.join(given)}: only for LLM rows, and no --generator llm:SPEC was given")
    local = [spec for spec in llm_specs if spec.partition(":")[0] in _LOCAL_BACKENDS]
    if workers is None:
        workers = 1 if local else default_workers()
    elif local and workers > 1:
        click.echo(f"note: each of the {workers} workers loads its own copy of {local[0]}", err=True)
    try:
        config = SynthConfig(n_programs=n, seed=seed, levels=levels, k=k, shard_size=shard_size, tracer=tracer,
                             generators=generators, llm_samples=llm_samples, llm_temperature=llm_temperature,
                             llm_max_new_tokens=llm_max_new_tokens, llm_chat=llm_prompt == "chat")
    except BackendSpecError as exc:
        raise click.BadParameter(one_line(exc), param_hint=["--generator"]) from None
    except InvalidArgument as exc:
        raise click.UsageError(str(exc)) from None
    _check_backends(llm_specs)

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
    except GeneratorLoadError as exc:
        raise click.ClickException(
            f"--generator: {one_line(exc)}; give a local model folder (llm:transformers:PATH), "
            "a Hub id while online, or a running server (llm:openai:URL#MODEL)") from None
    except BackendError as exc:  # a server that stopped answering mid-run; finished shards are kept
        raise click.ClickException(f"--generator: {one_line(exc)}; rerun to resume") from None
    except BrokenProcessPool:  # e.g. the kernel's OOM killer (a local model per worker); finished shards are kept
        raise click.ClickException("a worker process died without a word (out of memory?); finished shards are "
                                   "kept: rerun to resume, with fewer --workers if memory is short") from None
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
        f"{summary['throughput']['accepted_per_second'] or 0} programs/s this run"
    )
    if llm_specs:
        for name, g in summary["generators"].items():
            top = sorted(g["rejected"].items(), key=lambda kv: -kv[1])[:6]
            click.echo(f"  {name}: {g['accepted']} of {g['rows']} rows kept ({g['attempts']} attempts); rejected: "
                       + (", ".join(f"{key} {value}" for key, value in top) or "none"))
