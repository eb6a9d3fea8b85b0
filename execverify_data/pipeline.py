"""The synthesis pipeline: spec -> program -> inputs -> traces -> records, in deterministic shards.

Row ``i`` of a run depends on ``(seed, i)`` only: its level is ``levels[i % len(levels)]``
and each attempt ``a`` at it uses the seed :func:`row_seed` ``(seed, i, a)``, from
which the target, the spec, the program and the inputs are all drawn. A shard is
the seed range ``[shard * shard_size, (shard + 1) * shard_size)``; it is written
atomically (temporary file + rename) with its statistics beside it, so a killed run
resumes by skipping finished shards, and the output is byte-identical whatever
the number of workers. Duplicates (by normalized AST) are removed within a shard.

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
from execverify_data.sandbox.warm import hash_seeded_pool
from execverify_data.workdir import claim_folder, write_atomic

__all__ = ["SynthConfig", "row_seed", "level_for", "synthesize_rows", "run_shard", "synthesize", "summarize", "SCHEMA_FIELDS"]

#: Attempts (fresh seeds) per row before the row is given up.
ROW_ATTEMPTS = 12
SCHEMA_FIELDS = ("id", "row", "seed", "level", "spec", "target", "code", "entry_point", "param_types", "inputs", "outputs",
                 "output_types", "trace_lengths", "ast_hash", "catalog_ids", "python", "generator_version")


@dataclass(frozen=True)
class SynthConfig:
    """One synthesis run.

    Args:
        n (`int`): rows (program slots); rows whose every attempt fails are left out and counted.
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
    def n_shards(self) -> int:
        return -(-self.n // self.shard_size)

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
        "inputs": acc.inputs,
        "outputs": [t.output.text for t in acc.traces],
        "output_types": [t.output.type for t in acc.traces],
        "trace_lengths": [len(t.events) for t in acc.traces],
        "ast_hash": acc.ast_hash,
        "catalog_ids": acc.catalog_ids,
        "python": acc.traces[0].python,
        "generator_version": GENERATOR_VERSION,
    }


def synthesize_rows(config: SynthConfig, start: int, stop: int, *, tracer=None) -> tuple[list[dict], dict]:
    """Records for rows ``[start, stop)`` and the statistics of their attempts."""
    from execverify_data.synth.exprs import GenFail
    from execverify_data.synth.filters import FilterConfig, Tracer, evaluate
    from execverify_data.synth.generator import generate, spec_for

    fconfig = FilterConfig(k=config.k, max_steps=config.max_steps, timeout=config.timeout)
    own = tracer is None
    tracer = tracer or Tracer(config.tracer, max_steps=config.max_steps, timeout=config.timeout)
    rejected: Counter = Counter()
    by_level: dict[str, Counter] = {}
    seen: set[str] = set()
    records = []
    t0 = time.perf_counter()
    try:
        for i in range(start, stop):
            level = level_for(i, config.levels)
            stats = by_level.setdefault(str(level), Counter())
            stats["rows"] += 1
            for attempt in range(ROW_ATTEMPTS):
                s = row_seed(config.seed, i, attempt)
                spec = spec_for(level, s, min_size=config.min_size, max_size=config.max_size)
                stats["attempts"] += 1
                try:
                    program = generate(spec, s)
                except GenFail:
                    rejected["generation_failed"] += 1
                    stats["generation_failed"] += 1
                    continue
                stats["generated"] += 1
                counts: dict[str, int] = {}
                acc, reason = evaluate(program, spec, seed=s, config=fconfig, tracer=tracer, seen=seen, counts=counts)
                rejected["input_raised"] += counts.get("input_raised", 0)
                if acc is None:
                    rejected[reason] += 1
                    stats[reason] += 1
                    continue
                stats["accepted"] += 1
                records.append(_record(config, i, s, acc))
                break
            else:
                rejected["row_given_up"] += 1
                stats["row_given_up"] += 1
    finally:
        if own:
            tracer.close()
    elapsed = time.perf_counter() - t0
    return records, {"rejected": dict(sorted(rejected.items())), "by_level": {k: dict(sorted(v.items())) for k, v in sorted(by_level.items())},
                     "seconds": elapsed, "rows": stop - start, "accepted": len(records)}


# ---------------------------------------------------------------------------- shards


def _schema():
    import pyarrow as pa

    spec = pa.struct([
        ("target", pa.string()), ("nested_depth", pa.int64()), ("other_methods", pa.bool_()),
        ("control_flow", pa.list_(pa.string())), ("helper_depth", pa.int64()), ("n_params", pa.int64()),
        ("min_size", pa.int64()), ("max_size", pa.int64()),
    ])
    strings = pa.list_(pa.string())
    return pa.schema([
        ("id", pa.string()), ("row", pa.int64()), ("seed", pa.int64()), ("level", pa.int64()), ("spec", spec),
        ("target", pa.string()), ("code", pa.string()), ("entry_point", pa.string()), ("param_types", strings),
        ("inputs", strings), ("outputs", strings), ("output_types", strings), ("trace_lengths", pa.list_(pa.int64())),
        ("ast_hash", pa.string()), ("catalog_ids", strings), ("python", pa.string()), ("generator_version", pa.string()),
    ])


def shard_path(out: Path, shard: int) -> Path:
    return out / f"shard-{shard:05d}.parquet"


def run_shard(config: SynthConfig, out: Path, shard: int) -> dict:
    """Build and write shard ``shard`` (parquet + stats JSON); returns its stats."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    start = shard * config.shard_size
    stop = min(config.n, start + config.shard_size)
    records, stats = synthesize_rows(config, start, stop)
    table = pa.Table.from_pylist(records, schema=_schema())
    write_atomic(shard_path(out, shard), lambda p: pq.write_table(table, p, compression="zstd"))
    stats["shard"] = shard
    write_atomic(out / f"shard-{shard:05d}.stats.json", lambda p: p.write_text(json.dumps(stats, indent=1, sort_keys=True)))
    return stats


def _shard_done(out: Path, shard: int) -> bool:
    return shard_path(out, shard).exists() and (out / f"shard-{shard:05d}.stats.json").exists()


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


def _run_shard_job(args) -> dict:  # pragma: no cover - runs in worker processes
    config, out, shard = args
    return run_shard(config, Path(out), shard)


def synthesize(config: SynthConfig, out: str | os.PathLike, *, workers: int = 1,
               progress: Callable[[int, int], None] | None = None, memory_mb: int | None = 1024) -> dict:
    """Run (or resume) a synthesis run into ``out``; returns the summary (also written to ``summary.json``).

    Shards run in ``workers`` spawned processes started with ``PYTHONHASHSEED=0``,
    so set and dict orders inside programs do not depend on the worker.
    ``progress(rows_done, rows_total)`` is called as shards finish.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidArgument(f"workers must be a positive int, got {workers!r}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    claim_folder(out, config.identity(), hint="use another --out")
    todo = [s for s in range(config.n_shards) if not _shard_done(out, s)]
    done_rows = sum(min(config.n, (s + 1) * config.shard_size) - s * config.shard_size for s in range(config.n_shards) if s not in todo)
    if progress:
        progress(done_rows, config.n)
    t0 = time.perf_counter()
    accepted_now = 0
    if todo:
        with hash_seeded_pool(min(workers, len(todo)), initializer=_init_worker,
                              # the trusted runner applies its own per-job limit; its children must be free to set it
                              initargs=(memory_mb if config.tracer == "inprocess" else None,)) as pool:
            for stats in pool.imap_unordered(_run_shard_job, [(config, str(out), s) for s in todo]):
                done_rows += stats["rows"]
                accepted_now += stats["accepted"]
                if progress:
                    progress(done_rows, config.n)
    wall = time.perf_counter() - t0
    summary = summarize(out, config)
    summary["throughput"] = {
        "this_invocation_seconds": round(wall, 3),
        "accepted_this_invocation": accepted_now,
        "accepted_per_second": round(accepted_now / wall, 2) if wall > 0 and accepted_now else None,
        "workers": workers,
        "shards_run": len(todo),
        "shards_resumed": config.n_shards - len(todo),
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
    for s in range(config.n_shards):
        f = out / f"shard-{s:05d}.stats.json"
        if not f.exists():
            continue
        stats = json.loads(f.read_text())
        rejected.update(stats["rejected"])
        seconds += stats["seconds"]
        for lv, c in stats["by_level"].items():
            by_level.setdefault(lv, Counter()).update(c)
    hashes: list[str] = []
    ids: set[str] = set()
    lengths: dict[int, list[float]] = {}
    accepted = 0
    for s in range(config.n_shards):
        p = shard_path(out, s)
        if not p.exists():
            continue
        table = pq.read_table(p, columns=["level", "ast_hash", "catalog_ids", "trace_lengths"]).to_pydict()
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
        "rows": config.n,
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
