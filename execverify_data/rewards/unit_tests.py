"""The code-generation reward: the fraction of unit tests a generated program passes.

The program runs in the untrusted sandbox (:mod:`execverify_data.sandbox`); every
verdict is decided in the calling process with :func:`execverify_data.values.same`.

>>> unit_test_reward(prompts=["p"], completions=["```python\\ndef add(a, b):\\n    return a + b\\n```"],
...                  tests=[["assert add(1, 2) == 3", "assert add(2, 2) == 5"]])
[0.5]
"""

from __future__ import annotations

import ast
import re
import threading
from typing import Any, Sequence

from execverify_data.completions import completion_text
from execverify_data.completions import extract_code as _extract_code
from execverify_data.errors import AnswerError, InvalidArgument
from execverify_data.values import CanonicalValue, encode, parse, same

__all__ = [
    "UnitTestReward",
    "extract_code",
    "split_assertion",
    "unit_test_reward",
]

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
        raise InvalidArgument(
            f"a completion must be a string or a list of chat messages, got {type(completion).__name__}"
        )
    return _extract_code(text)


# --------------------------------------------------------------------------- tests


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
        tree = ast.parse(test)
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


# --------------------------------------------------------------------------- the reward


class UnitTestReward:
    """Fraction of unit tests passed by each completion's code, run in the untrusted sandbox.

    Args:
        timeout (`float`, optional, defaults to 5.0): wall-clock seconds per sandboxed execution.
        memory_mb (`int`, optional, defaults to 1024): address-space limit of each execution.
        workers (`int`, optional): size of a private worker pool; by default the process-wide
            :func:`execverify_data.sandbox.default_pool` (1.5 workers per CPU) is used.

    Called as ``reward(prompts, completions, tests, entry_point=None, **kwargs)`` where
    ``tests[i]`` is a list of assertion strings (or ``None``: the row gets ``None``).

    * ``assert CALL == EXPECTED`` with a literal ``EXPECTED``: all such tests of a row share one
      sandboxed execution that only computes the ``CALL`` values; the comparison happens here,
      with :func:`values.same` (strict types; a lying ``__eq__`` cannot pass).
    * any other test (``check(candidate)`` functions, ``assert abs(...) < eps``...) gets a fork
      of its own for the code (the *candidate*), while the test text runs in a separate test
      process that never executes model code: the completion's functions are proxies there that
      exchange canonical values with the candidate, so the test's assertions compare plain
      builtin values and its verdict travels on a pipe the candidate never had. A test that
      defines ``check`` without calling it gets ``check(<entry_point>)`` appended.

    Thread-safe; pickling keeps only the settings (workers start again in the new process).
    """

    def __init__(self, *, timeout: float = 5.0, memory_mb: int = 1024, workers: int | None = None):
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise InvalidArgument(f"timeout must be a positive number of seconds, got {timeout!r}")
        if isinstance(memory_mb, bool) or not isinstance(memory_mb, int) or memory_mb <= 0:
            raise InvalidArgument(f"memory_mb must be a positive int, got {memory_mb!r}")
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers <= 0):
            raise InvalidArgument(f"workers must be a positive int or None, got {workers!r}")
        self.__name__ = "unit_test_reward"
        self.timeout = float(timeout)
        self.memory_mb = memory_mb
        self.workers = workers
        self._pool = None
        self._lock = threading.Lock()

    def _get_pool(self):
        from execverify_data.sandbox import UntrustedPool, default_pool

        if self.workers is None:
            return default_pool()
        with self._lock:
            if self._pool is None or self._pool._closed:
                self._pool = UntrustedPool(self.workers)
            return self._pool

    def __call__(self, prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
                 tests: Sequence[Sequence[str] | None] | None = None, **kwargs: Any) -> list[float | None]:
        if completions is None:
            raise InvalidArgument("unit_test_reward needs completions=")
        if tests is None:
            raise InvalidArgument("unit_test_reward needs a tests column: one list of assertion strings per row")
        if len(tests) != len(completions):
            raise InvalidArgument(f"got {len(completions)} completions but {len(tests)} rows of tests")
        entry_points = kwargs.get("entry_point") or [None] * len(completions)
        jobs: list[dict] = []
        plans: list[tuple[int, list] | None] = []
        for completion, row_tests, entry_point in zip(completions, tests, entry_points):
            if isinstance(row_tests, str):
                row_tests = [row_tests]
            if not row_tests:
                plans.append(None)
                continue
            if not all(isinstance(t, str) for t in row_tests):
                raise InvalidArgument("each row of tests must be a list of assertion strings, "
                                      f"got {[type(t).__name__ for t in row_tests]}")
            code = extract_code(completion)
            checks: list = []  # (kind, job index, call index or None, expected or None)
            equality = [(t, split_assertion(t)) for t in row_tests]
            calls = [split[0] for _, split in equality if split is not None]
            eq_job = None
            if calls:
                eq_job = len(jobs)
                jobs.append(self._job(code, calls=calls))
            call_index = 0
            for test, split in equality:
                if split is not None:
                    checks.append(("eq", eq_job, call_index, split[1]))
                    call_index += 1
                else:
                    checks.append(("test", len(jobs), None, None))
                    jobs.append(self._job(code, test=_with_check_call(test, entry_point)))
            plans.append((len(row_tests), checks))
        results = self._get_pool().run_many(jobs) if jobs else []
        rewards: list[float | None] = []
        for plan in plans:
            if plan is None:
                rewards.append(None)
                continue
            total, checks = plan
            passed = sum(_passed(results[job], kind, index, expected) for kind, job, index, expected in checks)
            rewards.append(passed / total)
        return rewards

    def _job(self, code: str, *, calls: Sequence[str] = (), test: str | None = None) -> dict:
        return {"code": code, "calls": list(calls), "test": test, "timeout": self.timeout,
                "memory_mb": self.memory_mb}

    def __getstate__(self) -> dict:
        return {"timeout": self.timeout, "memory_mb": self.memory_mb, "workers": self.workers}

    def __setstate__(self, state: dict) -> None:
        self.__init__(**state)

    def __repr__(self) -> str:
        return f"UnitTestReward(timeout={self.timeout}, memory_mb={self.memory_mb}, workers={self.workers})"


def _passed(result, kind: str, index: int | None, expected: CanonicalValue | None) -> bool:
    from execverify_data.sandbox import Status

    if result.status is not Status.OK:
        return False
    if kind == "test":
        return result.test_passed is True
    if index is None or index >= len(result.calls):
        return False
    call = result.calls[index]
    return call.ok and call.value.askable and same(expected, call.value.text)


#: The default instance, for ``reward_funcs=[unit_test_reward]``.
unit_test_reward = UnitTestReward()
