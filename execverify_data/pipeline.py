"""The synthesis pipeline: spec -> program -> inputs -> traces -> records, in deterministic shards.

Row ``i`` of a run depends on ``(seed, i)`` only: its level is ``levels[i % len(levels)]``
and each attempt ``a`` at it uses the seed :func:`row_seed` ``(seed, i, a)``, from
which the target, the spec, the program and the inputs are all drawn. A run keeps the
first ``n`` distinct programs in row order: a row whose every attempt fails, or whose
program has the normalized AST of an earlier row's, is left out (and counted), and the
rows after ``n`` are tried until ``n`` programs are kept. Shard ``s`` holds the kept
programs of rows ``[s * shard_size, (s + 1) * shard_size)``; it is written atomically
(temporary file + rename) with its statistics beside it, once every earlier shard is
written, so a killed run resumes after its last shard, and the output is byte-identical
whatever the number of workers.

>>> row_seed(0, 5) == row_seed(0, 5), row_seed(0, 5) != row_seed(1, 5)
(True, True)
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import statistics
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from execverify_data.errors import InvalidArgument
from execverify_data.workdir import claim_folder, write_atomic

__all__ = ["SynthConfig", "row_seed", "level_for", "iter_rows", "synthesize_chunk", "synthesize_rows", "synthesize",
           "summarize", "SCHEMA_FIELDS", "PROVENANCE_FIELDS"]

#: Attempts (fresh seeds) per row before the row is given up.
ROW_ATTEMPTS = 12
#: Rows per work unit (a shard is split into chunks, so every worker has work even for one shard).
CHUNK_ROWS = 25
#: A run stops trying rows after ``MAX_ROWS_FACTOR * n + shard_size`` rows even if it kept fewer than ``n`` programs.
MAX_ROWS_FACTOR = 4
SCHEMA_FIELDS = ("id", "row", "seed", "level", "spec", "target", "code", "entry_point", "param_types", "param_domains",
                 "inputs", "outputs", "output_types", "trace_lengths", "ast_hash", "catalog_ids", "python", "generator_version")
#: Columns after :data:`SCHEMA_FIELDS` in the records of programs not synthesized here (``execverify from-code``):
#: where each came from, whether each input is a seed (from the source's tests) or generated, the branch coverage.
PROVENANCE_FIELDS = ("source", "source_id", "input_origins", "branch_coverage")


@dataclass(frozen=True)
class SynthConfig:
    """One synthesis run.

    Args:
        n (`int`): distinct programs the run keeps (rows are tried in order until it has them,
            or until :attr:`max_rows` rows were tried).
        seed (`int`): the global seed.
        levels (`tuple[int, ...]`, defaults to 1-6): levels in equal shares (row i gets ``levels[i % len]``).
        k (`int`, defaults to 3): inputs per program.
        shard_size (`int`, defaults to 500): rows per shard.
        max_steps (`int`), timeout (`float`): per-call budgets.
        min_size, max_size (`int`): input length bounds.
        tracer (`str`, defaults to ``"inprocess"``): ``"inprocess"`` or ``"trusted"`` (see :mod:`execverify_data.synth.filters`).
    """

    n: int
    seed: int = 0
    levels: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    k: int = 3
    shard_size: int = 500
    max_steps: int = 5000
    timeout: float = 2.0
    min_size: int = 6
    max_size: int = 10
    tracer: str = "inprocess"

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise InvalidArgument(f"n must be a positive int, got {self.n!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise InvalidArgument(f"seed must be a non-negative int, got {self.seed!r}")
        levels = tuple(self.levels)
        if not levels or any(lv not in (1, 2, 3, 4, 5, 6) for lv in levels) or len(set(levels)) != len(levels):
            raise InvalidArgument(f"levels must be distinct values from 1 to 6, got {self.levels!r}")
        object.__setattr__(self, "levels", levels)
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 3:
            raise InvalidArgument(f"inputs per program must be an int >= 3, got {self.k!r}")
        if not isinstance(self.shard_size, int) or self.shard_size < 1:
            raise InvalidArgument(f"shard_size must be a positive int, got {self.shard_size!r}")
        if self.tracer not in ("inprocess", "trusted"):
            raise InvalidArgument(f"tracer must be 'inprocess' or 'trusted', got {self.tracer!r}")
        if not 0 <= self.min_size <= self.max_size:
            raise InvalidArgument(f"need 0 <= min_size <= max_size, got {self.min_size}, {self.max_size}")

    @property
    def max_rows(self) -> int:
        """The most rows a run tries (a generator that keeps failing must not loop for ever)."""
        return MAX_ROWS_FACTOR * self.n + self.shard_size

    def identity(self) -> dict:
        """What must match for a rerun to resume this run's shards."""
        from execverify_data.synth.generator import GENERATOR_VERSION

        data = asdict(self)
        data["levels"] = list(self.levels)
        data["generator_version"] = GENERATOR_VERSION
        data["python"] = platform.python_version()
        return data


def row_seed(seed: int, i: int, attempt: int = 0) -> int:
    """The seed of attempt ``attempt`` at row ``i`` of a run with global ``seed`` (63 bits)."""
    digest = hashlib.sha256(f"execverify-synth:{seed}:{i}:{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def level_for(i: int, levels: tuple[int, ...]) -> int:
    """Row ``i``'s level: the levels in equal shares, round robin."""
    return levels[i % len(levels)]


# ---------------------------------------------------------------------------- rows


def _record(config: SynthConfig, i: int, seed: int, acc) -> dict:
    from execverify_data.synth.generator import GENERATOR_VERSION

    spec = acc.spec.to_dict()
    return {
        "id": f"synth-{config.seed}-{i:07d}",
        "row": i,
        "seed": seed,
        "level": acc.program.level,
        "spec": spec,
        "target": acc.program.target,
        "code": acc.program.code,
        "entry_point": acc.program.entry_point,
        "param_types": list(acc.program.param_types),
        "param_domains": list(acc.program.param_domains) or [""] * len(acc.program.param_types),
        "inputs": acc.inputs,
        "outputs": [t.output.text for t in acc.traces],
        "output_types": [t.output.type for t in acc.traces],
        "trace_lengths": [len(t.events) for t in acc.traces],
        "ast_hash": acc.ast_hash,
        "catalog_ids": acc.catalog_ids,
        "python": acc.traces[0].python,
        "generator_version": GENERATOR_VERSION,
    }


def iter_rows(config: SynthConfig, start: int, stop: int, *, tracer):
    """Each row of ``[start, stop)`` in order: ``(i, level, counts, accepted or None, seed)``.

    A row tries up to :data:`ROW_ATTEMPTS` fresh seeds and keeps the first program that passes
    every filter; ``counts`` says what its attempts met (``attempts``, ``generated``,
    ``generation_failed``, a rejection reason per failed attempt, ``input_raised``, ``row_given_up``).
    """
    from execverify_data.synth.generator import GenFail
    from execverify_data.synth.filters import FilterConfig, evaluate
    from execverify_data.synth.generator import generate, spec_for

    fconfig = FilterConfig(k=config.k, max_steps=config.max_steps, timeout=config.timeout)
    for i in range(start, stop):
        level = level_for(i, config.levels)
        counts: Counter = Counter()
        found = None
        for attempt in range(ROW_ATTEMPTS):
            s = row_seed(config.seed, i, attempt)
            spec = spec_for(level, s, min_size=config.min_size, max_size=config.max_size)
            counts["attempts"] += 1
            try:
                program = generate(spec, s)
            except GenFail:
                counts["generation_failed"] += 1
                continue
            counts["generated"] += 1
            inputs_raised: dict[str, int] = {}
            acc, reason = evaluate(program, spec, seed=s, config=fconfig, tracer=tracer, counts=inputs_raised)
            counts["input_raised"] += inputs_raised.get("input_raised", 0)
            if acc is None:
                counts[reason] += 1
                continue
            found = (acc, s)
            break
        else:
            counts["row_given_up"] += 1
        yield i, level, +counts, found[0] if found else None, found[1] if found else None


_TRACERS: dict[tuple, object] = {}


def _worker_tracer(config: SynthConfig):
    """One :class:`~execverify_data.synth.filters.Tracer` per worker process and settings (its second
    interpreter starts once, not once per chunk); it closes when the process exits."""
    from execverify_data.synth.filters import Tracer

    key = (config.tracer, config.max_steps, config.timeout)
    tracer = _TRACERS.get(key)
    if tracer is None:
        import atexit

        tracer = _TRACERS[key] = Tracer(config.tracer, max_steps=config.max_steps, timeout=config.timeout)
        atexit.register(tracer.close)
    return tracer


def synthesize_chunk(config: SynthConfig, start: int, stop: int) -> dict:
    """The work unit of :func:`synthesize`: rows ``[start, stop)`` as
    ``{"rows": [{"row", "level", "counts", "record"}...], "seconds"}`` (``record`` is None for a row given up).

    Duplicates are not removed here: which of two equal programs a run keeps depends on the rows
    before it, which only the process that finishes shards in order knows.
    """
    t0 = time.perf_counter()
    tracer = _worker_tracer(config)
    rows = [{"row": i, "level": level, "counts": dict(counts), "record": None if acc is None else _record(config, i, s, acc)}
            for i, level, counts, acc, s in iter_rows(config, start, stop, tracer=tracer)]
    return {"rows": rows, "seconds": time.perf_counter() - t0}


def synthesize_rows(config: SynthConfig, start: int, stop: int, *, tracer=None) -> tuple[list[dict], dict]:
    """Records for rows ``[start, stop)`` (duplicates within the range dropped, as a run drops them)
    and the statistics of their attempts, in this process."""
    from execverify_data.synth.filters import Tracer

    own = tracer is None
    tracer = tracer or Tracer(config.tracer, max_steps=config.max_steps, timeout=config.timeout)
    t0 = time.perf_counter()
    try:
        rows = [{"row": i, "level": level, "counts": dict(counts), "record": None if acc is None else _record(config, i, s, acc)}
                for i, level, counts, acc, s in iter_rows(config, start, stop, tracer=tracer)]
    finally:
        if own:
            tracer.close()
    tally = _Tally()
    records = [row["record"] for row in rows if tally.add(row, set())]
    stats = tally.stats()
    stats["seconds"] = time.perf_counter() - t0
    return records, stats


class _Tally:
    """Counts of a run of rows, in the form of a shard's statistics file."""

    def __init__(self) -> None:
        self.rejected: Counter = Counter()
        self.by_level: dict[str, Counter] = {}
        self.rows = self.accepted = 0

    def add(self, row: dict, seen: set[str]) -> bool:
        """Count ``row``; True when its program is kept (new to ``seen``, which it joins)."""
        stats = self.by_level.setdefault(str(row["level"]), Counter())
        self.rows += 1
        stats["rows"] += 1
        for name, value in row["counts"].items():
            stats[name] += value
            if name not in ("attempts", "generated"):
                self.rejected[name] += value
        record = row["record"]
        if record is None:
            return False
        if record["ast_hash"] in seen:
            stats["duplicate"] += 1
            self.rejected["duplicate"] += 1
            return False
        seen.add(record["ast_hash"])
        stats["accepted"] += 1
        self.accepted += 1
        return True

    def stats(self) -> dict:
        return {"rejected": dict(sorted(self.rejected.items())),
                "by_level": {k: dict(sorted(v.items())) for k, v in sorted(self.by_level.items())},
                "rows": self.rows, "accepted": self.accepted}


# ---------------------------------------------------------------------------- shards


def _schema(provenance: bool = False):
    import pyarrow as pa

    spec = pa.struct([
        ("target", pa.string()), ("nested_depth", pa.int64()), ("other_methods", pa.bool_()),
        ("control_flow", pa.list_(pa.string())), ("helper_depth", pa.int64()), ("n_params", pa.int64()),
        ("min_size", pa.int64()), ("max_size", pa.int64()),
    ])
    strings = pa.list_(pa.string())
    extra = [("source", pa.string()), ("source_id", pa.string()), ("input_origins", strings),
             ("branch_coverage", pa.float64())] if provenance else []
    return pa.schema([
        ("id", pa.string()), ("row", pa.int64()), ("seed", pa.int64()), ("level", pa.int64()), ("spec", spec),
        ("target", pa.string()), ("code", pa.string()), ("entry_point", pa.string()), ("param_types", strings),
        ("param_domains", strings), ("inputs", strings), ("outputs", strings), ("output_types", strings), ("trace_lengths", pa.list_(pa.int64())),
        ("ast_hash", pa.string()), ("catalog_ids", strings), ("python", pa.string()), ("generator_version", pa.string()),
        *extra,
    ])


def shard_path(out: Path, shard: int) -> Path:
    return out / f"shard-{shard:05d}.parquet"


def stats_path(out: Path, shard: int) -> Path:
    return out / f"shard-{shard:05d}.stats.json"


def write_shard(out: Path, shard: int, records: list[dict], stats: dict, *, provenance: bool | None = None) -> None:
    """Write a shard's records (parquet) and statistics (JSON), each atomically, the statistics last.

    ``provenance`` adds the :data:`PROVENANCE_FIELDS` columns (by default: when a record has them)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if provenance is None:
        provenance = any("source" in r for r in records)
    table = pa.Table.from_pylist(records, schema=_schema(provenance))
    write_atomic(shard_path(out, shard), lambda p: pq.write_table(table, p, compression="zstd"))
    stats = {**stats, "shard": shard}
    write_atomic(stats_path(out, shard), lambda p: p.write_text(json.dumps(stats, indent=1, sort_keys=True)))


def finished_shards(out: Path) -> int:
    """How many shards, from shard 0 on, are written (records and statistics)."""
    s = 0
    while shard_path(out, s).exists() and stats_path(out, s).exists():
        s += 1
    return s


def chunks(config: SynthConfig, shard: int) -> list[tuple[int, int]]:
    """The row ranges of shard ``shard``, :data:`CHUNK_ROWS` rows each."""
    first = shard * config.shard_size
    return [(a, min(a + CHUNK_ROWS, first + config.shard_size)) for a in range(first, first + config.shard_size, CHUNK_ROWS)]


def _init_worker(memory_mb: int | None) -> None:  # pragma: no cover - runs in worker processes
    import warnings

    warnings.simplefilter("ignore", SyntaxWarning)  # e.g. "is" with a literal in a generated program
    if memory_mb:
        import resource

        limit = memory_mb * 1024 * 1024
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):
            pass


class _Run:
    """The parent's side of a run: finishes shards in order, keeps the first ``n`` distinct programs."""

    provenance: bool | None = None  # see write_shard

    def __init__(self, config: SynthConfig, out: Path, progress: Callable[[int, int], None] | None):
        import pyarrow.parquet as pq

        self.config, self.out, self.progress = config, out, progress
        self.seen: set[str] = set()
        self.kept = 0
        self.start = finished_shards(out)
        for s in range(self.start):
            hashes = pq.read_table(shard_path(out, s), columns=["ast_hash"]).column("ast_hash").to_pylist()
            self.seen.update(hashes)
            self.kept += len(hashes)
        self.pending = 0  # programs in chunks done but not yet in a finished shard (not yet checked for duplicates)
        self.accepted_now = 0
        self._show()

    @property
    def complete(self) -> bool:
        return self.kept >= self.config.n or self.start * self.config.shard_size >= self.config.max_rows

    def _show(self) -> None:
        if self.progress:
            self.progress(min(self.config.n, self.kept + self.pending), self.config.n)

    def on_result(self, chunk: dict) -> None:
        self.pending += sum(row["record"] is not None for row in chunk["rows"])
        self._show()

    def finish(self, shard: int, results: list[dict]) -> bool:
        tally = _Tally()
        records = []
        for chunk in results:
            self.pending -= sum(row["record"] is not None for row in chunk["rows"])
        for row in (row for chunk in results for row in chunk["rows"]):
            if self.kept + len(records) >= self.config.n:
                break  # the rest of the shard is past the n-th program: left out, not counted
            if tally.add(row, self.seen):
                records.append(row["record"])
        stats = tally.stats()
        stats["seconds"] = sum(chunk["seconds"] for chunk in results)
        write_shard(self.out, shard, records, stats, provenance=self.provenance)
        self.kept += len(records)
        self.accepted_now += len(records)
        self.start = shard + 1
        self._show()
        return self.complete


def synthesize(config: SynthConfig, out: str | os.PathLike, *, workers: int = 1,
               progress: Callable[[int, int], None] | None = None, memory_mb: int | None = 1024) -> dict:
    """Run (or resume) a synthesis run into ``out``; returns the summary (also written to ``summary.json``).

    The run keeps the first ``config.n`` distinct programs (by normalized AST) in row order: rows
    whose attempts all fail, and duplicates of an earlier row's program, are left out and counted,
    and further rows are tried (up to ``config.max_rows``). Chunks of :data:`CHUNK_ROWS` rows run in
    ``workers`` spawned processes started with ``PYTHONHASHSEED=0`` (:mod:`execverify_data.workpool`);
    shards are written in order as their chunks finish, so the output does not depend on the number
    of workers, and a killed run resumes after its last written shard.
    ``progress(programs, n)`` is called as chunks finish (programs not yet checked for duplicates
    count provisionally; the count never exceeds ``n`` and ends at the number written).
    """
    from execverify_data.workpool import run_ordered, spawn_pool

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidArgument(f"workers must be a positive int, got {workers!r}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    claim_folder(out, config.identity(), hint="use another --out")
    run = _Run(config, out, progress)
    resumed = run.start
    t0 = time.perf_counter()
    if not run.complete:
        # the trusted runner applies its own per-job limit; its children must be free to set it
        with spawn_pool(workers, initializer=_init_worker,
                        initargs=(memory_mb if config.tracer == "inprocess" else None,)) as submit:
            run_ordered(submit, lambda s: [(synthesize_chunk, [config, a, b]) for a, b in chunks(config, s)],
                        run.finish, start=run.start, inflight=2 * workers + 2, on_result=run.on_result)
    wall = time.perf_counter() - t0
    summary = summarize(out, config)
    summary["throughput"] = {
        "this_invocation_seconds": round(wall, 3),
        "accepted_this_invocation": run.accepted_now,
        "accepted_per_second": round(run.accepted_now / wall, 2) if wall > 0 and run.accepted_now else None,
        "workers": workers,
        "shards_run": run.start - resumed,
        "shards_resumed": resumed,
    }
    write_atomic(out / "summary.json", lambda p: p.write_text(json.dumps(summary, indent=1, sort_keys=True)))
    return summary


def summarize(out: str | os.PathLike, config: SynthConfig) -> dict:
    """Counts per filter and level, acceptance, coverage, uniqueness and trace lengths over all finished shards."""
    import pyarrow.parquet as pq

    from execverify_data import catalog

    out = Path(out)
    rejected: Counter = Counter()
    by_level: dict[str, Counter] = {}
    seconds = 0.0
    n_shards = finished_shards(out)
    for s in range(n_shards):
        stats = json.loads(stats_path(out, s).read_text())
        rejected.update(stats["rejected"])
        seconds += stats["seconds"]
        for lv, c in stats["by_level"].items():
            by_level.setdefault(lv, Counter()).update(c)
    hashes: list[str] = []
    ids: set[str] = set()
    lengths: dict[int, list[float]] = {}
    accepted = 0
    for s in range(n_shards):
        table = pq.read_table(shard_path(out, s), columns=["level", "ast_hash", "catalog_ids", "trace_lengths"]).to_pydict()
        accepted += len(table["level"])
        hashes += table["ast_hash"]
        for row in table["catalog_ids"]:
            ids.update(row)
        for lv, tl in zip(table["level"], table["trace_lengths"]):
            lengths.setdefault(lv, []).extend(tl)
    all_ids = {e.id for e in catalog.ENTRIES}
    levels = {}
    for lv, c in sorted(by_level.items()):
        levels[lv] = dict(sorted(c.items()))
        levels[lv]["acceptance_rate"] = round(c["accepted"] / c["attempts"], 4) if c["attempts"] else None
        levels[lv]["row_yield"] = round(c["accepted"] / c["rows"], 4) if c["rows"] else None
        tl = lengths.get(int(lv), [])
        levels[lv]["median_trace_length"] = statistics.median(tl) if tl else None
    attempts = sum(c["attempts"] for c in by_level.values())
    return {
        "config": config.identity(),
        "programs_wanted": config.n,
        "rows": sum(c["rows"] for c in by_level.values()),
        "shards": n_shards,
        "accepted": accepted,
        "attempts": attempts,
        "acceptance_rate": round(accepted / attempts, 4) if attempts else None,
        "rejected": dict(sorted(rejected.items())),
        "levels": levels,
        "catalog_coverage": {
            "entries_used": len(ids & all_ids),
            "entries_total": len(all_ids),
            "fraction": round(len(ids & all_ids) / len(all_ids), 4),
            "missing": sorted(all_ids - ids),
        },
        "structural_uniqueness": round(len(set(hashes)) / len(hashes), 4) if hashes else None,
        "worker_seconds": round(seconds, 3),
        "accepted_per_worker_second": round(accepted / seconds, 2) if seconds else None,
    }
