"""The scorer: one rule for every answer to every question.

:class:`Scorer` reads a ``verification`` object (a dict or its JSON string, as
:func:`~execverify_data.questions.templates.render` makes it) and a completion,
extracts one answer per question (:mod:`~execverify_data.questions.extract`) and
decides each with :func:`execverify_data.values.same` only; answers are never
evaluated. An ``oi`` call runs in the warm
:class:`~execverify_data.sandbox.trusted.TrustedRunner`, and its verdict is taken
here, in the parent. The rule per kind is in ``docs/questions.md``, "The scoring rule".
Scoring never raises for any completion: an unreadable answer is a wrong answer.

>>> from execverify_data.questions import build
>>> r = build("def f(x):\\n    y = x + 1\\n    return y * 2\\n", "f(3)", n_path=1, n_state=1)
>>> Scorer().score(r.verification, r.reference_completion).correct
(True, True, True)
>>> Scorer().score(r.verification, "<answer>\\n8\\n-1\\n4; float\\n</answer>").correct
(True, True, False)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Sequence

from execverify_data.errors import AnswerError, InvalidArgument, check_int
from execverify_data.questions import extract
from execverify_data.questions.kinds import FINAL_KINDS, NOT_EXECUTED, Kind, Question
from execverify_data.questions.templates import FLOAT_RULES, VERIFICATION_FORMAT
from execverify_data.trace import Status
from execverify_data.values import CanonicalValue, format_call, parse_call, same

__all__ = ["OiExecutor", "ScoreResult", "Scorer", "Verification", "load_verification"]


@dataclass(frozen=True)
class Verification:
    """A parsed ``verification`` object."""

    style: str
    questions: tuple[Question, ...]
    program: str | None = None
    #: floats compared as Python's ``==`` compares them (``"floats": "exact"``: the tasks named after a benchmark)
    exact_floats: bool = False
    #: the question kinds, in order
    kinds: tuple[Kind, ...] = field(init=False)
    #: position of the final-answer (``io``/``oi``) question, or None
    final_index: int | None = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kinds", tuple(q.kind for q in self.questions))
        final = next((i for i, kind in enumerate(self.kinds) if kind in FINAL_KINDS), None)
        object.__setattr__(self, "final_index", final)


@lru_cache(maxsize=4096)
def _verification_from_text(text: str) -> Verification:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise InvalidArgument("verification is not valid JSON; pass the dict made by questions.render or its json.dumps") from None
    return _verification_from_dict(data)


def _verification_from_dict(data: Any) -> Verification:
    if not isinstance(data, dict) or data.get("format") != VERIFICATION_FORMAT:
        raise InvalidArgument("verification must be the dict made by questions.render "
                              f"(format {VERIFICATION_FORMAT!r}), got {str(data)[:60]!r}")
    questions = tuple(Question.from_json(q) for q in data.get("questions", ()))
    if not questions:
        raise InvalidArgument("verification has no questions")
    program = data.get("program")
    if any(q.kind is Kind.OI for q in questions) and not isinstance(program, str):
        raise InvalidArgument("verification of an oi question must include the program")
    floats = data.get("floats", FLOAT_RULES[0])
    if floats not in FLOAT_RULES:
        raise InvalidArgument(f"verification's floats must be one of {', '.join(FLOAT_RULES)}, got {floats!r}")
    return Verification(style=data.get("style", "execverify"), questions=questions, program=program,
                        exact_floats=floats == "exact")


def load_verification(verification: Any) -> Verification | None:
    """A :class:`Verification` from a dict, its JSON string or a Verification; None for None/empty.

    Raises:
        InvalidArgument: the object is not a verification made by this library.
    """
    if verification is None or verification == "" or verification == {}:
        return None
    if isinstance(verification, Verification):
        return verification
    if isinstance(verification, str):
        return _verification_from_text(verification)
    if isinstance(verification, dict):
        try:  # the JSON text is a cheap cache key: equal rows (GRPO samples of one prompt) parse once
            key = json.dumps(verification, ensure_ascii=False)
        except (TypeError, ValueError):
            return _verification_from_dict(verification)
        return _verification_from_text(key)
    raise InvalidArgument(f"verification must be a dict or a JSON string, got {type(verification).__name__}")


@dataclass(frozen=True)
class ScoreResult:
    """The verdicts for one completion.

    Attributes:
        correct (`tuple[bool, ...]`): one verdict per question, in question order.
        answers (`tuple[str | None, ...]`): the answer text matched to each question (None: missing).
        n_answers (`int`): answer lines found (0 when there is no answer block).
        extra (`int`): answer lines beyond the number of questions.
        well_formed (`bool`): an answer block with exactly one readable answer per question.
        final_index (`int | None`): position of the ``io``/``oi`` question.
        kinds (`tuple[Kind, ...]`): the question kinds, in order.
    """

    correct: tuple[bool, ...]
    answers: tuple[str | None, ...]
    n_answers: int
    extra: int
    well_formed: bool
    final_index: int | None
    kinds: tuple[Kind, ...]

    @property
    def final_correct(self) -> bool | None:
        """Verdict of the final-answer question (None when there is none)."""
        return None if self.final_index is None else self.correct[self.final_index]

    @property
    def step_correct(self) -> tuple[bool, ...]:
        """Verdicts of the step (coverage, path, state) questions."""
        return tuple(c for i, c in enumerate(self.correct) if i != self.final_index)

    @property
    def step_fraction(self) -> float:
        """Right step answers over ``max(step questions, step answers)``: a missing
        answer and an extra one both count as wrong; 1.0 when no step was asked and none given."""
        denominator = len(self.step_correct) + self.extra
        return sum(self.step_correct) / denominator if denominator else 1.0


class OiExecutor:
    """Runs a program's function on proposed literal arguments and returns its canonical output.

    Uses one warm :class:`~execverify_data.sandbox.trusted.TrustedRunner`, created on first use (never at import
    or unpickling); results are cached per (program, call), least recently used first out once the programs, calls
    and outputs held pass ``cache_bytes`` (a trainer's long answers cannot grow it past that); a batch's calls run
    together
    (:meth:`TrustedRunner.map <execverify_data.sandbox.trusted.TrustedRunner.map>`).

    Args:
        workers (`int`, optional, defaults to 2): runner processes.
        timeout (`float`, optional, defaults to 2.0): seconds per call.
        max_steps (`int`, optional, defaults to 100000): line events per call.
        cache_bytes (`int`, optional, defaults to 64 MiB): most characters of programs, calls and outputs the
            cache holds (an entry larger than that is not kept).
        batch (`int`, optional, defaults to 16): most calls per forked process.
    """

    def __init__(self, *, workers: int = 2, timeout: float = 2.0, max_steps: int = 100_000,
                 cache_bytes: int = 64 << 20, batch: int = 16):
        check_int("batch", batch)
        check_int("cache_bytes", cache_bytes)
        self.workers = workers
        self.timeout = timeout
        self.max_steps = max_steps
        self.cache_bytes = cache_bytes
        self.batch = batch
        self._runner = None
        self._cache = self._new_cache()

    def _new_cache(self):
        from cachetools import LRUCache

        # an entry holds (output, characters of program + call + output); the cache weighs entries by the latter
        return LRUCache(maxsize=self.cache_bytes, getsizeof=lambda entry: entry[1])

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_runner": None, "_cache": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._cache = self._new_cache()

    def _get_runner(self):
        if self._runner is None:
            from execverify_data.sandbox.trusted import TrustedRunner

            self._runner = TrustedRunner(self.workers, timeout=self.timeout, max_steps=self.max_steps)
        return self._runner

    def close(self) -> None:
        """Stop the runner's workers (a later call starts new ones)."""
        if self._runner is not None:
            self._runner.close()
            self._runner = None

    def outputs(self, jobs: Sequence[tuple[str, str]]) -> list[CanonicalValue | None]:
        """The canonical return value of each ``(program, literal call)``; None when the call
        did not return normally (exception, timeout, crash, no such function)."""
        results: list[CanonicalValue | None] = [None] * len(jobs)
        todo: dict[tuple[str, str], list[int]] = {}
        for i, job in enumerate(jobs):
            entry = self._cache.get(job)
            if entry is not None:
                results[i] = entry[0]
            else:
                todo.setdefault(job, []).append(i)
        if todo:
            keys = list(todo)
            traces = self._get_runner().map(keys, return_exceptions=True, batch=self.batch, events=False)
            for key, trace in zip(keys, traces):
                output = trace.output if getattr(trace, "status", None) is Status.OK else None
                size = len(key[0]) + len(key[1]) + (len(output.text) if output is not None else 0)
                if size <= self.cache_bytes:
                    self._cache[key] = (output, size)
                for i in todo[key]:
                    results[i] = output
        return results


def _check(question: Question, answer: str, same_text) -> tuple[bool, bool]:
    """``(correct, readable)`` for a non-oi answer; ``readable``: it has the form its kind asks for."""
    kind = question.kind
    if kind is Kind.IO:
        value = extract.final_parts(answer, "io")[1]
        if value is None:
            return False, False
        return same_text(question.expected, value), True
    if kind is Kind.PATH:
        return same_text(question.expected, extract.normalize_path(answer)), bool(answer)
    if kind is Kind.COVERAGE:
        return same_text(question.expected, extract.normalize_coverage(answer)), bool(answer)
    if kind is Kind.STATE:
        if answer.strip().rstrip(".").strip().lower() == NOT_EXECUTED:
            return question.expected is None, True
        value, type_name = extract.split_state(answer)
        if question.expected is None or type_name is None:
            return False, type_name is not None
        return type_name == question.expected.type and same_text(question.expected, value), True
    raise AssertionError(kind)  # pragma: no cover


def _oi_call(question: Question, call: str | None, claimed: str | None, exact_floats: bool) -> str | None:
    """The canonical literal call to run for an oi answer, or None when the answer fails before running."""
    if call is None or claimed is not None and not same(question.expected, claimed,  # type: ignore[arg-type]
                                                        exact_floats=exact_floats):
        return None
    try:
        name, args, kwargs = parse_call(call)
        if name != question.entry:
            return None
        return format_call(name, args, kwargs)
    except (AnswerError, InvalidArgument, RecursionError, MemoryError, ValueError):
        return None


class Scorer:
    """Scores completions against verification objects.

    Args:
        oi_executor (`OiExecutor`, optional): runs ``oi`` answers; a default one
            (two warm workers) is made on first need.
    """

    def __init__(self, oi_executor: OiExecutor | None = None):
        self._oi = oi_executor

    @property
    def oi_executor(self) -> OiExecutor:
        if self._oi is None:
            self._oi = OiExecutor()
        return self._oi

    def close(self) -> None:
        """Stop the ``oi`` executor's runner, if one was started (a later ``oi`` scoring starts another)."""
        if self._oi is not None:
            self._oi.close()

    def score(self, verification: Any, completion: Any) -> ScoreResult:
        """Score one completion (see :meth:`score_batch`)."""
        return self.score_batch([verification], [completion])[0]

    def score_batch(
        self, verifications: Sequence[Any], completions: Sequence[Any], *, run_oi: bool = True
    ) -> list[ScoreResult | None]:
        """Score each completion against its verification (None where the verification is None).

        All ``oi`` answers of the batch run together in the runner's parallel map.
        With ``run_oi=False`` no program runs and every ``oi`` verdict is False (for
        callers that need only the form of the answers).

        Raises:
            InvalidArgument: the two lists differ in length, or a verification is not
                one made by this library (a completion never raises).
        """
        if len(verifications) != len(completions):
            raise InvalidArgument(f"{len(verifications)} verifications for {len(completions)} completions")
        by_id: dict[int, Verification | None] = {}
        for v in verifications:  # one parse per distinct object of the batch
            if id(v) not in by_id:
                by_id[id(v)] = load_verification(v)
        parsed = [by_id[id(v)] for v in verifications]
        memo: dict[tuple[str, str, str, bool], bool] = {}
        exact = False  # the float rule of the verification being scored

        def same_text(expected: CanonicalValue, text: str) -> bool:
            # values.same decides; identical answers to the same value in one batch are decided once
            key = (expected.text, expected.type, text, exact)
            verdict = memo.get(key)
            if verdict is None:
                verdict = memo[key] = same(expected, text, exact_floats=exact)
            return verdict

        partial: list[tuple | None] = []
        pending: list[tuple[list[bool], int, Question, bool]] = []  # (a row's verdicts, index, question, float rule)
        jobs: list[tuple[str, str]] = []
        for verification, completion in zip(parsed, completions):
            if verification is None:
                partial.append(None)
                continue
            questions = verification.questions
            exact = verification.exact_floats
            try:
                lines = extract.answer_lines(completion, verification.style)
            except (RecursionError, MemoryError):  # pragma: no cover - defensive
                lines = None
            lines = lines or []
            answers = [lines[i] if i < len(lines) else None for i in range(len(questions))]
            correct = [False] * len(questions)
            readable = len(lines) == len(questions)
            for i, (question, answer) in enumerate(zip(questions, answers)):
                if answer is None:
                    continue
                if question.kind is Kind.OI:
                    call, claimed = extract.final_parts(answer, "oi")
                    readable = readable and call is not None
                    call = _oi_call(question, call, claimed, exact)
                    if call is not None:
                        pending.append((correct, i, question, exact))
                        jobs.append((verification.program, call))  # type: ignore[arg-type]
                    continue
                try:
                    correct[i], ok = _check(question, answer, same_text)
                except (RecursionError, MemoryError):  # pragma: no cover - defensive
                    correct[i], ok = False, False
                readable = readable and ok
            partial.append((verification, answers, correct, len(lines), readable))
        if jobs and run_oi:
            for (correct, i, question, exact_oi), output in zip(pending, self.oi_executor.outputs(jobs)):
                correct[i] = output is not None and same(question.expected, output,  # type: ignore[arg-type]
                                                         exact_floats=exact_oi)
        results: list[ScoreResult | None] = [None] * len(partial)
        for row, item in enumerate(partial):
            if item is not None:
                verification, answers, correct, n_answers, well_formed = item
                results[row] = ScoreResult(
                    correct=tuple(correct), answers=tuple(answers), n_answers=n_answers,
                    extra=max(0, n_answers - len(verification.questions)), well_formed=well_formed,
                    final_index=verification.final_index, kinds=verification.kinds)
        return results
