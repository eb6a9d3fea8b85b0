"""``execverify build-release``: the whole pipeline into a Hub-layout release folder."""

from __future__ import annotations

import json
from pathlib import Path

import click

from execverify_data.cli.common import IntRange, default_workers, flag_words, require_extra, workers_option, writable_folder


def _local(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    out = []
    for v in values:
        name, sep, path = v.partition("=")
        if not sep or not name or not path:
            raise click.BadParameter(f"expected NAME=PATH (e.g. reval=/data/reval.jsonl), got {v!r}", param_hint=["--benchmark"])
        if not Path(path).is_file():
            raise click.BadParameter(f"{name}: no file {path}; give a local JSONL copy of the benchmark", param_hint=["--benchmark"])
        out.append((name, path))
    return tuple(out)


def _old_version(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        click.echo("Warning: build-release --version is deprecated; use --release-version "
                   "(`execverify --version` prints the tool's version)", err=True)
    return value


@click.command(name="build-release")
@click.option("--release-version", "version", default=None, metavar="X.Y.Z",
              help="Release version, e.g. 1.0.0 (tag v1.0.0).  [required]")
@click.option("--version", "old_version", default=None, hidden=True, expose_value=True, callback=_old_version,
              help="Deprecated alias of --release-version.")
@click.option("--n-examples", "--n", "n", required=False, type=IntRange(min=1),
              help="Distinct (program, input) examples wanted in the trace config (each also a row of io, oi and sft; "
                   "one codegen row per program).  [required unless --programs: then all of them]")
@click.option("--inputs-per-program", "k", default=None, type=IntRange(min=3), metavar="K",
              help="Traced inputs per program, at least (default 6; more means fewer programs for the same examples).")
@click.option("--seed", default=0, show_default=True, type=IntRange(min=0), help="Global seed.")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Release folder.")
@workers_option("Worker processes (or CPUs of a local Ray)")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: spawned processes; ray: Ray Data (pip install 'execverify-data[ray]').")
@click.option("--ray-address", default=None, help="With --engine ray: the cluster to join ('auto', 'HOST:6379'); default a local Ray.")
@click.option("--work-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Cache of per-shard outputs (default OUT.build); a rerun resumes from it.")
@click.option("--shard-size", default=500, show_default=True, type=IntRange(min=1), help="Programs per work unit.")
@click.option("--benchmark", "benchmarks", multiple=True, metavar="NAME=PATH",
              help="Extra benchmark to decontaminate against (REval, LiveCodeBench-Exec JSONL copy). Repeatable.")
@click.option("--programs", "programs", type=click.Path(path_type=Path), default=None,
              help="Build from the program records in this folder (the --out of synthesize or from-code) instead of synthesizing.")
@click.option("--allow-benchmark", "allow", multiple=True, metavar="NAME",
              help="Do not decontaminate against benchmark NAME (cruxeval, humaneval), e.g. with --programs made from it. Repeatable.")
@click.option("--test-share", default=0.05, show_default=True, type=click.FloatRange(0, 1, max_open=True),
              help="Share of program structures (normalized ASTs) in the test split, e.g. 0.1 (0: no test split).")
@click.option("--repo-id", default="execverify/execverify", show_default=True, help="Hub repository named in the card.")
@click.option("--license", "license_", default="mit", show_default=True, metavar="ID",
              help="License of the release's data (the card's and the Hub's, e.g. mit, apache-2.0, cc-by-4.0).")
@click.option("--description", default="", metavar="TEXT", help="What the release is, in a sentence or two, opening the card.")
@click.option("--limitations", default="", metavar="TEXT", help="Limitations to state in the card, besides those it always states.")
@click.option("--chain-style", type=click.Choice(["trace", "explained", "compact"]), default="explained", show_default=True,
              help="How the sft config's reasoning chains are written (docs/questions.md).")
@click.option("--quiet", is_flag=True, help="No progress bars or summary.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object (no progress bars).")
def build_release(version, old_version, n, k, seed, out, workers, engine, ray_address, work_dir, shard_size, benchmarks,
                  programs, allow, test_share, repo_id, license_, description, limitations, chain_style, quiet, as_json) -> None:
    """Synthesize, trace, ask, narrate, rate, decontaminate and write a versioned release folder.

    \b
    Example:
      execverify build-release --release-version 1.0.0 --n 119000 --seed 0 --out execverify-v1.0.0
      execverify push execverify-v1.0.0 --repo-id ORG/execverify --tag v1.0.0
      execverify build-release --release-version 0.1.0 --programs data/fromcode --out fromcode-v0.1.0
    """
    if version is not None and old_version is not None and version != old_version:
        raise click.UsageError("give the release version once, with --release-version")
    version = version or old_version
    if version is None:
        raise click.UsageError("Missing option '--release-version' (e.g. --release-version 1.0.0).")
    if ray_address is not None and engine != "ray":
        raise click.UsageError("--ray-address needs --engine ray")
    from execverify_data.errors import InvalidArgument
    from execverify_data.release import ReleaseConfig

    if programs is not None:
        from execverify_data.release.programs import program_records

        try:
            records = program_records(str(programs))
        except InvalidArgument as exc:
            raise click.BadParameter(str(exc), param_hint=["--programs"]) from None
        n = n or sum(len(r.inputs) for r in records)  # every example of every record
    elif n is None:
        raise click.UsageError("Missing option '--n' (rows wanted, e.g. --n 600), or give --programs DIR to build from records.")
    from execverify_data.decontam import default_sources

    unknown = sorted(set(allow) - set(default_sources()))
    if unknown:
        raise click.BadParameter(f"unknown benchmark {', '.join(unknown)}; choose among {', '.join(sorted(default_sources()))}",
                                 param_hint=["--allow-benchmark"])
    try:
        extra = {} if k is None else {"k": k}
        if round(test_share * 1000) != test_share * 1000:
            raise click.BadParameter(f"{test_share} has more than three decimals; give a share such as 0.05 or 0.125",
                                     param_hint=["--test-share"])
        extra["test_permille"] = round(test_share * 1000)
        cfg = ReleaseConfig(version=version, n_examples=n, seed=seed, shard_size=shard_size, local_benchmarks=_local(benchmarks),
                            programs=str(programs) if programs is not None else None, decontam_allow=allow,
                            license=license_.strip().lower(), description=description.strip(),
                            limitations=limitations.strip(), chain_style=chain_style, **extra)
    except InvalidArgument as exc:
        raise click.UsageError(flag_words(exc, version="--release-version", k="--inputs-per-program")) from None
    writable_folder(out, flag="--out")
    writable_folder(work_dir if work_dir is not None else out.with_name(out.name + ".build"), flag="--work-dir")
    require_extra("release", needed_by="build-release")
    if engine == "ray":
        require_extra("ray", needed_by="build-release --engine ray")

    from execverify_data.release.builder import build_release as build

    try:
        manifest = build(cfg, out, workers=workers or default_workers(), engine=engine, work_dir=work_dir, repo_id=repo_id,
                         progress=not (quiet or as_json), ray_address=ray_address)
    except InvalidArgument as exc:  # e.g. the work folder holds a build with other settings
        raise click.UsageError(str(exc)) from None
    tested = sum(splits.get("test", 0) for splits in manifest["rows"].values())
    if tested == 0 and not as_json:
        click.echo(f"warning: the test split is empty ({manifest['programs']} programs, {test_share:g} of their "
                   "structures drawn for it); build more examples or raise --test-share (e.g. --test-share 0.3) "
                   "for a test split", err=True)
    if as_json:
        summary = {key: value for key, value in manifest.items() if key != "files"}
        click.echo(json.dumps({"out": str(out), "files": len(manifest["files"]), **summary}, sort_keys=True))
    else:
        click.echo(f"{manifest['total_rows']} rows ({manifest['examples']} examples, {manifest['programs']} programs) in {out} "
                   f"(MANIFEST.json: {len(manifest['files'])} files)")
