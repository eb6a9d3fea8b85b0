"""Speed beside another commit: the code of ``REV`` unpacked from this clone's history, and a rate measured
in both trees in interleaved rounds (the order alternates, so a drift of the machine's load moves both).
The ratio is what a speed target is checked with here, since the absolute rate moves with the machine.
Used by ``bench_synth.py --against`` and ``bench_release.py --against``.
"""

from __future__ import annotations

import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def tree_of(rev: str, into: Path) -> Path:
    """The files of commit ``rev`` of this checkout, unpacked under ``into`` (``git archive``)."""
    done = subprocess.run(["git", "-C", str(HERE), "archive", "--format=tar", rev], capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"error: cannot read commit {rev!r} from {HERE} ({done.stderr.decode().strip()[:200]}); "
                         "run from a git clone with its history")
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        archive.extractall(into, filter="data")
    return into


def run_in(tree: Path, code: str, *argv: object) -> dict:
    """Run ``code`` in a fresh interpreter that imports the library from ``tree``; its last stdout line, as JSON."""
    done = subprocess.run([sys.executable, "-c", code, *map(str, argv)], cwd=tree, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(tree)})
    if done.returncode != 0:
        raise SystemExit(f"error: the run failed in {tree}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def interleaved(rev: str, rounds: int, rate: Callable[[Path, Path], float], unit: str) -> float:
    """``rate(tree, scratch)`` for this tree and commit ``rev``, ``rounds`` times each in alternating order;
    prints each round and returns the median ratio (this tree / ``rev``)."""
    with tempfile.TemporaryDirectory(prefix="bench-against-") as tmp:
        base = tree_of(rev, Path(tmp) / "baseline")
        ratios = []
        for r in range(rounds):
            order = [("baseline", base), ("this tree", HERE)]
            rates = {name: rate(tree, Path(tmp) / "out") for name, tree in (order if r % 2 == 0 else order[::-1])}
            ratios.append(rates["this tree"] / rates["baseline"])
            print(f"  round {r + 1}: this tree {rates['this tree']:.1f} {unit}, {rev} {rates['baseline']:.1f} {unit}, "
                  f"ratio {ratios[-1]:.3f}", flush=True)
    median = statistics.median(ratios)
    print(f"  median ratio {median:.3f}")
    return median
