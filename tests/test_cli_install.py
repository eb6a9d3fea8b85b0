"""A clean build of the package: LICENSE in the sdist and the wheel, no deprecation warnings from pyproject.toml.

The build runs offline with the installed setuptools (``--no-build-isolation`` in effect) on a copy of
the tracked files, so the checkout gets no ``build/`` or ``*.egg-info``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD = """
import sys, warnings
warnings.simplefilter("always")
from setuptools import build_meta
out = sys.argv[1]  # build_sdist rewrites sys.argv
sdist = build_meta.build_sdist(out)
wheel = build_meta.build_wheel(out)
print("built:", sdist, wheel)
"""


def test_license_file_is_mit():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "execverify-data developers" in text


@pytest.mark.slow
def test_sdist_and_wheel_carry_the_license_without_warnings(tmp_path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout")
    pytest.importorskip("setuptools")
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    source = tmp_path / "src"
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    for name in ("LICENSE", "pyproject.toml"):  # not yet committed in a worktree under test
        shutil.copy2(ROOT / name, source / name)
    dist = tmp_path / "dist"
    dist.mkdir()
    done = subprocess.run([sys.executable, "-c", BUILD, str(dist)], cwd=source, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    log = done.stdout + done.stderr
    for warning in ("`project.license` as a TOML table is deprecated", "License classifiers are deprecated",
                    "license_file", "SetuptoolsDeprecationWarning"):
        assert warning not in log, warning
    sdist, wheel = done.stdout.split("built:")[-1].split()
    with tarfile.open(dist / sdist) as archive:
        assert f"{sdist.removesuffix('.tar.gz')}/LICENSE" in archive.getnames()
    with zipfile.ZipFile(dist / wheel) as archive:
        names = archive.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(info).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
