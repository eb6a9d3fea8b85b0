"""``MANIFEST.json``: what a release folder holds, with the sha256 of every file, and its check."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from execverify_data.errors import ExecVerifyError

__all__ = ["MANIFEST", "ManifestError", "sha256_file", "release_files", "verify_manifest"]

MANIFEST = "MANIFEST.json"
#: Files a Hub clone may hold that are not part of the release.
IGNORED = (".gitattributes", ".git", ".cache", ".huggingface")


class ManifestError(ExecVerifyError, ValueError):
    """A release folder does not match its manifest; the message lists the differences."""


def sha256_file(path: str | os.PathLike) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def release_files(folder: str | os.PathLike) -> list[str]:
    """Relative paths (POSIX) of the release's files, manifest and Hub/clone extras excluded, sorted."""
    folder = Path(folder)
    out = []
    for path in folder.rglob("*"):
        rel = path.relative_to(folder)
        if rel.parts[0] in IGNORED or not path.is_file() or rel.as_posix() == MANIFEST or path.name.startswith(".") :
            continue
        out.append(rel.as_posix())
    return sorted(out)


def verify_manifest(folder: str | os.PathLike) -> dict:
    """Check every file's sha256 against ``MANIFEST.json`` and that no file is missing or extra; return the manifest.

    Raises:
        ManifestError: no manifest, or any difference (listed in the message).
    """
    folder = Path(folder)
    path = folder / MANIFEST
    if not path.is_file():
        raise ManifestError(f"{folder} has no {MANIFEST}; build it with `execverify build-release`")
    try:
        manifest = json.loads(path.read_text())
        listed = dict(manifest["files"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ManifestError(f"{path} is not a release manifest ({exc})") from None
    present = set(release_files(folder))
    problems = [f"missing: {p}" for p in sorted(set(listed) - present)]
    problems += [f"not in the manifest: {p}" for p in sorted(present - set(listed))]
    for rel in sorted(set(listed) & present):
        if sha256_file(folder / rel) != listed[rel]["sha256"]:
            problems.append(f"sha256 differs: {rel}")
    if problems:
        shown = "; ".join(problems[:10]) + (f"; and {len(problems) - 10} more" if len(problems) > 10 else "")
        raise ManifestError(f"{folder} does not match its manifest: {shown}")
    return manifest
