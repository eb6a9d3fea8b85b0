"""The code-generation reward: the fraction of unit tests a generated program passes.

The program runs in the untrusted sandbox (:mod:`execverify_data.sandbox`); every verdict is decided in the
calling process. A row's tests are assertion strings (``tests``), standard-input/output cases
(``stdio_tests``), or both; :func:`validate_tests` rejects a test that could not tell right from wrong.

>>> unit_test_reward(prompts=["p"], completions=["```python\\ndef add(a, b):\\n    return a + b\\n```"],
...                  tests=[["assert add(1, 2) == 3", "assert add(2, 2) == 5"]])
[0.5]
>>> unit_test_reward(prompts=["p"], completions=["print(sum(map(int, input().split())))"],
...                  stdio_tests=[[{"stdin": "1 2\\n", "stdout": "3\\n"}, {"stdin": "2 2", "stdout": "5"}]])
[0.5]
"""

from __future__ import annotations

import ast
import functools
import re
import threading
import warnings
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from execverify_data.astwalk import parse_ast
from execverify_data.completions import completion_text
from execverify_data.completions import extract_code as _extract_code
from execverify_data.errors import AnswerError, InvalidArgument, check_int, check_seconds
from execverify_data.values import CanonicalValue, encode, parse
from execverify_data.verdicts import answers, decidable, matches

__all__ = ["UnitTestReward", "extract_code", "split_assertion", "stdout_matches", "unit_test_reward", "validate_tests"]

# --------------------------------------------------------------------------- completions


def extract_code(completion: Any) -> str:
    """The code of a completion (a string or chat messages): its last fenced Python block,
    or the whole text when it has none (see :func:`execverify_data.completions.extract_code`).

    >>> extract_code("Here:\\n```python\\nx = 1\\n```\\nor better\\n```py\\nx = 2\\n```")
    'x = 2\\n'
    >>> extract_code("def f():\\n    return 1")
    'def f():\\n    return 1'
    """
    text = completion_text(completion)
    if text is None:
        raise InvalidArgument(f"a completion must be a string or a list of chat messages, got "
                              f"{type(completion).__name__}")
    return _extract_code(text)


# --------------------------------------------------------------------------- tests


@functools.lru_cache(maxsize=8192)  # a GRPO group runs every test against each of its completions
def split_assertion(test: str) -> tuple[str, CanonicalValue] | None:
    """Split ``assert CALL == EXPECTED`` into ``CALL`` (to run in the sandbox) and the canonical
    ``EXPECTED`` (parsed here with :func:`values.parse`, never evaluated); ``None`` for any other form.

    >>> split_assertion("assert add(1, 2) == 3")
    ('add(1, 2)', CanonicalValue(text='3', type='int', askable=True, reason=None))
    >>> split_assertion("assert [1] == f()")[0]
    'f()'
    >>> split_assertion("assert abs(f(1) - 0.5) < 1e-6") is None
    True
    """
    if not test.lstrip().startswith("assert"):  # cheap exit for check() functions and other forms
        return None
    try:
        tree = parse_ast(test)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        return None
    node = tree.body[0].test
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
        return None
    left, right = node.left, node.comparators[0]
    for call, expected in ((left, right), (right, left)):
        expected_text = ast.get_source_segment(test, expected)
        call_text = ast.get_source_segment(test, call)
        if expected_text is None or call_text is None:
            continue
        try:
            value = encode(parse(expected_text))
        except (AnswerError, ValueError, TypeError, RecursionError):
            continue
        if value.askable:
            return call_text.strip(), value
    return None


_DEFINES_CHECK = re.compile(r"^def check\(", re.M)
_CALLS_CHECK = re.compile(r"^check\(", re.M)


def _with_check_call(test: str, entry_point: str | None) -> str:
    """HumanEval-style tests define ``check(candidate)`` at top level; call it when the test does not.

    >>> _with_check_call("def check(candidate):\\n    assert candidate(1)\\n", "f").splitlines()[-1]
    'check(f)'
    """
    if entry_point and entry_point.isidentifier() and _DEFINES_CHECK.search(test) and not _CALLS_CHECK.search(test):
        return f"{test}\n\ncheck({entry_point})\n"
    return test


# --------------------------------------------------------------------------- validating tests


@functools.lru_cache(maxsize=8192)
def _asserts_something(test: str) -> bool:
    """Whether a test can fail: it parses and has an ``assert`` (or an ``assert*`` call, or a
    ``raise``) that mentions a name, so that its outcome may depend on the program."""
    try:
        tree = parse_ast(test)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and any(isinstance(sub, ast.Name) for sub in ast.walk(node.test)):
            return True
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name.startswith(("assert", "assert_")):
                return True
    return False


def validate_tests(tests: Sequence[str] | None = None, stdio_tests: Sequence[dict] | None = None) -> None:
    """Check one codegen row's tests (assertion strings, ``{"stdin", "stdout"}`` cases) before they are used;
    raise ``InvalidArgument`` naming the first one that cannot tell a right program from a wrong one: a test
    that does not parse or asserts nothing that mentions a name (``x = 1``, ``assert True``), a case with no
    expected ``stdout`` or a blank one.

    >>> validate_tests(["assert f(1) == 2"], [{"stdin": "1", "stdout": "2"}])
    >>> validate_tests(["x = 1"])
    Traceback (most recent call last):
    ...
    execverify_data.errors.InvalidArgument: test 0 ('x = 1') asserts nothing about the program: every program would pass it; write it as an assertion such as 'assert f(1) == 2', or drop it
    """
    if tests is not None:
        if isinstance(tests, str) or not isinstance(tests, Sequence):
            raise InvalidArgument(f"tests must be a list of assertion strings, got {type(tests).__name__}")
        for i, test in enumerate(tests):
            if not isinstance(test, str):
                raise InvalidArgument(f"test {i} is a {type(test).__name__}, not a string of Python code")
            if not _asserts_something(test):
                raise InvalidArgument(f"test {i} ({test[:60]!r}) asserts nothing about the program: every program "
                                      "would pass it; write it as an assertion such as 'assert f(1) == 2', or drop it")
    if stdio_tests is not None:
        if isinstance(stdio_tests, (str, dict)) or not isinstance(stdio_tests, Sequence):
            raise InvalidArgument("stdio_tests must be a list of {'stdin': str, 'stdout': str} cases, "
                                  f"got {type(stdio_tests).__name__}")
        for i, case in enumerate(stdio_tests):
            if not isinstance(case, dict):
                raise InvalidArgument(f"stdio case {i} is a {type(case).__name__}, not a {{'stdin', 'stdout'}} dict")
            if not isinstance(case.get("stdin"), str):
                raise InvalidArgument(f"stdio case {i} has no 'stdin' string (use '' for a program that reads nothing)")
            expected = case.get("stdout")
            if not isinstance(expected, str) or not expected.strip():
                raise InvalidArgument(f"stdio case {i} has no expected output ('stdout' is {expected!r}): every "
                                      "program that prints nothing would pass it; give the expected output, or drop it")


# --------------------------------------------------------------------------- comparing standard output


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n")]


def _decimals(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(token) for token in line.split()]
    except (InvalidOperation, ValueError):
        return None


def stdout_matches(actual: str, expected: str) -> bool:
    """Whether a program's standard output answers a stdio case (LiveCodeBench's rule, ``docs/sandbox.md``).

    Stripped lines, the same count, each equal as text or as exact decimals (``1.0`` answers ``1``;
    ``0.30000001`` does not answer ``0.3``); no float tolerance or token reordering (APPS, PRIME): those
    accept wrong answers.

    >>> stdout_matches("3 \\n", "3"), stdout_matches("1.50\\r\\n2\\n", "1.5\\n2"), stdout_matches("2 1", "1 2")
    (True, True, False)
    """
    got, want = _lines(actual), _lines(expected)
    if len(got) != len(want):
        return False
    for line, wanted in zip(got, want):
        if line == wanted:
            continue
        numbers, wanted_numbers = _decimals(line), _decimals(wanted)
        if numbers is None or wanted_numbers is None or numbers != wanted_numbers:
            return False
    return True


# --------------------------------------------------------------------------- the reward


class UnitTestReward:
    """Fraction of unit tests passed by each completion's code, run in the untrusted sandbox.

    Args:
        timeout (`float`, optional, defaults to 5.0): wall-clock seconds per sandboxed execution.
        memory_mb (`int`, optional, defaults to 1024): address-space limit of each execution.
        workers (`int`, optional): size of a private worker pool; by default the process-wide
            :func:`execverify_data.sandbox.default_pool` (1.5 workers per CPU) is used.

    Called as ``reward(prompts, completions, *, tests=None, entry_point=None, stdio_tests=None,
    **kwargs)``: ``tests[i]`` is a list of assertion strings, ``stdio_tests[i]`` a list of
    ``{"stdin", "stdout"}`` cases; a row with neither gets ``None``.

    Every verdict is decided here, never by model code (``docs/sandbox.md``, "Verdicts that cannot be forged"):
    ``assert CALL == EXPECTED`` tests, and those :func:`execverify_data.verdicts.decidable` reads, share one
    sandboxed execution that only computes the calls, compared here (a lying ``__eq__`` cannot pass); any other
    test runs in a tester process that never executes model code, talking to the candidate through proxies;
    a stdio case runs the code as a script, its output compared here with :func:`stdout_matches`.

    A test that :func:`validate_tests` would reject never passes (a warning says so once).
    Thread-safe; pickling keeps only the settings (workers start again in the new process).
    """

    def __init__(self, *, timeout: float = 5.0, memory_mb: int = 1024, workers: int | None = None):
        check_seconds("timeout", timeout)
        check_int("memory_mb", memory_mb)
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers <= 0):
            raise InvalidArgument(f"workers must be a positive int or None, got {workers!r}")
        self.__name__ = "unit_test_reward"
        self.timeout = float(timeout)
        self.memory_mb = memory_mb
        self.workers = workers
        self._pool = None
        self._lock = threading.Lock()
        self._warned = False
        from cachetools import LRUCache

        # seconds a job took, by its test, calls and stdin: (seconds, characters of the key), the least recently
        # used forgotten past COST_CACHE_CHARS characters of keys (a test may be a long check function)
        self._costs = LRUCache(maxsize=COST_CACHE_CHARS, getsizeof=lambda entry: entry[1])

    def _get_pool(self):
        from execverify_data.sandbox import UntrustedPool, default_pool

        if self.workers is None:
            return default_pool()
        with self._lock:
            if self._pool is None or self._pool.closed:
                self._pool = UntrustedPool(self.workers)
            return self._pool

    def __call__(self, prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None, *,
                 tests: Sequence[Sequence[str] | None] | None = None, entry_point: Sequence[str | None] | None = None,
                 stdio_tests: Sequence[Sequence[dict] | None] | None = None, **kwargs: Any) -> list[float | None]:
        if completions is None:
            raise InvalidArgument("unit_test_reward needs completions=")
        if tests is None and stdio_tests is None:
            raise InvalidArgument("unit_test_reward needs a tests column (lists of assertion strings) "
                                  "or a stdio_tests column (lists of {'stdin', 'stdout'} cases)")
        for name, column in (("tests", tests), ("stdio_tests", stdio_tests), ("entry_point", entry_point)):
            if column is not None and len(column) != len(completions):
                raise InvalidArgument(f"got {len(completions)} completions but {len(column)} rows of {name}")
        n = len(completions)
        tests = tests if tests is not None else [None] * n
        stdio_tests = stdio_tests if stdio_tests is not None else [None] * n
        entry_points = entry_point if entry_point is not None else [None] * n
        jobs: list[dict] = []
        plans: list[tuple[int, list] | None] = []
        for completion, row_tests, row_stdio, row_entry in zip(completions, tests, stdio_tests, entry_points):
            row_tests = [row_tests] if isinstance(row_tests, str) else list(row_tests or [])
            row_stdio = list(row_stdio or [])
            if not row_tests and not row_stdio:
                plans.append(None)
                continue
            if not all(isinstance(t, str) for t in row_tests):
                raise InvalidArgument("each row of tests must be a list of assertion strings, "
                                      f"got {[type(t).__name__ for t in row_tests]}")
            if not all(isinstance(case, dict) for case in row_stdio):
                raise InvalidArgument("each row of stdio_tests must be a list of {'stdin', 'stdout'} dicts, "
                                      f"got {[type(c).__name__ for c in row_stdio]}")
            code = extract_code(completion)
            calls: list[str] = []  # the row's call-mode execution: equality splits and tests decided here
            pending = []  # (kind, detail); a "test" detail is its job, the others' job is the call-mode one
            for test in row_tests:
                if not _asserts_something(test):
                    continue
                split = split_assertion(test)
                if split is not None:
                    pending.append(("eq", (len(calls), split[1])))
                    calls.append(split[0])
                    continue
                full = _with_check_call(test, row_entry)
                decided = decidable(full, row_entry)
                if decided is not None and decided.calls:  # one that calls nothing runs whole, with the tester
                    pending.append(("host", (len(calls), decided, code, full)))
                    calls.extend(decided.calls)
                else:
                    pending.append(("test", len(jobs)))
                    jobs.append(self._job(code, test=full))
            call_job = len(jobs) if calls else None
            if calls:
                jobs.append(self._job(code, calls=calls))
            # (kind, job index, detail): detail = (call index, expected) | (call index, Decidable, ...) | stdout
            checks = [(kind, detail, None) if kind == "test" else (kind, call_job, detail) for kind, detail in pending]
            for case in row_stdio:
                expected = case.get("stdout")
                if isinstance(case.get("stdin"), str) and isinstance(expected, str) and expected.strip():
                    checks.append(("stdio", len(jobs), expected))
                    jobs.append(self._job(code, stdin=case["stdin"], output_limit=max(1 << 16, 2 * len(expected) + 4096)))
            total = len(row_tests) + len(row_stdio)
            if len(checks) < total and not self._warned:
                self._warned = True
                warnings.warn("unit_test_reward: some tests assert nothing or give no expected output; they count as "
                              "failed (validate_tests says which)", stacklevel=2)
            plans.append((total, checks))
        pool = self._get_pool()
        results = self._run(pool, jobs)
        # a test decided here whose answers were too large to cross in call mode runs again with the tester
        retry = [(i, j) for i, plan in enumerate(plans) if plan for j, (kind, job, detail) in enumerate(plan[1])
                 if kind == "host" and _needs_tester(results[job], detail)]
        if retry:
            extra = self._run(pool, [self._job(plans[i][1][j][2][2], test=plans[i][1][j][2][3]) for i, j in retry])
            for (i, j), result in zip(retry, extra):
                plans[i][1][j] = ("test", len(results), None)
                results.append(result)
        return [None if plan is None else sum(_passed(results[job], kind, detail) for kind, job, detail in plan[1])
                / plan[0] for plan in plans]

    def _run(self, pool, jobs: list[dict]) -> list:
        """Run ``jobs`` on ``pool``, results in the jobs' order: the slowest-seen first, unseen ones before them
        and tester jobs before the others (a slow test started last keeps the whole call waiting)."""
        if not jobs:
            return []
        keys = [(job["test"], tuple(job["calls"]), job["stdin"]) for job in jobs]
        with self._lock:
            expected = [self._costs.get(key, (float("inf"), 0))[0] for key in keys]
        order = sorted(range(len(jobs)), key=lambda i: (-expected[i], jobs[i]["test"] is None))
        ran = pool.run_many([jobs[i] for i in order])
        results: list = [None] * len(jobs)
        with self._lock:
            for i, result in zip(order, ran):
                results[i] = result
                previous = self._costs.get(keys[i])
                seconds = result.duration_s if previous is None else (previous[0] + result.duration_s) / 2
                chars = sum(len(part or "") for part in (keys[i][0], *keys[i][1], keys[i][2])) + 64
                if chars <= COST_CACHE_CHARS:
                    self._costs[keys[i]] = (seconds, chars)
        return results

    def _job(self, code: str, *, calls: Sequence[str] = (), test: str | None = None, stdin: str | None = None,
             output_limit: int = 1 << 16) -> dict:
        return {"code": code, "calls": list(calls), "test": test, "stdin": stdin, "timeout": self.timeout,
                "memory_mb": self.memory_mb, "output_limit": output_limit}

    def __getstate__(self) -> dict:
        return {"timeout": self.timeout, "memory_mb": self.memory_mb, "workers": self.workers}

    def __setstate__(self, state: dict) -> None:
        self.__init__(**state)

    def __repr__(self) -> str:
        return f"UnitTestReward(timeout={self.timeout}, memory_mb={self.memory_mb}, workers={self.workers})"


#: most characters of call values one test decided here may make the trainer read; a test whose values are larger
#: runs again whole with the tester, in the sandbox (issue #29: one test of 300 calls of long values took 10.8 s of
#: the trainer's CPU, 0.05 s for an honest one)
HOST_TEXT_LIMIT = 1 << 18
#: characters of test, call and stdin text the reward keeps job durations for (it runs the slowest-seen jobs first)
COST_CACHE_CHARS = 1 << 24


def _needs_tester(result, detail) -> bool:
    """Whether a test decided here must run again with the tester: a call returned a value too large to cross in
    call mode, or the values together are more text than :data:`HOST_TEXT_LIMIT`."""
    from execverify_data.sandbox import Status

    start, decided, _, _ = detail
    calls = result.calls[start:start + len(decided.calls)]
    if result.status is not Status.OK:
        return False
    return (any(call.ok and call.value.reason == "too large" for call in calls)
            or sum(len(call.value.text) for call in calls if call.ok) > HOST_TEXT_LIMIT)


def _passed(result, kind: str, detail) -> bool:
    from execverify_data.sandbox import Status

    if result.status is not Status.OK:
        return False
    if kind == "test":
        return result.test_passed is True
    if kind == "stdio":
        return stdout_matches(result.stdout, detail)
    if kind == "host":
        start, decided, _, _ = detail  # (an answer too large was sent to the tester: _needs_tester)
        return decided.verdict(answers(result.calls[start:start + len(decided.calls)]))
    index, expected = detail
    return index < len(result.calls) and result.calls[index].ok and matches(expected, result.calls[index].value)


#: The default instance, for ``reward_funcs=[unit_test_reward]``.
unit_test_reward = UnitTestReward()
