"""Resumable output folders: atomic file writes and the settings a folder was started with.

Long jobs (``execverify synthesize``, ``execverify build-release``) write each unit of
work with :func:`write_atomic`, so a killed run never leaves a half-written file, and
record their settings with :func:`claim_folder`, so a rerun resumes only with the same
settings.

>>> import json, tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> claim_folder(folder, {"seed": 0}, hint="use another --out")
>>> claim_folder(folder, {"seed": 1}, hint="use another --out")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
execverify_data.errors.InvalidArgument: ... holds a run with other settings (seed); use another --out or the same settings to resume
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execverify_data.errors import InvalidArgument

__all__ = ["claim_folder", "write_atomic"]

SETTINGS_FILE = "config.json"


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write`` on a temporary sibling of ``path``, then rename it into place."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def claim_folder(folder: Path, identity: dict[str, Any], *, hint: str) -> None:
    """Record ``identity`` (the settings that decide the output) in ``folder``, or check that
    the folder was started with the same one.

    Raises:
        InvalidArgument: the folder holds a run with other settings; the message names them,
            followed by ``hint``.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SETTINGS_FILE
    if path.exists():
        previous = json.loads(path.read_text())
        if previous != identity:
            changed = sorted(k for k in set(previous) | set(identity) if previous.get(k) != identity.get(k))
            raise InvalidArgument(
                f"{folder} holds a run with other settings ({', '.join(changed)}); {hint} or the same settings to resume"
            )
    else:
        write_atomic(path, lambda p: p.write_text(json.dumps(identity, indent=1, sort_keys=True)))
