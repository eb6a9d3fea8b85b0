"""The release's work: chunks of rows synthesized, turned into the rows of every config and
verified in the workers; shards finished in row order in the parent.

The unit of work is :func:`release_chunk`: rows ``[start, stop)`` of the release's synthesis
run -> for each accepted program, its rows in every config, made from the traces synthesis
recorded (nothing is traced twice), decontaminated, and each reference answer scored by the
consumers' own functions (:mod:`execverify_data.release.verify`). It depends on
``(config, start, stop)`` only and runs with ``PYTHONHASHSEED=0``, so both engines (local
processes, Ray tasks; :mod:`execverify_data.shards`) and any number of workers write the same
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
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Callable

from execverify_data import shards
from execverify_data.errors import InvalidArgument
from execverify_data.records import RowOutcome, Tally

__all__ = ["ProgramRows", "ReleaseRun", "done_markers", "release_chunk", "rows_file"]

#: A release shard is finished once its ``done.json`` marker is written (after the rows of every config).
DONE = "done.json"


def rows_file(work: Path, shard: int, config: str) -> Path:
    """The rows of ``config`` that shard ``shard`` of a work folder made."""
    return shards.shard_file(work / "rows", shard, f"{config}.parquet")


def done_markers(work: Path) -> list[dict]:
    """The ``done.json`` markers of a work folder's finished shards, in order."""
    folder = work / "rows"
    return [json.loads(shards.shard_file(folder, s, DONE).read_text())
            for s in range(shards.finished_shards(folder, DONE))]


@lru_cache(maxsize=4)
def decontaminator(local: tuple[tuple[str, str], ...], n: int, threshold: float, allow: tuple[str, ...] = ()):
    """This process's :class:`~execverify_data.decontam.Decontaminator` for these settings (built once)."""
    from execverify_data.decontam import Decontaminator

    return Decontaminator.default(local=dict(local), n=n, threshold=threshold, exclude=allow)


@lru_cache(maxsize=1)
def _verifier():
    """One :class:`~execverify_data.release.verify.Verifier` per worker process (closed at exit)."""
    import atexit

    from execverify_data.release.verify import Verifier

    verifier = Verifier()
    atexit.register(verifier.close)
    return verifier


@dataclass
class ProgramRows:
    """One synthesis row of a release chunk: its outcome and, for a kept program, its rows of every config
    (``out``), why it has none (``skipped``), and its naturalness figures when its row is measured."""

    outcome: RowOutcome
    out: dict[str, list[dict]] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    naturalness: dict | None = None

    @property
    def examples(self) -> int:
        return len(self.out.get("trace", ()))


def release_chunk(cfg, start: int, stop: int, known=None) -> dict:
    """Rows ``[start, stop)`` as ``{"rows": [ProgramRows...], "failures", "checked", "seconds"}``: ``failures`` lists
    the rows whose reference answer does not get full marks (the build fails on them), ``checked`` the ids of the rows
    the verifier scored (the manifest counts them). ``known``
    (:class:`~execverify_data.shards.KnownPrograms`) ends the rows whose program an earlier shard kept,
    before anything runs."""
    from execverify_data.naturalness import program_figures
    from execverify_data.release.rows import CONFIGS, rows_for_program

    if sys.flags.hash_randomization:
        raise InvalidArgument("release_chunk must run with PYTHONHASHSEED=0 (set orders in traced values depend on it)")
    t0 = time.perf_counter()
    decon = decontaminator(cfg.local_benchmarks, cfg.decontam_n, cfg.decontam_threshold, cfg.decontam_allow)
    if cfg.programs:  # records given (build-release --programs): read, not synthesized
        from execverify_data.release.programs import given_rows

        outcomes, backend = given_rows(cfg, start, stop)
    else:
        from execverify_data.pipeline import program_rows
        from execverify_data.synth.filters import worker_tracer

        synth = cfg.synth_config()
        backend = worker_tracer(synth.tracer, synth.max_steps, synth.timeout)
        outcomes = program_rows(synth, start, stop, tracer=backend, known=known)
    rows, chunk_rows = [], {c: [] for c in CONFIGS}
    for outcome in outcomes:
        made = ProgramRows(replace(outcome, traces=None))
        record = outcome.record
        if record is not None:
            made.out, made.skipped = rows_for_program(record, cfg, outcome.traces, backend.trace_many, decon=decon)
            if made.examples and outcome.row % cfg.naturalness_every == 0:
                made.naturalness = program_figures(record.code, record.entry_point, record.inputs,
                                                   types=record.param_types, seed=cfg.seed)
            for config, items in made.out.items():
                chunk_rows[config].extend(items)
        rows.append(made)
    verifier = _verifier()
    failures = verifier.check(chunk_rows)
    return {"rows": rows, "failures": failures, "checked": verifier.checked, "seconds": time.perf_counter() - t0}


class ReleaseRun(shards.ShardRun):
    """The parent's side of a build: finishes shards in order into the work folder (``rows/``: each config's
    rows and the ``done.json`` marker, written last; ``synth/``: the kept programs' record shards).

    A program is kept when it has rows and its normalized AST is new to the build; the build has
    enough once the ``trace`` config holds ``cfg.n_examples`` examples (or ``cfg.max_rows`` rows were tried).
    """

    MARKERS = (DONE,)
    LAG = shards.KNOWN_LAG

    def __init__(self, cfg, work: Path, progress: Callable[[int, int], None] | None = None):
        self.cfg, self.work = cfg, Path(work)
        (self.work / "synth").mkdir(parents=True, exist_ok=True)
        (self.work / "rows").mkdir(parents=True, exist_ok=True)
        super().__init__(self.work / "rows", progress)
        self.seen: set[str] = set()
        self.examples = self.pending = 0
        for s, done in enumerate(done_markers(self.work)):
            self.seen.update(shards.record_hashes(self.work / "synth", s))
            self.examples += done["rows"]["trace"]
        self.on_result(None)

    @property
    def complete(self) -> bool:
        return self.examples >= self.cfg.n_examples or self.start * self.cfg.shard_size >= self.cfg.max_rows

    def jobs(self, shard: int) -> list:
        first = shard * self.cfg.shard_size
        if self.cfg.programs is None:
            last = first + self.cfg.shard_size
            known = shards.KnownPrograms(self.work / "synth", shard - shards.KNOWN_LAG + 1, self.cfg.identity())
        else:  # records given: none is synthesized, so none is skipped as known
            last, known = min(first + self.cfg.shard_size, self.cfg.max_rows), None
        return [(release_chunk, [self.cfg, a, min(a + shards.CHUNK_ROWS, last), known])
                for a in range(first, last, shards.CHUNK_ROWS)]

    def on_result(self, chunk: dict | None) -> None:
        self.pending += sum(r.examples for r in chunk["rows"]) if chunk else 0
        self.show(self.examples + self.pending, self.cfg.n_examples)

    def finish(self, shard: int, results: list[dict]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from execverify_data.release.config import schema_for
        from execverify_data.release.rows import CONFIGS

        self.pending -= sum(r.examples for chunk in results for r in chunk["rows"])
        tally = Tally()
        counts: Counter = Counter()
        records, rows, figures = [], {c: [] for c in CONFIGS}, []
        why = {f["id"]: f for chunk in results for f in chunk["failures"]}
        checked = set().union(*(chunk["checked"] for chunk in results))
        failures = []
        for made in (made for chunk in results for made in chunk["rows"]):
            if self.examples + len(rows["trace"]) >= self.cfg.n_examples:
                break  # past the n-th example: left out, not counted
            counts.update(made.skipped)
            outcome = made.outcome
            if outcome.record is not None and not any(made.out.values()):
                outcome = replace(outcome, record=None)  # no rows (decontaminated...): not a kept program, nor a duplicate
            if not tally.add(outcome, self.seen):
                continue
            records.append(outcome.record)
            if made.naturalness is not None:
                figures.append({"program_id": outcome.record.id, "figures": made.naturalness})
            for config, items in made.out.items():
                rows[config].extend(items)
                failures += [why[r["id"]] for r in items if r["id"] in why]
        counts["programs_kept"] = len(records)
        stats = tally.stats()
        stats["seconds"] = sum(chunk["seconds"] for chunk in results)
        shards.write_records(self.work / "synth", shard, records, stats)
        for config in CONFIGS:
            table = pa.Table.from_pylist(rows[config], schema=schema_for(config))
            shards.write_atomic(rows_file(self.work, shard, config), lambda p: pq.write_table(table, p, compression="zstd"))
        shards.write_json(shards.shard_file(self.folder, shard, DONE), {
            "shard": shard, "counts": dict(sorted(counts.items())), "rows": {c: len(rows[c]) for c in CONFIGS},
            "synth_rejected": stats["rejected"], "synth_slots": stats["rows"], "synth_accepted": stats["accepted"],
            "verified": {c: sum(r["id"] in checked for r in rows[c]) for c in CONFIGS}, "failures": failures,
            "naturalness": figures})
        self.examples += len(rows["trace"])
        self.on_result(None)
