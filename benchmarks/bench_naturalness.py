"""Naturalness benchmark: issue #13's table for a synthesis run, beside CRUXEval and HumanEval.

For the programs of an ``execverify synthesize`` folder (or of a fresh run this script makes),
the 800 shipped CRUXEval programs (each with its one input) and the 164 HumanEval solutions (their
own inputs: the arguments of the first ``--humaneval-inputs`` literal ``candidate(...)`` calls of
their tests, read by AST, never run), it prints each measure of
:mod:`execverify_data.naturalness` per group and per level of the run; ``--targets`` prints each
target of the issue as met or not met, with the figures, HumanEval's and CRUXEval's rates measured
in this same run serving as thresholds where the target says so. ``docs/synthesis.md``
("Naturalness measures") defines every row.

Programs are measured in spawned worker processes (``PYTHONHASHSEED=0``, an address-space limit),
in order, so the figures do not depend on ``--workers``; ruff and pylint then run once over all
programs.

Usage::

    python benchmarks/bench_naturalness.py --run /tmp/synth                  # a finished synthesis folder
    python benchmarks/bench_naturalness.py --n 3000 --seed 11 --workers 2   # synthesize first (into a temporary folder)
    python benchmarks/bench_naturalness.py --run /tmp/synth --targets --json
    python benchmarks/bench_naturalness.py                                  # a fresh 600-row run (make bench)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

# the measures (key, label, how per-program figures add up) and their aggregation live in the package
from execverify_data.naturalness import CRUXEVAL, HUMANEVAL, MEASURES, aggregate, benchmark_programs

OURS = "ours"
#: Program rows of the fresh run made when neither --run nor --n is given (``make bench``).
DEFAULT_N = 600


# ---------------------------------------------------------------------- the programs


def run_programs(folder: Path) -> list[dict]:
    """The records of a synthesis folder, shard by shard, as benchmark jobs."""
    import pyarrow.parquet as pq

    shards = sorted(folder.glob("shard-*.parquet"))
    if not shards:
        raise SystemExit(f"error: no shard-*.parquet under {folder}; pass the --out folder of `execverify synthesize`")
    columns = ["code", "entry_point", "inputs", "param_types", "level", "spec", "ast_hash", "trace_lengths"]
    jobs = []
    for path in shards:
        for row in pq.read_table(path, columns=columns).to_pylist():
            jobs.append({"group": OURS, "level": row["level"], "source": row["code"], "entry_point": row["entry_point"],
                         "inputs": list(row["inputs"]), "types": list(row["param_types"]), "trusted": False,
                         "spec": row["spec"], "ast_hash": row["ast_hash"], "trace_lengths": list(row["trace_lengths"])})
    return jobs


# ---------------------------------------------------------------------- measuring


def columns(jobs: list[dict], rows: list[dict]) -> dict[str, dict]:
    """The table's columns: ours, CRUXEval, HumanEval, then ours per level."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for job, row in zip(jobs, rows):
        groups[job["group"]].append(row)
        if job["group"] == OURS:
            groups[f"L{job['level']}"].append(row)
    names = [OURS, CRUXEVAL, HUMANEVAL] + sorted(k for k in groups if k.startswith("L"))
    return {name: aggregate(groups[name]) for name in names if groups[name] or name != OURS}


# ---------------------------------------------------------------------- targets


def targets(table: dict[str, dict], jobs: list[dict], rows: list[dict], summary: dict | None) -> list[dict]:
    """Issue #13's targets, each ``{"target", "figure", "threshold", "met"}`` (``met`` None: not measured here)."""
    ours, crux, human = table[OURS], table[CRUXEVAL], table[HUMANEVAL]
    out = []

    def add(text: str, figure, threshold, met):
        out.append({"target": text, "figure": figure, "threshold": threshold, "met": met})

    def at_most(text, key, limit, where=""):
        value = ours[key]
        add(text, value, f"<= {limit}{where}", None if value is None or limit is None else value <= limit)

    add("if-tests taking one branch on all of a row's own inputs: 0%", ours["own_one_sided"], "0",
        None if ours["own_one_sided"] is None else ours["own_one_sided"] == 0)
    at_most("under two small same-type edits: at most HumanEval's rate", "edits_one_sided", human["edits_one_sided"], " (HumanEval)")
    at_most("conditions never evaluated under those edits: at most CRUXEval's", "edits_never_evaluated",
            crux["edits_never_evaluated"], " (CRUXEval)")
    at_most("dead statement share under those edits: at most CRUXEval's", "edits_dead_statements",
            crux["edits_dead_statements"], " (CRUXEval)")
    labels = {key: label for key, label, _ in MEASURES}
    for key in ("finishing_wrappers", "round_trips", "literal_subscripts", "dict_literal_membership", "container_reprs",
                "self_receiver_calls", "self_nested_tests"):
        at_most(f"{labels[key]}: at most 1 per 100 programs", key, 1)
    at_most("loops ignoring their variable: at most CRUXEval's rate", "loops_ignoring_variable",
            crux["loops_ignoring_variable"], " (CRUXEval)")
    for key in ("SIM300", "SIM102", "SIM114", "C413", "R5601"):
        limit = max(2 * crux[key], 1)
        at_most(f"{labels[key]}: at most 2x CRUXEval's rate ({crux[key]}) or 1 per 100", key, limit)
    at_most("distinct builtins and methods per program: at most 3.5 on average", "distinct_calls", 3.5)
    # kept from today, where the records and summary.json of the run can tell
    ours_rows = [(j, r) for j, r in zip(jobs, rows) if j["group"] == OURS]
    checked = [r["checker_ok"] for _, r in ours_rows if "checker_ok" in r]
    if checked:
        share = round(100 * sum(checked) / len(checked), 2)
        add("programs passing the checker for their spec: 100%", share, "100", share == 100)
    if summary and "catalog_coverage" in summary:
        fraction = round(100 * summary["catalog_coverage"]["fraction"], 2)
        add("catalog coverage >= 95% (summary.json)", fraction, ">= 95", fraction >= 95)
    if ours_rows:
        hashes = [j["ast_hash"] for j, _ in ours_rows]
        distinct = round(100 * len(set(hashes)) / len(hashes), 2)
        add("distinct normalized ASTs >= 90% across the whole run", distinct, ">= 90", distinct >= 90)
        lengths: dict[int, list[int]] = defaultdict(list)
        for job, _ in ours_rows:
            lengths[job["level"]].extend(job["trace_lengths"])
        medians = [statistics.median(lengths[level]) for level in sorted(lengths)]
        rising = len(medians) > 1 and all(b >= a for a, b in zip(medians, medians[1:])) and medians[-1] > medians[0]
        add("median trace length rising from level 1 to 6", medians, "non-decreasing, last > first", rising)
    add("byte-identical output for 1 and 2 workers (benchmarks/bench_synth.py measures it)", None, None, None)
    add("throughput >= 200 accepted programs/s on 2 cores (benchmarks/bench_synth.py measures it; with --against, "
        "as a ratio to generator 1.1 in the same run: >= 200/226)", None, None, None)
    return out


# ---------------------------------------------------------------------- printing


def _cell(value) -> str:
    if value is None:
        return "-"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _figure(row: dict) -> str:
    return ", ".join(map(_cell, row["figure"])) if isinstance(row["figure"], list) else _cell(row["figure"])


_MET = {True: "met", False: "not met", None: "not measured here"}


def markdown(table: dict[str, dict], found: list[dict] | None) -> str:
    """The table (and the targets) as Markdown."""
    lines = ["| measure (per 100 programs unless marked) | " + " | ".join(f"{n} ({table[n]['programs']})" for n in table) + " |",
             "| --- |" + " --- |" * len(table)]
    lines += [f"| {label} | " + " | ".join(_cell(table[n][key]) for n in table) + " |" for key, label, _ in MEASURES]
    if found is not None:
        lines += ["", "| target | figure | threshold | met |", "| --- | --- | --- | --- |"]
        lines += [f"| {r['target']} | {_figure(r)} | {_cell(r['threshold'])} | {_MET[r['met']]} |" for r in found]
    return "\n".join(lines)


def print_table(table: dict[str, dict], found: list[dict] | None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 200)
    grid = Table(title="Naturalness (per 100 programs unless marked)", show_lines=False)
    grid.add_column("measure")
    for name in table:
        grid.add_column(f"{name} ({table[name]['programs']})", justify="right")
    for key, label, _ in MEASURES:
        grid.add_row(label, *(_cell(table[name][key]) for name in table))
    console.print(grid)
    if found is not None:
        grid = Table(title="Issue #13 targets")
        for column in ("target", "figure", "threshold", "met"):
            grid.add_column(column)
        for row in found:
            met = {True: "[green]met[/green]", False: "[red]not met[/red]"}.get(row["met"], _MET[row["met"]])
            grid.add_row(row["target"], _figure(row), _cell(row["threshold"]), met)
        console.print(grid)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, help="a finished `execverify synthesize` output folder")
    parser.add_argument("--n", type=int, help="synthesize N program rows first (with --seed, --levels; "
                                              f"the default without --run: {DEFAULT_N})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fresh run (default 0)")
    parser.add_argument("--levels", default="1-6", help="levels of the fresh run: '1-6', '3', '2,4' (default 1-6)")
    parser.add_argument("--out", type=Path, help="where the fresh run goes (default: a temporary folder, removed)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--edit-seed", type=int, default=0, help="seed of the small same-type edits (default 0)")
    parser.add_argument("--humaneval-inputs", type=int, default=3,
                        help="HumanEval test calls used as its own inputs (default 3, as many as a synthesized row has)")
    parser.add_argument("--limit", type=int, help="measure only the run's first N programs")
    parser.add_argument("--benchmark-limit", type=int, help="measure only the first N programs of CRUXEval and of HumanEval")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown (for docs and cards)")
    parser.add_argument("--targets", action="store_true", help="print issue #13's targets as met / not met")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    args = parser.parse_args(argv)
    if args.run is not None and args.n is not None:
        parser.error("give either --run FOLDER or --n N (a fresh run), not both")
    if args.run is None and args.n is None:
        args.n = DEFAULT_N
    if args.workers < 1 or args.humaneval_inputs < 1 or any(v is not None and v < 1 for v in (args.limit, args.benchmark_limit)):
        parser.error("--workers, --humaneval-inputs, --limit and --benchmark-limit must be positive")

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-naturalness-") as scratch:
        folder = args.run
        if folder is None:
            from execverify_data.cli.synthesize import parse_levels
            from execverify_data.pipeline import SynthConfig, synthesize

            try:
                levels = parse_levels(args.levels)
            except ValueError as exc:
                parser.error(f"--levels {args.levels!r}: {exc}")
            folder = args.out or Path(scratch) / "run"
            synthesize(SynthConfig(n_programs=args.n, seed=args.seed, levels=levels), folder, workers=args.workers)
        elif not folder.is_dir():
            parser.error(f"--run {folder}: no such folder")
        ours = run_programs(folder)[: args.limit]
        summary_path = folder / "summary.json"
        summary = json.loads(summary_path.read_text()) if summary_path.exists() else None
    from execverify_data.naturalness import measure_programs

    jobs = ours + benchmark_programs(args.humaneval_inputs, args.benchmark_limit)
    rows = measure_programs(jobs, workers=args.workers, seed=args.edit_seed)
    table = columns(jobs, rows)
    found = targets(table, jobs, rows, summary) if args.targets else None
    seconds = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps({"run": str(args.run or args.out or "temporary"), "seconds": seconds, "table": table,
                          "targets": found}, indent=1))
    elif args.markdown:
        print(markdown(table, found))
    else:
        print_table(table, found)
        print(f"{len(jobs)} programs measured in {seconds} s with {args.workers} worker(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
