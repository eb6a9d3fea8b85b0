"""Reference model of the upstream scorers, for the agreement tests (not part of the library).

Written from reading the upstream code at the commits the task README names, and kept
independent of ``execverify_data.lm_eval_tasks`` (which must agree with it):

* CRUXEval (facebookresearch/cruxeval 190faf1): ``inference/tasks/{output,input}_prediction.py``
  ``postprocess_generation`` and ``evaluation/utils_general.py`` ``evaluate_score``;
* LiveCodeBench (LiveCodeBench/LiveCodeBench 28fef95): ``lcb_runner/utils/extraction_utils.py``
  ``extract_execution_code``, ``lcb_runner/evaluation/compute_code_execution_metrics.py``
  ``evaluate_score`` with ``utils_execute.BASE_IMPORTS``;
* REval (r-eval/REval 2f148b9): ``dynamics.py`` (Sandbox, States, VarInterpreter: the gold) and
  ``evaluation.py`` (each task's ``_postprocess``, ``State._eq``, ``Path`` line matching,
  ``penalty_pattern``, ``Output``'s ``exec``);
* HumanEval (openai/human-eval): ``check_correctness`` of ``prompt + completion + test + check()``.

Like upstream it runs answers with plain ``exec``/``eval`` (in spawned worker processes, under a
SIGALRM time limit, output swallowed). It only ever runs the corpus of ``official_corpus.py``:
text written by this test suite, not by a model.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import itertools
import multiprocessing
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from copy import deepcopy
from typing import Any

# --------------------------------------------------------------------------- running programs


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _limits(seconds: float):
    def expire(signum, frame):
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_program(program: str | None, timeout: float = 3.0) -> bool:
    """Upstream's ``check_correctness``: the program runs to its end without an exception."""
    if program is None:
        return False
    try:
        with _limits(timeout):
            exec(program, {})  # trusted: the reference model runs the test suite's own corpus
    except BaseException:  # noqa: BLE001 - upstream: any exception is a failure
        return False
    return True


class Executor:
    """A pool of spawned worker processes (``with Executor() as ex: ex.map(fn, items)``)."""

    def __init__(self, workers: int = 2):
        self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))

    def map(self, fn, items, chunksize: int = 32) -> list:
        return list(self.pool.map(fn, items, chunksize=chunksize))

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


# --------------------------------------------------------------------------- CRUXEval


def crux_output_program(code: str, inp: str, out: str, generation: str, cot: bool) -> str | None:
    """CRUXEval output task: postprocess_generation, then evaluate_score's program (None: skipped)."""
    g = generation
    if cot and "[ANSWER]" in g:
        g = g.split("[ANSWER]")[1].strip()
    if "==" in g:
        g = g.split("==")[1].strip()
    g = g.strip()
    if f"f({inp})" in g:
        return None
    return f"{code}\nassert {out} == {g}"


def crux_input_program(code: str, inp: str, out: str, generation: str, cot: bool) -> str | None:
    """CRUXEval input task: postprocess_generation, then evaluate_score's program (None: skipped)."""
    g = generation
    if cot and "[ANSWER]" in g:
        g = g.split("[ANSWER]")[1].strip()
    if "==" in g:
        g = g.split("==")[0].strip()
    if "assert f" in g:
        g = "f" + g.split("assert f")[1].strip()
    g = g.strip()
    if "f(" not in g:
        return None
    return f"{code}\nassert {out} == {g}"


def lm_eval_crux_output_program(code: str, inp: str, out: str, generation: str, cot: bool) -> str:
    """lm-eval 0.4.13's own ``cruxeval_output`` task: its ``extract_code_output`` (quotes stripped)."""
    from lm_eval.tasks.cruxeval.utils import extract_code_output

    return extract_code_output({"code": code, "input": inp, "output": out}, generation, cot)


# lcb_runner's BASE_IMPORTS, the same statements in our listing
LCB_BASE_IMPORTS = "\n".join([
    "from itertools import accumulate, chain, combinations, count, permutations, product, groupby, islice, repeat",
    "from copy import deepcopy",
    "from string import ascii_lowercase",
    "from math import floor, log2, log10, sqrt, comb, gcd, ceil, inf, isqrt",
    "from collections import defaultdict, deque, Counter",
    "from bisect import bisect, bisect_left, bisect_right, insort",
    "from heapq import heappush, heappop, heapify, merge",
    "from functools import reduce, cache, lru_cache",
    "from random import randrange, shuffle",
    "from operator import itemgetter, sub",
    "from re import search as re_search",
    "from os.path import commonprefix",
    "from typing import List, Tuple, Dict, Set, Optional, Union, Any, Callable, Iterable, Iterator, Generator",
    "import copy", "import string", "import math", "import collections", "import bisect", "import heapq",
    "import functools", "import random", "import itertools", "import operator", "import re",
    "import numpy as np", "import pandas as pd",
    "from math import log, prod",
    "from collections import deque, defaultdict, Counter, OrderedDict",
    "from itertools import accumulate, permutations, combinations, product, groupby, islice, chain, repeat, zip_longest, cycle",
    "from functools import lru_cache, reduce, partial",
    "from operator import iand",
    "import sys",
])


def lcb_program(code: str, inp: str, out: str, generation: str, cot: bool) -> str | None:
    """lcb_runner: extract_execution_code, then evaluate_score's program (None: skipped)."""
    g = generation
    if cot and "[ANSWER]" in g:
        g = g.split("[ANSWER]")[1].strip()
    if "==" in g:
        g = g.split("==")[1].strip()
    if "[/ANSWER]" in g:
        g = g.split("[/ANSWER]")[0].strip()
    else:
        g = g.split("\n")[0].strip()
    g = g.strip()
    if inp in g:
        return None
    return f"{LCB_BASE_IMPORTS}\n{code}\nassert {out} == {g}"


def humaneval_program(prompt: str, completion: str, test: str, entry_point: str) -> str:
    """human-eval's check program."""
    return prompt + completion + "\n" + test + "\n" + f"check({entry_point})"


# --------------------------------------------------------------------------- REval: dynamics.py


FILENAME = "<internals>"


class _Nil:
    def __repr__(self) -> str:
        return "Nil"


NIL = _Nil()


class _State:
    def __init__(self, lineno: int):
        self.lineno = lineno
        self.locals: dict = {}
        self.returned = NIL
        self.exception = NIL


class _Tracer:
    """REval's global_trace/local_trace/add_state."""

    def __init__(self):
        self.states: list[_State] = []

    def add(self, line: int, event: str, value: Any) -> None:
        line -= 1
        if not self.states or self.states[-1].lineno != line:
            self.states.append(_State(line))
        state = self.states[-1]
        if event == "locals":
            state.locals = value
        elif event == "return":
            state.returned = value
        else:
            state.exception = value

    def local_trace(self, frame, event, arg):
        from typing import Generator, Iterator

        if event == "line":
            kept = {}
            for k, v in frame.f_locals.items():
                if v.__class__.__name__ in ("module", "function", "builtin_function_or_method"):
                    continue
                if isinstance(v, Iterator) or isinstance(v, Generator):
                    continue
                kept[k] = deepcopy(v)
            self.add(frame.f_lineno, "locals", kept)
        elif event == "return":
            self.add(frame.f_lineno, "return", arg)
        elif event == "exception":
            self.add(frame.f_lineno, "exception", arg[0])

    def global_trace(self, frame, event, _):
        if event != "call":
            return None
        if frame.f_code.co_filename == FILENAME:
            return self.local_trace
        return None


class RefStates:
    """REval's States and VarInterpreter."""

    def __init__(self, states: list[_State]):
        self.states = states

    @property
    def trace(self) -> list[int]:
        return [s.lineno for s in self.states]

    def get_coverage(self, lineno: int) -> bool:
        return lineno in self.trace

    def get_next_line(self, lineno: int) -> set[int]:
        if not self.get_coverage(lineno):
            return {-1}
        out = []
        for i, s in enumerate(self.states):
            if s.lineno == lineno:
                out.append(self.states[i + 1].lineno if i + 1 < len(self.states) else -1)
        return set(out)

    def states_after(self, lineno: int) -> list[_State]:
        out = []
        for i, s in enumerate(self.states):
            if s.lineno == lineno:
                out.append(self.states[i + 1] if i + 1 < len(self.states) else self.states[i])
        return out

    def get_local(self, lineno: int, var: str):
        found = [s.locals[var] for s in self.states_after(lineno) if var in s.locals]
        return found if found else NIL

    def _node(self, lineno: int, node):
        import ast

        if isinstance(node, ast.Constant):
            return [node.value]
        if isinstance(node, ast.Name):
            return self.get_local(lineno, node.id)
        if isinstance(node, ast.Attribute):
            obj = self._node(lineno, node.value)
            if obj is NIL:
                return NIL
            res = [getattr(o, node.attr) for o in obj if hasattr(o, node.attr)]
            return res if res else NIL
        if isinstance(node, ast.Subscript):
            arr, idx = self._node(lineno, node.value), self._node(lineno, node.slice)
            if arr is NIL or idx is NIL:
                return NIL
            res = []
            for a, i in itertools.product(arr, idx):
                try:
                    res.append(a[i])
                except (TypeError, KeyError, IndexError):
                    pass
            return res if res else NIL
        if isinstance(node, ast.Tuple):
            elts = [self._node(lineno, n) for n in node.elts]
            if any(e is NIL for e in elts):
                return NIL
            return list(itertools.product(*elts))
        return ValueError(f"Unsupported node type: {node}")

    def interpret_var(self, lineno: int, name: str):
        import ast

        try:
            if not self.get_coverage(lineno):
                return NIL
            tree = ast.parse(name)
            assert len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr)
            return self._node(lineno, tree.body[0].value)
        except Exception:  # noqa: BLE001
            return NIL


_FUNCTIONS: dict = {}


def _function(code: str, entry: str):
    key = (code, entry)
    if key not in _FUNCTIONS:
        namespace: dict = {}
        exec(compile(code, FILENAME, "exec"), namespace)  # trusted: the corpus's own programs
        _FUNCTIONS[key] = namespace[entry]
    return _FUNCTIONS[key]


_RUNS: dict = {}


def reval_run(code: str, entry: str, inputs: tuple[str, ...]):
    """Sandbox.run of each input in order on one function object: (result, RefStates) or None."""
    key = (code, entry, inputs)
    if key in _RUNS:
        return _RUNS[key]
    fn = _function(code, entry)
    runs = []
    for text in inputs:
        tracer = _Tracer()
        try:
            with _limits(120.0):
                args = eval(text)  # trusted: the corpus's own inputs
                sys.settrace(tracer.global_trace)
                result = fn(*args)
                sys.settrace(None)
            runs.append((result, RefStates(tracer.states)))
        except BaseException:  # noqa: BLE001 - REval asserts every run is ok
            sys.settrace(None)
            runs.append(None)
    _RUNS[key] = runs
    return runs


def reval_gold(job: tuple) -> dict | None:
    """Gold of one unit: (code, entry, inputs, pair index, line, var) -> coverage, path, state, output."""
    code, entry, inputs, pair, line, var = job
    run = reval_run(code, entry, tuple(inputs))[pair]
    if run is None:
        return None
    result, states = run
    state = states.interpret_var(line - 1, var)
    next_lines = sorted(-1 if a == -1 else a + 1 for a in states.get_next_line(line - 1))
    return {"coverage": states.get_coverage(line - 1), "path": next_lines,
            "state": None if state is NIL else list(state), "output": result}


# --------------------------------------------------------------------------- REval: evaluation.py


def _cut_tags(resp: str, with_idx: bool = False):
    """The tag handling every REval _postprocess repeats (also its last ``idx``)."""
    idx = resp.find("[ANSWER]")
    if idx != -1:
        resp = resp[idx + 8:].strip()
    idx = resp.find("[/ANSWER]")
    if idx != -1:
        resp = resp[:idx].strip()
    idx = resp.find("[/ANSWER")
    if idx != -1:
        resp = resp[:idx].strip()
    return (resp, idx) if with_idx else resp


def coverage_postprocess(resp: str, cot: bool) -> bool:
    ans = resp.upper().strip()
    if cot and "[/THOUGHT]" not in ans:
        return False
    ans = _cut_tags(ans)
    if ans == "":
        return False
    ans = ans[:3]
    b1, b2 = "YES" in ans, "NO" in ans
    if b1 == b2:
        return False
    return b1


def path_postprocess(resp: str, cot: bool):
    if cot and "[/THOUGHT]" not in resp:
        return -2
    resp = _cut_tags(resp)
    resp = resp.split("\n")[0].strip()
    if resp == "":
        return -2
    if resp == "-1":
        return -1
    return resp


class _StandIn:
    """Stands for evaluation.py's own objects (classes, functions, imports) in its scope."""


def _evaluation_globals() -> dict:
    import argparse
    import glob
    import inspect
    import json
    import os
    import re
    from datetime import datetime
    from pydoc import locate

    scope = {"__builtins__": builtins, "argparse": argparse, "glob": glob, "inspect": inspect, "os": os, "re": re,
             "json": json, "sys": sys, "datetime": datetime, "locate": locate}
    for name in ("pytz", "Bullet", "Input", "tqdm", "Model", "DREval", "Nil", "_NilType", "FunctionFactory",
                 "ClassFactory", "Sandbox", "build_direct_prompt", "build_cot_prompt", "get_time", "is_builtin_type",
                 "Task", "Coverage", "Path", "State", "penalty_pattern", "Output", "Consistency", "Cli"):
        scope[name] = _StandIn()

    class _Lazy(dict):  # numpy / pandas, imported when a text names them
        def __missing__(self, key):
            if key == "np":
                import numpy

                self[key] = numpy
                return numpy
            if key == "pd":
                import pandas

                self[key] = pandas
                return pandas
            raise KeyError(key)

    return _Lazy(scope)


def state_postprocess(resp: str, cot: bool):
    import re
    from pydoc import locate

    if cot and "[/THOUGHT]" not in resp:
        return "ERROR"
    resp = resp.replace("\u2018", "'").replace("\u2019", "'")
    resp = resp.replace("\u201c", '"').replace("\u201d", '"')
    resp, idx = _cut_tags(resp.strip(), with_idx=True)
    if resp.capitalize() == "Nil" or resp == "[Nil]":
        return NIL
    semicolon = resp.rfind(";")
    if semicolon == -1:
        return "ERROR"
    parts = [resp[:semicolon].strip(), resp[semicolon + 1:].strip().lower()]
    if parts[0].capitalize() == "Nil":
        return NIL
    _match = re.match(r"<class '(.*)'>", parts[1])
    if _match:
        parts[1] = _match.group(1)
    _match = re.match(r"(.*)\[.*\]", parts[1])
    if _match:
        parts[1] = _match.group(1)
    if parts[1] == "string":
        parts[1] = "str"
    if parts[1] == "integer":
        parts[1] = "int"
    if "," in parts[1] or "tuple" in parts[1]:
        parts[1] = "tuple"
    scope = _evaluation_globals()
    local = {"self": _StandIn(), "resp": resp, "semicolon": semicolon, "parts": parts, "idx": idx, "_match": _match}

    def ev(text):
        with _limits(3.0):
            return eval(text, scope, local)  # trusted: the corpus's own answers, as REval evaluates them

    if parts[1] == "str":
        try:
            return ev(parts[0]), str
        except Exception:  # noqa: BLE001
            return parts[0], str
    if parts[1] in ("datetime.datetime", "datetime"):
        from dateutil.parser import parse

        try:
            return parse(parts[0]), locate(parts[1])
        except Exception:  # noqa: BLE001
            return "ERROR"
    if parts[1] in ("numpy.ndarray", "np.ndarray"):
        import numpy as np

        try:
            return np.array(ev(parts[0])), locate(parts[1])
        except Exception:  # noqa: BLE001
            return "ERROR"
    if parts[0] == "None" or parts[1] == "NoneType":
        return None, type(None)
    try:
        import inspect

        _type = locate(parts[1])
        if _type is None:
            raise ValueError("invalid type")
        assert inspect.isclass(_type)
        if _type.__module__ == "builtins":
            _val = ev(parts[0])
        else:
            try:
                _val = _type(ev(parts[0]))
            except Exception:  # noqa: BLE001
                _val = _type(parts[0])
        return _val, _type
    except Exception:  # noqa: BLE001
        return "ERROR"


def state_eq(ans, actual) -> bool:
    """State._update_metrics / _eq."""
    if isinstance(ans, str) and ans == "ERROR":
        return False
    if ans is NIL and actual is NIL:
        return True
    if ans is NIL or actual is NIL:
        return False
    ans_val, ans_type = ans
    if all(ans_type != type(a) for a in actual):
        return False
    if type(ans_val) != ans_type:
        return False
    if ans_type == float:
        for a in actual:
            try:
                if abs(ans_val - a) < 1e-6:
                    return True
            except Exception:  # noqa: BLE001
                continue
        return False
    try:
        return ans_val in actual
    except ValueError:
        return False


def output_postprocess(resp: str, cot: bool, question: str) -> str:
    if cot and "[/THOUGHT]" not in resp:
        resp = "ERROR"
    else:
        resp = _cut_tags(resp)
    if resp == "ERROR":
        return "assert False"
    in_lines = question.strip().split("\n")
    res_lines = resp.strip().split("\n")
    if len(res_lines) >= len(in_lines):
        return resp
    return "\n".join(in_lines[: len(in_lines) - len(res_lines)] + res_lines)


def penalty(code: str, question: str) -> bool:
    for pattern in ("assertTrue(True)", "assertFalse(False)", "assert True", "assert False",
                    "assert True == True", "assert False == False"):
        if pattern in code:
            return True
    return code.count("assert") < question.count("assert")


def reval_verdict(job: tuple) -> bool:
    """REval's verdict on one answer: (kind, cot, completion, code, entry, inputs, pair, line, var, output_pred)."""
    kind, cot, completion, code, entry, inputs, pair, line, var, output_pred = job
    if kind == "output":
        ans = output_postprocess(completion, cot, output_pred)
        if penalty(ans, output_pred):
            return False
        namespace: dict = {}
        exec(compile(code, FILENAME, "exec"), namespace)  # trusted: the corpus's own programs
        local = {"self": _StandIn(), "fn_name": entry, "code": code, "task": [], "sandbox": _StandIn(),
                 "_input": output_pred, "p": "", "ans": ans, "model_gen": completion, "status": False,
                 entry: namespace[entry]}
        try:
            with _limits(3.0):
                exec(ans, _evaluation_globals(), local)  # trusted: the corpus's own answers, as REval runs them
        except BaseException:  # noqa: BLE001
            return False
        return True
    run = reval_run(code, entry, tuple(inputs))[pair]
    if run is None:
        return False
    _, states = run
    if kind == "coverage":
        return coverage_postprocess(completion, cot) == states.get_coverage(line - 1)
    if kind == "path":
        ans = path_postprocess(completion, cot)
        lines = []
        if type(ans) == int:
            lines.append(ans)
        else:
            lines = [i + 1 for i, text in enumerate(code.split("\n")) if ans == text.strip()] or [-2]
        actual = [-1 if a == -1 else a + 1 for a in states.get_next_line(line - 1)]
        return any(a in actual for a in lines)
    try:
        return bool(state_eq(state_postprocess(completion, cot), states.interpret_var(line - 1, var)))
    except Exception:  # noqa: BLE001 - REval would stop; count as wrong
        return False


def program_verdict(program: str | None) -> bool:
    """For ``Executor.map``: run one upstream check program."""
    return run_program(program)
