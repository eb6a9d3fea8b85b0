"""Filters a synthesized program must pass before it becomes a record.

The first filter that fails names the rejection (:data:`REASONS`, in the order they run; the
table in docs/synthesis.md, "Filters", says what each means). An input whose call raises is
discarded and counted (``input_raised``); an output whose literal is not ``==`` to itself (a NaN
inside: ``assert f(INPUT) == OUTPUT`` could never hold) is ``unaskable_output``; a rerun in the same
process could not see traces that depend on the order of a set of strings, hence the second
interpreter of ``nondeterministic`` (:mod:`execverify_data.synth.retrace`).

The order is cheapest rejection first. With the ``"inprocess"`` tracer the inputs are chosen by plain
calls before the checker runs (half the generated programs have a constant output, and a plain run
rejects them ~5x faster than the checker would), so the source must be trusted; the LLM generator
checks its code before it gets here, and with the ``"trusted"`` tracer the checker runs first.

Tracing is done by a :class:`TraceBackend`: ``"inprocess"`` traces in the calling process (the
pipeline's workers are started with ``PYTHONHASHSEED=0`` and a memory limit; generated programs are
trusted: terminating by construction, no I/O) and is the fast default; ``"trusted"`` sends every call
to the :class:`~execverify_data.sandbox.trusted.TrustedRunner` (a fork per call: about 2.5x slower); ``"sandbox"``
traces every call in a confined child of the untrusted sandbox (code nobody reviewed: ``from-code``'s functions,
given records, LLM-written programs).

>>> normalized_hash("def f(a):\\n    return a.upper() + 'x'\\n") == normalized_hash("def g(s):\\n    return s.upper() + 'yy'\\n")
True
>>> normalized_hash("def f(a):\\n    return a.upper()\\n") == normalized_hash("def f(a):\\n    return a.lower()\\n")
False
"""

from __future__ import annotations

import ast
import hashlib
import pickle
import time
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Self

from execverify_data.astwalk import walk
from execverify_data.errors import AnswerError, InvalidArgument, check_int
from execverify_data.inputs import Hints, draw_inputs, iter_inputs
from execverify_data.instrument import OVER_BUDGET
from execverify_data.naturalness.execution import effectless_sites
from execverify_data.naturalness.patterns import bare_literal_gates
from execverify_data.synth.checker import check
from execverify_data.synth.code import BUILTIN_NAMES
from execverify_data.synth.coverage import (
    Cover,
    Probe,
    TracedProbe,
    branch_coverage,
    choose,
)
from execverify_data.synth.generator import Program
from execverify_data.synth.retrace import (
    Retracer,
    may_depend_on_hash_seed,
    trace_digest,
)
from execverify_data.synth.spec import ConstraintSpec
from execverify_data.trace import Status, Trace, trace_call
from execverify_data.values import format_arguments, parse, parse_call

__all__ = [
    "REASONS",
    "Accepted",
    "FilterConfig",
    "TRACERS",
    "TraceBackend",
    "evaluate",
    "normalized_hash",
    "prescreen",
    "returns_as_annotated",
    "unused_params",
    "worker_tracer",
]

#: Rejection reasons, in the order the filters run.
REASONS = ("unused_param", "step_budget", "unaskable_output", "one_sided_branch", "dead_code", "too_few_inputs",
           "too_many_inputs", "constant_output", "trace_length", "wrong_annotation", "checker", "duplicate",
           "nondeterministic", "effectless_call", "magic_number")


@dataclass(frozen=True)
class FilterConfig:
    """Settings of the filters.

    Args:
        k (`int`, defaults to 3): inputs each accepted program keeps.
        draws (`int`, defaults to 4): candidate inputs drawn per kept input (``k * draws`` at most).
        extra (`int`, defaults to 6): once ``k`` inputs are kept and all give one output, how many more
            candidates are tried for a different output (which replaces the last kept input).
        max_steps (`int`, defaults to 5000): line events allowed per call.
        timeout (`float`, defaults to 2.0): seconds allowed per call.
        min_events, max_events (`int`, defaults to 1 and 2000): bounds on each kept trace's length.
    """

    k: int = 3
    draws: int = 4
    extra: int = 6
    max_steps: int = 5000
    timeout: float = 2.0
    min_events: int = 1
    max_events: int = 2000

    def __post_init__(self) -> None:
        for name in ("k", "draws", "extra", "max_steps", "min_events", "max_events"):
            value = getattr(self, name)
            check_int(name, value)
        if self.min_events > self.max_events:
            raise InvalidArgument(f"min_events ({self.min_events}) must not exceed max_events ({self.max_events})")
        if not isinstance(self.timeout, (int, float)) or self.timeout <= 0:
            raise InvalidArgument(f"timeout must be a positive number of seconds, got {self.timeout!r}")


@dataclass
class Accepted:
    """A program that passed every filter, with its inputs and traces."""

    program: Program
    spec: ConstraintSpec
    inputs: list[str]
    traces: list[Trace]
    ast_hash: str
    catalog_ids: list[str] = field(default_factory=list)


#: The kinds of :class:`TraceBackend`.
TRACERS = ("inprocess", "trusted", "sandbox")
#: Options of the ``"sandbox"`` kind's :class:`~execverify_data.sandbox.UntrustedPool` s (its layers:
#: ``{"bwrap": False, "python": ...}`` runs without bubblewrap; the tests try both).
SANDBOX_OPTIONS: dict = {}


class TraceBackend:
    """Traces calls of one program: in this process (``"inprocess"``), in the trusted runner (``"trusted"``:
    a fork per call, limits, no confinement) or in the untrusted sandbox (``"sandbox"``: a confined child per
    call streams its events, the trace is assembled here, :meth:`~execverify_data.sandbox.UntrustedPool.trace`);
    and traces them again, for the determinism filter, under another hash seed: in a helper interpreter
    (:class:`~execverify_data.synth.retrace.Retracer`), or for ``"sandbox"`` in a second sandbox pool.

    ``guarded`` (every kind but ``"inprocess"``) says the code is not ours: the filters then check it
    before running it and run nothing of it in this process."""

    def __init__(self, kind: str = "inprocess", *, max_steps: int = 5000, timeout: float = 2.0, workers: int = 1):
        if kind not in TRACERS:
            raise InvalidArgument(f"tracer kind must be one of {', '.join(map(repr, TRACERS))}, got {kind!r}")
        self.kind, self.max_steps, self.timeout = kind, max_steps, timeout
        self.guarded = kind != "inprocess"
        #: a ``time.monotonic()`` past which a ``"sandbox"`` tracer's calls get no time (its callers' cap); None: none
        self.deadline: float | None = None
        self._runner = self._pool = self._again_pool = self._again = None
        if kind == "trusted":
            from execverify_data.sandbox.trusted import TrustedRunner

            self._runner = TrustedRunner(workers, max_steps=max_steps, timeout=timeout)
        if kind == "sandbox":
            from execverify_data.sandbox.untrusted import UntrustedPool

            # hash seed 0, as the trusted runner and the pipeline's workers trace; the second run under 1
            self._pool = UntrustedPool(max(2, workers), hash_seed=0, **SANDBOX_OPTIONS)
            self._again_pool = UntrustedPool(max(2, workers), hash_seed=1, **SANDBOX_OPTIONS)
        else:
            self._again = Retracer(max_steps=max_steps, timeout=timeout)
            self._again.start()  # its start-up overlaps the first program's generation

    def trace_many(self, source: str, calls: list[str]) -> list[Trace]:
        if self._runner is not None:
            return self._runner.map([(source, c) for c in calls])
        if self._pool is not None:
            return self._sandboxed(self._pool, source, calls)
        return [trace_call(source, c, max_steps=self.max_steps, timeout=self.timeout) for c in calls]

    def reproduces(self, source: str, calls: list[str], traces: list[Trace]) -> bool:
        """Whether a run under another hash seed traces ``calls`` exactly as ``traces``."""
        if self._again_pool is not None:
            again = self._sandboxed(self._again_pool, source, calls)
            return [trace_digest(t) for t in again] == [trace_digest(t) for t in traces]
        digests = self._again.digests(source, calls)
        return digests is not None and digests == [trace_digest(t) for t in traces]

    def _sandboxed(self, pool, source: str, calls: list[str]) -> list[Trace]:
        timeout = self.timeout
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                return [Trace(Status.TIMEOUT) for _ in calls]
            timeout = min(timeout, max(0.05, left))
        return pool.trace_many(source, calls, max_steps=self.max_steps, timeout=timeout)

    def close(self) -> None:
        """Stop the trusted runner or the sandbox pools, and the second interpreter (if any). Idempotent."""
        for part in (self._runner, self._pool, self._again_pool, self._again):
            if part is not None:
                part.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


_WORKER_BACKENDS: dict[tuple, TraceBackend] = {}


def worker_tracer(kind: str, max_steps: int, timeout: float) -> TraceBackend:
    """This worker process's :class:`TraceBackend` for these settings (its second interpreter starts once, not
    once per chunk); it closes when the process exits."""
    key = (kind, max_steps, timeout)
    backend = _WORKER_BACKENDS.get(key)
    if backend is None:
        import atexit

        backend = _WORKER_BACKENDS[key] = TraceBackend(kind, max_steps=max_steps, timeout=timeout)
        atexit.register(backend.close)
    return backend


def _normalize(node: ast.AST, names: dict[str, str]) -> None:
    """Abstract, in place, identifiers (``v0``, ``v1``... by first appearance in a depth-first walk; builtins
    keep their names) and literals (by type: ``'<int>'``); drop annotations; keep attribute names and calls."""
    kind = type(node)
    if kind is ast.Name:
        node.id = node.id if node.id in BUILTIN_NAMES else names.setdefault(node.id, f"v{len(names)}")
        return
    if kind is ast.arg:
        node.arg = node.arg if node.arg in BUILTIN_NAMES else names.setdefault(node.arg, f"v{len(names)}")
        node.annotation = None
        return
    if kind is ast.Constant:
        node.value, node.kind = f"<{type(node.value).__name__}>", None
        return
    if kind is ast.FunctionDef:
        node.name = node.name if node.name in BUILTIN_NAMES else names.setdefault(node.name, f"v{len(names)}")
        node.returns = None
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    _normalize(item, names)
        elif isinstance(value, ast.AST):
            _normalize(value, names)


def normalized_hash(source: str) -> str:
    """SHA-1 of the program's AST with identifiers renamed by first use and literals replaced by their type.

    >>> normalized_hash("def f(x: int) -> int:\\n    return len(x) + 1\\n")[:12]
    '8a713af14544'
    >>> normalized_hash("def g(y):\\n    return len(y) + 7\\n") == normalized_hash("def f(x: int) -> int:\\n    return len(x) + 1\\n")
    True
    """
    tree = ast.parse(source)
    _normalize(tree, {})
    return hashlib.sha1(ast.dump(tree, include_attributes=False).encode()).hexdigest()


def unused_params(source: str | ast.Module, entry: str) -> list[str]:
    """Entry-point parameters that the function body never reads (``source`` may be the parsed module, only read)."""
    tree = ast.parse(source) if isinstance(source, str) else source
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            reads = {n.id for st in node.body for n in walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            return [a.arg for a in node.args.args if a.arg not in reads]
    return []


def returns_as_annotated(source: str | ast.Module, entry: str, outputs: list) -> bool:
    """Whether each of ``outputs`` (values) is of the type the return annotation of ``entry`` names, items
    included (True when it has none). ``source`` may be the parsed module (only read).

    ``int`` admits a bool, ``float`` an int (PEP 484's numeric tower); ``X | None`` None;
    ``list[int]`` a list of ints, ``tuple[int, str]`` a pair of an int and a str, ``tuple[int, ...]`` a
    tuple of ints, ``dict[str, int]`` str keys and int values; a bare ``list`` or ``tuple`` any items.
    An annotation of another form (a name this check does not know, a string) is not judged.

    >>> returns_as_annotated("def f(x) -> list[int]:\\n    return x\\n", "f", [[1, 2], []])
    True
    >>> returns_as_annotated("def f(x) -> int | None:\\n    return x\\n", "f", [1, None, True])
    True
    >>> returns_as_annotated("def f(x) -> tuple[int, int]:\\n    return x\\n", "f", [(1, 2), (None, 2)])
    False
    >>> returns_as_annotated("def f(x) -> set[str]:\\n    return x\\n", "f", [{'a', 1}])
    False
    """
    tree = ast.parse(source) if isinstance(source, str) else source
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry), None)
    if node is None or node.returns is None:
        return True
    return all(_of_annotation(value, node.returns) is not False for value in outputs)


def _output_values(traces: list[Trace]) -> list:
    """The outputs of ``traces`` as values (one past what an answer may hold is left out: not judged)."""
    out = []
    for trace in traces:
        try:
            out.append(parse(trace.output.text))
        except AnswerError:
            continue
    return out


#: types a value of which an annotation also admits (PEP 484's numeric tower, bool an int)
_WIDER = {"int": (int,), "float": (int, float), "complex": (int, float, complex), "bool": (bool,), "str": (str,),
          "bytes": (bytes,), "list": (list,), "tuple": (tuple,), "dict": (dict,), "set": (set,),
          "frozenset": (frozenset,), "object": (object,)}


def _of_annotation(value, ann: ast.expr) -> bool | None:
    """Whether ``value`` is of the type ``ann`` names; None when ``ann`` is of a form this does not judge."""
    if isinstance(ann, ast.Constant) and ann.value is None:
        return value is None
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        left, right = _of_annotation(value, ann.left), _of_annotation(value, ann.right)
        return None if None in (left, right) and True not in (left, right) else left or right
    if isinstance(ann, ast.Name):
        kinds = _WIDER.get(ann.id)
        return None if kinds is None else isinstance(value, kinds)
    if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name) and ann.value.id in _WIDER):
        return None
    if not isinstance(value, _WIDER[ann.value.id]):
        return False
    args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    if ann.value.id == "tuple" and not (len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is ...):
        if len(args) != len(value):
            return False
        pairs = list(zip(value, args))
    elif ann.value.id == "dict" and len(args) == 2:
        pairs = [(item, args[i]) for entry in value.items() for i, item in enumerate(entry)]
    else:
        pairs = [(item, args[0]) for item in value]
    verdicts = [_of_annotation(item, arg) for item, arg in pairs]
    return False if False in verdicts else (None if None in verdicts else True)


def prescreen(program: Program, candidates: Iterable[tuple], config: FilterConfig, counts: dict | None, more=None,
               tracer=None, *, best_effort: bool = False, k_max: int | None = None, report: dict | None = None,
               aim=None, rounds: int = 0):
    """Run the entry point untraced, instrumented (:mod:`execverify_data.synth.coverage`), on candidates
    until their runs cover every decision both ways and every statement with at least two outputs,
    then choose the inputs to keep (:func:`~execverify_data.synth.coverage.choose`).

    Returns ``[(args, output text), ...]`` or a rejection reason. When the first candidates do not
    cover everything and the gap is one mutations can close (:meth:`Cover.repairable`), ``more(n)`` (if
    given) supplies ``n`` further ones, drawn around them (``counts["repaired"]`` counts the programs this
    saved). Counted calls are ~10x cheaper than traced ones, so inputs that raise, programs whose branches
    cannot all be reached and picked inputs whose trace would be too long cost no trace. A call past the
    step budget is stopped there and rejects the program (``step_budget``). Each call gets fresh arguments.

    With ``best_effort`` (functions we did not write, :mod:`execverify_data.fromcode`) an input past the
    step budget or with an unaskable output is discarded and counted (``input_step_budget``,
    ``input_unaskable``) instead of rejecting the program, and the choice covers what the inputs
    reach (:func:`~execverify_data.synth.coverage.choose` ``best_effort``); ``report`` (if given)
    receives the ``branch_coverage`` of all the runs and of the chosen ones, and ``refused``: what the
    sandbox refused a run, if it did (a ``"sandbox"`` tracer).

    In best-effort form the sides of a decision that end the call raising
    (:func:`~execverify_data.synth.coverage.raising_sides`) are not goals: only inputs that raise take them, and
    those are not kept. ``report`` receives ``branch_coverage_returning`` too, the share of the other sides the
    chosen inputs take. With ``aim`` (``aim(left, probe, returned)`` -> candidates, for ``left`` the decision
    sides ``(id, bool)`` no run has taken yet and ``returned`` the ``(args, run)`` that returned), up to ``rounds`` further batches are drawn for the sides still untaken
    after the candidates, each round on what the rounds before it left. Where every chosen input returns one of
    its arguments unchanged, an input that does not is added (below ``k_max``): the rows would teach the identity.
    """
    with_sets = any("set" in t for t in program.param_types)  # set[...], frozenset[...], nested ones too
    runs: list = []
    tried: list[tuple] = []
    if tracer is not None:  # untrusted generators: the runs are traced in the trusted runner, a few at a time
        probe = TracedProbe(program.code, program.entry_point, tracer)

        def results(batch):
            batch = list(batch)
            for start in range(0, len(batch), 4):
                part = batch[start:start + 4]
                yield from zip(part, probe.run_many(part, max_steps=config.max_steps, timeout=config.timeout))
    else:
        probe = Probe(program.code, program.entry_point)

        def results(batch):
            for args in batch:
                # fresh objects for every call (a program may change its arguments). A pickle round trip
                # builds them as the literal text would, except a set's hash table (and with it the order of
                # colliding elements), so arguments with a set are built from the call's text as Python compiles it
                fresh = (parse_call(f"{program.entry_point}({format_arguments(args)})")[1] if with_sets
                         else pickle.loads(pickle.dumps(args, -1)))
                yield args, probe.run(fresh, max_steps=config.max_steps, timeout=config.timeout)

    def feed(batch) -> str | None:
        for args, run in results(batch):
            if report is not None and getattr(probe, "refused", None):
                report.setdefault("refused", probe.refused)
            over = run.status in OVER_BUDGET
            if best_effort and (over or (run.status is Status.OK and not run.askable)):
                if counts is not None:
                    name = "input_step_budget" if over else "input_unaskable"
                    counts[name] = counts.get(name, 0) + 1
                continue
            if over:
                return "step_budget"
            if run.status is Status.EXCEPTION and counts is not None:
                counts["input_raised"] = counts.get("input_raised", 0) + 1
            if run.status is Status.OK and not run.askable:
                return "unaskable_output"
            runs.append(run)
            tried.append(args)
            cover.add(run)
            if cover.usable >= config.k and cover.missing() is None:
                return None
        return None

    cover = Cover(probe, values=not best_effort, returning=best_effort)
    stop = feed(candidates)
    if stop:
        return stop
    for _ in range(rounds if best_effort and aim is not None else 0):
        left = sorted(g for g in cover.goals - cover.covered if isinstance(g[0], int))
        batch = aim(left, probe, [(a, r) for a, r in zip(tried, runs) if r.status is Status.OK]) if left else None
        if not batch:
            break
        stop = feed(batch)
        if stop:
            return stop
    if cover.missing() is not None and more is not None and cover.repairable():
        stop = feed(more(config.k * config.draws))
        if stop:
            return stop
        if cover.missing() is None and counts is not None:
            counts["repaired"] = counts.get("repaired", 0) + 1
    chosen = choose(runs, probe, k=config.k, k_max=k_max, best_effort=best_effort)
    if isinstance(chosen, str):
        return chosen
    if best_effort:  # where every chosen input returns one of its arguments unchanged, one that does not (if any)
        for j in range(len(tried[chosen[0]]) if chosen else 0):
            def same(i: int) -> bool:
                return runs[i].output == format_arguments((tried[i][j],))
            other = next((i for i, r in enumerate(runs) if r.status is Status.OK and not same(i)), None)
            if all(same(i) for i in chosen) and other is not None and len(chosen) < (k_max or config.k + 3):
                chosen.append(other)
    if report is not None:
        report["branch_coverage_reachable"] = branch_coverage(runs, probe)
        report["branch_coverage"] = branch_coverage([runs[i] for i in chosen], probe)
        if best_effort:
            report["branch_coverage_returning"] = branch_coverage([runs[i] for i in chosen], probe, returning=True)
    if any(not config.min_events <= runs[i].steps <= config.max_events for i in chosen):
        return "trace_length"
    return [(tried[i], runs[i].output) for i in chosen]


class _Drawn:
    """The candidates of an iterator, drawn from it only as far as they are read (iterating again replays
    them first); :meth:`all` draws the rest."""

    def __init__(self, source: Iterator[tuple]) -> None:
        self._source = source
        self._drawn: list[tuple] = []

    def __iter__(self) -> Iterator[tuple]:
        yield from self._drawn
        for args in self._source:
            self._drawn.append(args)
            yield args

    def all(self) -> list[tuple]:
        self._drawn.extend(self._source)
        return self._drawn


def evaluate(program: Program, spec: ConstraintSpec, *, seed: int, config: FilterConfig, tracer: TraceBackend,
             seen: set[str] | None = None, counts: dict[str, int] | None = None,
             known: Container[str] | None = None, ours: bool | None = None) -> tuple[Accepted | None, str | None]:
    """Run every filter on ``program``; returns ``(accepted, None)`` or ``(None, reason)``.

    ``ours`` says the program is the programmatic generator's (None: it is when the tracer runs in this process):
    only then are the filters that run it in this process applied (``effectless_call``), and the ones aimed at our
    generators' habits (``magic_number``, ``wrong_annotation``), whichever tracer traces it.

    ``seen`` (normalized hashes already accepted) is updated on acceptance; ``known`` (normalized
    hashes, only read) rejects a program among them as ``duplicate`` before anything runs; ``counts``
    receives ``input_raised``, the number of discarded inputs.
    """
    digest = normalized_hash(program.code)
    if known is not None and digest in known:
        return None, "duplicate"
    tree = ast.parse(program.code)  # read, never changed, by the checks below that take a module
    if unused_params(tree, program.entry_point):
        return None, "unused_param"
    if ours is None:
        ours = not tracer.guarded
    if ours and bare_literal_gates(program.code):  # ``if len(words) > 9:``: a gate no task names
        return None, "magic_number"
    hints = Hints.of_source(tree)
    domains = getattr(program, "param_domains", ()) or None
    # drawn as the runs ask for them (most programs are covered by the first few)
    candidates = _Drawn(iter_inputs(program.param_types, seed, config.k * config.draws, min_size=spec.min_size,
                                    max_size=spec.max_size, hints=hints, domains=domains))

    def more(n: int) -> list[tuple]:  # candidates drawn around the first ones (mostly mutations of them)
        first = candidates.all()
        extra = draw_inputs(program.param_types, seed + 1, n + len(first), min_size=spec.min_size, max_size=spec.max_size,
                            hints=hints, domains=domains, mutation_rate=0.7)
        seen = {format_arguments(a) for a in first}
        return [a for a in extra if format_arguments(a) not in seen][:n]

    trusted = tracer.guarded
    if trusted:  # code we did not write: the checker first, and every run in the tracer's guarded processes
        report = check(program.code, spec, entry=program.entry_point)
        if not report.ok:
            return None, "checker"
    picked = prescreen(program, candidates, config, counts, more, tracer if trusted else None)
    if isinstance(picked, str):
        return None, picked
    if not trusted:
        report = check(program.code, spec, entry=program.entry_point, tree=tree)
        if not report.ok:
            return None, "checker"
    if seen is not None and digest in seen:
        return None, "duplicate"
    kept_inputs = [format_arguments(args) for args, _ in picked]
    # a step with no effect (``sorted`` before a count, ``.lower()`` of a lower-case vowel): a call that, replaced
    # by its receiver or first argument, gives the same output on every kept input where it runs (before the
    # traces: a third of the programs generated end here)
    if ours and effectless_sites(program.code, program.entry_point, kept_inputs, max_steps=config.max_steps,
                                 timeout=config.timeout):
        return None, "effectless_call"
    kept = tracer.trace_many(program.code, [f"{program.entry_point}({text})" for text in kept_inputs])
    for trace, (_, text) in zip(kept, picked):
        if trace.status in OVER_BUDGET:
            return None, "step_budget"
        if trace.status is not Status.OK or trace.output.text != text:
            return None, "nondeterministic"
    if any(not config.min_events <= len(t.events) <= config.max_events for t in kept):
        return None, "trace_length"
    if ours and not returns_as_annotated(tree, program.entry_point, _output_values(kept)):
        return None, "wrong_annotation"
    # the second interpreter, for code we did not write and for ours when a set could make its trace an
    # accident of the hash seed (a program that never holds a set traces the same under every seed)
    if (trusted or may_depend_on_hash_seed(tree, program.param_types)) and not tracer.reproduces(
            program.code, [f"{program.entry_point}({text})" for text in kept_inputs], kept):
        return None, "nondeterministic"
    if len({t.output.text for t in kept}) < 2:
        return None, "constant_output"
    if seen is not None:
        seen.add(digest)
    return Accepted(program, spec, kept_inputs, kept, digest, sorted(report.catalog_ids)), None
