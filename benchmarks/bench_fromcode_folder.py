"""How many functions of a folder of ``.py`` files ``execverify from-code`` makes into good rows.

A good row is one whose every decision is taken both ways by some kept input (``branch_coverage`` 1.0, or
null: code without decisions); constant outputs and the identity are given up by from-code itself. A second
figure counts the rows whose kept inputs take every side an input that returns can take
(``branch_coverage_returning`` 1.0 or null: the sides whose block ends in ``raise`` left out,
:func:`execverify_data.synth.coverage.raising_sides`). For
each folder it prints the functions, the rows, the good rows, each given-up function with its reason and
each row whose inputs leave a branch untaken; with ``--reexecute``, whether every kept call re-executes to
its label (:func:`execverify_data.reexecute.check_rows`).

Usage::

    PYTHONPATH=. python benchmarks/bench_fromcode_folder.py /tmp/people_funcs /tmp/people_funcs2 --seed 3
    PYTHONPATH=. python benchmarks/bench_fromcode_folder.py --read /tmp/fc_out   # an existing from-code output
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from collections import Counter
from pathlib import Path


def run(folder: Path, out: Path, seed: int, workers: int) -> None:
    from execverify_data.fromcode import FromCodeConfig, from_code, load

    from_code(load(folder), out, config=FromCodeConfig(seed=seed), workers=workers)


def report(out: Path, *, label: str, reexecute: bool = False) -> dict:
    """The figures of one from-code output folder, printed and returned."""
    from execverify_data.shards import read_records

    summary = json.loads((out / "summary.json").read_text())
    records = read_records(out)
    rejected = [json.loads(line) for line in (out / "rejected.jsonl").read_text().splitlines() if line]
    kept = [r for r in records if r.source_id not in {e["source_id"] for e in rejected}]
    partial = [r for r in kept if r.branch_coverage is not None and r.branch_coverage < 1.0]
    returning = [r for r in kept if r.branch_coverage_returning is not None and r.branch_coverage_returning < 1.0]
    figures = {"functions": summary["from_code"]["functions"], "rows": len(kept), "full_branch_rows": len(kept) - len(partial),
               "full_returning_rows": len(kept) - len(returning), "given_up": dict(Counter(e["reason"] for e in rejected))}
    print(f"{label}: {figures['functions']} functions, {figures['rows']} rows, {figures['full_branch_rows']} with every "
          f"branch taken, {figures['full_returning_rows']} with every branch a returning input can take; "
          f"given up {figures['given_up']}")
    for e in rejected:
        print(f"  given up  {e['source_id']}: {e['reason']}: {e['detail'][:150]}")
    for r in partial:
        ret = r.branch_coverage_returning
        print(f"  partial   {r.source_id}: branch coverage {r.branch_coverage:.2f}"
              f"{'' if ret is None else f', of the returning sides {ret:.2f}'}")
    if reexecute:
        from execverify_data.reexecute import check_rows

        result = check_rows([r.to_dict() if hasattr(r, "to_dict") else vars(r) for r in kept])
        figures["reexecuted_calls"], figures["mismatches"] = result.calls, len(result.mismatches)
        print(f"  re-executed {result.calls} calls: {len(result.mismatches)} mismatches")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, help="folders of .py files to convert")
    parser.add_argument("--read", type=Path, action="append", default=[], help="an existing from-code output folder")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--reexecute", action="store_true", help="re-execute every kept call as source")
    args = parser.parse_args()
    if not args.folders and not args.read:
        parser.error("give folders to convert or --read OUT")
    for out in args.read:
        report(out, label=str(out), reexecute=args.reexecute)
    for folder in args.folders:
        out = Path(tempfile.mkdtemp(prefix="bench-fromcode-"))
        try:
            run(folder, out / "out", args.seed, args.workers)
            report(out / "out", label=f"{folder} (seed {args.seed})", reexecute=args.reexecute)
        finally:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
