"""A release built from given program records (``execverify build-release --programs DIR``) instead
of synthesizing them: the records of a ``synthesize`` or ``from-code`` output folder, read in order.

Record ``i`` of the folder (its finished shards in order, their rows in order) is row ``i`` of the
build. Its inputs are traced again in the trusted runner (a fork per call, as ``synthesize --tracer
trusted`` traces: from-code records hold code nobody here wrote) and must give the recorded outputs
(``retrace_mismatch`` otherwise); the rows of every config are then made, decontaminated and
verified as for synthesized programs (:func:`execverify_data.release.engine.release_chunk`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

from execverify_data.errors import InvalidArgument

__all__ = ["program_count", "program_rows"]


@lru_cache(maxsize=2)
def _records(folder: str) -> tuple[dict, ...]:
    import pyarrow.parquet as pq

    from execverify_data.pipeline import finished_shards, shard_path

    out = []
    for s in range(finished_shards(Path(folder))):
        out += pq.read_table(shard_path(Path(folder), s)).to_pylist()
    return tuple(out)


def program_count(folder: str | Path) -> int:
    """How many records the folder's finished shards hold (InvalidArgument when it has none)."""
    from execverify_data.pipeline import finished_shards

    folder = Path(folder)
    if not folder.is_dir() or finished_shards(folder) == 0:
        raise InvalidArgument(f"{folder}: no record shards (shard-00000.parquet and its .stats.json); "
                              "give the --out folder of `execverify synthesize` or `execverify from-code`")
    return len(_records(str(folder)))


def program_rows(cfg, start: int, stop: int):
    """Rows ``[start, stop)`` of the folder ``cfg.programs`` as ``(i, level, counts, record, traces, trace_many)``;
    ``record`` is None (and ``counts`` says why) when its inputs do not trace to its outputs again."""
    from execverify_data.pipeline import _worker_tracer
    from execverify_data.release.rows import RETRACE_TIMEOUT
    from execverify_data.trace import Status

    records = _records(str(cfg.programs))
    tracer = _worker_tracer(SimpleNamespace(tracer="trusted", max_steps=cfg.max_steps, timeout=RETRACE_TIMEOUT))
    for i in range(start, min(stop, len(records))):
        rec = records[i]
        counts = {"attempts": 1, "generated": 1}
        traces = tracer.trace_many(rec["code"], [f"{rec['entry_point']}({x})" for x in rec["inputs"]])
        if any(t.status is not Status.OK or t.output.text != o for t, o in zip(traces, rec["outputs"])):
            yield i, rec["level"], {**counts, "retrace_mismatch": 1}, None, None, None
            continue
        yield i, rec["level"], counts, rec, traces, tracer.trace_many
