"""``execverify build-release``: the whole pipeline into a Hub-layout release folder."""

from __future__ import annotations

from pathlib import Path

import click

from execverify_data.errors import ExecVerifyError


def _local(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    out = []
    for v in values:
        name, sep, path = v.partition("=")
        if not sep or not name or not path:
            raise click.BadParameter(f"expected NAME=PATH (e.g. reval=/data/reval.jsonl), got {v!r}", param_hint="--benchmark")
        out.append((name, path))
    return tuple(out)


@click.command(name="build-release")
@click.option("--version", "version", required=True, help="Release version, e.g. 1.0.0 (tag v1.0.0).")
@click.option("--n", "n", required=True, type=int, help="Rows wanted in total over io, oi, trace, sft and codegen.")
@click.option("--seed", default=0, show_default=True, type=int, help="Global seed.")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Release folder.")
@click.option("--workers", default=1, show_default=True, type=int, help="Worker processes (or CPUs of a local Ray).")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: spawned processes; ray: Ray Data (pip install 'execverify-data[ray]').")
@click.option("--ray-address", default=None, help="With --engine ray: the cluster to join ('auto', 'HOST:6379'); default a local Ray.")
@click.option("--work-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Cache of per-shard outputs (default OUT.build); a rerun resumes from it.")
@click.option("--shard-size", default=500, show_default=True, type=int, help="Programs per work unit.")
@click.option("--benchmark", "benchmarks", multiple=True, metavar="NAME=PATH",
              help="Extra benchmark to decontaminate against (REval, LiveCodeBench-Exec JSONL copy). Repeatable.")
@click.option("--repo-id", default="execverify/execverify", show_default=True, help="Hub repository named in the card.")
@click.option("--quiet", is_flag=True, help="No progress bars or summary.")
def build_release(version, n, seed, out, workers, engine, ray_address, work_dir, shard_size, benchmarks, repo_id, quiet) -> None:
    """Synthesize, trace, ask, narrate, rate, decontaminate and write a versioned release folder.

    \b
    Example:
      execverify build-release --version 1.0.0 --n 119000 --seed 0 --out execverify-v1.0.0 --workers 2
      execverify push execverify-v1.0.0 --repo-id ORG/execverify --tag v1.0.0
    """
    from execverify_data.release import ReleaseConfig
    from execverify_data.release.builder import build_release as build

    try:
        cfg = ReleaseConfig(version=version, n=n, seed=seed, shard_size=shard_size, local_benchmarks=_local(benchmarks))
        manifest = build(cfg, out, workers=workers, engine=engine, work_dir=work_dir, repo_id=repo_id,
                         progress=not quiet, ray_address=ray_address)
    except (ExecVerifyError, ImportError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{manifest['total_rows']} rows in {out} (MANIFEST.json: {len(manifest['files'])} files)")
