"""How far generator 3.0's composed tasks repeat: distinct normalized ASTs among the programs of N rows per level.

For each level 3-6, ``spec_for`` + ``generate`` on ``--rows`` row seeds (no filters), counting the programs the
task composer made (those with a description), how many distinct normalized-AST hashes they have
(``filters.normalized_hash``: the run's duplicate rule), the most repeated one, and the 2.2 builder's programs.
A run of ``n`` programs needs about ``n / 6`` distinct kept programs per level; the 20k run of docs/synthesis.md
stopped at its row cap because these counts are small.

Run: ``.venv/bin/python benchmarks/bench_task_space.py [--rows 3000] [--seed 3]``
"""

from __future__ import annotations

import argparse
from collections import Counter

from execverify_data.seeds import row_seed
from execverify_data.synth.filters import normalized_hash
from execverify_data.synth.generator import GenFail, generate, spec_for


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    print("level  generated  composed  distinct  most repeated  2.2 builder")
    for level in (3, 4, 5, 6):
        hashes: Counter = Counter()
        generated = fallback = 0
        for i in range(args.rows):
            seed = row_seed(args.seed, level * 100_000 + i)
            try:
                program = generate(spec_for(level, seed), seed)
            except GenFail:
                continue
            generated += 1
            if program.description:
                hashes[normalized_hash(program.code)] += 1
            else:
                fallback += 1
        top = hashes.most_common(1)[0][1] if hashes else 0
        print(f"{level:>5}  {generated:>9}  {sum(hashes.values()):>8}  {len(hashes):>8}  {top:>13}  {fallback:>11}")


if __name__ == "__main__":
    main()
