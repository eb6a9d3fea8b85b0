"""Where the long jobs (``synthesize``, ``build-release``) run their work: spawned worker
processes with a fixed hash seed (or Ray tasks), fed small chunks of consecutive rows, with the
results handed back shard by shard, in row order.

The unit of output is a *shard* (a range of ``shard_size`` rows, written atomically); the unit
of work is a *chunk* (a few dozen rows of one shard), so every worker is busy even when a run
has a single shard, and progress moves as rows finish. :func:`run_ordered` submits the chunks of
shards ``start, start + 1, ...`` (a bounded number in flight), and as soon as every chunk of the
oldest open shard is done it calls ``finish(shard, results)`` with the chunk results in row
order; ``finish`` decides whether more shards are needed. What a shard contains therefore
depends on its rows only, never on which worker ran them or when.

>>> from concurrent.futures import ThreadPoolExecutor
>>> seen = []
>>> with ThreadPoolExecutor(2) as pool:
...     run_ordered(pool.submit, lambda s: [(sum, [range(s * 10, s * 10 + 5)]), (sum, [range(s * 10 + 5, s * 10 + 10)])],
...                 lambda s, results: seen.append((s, results)) or s == 2)
>>> seen
[(0, [10, 35]), (1, [60, 85]), (2, [110, 135])]
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from typing import Any

__all__ = ["ENGINES", "is_ray_available", "ray_pool", "run_ordered", "spawn_pool"]

Submit = Callable[..., Future]


@contextmanager
def _hash_seed(seed: str) -> Iterator[None]:
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


def _start_worker(parent: int, initializer: Callable | None, initargs: tuple) -> None:  # pragma: no cover - in workers
    """A worker dies with the process that started the pool: a run killed with SIGKILL, which cannot shut
    its pool down, leaves no worker behind (they would wait on the pool's queue for ever). Then the
    pool's own initializer runs."""
    import signal

    try:
        from execverify_data.sandbox._linux import PR_SET_PDEATHSIG, prctl

        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: a killed run's workers outlive it, as Python's do
        pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    if initializer is not None:
        initializer(*initargs)


@contextmanager
def spawn_pool(workers: int, *, hash_seed: str = "0", initializer: Callable | None = None,
               initargs: tuple = ()) -> Iterator[Submit]:
    """``submit(fn, *args) -> Future`` backed by ``workers`` spawned processes started with
    ``PYTHONHASHSEED=hash_seed`` (set and dict orders inside the work then do not depend on the worker).
    The workers die with this process (``PR_SET_PDEATHSIG`` of the thread that submits: call ``submit``
    from the thread that entered the pool)."""
    with _hash_seed(hash_seed):
        ctx = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_start_worker,
                                   initargs=(os.getpid(), initializer, initargs))
        try:
            yield pool.submit
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def is_ray_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None


@contextmanager
def ray_pool(workers: int, *, address: str | None = None, hash_seed: str = "0") -> Iterator[Submit]:
    """``submit(fn, *args) -> Future`` backed by Ray tasks (one CPU each), with ``PYTHONHASHSEED`` set in
    Ray's workers. Joins ``address`` (or ``RAY_ADDRESS``, read by Ray itself) when given, else starts a local
    Ray with ``workers`` CPUs. The work folder must be on storage every node can write."""
    if not is_ray_available():
        raise ImportError("the ray engine needs Ray: pip install 'execverify-data[ray]'")
    import ray

    started = False
    if not ray.is_initialized():
        kwargs = {"address": address} if address else {"num_cpus": workers, "include_dashboard": False}
        ray.init(runtime_env={"env_vars": {"PYTHONHASHSEED": hash_seed}}, log_to_driver=False, **kwargs)
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
            jobs of a shard may depend on what the shards up to ``s - lag`` hold, and on nothing later
            (whatever the number of workers or the order chunks finish in).

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
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
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
