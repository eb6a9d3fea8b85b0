"""``execverify release inspect DIR``: what a local release holds, and whether its card and manifest say so.

:func:`inspect_release` checks every file against ``MANIFEST.json`` (sha256, nothing missing or extra),
then recomputes from the rows what the manifest and the card claim (rows per config and split,
programs and examples per config, inputs per program, programs per level, the total) and reports
each claim that does not hold (``tests/test_release.py`` and ``tests/test_from_code.py`` inspect a
synthetic release, one from HumanEval records and one from a user's folder).
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from execverify_data.release.manifest import verify_manifest

__all__ = ["Inspection", "inspect_release"]


@dataclass
class Inspection:
    """What :func:`inspect_release` found: per config ``{"rows": {split: n}, "programs", "examples", "schema"}``,
    the figures recomputed from the rows, how many claims were checked, and the ones that do not hold."""

    folder: Path
    version: str
    configs: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)
    checked: int = 0
    problems: list[str] = field(default_factory=list)

    def check(self, what: str, claimed, actual) -> None:
        """A figure the release states (``claimed``) against the one its rows give (``actual``)."""
        self.checked += 1
        if claimed != actual:
            self.problems.append(f"{what}: the release says {claimed!r}, its rows give {actual!r}")

    def holds(self, statement: str, ok: bool) -> None:
        """A statement about the release that its rows make true (``ok``) or not."""
        self.checked += 1
        if not ok:
            self.problems.append(f"not so: {statement}")


def _tables(folder: Path, config: str) -> dict:
    import pyarrow.parquet as pq

    by_split: dict = {}
    for file in sorted((folder / config).glob("*.parquet")):
        split = file.name.split("-", 1)[0]
        by_split.setdefault(split, []).append(pq.read_table(file))
    return by_split


def inspect_release(folder: str | Path) -> Inspection:
    """Inspect the release in ``folder`` (see the module docs).

    Raises:
        ManifestError: no manifest, or a file that does not match it.
    """
    import pyarrow as pa

    from execverify_data.release.builder import config_contents
    from execverify_data.release.rows import CONFIGS

    folder = Path(folder)
    manifest = verify_manifest(folder)
    report = Inspection(folder, str(manifest.get("version", "?")))
    report.checked += len(manifest["files"])
    card = (folder / "README.md").read_text(encoding="utf-8") if (folder / "README.md").is_file() else ""
    total = 0
    trace = None
    for config in CONFIGS:
        tables = _tables(folder, config)
        rows = {split: sum(t.num_rows for t in parts) for split, parts in sorted(tables.items())}
        table = pa.concat_tables([t for parts in tables.values() for t in parts]) if tables else None
        contents = config_contents(config, table) if table is not None else {"rows": 0, "programs": 0, "examples": 0}
        report.configs[config] = {"rows": rows, "programs": contents["programs"], "examples": contents["examples"],
                                  "schema": [f"{f.name}: {f.type}" for f in table.schema] if table is not None else []}
        report.check(f"{config} rows per split", {k: v for k, v in sorted(manifest["rows"].get(config, {}).items())}, rows)
        report.check(f"{config} programs, examples", {k: manifest["contents"][config][k] for k in ("programs", "examples")},
                     {k: contents[k] for k in ("programs", "examples")})
        sizes = (f"| {rows.get('train', 0):,} / {rows.get('test', 0):,} | {contents['programs']:,} | {contents['examples']:,} |")
        report.holds(f"the card's {config} row gives its rows, programs and examples", f"`{config}` {sizes}" in card)
        total += sum(rows.values())
        if config == "trace":
            trace = table
    report.check("total rows", manifest["total_rows"], total)
    report.holds(f"the card gives the total, {total:,} rows", f"**{total:,} rows**" in card)
    if trace is not None and trace.num_rows:
        calls = Counter(p for p, _ in set(zip(trace.column("program_id").to_pylist(), trace.column("call").to_pylist())))
        per = {"min": min(calls.values()), "median": statistics.median(calls.values()), "max": max(calls.values())}
        report.figures["inputs_per_program"] = per
        import re

        least = re.search(r"per program, at least (\d+) traced inputs", card)  # the wording of cards before 3.x
        if least:
            report.holds(f"the card's 'at least {least.group(1)} traced inputs' per program (the fewest is {per['min']})",
                         per["min"] >= int(least.group(1)))
        if "inputs_per_program" in manifest:
            report.check("inputs per program", manifest["inputs_per_program"], per)
            spread = f"{per['min']}" if per["min"] == per["max"] else f"{per['min']} to {per['max']} (median {per['median']:g})"
            report.holds(f"the card gives the inputs per program, {spread}", f"per program, {spread} traced inputs" in card)
        levels = Counter()
        for program, level in set(zip(trace.column("program_id").to_pylist(), trace.column("level").to_pylist())):
            levels[str(level)] += 1
        report.figures["programs_by_level"] = dict(sorted(levels.items()))
        if set(levels) == {"0"}:  # given programs (from-code records are level 0)
            report.holds("the card does not call given programs (all of level 0) synthetic", "Synthetic Python programs" not in card)
        claimed = manifest.get("statistics", {}).get("programs_by_level")
        if claimed is not None:
            report.check("programs per level", {k: v for k, v in claimed.items() if v}, dict(sorted(levels.items())))
            for level, n in sorted(levels.items()):
                report.holds(f"the card's level table gives {n:,} programs of level {level}", f"| {level} | {n:,} |" in card)
    if manifest.get("sources") is not None:
        report.holds("the card lists every source with its license and programs",
                     all(f"| {s['source']} | {s['license']} | {s['programs']:,} |" in card for s in manifest["sources"]))
        report.holds("the card does not say the given programs are synthesized", "Programs are synthesized" not in card)
    return report
