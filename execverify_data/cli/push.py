"""``execverify push``: publish a verified release folder to the Hub under a version tag."""

from __future__ import annotations

from pathlib import Path

import click

from execverify_data.errors import ExecVerifyError


@click.command(name="push")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--repo-id", required=True, help="Dataset repository, ORG/NAME.")
@click.option("--revision", default="main", show_default=True, help="Branch to commit to.")
@click.option("--tag", default=None, help="Tag to create, the release version (e.g. v1.0.0).")
@click.option("--endpoint", default=None, help="Hub URL (default: HF_ENDPOINT or https://huggingface.co).")
@click.option("--private", is_flag=True, help="Create the repository private.")
def push(folder: Path, repo_id: str, revision: str, tag: str | None, endpoint: str | None, private: bool) -> None:
    """Verify FOLDER against its MANIFEST.json, upload it and tag the commit; print the URL.

    \b
    Example:
      execverify push execverify-v1.0.0 --repo-id ORG/execverify --tag v1.0.0
    """
    from execverify_data.release.push import push_release

    try:
        result = push_release(folder, repo_id, revision=revision, tag=tag, endpoint=endpoint, private=private)
    except (ExecVerifyError, ImportError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(result.url)
