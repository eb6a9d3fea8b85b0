"""``execverify release``: commands on a local release folder (``inspect``)."""

from __future__ import annotations

from pathlib import Path

import click

from execverify_data.cli.common import one_line


@click.group(name="release")
def release() -> None:
    """Look into a local release folder (the --out of `execverify build-release`)."""


@release.command(name="inspect")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the inspection as one JSON object.")
def inspect(folder: Path, as_json: bool) -> None:
    """Check FOLDER against its MANIFEST.json (every file's sha256) and every figure its card and manifest
    claim (rows per config and split, programs, examples, inputs per program, levels, sources) against
    its rows; list the configs, their counts and schemas. Exit 1 when a claim does not hold.

    \b
    Example:
      execverify release inspect execverify-v1.0.0
    """
    import json

    from execverify_data.release.inspect import inspect_release
    from execverify_data.release.manifest import ManifestError

    if not folder.is_dir():
        raise click.BadParameter(f"{folder}: no such folder; give a release folder (the --out of build-release)",
                                 param_hint=["FOLDER"])
    try:
        report = inspect_release(folder)
    except ManifestError as exc:
        raise click.ClickException(one_line(exc)) from None
    if as_json:
        click.echo(json.dumps({"folder": str(folder), "version": report.version, "configs": report.configs,
                               "figures": report.figures, "checked": report.checked, "problems": report.problems},
                              sort_keys=True))
    else:
        click.echo(f"{folder}: release {report.version}")
        for config, info in report.configs.items():
            rows = ", ".join(f"{split} {n:,}" for split, n in info["rows"].items()) or "no rows"
            click.echo(f"  {config:8} {rows}; {info['programs']:,} programs, {info['examples']:,} examples; "
                       f"{len(info['schema'])} columns")
        for name, value in report.figures.items():
            click.echo(f"  {name.replace('_', ' ')}: {value}")
        if report.problems:
            click.echo(f"{len(report.problems)} of {report.checked} claims do not hold:")
            for problem in report.problems:
                click.echo(f"  - {problem}")
        else:
            click.echo(f"{report.checked} claims checked (files, counts, card): all hold")
    if report.problems:
        raise SystemExit(1)
