"""What one hostile test makes the trainer read: ``unit_test_reward`` with and without ``HOST_TEXT_LIMIT``.

A completion ``pad(i)`` returns ``[[i % 10]] * 1800`` (9,000 characters of canonical text, under call mode's
per-answer cap) and the test asserts ``candidate(i) != []`` for ``--calls`` values of ``i``: every call's answer
crosses to the trainer. With the limit (the rule) the test goes back to the tester in the sandbox past 262,144
characters; without it (the limit patched to infinity, the code before issue #29's rule) the trainer reads every
answer. Prints, for each, the verdict, the characters ``verdicts.read_canonical`` read in this process and this
process's CPU seconds (the sandbox's children not counted), then the ratio.

Run: ``.venv/bin/python benchmarks/bench_host_text.py [--calls 300] [--rounds 3]``
"""

from __future__ import annotations

import argparse
import statistics
import time

from execverify_data import verdicts
from execverify_data.rewards import UnitTestReward
from execverify_data.rewards import unit_tests as ut

CODE = "def pad(i):\n    return [[i % 10]] * 1800\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    test = "def check(candidate):\n" + "".join(f"    assert candidate({i}) != []\n" for i in range(args.calls))
    read: list[int] = []
    real = verdicts.read_canonical
    verdicts.read_canonical = lambda text, *a, **k: read.append(len(text)) or real(text, *a, **k)
    reward = UnitTestReward(timeout=5.0, workers=2)
    reward(prompts=[""], completions=[CODE], tests=[["assert pad(1) != []"]], entry_point=["pad"])  # warm workers
    limit = ut.HOST_TEXT_LIMIT
    cpu: dict[str, list[float]] = {"with the limit": [], "without it": []}
    for _ in range(args.rounds):  # interleaved, so both see the same load
        for name, value in (("with the limit", limit), ("without it", float("inf"))):
            ut.HOST_TEXT_LIMIT = value
            read.clear()
            start = time.process_time()
            verdict = reward(prompts=[""], completions=[CODE], tests=[[test]], entry_point=["pad"])
            cpu[name].append(time.process_time() - start)
            print(f"{name:>15}: verdict {verdict}, {sum(read):,} characters read here, "
                  f"{cpu[name][-1]:.3f} CPU-s in this process")
    ut.HOST_TEXT_LIMIT = limit
    with_, without = (statistics.median(cpu[k]) for k in cpu)
    print(f"median CPU-s: {with_:.3f} with the limit, {without:.3f} without it (ratio {without / with_:.0f}x)")


if __name__ == "__main__":
    main()
