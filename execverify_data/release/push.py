"""Publish a release folder to the Hugging Face Hub (or any server speaking its API) under a version tag."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from execverify_data.errors import InvalidArgument
from execverify_data.release.manifest import verify_manifest
from execverify_data.release.versions import tag_for

__all__ = ["PushResult", "push_release"]

#: Never uploaded: dot files (temporary files of an interrupted build, clones' metadata).
IGNORE_PATTERNS = [".*", "**/.*"]


@dataclass(frozen=True)
class PushResult:
    url: str
    commit: str
    tag: str | None
    files: int


def push_release(folder: str | os.PathLike, repo_id: str, *, revision: str = "main", tag: str | None = None,
                 endpoint: str | None = None, private: bool = False, token: str | bool | None = None,
                 commit_message: str | None = None, dry_run: bool = False) -> PushResult:
    """Verify ``folder`` against its manifest, upload it to dataset ``repo_id`` at ``revision``, tag the commit.

    Args:
        folder: a folder written by ``execverify build-release``.
        repo_id (`str`): ``ORG/NAME``.
        revision (`str`, defaults to ``"main"``): the branch to commit to (created when missing).
        tag (`str`, optional): the tag to create; must be the release's version (``v1.0.0`` for
            version ``1.0.0``); pass ``tag_for(version)`` to tag every push.
        endpoint (`str`, optional): the Hub URL (``HF_ENDPOINT`` or huggingface.co by default).
        private (`bool`): create the repository private.
        token: as :class:`huggingface_hub.HfApi`.
        dry_run (`bool`): verify the folder, the tag and the repository id, and say what would be pushed, with no
            request to the Hub (``commit`` is then ``""``).

    Raises:
        ManifestError: the folder does not match its ``MANIFEST.json`` (nothing is uploaded).
        InvalidArgument: a tag that is not the folder's version, or a malformed ``repo_id``.
    """
    try:
        from huggingface_hub import HfApi
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("pushing needs huggingface_hub: pip install 'execverify-data[release]'") from exc
    if not isinstance(repo_id, str) or repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise InvalidArgument(f"repo_id must look like ORG/NAME, got {repo_id!r}")
    manifest = verify_manifest(folder)
    version = manifest["version"]
    if tag is not None and tag != tag_for(version):
        raise InvalidArgument(f"tag {tag!r} does not match the release version {version} (use {tag_for(version)!r})")
    if dry_run:
        base = (endpoint or os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")
        return PushResult(url=f"{base}/datasets/{repo_id}" + (f"/tree/{tag}" if tag else ""), commit="", tag=tag,
                          files=len(manifest["files"]) + 1)
    api = HfApi(endpoint=endpoint, token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    if revision != "main":
        api.create_branch(repo_id, branch=revision, repo_type="dataset", exist_ok=True)
    info = api.upload_folder(
        folder_path=str(Path(folder)), repo_id=repo_id, repo_type="dataset", revision=revision,
        commit_message=commit_message or f"execverify v{version} (seed {manifest['seed']}, {manifest['total_rows']} rows)",
        ignore_patterns=IGNORE_PATTERNS,
    )
    commit = info.oid
    if tag is not None:
        api.create_tag(repo_id, tag=tag, revision=commit, repo_type="dataset", tag_message=f"execverify v{version}")
    base = (endpoint or api.endpoint).rstrip("/")
    url = f"{base}/datasets/{repo_id}" + (f"/tree/{tag}" if tag else "")
    return PushResult(url=url, commit=commit, tag=tag, files=len(manifest["files"]) + 1)
