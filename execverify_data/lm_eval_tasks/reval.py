"""REval (DREval) tasks: coverage, state, path, output and Incremental Consistency.

REval (Chen et al., "Reasoning Runtime Behavior of a Program with LLM: How Far Are We?",
ICSE 2025; repository r-eval/REval) has no license file, so its data is not shipped: it is
read at run time from ``data/DREval_data.jsonl`` and ``data/DREval_tasks.jsonl`` of the
upstream repository, or from local copies given with ``--metadata``
(``reval_data_path``, ``reval_tasks_path``). Only the function problems (HumanEval
part) are evaluated; the ClassEval part needs REval's test-class harness (see README.md).

Gold answers come from :func:`execverify_data.trace.trace_call`, converted to REval's
conventions by :func:`reval_view` (consecutive events on one line merged, the state after
a line taken from the next recorded event in any frame, values of all executions of a line).
Verdicts are taken by :class:`execverify_data.questions.Scorer`; the REval-specific parts
(reading ``YES``/``NO``, ``Nil``, the code-text answers of path questions, the float
tolerance) are listed in README.md. Nothing runs at import time.
"""

from __future__ import annotations

import ast
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

REVAL_RAW = "https://raw.githubusercontent.com/r-eval/REval/main/data/"
KINDS = ("coverage", "state", "path", "output")
FLOAT_TOLERANCE = 1e-6  # REval: abs(answer - actual) < 1e-6 for float states

# --------------------------------------------------------------------------- prompts (ours; REval's answer formats)
_HEADER = (
    "You are given a Python function and an invocation of it. Reason about the execution of the "
    "invocation and answer the question. Write the answer between [ANSWER] and [/ANSWER].\n\n"
    "[PYTHON]\n{code}\n[/PYTHON]\n\nInvocation: `{invocation}`\n\n"
)
_QUESTIONS = {
    "coverage": "Is line {line} (`{codeline}`) executed when `{invocation}` runs? Answer YES or NO.\n",
    "path": (
        "Line {line} (`{codeline}`) is executed when `{invocation}` runs. Which line is executed next? "
        "Answer with the code of that line exactly as written (without indentation), or -1 if the "
        "execution ends after line {line}.\n"
    ),
    "state": (
        "What are the value and the type of `{var}` right after line {line} (`{codeline}`) is executed "
        "when `{invocation}` runs? Answer as `value; type` (for example `[1, 2]; list`), or Nil if line "
        "{line} is not executed.\n"
    ),
    "output": (
        "Complete the assertion below with the literal value the invocation returns, and write the whole "
        "completed assertion.\n\n{output_pred}\n"
    ),
}
_FOOTER = "[ANSWER]\n"


def _prompt(kind: str, **fields: Any) -> str:
    return _HEADER.format(**fields) + _QUESTIONS[kind].format(**fields) + "\n" + _FOOTER


# --------------------------------------------------------------------------- data


def _read_jsonl(location: str) -> list[dict]:
    if re.match(r"https?://", location):  # pragma: no cover - network
        from urllib.request import urlopen

        with urlopen(location, timeout=60) as response:  # noqa: S310 - fixed https URL of the upstream repo
            text = response.read().decode("utf-8")
    else:
        text = Path(location).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _call(entry_point: str, arguments: str) -> str:
    # REval's invocation: f"{fn_name}{_input[:-2]})" of an input such as "(1, [2])\n" or "(x, )"
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
        return sorted(view.next_lines.get(line, ())) or None
    if kind == "state":
        if line not in view.lines:
            return None  # Nil
        return [{"text": v.text, "type": v.type} for v in view.values.get((line, var), ())]
    return {"text": view.output.text, "type": view.output.type}


@lru_cache(maxsize=4)
def _units(data_path: str, tasks_path: str) -> tuple[dict, ...]:
    """One unit per (problem, input, task item): the four prompts and their gold answers."""
    from execverify_data.trace import trace_call

    data = _read_jsonl(data_path)
    units = []
    for item in _read_jsonl(tasks_path):
        idx = item["idx"]
        record = data[idx]
        if not _is_function_problem(record):
            continue
        code, entry = record["code"], record["entry_point"]
        codelines = code.split("\n")
        for pair in item["tasks"]:
            call = _call(entry, record["inputs"][pair["input_idx"]])
            trace = trace_call(code, call, trusted_call=True, timeout=10.0)
            if trace.output is None or not trace.output.askable:
                continue
            view = reval_view(code, trace)
            numbered = "".join(f"{i + 1}\t{text}\n" for i, text in enumerate(codelines))
            for j, t in enumerate(pair["task"]):
                line, var = int(t["lineno"]), t["var"]
                fields = dict(invocation=call, line=line, codeline=codelines[line - 1].strip(), var=var,
                              output_pred=pair["output_pred"])
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
                        "prompts": [
                            _prompt("coverage", code=code, **fields),
                            _prompt("state", code=code, **fields),
                            _prompt("path", code=numbered.rstrip("\n"), **fields),
                            _prompt("output", code=code, **fields),
                        ],
                        "gold": json.dumps({k: _expected(k, view, line, var) for k in KINDS}),
                        "call": call,
                        "entry_point": entry,
                    }
                )
    return tuple(units)


def _locations(metadata: dict) -> tuple[str, str]:
    return (
        metadata.get("reval_data_path") or REVAL_RAW + "DREval_data.jsonl",
        metadata.get("reval_tasks_path") or REVAL_RAW + "DREval_tasks.jsonl",
    )


def _dataset(rows: list[dict]):
    import datasets

    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def _with_reference(unit: dict, kind: str) -> dict:
    row = {k: v for k, v in unit.items() if k != "prompts"}
    row["prompt"] = unit["prompts"][KINDS.index(kind)]
    row["kind"] = kind
    row["reference"] = reference_answer(unit, kind)
    return row


def _loader(kind: str):
    def load(**metadata: Any):
        units = _units(*_locations(metadata))
        if kind == "output":  # one doc per (problem, input), as REval's output task
            seen, rows = set(), []
            for unit in units:
                key = (unit["task_id"], unit["input_idx"])
                if key not in seen:
                    seen.add(key)
                    rows.append(_with_reference(unit, kind))
            return _dataset(rows)
        if kind == "consistency":  # the four questions of each unit, next to each other
            rows = []
            for unit in units:
                for k in KINDS:
                    row = _with_reference(unit, k)
                    row["unit"] = unit["id"]
                    rows.append(row)
            return _dataset(rows)
        return _dataset([_with_reference(u, kind) for u in units])

    load.__name__ = f"load_{kind}"
    return load


load_coverage = _loader("coverage")
load_state = _loader("state")
load_path = _loader("path")
load_output = _loader("output")
load_consistency = _loader("consistency")


def reference_answer(unit: dict, kind: str) -> str:
    """The answer a perfect model writes (used by the oracle tests)."""
    gold = json.loads(unit["gold"])[kind]
    if kind == "coverage":
        return "YES\n[/ANSWER]" if gold else "NO\n[/ANSWER]"
    if kind == "path":
        if not gold:
            return "-1\n[/ANSWER]"
        line = gold[0]
        return ("-1" if line == -1 else unit["code"].split("\n")[line - 1].strip()) + "\n[/ANSWER]"
    if kind == "state":
        if gold is None:
            return "Nil\n[/ANSWER]"
        if not gold:
            return "ERROR\n[/ANSWER]"
        return f"{gold[0]['text']}; {gold[0]['type']}\n[/ANSWER]"
    return f"assert {unit['call']} == {gold['text']}\n[/ANSWER]"


# --------------------------------------------------------------------------- scoring


def _answer_block(text: str) -> str:
    # REval's postprocessing: the text after [ANSWER], up to [/ANSWER]
    start = text.find("[ANSWER]")
    if start != -1:
        text = text[start + 8 :]
    end = text.find("[/ANSWER")
    if end != -1:
        text = text[:end]
    return text.strip()


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


def coverage_answer(completion: str) -> bool:
    """REval's reading of a coverage answer: YES or NO in its first three characters
    (case-insensitive); empty or ambiguous answers read as NO."""
    head = _answer_block(completion or "").upper()[:3]
    yes, no = "YES" in head, "NO" in head
    return yes and not no


def judge(kind: str, gold: Any, completion: str, code: str) -> bool:
    """Whether ``completion`` answers the ``kind`` question whose REval gold answer is ``gold``."""
    from execverify_data.questions import Kind, Question
    from execverify_data.values import encode, parse

    block = _answer_block(completion or "")
    if kind == "coverage":
        answer = "True" if coverage_answer(completion) else "False"
        return _score(Question(Kind.COVERAGE, line=1, expected=encode(bool(gold))), answer)
    if kind == "path":
        first = block.split("\n")[0].strip() if block else ""
        if not first or not gold:
            return False
        if first == "-1":
            candidates = [-1]
        else:
            candidates = [i + 1 for i, text in enumerate(code.split("\n")) if text.strip() == first]
        return any(
            _score(Question(Kind.PATH, line=1, k=1, expected=encode(actual)), str(candidate))
            for candidate in candidates
            for actual in gold
        )
    if kind == "state":
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

    question = Question(Kind.IO, expected=CanonicalValue(gold["text"], gold["type"]), call="f()", entry="f")
    return _score(question, block.split("\n")[-1].strip() if block else "")


def process_results(doc: dict, results: list) -> dict[str, float]:
    """``acc`` of one REval question (coverage, state, path or output)."""
    gold = json.loads(doc["gold"])[doc["kind"]]
    completion = results[0] if results else ""
    out = {"acc": float(judge(doc["kind"], gold, completion, doc["code"]))}
    if doc["kind"] == "coverage":  # REval also reports precision, recall and F1 of YES
        pair = (coverage_answer(completion), bool(gold))
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
    ok = judge(doc["kind"], gold, results[0] if results else "", doc["code"])
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
