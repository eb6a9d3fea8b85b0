"""Release: records -> a folder laid out like a Hub dataset repository, its card and manifest; push; versions.

>>> from execverify_data.release import ReleaseConfig
>>> ReleaseConfig(version="2.0.0", n_examples=13).synth_config().n_programs  # programs of 6 examples each, at least
3
"""

from __future__ import annotations

from execverify_data.release.config import ReleaseConfig, schema_for
from execverify_data.release.manifest import MANIFEST, ManifestError, verify_manifest
from execverify_data.release.versions import CHANGELOG, tag_for

__all__ = ["CHANGELOG", "MANIFEST", "ManifestError", "ReleaseConfig", "build_release", "push_release", "schema_for",
           "tag_for", "verify_manifest"]


def build_release(*args, **kwargs):
    """See :func:`execverify_data.release.builder.build_release` (imported on first use)."""
    from execverify_data.release.builder import build_release as _build

    return _build(*args, **kwargs)


def push_release(*args, **kwargs):
    """See :func:`execverify_data.release.push.push_release` (imported on first use)."""
    from execverify_data.release.push import push_release as _push

    return _push(*args, **kwargs)
