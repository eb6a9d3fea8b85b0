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


def main() -> None:
    import pyarrow.parquet as pq

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", required=True, help="folder of an `execverify synthesize` run")
    parser.add_argument("--per-level", type=int, default=7)
    parser.add_argument("--cruxeval", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--descriptions", action="store_true", help="write descriptions.md instead of a blind file")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    by_level: dict[int, list[dict]] = {}
    for shard in sorted(Path(args.run).glob("shard-*.parquet")):
        for row in pq.read_table(shard).to_pylist():
            if row.get("description") or not args.descriptions:  # the description check: programs that have one
                by_level.setdefault(row["level"], []).append(row)
    items = []
    for level in sorted(by_level):
        for row in rng.sample(by_level[level], min(args.per_level, len(by_level[level]))):
            items.append({"source": "synth", "level": level, "id": row["id"], "description": row.get("description", ""),
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
