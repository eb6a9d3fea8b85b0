"""Prepare a blind review: synthesized programs beside CRUXEval's, with nothing that tells them apart.

Draws ``--per-level`` programs of each level from the shards of an ``execverify synthesize`` run and
``--cruxeval`` CRUXEval programs, renames each entry point to ``f`` (its calls too), strips every annotation,
shuffles them with ``--seed`` and writes ``programs.md`` (numbered programs, nothing else: the file a reader
grades) and ``key.json`` (number -> source, level, description). With ``--descriptions`` it also writes
``descriptions.md``: each synthesized program with the description the generator made for it, for the
check that a description says exactly what the function returns.

Usage::

    python benchmarks/blind_review.py --run /tmp/r --per-level 7 --cruxeval 20 --seed 1 --out /tmp/review
    python benchmarks/blind_review.py --run /tmp/r --per-level 7 --seed 2 --descriptions --out /tmp/review-desc
    python benchmarks/blind_review.py --run /tmp/r --beside /tmp/r0 --per-level 5 --cruxeval 10 --seed 3 --out /tmp/pair
    python benchmarks/blind_review.py --score /tmp/review/grades.json --out /tmp/review

``--beside RUN`` puts programs of a second run (another generator, the same levels and count) in the same file, so
that one reader grades both: a paired comparison, which a reader's own leniency does not move. ``--score`` reads a
reader's grades (JSON ``{"1": [grade, "reason"], ...}``) against ``key.json`` and prints the figures of each source:
mean, share graded 3 or more, the mean per level, and the programs with a description apart from those without.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
from pathlib import Path


def anonymized(code: str, entry: str) -> str:
    """``code`` with the entry point named ``f`` and no annotations.

    >>> print(anonymized("def g(x: int) -> int:\\n    return x\\n\\ndef h(xs: list) -> int:\\n    return g(xs[0])\\n", "h"))
    def g(x):
        return x
    <BLANKLINE>
    def f(xs):
        return g(xs[0])
    <BLANKLINE>
    """
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            node.returns = None
            for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
                arg.annotation = None
            if node.name == entry:
                node.name = "f"
        elif isinstance(node, ast.Name) and node.id == entry:
            node.id = "f"
    functions = [ast.unparse(n) for n in tree.body]
    return "\n\n".join(functions) + "\n"


def score(grades: dict, key: dict) -> str:
    """The figures of one reader's ``grades`` per source of ``key`` (both as written by this script and a reader).

    >>> key = {"1": {"source": "synth", "level": 3, "description": "Return..."}, "2": {"source": "cruxeval", "level": None,
    ...        "description": ""}, "3": {"source": "synth", "level": 3, "description": ""}}
    >>> print(score({"1": [4, "ok"], "2": [3, "ok"], "3": [1, "no"]}, key))
    synth: 2 graded, mean 2.50, 50% at 3 or more; per level L3 2.50; with a description 4.00 (1), without 1.00 (1)
    cruxeval: 1 graded, mean 3.00, 100% at 3 or more
    """
    by_source: dict[str, list[tuple[int, dict]]] = {}
    for n, item in key.items():
        by_source.setdefault(item["source"], []).append((int(grades[n][0]), item))
    lines = []
    for source, graded in by_source.items():
        marks = [g for g, _ in graded]
        line = (f"{source}: {len(marks)} graded, mean {sum(marks) / len(marks):.2f}, "
                f"{sum(g >= 3 for g in marks) / len(marks):.0%} at 3 or more")
        levels = sorted({item["level"] for _, item in graded if item["level"] is not None})
        if levels:
            per = {lv: [g for g, item in graded if item["level"] == lv] for lv in levels}
            line += "; per level " + " ".join(f"L{lv} {sum(v) / len(v):.2f}" for lv, v in per.items())
            told = [g for g, item in graded if item["description"]]
            untold = [g for g, item in graded if not item["description"]]
            line += "; " + ", ".join(f"{what} {sum(v) / len(v):.2f} ({len(v)})" for what, v in
                                     (("with a description", told), ("without", untold)) if v)
        lines.append(line)
    return "\n".join(lines)


def main() -> None:
    import pyarrow.parquet as pq

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", help="folder of an `execverify synthesize` run (all but --score)")
    parser.add_argument("--per-level", type=int, default=7)
    parser.add_argument("--cruxeval", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--descriptions", action="store_true", help="write descriptions.md instead of a blind file")
    parser.add_argument("--beside", help="folder of a second run whose programs share the file (source 'beside')")
    parser.add_argument("--score", metavar="GRADES", help="print the figures of a reader's grades against --out's key.json")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.score:
        print(score(json.loads(Path(args.score).read_text()), json.loads((Path(args.out) / "key.json").read_text())))
        return
    if not args.run:
        parser.error("--run is required (the folder of an `execverify synthesize` run)")

    rng = random.Random(args.seed)
    items = []
    for source, run in (("synth", args.run), ("beside", args.beside)):
        if run is None:
            continue
        by_level: dict[int, list[dict]] = {}
        for shard in sorted(Path(run).glob("shard-*.parquet")):
            for row in pq.read_table(shard).to_pylist():
                if row.get("description") or not args.descriptions:  # the description check: programs that have one
                    by_level.setdefault(row["level"], []).append(row)
        for level in sorted(by_level):
            for row in rng.sample(by_level[level], min(args.per_level, len(by_level[level]))):
                items.append({"source": source, "level": level, "id": row["id"],
                              "description": row.get("description", ""),
                              "code": anonymized(row["code"], row["entry_point"]), "call": row["inputs"][0],
                              "output": row["outputs"][0]})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.descriptions:
        ask = ("For each: does the description say exactly what the function returns, for every input? "
               "Answer yes or no, with the reason for a no.")
        lines = ["# Programs and their descriptions", "", ask, ""]
        for n, item in enumerate(items, 1):
            lines += [f"## {n}", "", f"Description: {item['description'] or '(none)'}", "", "```python",
                      item["code"].rstrip(), "```", f"Example: `f({item['call']})` returns `{item['output']}`", ""]
        (out / "descriptions.md").write_text("\n".join(lines))
    else:
        from execverify_data.data import cruxeval_records

        crux = cruxeval_records()
        for rec in rng.sample(crux, min(args.cruxeval, len(crux))):
            items.append({"source": "cruxeval", "level": None, "id": rec["id"], "description": "",
                          "code": anonymized(rec["code"], "f")})
        rng.shuffle(items)
        ask = ("Grade each from 1 to 5: would a competent Python programmer write this function for some purpose? "
               "(1: no one would; 3: plausible; 5: clearly purposeful, idiomatic code.) Give the grade and one line "
               "of reason for each.")
        lines = ["# Programs", "", ask, ""]
        for n, item in enumerate(items, 1):
            lines += [f"## {n}", "", "```python", item["code"].rstrip(), "```", ""]
        (out / "programs.md").write_text("\n".join(lines))
    key = {n: {k: v for k, v in item.items() if k != "code"} for n, item in enumerate(items, 1)}
    (out / "key.json").write_text(json.dumps(key, indent=1))
    print(f"{len(items)} programs under {out}")


if __name__ == "__main__":
    main()
