"""The Ray engine writes the same bytes as the local engine (local Ray, 2 CPUs)."""

from __future__ import annotations

import pytest

from execverify_data.shards import is_ray_available

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not is_ray_available(), reason="ray is not installed: pip install 'execverify-data[ray]'"),
]


def test_ray_engine_same_bytes_as_local(tmp_path):
    pytest.importorskip("datasets")
    from execverify_data.release import ReleaseConfig
    from execverify_data.release.builder import build_release

    cfg = ReleaseConfig(version="1.0.0", n_examples=80, seed=5, shard_size=3)
    local = build_release(cfg, tmp_path / "local", workers=2)
    ray = build_release(cfg, tmp_path / "ray", workers=2, engine="ray")
    assert ray["timing"]["shards_run"] == local["timing"]["shards_run"] > 1
    differ = sorted(k for k in set(ray["files"]) | set(local["files"]) if ray["files"].get(k) != local["files"].get(k))
    assert not differ, (differ, ray["rows"], local["rows"], ray["synthesis"], local["synthesis"])


def test_unknown_engine(tmp_path):
    from execverify_data.errors import InvalidArgument
    from execverify_data.release import ReleaseConfig
    from execverify_data.release.builder import build_release

    with pytest.raises(InvalidArgument, match="local, ray"):
        build_release(ReleaseConfig(version="1.0.0", n_examples=10), tmp_path / "x", engine="spark")
