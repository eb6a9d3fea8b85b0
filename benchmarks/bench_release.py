"""Release build timing and difficulty calibration.

    # build (or resume) and time a release, then calibrate on it
    python benchmarks/bench_release.py --n 119000 --workers 2 --out /tmp/execverify-v1.0.0
    # calibrate an existing release folder only
    python benchmarks/bench_release.py --calibrate /tmp/execverify-v1.0.0

Calibration (trace config, one row per traced input): Spearman correlation of the
heuristic difficulty score with the level and with the trace length, of each
feature with the level, the score's quintiles (for ``BUCKET_EDGES``), and the mean
score per level. Figures go to ``docs/release.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path


def calibrate(folder: Path) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from execverify_data.difficulty import FEATURES, spearman

    table = pa.concat_tables([pq.read_table(f, columns=["level", "difficulty", "bucket", "features"])
                              for f in sorted((folder / "trace").glob("*.parquet"))]).to_pydict()
    levels, scores = table["level"], table["difficulty"]
    feats = table["features"]
    lengths = [f["trace_length"] for f in feats]
    ordered = sorted(scores)
    by_level = {}
    for lv in sorted(set(levels)):
        s = [x for x, l in zip(scores, levels) if l == lv]
        by_level[lv] = round(sum(s) / len(s), 3)
    return {
        "rows": len(scores),
        "spearman_score_level": spearman(scores, levels),
        "spearman_score_trace_length": spearman(scores, lengths),
        "spearman_trace_length_level": spearman(lengths, levels),
        "spearman_feature_level": {name: spearman([f[name] for f in feats], levels) for name in FEATURES},
        "score_quintiles": [ordered[int(len(ordered) * q)] for q in (0.2, 0.4, 0.6, 0.8)],
        "mean_score_by_level": by_level,
        "bucket_counts": {b: table["bucket"].count(b) for b in sorted(set(table["bucket"]))},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calibrate", type=Path, help="only calibrate this release folder")
    parser.add_argument("--n", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--engine", default="local")
    parser.add_argument("--out", type=Path, default=Path("/tmp/execverify-bench"))
    args = parser.parse_args()
    if args.calibrate:
        print(json.dumps(calibrate(args.calibrate), indent=1))
        return
    from execverify_data.release import ReleaseConfig
    from execverify_data.release.builder import build_release

    t0 = time.perf_counter()
    load0 = os.getloadavg()
    manifest = build_release(ReleaseConfig(version="1.0.0", n=args.n, seed=args.seed), args.out, workers=args.workers,
                             engine=args.engine, progress=True)
    wall = time.perf_counter() - t0
    peak_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    peak_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"n": args.n, "workers": args.workers, "engine": args.engine, "wall_seconds": round(wall, 1),
                      "timing": manifest["timing"], "peak_rss_mb_main": round(peak_self), "peak_rss_mb_largest_worker": round(peak_children),
                      "load_before": load0, "load_after": os.getloadavg(), "rows": manifest["rows"],
                      "total_rows": manifest["total_rows"], "calibration": calibrate(args.out)}, indent=1))


if __name__ == "__main__":
    main()
