"""The synthesis pipeline: spec -> program -> inputs -> traces -> records, in deterministic shards.

Row ``i`` of a run depends on ``(seed, i)`` only: its level is ``levels[i % len(levels)]``
and each attempt ``a`` at it uses the seed :func:`~execverify_data.seeds.row_seed` ``(seed, i, a)``,
from which the target, the spec, the program and the inputs are all drawn. A run keeps the
first ``n`` distinct programs in row order: a row whose every attempt fails, or whose
program has the normalized AST of an earlier row's, is left out (and counted), and the
rows after ``n`` are tried until ``n`` programs are kept. Shard ``s`` holds the kept
programs of rows ``[s * shard_size, (s + 1) * shard_size)``, written by the shard engine
(:mod:`execverify_data.shards`): atomically, in order, resumable, byte-identical whatever the
number of workers.

A run may mix generators by share (``SynthConfig.generators``): the programmatic generator
(``"program"``) and LLM-backed ones (``"llm:BACKEND_SPEC"``, :mod:`execverify_data.synth.llm`).
Row ``i``'s generator is :func:`generator_for` ``(i, config)``, a function of ``(seed, i)``; an
LLM row asks its backend for ``llm_samples`` completions of its spec's prompt (the LLM rows
of a chunk in one batched ``generate`` call, each row with its own seed) and keeps the first
that passes the checker and the same filters as a programmatic program, traced in the trusted
runner (model-written code).

>>> mix = SynthConfig(n_programs=10, generators=(("program", 0.75), ("llm:openai:http://127.0.0.1:8000/v1#tiny", 0.25)))
>>> [generator_for(i, mix)[:3] for i in range(8)]
['pro', 'pro', 'llm', 'pro', 'llm', 'pro', 'pro', 'llm']
>>> sum(generator_for(i, mix) != "program" for i in range(1000))
251
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections import Counter
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

from execverify_data import shards
from execverify_data.errors import ExecVerifyError, InvalidArgument, check_int
from execverify_data.records import ProgramRecord, RowOutcome, Tally
from execverify_data.seeds import generator_offset, row_seed

__all__ = ["SynthConfig", "RecordRun", "level_for", "generator_for", "iter_rows", "program_rows", "synthesize_chunk", "synthesize_rows",
           "synthesize", "summarize", "GeneratorLoadError", "program_record"]

#: Attempts (fresh seeds) per row before the row is given up.
ROW_ATTEMPTS = 12
#: A run stops trying rows after ``MAX_ROWS_FACTOR * n_programs + shard_size`` rows even if it kept fewer than ``n`` programs.
MAX_ROWS_FACTOR = 8
#: The programmatic generator's name in ``SynthConfig.generators``; LLM-backed ones are ``"llm:" + backend spec``.
PROGRAM = "program"
_DEFAULT_GENERATORS = ((PROGRAM, 1.0),)
_GOLDEN = 0x9E3779B97F4A7C15  # 2**64 / golden ratio: consecutive rows spread evenly over [0, 1)


class GeneratorLoadError(ExecVerifyError, RuntimeError):
    """An LLM generator's model could not be loaded (a missing folder, an offline Hub id, bad files)."""


@dataclass(frozen=True)
class SynthConfig:
    """One synthesis run.

    Args:
        n_programs (`int`): distinct programs the run keeps (rows are tried in order until it has them,
            or until :attr:`max_rows` rows were tried).
        seed (`int`): the global seed.
        levels (`tuple[int, ...]`, defaults to 1-6): levels in equal shares (row i gets ``levels[i % len]``).
        k (`int`, defaults to 3): inputs per program.
        shard_size (`int`, defaults to 500): rows per shard.
        max_steps (`int`), timeout (`float`): per-call budgets.
        min_size, max_size (`int`): input length bounds.
        tracer (`str`, defaults to ``"inprocess"``): ``"inprocess"``, ``"trusted"`` or ``"sandbox"`` (see
            :mod:`execverify_data.synth.filters`); LLM rows are always traced in the untrusted sandbox.
        generators (`tuple[tuple[str, float], ...]`, defaults to ``(("program", 1.0),)``): the generators and
            their shares of the rows (the shares sum to 1): ``"program"`` and ``"llm:BACKEND_SPEC"``
            (``llm:transformers:PATH``, ``llm:vllm:PATH``, ``llm:openai:URL#MODEL``, as
            :func:`execverify_data.models.get_backend` reads them).
        llm_samples (`int`, defaults to 4): completions asked per LLM row (the row keeps the first that passes).
        llm_temperature (`float`, defaults to 0.8), llm_max_new_tokens (`int`, defaults to 1024): their sampling.
        llm_chat (`bool`, defaults to True): chat messages (instruct models); False sends a plain prompt
            that opens a code block (base models).
    """

    n_programs: int
    seed: int = 0
    levels: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    k: int = 3
    shard_size: int = 500
    max_steps: int = 5000
    timeout: float = 2.0
    min_size: int = 6
    max_size: int = 10
    tracer: str = "inprocess"
    generators: tuple[tuple[str, float], ...] = _DEFAULT_GENERATORS
    llm_samples: int = 4
    llm_temperature: float = 0.8
    llm_max_new_tokens: int = 1024
    llm_chat: bool = True

    def __post_init__(self) -> None:
        check_int("n_programs", self.n_programs)
        check_int("seed", self.seed, minimum=0)
        levels = tuple(self.levels)
        if not levels or any(lv not in (1, 2, 3, 4, 5, 6) for lv in levels) or len(set(levels)) != len(levels):
            raise InvalidArgument(f"levels must be distinct values from 1 to 6, got {self.levels!r}")
        object.__setattr__(self, "levels", levels)
        check_int("inputs per program", self.k, minimum=3)
        check_int("shard_size", self.shard_size)
        from execverify_data.synth.filters import TRACERS

        if self.tracer not in TRACERS:
            raise InvalidArgument(f"tracer must be one of {', '.join(map(repr, TRACERS))}, got {self.tracer!r}")
        if not 0 <= self.min_size <= self.max_size:
            raise InvalidArgument(f"need 0 <= min_size <= max_size, got {self.min_size}, {self.max_size}")
        object.__setattr__(self, "generators", _check_generators(self.generators))
        check_int("llm_samples", self.llm_samples)
        if (isinstance(self.llm_max_new_tokens, bool) or not isinstance(self.llm_max_new_tokens, int)
                or self.llm_max_new_tokens < 1):
            raise InvalidArgument(f"llm_max_new_tokens must be a positive int, got {self.llm_max_new_tokens!r}")
        temperature = self.llm_temperature
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature >= 0:
            raise InvalidArgument(f"llm_temperature must be a number >= 0 (0 is greedy), got {temperature!r}")
        if not isinstance(self.llm_chat, bool):
            raise InvalidArgument(f"llm_chat must be True or False, got {self.llm_chat!r}")

    @property
    def llm_specs(self) -> tuple[str, ...]:
        """The backend specs of the run's LLM generators (without their ``llm:`` prefix)."""
        return tuple(name[len("llm:"):] for name, _ in self.generators if name != PROGRAM)

    @property
    def max_rows(self) -> int:
        """The most rows a run tries (a generator that keeps failing must not loop for ever)."""
        return MAX_ROWS_FACTOR * self.n_programs + self.shard_size

    def identity(self) -> dict:
        """What must match for a rerun to resume this run's shards."""
        from execverify_data.synth.generator import GENERATOR_VERSION

        # its key stays "n", as in the folders written before the field was named n_programs (they resume)
        data = {"n" if k == "n_programs" else k: v for k, v in asdict(self).items()}
        data["levels"] = list(self.levels)
        if self.generators == _DEFAULT_GENERATORS:  # a programmatic run: the settings of runs before the mix
            for name in ("generators", "llm_samples", "llm_temperature", "llm_max_new_tokens", "llm_chat"):
                data.pop(name)
        else:
            from execverify_data.synth.llm import PROMPT_VERSION

            data["generators"] = [list(pair) for pair in self.generators]
            data["prompt_version"] = PROMPT_VERSION
        data["generator_version"] = GENERATOR_VERSION
        data["python"] = platform.python_version()
        return data


def _check_generators(generators) -> tuple[tuple[str, float], ...]:
    """``generators`` as a tuple of ``(name, share)``, checked: known names, positive shares summing to 1."""
    from execverify_data.models import parse_spec

    hint = "e.g. (('program', 0.8), ('llm:openai:http://127.0.0.1:8000/v1#MODEL', 0.2))"
    if isinstance(generators, (str, bytes)) or not isinstance(generators, (tuple, list)) or not generators:
        raise InvalidArgument(f"generators must be a non-empty tuple of (name, share) pairs, {hint}; got {generators!r}")
    out = []
    for pair in generators:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise InvalidArgument(f"generators must hold (name, share) pairs, {hint}; got {pair!r}")
        name, share = pair
        if name != PROGRAM:
            if not isinstance(name, str) or not name.startswith("llm:"):
                raise InvalidArgument(f"a generator is 'program' or 'llm:BACKEND_SPEC', got {name!r}")
            parse_spec(name[len("llm:"):])  # BackendSpecError (a ValueError) names the valid backends
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
            raise InvalidArgument(f"the share of generator {name!r} must be a number in (0, 1], got {share!r}")
        out.append((name, float(share)))
    names = [name for name, _ in out]
    if len(set(names)) != len(names):
        raise InvalidArgument(f"each generator is listed once, got {names}")
    total = sum(share for _, share in out)
    if abs(total - 1) > 1e-9:
        raise InvalidArgument(f"the generators' shares must sum to 1, got {total:g} ({', '.join(f'{n}: {s:g}' for n, s in out)})")
    return tuple(out)


def level_for(i: int, levels: tuple[int, ...]) -> int:
    """Row ``i``'s level: the levels in equal shares, round robin."""
    return levels[i % len(levels)]


def generator_for(i: int, config: SynthConfig) -> str:
    """The name of row ``i``'s generator: a function of ``(config.seed, i)`` and the shares.

    Rows walk a seeded golden-ratio (Weyl) sequence over ``[0, 1)``, cut by the cumulative shares:
    over any consecutive rows each generator gets its share to within a few rows, and the choice
    does not follow the levels' round robin (each level gets each generator in the same shares).
    """
    generators = config.generators
    if len(generators) == 1:
        return generators[0][0]
    offset = generator_offset(config.seed)
    point = (offset + i * _GOLDEN) % 2**64
    bound = 0.0
    for name, share in generators[:-1]:
        bound += share
        if point < int(bound * 2**64):
            return name
    return generators[-1][0]


# ---------------------------------------------------------------------------- rows


def _llm_stamp(name: str) -> tuple[str, str]:
    """``(generator, generator_version)`` of an LLM row's record: ``("llm:BACKEND:MODEL PROMPT_VERSION",
    PROMPT_VERSION)`` (the model's id, not its local path)."""
    from execverify_data.synth.llm import PROMPT_VERSION

    spec = name[len("llm:"):]
    backend, _, target = spec.partition(":")
    model = getattr(_backend(spec), "model", None) if backend == "openai" else None
    if not isinstance(model, str):
        model = target.partition("#")[2] or target if backend == "openai" else target
    if backend != "openai" and os.path.exists(model):
        model = os.path.basename(os.path.normpath(model))  # a local folder: its name, not where it lies
    return f"llm:{backend}:{model} {PROMPT_VERSION}", PROMPT_VERSION


def program_record(config: SynthConfig, i: int, seed: int, acc, stamp: tuple[str, str]) -> ProgramRecord:
    """The record of row ``i``'s accepted program (``acc``, :class:`~execverify_data.synth.filters.Accepted`),
    made by the generator ``stamp`` = ``(generator, generator_version)``."""
    program, traces = acc.program, acc.traces
    return ProgramRecord(
        id=f"synth-{config.seed}-{i:07d}", row=i, seed=seed, level=program.level, spec=acc.spec.to_dict(),
        target=program.target, code=program.code, entry_point=program.entry_point, param_types=list(program.param_types),
        param_domains=list(program.param_domains) or [""] * len(program.param_types), inputs=acc.inputs,
        outputs=[t.output.text for t in traces], output_types=[t.output.type for t in traces],
        trace_lengths=[len(t.events) for t in traces], ast_hash=acc.ast_hash, catalog_ids=acc.catalog_ids,
        python=traces[0].python, generator_version=stamp[1], generator=stamp[0], description=program.description)


def _outcome(config: SynthConfig, i: int, name: str, counts: Counter, found, stamp) -> RowOutcome:
    if found is None:
        return RowOutcome(i, level_for(i, config.levels), name, dict(+counts))
    acc, seed = found
    return RowOutcome(i, level_for(i, config.levels), name, dict(+counts), program_record(config, i, seed, acc, stamp),
                      tuple(acc.traces))


def program_rows(config: SynthConfig, start: int, stop: int, *, tracer, known=None):
    """Rows ``[start, stop)`` made by the programmatic generator, each a :class:`~execverify_data.records.RowOutcome`
    whose ``traces`` are the kept program's (one per input, as the filters traced them).

    A row tries up to :data:`ROW_ATTEMPTS` fresh seeds and keeps the first program that passes every filter;
    ``counts`` says what its attempts met (``attempts``, ``generated``, ``generation_failed``, a rejection
    reason per failed attempt, ``input_raised``, ``row_given_up``). A row whose program is in ``known``
    (normalized hashes, :class:`~execverify_data.shards.KnownPrograms`) ends at once as a ``duplicate``,
    before any input is run.
    """
    from execverify_data.synth.filters import FilterConfig, evaluate
    from execverify_data.synth.generator import GENERATOR_VERSION, GenFail, generate, spec_for

    fconfig = FilterConfig(k=config.k, max_steps=config.max_steps, timeout=config.timeout)
    stamp = (f"{PROGRAM} {GENERATOR_VERSION}", GENERATOR_VERSION)
    for i in range(start, stop):
        counts: Counter = Counter()
        found = None
        for attempt in range(ROW_ATTEMPTS):
            s = row_seed(config.seed, i, attempt)
            spec = spec_for(level_for(i, config.levels), s, min_size=config.min_size, max_size=config.max_size)
            counts["attempts"] += 1
            try:
                program = generate(spec, s)
            except GenFail:
                counts["generation_failed"] += 1
                continue
            counts["generated"] += 1
            inputs_raised: dict[str, int] = {}
            acc, reason = evaluate(program, spec, seed=s, config=fconfig, tracer=tracer, counts=inputs_raised, known=known,
                                   ours=True)
            counts["input_raised"] += inputs_raised.get("input_raised", 0)
            if acc is not None:
                found = acc, s
                break
            counts[reason] += 1
            if reason == "duplicate":  # a program the run has kept already: the row is a duplicate, as it would be kept
                break
        else:
            counts["row_given_up"] += 1
        yield _outcome(config, i, PROGRAM, counts, found, stamp)


def iter_rows(config: SynthConfig, start: int, stop: int, *, tracer, llm_tracer=None, known=None):
    """Each row of ``[start, stop)`` in order, made by its generator (:func:`generator_for`): the programmatic
    rows as :func:`program_rows` makes them; an LLM row gates its ``llm_samples`` completions in order and
    keeps the first that passes (``attempts`` completions gated, ``generated`` those that reached the
    filters, ``no_code``, ``syntax_error``, ``checker:<constraint>``, ``param_types`` or a filter's reason per
    rejected one). LLM rows are traced with ``llm_tracer``, a trusted-runner
    :class:`~execverify_data.synth.filters.TraceBackend` (``tracer`` when it is one; else one is started
    and closed here).
    """
    from execverify_data.synth.filters import TraceBackend

    names = [generator_for(i, config) for i in range(start, stop)]
    if all(name == PROGRAM for name in names):
        yield from program_rows(config, start, stop, tracer=tracer, known=known)
        return
    own = None
    if llm_tracer is None:
        if getattr(tracer, "kind", None) == "sandbox":
            llm_tracer = tracer
        else:  # code nobody reviewed: traced in the untrusted sandbox
            llm_tracer = own = TraceBackend("sandbox", max_steps=config.max_steps, timeout=config.timeout)
    try:
        completions = _llm_completions(config, start, names)
        for i, name in zip(range(start, stop), names):
            if name == PROGRAM:
                yield from program_rows(config, i, i + 1, tracer=tracer, known=known)
                continue
            spec, texts = completions[i]
            counts, found = _llm_row(_llm_generator(config, name), spec, texts, row_seed(config.seed, i),
                                     level_for(i, config.levels), llm_tracer)
            yield _outcome(config, i, name, counts, found, _llm_stamp(name))
    finally:
        if own is not None:
            own.close()


# ---------------------------------------------------------------------------- LLM rows

_BACKENDS: dict[str, object] = {}
_LLMS: dict[tuple, object] = {}


def _backend(spec: str):
    """This process's backend for ``spec``, loaded on first use (a model loads once per worker, not per row)."""
    backend = _BACKENDS.get(spec)
    if backend is None:
        from execverify_data.models import (
            BackendSpecError,
            BackendUnavailable,
            get_backend,
        )

        try:
            backend = get_backend(spec)  # the loader of `difficulty --solver`
        except (BackendSpecError, BackendUnavailable):
            raise
        except (OSError, ValueError, RuntimeError, ImportError) as exc:  # transformers: no such folder, offline...
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise GeneratorLoadError(f"cannot load the model of 'llm:{spec}': {first[:300]}") from None
        _BACKENDS[spec] = backend
    return backend


def _llm_generator(config: SynthConfig, name: str):
    """This process's :class:`~execverify_data.synth.llm.LLMProgramGenerator` for generator ``name``."""
    key = (name, config.llm_samples, config.llm_temperature, config.llm_max_new_tokens, config.llm_chat,
           config.k, config.max_steps, config.timeout)
    gen = _LLMS.get(key)
    if gen is None:
        from execverify_data.synth.filters import FilterConfig
        from execverify_data.synth.llm import LLMProgramGenerator

        gen = _LLMS[key] = LLMProgramGenerator(
            _backend(name[len("llm:"):]), samples_per_spec=config.llm_samples, temperature=config.llm_temperature,
            max_new_tokens=config.llm_max_new_tokens, chat=config.llm_chat,
            filters=FilterConfig(k=config.k, max_steps=config.max_steps, timeout=config.timeout))
    return gen


def _llm_completions(config: SynthConfig, start: int, names: list[str]) -> dict[int, tuple]:
    """``{row: (spec, completions)}`` for the LLM rows among ``names`` (rows ``start, start + 1, ...``):
    one ``generate`` call per LLM generator, row ``i`` sampled with its own seed ``row_seed(seed, i)``,
    which also draws its spec (the spec of the programmatic generator's first attempt at the row)."""
    from execverify_data.synth.generator import spec_for

    out: dict[int, tuple] = {}
    for name in sorted({n for n in names if n != PROGRAM}):
        rows = [start + k for k, n in enumerate(names) if n == name]
        seeds = [row_seed(config.seed, i) for i in rows]
        specs = [spec_for(level_for(i, config.levels), s, min_size=config.min_size, max_size=config.max_size)
                 for i, s in zip(rows, seeds)]
        texts = _llm_generator(config, name).complete(specs, seeds)
        out.update(zip(rows, zip(specs, texts)))
    return out


def _llm_row(gen, spec, texts: list[str], seed: int, level: int, tracer) -> tuple[Counter, tuple | None]:
    counts: Counter = Counter()
    verdicts: dict[str, tuple[str, bool]] = {}  # a completion given twice is judged once, counted twice
    for text in texts:
        counts["attempts"] += 1
        if text in verdicts:
            reason, generated = verdicts[text]
            counts["generated"] += generated
            counts[reason] += 1
            continue
        raised: dict[str, int] = {}
        program, reason = gen.gate(spec, text, seed=seed, tracer=tracer, level=level, counts=raised)
        counts["input_raised"] += raised.get("input_raised", 0)
        generated = program is not None or reason.startswith("filter:")
        counts["generated"] += generated
        if program is None:
            reason = reason.removeprefix("filter:")  # the filters' reasons: the same keys as programmatic rows'
            verdicts[text] = reason, generated
            counts[reason] += 1
            continue
        return counts, (program[2], seed)
    counts["row_given_up"] += 1
    return counts, None


def synthesize_chunk(config: SynthConfig, start: int, stop: int, known: shards.KnownPrograms | None = None) -> dict:
    """The work unit of :func:`synthesize`: rows ``[start, stop)`` as ``{"rows": [RowOutcome...], "seconds"}``
    (without their traces).

    Duplicates of the programs in ``known`` (kept by the shards written before this chunk was made)
    end their rows at once; the others are not removed here: which of two equal programs a run keeps
    depends on the rows before it, which only the process that finishes shards in order knows.
    """
    from execverify_data.synth.filters import worker_tracer

    t0 = time.perf_counter()
    tracer = worker_tracer(config.tracer, config.max_steps, config.timeout)
    # before a model loads
    llm_tracer = worker_tracer("sandbox", config.max_steps, config.timeout) if config.llm_specs else None
    rows = [replace(r, traces=None) for r in iter_rows(config, start, stop, tracer=tracer, llm_tracer=llm_tracer,
                                                        known=known)]
    return {"rows": rows, "seconds": time.perf_counter() - t0}


def synthesize_rows(config: SynthConfig, start: int, stop: int, *, tracer=None) -> tuple[list[ProgramRecord], dict]:
    """Records for rows ``[start, stop)`` (duplicates within the range dropped, as a run drops them)
    and the statistics of their attempts, in this process."""
    from execverify_data.synth.filters import TraceBackend

    own = tracer is None
    tracer = tracer or TraceBackend(config.tracer, max_steps=config.max_steps, timeout=config.timeout)
    t0 = time.perf_counter()
    try:
        rows = list(iter_rows(config, start, stop, tracer=tracer))
    finally:
        if own:
            tracer.close()
    tally, seen = Tally(), set()
    records = [row.record for row in rows if tally.add(row, seen)]
    stats = tally.stats()
    stats["seconds"] = time.perf_counter() - t0
    return records, stats


class RecordRun(shards.ShardRun):
    """A run that keeps the first ``config.n_programs`` distinct programs (by normalized AST) in row order and
    writes them as record shards (``shard-XXXXX.parquet`` and its ``.stats.json``, written last):
    ``synthesize``, and ``from-code`` (which counts progress in functions)."""

    MARKERS = shards.RECORD_MARKERS
    provenance: bool | None = None  # see shards.write_records

    def __init__(self, config, out: Path, progress: Callable[[int, int], None] | None = None):
        super().__init__(out, progress)
        self.config = config
        self.seen: set[str] = set()
        self.kept = self.accepted_now = 0
        self.pending = 0  # programs in chunks done but not yet in a finished shard (not yet checked for duplicates)
        shards.check_record_fields(out, self.start)
        for s in range(self.start):
            hashes = shards.record_hashes(out, s)
            self.seen.update(hashes)
            self.kept += len(hashes)
        self.on_result(None)

    @property
    def complete(self) -> bool:
        return self.kept >= self.config.n_programs or self.start * self.config.shard_size >= self.config.max_rows

    def shard_extra(self, results: list[dict]) -> dict:
        """More statistics a shard's ``.stats.json`` keeps (from its chunks, before :meth:`finish` counts them)."""
        return {}

    def on_result(self, chunk: dict | None) -> None:
        self.pending += sum(r.record is not None for r in chunk["rows"]) if chunk else 0
        self.show(self.kept + self.pending, self.config.n_programs)

    def finish(self, shard: int, results: list[dict]) -> None:
        tally = Tally()
        records = []
        self.pending -= sum(r.record is not None for chunk in results for r in chunk["rows"])
        for row in (row for chunk in results for row in chunk["rows"]):
            if self.kept + len(records) >= self.config.n_programs:
                break  # the rest of the shard is past the n-th program: left out, not counted
            if tally.add(row, self.seen):
                records.append(row.record)
        stats = tally.stats()
        stats["seconds"] = sum(chunk["seconds"] for chunk in results)
        stats.update(self.shard_extra(results))
        shards.write_records(self.folder, shard, records, stats, provenance=self.provenance)
        self.kept += len(records)
        self.accepted_now += len(records)
        self.on_result(None)


class _SynthRun(RecordRun):
    LAG = shards.KNOWN_LAG

    def jobs(self, shard: int) -> list:
        known = shards.KnownPrograms(self.folder, shard - shards.KNOWN_LAG + 1, self.config.identity())
        first = shard * self.config.shard_size
        return [(synthesize_chunk, [self.config, a, min(a + shards.CHUNK_ROWS, first + self.config.shard_size), known])
                for a in range(first, first + self.config.shard_size, shards.CHUNK_ROWS)]


def synthesize(config: SynthConfig, out: str | os.PathLike, *, workers: int = 1,
               progress: Callable[[int, int], None] | None = None, memory_mb: int | None = 1024) -> dict:
    """Run (or resume) a synthesis run into ``out``; returns the summary (also written to ``summary.json``).

    The run keeps the first ``config.n_programs`` distinct programs (by normalized AST) in row order: rows
    whose attempts all fail, and duplicates of an earlier row's program, are left out and counted,
    and further rows are tried (up to ``config.max_rows``). Chunks of :data:`~execverify_data.shards.CHUNK_ROWS`
    rows run in ``workers`` spawned processes started with ``PYTHONHASHSEED=0``; shards are written in order
    as their chunks finish, so the output does not depend on the number of workers, and a killed run
    resumes after its last written shard. ``progress(programs, n)`` is called as chunks finish (programs
    not yet checked for duplicates count provisionally; the count never exceeds ``n`` and ends at the
    number written).
    """
    check_int("workers", workers)
    out = Path(out)
    shards.claim_folder(out, config.identity(), hint="use another --out")
    run = _SynthRun(config, out, progress)
    t0 = time.perf_counter()
    # the trusted runner applies its own per-job limit; its children must be free to set it (LLM rows
    # always trace there; a local model, torch or vLLM, also maps far more address space than it uses)
    limit = memory_mb if config.tracer == "inprocess" and not config.llm_specs else None
    run.run(workers, initializer=shards.limit_worker, initargs=(limit,))
    wall = time.perf_counter() - t0
    summary = summarize(out, config)
    summary["throughput"] = {
        "this_invocation_seconds": round(wall, 3),
        "accepted_this_invocation": run.accepted_now,
        "accepted_per_second": round(run.accepted_now / wall, 2) if wall > 0 and run.accepted_now else None,
        "workers": workers,
        "shards_run": run.start - run.resumed,
        "shards_resumed": run.resumed,
    }
    shards.write_json(out / "summary.json", summary)
    return summary


def summarize(out: str | os.PathLike, config: SynthConfig) -> dict:
    """Counts per filter and level, acceptance, coverage, uniqueness and trace lengths over all finished shards."""
    import pyarrow.parquet as pq

    from execverify_data import catalog

    out = Path(out)
    rejected: Counter = Counter()
    by_level: dict[str, Counter] = {}
    by_generator: dict[str, Counter] = {}
    seconds = 0.0
    n_shards = shards.finished_shards(out, *shards.RECORD_MARKERS)
    for stats in shards.read_stats(out, n_shards):
        rejected.update(stats["rejected"])
        seconds += stats["seconds"]
        for lv, c in stats["by_level"].items():
            by_level.setdefault(lv, Counter()).update(c)
        for name, c in stats.get("by_generator", {}).items():
            by_generator.setdefault(name, Counter()).update(c)
    hashes: list[str] = []
    ids: set[str] = set()
    lengths: dict[int, list[float]] = {}
    accepted = 0
    for s in range(n_shards):
        table = pq.read_table(shards.shard_file(out, s, "parquet"),
                              columns=["level", "ast_hash", "catalog_ids", "trace_lengths"]).to_pydict()
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
        "programs_wanted": config.n_programs,
        "rows": sum(c["rows"] for c in by_level.values()),
        "shards": n_shards,
        "accepted": accepted,
        "attempts": attempts,
        "acceptance_rate": round(accepted / attempts, 4) if attempts else None,
        "rejected": dict(sorted(rejected.items())),
        "levels": levels,
        "generators": {name: _generator_summary(c) for name, c in sorted(by_generator.items())},
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


def _generator_summary(c: Counter) -> dict:
    """One generator's counts in ``summary.json``: rows, attempts, accepted, rates, and its rejections."""
    head = ("rows", "attempts", "generated", "accepted")
    return {**{k: c[k] for k in head},
            "acceptance_rate": round(c["accepted"] / c["attempts"], 4) if c["attempts"] else None,
            "row_yield": round(c["accepted"] / c["rows"], 4) if c["rows"] else None,
            "rejected": {k: v for k, v in sorted(c.items()) if k not in head}}
