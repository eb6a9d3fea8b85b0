"""The sharded, resumable run that ``synthesize``, ``from-code`` and ``build-release`` share.

A run writes its output as *shards* (``shard-00000.<suffix>`` files, each written atomically), in
order, from *chunks* of consecutive rows that run in worker processes (spawned with a fixed hash
seed) or Ray tasks. :func:`run_ordered` submits the chunks of shards ``start, start + 1, ...`` (a
bounded number in flight) and, once every chunk of the oldest open shard is done, hands their
results, in row order, to ``finish(shard, results)``, which writes the shard and says whether the
run has enough. What a shard holds therefore depends on its rows only, never on the workers or the
order chunks finish in; a killed run resumes after its last finished shard (:class:`ShardRun`), and
:func:`claim_folder` lets it resume only with the settings it started with.

>>> from concurrent.futures import ThreadPoolExecutor
>>> seen = []
>>> with ThreadPoolExecutor(2) as pool:
...     run_ordered(pool.submit, lambda s: [(sum, [range(s * 10, s * 10 + 5)]), (sum, [range(s * 10 + 5, s * 10 + 10)])],
...                 lambda s, results: seen.append((s, results)) or s == 2)
>>> seen
[(0, [10, 35]), (1, [60, 85]), (2, [110, 135])]
>>> shard_file(Path("out"), 3, "stats.json").as_posix()
'out/shard-00003.stats.json'
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from execverify_data.errors import InvalidArgument, check_int
from execverify_data.records import ProgramRecord, record_schema

__all__ = ["CHUNK_ROWS", "ENGINES", "KNOWN_LAG", "RECORD_MARKERS", "KnownPrograms", "ShardRun", "check_record_fields",
           "claim_folder", "finished_shards", "hash_seed", "is_ray_available", "limit_worker", "ray_pool", "read_records",
           "read_stats", "record_hashes", "run_ordered", "shard_file", "spawn_pool", "write_atomic", "write_json",
           "write_records"]

#: Longest wait of :func:`run_ordered` for a chunk before it looks at signals again (a stop a signal asked for,
#: :func:`request_stop`, or one the kernel gave to another thread, is acted on within this time, not when the
#: next chunk finishes).
WAKE_SECONDS = 0.25

#: The exception a signal asked this process to stop with (:func:`request_stop`), once one did.
STOP_REQUESTED: list[BaseException] = []

#: Rows per work unit (a shard is split into chunks, so every worker has work even for one shard).
CHUNK_ROWS = 25
#: The rows of shard ``s`` know the programs kept by shards ``[0, s - KNOWN_LAG]`` (:class:`KnownPrograms`).
KNOWN_LAG = 2
SETTINGS_FILE = "config.json"
#: A record shard is finished once both files are written (the statistics last).
RECORD_MARKERS = ("parquet", "stats.json")

Submit = Callable[..., Future]


def shard_file(folder: Path, shard: int, suffix: str) -> Path:
    """The file of ``shard`` with ``suffix`` (``parquet``, ``stats.json``, ``done.json``, ``io.parquet``...)."""
    return folder / f"shard-{shard:05d}.{suffix}"


def finished_shards(folder: Path, *suffixes: str) -> int:
    """How many shards, from shard 0 on, have every file of ``suffixes`` written."""
    s = 0
    while all(shard_file(folder, s, suffix).exists() for suffix in suffixes):
        s += 1
    return s


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write`` on a temporary sibling of ``path``, then rename it into place."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented, key-sorted JSON, written atomically."""
    write_atomic(path, lambda p: p.write_text(json.dumps(data, indent=1, sort_keys=True)))


def claim_folder(folder: Path, identity: dict[str, Any], *, hint: str) -> None:
    """Record ``identity`` (the settings that decide the output) in ``folder``, or check that the folder
    was started with the same one (:class:`~execverify_data.errors.InvalidArgument` naming what differs,
    followed by ``hint``).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> claim_folder(folder, {"seed": 0}, hint="use another --out")
    >>> claim_folder(folder, {"seed": 1}, hint="use another --out")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    execverify_data.errors.InvalidArgument: ... holds a run with other settings (seed); use another --out or the same settings to resume
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SETTINGS_FILE
    if not path.exists():
        write_json(path, identity)
        return
    previous = json.loads(path.read_text())
    if previous != identity:
        changed = sorted(k for k in set(previous) | set(identity) if previous.get(k) != identity.get(k))
        raise InvalidArgument(f"{folder} holds a run with other settings ({', '.join(changed)}); {hint} or the same "
                              "settings to resume")


class KnownPrograms:
    """The normalized hashes of the programs that the record shards ``[0, shards)`` in ``folder`` kept (``digest
    in known``), read from their files at the first look, once per process and ``run`` (a folder reused by
    another run is read again).

    Shard ``s``'s chunks get ``KnownPrograms(folder, s - KNOWN_LAG + 1, run)``: those shards are written
    before its chunks are made (:func:`run_ordered` ``lag``), so what a row knows depends on the rows
    before it only, never on the workers or the order chunks finish in.
    """

    _first: ClassVar[dict[tuple[str, str], dict[str, int]]] = {}  # (folder, run) -> hash -> the shard that kept it
    _read: ClassVar[dict[tuple[str, str], int]] = {}  # (folder, run) -> shards read into _first

    def __init__(self, folder: str | os.PathLike, shards: int, run: dict) -> None:
        key = hashlib.sha256(json.dumps(run, sort_keys=True, default=str).encode()).hexdigest()
        self.key, self.shards = (str(folder), key), max(0, shards)

    def __contains__(self, digest: object) -> bool:
        first = self._first.setdefault(self.key, {})
        for s in range(self._read.get(self.key, 0), self.shards):
            for h in record_hashes(Path(self.key[0]), s):
                first.setdefault(h, s)
        self._read[self.key] = max(self._read.get(self.key, 0), self.shards)
        return first.get(digest, self.shards) < self.shards


# ---------------------------------------------------------------------------- record shards


def write_records(folder: Path, shard: int, records: list[ProgramRecord], stats: dict, *,
                  provenance: bool | None = None) -> None:
    """Write a record shard (parquet) and its statistics (JSON, last), each atomically. ``provenance`` adds the
    :data:`~execverify_data.records.PROVENANCE_FIELDS` columns (by default: when a record has them)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if provenance is None:
        provenance = any(r.has_provenance for r in records)
    table = pa.Table.from_pylist([r.to_dict() for r in records], schema=record_schema(provenance))
    write_atomic(shard_file(folder, shard, "parquet"), lambda p: pq.write_table(table, p, compression="zstd"))
    write_json(shard_file(folder, shard, "stats.json"), {**stats, "shard": shard})


def read_records(folder: Path) -> list[ProgramRecord]:
    """The records of a folder's finished shards, in order."""
    import pyarrow.parquet as pq

    return [ProgramRecord.from_dict(row) for s in range(finished_shards(folder, *RECORD_MARKERS))
            for row in pq.read_table(shard_file(folder, s, "parquet")).to_pylist()]


def read_stats(folder: Path, shards: int) -> list[dict]:
    """The statistics files of record shards ``[0, shards)``."""
    return [json.loads(shard_file(folder, s, "stats.json").read_text()) for s in range(shards)]


def record_hashes(folder: Path, shard: int) -> list[str]:
    """The ``ast_hash`` column of a record shard."""
    import pyarrow.parquet as pq

    return pq.read_table(shard_file(folder, shard, "parquet"), columns=["ast_hash"]).column("ast_hash").to_pylist()


def check_record_fields(folder: Path, shards: int) -> None:
    """Refuse to resume into a folder whose record shards lack a field this version writes (two schemas in
    one folder)."""
    import pyarrow.parquet as pq

    if shards:
        have = pq.read_schema(shard_file(folder, 0, "parquet")).names
        missing = [name for name in record_schema().names if name not in have]
        if missing:
            raise InvalidArgument(f"{folder} holds shards without the field(s) {', '.join(missing)}, written by an older "
                                  "version of this package; use another --out (or rerun that run with its version)")


# ---------------------------------------------------------------------------- pools


def request_stop(exc: BaseException) -> None:
    """Stop this process's run with ``exc`` (``SystemExit(143)`` for SIGTERM, ``KeyboardInterrupt`` for Ctrl-C):
    for a signal handler. Raised here, and kept: Python can lose an exception a handler raises (one SIGTERM in 40,
    landing while the CLI imported its modules at 0.1-0.2 s into a run, was never seen again), so
    :func:`run_ordered` raises it again while it waits for chunks."""
    STOP_REQUESTED.append(exc)
    raise exc


@contextmanager
def hash_seed(seed: str) -> Iterator[None]:
    """``PYTHONHASHSEED`` set for the processes started meanwhile (spawned workers read it at start)."""
    saved = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = seed
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("PYTHONHASHSEED", None)
        else:
            os.environ["PYTHONHASHSEED"] = saved


def limit_worker(memory_mb: int | None) -> None:  # pragma: no cover - runs in worker processes
    """A worker's set-up: an address-space limit of ``memory_mb`` (None: none), and no SyntaxWarning
    (``is`` with a literal in a generated program)."""
    import warnings

    warnings.simplefilter("ignore", SyntaxWarning)
    if memory_mb:
        import resource

        limit = memory_mb * 1024 * 1024
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):
            pass


def _start_worker(parent: int, initializer: Callable | None, initargs: tuple) -> None:  # pragma: no cover - in workers
    """A worker dies with the process that started the pool: a run killed with SIGKILL, which cannot shut
    its pool down, leaves no worker behind (they would wait on the pool's queue for ever). Then the
    pool's own initializer runs."""
    import signal

    from execverify_data.sandbox.layers import die_with_parent

    die_with_parent(signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    if initializer is not None:
        initializer(*initargs)


@contextmanager
def spawn_pool(workers: int, *, seed: str = "0", initializer: Callable | None = None,
               initargs: tuple = ()) -> Iterator[Submit]:
    """``submit(fn, *args) -> Future`` backed by ``workers`` spawned processes started with
    ``PYTHONHASHSEED=seed`` (set and dict orders inside the work then do not depend on the worker).
    The workers die with this process (``PR_SET_PDEATHSIG`` of the thread that submits: call ``submit``
    from the thread that entered the pool). Leaving the pool on an exception (Ctrl-C's ``KeyboardInterrupt``,
    or the ``SystemExit`` a SIGTERM becomes in the CLI, :func:`execverify_data.cli.common.exit_on_sigterm`) kills the workers at once instead of
    waiting for the chunks they run: what they had not finished is redone on resume."""
    with hash_seed(seed):
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
                                   initargs=(os.getpid(), initializer, initargs))
        try:
            yield pool.submit
        except BaseException:
            # the pool's workers, and one the signal caught between its start and the pool's record of it (which
            # multiprocessing's exit handler would otherwise wait for, for ever)
            workers = {*(getattr(pool, "_processes", None) or {}).values(), *multiprocessing.active_children()}
            for process in workers:
                with contextlib.suppress(Exception):
                    process.kill()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True, cancel_futures=True)



def is_ray_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None


@contextmanager
def ray_pool(workers: int, *, address: str | None = None, seed: str = "0") -> Iterator[Submit]:
    """``submit(fn, *args) -> Future`` backed by Ray tasks (one CPU each), with ``PYTHONHASHSEED`` set in
    Ray's workers. Joins ``address`` (or ``RAY_ADDRESS``, read by Ray itself) when given, else starts a local
    Ray with ``workers`` CPUs. The work folder must be on storage every node can write."""
    if not is_ray_available():
        raise ImportError("the ray engine needs Ray: pip install 'execverify-data[ray]'")
    import ray

    started = False
    if not ray.is_initialized():
        kwargs = {"address": address} if address else {"num_cpus": workers, "include_dashboard": False}
        ray.init(runtime_env={"env_vars": {"PYTHONHASHSEED": seed}}, log_to_driver=False, **kwargs)
        started = True
    remote = {}

    def submit(fn: Callable, *args: Any) -> Future:
        task = remote.get(fn)
        if task is None:
            task = remote[fn] = ray.remote(num_cpus=1)(fn)
        return task.remote(*args).future()

    try:
        yield submit
    finally:
        if started:
            ray.shutdown()


#: engine name -> pool factory ``(workers, **options) -> context manager of submit``.
ENGINES: dict[str, Callable] = {"local": spawn_pool, "ray": ray_pool}


def run_ordered(submit: Submit, jobs_of: Callable[[int], list[tuple[Callable, list]]],
                finish: Callable[[int, list], bool], *, start: int = 0, inflight: int = 4,
                on_result: Callable[[Any], None] | None = None, lag: int | None = None) -> None:
    """Run the chunk jobs of shards ``start, start + 1, ...`` and finish the shards in order.

    Args:
        submit: ``submit(fn, *args) -> Future`` (:func:`spawn_pool`, :func:`ray_pool`, or an executor's ``submit``).
        jobs_of: ``jobs_of(shard) -> [(fn, args), ...]``, the shard's chunks in row order.
        finish: ``finish(shard, results)`` with the chunk results in row order, for shards in order;
            returns True when no further shard is needed.
        start (`int`): the first shard to run.
        inflight (`int`): most chunks submitted and not yet finished.
        on_result: called with each chunk result as it arrives (progress).
        lag (`int`, optional): ``jobs_of(s)`` is called only once ``finish(s - lag)`` has returned, so the
            jobs of a shard may depend on what the shards up to ``s - lag`` hold, and on nothing later.

    A chunk that raises aborts the run with its exception (finished shards stay finished);
    chunks submitted past the last needed shard are cancelled or their results dropped.
    """
    pending: dict[Future, tuple[int, int]] = {}
    results: dict[int, list] = {}
    left: dict[int, int] = {}  # shard -> chunks not yet done
    queue: list[tuple[int, int, Callable, list]] = []
    next_shard, oldest = start, start
    try:
        while True:
            while len(pending) < inflight:
                if not queue:
                    if lag is not None and next_shard - lag >= oldest:
                        break  # shard next_shard - lag is not finished yet
                    jobs = jobs_of(next_shard)
                    left[next_shard], results[next_shard] = len(jobs), [None] * len(jobs)
                    queue = [(next_shard, i, fn, args) for i, (fn, args) in enumerate(jobs)]
                    next_shard += 1
                    if not queue:  # an empty shard: let it finish before asking for more
                        break
                shard, i, fn, args = queue.pop(0)
                pending[submit(fn, *args)] = (shard, i)
            while left.get(oldest) == 0:
                del left[oldest]
                if finish(oldest, results.pop(oldest)):
                    return
                oldest += 1
            if not pending:
                continue
            # never blocked for long: a handler runs in this thread only once it runs again
            done, _ = wait(list(pending), timeout=WAKE_SECONDS, return_when=FIRST_COMPLETED)
            if STOP_REQUESTED:  # a signal's exception that did not reach here (see request_stop)
                raise STOP_REQUESTED[0]
            for future in done:
                shard, i = pending.pop(future)
                value = future.result()  # re-raises a chunk's exception here
                results[shard][i] = value
                left[shard] -= 1
                if on_result is not None:
                    on_result(value)
    finally:
        for future in pending:
            future.cancel()


class ShardRun:
    """The parent's side of a sharded run into ``folder``: :meth:`jobs` makes a shard's chunks,
    :meth:`finish` writes the shard from their results (row order) and says whether the run is
    :attr:`complete`; a new run starts after the shards already finished (``finished_shards(folder,
    *MARKERS)``, the files a shard writes last). ``progress(done, total)`` is called as work finishes."""

    MARKERS: ClassVar[tuple[str, ...]] = ("stats.json",)
    #: ``jobs(s)`` is asked for only once shard ``s - LAG`` is finished (:func:`run_ordered`).
    LAG: ClassVar[int | None] = None

    def __init__(self, folder: Path, progress: Callable[[int, int], None] | None = None) -> None:
        self.folder, self.progress = Path(folder), progress
        self.start = self.resumed = finished_shards(self.folder, *self.MARKERS)

    @property
    def complete(self) -> bool:
        raise NotImplementedError

    def jobs(self, shard: int) -> list[tuple[Callable, list]]:
        raise NotImplementedError

    def finish(self, shard: int, results: list) -> bool:
        raise NotImplementedError

    def on_result(self, chunk) -> None:
        """A chunk's result arrived (before its shard is finished): for progress."""

    def show(self, done: int, total: int) -> None:
        if self.progress:
            self.progress(min(done, total), total)

    def run(self, workers: int, *, engine: str = "local", **pool_options) -> None:
        """Run the shards left, ``workers`` at a time, in the pool ``ENGINES[engine]``."""
        check_int("workers", workers)
        if self.complete:
            return
        with ENGINES[engine](workers, **pool_options) as submit:
            run_ordered(submit, self.jobs, self._finish, start=self.start, inflight=2 * workers + 2,
                        on_result=self.on_result, lag=self.LAG)

    def _finish(self, shard: int, results: list) -> bool:
        self.finish(shard, results)
        self.start = shard + 1
        return self.complete
