"""The release's work: chunks of rows synthesized, turned into the rows of every config and
verified in the workers; shards finished in row order in the parent.

The unit of work is :func:`release_chunk`: rows ``[start, stop)`` of the release's synthesis
run -> for each accepted program, its rows in every config, made from the traces synthesis
recorded (nothing is traced twice), decontaminated, and each reference answer scored by the
consumers' own functions (:mod:`execverify_data.release.verify`). It depends on
``(config, start, stop)`` only and runs with ``PYTHONHASHSEED=0``, so both engines (local
processes, Ray tasks; :mod:`execverify_data.workpool`) and any number of workers write the same
bytes. :class:`ReleaseRun` finishes shards in order: it drops programs whose normalized AST an
earlier row kept, and stops once the ``trace`` config has ``n`` examples.

A program whose row is a multiple of ``cfg.naturalness_every`` is also measured for the card's
naturalness table (:func:`execverify_data.naturalness.program_figures` on its own inputs, a few
milliseconds); the figures of the kept ones go into the shard's ``done`` marker.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Callable

from execverify_data.errors import InvalidArgument
from execverify_data.workdir import write_atomic
from execverify_data.workpool import ENGINES, is_ray_available

__all__ = ["ENGINES", "ReleaseRun", "done_path", "finished_shards", "is_ray_available", "release_chunk", "rows_path"]


def rows_path(work: Path, shard: int, config: str) -> Path:
    return work / "rows" / f"shard-{shard:05d}.{config}.parquet"


def done_path(work: Path, shard: int) -> Path:
    return work / "rows" / f"shard-{shard:05d}.done.json"


def finished_shards(work: Path) -> int:
    """How many shards, from shard 0 on, the work folder holds finished."""
    s = 0
    while done_path(work, s).exists():
        s += 1
    return s


@lru_cache(maxsize=4)
def _decontaminator(local: tuple[tuple[str, str], ...], n: int, threshold: float, allow: tuple[str, ...] = ()):
    from execverify_data.decontam import Decontaminator

    return Decontaminator.default(local=dict(local), n=n, threshold=threshold, exclude=allow)


_VERIFIER = None


def _verifier():
    """One :class:`~execverify_data.release.verify.Verifier` per worker process (closed at exit)."""
    global _VERIFIER
    if _VERIFIER is None:
        import atexit

        from execverify_data.release.verify import Verifier

        _VERIFIER = Verifier()
        atexit.register(_VERIFIER.close)
    return _VERIFIER


def release_chunk(cfg, start: int, stop: int, known=None) -> dict:
    """Rows ``[start, stop)``: ``{"rows": [{"row", "level", "counts", "record", "out", "skipped", "naturalness"}],
    "failures", "seconds"}``.

    ``out`` maps each config to the program's rows; ``skipped`` counts why a program has none
    (decontamination, ...); ``naturalness`` holds the program's naturalness figures when its row is
    measured (else None); ``failures`` lists the rows whose reference answer does not get full
    marks (the build fails on them). ``known`` (:class:`~execverify_data.pipeline.KnownPrograms`) ends
    the rows whose program an earlier shard kept, before anything runs.
    """
    from execverify_data.naturalness import program_figures
    from execverify_data.pipeline import _record, _worker_tracer, iter_rows
    from execverify_data.release.rows import CONFIGS, rows_for_program

    if sys.flags.hash_randomization:
        raise InvalidArgument("release_chunk must run with PYTHONHASHSEED=0 (set orders in traced values depend on it)")
    t0 = time.perf_counter()
    synth = cfg.synth_config()
    decon = _decontaminator(cfg.local_benchmarks, cfg.decontam_n, cfg.decontam_threshold, cfg.decontam_allow)
    rows, chunk_rows = [], {c: [] for c in CONFIGS}
    if cfg.programs:  # records given (build-release --programs): read, not synthesized
        from execverify_data.release.programs import program_rows

        source = program_rows(cfg, start, stop)
    else:
        source = ((i, level, counts, None if acc is None else _record(synth, i, seed, acc), acc and acc.traces, None)
                  for i, level, counts, acc, seed in iter_rows(synth, start, stop, tracer=_worker_tracer(synth), known=known))
    for i, level, counts, record, traces, trace_many in source:
        row = {"row": i, "level": level, "counts": dict(counts), "record": None, "out": None, "skipped": {},
               "naturalness": None}
        if record is not None:
            out, skipped = rows_for_program(record, cfg, decon=decon, traces=traces, trace_many=trace_many)
            row.update(record=record, out=out, skipped=dict(skipped))
            if out["trace"] and i % cfg.naturalness_every == 0:
                row["naturalness"] = program_figures(record["code"], record["entry_point"], record["inputs"],
                                                     types=record["param_types"], seed=cfg.seed)
            for config, items in out.items():
                chunk_rows[config].extend(items)
        rows.append(row)
    failures = _verifier().check(chunk_rows)
    return {"rows": rows, "failures": failures, "seconds": time.perf_counter() - t0}


class ReleaseRun:
    """The parent's side of a build: finishes shards in order into the work folder.

    A program is kept when it has rows and its normalized AST is new to the build; the build has
    enough once the ``trace`` config holds ``cfg.n`` examples (or ``cfg.max_rows`` rows were tried).
    """

    def __init__(self, cfg, work: Path, progress: Callable[[int, int], None] | None = None):
        import pyarrow.parquet as pq

        from execverify_data.pipeline import shard_path

        self.cfg, self.work, self.progress = cfg, Path(work), progress
        (self.work / "rows").mkdir(parents=True, exist_ok=True)
        (self.work / "synth").mkdir(parents=True, exist_ok=True)
        self.start = finished_shards(self.work)
        self.seen: set[str] = set()
        self.examples = 0
        for s in range(self.start):
            self.seen.update(pq.read_table(shard_path(self.work / "synth", s), columns=["ast_hash"]).column("ast_hash").to_pylist())
            self.examples += json.loads(done_path(self.work, s).read_text())["rows"]["trace"]
        self.resumed = self.start
        self.pending = 0
        self._show()

    @property
    def complete(self) -> bool:
        return self.examples >= self.cfg.n or self.start * self.cfg.shard_size >= self.cfg.max_rows

    def _show(self) -> None:
        if self.progress:
            self.progress(min(self.cfg.n, self.examples + self.pending), self.cfg.n)

    def jobs(self, shard: int) -> list:
        from execverify_data.pipeline import CHUNK_ROWS, KNOWN_LAG, KnownPrograms

        first = shard * self.cfg.shard_size
        if self.cfg.programs is None:
            last = first + self.cfg.shard_size
            known = KnownPrograms(self.work / "synth", shard - KNOWN_LAG + 1, self.cfg.identity())
        else:  # records given: none is synthesized, so none is skipped as known
            last, known = min(first + self.cfg.shard_size, self.cfg.max_rows), None
        return [(release_chunk, [self.cfg, a, min(a + CHUNK_ROWS, last), known]) for a in range(first, last, CHUNK_ROWS)]

    def on_result(self, chunk: dict) -> None:
        self.pending += sum(len(r["out"]["trace"]) for r in chunk["rows"] if r["out"])
        self._show()

    def finish(self, shard: int, results: list[dict]) -> bool:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from execverify_data.pipeline import _Tally, write_shard
        from execverify_data.release.config import schema_for
        from execverify_data.release.rows import CONFIGS

        self.pending -= sum(len(r["out"]["trace"]) for chunk in results for r in chunk["rows"] if r["out"])
        tally = _Tally()
        counts: Counter = Counter()
        records, rows, figures = [], {c: [] for c in CONFIGS}, []
        failing = {f["id"] for chunk in results for f in chunk["failures"]}
        failures = []
        for row in (row for chunk in results for row in chunk["rows"]):
            if self.examples + len(rows["trace"]) >= self.cfg.n:
                break  # past the n-th example: left out, not counted
            counts.update(row["skipped"])
            if row["record"] is not None and not any(row["out"].values()):
                row = {**row, "record": None}  # no rows (decontaminated...): not a kept program, nor a duplicate
            if not tally.add(row, self.seen):
                continue
            records.append(row["record"])
            if row.get("naturalness") is not None:
                figures.append({"program_id": row["record"]["id"], "figures": row["naturalness"]})
            for config, items in row["out"].items():
                rows[config].extend(items)
                failures += [r["id"] for r in items if r["id"] in failing]
        counts["programs_kept"] = len(records)
        stats = tally.stats()
        stats["seconds"] = sum(chunk["seconds"] for chunk in results)
        write_shard(self.work / "synth", shard, records, stats)
        for config in CONFIGS:
            table = pa.Table.from_pylist(rows[config], schema=schema_for(config))
            write_atomic(rows_path(self.work, shard, config), lambda p: pq.write_table(table, p, compression="zstd"))
        why = {f["id"]: f for chunk in results for f in chunk["failures"]}
        result = {"shard": shard, "counts": dict(sorted(counts.items())), "rows": {c: len(rows[c]) for c in CONFIGS},
                  "synth_rejected": stats["rejected"], "synth_slots": stats["rows"], "synth_accepted": stats["accepted"],
                  "verified": {c: len(rows[c]) for c in CONFIGS}, "failures": [why[i] for i in failures],
                  "naturalness": figures}
        write_atomic(done_path(self.work, shard), lambda p: p.write_text(json.dumps(result, indent=1, sort_keys=True)))
        self.examples += len(rows["trace"])
        self.start = shard + 1
        self._show()
        return self.complete
