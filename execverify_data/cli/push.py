"""``execverify push``: publish a verified release folder to the Hub under a version tag."""

from __future__ import annotations

import os
from pathlib import Path

import click

from execverify_data.cli.common import flag_words, one_line, require_extra
from execverify_data.errors import ExecVerifyError

_NETWORK_MODULES = ("huggingface_hub", "httpx", "httpx2", "requests", "urllib3")


def _is_network_error(exc: BaseException) -> bool:
    """An error of the Hub client or of the HTTP library under it (their classes change between versions)."""
    return isinstance(exc, OSError) or any(cls.__module__.split(".")[0] in _NETWORK_MODULES for cls in type(exc).__mro__)


@click.command(name="push")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--repo-id", required=True, help="Dataset repository, ORG/NAME.")
@click.option("--revision", default="main", show_default=True, help="Branch to commit to.")
@click.option("--tag", default=None, help="Tag to create, the release version (e.g. v1.0.0).")
@click.option("--endpoint", default=None, help="Hub URL (default: HF_ENDPOINT or https://huggingface.co).")
@click.option("--private", is_flag=True, help="Create the repository private.")
@click.option("--dry-run", is_flag=True, help="Verify the folder and say what would be pushed, without contacting the Hub.")
def push(folder: Path, repo_id: str, revision: str, tag: str | None, endpoint: str | None, private: bool,
         dry_run: bool) -> None:
    """Verify FOLDER against its MANIFEST.json, upload it and tag the commit; print the URL.

    \b
    Example:
      execverify push execverify-v1.0.0 --repo-id ORG/execverify --tag v1.0.0
      execverify push execverify-v1.0.0 --repo-id ORG/execverify --tag v1.0.0 --dry-run
    """
    require_extra("release", needed_by="push")
    from execverify_data.release.push import push_release

    try:
        result = push_release(folder, repo_id, revision=revision, tag=tag, endpoint=endpoint, private=private,
                              dry_run=dry_run)
    except ExecVerifyError as exc:
        raise click.UsageError(flag_words(exc, repo_id="--repo-id", tag="--tag")) from None
    except Exception as exc:
        if not _is_network_error(exc):
            raise
        hub = endpoint or os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
        offline = " (HF_HUB_OFFLINE is set: unset it to push)" if os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0") else ""
        raise click.ClickException(
            f"cannot push to {hub}{offline}: {one_line(exc)[:200]}; check the network, --endpoint and your token (hf auth login)"
        ) from None
    if dry_run:
        click.echo(f"{folder} matches its MANIFEST.json: {result.files} files would go to {result.url} "
                   f"(branch {revision}{', tag ' + tag if tag else ''}); nothing was pushed")
        return
    click.echo(result.url)
