"""Verdicts by the benchmarks' own definitions: their ``assert`` programs, decided here.

CRUXEval, LiveCodeBench and REval score an answer by executing the benchmark's code followed by
an assertion built from the answer text (CRUXEval: ``assert {output} == {answer}``). The answer
may be any expression (``'ab' + 'c'``, ``f(3)``), so it must run, as untrusted code.
:func:`passes` does what upstream's ``exec`` does, split between two processes:

* here (the trusted parent) the statements are parsed (:func:`execverify_data.verdicts.plan_program`),
  literal leaves read with :func:`ast.literal_eval`, and each ``assert``'s comparisons, ``not``,
  ``and``/``or`` and ``x if c else y`` applied with Python's own operators (``True == 1`` passes
  as upstream);
* every other leaf and every statement that is not an ``assert`` runs in the untrusted sandbox
  (:class:`execverify_data.sandbox.UntrustedPool`) after the benchmark's program; its values come
  back as canonical text read by the restricted parser (:func:`execverify_data.verdicts.answers`).
  The sandbox never sees a gold value and no boolean computed there is used.

Where this differs from running the program with ``exec`` (never in the answers models write;
listed in the task README): a value that has no literal (an iterator, a NumPy scalar, a dict
view) compares unequal to everything and is true; ``is`` holds only between equal ``None``,
``True``, ``False``; every leaf is evaluated, in source order, even one that upstream's
short-circuit skips.

>>> passes([Check("def f(x):\\n    return x * 2", "assert 6 == 6.0")])
[True]
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from execverify_data.astwalk import parse_ast
from execverify_data.verdicts import Opaque, answers, is_literal, plan_program

__all__ = ["LCB_IMPORTS", "RAISES", "Check", "Opaque", "cruxeval_check", "cruxeval_input_answer",
           "cruxeval_output_answer", "evaluate", "lcb_answer", "lcb_check", "passes"]

#: Seconds upstream allows each program (CRUXEval's and lcb_runner's ``check_correctness(..., 3)``).
UPSTREAM_TIMEOUT = 3.0
_MEMORY_MB = 1024
_MAX_STATEMENTS_CHARS = 100_000


@dataclass(frozen=True)
class Check:
    """One program as upstream runs it: ``program``, then ``statements``.

    Args:
        program (`str`): code that runs first (the benchmark's function, upstream's imports).
        statements (`str`): the text upstream appends and executes (``assert ...``).
        known (`tuple[tuple[str, CanonicalValue], ...]`, optional): expressions whose value is
            already known here (REval's question call and its traced output); a leaf that is the
            same expression (compared as an AST) takes that value instead of running.
        timeout (`float`, optional, defaults to 3.0): seconds for the sandboxed run.
    """

    program: str
    statements: str
    known: tuple = ()
    timeout: float = UPSTREAM_TIMEOUT


def _answers(result) -> list:
    """The values of a sandbox result's calls (none when it did not run to the end), read here."""
    return answers(result.calls if result is not None and result.ok else (), opaque=True)


def _imports_for(text: str) -> str:
    """``numpy``/``pandas`` as upstream's imports bind them, only for text that names them (an
    import costs the sandboxed child about a second; unnamed, they cannot change a verdict)."""
    named = (("np", "import numpy as np"), ("pd", "import pandas as pd"))
    return "\n".join(line for name, line in named if re.search(rf"\b{name}\b", text))


def _run(jobs: dict[int, dict], pool) -> list[tuple[int, Any]]:
    """``(index, sandbox result)`` of each job, run concurrently on ``pool``."""
    if not jobs:
        return []
    if pool is None:
        from execverify_data.sandbox import default_pool

        pool = default_pool()
    return list(zip(jobs, pool.run_many(list(jobs.values()))))


def _job(program: str, text: str, calls: list[str], timeout: float) -> dict:
    prelude = _imports_for(program + "\n" + text)
    code = f"{prelude}\n{program}" if prelude else program
    return {"code": code, "calls": calls, "timeout": timeout, "memory_mb": _MEMORY_MB}


def passes(checks: Sequence[Check], *, pool=None) -> list[bool]:
    """Whether each check's program runs without an exception, as upstream decides it.

    Checks whose statements need no sandbox (literal answers) are decided at once; the others
    run concurrently on ``pool`` (default: :func:`execverify_data.sandbox.default_pool`).

    >>> program = "def f(s):\\n    return s + 'c'"
    >>> passes([Check(program, "assert 'abc' == 'ab' + 'c'"), Check(program, "assert 'abc' == f('a')"),
    ...         Check(program, "assert 'abc' == 'abc'\\nassert f(1)"), Check(program, "assert 'abc' == abc")])
    [True, False, False, False]
    """
    # a Decidable per check; None when its text is too long or does not compile
    planned = [plan_program(c.statements, c.known) if len(c.statements) <= _MAX_STATEMENTS_CHARS else None
               for c in checks]
    verdicts: list[bool | None] = [None] * len(checks)
    jobs: dict[int, dict] = {}
    for i, (check, plan) in enumerate(zip(checks, planned)):
        if plan is None:
            verdicts[i] = False
        elif not plan.calls:
            verdicts[i] = plan.verdict([])
        else:
            jobs[i] = _job(check.program, check.statements, list(plan.calls), check.timeout)
    for i, result in _run(jobs, pool):
        verdicts[i] = planned[i].verdict(_answers(result))
    return [bool(v) for v in verdicts]


class _Raises:
    __slots__ = ()

    def __repr__(self) -> str:
        return "RAISES"


#: What :func:`evaluate` gives for an expression that raises (or does not compile).
RAISES = _Raises()


def evaluate(items: Sequence[tuple[str, str]], *, pool=None, timeout: float = UPSTREAM_TIMEOUT) -> list[Any]:
    """The value of each ``(program, expression)`` as ``eval`` after the program gives it: a
    literal read here, anything else computed in the sandbox and read back; an object without a
    literal comes back as an opaque value (unequal to everything), an exception as :data:`RAISES`.

    >>> evaluate([("", "[1, 2]"), ("x = 2", "'a' * x"), ("", "1 / 0"), ("", "iter([])")])
    [[1, 2], 'aa', RAISES, <list_iterator object>]
    """
    out: list[Any] = [None] * len(items)
    jobs: dict[int, dict] = {}
    for i, (program, text) in enumerate(items):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                node = parse_ast(text.strip(), mode="eval").body if len(text) <= _MAX_STATEMENTS_CHARS else None
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            node = None
        if node is None:
            out[i] = RAISES
        elif is_literal(node):
            try:
                out[i] = ast.literal_eval(node)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                out[i] = RAISES
        else:
            jobs[i] = _job(program, text, [f"({text.strip()}\n)"], timeout)
    for i, result in _run(jobs, pool):
        value = _answers(result)[:1]
        out[i] = value[0] if value and not isinstance(value[0], Exception) else RAISES
    return out


# --------------------------------------------------------------------------- upstream's readings


def _split(text: str, separator: str, part: int) -> str:
    """``text.split(separator)[part].strip()`` where ``separator`` occurs (upstream's idiom), else ``text``."""
    return text.split(separator)[part].strip() if separator in text else text


def _after_answer_tag(generation: str, cot: bool) -> str:
    # CRUXEval's and lcb_runner's CoT reading: the text after the first [ANSWER] (up to the next one)
    return _split(generation, "[ANSWER]", 1) if cot else generation


def cruxeval_output_answer(generation: str, cot: bool = False) -> str:
    """What CRUXEval's output task (``OutputPrediction.postprocess_generation`` at 190faf1)
    keeps of a generation: for CoT the text after the first ``[ANSWER]``; then, when it holds
    ``==``, the text between the first ``==`` and the next one; stripped.

    >>> cruxeval_output_answer("assert f(1) == [1,\\n 2]\\n")
    '[1,\\n 2]'
    >>> cruxeval_output_answer("The output is 3.")
    'The output is 3.'
    """
    return _split(_after_answer_tag(generation, cot), "==", 1).strip()


def cruxeval_input_answer(generation: str, cot: bool = False) -> str:
    """What CRUXEval's input task (``InputPrediction.postprocess_generation``) keeps: for CoT
    the text after the first ``[ANSWER]``; the text before the first ``==``; from ``assert f``
    on, the call (``"f" +`` the text after the first ``assert f``, up to the next one).

    >>> cruxeval_input_answer("assert f(1, 'a') == 'wrong'")
    "f(1, 'a')"
    """
    generation = _split(_after_answer_tag(generation, cot), "==", 0)
    if "assert f" in generation:
        generation = "f" + generation.split("assert f")[1].strip()
    return generation.strip()


def lcb_answer(generation: str, cot: bool = False) -> str:
    """What ``lcb_runner``'s ``extract_execution_code`` (at 28fef95) keeps: for CoT the text after
    the first ``[ANSWER]``; the text between the first and second ``==``; then the text before
    ``[/ANSWER]`` when that tag follows, else the first line.

    >>> lcb_answer("assert g(x = 1) == 2\\n[/ANSWER]\\n\\n[PYTHON]")
    '2'
    >>> lcb_answer("assert g(x = 1) == [1,\\n 2]")
    '[1,'
    """
    generation = _split(_after_answer_tag(generation, cot), "==", 1)
    if "[/ANSWER]" in generation:
        return _split(generation, "[/ANSWER]", 0).strip()
    return generation.split("\n")[0].strip()


def cruxeval_check(code: str, input: str, output: str, generation: str, *, task: str, cot: bool = False) -> Check | None:
    """CRUXEval's verdict program (``evaluate_score`` in ``evaluation/utils_general.py``):
    ``{code}\\nassert {output} == {answer}``; None where CRUXEval scores the answer 0 without
    running it (output task: the answer repeats the call ``f({input})``; input task: it calls
    no ``f(``). For the input task the answer is the call, so a claimed output is ignored.

    Args:
        task (`str`): ``"output"`` or ``"input"``.
    """
    if task == "output":
        answer = cruxeval_output_answer(generation, cot)
        if f"f({input})" in answer:
            return None
    elif task == "input":
        answer = cruxeval_input_answer(generation, cot)
        if "f(" not in answer:
            return None
    else:
        raise ValueError(f"task must be 'output' or 'input', got {task!r}")
    return Check(code, f"assert {output} == {answer}")


#: The names ``lcb_runner``'s ``BASE_IMPORTS`` binds before every program (module: names), in
#: our own words; ``numpy as np`` and ``pandas as pd`` are added where a text names them.
_LCB_FROM = {
    "itertools": "accumulate chain combinations count permutations product groupby islice repeat zip_longest cycle",
    "copy": "deepcopy",
    "string": "ascii_lowercase",
    "math": "floor log2 log10 sqrt comb gcd ceil inf isqrt log prod",
    "collections": "defaultdict deque Counter OrderedDict",
    "bisect": "bisect bisect_left bisect_right insort",
    "heapq": "heappush heappop heapify merge",
    "functools": "reduce cache lru_cache partial",
    "random": "randrange shuffle",
    "operator": "itemgetter sub iand",
    "os.path": "commonprefix",
    "typing": "List Tuple Dict Set Optional Union Any Callable Iterable Iterator Generator",
}
_LCB_MODULES = "copy string math collections bisect heapq functools random itertools operator re sys"
LCB_IMPORTS = "\n".join(
    [f"from {module} import {', '.join(names.split())}" for module, names in _LCB_FROM.items()]
    + ["from re import search as re_search", f"import {', '.join(_LCB_MODULES.split())}"]
)


def lcb_check(code: str, input: str, output: str, generation: str, *, cot: bool = False) -> Check | None:
    """``lcb_runner``'s verdict program (``evaluate_score`` in ``compute_code_execution_metrics.py``):
    its imports, ``{code}``, ``assert {output} == {answer}``; None (scored 0 unrun) where the
    answer contains the input call."""
    answer = lcb_answer(generation, cot)
    if input in answer:
        return None
    return Check(f"{LCB_IMPORTS}\n{code}", f"assert {output} == {answer}")
