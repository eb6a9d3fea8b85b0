"""REval (DREval) tasks: coverage, state, path, output and Incremental Consistency, direct and CoT.

REval (Chen et al., ICSE 2025; r-eval/REval) has no license file, so neither its data nor its
prompt templates are shipped: both are read at run time from the upstream repository at
:data:`REVAL_COMMIT`, or from local copies named by ``--metadata`` (``reval_path``,
``reval_data_path``, ``reval_tasks_path``, ``reval_prompts_path``; see README.md). Only the
function problems (HumanEval part) are evaluated. Gold answers are REval's own (:mod:`.reval_gold`).

* **official** (``execverify_reval_*``): REval's ``evaluation.py`` readings and judges; values
  that are not literals are evaluated in the untrusted sandbox (:mod:`.official`);
* **strict** (``*_strict``): the same gold and readings, every value read as a literal and
  compared type-strictly by :class:`execverify_data.questions.Scorer`.

Nothing runs at import time.
"""

from __future__ import annotations

import builtins
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

REVAL_REPO = "r-eval/REval"
REVAL_COMMIT = "2f148b913deb4ae0e0ce41f0245ef35054ede8d6"  # pinned: data and prompt templates
REVAL_RAW = f"https://raw.githubusercontent.com/{REVAL_REPO}/{REVAL_COMMIT}/"
KINDS = ("coverage", "state", "path", "output")
FLOAT_TOLERANCE = 1e-6  # REval: abs(answer - actual) < 1e-6 for float states

# --------------------------------------------------------------------------- prompts (REval's own, read at run time)


def _template_location(kind: str, style: str, metadata: dict) -> str:
    """``prompts/{style}_{kind}.txt`` under ``reval_prompts_path``, ``reval_path`` or upstream."""
    name = f"{style}_{kind}.txt"
    if metadata.get("reval_prompts_path"):
        return str(Path(metadata["reval_prompts_path"]) / name)
    if metadata.get("reval_path"):
        return str(Path(metadata["reval_path"]) / "prompts" / name)
    return REVAL_RAW + "prompts/" + name


@lru_cache(maxsize=16)
def _read_text(location: str) -> str:
    if re.match(r"https?://", location):
        from execverify_data.lm_eval_tasks.utils import download

        def fetch() -> str:
            from urllib.request import urlopen

            with urlopen(location, timeout=60) as response:  # noqa: S310 - fixed https URL of the upstream repo
                return response.read().decode("utf-8")

        return download(f"REval's {location.rsplit('/', 2)[-2]}/{location.rsplit('/', 1)[-1]} ({REVAL_REPO} at "
                        f"{REVAL_COMMIT[:7]})", "reval_path", '"REval"', fetch)
    return Path(location).read_text(encoding="utf-8")


def template_fields(kind: str, unit: dict) -> dict[str, Any]:
    """The keyword arguments REval's ``evaluation.py`` passes to ``template.format`` for a function
    problem (path: the code's lines numbered ``"{i}\t{line}\n"``; output: ``"\n" + output_pred``)."""
    code = unit["code"]
    if kind == "output":
        return {"code": code, "invocation": "\n" + unit["output_pred"]}
    codelines = code.split("\n")
    line = unit["lineno"]
    fields = {"code": code, "invocation": unit["call"], "invocation_abbr": unit["call"], "line": line,
              "codeline": codelines[line - 1]}
    if kind == "path":
        fields["code"] = "".join(f"{i + 1}\t{text}\n" for i, text in enumerate(codelines))
    if kind == "state":
        fields["var"] = unit["var"]
    return fields


def render(template: str, kind: str, unit: dict) -> str:
    """A prompt exactly as REval's ``prompt.py`` builds it (``template.format(**fields)``)."""
    return template.format(**template_fields(kind, unit))


# --------------------------------------------------------------------------- data


def _read_jsonl(location: str) -> list[dict]:
    return [json.loads(line) for line in _read_text(location).splitlines() if line.strip()]


def _is_function_problem(record: dict) -> bool:
    entry = record.get("entry_point") or ""
    return bool(entry) and re.search(rf"^def {re.escape(entry)}\b", record.get("code", ""), re.MULTILINE) is not None


def value_json(value: Any) -> dict:
    """A gold value as stored in a doc: canonical ``text`` and ``type`` name
    (:func:`execverify_data.values.encode`), the type's ``module``, ``askable``."""
    from execverify_data.values import encode

    canonical = encode(value)
    return {"text": canonical.text, "type": canonical.type, "module": type(value).__module__,
            "askable": canonical.askable}


def gold_answers(run, line: int, var: str) -> dict[str, Any]:
    """The four gold answers of one (input, line, var) unit from a :class:`.reval_gold.RevalRun`:
    ``coverage`` (bool), ``path`` (sorted next lines, -1: none), ``state`` (None for Nil, else the
    values as :func:`value_json`), ``output`` (:func:`value_json`)."""
    values = run.value(line, var)
    return {
        "coverage": run.coverage(line),
        "path": run.next_lines(line),
        "state": None if values is None else [value_json(v) for v in values],
        "output": value_json(run.output),
    }


@lru_cache(maxsize=4)
def _units(data_path: str, tasks_path: str) -> tuple[dict, ...]:
    """One unit per (problem, input, task item): its questions' fields and gold answers."""
    from execverify_data.lm_eval_tasks.reval_gold import run_problem

    data = _read_jsonl(data_path)
    units = []
    for item in _read_jsonl(tasks_path):
        idx = item["idx"]
        record = data[idx]
        if not _is_function_problem(record):
            continue
        code, entry = record["code"], record["entry_point"]
        pairs = item["tasks"]
        runs = run_problem(code, entry, [record["inputs"][pair["input_idx"]] for pair in pairs])
        for number, (pair, run) in enumerate(zip(pairs, runs)):
            if run is None:
                continue  # the program raised on this input: REval stops there
            # REval's invocation: f"{fn_name}{_input[:-2]})" of an input such as "([1.0, 2.0], 0.3,)"
            call = f"{entry}{record['inputs'][pair['input_idx']][:-2]})"
            for j, t in enumerate(pair["task"]):
                line, var = int(t["lineno"]), t["var"]
                units.append({"id": f"DREval/{idx}/{pair['input_idx']}/{j}", "task_id": f"DREval/{idx}",
                              "input_idx": pair["input_idx"], "pair": number, "item": j, "code": code,
                              "invocation": call, "lineno": line, "var": var, "output_pred": pair["output_pred"],
                              "gold": json.dumps(gold_answers(run, line, var)), "call": call, "entry_point": entry})
    return tuple(units)


def _locations(metadata: dict) -> tuple[str, str]:
    base = str(Path(metadata["reval_path"]) / "data") + "/" if metadata.get("reval_path") else REVAL_RAW + "data/"
    return (
        metadata.get("reval_data_path") or base + "DREval_data.jsonl",
        metadata.get("reval_tasks_path") or base + "DREval_tasks.jsonl",
    )


def _row(unit: dict, kind: str, style: str, templates: dict[str, str]) -> dict:
    return {**unit, "prompt": render(templates[kind], kind, unit), "kind": kind, "style": style,
            "reference": reference_answer(unit, kind, style)}


def _loader(kind: str, style: str = "direct"):
    def load(**metadata: Any):
        from execverify_data.lm_eval_tasks.utils import as_dataset

        units = _units(*_locations(metadata))
        needed = KINDS if kind == "consistency" else (kind,)
        templates = {k: _read_text(_template_location(k, style, metadata)) for k in needed}
        if kind == "consistency":  # the four questions of each unit, next to each other
            return as_dataset([{**_row(unit, k, style, templates), "unit": unit["id"]} for unit in units for k in KINDS])
        if kind == "output":  # one doc per (problem, input) pair, as REval's output task
            first: dict[tuple, dict] = {}
            for unit in units:
                first.setdefault((unit["task_id"], unit["pair"]), unit)
            units = tuple(first.values())
        return as_dataset([_row(u, kind, style, templates) for u in units])

    load.__name__ = f"load_{kind}" + ("" if style == "direct" else f"_{style}")
    return load


load_coverage = _loader("coverage")
load_state = _loader("state")
load_path = _loader("path")
load_output = _loader("output")
load_consistency = _loader("consistency")
load_coverage_cot = _loader("coverage", "cot")
load_state_cot = _loader("state", "cot")
load_path_cot = _loader("path", "cot")
load_output_cot = _loader("output", "cot")
load_consistency_cot = _loader("consistency", "cot")


def reference_answer(unit: dict, kind: str, style: str = "direct") -> str:
    """The continuation a perfect model writes after the prompt's last tag (used by the
    oracle tests): direct prompts end with ``[ANSWER]``, CoT prompts with ``[THOUGHT]``. The
    direct answer starts on the tag's line: REval reads a path answer from the first line as
    written, so one starting with a newline would read as empty there."""
    gold = json.loads(unit["gold"])[kind]
    if kind == "coverage":
        answer = "YES" if gold else "NO"
    elif kind == "path":
        answer = "-1" if not gold or gold[0] == -1 else unit["code"].split("\n")[gold[0] - 1].strip()
    elif kind == "state":
        values = [v for v in gold or () if v["askable"]]
        if gold is None:
            answer = "Nil"
        elif not values:
            answer = "ERROR"
        else:
            answer = f"{values[0]['text']}; {values[0]['type']}"
    else:
        answer = unit["output_pred"].replace("??", gold["text"])
    if style == "cot":
        return f"\nThe program runs as traced.\n[/THOUGHT]\n[ANSWER]\n{answer}\n[/ANSWER]"
    return f"{answer}\n[/ANSWER]"


# --------------------------------------------------------------------------- REval's readings (evaluation.py)


def _unfinished(completion: str, style: str) -> bool:
    # REval's CoT rule: a CoT answer without [/THOUGHT] did not finish (NO for coverage, wrong otherwise)
    return style == "cot" and "[/THOUGHT]" not in completion


def _tags(text: str) -> tuple[str, int]:
    """The tag handling of REval's ``_postprocess`` methods: the text after the first
    ``[ANSWER]``, before the first ``[/ANSWER]``, before the first ``[/ANSWER``, each cut
    stripping the text (a text without tags is left as it is). Also REval's last ``idx``."""
    idx = text.find("[ANSWER]")
    if idx != -1:
        text = text[idx + 8 :].strip()
    for tag in ("[/ANSWER]", "[/ANSWER"):
        idx = text.find(tag)
        if idx != -1:
            text = text[:idx].strip()
    return text, idx


def coverage_answer(completion: str, style: str = "direct") -> bool:
    """REval's reading of a coverage answer (``Coverage._postprocess``): upper-cased and
    stripped, the ``[ANSWER]`` block must hold exactly one of YES/NO in its first three
    characters; empty, ambiguous or unfinished (CoT) answers read as NO."""
    text = (completion or "").upper().strip()
    if _unfinished(text, style):
        return False
    head = _tags(text)[0][:3]
    return "YES" in head and "NO" not in head


def path_answer(completion: str, style: str = "direct") -> str | int:
    """REval's reading of a path answer (``Path._postprocess``): the first line of the text
    after the tag cuts, stripped; ``-1`` as the int -1; an empty first line or an unfinished
    (CoT) answer as -2. A text with no tags is not stripped first, so an answer that starts
    with a newline reads as empty (REval's own behaviour)."""
    if _unfinished(completion, style):
        return -2
    first = _tags(completion)[0].split("\n")[0].strip()
    if first == "":
        return -2
    return -1 if first == "-1" else first


def path_lines(answer: str | int, code: str) -> list[int]:
    """REval's mapping of a path answer to line numbers: every line whose stripped text equals
    it (``[-2]`` when none), or the int itself."""
    if isinstance(answer, int):
        return [answer]
    lines = [i + 1 for i, text in enumerate(code.split("\n")) if text.strip() == answer]
    return lines or [-2]


class StateReading(NamedTuple):
    """A state answer as REval's ``State._postprocess`` reads it, before its ``eval``.

    ``kind``: ``error`` (no ``;``, unfinished CoT), ``nil``, ``str`` (value ``eval``-ed, else the
    text itself), ``none`` (``None`` or ``NoneType``), ``builtin`` (a builtin type: value
    ``eval``-ed, else ``ERROR``), ``other`` (a type of another module, a module, nothing: never a
    builtin type). ``scope``: REval's local names at that ``eval``, as Python source."""

    kind: str
    value: str = ""
    type: str = ""
    scope: str = ""


_CLASS = re.compile(r"<class '(.*)'>")
_GENERIC = re.compile(r"(.*)\[.*\]")
_QUOTES = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}


def _builtin_class(name: str) -> type | None:
    """The builtin class ``pydoc.locate(name)`` finds (``int``, ``builtins.int``), else None: a
    module, a function, a class of another module or nothing (REval's ``is_builtin_type`` fails
    on those, or their type is no builtin one). Imports nothing."""
    parts = [part for part in name.split(".") if part]
    if parts and parts[0] == "builtins":
        parts = parts[1:]
    elif len(parts) != 1:
        return None
    found: Any = builtins
    for part in parts or [""]:
        found = getattr(found, part, None) if part else None
        if found is None:
            return None
    return found if isinstance(found, type) and found.__module__ == "builtins" else None


def state_reading(completion: str, style: str = "direct") -> StateReading:
    """REval's reading of a state answer: curly quotes made straight; the tag cuts; ``Nil``;
    ``value; type`` split at the last ``;``; the type lower-cased, ``<class 'x'>`` unwrapped,
    generics cut (REval's greedy ``(.*)\\[.*\\]``), ``string``/``integer`` mapped, any name with
    ``,`` or ``tuple`` read as ``tuple``.

    >>> state_reading("[ANSWER]\\n[1, 2]; List[int]\\n[/ANSWER]")[:3]
    ('builtin', '[1, 2]', 'list')
    >>> state_reading("zzzz; str")[:2], state_reading("nil")[0], state_reading("1, 2; (int, int)")[2]
    (('str', 'zzzz'), 'nil', 'tuple')
    """
    if _unfinished(completion, style):
        return StateReading("error")
    for curly, straight in _QUOTES.items():
        completion = completion.replace(curly, straight)
    resp, idx = _tags(completion.strip())
    if resp.capitalize() == "Nil" or resp == "[Nil]":
        return StateReading("nil")
    semicolon = resp.rfind(";")
    if semicolon == -1:
        return StateReading("error")
    parts = [resp[:semicolon].strip(), resp[semicolon + 1 :].strip().lower()]
    if parts[0].capitalize() == "Nil":
        return StateReading("nil")
    match = _CLASS.match(parts[1])
    if match:
        parts[1] = match.group(1)
    before_generics = parts[1]
    match = _GENERIC.match(parts[1])
    if match:
        parts[1] = match.group(1)
    parts[1] = {"string": "str", "integer": "int"}.get(parts[1], parts[1])
    if "," in parts[1] or "tuple" in parts[1]:
        parts[1] = "tuple"
    scope = (f"resp = {resp!r}\nidx = {idx!r}\nsemicolon = {semicolon!r}\nparts = {parts!r}\n"
             f"_match = re.match({_GENERIC.pattern!r}, {before_generics!r})\n")
    if parts[1] == "str":
        kind = "str"
    elif parts[1] in ("datetime.datetime", "datetime", "numpy.ndarray", "np.ndarray"):
        kind = "other"  # REval's dateutil / numpy cases: never a builtin type
    elif parts[0] == "None" or parts[1] == "NoneType":
        kind = "none"
    elif _builtin_class(parts[1]) is not None:
        kind = "builtin"
    else:
        kind = "other"
    return StateReading(kind, parts[0], parts[1], scope)


#: The names REval's ``eval`` of a state value can see besides builtins: evaluation.py's
#: modules (bound here too) and its other globals and ``self`` (stand-ins: objects of no
#: builtin type, as theirs are); ``numpy as np``/``pandas as pd`` are bound where named.
_REVAL_MODULES = "import argparse, glob, inspect, json, os, re, sys\nfrom datetime import datetime\nfrom pydoc import locate\n"
_REVAL_OBJECTS = ("pytz", "Bullet", "Input", "tqdm", "Model", "DREval", "Nil", "_NilType", "FunctionFactory",
                  "ClassFactory", "Sandbox", "build_direct_prompt", "build_cot_prompt", "get_time", "is_builtin_type",
                  "Task", "Coverage", "Path", "State", "penalty_pattern", "Output", "Consistency", "Cli", "self")


def _reval_scope(extra: str = "") -> str:
    return f"{_REVAL_MODULES}class _Upstream:\n    pass\n{' = '.join(_REVAL_OBJECTS)} = _Upstream()\n{extra}"


def output_answer(completion: str, question: str, style: str = "direct") -> str:
    """REval's reading of an output answer (``Output._postprocess`` and ``_postprocess_phase2``):
    the tag cuts (``assert False`` for an unfinished CoT), padded in front with the question's
    first lines when it has fewer lines."""
    resp = "ERROR" if _unfinished(completion, style) else _tags(completion)[0]
    if resp == "ERROR":
        return "assert False"
    in_lines, res_lines = question.strip().split("\n"), resp.strip().split("\n")
    if len(res_lines) >= len(in_lines):
        return resp
    return "\n".join(in_lines[: len(in_lines) - len(res_lines)] + res_lines)


def penalized(answer: str, question: str) -> bool:
    """REval's ``penalty_pattern`` for output answers: an assertion on a constant
    (``assert True``, ``assertTrue(True)``...) or fewer asserts than the question has."""
    constants = ("assertTrue(True)", "assertFalse(False)", "assert True", "assert False")
    return any(c in answer for c in constants) or answer.count("assert") < question.count("assert")


def output_check(gold: dict, completion: str, code: str, entry_point: str, call: str, output_pred: str,
                 style: str = "direct"):
    """REval's output verdict as a :class:`.official.Check` (``exec`` of the completed
    assertion, with the problem's function in scope), or None when REval's penalty applies. The
    question's own call takes its traced output instead of running again."""
    from execverify_data.lm_eval_tasks.official import Check
    from execverify_data.values import CanonicalValue

    answer = output_answer(completion or "", output_pred, style)
    if penalized(answer, output_pred):
        return None
    known = ((call, CanonicalValue(gold["text"], gold["type"], True, None)),) if gold.get("askable", True) else ()
    # the function alone in scope (REval: locals()[fn_name]), then evaluation.py's names
    program = (f"__reval = {{'__name__': '__reval__'}}\nexec(compile({code!r}, '<internals>', 'exec'), __reval)\n"  # trusted: text for the sandbox
               f"{entry_point} = __reval[{entry_point!r}]\ndel __reval\n"
               + _reval_scope(f"fn_name = {entry_point!r}\ncode = {code!r}\n_input = {output_pred!r}\n"
                              f"ans = {answer!r}\nstatus = False\np = model_gen = task = sandbox = None\n"))
    return Check(program, answer, known)


# --------------------------------------------------------------------------- the official judge


def _state_official(reading: StateReading, gold: list | None) -> bool:
    """REval's ``State._update_metrics``/``_eq`` on a reading; the value evaluated as REval's
    ``eval`` does (a literal here, else in the sandbox), compared here."""
    if reading.kind == "error":
        return False
    if reading.kind == "nil":
        return gold is None
    if gold is None or reading.kind == "other":
        return False  # REval's HumanEval part has only builtin-typed gold values
    from execverify_data.lm_eval_tasks.official import RAISES, Opaque, evaluate
    from execverify_data.values import parse

    if reading.kind == "none":
        value, cls = None, type(None)
    else:
        value = evaluate([(_reval_scope(reading.scope), reading.value)])[0]
        if reading.kind == "str":
            cls = str
            if value is RAISES:
                value = reading.value  # REval's fallback: the unquoted text is the string
        else:
            cls = _builtin_class(reading.type)
            if value is RAISES:
                return False
    if not any(g.get("module", "builtins") == "builtins" and g["type"] == cls.__name__ for g in gold):
        return False
    if isinstance(value, Opaque) or type(value) is not cls:
        return False
    actual = []
    for g in gold:
        if g.get("askable", True):
            try:
                actual.append(parse(g["text"]))
            except Exception:  # noqa: BLE001 - a gold value with no literal matches nothing
                pass
    if cls is float:
        for a in actual:
            try:
                if abs(value - a) < FLOAT_TOLERANCE:
                    return True
            except Exception:  # noqa: BLE001 - REval: `continue` on a value of another type
                continue
        return False
    try:
        return value in actual
    except Exception:  # noqa: BLE001
        return False


def judge(kind: str, gold: Any, completion: str, code: str, style: str = "direct", output_pred: str = "",
          entry_point: str = "", call: str = "") -> bool:
    """REval's verdict (``evaluation.py``) on ``completion`` for the ``kind`` question whose gold
    answer is ``gold`` (:func:`gold_answers`); ``output_pred``, ``entry_point``, ``call``: the
    output question, its function and call."""
    completion = completion or ""
    if kind == "coverage":
        return coverage_answer(completion, style) == bool(gold)
    if kind == "path":
        return any(line in gold for line in path_lines(path_answer(completion, style), code))
    if kind == "state":
        return _state_official(state_reading(completion, style), gold)
    from execverify_data.lm_eval_tasks.official import passes

    check = output_check(gold, completion, code, entry_point, call, output_pred, style)
    return check is not None and passes([check])[0]


# --------------------------------------------------------------------------- the strict judge


def _score(question, answer: str) -> bool:
    from execverify_data.lm_eval_tasks.utils import score
    from execverify_data.questions.templates import verification_for

    # floats as Python's == compares them; the one tolerance is REval's own, of the state rule (judge_strict)
    verification = verification_for("", [question], "cruxeval", exact_floats=True)
    return bool(score(verification, f"[ANSWER]\n{answer}\n[/ANSWER]").correct[0])


def judge_strict(kind: str, gold: Any, completion: str, code: str, style: str = "direct", output_pred: str = "",
                 **_: Any) -> bool:
    """The strict verdict: REval's readings, every value read as a literal and compared by
    :class:`execverify_data.questions.Scorer` (strict types, no ``eval``), a path answer's
    leading blank lines skipped."""
    from execverify_data.questions import Kind, Question
    from execverify_data.values import CanonicalValue, encode, parse

    completion = completion or ""
    if kind == "coverage":
        answer = "True" if coverage_answer(completion, style) else "False"
        return _score(Question(Kind.COVERAGE, line=1, expected=encode(bool(gold))), answer)
    if _unfinished(completion, style):
        return False
    if kind == "path":
        first = _tags(completion)[0].strip().split("\n")[0].strip()
        if not first or not gold:
            return False
        candidates = [-1] if first == "-1" else [i + 1 for i, text in enumerate(code.split("\n")) if text.strip() == first]
        return any(_score(Question(Kind.PATH, line=1, k=1, expected=encode(actual)), str(candidate))
                   for candidate in candidates for actual in gold)
    if kind == "state":  # REval's reading, its value and type taken as written
        reading = state_reading(completion, style)
        if reading.kind in ("error", "nil") or gold is None:
            return reading.kind == "nil" and gold is None
        value, type_name = reading.value, reading.type
        for actual in gold:
            if not actual.get("askable", True):
                continue
            expected = CanonicalValue(actual["text"], actual["type"])
            if _score(Question(Kind.STATE, line=1, k=1, var="v", expected=expected), f"{value}; {type_name}"):
                return True
            if actual["type"] == "float" and type_name == "float":  # REval's tolerance
                try:
                    a, b = parse(value), parse(actual["text"])
                    if isinstance(a, float) and isinstance(b, float) and abs(a - b) < FLOAT_TOLERANCE:
                        return True
                except Exception:  # noqa: BLE001 - an unreadable answer is wrong
                    pass
        return False
    answer = output_answer(completion, output_pred, style)  # an "ERROR" answer reads as a penalized `assert False`
    if penalized(answer, output_pred):
        return False
    question = Question(Kind.IO, expected=CanonicalValue(gold["text"], gold["type"]), call="f()", entry="f")
    return _score(question, answer.strip().split("\n")[-1].strip() if answer.strip() else "")


# --------------------------------------------------------------------------- lm-eval glue


def _verdict(doc: dict, results: list, rule) -> bool:
    gold = json.loads(doc["gold"])[doc["kind"]]
    completion = results[0] if results else ""
    return rule(doc["kind"], gold, completion, doc["code"], doc.get("style") or "direct", doc.get("output_pred") or "",
                entry_point=doc.get("entry_point") or "", call=doc.get("call") or "")


def _results(doc: dict, results: list, rule) -> dict[str, Any]:
    out: dict[str, Any] = {"acc": float(_verdict(doc, results, rule))}
    if doc["kind"] == "coverage":  # REval also reports precision, recall and F1 of YES
        pair = (coverage_answer(results[0] if results else "", doc.get("style") or "direct"), bool(json.loads(doc["gold"])["coverage"]))
        out.update(precision=pair, recall=pair, f1=pair)
    return out


def process_results(doc: dict, results: list) -> dict[str, Any]:
    """``acc`` of one REval question by REval's own rule (coverage also ``precision``/``recall``/``f1``)."""
    return _results(doc, results, judge)


def process_results_strict(doc: dict, results: list) -> dict[str, Any]:
    """``acc`` of one REval question by the strict rule (:func:`judge_strict`)."""
    return _results(doc, results, judge_strict)


def _confusion(items: list[tuple[bool, bool]]) -> tuple[int, int, int]:
    tp = sum(1 for pred, actual in items if pred and actual)
    fp = sum(1 for pred, actual in items if pred and not actual)
    fn = sum(1 for pred, actual in items if not pred and actual)
    return tp, fp, fn


def coverage_precision(items: list[tuple[bool, bool]]) -> float:
    tp, fp, _ = _confusion(items)
    return tp / (tp + fp) if tp + fp else 0.0


def coverage_recall(items: list[tuple[bool, bool]]) -> float:
    tp, _, fn = _confusion(items)
    return tp / (tp + fn) if tp + fn else 0.0


def coverage_f1(items: list[tuple[bool, bool]]) -> float:
    """F1 of the YES answers (REval's ``Coverage._f1``; 0 when precision + recall is 0)."""
    p, r = coverage_precision(items), coverage_recall(items)
    return 2 * p * r / (p + r) if p + r else 0.0


def _consistency(doc: dict, results: list, rule) -> dict[str, tuple]:
    ok = _verdict(doc, results, rule)
    item = (doc["unit"], doc["kind"], ok)
    return {"acc": float(ok), "ic": item, **{f"{kind}_acc": item for kind in KINDS}}


def process_consistency(doc: dict, results: list) -> dict[str, tuple]:
    """One question of a consistency unit (REval's rule); the aggregations join the unit's four verdicts."""
    return _consistency(doc, results, judge)


def process_consistency_strict(doc: dict, results: list) -> dict[str, tuple]:
    """As :func:`process_consistency`, by the strict rule."""
    return _consistency(doc, results, judge_strict)


def incremental_consistency(items: list[tuple]) -> float:
    """REval's Incremental Consistency over units (``Consistency.run``): per unit, 1 when
    coverage, state, path and output are right; 0.5, 0.25, 0.125 when only the first three,
    two, one of that sequence are right and the rest wrong; 0 otherwise."""
    units: dict[str, dict[str, bool]] = {}
    for unit, kind, ok in items:
        units.setdefault(unit, {})[kind] = bool(ok)
    credit = {(True, True, True, True): 1.0, (True, True, True, False): 0.5, (True, True, False, False): 0.25,
              (True, False, False, False): 0.125}
    scores = [credit.get(tuple(v.get(kind, False) for kind in KINDS), 0.0) for v in units.values()]
    return sum(scores) / len(scores) if scores else 0.0


def _kind_mean(kind: str):
    def mean(items: list[tuple]) -> float:
        verdicts = [ok for _, k, ok in items if k == kind]
        return sum(verdicts) / len(verdicts) if verdicts else 0.0

    mean.__name__ = f"{kind}_mean"
    return mean


coverage_mean = _kind_mean("coverage")
state_mean = _kind_mean("state")
path_mean = _kind_mean("path")
output_mean = _kind_mean("output")
