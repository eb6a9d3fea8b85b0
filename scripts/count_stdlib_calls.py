"""Count how often the standard library's own code calls each catalog entry; writes the table synthesis weighs
its targets by (``execverify_data/data/stdlib_calls/counts.json``).

The corpus is this interpreter's standard library (``sysconfig``'s ``stdlib`` folder), without its tests, demos,
IDLE, lib2to3 and installed packages: code people wrote for a purpose. Counting is static
(``catalog.usage.call_counts``): nothing is imported or run.

Usage::

    python scripts/count_stdlib_calls.py            # rewrite the shipped table
    python scripts/count_stdlib_calls.py --check    # exit 1 if the shipped table differs from a fresh count
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import sysconfig
from pathlib import Path

from execverify_data.catalog import ENTRIES
from execverify_data.catalog.usage import call_counts
from execverify_data.data import data_path

SKIPPED = ("test", "tests", "idlelib", "turtledemo", "lib2to3", "site-packages", "dist-packages")


def table() -> dict:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.rglob("*.py") if not set(p.relative_to(root).parts) & set(SKIPPED))
    sources = []
    for path in files:
        try:
            sources.append(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, OSError):
            continue
    counts = call_counts(sources)
    known = {e.id for e in ENTRIES}
    return {"python": platform.python_version(), "files": len(sources),
            "counts": {k: round(v, 2) for k, v in sorted(counts.items()) if k in known and v >= 0.005}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    path = Path(str(data_path("stdlib_calls", "counts.json")))
    fresh = table()
    if args.check:
        shipped = json.loads(path.read_text(encoding="utf-8"))
        same = shipped["counts"] == fresh["counts"]
        print("the shipped table matches a fresh count" if same else
              f"the shipped table ({shipped['python']}) differs from a count under {fresh['python']}")
        return 0 if same else 1
    path.write_text(json.dumps(fresh, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(fresh['counts'])} entries counted over {fresh['files']} files of Python {fresh['python']} -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
