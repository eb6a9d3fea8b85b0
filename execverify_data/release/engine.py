"""Engines that run the release's work units: local processes or Ray Data.

The unit of work is :func:`process_shard`: seed range ``[s * shard_size, (s + 1) * shard_size)``
-> one synthesis shard -> the rows of every config for it, written atomically into
the build's work folder. It depends on ``(config, shard)`` only, and runs with
``PYTHONHASHSEED=0``, so both engines (and any number of workers) write the same bytes.
"""

from __future__ import annotations

import json
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

from execverify_data.errors import InvalidArgument
from execverify_data.sandbox.warm import hash_seeded_pool
from execverify_data.workdir import write_atomic

__all__ = ["ENGINES", "process_shard", "rows_path", "shard_done", "run_local", "run_ray", "is_ray_available"]


def rows_path(work: Path, shard: int, config: str) -> Path:
    return work / "rows" / f"shard-{shard:05d}.{config}.parquet"


def done_path(work: Path, shard: int) -> Path:
    return work / "rows" / f"shard-{shard:05d}.done.json"


def shard_done(work: Path, shard: int) -> bool:
    return done_path(work, shard).exists()


@lru_cache(maxsize=4)
def _decontaminator(local: tuple[tuple[str, str], ...], n: int, threshold: float):
    from execverify_data.decontam import Decontaminator

    return Decontaminator.default(local=dict(local), n=n, threshold=threshold)


def process_shard(cfg, work: str | os.PathLike, shard: int) -> dict:
    """Synthesize shard ``shard`` (unless cached), build and verify its rows, write them; return its counts."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from execverify_data.pipeline import run_shard, shard_path
    from execverify_data.release.config import schema_for
    from execverify_data.release.rows import CONFIGS, rows_for_shard

    if sys.flags.hash_randomization:
        raise InvalidArgument("process_shard must run with PYTHONHASHSEED=0 (set orders in traced values depend on it)")
    work = Path(work)
    synth_dir = work / "synth"
    (work / "rows").mkdir(parents=True, exist_ok=True)
    synth_dir.mkdir(parents=True, exist_ok=True)
    if shard_done(work, shard):
        return json.loads(done_path(work, shard).read_text())
    synth = cfg.synth_config()
    stats_file = synth_dir / f"shard-{shard:05d}.stats.json"
    if not (shard_path(synth_dir, shard).exists() and stats_file.exists()):
        run_shard(synth, synth_dir, shard)
    synth_stats = json.loads(stats_file.read_text())
    records = pq.read_table(shard_path(synth_dir, shard)).to_pylist()
    decon = _decontaminator(cfg.local_benchmarks, cfg.decontam_n, cfg.decontam_threshold)
    rows, counts = rows_for_shard(records, cfg, decon=decon)
    for config in CONFIGS:
        table = pa.Table.from_pylist(rows[config], schema=schema_for(config))
        write_atomic(rows_path(work, shard, config), lambda p: pq.write_table(table, p, compression="zstd"))
    result = {"shard": shard, "counts": counts, "rows": {c: len(rows[c]) for c in CONFIGS},
              "synth_rejected": synth_stats["rejected"], "synth_slots": synth_stats["rows"], "synth_accepted": synth_stats["accepted"]}
    write_atomic(done_path(work, shard), lambda p: p.write_text(json.dumps(result, indent=1, sort_keys=True)))
    return result


def _job(args) -> dict:  # pragma: no cover - runs in worker processes
    import warnings

    warnings.simplefilter("ignore", SyntaxWarning)
    cfg, work, shard = args
    return process_shard(cfg, work, shard)


def run_local(cfg, work: Path, shards: Iterable[int], *, workers: int = 1, on_done: Callable[[dict], None] | None = None) -> None:
    """Run ``shards`` in ``workers`` spawned processes (``PYTHONHASHSEED=0``)."""
    shards = list(shards)
    if not shards:
        return
    with hash_seeded_pool(min(workers, len(shards))) as pool:
        for result in pool.imap_unordered(_job, [(cfg, str(work), s) for s in shards]):
            if on_done:
                on_done(result)


def is_ray_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None


def run_ray(cfg, work: Path, shards: Iterable[int], *, workers: int = 1, on_done: Callable[[dict], None] | None = None,
            address: str | None = None) -> None:
    """Run ``shards`` as a Ray Data pipeline: one row per shard, ``map`` = :func:`process_shard`.

    Connects to ``address`` (or ``RAY_ADDRESS``, read by Ray itself) when given, else starts a
    local Ray with ``workers`` CPUs. ``work`` must be on storage every node can write (NFS, a
    mounted bucket) when the cluster has several nodes.
    """
    if not is_ray_available():
        raise ImportError("the ray engine needs Ray Data: pip install 'execverify-data[ray]'")
    import ray

    shards = list(shards)
    if not shards:
        return
    started = False
    if not ray.is_initialized():
        kwargs = {"address": address} if address else {"num_cpus": workers, "include_dashboard": False}
        ray.init(runtime_env={"env_vars": {"PYTHONHASHSEED": "0"}}, log_to_driver=False, **kwargs)
        started = True
    try:
        ds = ray.data.from_items([{"shard": s} for s in shards], override_num_blocks=len(shards))
        work_s = str(work)

        def fn(row: dict) -> dict:
            result = process_shard(cfg, work_s, int(row["shard"]))
            return {"result": json.dumps(result, sort_keys=True)}

        for row in ds.map(fn, num_cpus=1).iter_rows():
            if on_done:
                on_done(json.loads(row["result"]))
    finally:
        if started:
            ray.shutdown()


ENGINES = {"local": run_local, "ray": run_ray}
