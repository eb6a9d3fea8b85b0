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

A run may mix generators by share (``SynthConfig.generators``): the programmatic generator
(``"program"``) and LLM-backed ones (``"llm:BACKEND_SPEC"``, :mod:`execverify_data.synth.llm`).
Row ``i``'s generator is :func:`generator_for` ``(i, config)``, a function of ``(seed, i)``; an
LLM row asks its backend for ``llm_samples`` completions of its spec's prompt (the LLM rows
of a chunk in one batched ``generate`` call, each row with its own seed) and keeps the first
that passes the checker and the same filters as a programmatic program, traced in the trusted
runner (model-written code).

>>> row_seed(0, 5) == row_seed(0, 5), row_seed(0, 5) != row_seed(1, 5)
(True, True)
>>> mix = SynthConfig(n=10, generators=(("program", 0.75), ("llm:openai:http://127.0.0.1:8000/v1#tiny", 0.25)))
>>> [generator_for(i, mix)[:3] for i in range(8)]
['pro', 'pro', 'llm', 'pro', 'llm', 'pro', 'pro', 'llm']
>>> sum(generator_for(i, mix) != "program" for i in range(1000))
251
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
from typing import Callable, ClassVar

from execverify_data.errors import ExecVerifyError, InvalidArgument
from execverify_data.workdir import claim_folder, write_atomic

__all__ = ["SynthConfig", "row_seed", "level_for", "generator_for", "iter_rows", "synthesize_chunk", "synthesize_rows",
           "synthesize", "summarize", "SCHEMA_FIELDS", "PROVENANCE_FIELDS", "GeneratorLoadError"]

#: Attempts (fresh seeds) per row before the row is given up.
ROW_ATTEMPTS = 12
#: Rows per work unit (a shard is split into chunks, so every worker has work even for one shard).
CHUNK_ROWS = 25
#: A run stops trying rows after ``MAX_ROWS_FACTOR * n + shard_size`` rows even if it kept fewer than ``n`` programs.
MAX_ROWS_FACTOR = 4
#: The rows of shard ``s`` know the programs kept by shards ``[0, s - KNOWN_LAG]`` (:class:`KnownPrograms`):
#: a row whose program is one of them is a duplicate before any input is run.
KNOWN_LAG = 2
SCHEMA_FIELDS = ("id", "row", "seed", "level", "spec", "target", "code", "entry_point", "param_types", "param_domains",
                 "inputs", "outputs", "output_types", "trace_lengths", "ast_hash", "catalog_ids", "python", "generator_version",
                 "generator")
#: Columns after :data:`SCHEMA_FIELDS` in the records of programs not synthesized here (``execverify from-code``):
#: where each came from, whether each input is a seed (from the source's tests) or generated, the branch coverage.
PROVENANCE_FIELDS = ("source", "source_id", "input_origins", "branch_coverage")
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
        n (`int`): distinct programs the run keeps (rows are tried in order until it has them,
            or until :attr:`max_rows` rows were tried).
        seed (`int`): the global seed.
        levels (`tuple[int, ...]`, defaults to 1-6): levels in equal shares (row i gets ``levels[i % len]``).
        k (`int`, defaults to 3): inputs per program.
        shard_size (`int`, defaults to 500): rows per shard.
        max_steps (`int`), timeout (`float`): per-call budgets.
        min_size, max_size (`int`): input length bounds.
        tracer (`str`, defaults to ``"inprocess"``): ``"inprocess"`` or ``"trusted"`` (see :mod:`execverify_data.synth.filters`);
            LLM rows are always traced in the trusted runner.
        generators (`tuple[tuple[str, float], ...]`, defaults to ``(("program", 1.0),)``): the generators and
            their shares of the rows (the shares sum to 1): ``"program"`` and ``"llm:BACKEND_SPEC"``
            (``llm:transformers:PATH``, ``llm:vllm:PATH``, ``llm:openai:URL#MODEL``, as
            :func:`execverify_data.models.get_generator` reads them).
        llm_samples (`int`, defaults to 4): completions asked per LLM row (the row keeps the first that passes).
        llm_temperature (`float`, defaults to 0.8), llm_max_new_tokens (`int`, defaults to 1024): their sampling.
        llm_chat (`bool`, defaults to True): chat messages (instruct models); False sends a plain prompt
            that opens a code block (base models).
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
    generators: tuple[tuple[str, float], ...] = _DEFAULT_GENERATORS
    llm_samples: int = 4
    llm_temperature: float = 0.8
    llm_max_new_tokens: int = 1024
    llm_chat: bool = True

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
        object.__setattr__(self, "generators", _check_generators(self.generators))
        if isinstance(self.llm_samples, bool) or not isinstance(self.llm_samples, int) or self.llm_samples < 1:
            raise InvalidArgument(f"llm_samples must be a positive int, got {self.llm_samples!r}")
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
        return MAX_ROWS_FACTOR * self.n + self.shard_size

    def identity(self) -> dict:
        """What must match for a rerun to resume this run's shards."""
        from execverify_data.synth.generator import GENERATOR_VERSION

        data = asdict(self)
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


def row_seed(seed: int, i: int, attempt: int = 0) -> int:
    """The seed of attempt ``attempt`` at row ``i`` of a run with global ``seed`` (63 bits)."""
    digest = hashlib.sha256(f"execverify-synth:{seed}:{i}:{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


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
    offset = int.from_bytes(hashlib.sha256(f"execverify-generator:{config.seed}".encode()).digest()[:8], "big")
    point = (offset + i * _GOLDEN) % 2**64
    bound = 0.0
    for name, share in generators[:-1]:
        bound += share
        if point < int(bound * 2**64):
            return name
    return generators[-1][0]


# ---------------------------------------------------------------------------- rows


def _stamp(config: SynthConfig, i: int) -> tuple[str, str]:
    """``(generator, generator_version)`` of row ``i``'s record: ``("program 2.0.0", "2.0.0")``, or for an
    LLM row ``("llm:BACKEND:MODEL PROMPT_VERSION", PROMPT_VERSION)`` (the model's id, not its local path)."""
    name = generator_for(i, config)
    if name == PROGRAM:
        from execverify_data.synth.generator import GENERATOR_VERSION

        return f"{PROGRAM} {GENERATOR_VERSION}", GENERATOR_VERSION
    from execverify_data.synth.llm import PROMPT_VERSION

    spec = name[len("llm:"):]
    backend, _, target = spec.partition(":")
    model = getattr(_backend(spec), "model", None) if backend == "openai" else None
    if not isinstance(model, str):
        model = target.partition("#")[2] or target if backend == "openai" else target
    if backend != "openai" and os.path.exists(model):
        model = os.path.basename(os.path.normpath(model))  # a local folder: its name, not where it lies
    return f"llm:{backend}:{model} {PROMPT_VERSION}", PROMPT_VERSION


def _record(config: SynthConfig, i: int, seed: int, acc) -> dict:
    generator, version = _stamp(config, i)
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
        "generator_version": version,
        "generator": generator,
    }


class KnownPrograms:
    """The normalized hashes of the programs that shards ``[0, shards)`` of a run kept (``digest in
    known``), read from their files in ``folder`` at the first look, once per process and ``run`` (a folder
    reused by another run is read again).

    Shard ``s``'s chunks get ``KnownPrograms(folder, s - KNOWN_LAG + 1, run)``: those shards are written
    before its chunks are made (:func:`~execverify_data.workpool.run_ordered` ``lag``), so what a row
    knows depends on the rows before it only, never on the workers or the order chunks finish in.
    """

    _first: ClassVar[dict[tuple[str, str], dict[str, int]]] = {}  # (folder, run) -> hash -> the shard that kept it
    _read: ClassVar[dict[tuple[str, str], int]] = {}  # (folder, run) -> shards read into _first

    def __init__(self, folder: str | os.PathLike, shards: int, run: dict) -> None:
        key = hashlib.sha256(json.dumps(run, sort_keys=True, default=str).encode()).hexdigest()
        self.key, self.shards = (str(folder), key), max(0, shards)

    def __contains__(self, digest: object) -> bool:
        first = self._first.setdefault(self.key, {})
        read = self._read.get(self.key, 0)
        if read < self.shards:
            import pyarrow.parquet as pq

            for s in range(read, self.shards):
                table = pq.read_table(shard_path(Path(self.key[0]), s), columns=["ast_hash"])
                for h in table.column("ast_hash").to_pylist():
                    first.setdefault(h, s)
            self._read[self.key] = self.shards
        return first.get(digest, self.shards) < self.shards


def iter_rows(config: SynthConfig, start: int, stop: int, *, tracer, llm_tracer=None, known=None):
    """Each row of ``[start, stop)`` in order: ``(i, level, counts, accepted or None, seed)``.

    A programmatic row tries up to :data:`ROW_ATTEMPTS` fresh seeds and keeps the first program that
    passes every filter; ``counts`` says what its attempts met (``attempts``, ``generated``,
    ``generation_failed``, a rejection reason per failed attempt, ``input_raised``, ``row_given_up``).
    An LLM row (:func:`generator_for`) gates its ``llm_samples`` completions in order and keeps the
    first that passes (``attempts`` completions gated, ``generated`` those that reached the filters,
    ``no_code``, ``syntax_error``, ``checker:<constraint>``, ``param_types`` or a filter's reason per
    rejected one). LLM rows are traced with ``llm_tracer``, a trusted-runner
    :class:`~execverify_data.synth.filters.Tracer` (``tracer`` when it is one; else one is started
    and closed here). A programmatic row whose program is in ``known`` (normalized hashes,
    :class:`KnownPrograms`) ends at once as a ``duplicate``, before any input is run.
    """
    from execverify_data.synth.filters import FilterConfig, Tracer

    fconfig = FilterConfig(k=config.k, max_steps=config.max_steps, timeout=config.timeout)
    names = [generator_for(i, config) for i in range(start, stop)]
    own = None
    if llm_tracer is None and any(name != PROGRAM for name in names):
        if getattr(tracer, "kind", None) == "trusted":
            llm_tracer = tracer
        else:
            llm_tracer = own = Tracer("trusted", max_steps=config.max_steps, timeout=config.timeout)
    try:
        completions = _llm_completions(config, start, names)
        for i, name in zip(range(start, stop), names):
            level = level_for(i, config.levels)
            if name == PROGRAM:
                counts, found = _program_row(config, i, level, fconfig, tracer, known)
            else:
                spec, texts = completions[i]
                counts, found = _llm_row(_llm_generator(config, name), spec, texts, row_seed(config.seed, i),
                                         level, llm_tracer)
            yield i, level, +counts, found[0] if found else None, found[1] if found else None
    finally:
        if own is not None:
            own.close()


def _program_row(config: SynthConfig, i: int, level: int, fconfig, tracer, known=None) -> tuple[Counter, tuple | None]:
    from execverify_data.synth.filters import evaluate
    from execverify_data.synth.generator import GenFail, generate, spec_for

    counts: Counter = Counter()
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
        acc, reason = evaluate(program, spec, seed=s, config=fconfig, tracer=tracer, counts=inputs_raised, known=known)
        counts["input_raised"] += inputs_raised.get("input_raised", 0)
        if reason == "duplicate":  # a program the run has kept already: the row is a duplicate, as it would be kept
            counts[reason] += 1
            return counts, None
        if acc is None:
            counts[reason] += 1
            continue
        return counts, (acc, s)
    counts["row_given_up"] += 1
    return counts, None


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
            get_generator,
        )

        try:
            backend = get_generator(spec)  # the loader of `difficulty --solver`
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


_TRACERS: dict[tuple, object] = {}


def _worker_tracer(config: SynthConfig, kind: str | None = None):
    """One :class:`~execverify_data.synth.filters.Tracer` per worker process and settings (its second
    interpreter starts once, not once per chunk); it closes when the process exits. ``kind`` defaults
    to ``config.tracer``."""
    from execverify_data.synth.filters import Tracer

    kind = kind or config.tracer
    key = (kind, config.max_steps, config.timeout)
    tracer = _TRACERS.get(key)
    if tracer is None:
        import atexit

        tracer = _TRACERS[key] = Tracer(kind, max_steps=config.max_steps, timeout=config.timeout)
        atexit.register(tracer.close)
    return tracer


def _rows(config: SynthConfig, start: int, stop: int, tracer, llm_tracer, known=None) -> list[dict]:
    return [{"row": i, "level": level, "generator": generator_for(i, config), "counts": dict(counts),
             "record": None if acc is None else _record(config, i, s, acc)}
            for i, level, counts, acc, s in iter_rows(config, start, stop, tracer=tracer, llm_tracer=llm_tracer,
                                                      known=known)]


def synthesize_chunk(config: SynthConfig, start: int, stop: int, known: KnownPrograms | None = None) -> dict:
    """The work unit of :func:`synthesize`: rows ``[start, stop)`` as
    ``{"rows": [{"row", "level", "generator", "counts", "record"}...], "seconds"}`` (``record`` is None
    for a row given up).

    Duplicates of the programs in ``known`` (kept by the shards written before this chunk was made)
    end their rows at once; the others are not removed here: which of two equal programs a run keeps
    depends on the rows before it, which only the process that finishes shards in order knows.
    """
    t0 = time.perf_counter()
    tracer = _worker_tracer(config)
    llm_tracer = _worker_tracer(config, "trusted") if config.llm_specs else None  # before a model loads
    rows = _rows(config, start, stop, tracer, llm_tracer, known)
    return {"rows": rows, "seconds": time.perf_counter() - t0}


def synthesize_rows(config: SynthConfig, start: int, stop: int, *, tracer=None) -> tuple[list[dict], dict]:
    """Records for rows ``[start, stop)`` (duplicates within the range dropped, as a run drops them)
    and the statistics of their attempts, in this process."""
    from execverify_data.synth.filters import Tracer

    own = tracer is None
    tracer = tracer or Tracer(config.tracer, max_steps=config.max_steps, timeout=config.timeout)
    t0 = time.perf_counter()
    try:
        rows = _rows(config, start, stop, tracer, None)
    finally:
        if own:
            tracer.close()
    tally, seen = _Tally(), set()
    records = [row["record"] for row in rows if tally.add(row, seen)]
    stats = tally.stats()
    stats["seconds"] = time.perf_counter() - t0
    return records, stats


class _Tally:
    """Counts of a run of rows, in the form of a shard's statistics file."""

    def __init__(self) -> None:
        self.rejected: Counter = Counter()
        self.by_level: dict[str, Counter] = {}
        self.by_generator: dict[str, Counter] = {}
        self.rows = self.accepted = 0

    def add(self, row: dict, seen: set[str]) -> bool:
        """Count ``row``; True when its program is kept (new to ``seen``, which it joins)."""
        groups = (self.by_level.setdefault(str(row["level"]), Counter()),
                  self.by_generator.setdefault(row.get("generator", PROGRAM), Counter()))
        self.rows += 1
        for stats in groups:
            stats["rows"] += 1
        for name, value in row["counts"].items():
            for stats in groups:
                stats[name] += value
            if name not in ("attempts", "generated"):
                self.rejected[name] += value
        record = row["record"]
        if record is None:
            return False
        if record["ast_hash"] in seen:
            for stats in groups:
                stats["duplicate"] += 1
            self.rejected["duplicate"] += 1
            return False
        seen.add(record["ast_hash"])
        for stats in groups:
            stats["accepted"] += 1
        self.accepted += 1
        return True

    def stats(self) -> dict:
        return {"rejected": dict(sorted(self.rejected.items())),
                "by_level": {k: dict(sorted(v.items())) for k, v in sorted(self.by_level.items())},
                "by_generator": {k: dict(sorted(v.items())) for k, v in sorted(self.by_generator.items())},
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
        ("generator", pa.string()),
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
        if self.start:
            missing = [name for name in SCHEMA_FIELDS if name not in pq.read_schema(shard_path(out, 0)).names]
            if missing:  # shards of an older version: resuming would mix two schemas in one folder
                raise InvalidArgument(f"{out} holds shards without the field(s) {', '.join(missing)}, written by an older "
                                      "version of this package; use another --out (or rerun that run with its version)")
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
    identity = config.identity()
    claim_folder(out, identity, hint="use another --out")
    run = _Run(config, out, progress)
    resumed = run.start
    t0 = time.perf_counter()
    if not run.complete:
        # the trusted runner applies its own per-job limit; its children must be free to set it (LLM rows
        # always trace there; a local model, torch or vLLM, also maps far more address space than it uses)
        limit = memory_mb if config.tracer == "inprocess" and not config.llm_specs else None
        with spawn_pool(workers, initializer=_init_worker, initargs=(limit,)) as submit:
            run_ordered(submit, lambda s: [(synthesize_chunk, [config, a, b, KnownPrograms(out, s - KNOWN_LAG + 1, identity)])
                                           for a, b in chunks(config, s)],
                        run.finish, start=run.start, inflight=2 * workers + 2, on_result=run.on_result, lag=KNOWN_LAG)
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
    by_generator: dict[str, Counter] = {}
    seconds = 0.0
    n_shards = finished_shards(out)
    for s in range(n_shards):
        stats = json.loads(stats_path(out, s).read_text())
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
