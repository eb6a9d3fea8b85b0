"""A release built from given program records (``execverify build-release --programs DIR``) instead
of synthesizing them: the records of a ``synthesize`` or ``from-code`` output folder, read in order.

Record ``i`` of the folder (its finished shards in order, their rows in order) is row ``i`` of the
build. Its inputs are traced again in the untrusted sandbox (a confined child per call, as ``synthesize
--tracer sandbox`` traces: from-code records hold code nobody here wrote) and must give the recorded outputs
(``retrace_mismatch`` otherwise); the rows of every config are then made, decontaminated and
verified as for synthesized programs (:func:`execverify_data.release.engine.release_chunk`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from execverify_data import shards
from execverify_data.errors import InvalidArgument
from execverify_data.records import ProgramRecord, RowOutcome

__all__ = ["given_rows", "program_records"]

#: Wall-clock guard (seconds) when re-tracing given records: far above what the step budget allows.
RETRACE_TIMEOUT = 60.0


@lru_cache(maxsize=2)
def program_records(folder: str | Path) -> tuple[ProgramRecord, ...]:
    """The records of the folder's finished shards, in order (InvalidArgument when it has none)."""
    folder = Path(folder)
    if not folder.is_dir() or shards.finished_shards(folder, *shards.RECORD_MARKERS) == 0:
        raise InvalidArgument(f"{folder}: no record shards (shard-00000.parquet and its .stats.json); "
                              "give the --out folder of `execverify synthesize` or `execverify from-code`")
    return tuple(shards.read_records(folder))


def given_rows(cfg, start: int, stop: int):
    """Rows ``[start, stop)`` of the folder ``cfg.programs`` as :class:`~execverify_data.records.RowOutcome`
    (``record`` None, and ``counts`` saying why, when its inputs do not trace to its outputs again), and the
    sandbox backend that traced them."""
    from execverify_data.synth.filters import worker_tracer
    from execverify_data.trace import Status

    records = program_records(cfg.programs)
    backend = worker_tracer("sandbox", cfg.max_steps, RETRACE_TIMEOUT)

    def outcomes():
        for i in range(start, min(stop, len(records))):
            rec = records[i]
            traces = backend.trace_many(rec.code, rec.calls)
            if any(t.status is not Status.OK or t.output.text != o for t, o in zip(traces, rec.outputs)):
                yield RowOutcome(i, rec.level, "program", {"attempts": 1, "generated": 1, "retrace_mismatch": 1})
            else:
                yield RowOutcome(i, rec.level, "program", {"attempts": 1, "generated": 1}, rec, tuple(traces))

    return outcomes(), backend
