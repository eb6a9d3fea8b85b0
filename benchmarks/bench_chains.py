"""Reasoning-chain measures (issue 32): chain length per row by level in each style, and the share of told steps
whose decision the chain explains.

For each synthesized program (``--n`` programs, ``--seed``, six inputs each, every level) and each input, the
``sft`` config's chain is written as the release writes it (the same question selection, ``from_trace(...,
rationale=True)``) in the three styles of :data:`execverify_data.rationale.CHAIN_STYLES`. Printed per level:
rows, median and 90th-percentile length in tokens, the ratio of each style's median to ``trace``'s (today's), and
the share of told ``if``/``while`` tests and ``for`` starts that state the values that decided them.

Tokens are counted as words and punctuation marks (the regex ``\\w+|[^\\w\\s]``), a tokenizer-free count that
needs no model download; a BPE tokenizer gives a count of the same order on this code-heavy text. The paper's
warm-up chains (distilled from QwQ-32B) are not in its released repository (justForAnonymous/ExecVerify holds
the scripts, not the chains), so they are not measured here.

    PYTHONPATH=. python benchmarks/bench_chains.py --n 300 --seed 20261207
"""

from __future__ import annotations

import argparse
import ast
import re
import statistics
from collections import defaultdict

_TOKEN = re.compile(r"\w+|[^\w\s]")
_TOLD = re.compile(r"^Line (\d+) \((\d+)\w\w time\)(?:: `.*?`\.| again\.)(.*)$")


def tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def explained_share(source: str, trace, chain: str) -> tuple[int, int]:
    """(told tests and loop starts that state what decided them, all told tests and loop starts)."""
    spans = {n.lineno: (type(n).__name__, n.lineno, n.end_lineno) for n in ast.walk(ast.parse(source))
             if isinstance(n, (ast.If, ast.While, ast.For))}
    position = {(e.line, e.occurrence): i for i, e in enumerate(trace.events)}
    told = explained = 0
    for line in chain.split("\n"):
        m = _TOLD.match(line)
        if not m or int(m.group(1)) not in spans:
            continue
        kind, start, end = spans[int(m.group(1))]
        i = position[(int(m.group(1)), int(m.group(2)))]
        if kind == "For":
            frame = trace.events[i].frame
            before = [e for e in trace.events[:i] if e.frame == frame]
            if before and start <= before[-1].line <= end:
                continue  # a next iteration, not the loop's start
        told += 1
        rest = m.group(3)
        explained += "Here `" in rest or "The loop walks `" in rest or re.search(r"`(while|if) True:`", line) is not None
    return explained, told


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="programs (six inputs each)")
    parser.add_argument("--seed", type=int, default=20261207)
    parser.add_argument("--samples", type=int, default=0, metavar="K",
                        help="instead, print K chains per level in the trace and explained styles (markdown)")
    args = parser.parse_args()

    from execverify_data.decisions import trace_with_decisions
    from execverify_data.pipeline import SynthConfig, synthesize_rows
    from execverify_data.questions import from_trace
    from execverify_data.rationale import CHAIN_STYLES
    from execverify_data.seeds import derive_seed

    records, _ = synthesize_rows(SynthConfig(n_programs=args.n, seed=args.seed, k=6), 0, args.n * 4)
    if args.samples:
        return samples(records[: args.n], args.seed, args.samples)
    lengths: dict[tuple[int, str], list[int]] = defaultdict(list)
    share = defaultdict(lambda: [0, 0])
    for record in records[: args.n]:
        for i, call in enumerate(record.calls):
            trace, notes = trace_with_decisions(record.code, call, max_steps=5000, timeout=30)
            for style in CHAIN_STYLES:
                rendered = from_trace(record.code, call, trace, seed=derive_seed(args.seed, record.seed, "sft", i),
                                      rationale=True, chain_style=style, notes=notes)
                chain = rendered.reference_completion.split("<answer>")[0]
                lengths[(record.level, style)].append(tokens(chain))
                if style == "explained":
                    done, told = explained_share(record.code, trace, chain)
                    share[record.level][0] += done
                    share[record.level][1] += told
    print(f"{args.n} programs, seed {args.seed}: chain length in word-and-symbol tokens (median / p90), "
          "the ratio of medians to `trace`, and the share of told tests and loop starts explained")
    print("| level | rows | trace | explained | compact | explained / trace | compact / trace | explained steps |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for level in sorted({lv for lv, _ in lengths}):
        row = {s: lengths[(level, s)] for s in CHAIN_STYLES}
        med = {s: statistics.median(v) for s, v in row.items()}
        p90 = {s: sorted(v)[int(0.9 * (len(v) - 1))] for s, v in row.items()}
        done, told = share[level]
        print(f"| {level} | {len(row['trace'])} | {med['trace']:g} / {p90['trace']} | {med['explained']:g} / "
              f"{p90['explained']} | {med['compact']:g} / {p90['compact']} | {med['explained'] / med['trace']:.2f} | "
              f"{med['compact'] / med['trace']:.2f} | {done}/{told} ({done / max(told, 1):.1%}) |")


def samples(records, seed: int, k: int) -> None:
    """K short chains per level, each in the ``trace`` style (before) and the ``explained`` style (after)."""
    from execverify_data.decisions import trace_with_decisions
    from execverify_data.questions import from_trace
    from execverify_data.seeds import derive_seed

    shown = defaultdict(int)
    for record in sorted(records, key=lambda r: (r.level, len(r.code))):
        if shown[record.level] >= k:
            continue
        call = record.calls[0]
        trace, notes = trace_with_decisions(record.code, call, max_steps=5000, timeout=30)
        if not (3 if record.level <= 2 else 8) <= len(trace.events) <= 40:
            continue
        shown[record.level] += 1
        print(f"### Level {record.level}: `{call}`\n\n```python\n{record.code.rstrip()}\n```\n")
        for style, title in (("trace", "Before (`trace`)"), ("explained", "After (`explained`)")):
            chain = from_trace(record.code, call, trace, seed=derive_seed(seed, record.seed, "sft", 0), n_path=0,
                               n_state=0, rationale=True, chain_style=style, notes=notes)
            text = chain.reference_completion.split("<answer>")[0].split("\n\nSo, question by question:")[0].strip()
            print(f"{title}:\n\n```text\n{text}\n```\n")


if __name__ == "__main__":
    main()
