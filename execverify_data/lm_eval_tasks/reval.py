"""REval (DREval) tasks: coverage, state, path, output and Incremental Consistency, direct and CoT.

REval (Chen et al., "Reasoning Runtime Behavior of a Program with LLM: How Far Are We?",
ICSE 2025; repository r-eval/REval) has no license file, so neither its data nor its prompt
templates are shipped: both are read at run time from the upstream repository at the pinned
commit :data:`REVAL_COMMIT` (``data/DREval_data.jsonl``, ``data/DREval_tasks.jsonl``,
``prompts/{direct,cot}_{coverage,state,path,output}.txt``), or from local copies given with
``--metadata`` (``reval_path``: a REval checkout; ``reval_data_path``, ``reval_tasks_path``,
``reval_prompts_path``). Templates are filled as REval's ``prompt.py``/``evaluation.py`` do
(:func:`render`). Only the function problems (HumanEval part) are evaluated; the ClassEval
part needs REval's test-class harness (see README.md).

Gold answers come from :func:`execverify_data.trace.trace_call`, converted to REval's
conventions by :func:`reval_view` (consecutive events on one line merged, the state after
a line taken from the next recorded event in any frame, values of all executions of a line).
Answers are extracted as REval's ``_postprocess`` methods do; verdicts are taken by
:class:`execverify_data.questions.Scorer` (README.md lists the differences). Nothing runs at
import time.
"""

from __future__ import annotations

import ast
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

REVAL_REPO = "r-eval/REval"
REVAL_COMMIT = "2f148b913deb4ae0e0ce41f0245ef35054ede8d6"  # pinned: data and prompt templates
REVAL_RAW = f"https://raw.githubusercontent.com/{REVAL_REPO}/{REVAL_COMMIT}/"
KINDS = ("coverage", "state", "path", "output")
STYLES = ("direct", "cot")
FLOAT_TOLERANCE = 1e-6  # REval: abs(answer - actual) < 1e-6 for float states

# --------------------------------------------------------------------------- prompts (REval's own, read at run time)


def _template_location(kind: str, style: str, metadata: dict) -> str:
    """Where REval's ``prompts/{style}_{kind}.txt`` is read from: ``reval_prompts_path`` (a
    folder of those files), ``reval_path`` (a REval checkout: ``<path>/prompts/``), else the
    upstream repository at :data:`REVAL_COMMIT`."""
    name = f"{style}_{kind}.txt"
    if metadata.get("reval_prompts_path"):
        return str(Path(metadata["reval_prompts_path"]) / name)
    if metadata.get("reval_path"):
        return str(Path(metadata["reval_path"]) / "prompts" / name)
    return REVAL_RAW + "prompts/" + name


@lru_cache(maxsize=16)
def _read_text(location: str) -> str:
    if re.match(r"https?://", location):  # pragma: no cover - network
        from urllib.request import urlopen

        with urlopen(location, timeout=60) as response:  # noqa: S310 - fixed https URL of the upstream repo
            return response.read().decode("utf-8")
    return Path(location).read_text(encoding="utf-8")


def template_fields(kind: str, unit: dict) -> dict[str, Any]:
    """The keyword arguments REval's ``evaluation.py`` passes to ``template.format`` for a
    function (HumanEval) problem: the code as is (path: every line numbered ``"{i}\t{line}\n"``),
    the invocation ``entry_point + input[:-2] + ")"`` (also as ``invocation_abbr``), the 1-based
    line and its unstripped text, the variable; output: ``invocation = "\n" + output_pred``."""
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


def _call(entry_point: str, arguments: str) -> str:
    # REval's invocation: f"{fn_name}{_input[:-2]})" of an input such as "([1.0, 2.0], 0.3,)"
    return f"{entry_point}{arguments[:-2]})"


def _is_function_problem(record: dict) -> bool:
    entry = record.get("entry_point") or ""
    return bool(entry) and re.search(rf"^def {re.escape(entry)}\b", record.get("code", ""), re.MULTILINE) is not None


class RevalView(NamedTuple):
    """One traced invocation seen with REval's conventions (1-based line numbers).

    (A named tuple, not a dataclass: lm-eval loads this file without registering it in
    ``sys.modules`` first, which dataclasses need.)"""

    lines: frozenset[int]
    next_lines: dict[int, frozenset[int]]
    values: dict[tuple[int, str], tuple[Any, ...]]  # (line, var) -> CanonicalValues over executions
    output: Any


def _parameters(source: str) -> dict[str, set[str]]:
    names: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
            params |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
            names.setdefault(getattr(node, "name", "<lambda>"), set()).update(params)
    return names


def reval_view(source: str, trace) -> RevalView:
    """REval's coverage, next-line and per-line state answers, computed from our trace.

    * consecutive events with the same line number are merged into one (the last one's
      after-state is kept), so a "next line" is never the line itself;
    * the state after merged event *i* is the state REval records at event *i + 1*: the
      locals of *that* event's frame before its line runs (the after-state of that frame's
      previous event, or its parameters for a frame's first event); after the last event,
      the state recorded at that event itself;
    * a ``(line, var)`` answer is the list of the variable's values over all executions.

    >>> from execverify_data.trace import trace_call
    >>> src = "def f(xs):\\n    t = 0\\n    for x in xs: t += x\\n    return t\\n"
    >>> v = reval_view(src, trace_call(src, "f([1, 2])"))
    >>> sorted(v.next_lines[3]), [c.text for c in v.values[(3, "t")]]
    ([4], ['3'])
    """
    merged = []
    for event in trace.events:
        if merged and merged[-1].line == event.line:
            merged[-1] = event
        else:
            merged.append(event)
    params = _parameters(source)
    before = []
    last_in_frame: dict[int, Any] = {}
    for event in merged:
        previous = last_in_frame.get(event.frame)
        if previous is not None:
            before.append(previous.locals)
        else:
            keep = params.get(event.function, set())
            before.append({k: v for k, v in event.locals.items() if k in keep})
        last_in_frame[event.frame] = event
    next_lines: dict[int, set[int]] = {}
    values: dict[tuple[int, str], list] = {}
    for i, event in enumerate(merged):
        after = before[i + 1] if i + 1 < len(merged) else before[i]
        next_lines.setdefault(event.line, set()).add(merged[i + 1].line if i + 1 < len(merged) else -1)
        for name, value in after.items():
            if value.askable:
                values.setdefault((event.line, name), []).append(value)
    return RevalView(
        lines=frozenset(e.line for e in merged),
        next_lines={k: frozenset(v) for k, v in next_lines.items()},
        values={k: tuple(v) for k, v in values.items()},
        output=trace.output,
    )


def _expected(kind: str, view: RevalView, line: int | None, var: str | None) -> Any:
    if kind == "coverage":
        return line in view.lines
    if kind == "path":
        return sorted(view.next_lines.get(line, ())) or [-1]  # REval: -1 for a line that never runs
    if kind == "state":
        if line not in view.lines:
            return None  # Nil
        return [{"text": v.text, "type": v.type} for v in view.values.get((line, var), ())]
    return {"text": view.output.text, "type": view.output.type}


@lru_cache(maxsize=4)
def _units(data_path: str, tasks_path: str) -> tuple[dict, ...]:
    """One unit per (problem, input, task item): the fields of its four questions and their gold answers."""
    from execverify_data.trace import trace_call

    data = _read_jsonl(data_path)
    units = []
    for item in _read_jsonl(tasks_path):
        idx = item["idx"]
        record = data[idx]
        if not _is_function_problem(record):
            continue
        code, entry = record["code"], record["entry_point"]
        for pair in item["tasks"]:
            call = _call(entry, record["inputs"][pair["input_idx"]])
            trace = trace_call(code, call, trusted_call=True, timeout=10.0)
            if trace.output is None or not trace.output.askable:
                continue
            view = reval_view(code, trace)
            for j, t in enumerate(pair["task"]):
                line, var = int(t["lineno"]), t["var"]
                units.append(
                    {
                        "id": f"DREval/{idx}/{pair['input_idx']}/{j}",
                        "task_id": f"DREval/{idx}",
                        "input_idx": pair["input_idx"],
                        "item": j,
                        "code": code,
                        "invocation": call,
                        "lineno": line,
                        "var": var,
                        "output_pred": pair["output_pred"],
                        "gold": json.dumps({k: _expected(k, view, line, var) for k in KINDS}),
                        "call": call,
                        "entry_point": entry,
                    }
                )
    return tuple(units)


def _locations(metadata: dict) -> tuple[str, str]:
    base = str(Path(metadata["reval_path"]) / "data") + "/" if metadata.get("reval_path") else REVAL_RAW + "data/"
    return (
        metadata.get("reval_data_path") or base + "DREval_data.jsonl",
        metadata.get("reval_tasks_path") or base + "DREval_tasks.jsonl",
    )


def _dataset(rows: list[dict]):
    import datasets

    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def _row(unit: dict, kind: str, style: str, templates: dict[str, str]) -> dict:
    row = dict(unit)
    row["prompt"] = render(templates[kind], kind, unit)
    row["kind"] = kind
    row["style"] = style
    row["reference"] = reference_answer(unit, kind, style)
    return row


def _loader(kind: str, style: str = "direct"):
    def load(**metadata: Any):
        units = _units(*_locations(metadata))
        needed = KINDS if kind == "consistency" else (kind,)
        templates = {k: _read_text(_template_location(k, style, metadata)) for k in needed}
        if kind == "output":  # one doc per (problem, input), as REval's output task
            seen, rows = set(), []
            for unit in units:
                key = (unit["task_id"], unit["input_idx"])
                if key not in seen:
                    seen.add(key)
                    rows.append(_row(unit, kind, style, templates))
            return _dataset(rows)
        if kind == "consistency":  # the four questions of each unit, next to each other
            rows = []
            for unit in units:
                for k in KINDS:
                    row = _row(unit, k, style, templates)
                    row["unit"] = unit["id"]
                    rows.append(row)
            return _dataset(rows)
        return _dataset([_row(u, kind, style, templates) for u in units])

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
    oracle tests): direct prompts end with ``[ANSWER]``, CoT prompts with ``[THOUGHT]``."""
    gold = json.loads(unit["gold"])[kind]
    if kind == "coverage":
        answer = "YES" if gold else "NO"
    elif kind == "path":
        if not gold or gold[0] == -1:
            answer = "-1"
        else:
            answer = unit["code"].split("\n")[gold[0] - 1].strip()
    elif kind == "state":
        if gold is None:
            answer = "Nil"
        elif not gold:
            answer = "ERROR"
        else:
            answer = f"{gold[0]['text']}; {gold[0]['type']}"
    else:
        answer = unit["output_pred"].replace("??", gold["text"])
    if style == "cot":
        return f"\nThe program runs as traced.\n[/THOUGHT]\n[ANSWER]\n{answer}\n[/ANSWER]"
    return f"\n{answer}\n[/ANSWER]"


# --------------------------------------------------------------------------- scoring


def _answer_block(text: str) -> str:
    # REval's postprocessing: the text after the first [ANSWER], up to the first [/ANSWER
    start = text.find("[ANSWER]")
    if start != -1:
        text = text[start + 8 :]
    end = text.find("[/ANSWER")
    if end != -1:
        text = text[:end]
    return text.strip()


def _unfinished(completion: str, style: str) -> bool:
    """REval's CoT rule: a CoT answer without ``[/THOUGHT]`` did not finish (read as NO for
    coverage, wrong otherwise)."""
    return style == "cot" and "[/THOUGHT]" not in completion


def penalized(answer: str, question: str) -> bool:
    """REval's ``penalty_pattern`` for output answers: an assertion on a constant
    (``assert True``, ``assertTrue(True)``...) or fewer asserts than the question has."""
    constants = ("assertTrue(True)", "assertFalse(False)", "assert True", "assert False")
    if any(c in answer for c in constants):
        return True
    return answer.count("assert") < question.count("assert")


def output_answer(completion: str, question: str, style: str = "direct") -> str:
    """REval's reading of an output answer: the ``[ANSWER]`` block (``assert False`` for an
    unfinished CoT), padded in front with the question's first lines when it has fewer lines."""
    if _unfinished(completion, style):
        return "assert False"
    block = _answer_block(completion)
    in_lines, res_lines = question.strip().split("\n"), block.strip().split("\n")
    if len(res_lines) < len(in_lines):
        return "\n".join(in_lines[: len(in_lines) - len(res_lines)] + res_lines)
    return block


def path_answer(completion: str, style: str = "direct") -> str | int:
    """REval's reading of a path answer: the first line of the ``[ANSWER]`` block, ``-1``
    as the int -1, an empty or unfinished (CoT) answer as -2. Unlike REval, leading blank
    lines are skipped when the completion has no ``[ANSWER]`` tag (a completion model
    continuing REval's direct prompt starts with a newline, which REval reads as empty)."""
    if _unfinished(completion, style):
        return -2
    first = _answer_block(completion).split("\n")[0].strip()
    if first == "":
        return -2
    return -1 if first == "-1" else first


def _verification(question) -> dict:
    from execverify_data.questions.templates import verification_for

    return verification_for("", [question], "cruxeval")


def _state_type(text: str) -> str:
    text = text.strip().lower()
    match = re.match(r"<class '(.*)'>", text)
    if match:
        text = match.group(1)
    match = re.match(r"(.*)\[.*\]", text)
    if match:
        text = match.group(1)
    if text == "string":
        return "str"
    if text == "integer":
        return "int"
    if "," in text or "tuple" in text:
        return "tuple"
    return text


def _score(question, answer: str) -> bool:
    from execverify_data.lm_eval_tasks.utils import score

    return bool(score(_verification(question), f"[ANSWER]\n{answer}\n[/ANSWER]").correct[0])


def coverage_answer(completion: str, style: str = "direct") -> bool:
    """REval's reading of a coverage answer (``Coverage._postprocess``): the ``[ANSWER]``
    block upper-cased must hold exactly one of YES/NO in its first three characters; empty,
    ambiguous or unfinished (CoT) answers read as NO."""
    text = (completion or "").upper().strip()
    if _unfinished(text, style):
        return False
    head = _answer_block(text)[:3]
    yes, no = "YES" in head, "NO" in head
    return yes and not no


def judge(kind: str, gold: Any, completion: str, code: str, style: str = "direct", output_pred: str = "") -> bool:
    """Whether ``completion`` answers the ``kind`` question whose REval gold answer is ``gold``
    (``output_pred``: the output task's question; ``style``: ``direct`` or ``cot``)."""
    from execverify_data.questions import Kind, Question
    from execverify_data.values import encode, parse

    completion = completion or ""
    block = _answer_block(completion)
    if kind == "coverage":
        answer = "True" if coverage_answer(completion, style) else "False"
        return _score(Question(Kind.COVERAGE, line=1, expected=encode(bool(gold))), answer)
    if kind == "path":
        first = path_answer(completion, style)
        if first == -2 or not gold:
            return False
        if first == -1:
            candidates = [-1]
        else:
            candidates = [i + 1 for i, text in enumerate(code.split("\n")) if text.strip() == first]
        return any(
            _score(Question(Kind.PATH, line=1, k=1, expected=encode(actual)), str(candidate))
            for candidate in candidates
            for actual in gold
        )
    if kind == "state":
        if _unfinished(completion, style):
            return False
        text = block.replace("\u2018", "'").replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
        if text.capitalize() == "Nil" or text == "[Nil]":
            return gold is None
        semicolon = text.rfind(";")
        if semicolon == -1:
            return False
        value, type_name = text[:semicolon].strip(), _state_type(text[semicolon + 1 :])
        if value.capitalize() == "Nil":
            return gold is None
        if gold is None:
            return False
        from execverify_data.values import CanonicalValue

        for actual in gold:
            expected = CanonicalValue(actual["text"], actual["type"])
            question = Question(Kind.STATE, line=1, k=1, var="v", expected=expected)
            if _score(question, f"{value}; {type_name}"):
                return True
            if actual["type"] == "float" and type_name == "float":  # REval's tolerance
                try:
                    a, b = parse(value), parse(actual["text"])
                    if isinstance(a, float) and isinstance(b, float) and abs(a - b) < FLOAT_TOLERANCE:
                        return True
                except Exception:  # noqa: BLE001 - an unreadable answer is wrong
                    pass
        return False
    from execverify_data.values import CanonicalValue

    answer = output_answer(completion, output_pred, style)
    if penalized(answer, output_pred):
        return False
    question = Question(Kind.IO, expected=CanonicalValue(gold["text"], gold["type"]), call="f()", entry="f")
    return _score(question, answer.strip().split("\n")[-1].strip() if answer.strip() else "")


def process_results(doc: dict, results: list) -> dict[str, float]:
    """``acc`` of one REval question (coverage, state, path or output)."""
    gold = json.loads(doc["gold"])[doc["kind"]]
    completion = results[0] if results else ""
    style = doc.get("style") or "direct"
    out = {"acc": float(judge(doc["kind"], gold, completion, doc["code"], style, doc.get("output_pred") or ""))}
    if doc["kind"] == "coverage":  # REval also reports precision, recall and F1 of YES
        pair = (coverage_answer(completion, style), bool(gold))
        out.update(precision=pair, recall=pair, f1=pair)
    return out


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


def process_consistency(doc: dict, results: list) -> dict[str, tuple]:
    """One question of a consistency unit; the aggregations join the unit's four verdicts."""
    gold = json.loads(doc["gold"])[doc["kind"]]
    ok = judge(doc["kind"], gold, results[0] if results else "", doc["code"], doc.get("style") or "direct",
               doc.get("output_pred") or "")
    item = (doc["unit"], doc["kind"], ok)
    return {"acc": float(ok), "ic": item, **{f"{kind}_acc": item for kind in KINDS}}


def incremental_consistency(items: list[tuple]) -> float:
    """REval's Incremental Consistency over units (``Consistency.run``): per unit, 1 when
    coverage, state, path and output are right; 0.5, 0.25, 0.125 when only the first three,
    two, one of that sequence are right and the rest wrong; 0 otherwise."""
    units: dict[str, dict[str, bool]] = {}
    for unit, kind, ok in items:
        units.setdefault(unit, {})[kind] = bool(ok)
    credit = {
        (True, True, True, True): 1.0,
        (True, True, True, False): 0.5,
        (True, True, False, False): 0.25,
        (True, False, False, False): 0.125,
    }
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
