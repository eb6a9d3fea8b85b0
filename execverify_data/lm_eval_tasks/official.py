"""Verdicts by the benchmarks' own definitions: their ``assert`` programs, decided here.

CRUXEval, LiveCodeBench and REval score an answer by executing a short program: the benchmark's
code followed by an assertion built from the answer text (CRUXEval: ``assert {output} ==
{answer}``). The answer text may be any expression (``'ab' + 'c'``, ``dict(e=1, d=2)``,
``f(3)``), so it has to be run, and it has to run as untrusted code. :func:`passes` does what
upstream's ``exec`` does, split between two processes:

* here (the trusted parent) the statements are parsed with :mod:`ast`; literal leaves are read
  with :func:`ast.literal_eval` (the gold values always are literals); the comparisons, ``not``,
  ``and``/``or`` and ``x if c else y`` of each ``assert`` are applied here with Python's own
  operators on plain values, so ``True == 1`` and ``1 == 1.0`` pass as they do upstream;
* every other leaf (``'ab' + 'c'``, ``f(3)``) and every statement that is not an ``assert`` runs
  in the untrusted sandbox (:class:`execverify_data.sandbox.UntrustedPool`) after the benchmark's
  program; the sandbox returns canonical text (:func:`execverify_data.values.encode`), read back
  with :func:`execverify_data.values.parse`. The sandbox never sees a gold value and no boolean
  computed there is used.

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
import operator
import re
import warnings
from dataclasses import dataclass
from typing import Any, Sequence

__all__ = [
    "Check",
    "LCB_IMPORTS",
    "Opaque",
    "cruxeval_check",
    "cruxeval_input_answer",
    "cruxeval_output_answer",
    "lcb_answer",
    "lcb_check",
    "RAISES",
    "evaluate",
    "passes",
]

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


class _Failed(Exception):
    """The statements raise (or cannot be decided) upstream: the check fails."""


class Opaque:
    """A value the sandbox returned without a literal: unequal to everything, true."""

    __slots__ = ("type",)

    def __init__(self, type_name: str):
        self.type = type_name

    def __repr__(self) -> str:
        return f"<{self.type} object>"


_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_SINGLETONS = (type(None), bool)


def _is_literal(node: ast.AST) -> bool:
    """Whether ``ast.literal_eval`` reads ``node`` with exactly the value ``eval`` gives it."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_is_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return None not in node.keys and all(_is_literal(k) for k in node.keys) and all(
            _is_literal(v) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        operand = node.operand
        return isinstance(operand, ast.Constant) and type(operand.value) in (int, float, complex)
    return False


class _Planner:
    """Turns parsed statements into a plan: what is decided here and what runs in the sandbox."""

    def __init__(self, text: str, known: dict[str, Any]):
        self.text = text
        self.known = known
        self.calls: list[str] = []

    def leaf(self, node: ast.AST) -> tuple:
        source = ast.get_source_segment(self.text, node) or ast.unparse(node)
        self.calls.append(f"({source}\n)")
        return ("leaf", len(self.calls) - 1)

    def expr(self, node: ast.AST) -> tuple:
        if self.known:
            value = self.known.get(ast.dump(node))
            if value is not None:
                return ("known", value)
        if _is_literal(node):
            try:
                return ("value", ast.literal_eval(node))
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                return ("raise",)  # an unhashable set element or dict key raises upstream too
        if isinstance(node, ast.BoolOp):
            return ("bool", isinstance(node.op, ast.And), [self.expr(v) for v in node.values])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return ("not", self.expr(node.operand))
        if isinstance(node, ast.Compare):
            return ("compare", [self.expr(node.left), *map(self.expr, node.comparators)], [type(op) for op in node.ops])
        if isinstance(node, ast.IfExp):
            return ("if", self.expr(node.test), self.expr(node.body), self.expr(node.orelse))
        return self.leaf(node)

    def statement(self, node: ast.stmt) -> tuple:
        if isinstance(node, ast.Assert):
            return ("assert", self.expr(node.test))
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            return ("raise",)  # a future import after the program is a SyntaxError upstream
        source = ast.get_source_segment(self.text, node) or ast.unparse(node)
        # Run inside the sandbox's namespace (its globals) after the program: not exec here.
        self.calls.append(f"exec(compile({source!r}, '<answer>', 'exec'), globals())")  # trusted: text for the sandbox
        return ("leaf", len(self.calls) - 1)


def _plan(check: Check) -> tuple[list[tuple], list[str]] | None:
    """The statement plans and sandbox calls of a check; None when the text does not compile."""
    text = check.statements
    if len(text) > _MAX_STATEMENTS_CHARS:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = ast.parse(text, mode="exec")
        known = {}
        for source, value in check.known:
            known[ast.dump(ast.parse(source, mode="eval").body)] = value
        planner = _Planner(text, known)
        plans = [planner.statement(node) for node in module.body]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return plans, planner.calls


class _Values:
    """Reads a plan's leaves from a sandbox result; applies the operators here."""

    def __init__(self, result):
        self.result = result

    def leaf(self, index: int) -> Any:
        from execverify_data.errors import AnswerError
        from execverify_data.values import parse

        result = self.result
        if result is None or not result.ok or index >= len(result.calls):
            raise _Failed
        call = result.calls[index]
        if not call.ok:
            raise _Failed  # the expression raised upstream
        return _read(call.value, parse, AnswerError)

    def value(self, plan: tuple) -> Any:
        kind = plan[0]
        if kind == "value":
            return plan[1]
        if kind == "leaf":
            return self.leaf(plan[1])
        if kind == "known":
            from execverify_data.errors import AnswerError
            from execverify_data.values import parse

            return _read(plan[1], parse, AnswerError)
        if kind == "raise":
            raise _Failed
        if kind == "not":
            return not _truth(self.value(plan[1]))
        if kind == "if":
            return self.value(plan[2] if _truth(self.value(plan[1])) else plan[3])
        if kind == "bool":
            is_and, operands = plan[1], plan[2]
            value = None
            for operand in operands:
                value = self.value(operand)
                if _truth(value) != is_and:
                    return value
            return value
        if kind == "compare":
            operands, ops = plan[1], plan[2]
            left = self.value(operands[0])
            for op, right_plan in zip(ops, operands[1:]):
                right = self.value(right_plan)
                if not _compare(op, left, right):
                    return False
                left = right
            return True
        raise AssertionError(kind)  # pragma: no cover


def _read(canonical, parse, error) -> Any:
    if not canonical.askable:
        return Opaque(canonical.type)
    try:
        return parse(canonical.text)
    except (error, ValueError, TypeError, RecursionError, MemoryError):
        return Opaque(canonical.type)


def _truth(value: Any) -> bool:
    if isinstance(value, Opaque):
        return True
    try:
        return bool(value)
    except Exception:  # noqa: BLE001 - builtin values do not raise; be safe
        raise _Failed from None


def _compare(op: type, left: Any, right: Any) -> bool:
    if op in (ast.Is, ast.IsNot):
        same = isinstance(left, _SINGLETONS) and isinstance(right, _SINGLETONS) and left is right
        return same if op is ast.Is else not same
    if isinstance(left, Opaque) or isinstance(right, Opaque):
        if op is ast.Eq:
            return False
        if op is ast.NotEq:
            return True
        raise _Failed
    try:
        return bool(_COMPARE[op](left, right))
    except Exception:  # noqa: BLE001 - TypeError for 1 < 'a' and the like: it raises upstream
        raise _Failed from None


def _decide(plans: list[tuple], result) -> bool:
    values = _Values(result)
    try:
        for plan in plans:
            kind = plan[0]
            if kind == "assert":
                if not _truth(values.value(plan[1])):
                    return False
            elif kind == "leaf":
                values.leaf(plan[1])  # a statement that raises fails the program
            else:
                raise _Failed
    except (_Failed, RecursionError, MemoryError):
        return False
    return True


def _imports_for(text: str) -> str:
    """``numpy``/``pandas`` as upstream's imports bind them, only for text that names them (an
    import costs the sandboxed child about a second; unnamed, they cannot change a verdict)."""
    lines = []
    if re.search(r"\bnp\b", text):
        lines.append("import numpy as np")
    if re.search(r"\bpd\b", text):
        lines.append("import pandas as pd")
    return "\n".join(lines)


def _run(jobs: list[dict], pool) -> list:
    if not jobs:
        return []
    if pool is None:
        from execverify_data.sandbox import default_pool

        pool = default_pool()
    return pool.run_many(jobs)


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
    planned = [_plan(check) for check in checks]
    verdicts: list[bool | None] = [None] * len(checks)
    jobs, owners = [], []
    for i, (check, plan) in enumerate(zip(checks, planned)):
        if plan is None:
            verdicts[i] = False
        elif not plan[1]:
            verdicts[i] = _decide(plan[0], None)
        else:
            jobs.append(_job(check.program, check.statements, plan[1], check.timeout))
            owners.append(i)
    for i, result in zip(owners, _run(jobs, pool)):
        verdicts[i] = _decide(planned[i][0], result)
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
    jobs, owners = [], []
    for i, (program, text) in enumerate(items):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                node = ast.parse(text.strip(), mode="eval").body if len(text) <= _MAX_STATEMENTS_CHARS else None
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            node = None
        if node is None:
            out[i] = RAISES
        elif _is_literal(node):
            try:
                out[i] = ast.literal_eval(node)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                out[i] = RAISES
        else:
            jobs.append(_job(program, text, [f"({text.strip()}\n)"], timeout))
            owners.append(i)
    for i, result in zip(owners, _run(jobs, pool)):
        try:
            out[i] = _Values(result).leaf(0)
        except _Failed:
            out[i] = RAISES
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
