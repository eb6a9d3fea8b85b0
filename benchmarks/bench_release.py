"""Release build timing, where a build's time goes, and difficulty calibration.

    # build (or resume) and time a release, then calibrate on it
    python benchmarks/bench_release.py --n 119000 --workers 2 --out /tmp/execverify-v2.0.0
    # calibrate an existing release folder only
    python benchmarks/bench_release.py --calibrate /tmp/execverify-v2.0.0
    # where the time goes: rows [0, 150) of the release's synthesis run in this one process, phase by phase
    # (synthesis, rows, verification of each config), wall and CPU (this process and all its descendants:
    # the second interpreter, the trusted runner, the sandbox), per inputs-per-program value
    python benchmarks/bench_release.py --phases 3 6 --rows 150
    python benchmarks/bench_release.py --against 09a4aa7 --n 3000 --rounds 4   # build speed beside another commit

Phases (``--phases K...``): the work of :func:`execverify_data.release.engine.release_chunk`, split
into synthesis (``iter_rows``: generation, filters, tracing), rows (``rows_for_program``: questions,
reasoning chains, codegen tests, decontamination, difficulty), naturalness (the sampled programs'
figures) and verification per config (``Verifier.check``). Run it with ``PYTHONHASHSEED=0``.

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


def _tree_cpu() -> float:
    """CPU seconds (user + system) of this process, its reaped children and every live descendant."""
    import resource
    from collections import defaultdict

    tick = os.sysconf("SC_CLK_TCK")
    kids: dict[int, list[int]] = defaultdict(list)
    cpu: dict[int, float] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                text = handle.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        kids[int(fields[1])].append(int(name))
        cpu[int(name)] = sum(int(x) for x in fields[11:15]) / tick  # utime, stime, cutime, cstime
    total, todo = 0.0, list(kids[os.getpid()])
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo += kids[pid]
    own, reaped = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime + total


def phases(k: int, start: int, stop: int, seed: int = 0) -> dict:
    """Wall and CPU seconds of each phase of ``release_chunk`` over synthesis rows ``[start, stop)``, one process."""
    import sys
    from collections import defaultdict

    from execverify_data.naturalness import program_figures
    from execverify_data.pipeline import program_rows
    from execverify_data.release import ReleaseConfig, engine
    from execverify_data.release.rows import CONFIGS, rows_for_program
    from execverify_data.release.verify import Verifier
    from execverify_data.synth.filters import worker_tracer

    if sys.flags.hash_randomization:
        raise SystemExit("run with PYTHONHASHSEED=0 (as the build's workers)")
    cfg = ReleaseConfig(version="2.0.0", n_examples=119000, seed=seed, k=k)
    synth = cfg.synth_config()
    decon = engine.decontaminator(cfg.local_benchmarks, cfg.decontam_n, cfg.decontam_threshold)
    verifier, tracer = Verifier(), worker_tracer(synth.tracer, synth.max_steps, synth.timeout)
    spent: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])

    class clock:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            self.t, self.c = time.perf_counter(), _tree_cpu()

        def __exit__(self, *exc):
            spent[self.name][0] += time.perf_counter() - self.t
            spent[self.name][1] += _tree_cpu() - self.c

    rows = {c: [] for c in CONFIGS}
    programs = 0
    produced = program_rows(synth, start, stop, tracer=tracer)
    while True:
        with clock("synthesis"):
            item = next(produced, None)
        if item is None:
            break
        record = item.record
        if record is None:
            continue
        with clock("rows"):
            out, _ = rows_for_program(record, cfg, item.traces, tracer.trace_many, decon=decon)
        if out["trace"] and item.row % cfg.naturalness_every == 0:
            with clock("naturalness"):
                program_figures(record.code, record.entry_point, record.inputs, types=record.param_types, seed=seed)
        programs += bool(out["trace"])
        for config, items in out.items():
            rows[config].extend(items)
    for config in CONFIGS:
        with clock(f"verify {config}"):
            failures = verifier.check({config: rows[config]})
        if failures:
            raise SystemExit(f"verification failures: {failures[:3]}")
    examples = len(rows["trace"])
    cpu = sum(c for _, c in spent.values())
    return {"k": k, "rows": [start, stop], "programs": programs, "examples": examples,
            "wall_seconds": round(sum(w for w, _ in spent.values()), 2), "cpu_seconds": round(cpu, 2),
            "cpu_ms_per_example": round(1000 * cpu / max(1, examples), 1),
            "phases_wall_cpu": {name: [round(w, 2), round(c, 2)] for name, (w, c) in spent.items()},
            "cpu_share": {name: round(c / cpu, 3) for name, (_, c) in spent.items()}, "load_after": os.getloadavg()}


_BUILD = """
import json, sys, time
from pathlib import Path
from execverify_data.release import ReleaseConfig, build_release
n, seed, workers, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
t = time.perf_counter()
# n positional (older trees name it n); no work folder kept, none resumed
manifest = build_release(ReleaseConfig("2.2.0", n, seed=seed), out, workers=workers, keep_work=False)
print(json.dumps({"seconds": time.perf_counter() - t, "trace_rows": sum(manifest["rows"]["trace"].values())}))
"""


def against(rev: str, args) -> None:
    """Build speed (trace examples per second) of this tree beside commit ``rev`` (:mod:`_against`)."""
    import shutil

    from _against import interleaved, run_in

    def rate(tree: Path, out: Path) -> float:
        for folder in (out, out.with_name(out.name + ".build")):  # a work folder left behind would be resumed
            shutil.rmtree(folder, ignore_errors=True)
        result = run_in(tree, _BUILD, args.n, args.seed, args.workers, out)
        shutil.rmtree(out, ignore_errors=True)
        return result["trace_rows"] / result["seconds"]

    print(f"build-release --n {args.n} --seed {args.seed} --workers {args.workers}: this tree beside commit {rev}, "
          f"{args.rounds} interleaved rounds")
    interleaved(rev, args.rounds, rate, "examples/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calibrate", type=Path, help="only calibrate this release folder")
    parser.add_argument("--n", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--engine", default="local")
    parser.add_argument("--out", type=Path, default=Path("/tmp/execverify-bench"))
    parser.add_argument("--phases", type=int, nargs="+", metavar="K", help="time release_chunk's phases for these inputs per program")
    parser.add_argument("--rows", type=int, default=150, help="synthesis rows for --phases (from row 0)")
    parser.add_argument("--against", metavar="REV", help="instead, compare build speed with commit REV in interleaved rounds")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of --against (default 3)")
    args = parser.parse_args()
    if args.against:
        against(args.against, args)
        return
    if args.phases:
        for k in args.phases:
            print(json.dumps(phases(k, 0, args.rows, args.seed)), flush=True)
        return
    if args.calibrate:
        print(json.dumps(calibrate(args.calibrate), indent=1))
        return
    from execverify_data.release import ReleaseConfig
    from execverify_data.release.builder import build_release

    t0 = time.perf_counter()
    load0 = os.getloadavg()
    manifest = build_release(ReleaseConfig(version="2.0.0", n_examples=args.n, seed=args.seed), args.out, workers=args.workers,
                             engine=args.engine, progress=True)
    wall = time.perf_counter() - t0
    peak_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    peak_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"n": args.n, "workers": args.workers, "engine": args.engine, "wall_seconds": round(wall, 1),
                      "timing": manifest["timing"], "peak_rss_mb_main": round(peak_self), "peak_rss_mb_largest_worker": round(peak_children),
                      "cpu_seconds": round(sum(os.times()[:4]), 1),
                      "load_before": load0, "load_after": os.getloadavg(), "rows": manifest["rows"], "contents": manifest["contents"],
                      "total_rows": manifest["total_rows"], "calibration": calibrate(args.out)}, indent=1))


if __name__ == "__main__":
    main()
