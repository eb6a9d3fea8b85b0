"""The answer corpus of the official-harness agreement tests (``test_official_agreement.py``).

Answers in the forms models write, for CRUXEval-O, CRUXEval-I, LiveCodeBench-Exec and REval
(coverage, path, state, output), each the raw text a model generates after the prompt, before
any stop sequence: the gold in many surface forms (quotes, spacing, order, several lines,
``==``-equal values such as ``True`` for ``1``, unsimplified expressions such as ``'ab' + 'c'``,
expression inputs like CRUXEval's own golds), wrong and near-miss values, and the wrappers that
split the scorers (fenced code, prose after the assert, "The output is X", two asserts, CoT
with and without tags, ``Answer: f(...)``, text continuing after ``[/ANSWER]``, leading
newlines, unquoted strings...). Deterministic for a seed.

Data: CRUXEval and HumanEval ship with the package; LiveCodeBench and REval do not, so their
docs are built here in the upstream formats from the HumanEval and CRUXEval programs (the
README's "Expected formats"): LiveCodeBench rows with keyword calls (``name(a = 1)``), a REval
``DREval_data.jsonl``/``DREval_tasks.jsonl`` pair with task items chosen like REval's taskgen
(assignment and return lines, tuple and subscript targets).

``python tests/official_corpus.py --out DIR`` writes the corpus and the fixtures as jsonl.
"""

from __future__ import annotations

import ast
import json
import random
import re
from dataclasses import asdict, dataclass
from pathlib import Path

SEED = 20250101


@dataclass(frozen=True)
class Answer:
    benchmark: str  # cruxeval_o, cruxeval_i, lcb, reval_coverage, reval_path, reval_state, reval_output
    doc: str  # the doc's id (REval: the unit's id; output: "<task_id>/<pair>")
    cot: bool
    form: str  # wrapper:value-form
    generation: str


# --------------------------------------------------------------------------- values in many forms


def _dq(text: str) -> str:
    """A str literal written with double quotes."""
    r = repr(text)
    if r.startswith('"'):
        return r
    inner = r[1:-1].replace("\\'", "'").replace('"', '\\"')
    return f'"{inner}"'


def _py(value, *, quote: str = "'", compact: bool = False) -> str:
    """Python source for a literal value, with a choice of quotes and spacing."""
    sep = "," if compact else ", "
    colon = ":" if compact else ": "
    if isinstance(value, str):
        return _dq(value) if quote == '"' else repr(value)
    if isinstance(value, list):
        return "[" + sep.join(_py(v, quote=quote, compact=compact) for v in value) + "]"
    if isinstance(value, tuple):
        inner = sep.join(_py(v, quote=quote, compact=compact) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        return "{" + sep.join(f"{_py(k, quote=quote, compact=compact)}{colon}{_py(v, quote=quote, compact=compact)}"
                              for k, v in value.items()) + "}"
    if isinstance(value, (set, frozenset)) and value and not isinstance(value, frozenset):
        return "{" + sep.join(_py(v, quote=quote, compact=compact) for v in value) + "}"
    return repr(value)


def _literal(text: str):
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def equal_forms(text: str) -> list[tuple[str, str]]:
    """Texts whose value is ``==`` to the literal ``text`` (many surface forms)."""
    ok, v = _literal(text)
    forms = [("gold", text)]
    if not ok:
        return forms
    forms.append(("repr", repr(v)))
    if isinstance(v, (str, list, tuple, dict)) and "'" in repr(v):
        forms.append(("double_quotes", _py(v, quote='"')))
    if isinstance(v, (list, tuple, dict)) and len(v) >= 1:
        forms.append(("compact", _py(v, compact=True)))
    if isinstance(v, (list, dict)) and len(v) >= 2:
        items = [_py(x) for x in v] if isinstance(v, list) else [f"{_py(k)}: {_py(x)}" for k, x in v.items()]
        o, c = ("[", "]") if isinstance(v, list) else ("{", "}")
        forms.append(("multiline", o + "\n    " + ",\n    ".join(items) + ",\n" + c))
        forms.append(("trailing_comma", o + ", ".join(items) + "," + c))
    if isinstance(v, (dict, set)) and len(v) >= 2:
        items = list(v.items())[::-1] if isinstance(v, dict) else list(v)[::-1]
        forms.append(("reordered", "{" + ", ".join(f"{_py(k)}: {_py(x)}" for k, x in items) + "}" if isinstance(v, dict)
                      else "{" + ", ".join(_py(x) for x in items) + "}"))
    if type(v) is int:
        forms.append(("int_as_float", f"{v}.0"))
        if v in (0, 1):
            forms.append(("int_as_bool", "True" if v else "False"))
        if v >= 0:
            forms.append(("hex", hex(v)))
    if type(v) is bool:
        forms.append(("bool_as_int", "1" if v else "0"))
    if isinstance(v, (list, tuple, dict)) or type(v) in (int, str):
        forms.append(("parenthesized", f"({text})"))
    if isinstance(v, str) and v and v[0].isalpha() and ord(v[0]) < 128:
        forms.append(("escaped", "'\\x%02x" % ord(v[0]) + repr(v)[2:]))
    return forms


def expression_forms(text: str) -> list[tuple[str, str]]:
    """Unsimplified expressions equal to the literal ``text`` (CRUXEval runs them; the prompt forbids them)."""
    ok, v = _literal(text)
    if not ok:
        return []
    forms = []
    if type(v) is int:
        forms += [("sum", f"{v - 3} + 3"), ("int_call", f"int({str(v)!r})")]
    elif type(v) is float and v == v:
        forms.append(("times_one", f"{v!r} * 1"))
    elif type(v) is bool:
        forms += [("not", f"not {not v}"), ("comparison", f"1 == {1 if v else 2}")]
    elif isinstance(v, str):
        if len(v) >= 2:
            k = len(v) // 2
            forms.append(("concat", f"{v[:k]!r} + {v[k:]!r}"))
        if 0 < len(v) <= 40:
            forms.append(("join", f"''.join({list(v)!r})"))
        forms.append(("reversed_slice", f"{v[::-1]!r}[::-1]"))
        if v and v * 1 == v and len(set(v)) == 1 and len(v) > 1:
            forms.append(("repeat", f"{v[0]!r} * {len(v)}"))
    elif isinstance(v, list):
        if len(v) >= 2:
            forms.append(("concat", f"{_py(v[:1])} + {_py(v[1:])}"))
        forms.append(("list_call", f"list({_py(tuple(v))})"))
    elif isinstance(v, tuple):
        forms.append(("tuple_call", f"tuple({_py(list(v))})"))
    elif isinstance(v, dict):
        forms.append(("dict_call", f"dict({_py(list(v.items()))})"))
        if v and all(isinstance(k, str) and k.isidentifier() for k in v):
            forms.append(("dict_kwargs", "dict(" + ", ".join(f"{k}={_py(x)}" for k, x in v.items()) + ")"))
    elif isinstance(v, set):
        forms.append(("set_call", f"set({_py(list(v))})"))
    elif v is None:
        forms.append(("print_none", "print()"))
    return forms


def wrong_forms(text: str) -> list[tuple[str, str]]:
    """Wrong answers and near misses for the literal ``text``."""
    ok, v = _literal(text)
    forms = [("none", "None")] if text != "None" else [("zero", "0")]
    if not ok:
        return forms + [("string", repr(text))]
    if type(v) is int:
        forms += [("off_by_one", str(v + 1)), ("quoted_int", repr(str(v)))]
    elif type(v) is float:
        forms.append(("shifted", repr(v + 0.5)))
    elif type(v) is bool:
        forms.append(("flipped", str(not v)))
    elif isinstance(v, str):
        forms += [("extra_char", repr(v + "x")), ("unquoted", v if v.strip() and "\n" not in v else "x")]
        if v:
            forms.append(("dropped_char", repr(v[1:])))
        if v.upper() != v:
            forms.append(("case", repr(v.upper())))
        if v != v.strip():
            forms.append(("stripped", repr(v.strip())))
    elif isinstance(v, list):
        forms.append(("as_tuple", _py(tuple(v))))
        if v:
            forms.append(("shorter", _py(v[:-1])))
        if v[::-1] != v:
            forms.append(("reversed", _py(v[::-1])))
    elif isinstance(v, tuple):
        forms.append(("as_list", _py(list(v))))
    elif isinstance(v, dict):
        forms.append(("empty", "{}"))
        if v:
            k = next(iter(v))
            forms.append(("changed_value", _py({**v, k: "changed"})))
    elif isinstance(v, set):
        forms.append(("bigger", _py(v | {999}) if v else "{999}"))
    return forms


# --------------------------------------------------------------------------- wrappers

# {C}: the call, {X}: the answer value text, {W}: a wrong value text
OUTPUT_DIRECT = {
    "plain": "assert {C} == {X}\n[/ANSWER]",
    "no_close": "assert {C} == {X}\n",
    "bare": "{X}\n[/ANSWER]",
    "semicolon": "assert {C} == {X};\n[/ANSWER]",
    "comment": "assert {C} == {X}  # the output\n[/ANSWER]",
    "fenced": "```python\nassert {C} == {X}\n```\n[/ANSWER]",
    "prose_after": "assert {C} == {X}\nThis holds because the loop stops early.\n[/ANSWER]",
    "output_is": "The output is {X}\n[/ANSWER]",
    "answer_prefix": "Answer: {X}\n[/ANSWER]",
    "two_asserts_last_right": "assert {C} == {W}\nassert {C} == {X}\n[/ANSWER]",
    "two_asserts_first_right": "assert {C} == {X}\nassert {C} == {W}\n[/ANSWER]",
    "reasoning_with_eq": "Since len(s) == 3 the result is {X}.\nassert {C} == {X}\n[/ANSWER]",
    "leading_newline": "\nassert {C} == {X}\n[/ANSWER]",
    "reopened_tag": "[ANSWER]\nassert {C} == {X}\n[/ANSWER]",
    "repeats_call": "assert {C} == {C}\n[/ANSWER]",
    "continues": "assert {C} == {X}\n[/ANSWER]\n\n[PYTHON]\ndef g(n):\n    return n\nassert g(1) == ??\n[/PYTHON]\n"
                 "[ANSWER]\nassert g(1) == 1\n[/ANSWER]\n",
    "stop_hash": "assert {C} == {X}\n###\nassert {C} == {W}\n",
    "continues_unclosed": "assert {C} == {X}\n\n[PYTHON]\ndef g(n):\n    return n\n[/PYTHON]\n",
}
OUTPUT_COT = {
    "cot_tags": "Let's execute the code step by step.\nAt the end x == 2 holds.\n[/THOUGHT]\n[ANSWER]\nassert {C} == {X}\n[/ANSWER]",
    "cot_no_answer_tag": "Let's run it. At first the value == {W}.\nassert {C} == {X}\n[/ANSWER]",
    "cot_unclosed_thought": "Step 1: the loop runs twice.\n[ANSWER]\nassert {C} == {X}\n[/ANSWER]",
    "cot_two_blocks": "Done.\n[/THOUGHT]\n[ANSWER]\nassert {C} == {W}\n[/ANSWER]\nWait, recheck.\n[ANSWER]\nassert {C} == {X}\n[/ANSWER]",
    "cot_bare_value": "The function returns it.\n[/THOUGHT]\n[ANSWER]\n{X}\n[/ANSWER]",
    "cot_fenced": "Traced.\n[/THOUGHT]\n[ANSWER]\n```python\nassert {C} == {X}\n```\n[/ANSWER]",
    "cot_prose_in_block": "Traced.\n[/THOUGHT]\n[ANSWER]\nThe output is {X}\n[/ANSWER]",
    "cot_hash": "Traced.\n[/THOUGHT]\n[ANSWER]\nassert {C} == {X}\n[/ANSWER]\n###\n",
}
# {K}: the proposed argument text, {K2}: another one, {O}: the gold output, {W}: a wrong output
INPUT_DIRECT = {
    "plain": "assert f({K}) == {O}\n[/ANSWER]",
    "wrong_claim": "assert f({K}) == {W}\n[/ANSWER]",
    "call_only": "f({K})\n[/ANSWER]",
    "answer_prefix": "Answer: f({K})\n[/ANSWER]",
    "fenced": "```python\nassert f({K}) == {O}\n```\n[/ANSWER]",
    "prose_after": "assert f({K}) == {O}\nThis works because the loop runs once.\n[/ANSWER]",
    "two_asserts": "assert f({K2}) == {O}\nassert f({K}) == {O}\n[/ANSWER]",
    "args_only": "{K}\n[/ANSWER]",
    "reversed": "assert {O} == f({K})\n[/ANSWER]",
    "leading_newline": "\nassert f({K}) == {O}\n[/ANSWER]",
    "no_close": "assert f({K}) == {O}\n",
    "comment": "assert f({K}) == {O}  # one input\n[/ANSWER]",
}
INPUT_COT = {
    "cot_tags": "We work backwards: f(??) == output needs this.\n[/THOUGHT]\n[ANSWER]\nassert f({K}) == {O}\n[/ANSWER]",
    "cot_no_answer_tag": "Work backwards; so x == 3.\nassert f({K}) == {O}\n[/ANSWER]",
    "cot_wrong_claim": "Done.\n[/THOUGHT]\n[ANSWER]\nassert f({K}) == {W}\n[/ANSWER]",
    "cot_call_only": "Done.\n[/THOUGHT]\n[ANSWER]\nf({K})\n[/ANSWER]",
    "cot_two_blocks": "Done.\n[/THOUGHT]\n[ANSWER]\nassert f({K2}) == {O}\n[/ANSWER]\n[ANSWER]\nassert f({K}) == {O}\n[/ANSWER]",
}


def _fill(template: str, **fields: str) -> str:
    for key, value in fields.items():
        template = template.replace("{" + key + "}", value)
    return template


def _pick(rng: random.Random, options: list, k: int) -> list:
    return rng.sample(options, min(k, len(options)))


def _value_choices(text: str) -> list[tuple[str, str]]:
    return ([("eq:" + n, t) for n, t in equal_forms(text)] + [("expr:" + n, t) for n, t in expression_forms(text)]
            + [("wrong:" + n, t) for n, t in wrong_forms(text)])


def output_answers(benchmark: str, docs: list[dict], call_of, per_doc: int, seed: int = SEED) -> list[Answer]:
    """Answers to output-prediction docs (``call_of(doc)``: the call text the prompt shows)."""
    rng = random.Random(f"{seed}-{benchmark}")
    wrappers = [(False, n, t) for n, t in OUTPUT_DIRECT.items()] + [(True, n, t) for n, t in OUTPUT_COT.items()]
    out = []
    for i, doc in enumerate(docs):
        values = _value_choices(doc["output"])
        wrong = [t for n, t in values if n.startswith("wrong:")] or ["None"]
        for j in range(per_doc):
            cot, wname, template = wrappers[(i * per_doc + j) % len(wrappers)]
            vname, value = rng.choice(values)
            generation = _fill(template, C=call_of(doc), X=value, W=rng.choice(wrong))
            out.append(Answer(benchmark, doc["id"], cot, f"{wname}:{vname}", generation))
    return out


def _arguments(call: str) -> list[ast.expr] | None:
    try:
        node = ast.parse(call, mode="eval").body
    except SyntaxError:
        return None
    return node.args if isinstance(node, ast.Call) and not node.keywords else None


def input_variants(doc: dict) -> list[tuple[str, str]]:
    """Argument texts for a CRUXEval doc: the gold in several forms, expression forms, wrong ones."""
    text = doc["input"]
    out = [("gold", text)]
    args = _arguments(f"f({text})")
    if not args:
        return out
    pieces = [ast.get_source_segment(f"f({text})", a) for a in args]
    out.append(("compact", ",".join(p.strip() for p in pieces)))
    for k, piece in enumerate(pieces):
        for kind, forms in (("eq", equal_forms(piece)), ("expr", expression_forms(piece)), ("wrong", wrong_forms(piece))):
            for name, form in forms[1:3] if kind == "eq" else forms[:2]:
                out.append((f"{kind}:{name}@{k}", ", ".join(pieces[:k] + [form] + pieces[k + 1:])))
    try:
        tree = ast.parse(doc["code"])
        fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
        params = [a.arg for a in fn.args.args]
        if len(params) == len(pieces) and not fn.args.vararg and not fn.args.kwonlyargs:
            out.append(("keywords", ", ".join(f"{p}={v}" for p, v in zip(params, pieces))))
    except (StopIteration, SyntaxError):
        pass
    return out


def cruxeval_input_answers(docs: list[dict], per_doc: int, seed: int = SEED) -> list[Answer]:
    rng = random.Random(f"{seed}-cruxeval_i")
    wrappers = [(False, n, t) for n, t in INPUT_DIRECT.items()] + [(True, n, t) for n, t in INPUT_COT.items()]
    out = []
    for i, doc in enumerate(docs):
        variants = input_variants(doc)
        wrong_outputs = [t for _, t in wrong_forms(doc["output"])]
        for j in range(per_doc):
            cot, wname, template = wrappers[(i * per_doc + j) % len(wrappers)]
            vname, value = rng.choice(variants)
            other = rng.choice(variants)[1]
            output = rng.choice([doc["output"]] + [t for _, t in equal_forms(doc["output"])[1:2]])
            generation = _fill(template, K=value, K2=other, O=output, W=rng.choice(wrong_outputs))
            out.append(Answer("cruxeval_i", doc["id"], cot, f"{wname}:{vname}", generation))
    return out


# --------------------------------------------------------------------------- data: CRUXEval, LiveCodeBench, REval


def cruxeval_docs() -> list[dict]:
    from execverify_data.data import cruxeval_records

    return cruxeval_records()


def _humaneval_inputs(problem: dict, limit: int) -> list[str]:
    """Argument texts of the ``candidate(...)`` calls in a HumanEval test (those with positional args)."""
    found = []
    try:
        tree = ast.parse(problem["test"])
    except SyntaxError:
        return found
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "candidate"
                and node.args and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)):
            text = ", ".join(ast.get_source_segment(problem["test"], a) for a in node.args)
            if text not in found and len(text) < 200:
                found.append(text)
    return found[:limit]


def _signature(code: str, entry: str) -> list[str] | None:
    tree = ast.parse(code)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            a = node.args
            if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
                return None
            return [p.arg for p in a.args]
    return None


def lcb_rows(limit_per_problem: int = 4) -> list[dict]:
    """LiveCodeBench-Exec rows (its execution-v2 fields) built from HumanEval problems: keyword
    calls ``name(a = 1)``, the output the interpreter gives, as a literal."""
    from execverify_data.data import humaneval_records
    from execverify_data.trace import trace_call

    rows = []
    for number, problem in enumerate(humaneval_records()):
        code = problem["prompt"] + problem["canonical_solution"]
        entry = problem["entry_point"]
        params = _signature(code, entry)
        if not params:
            continue
        for k, args in enumerate(_humaneval_inputs(problem, limit_per_problem)):
            pieces = _arguments(f"f({args})")
            if pieces is None or len(pieces) != len(params):
                continue
            keyword_call = f"{entry}(" + ", ".join(f"{p} = {ast.get_source_segment(f'f({args})', a)}"
                                                  for p, a in zip(params, pieces)) + ")"
            try:
                trace = trace_call(code, f"{entry}({args})", trusted_call=True, timeout=5.0)
            except Exception:  # noqa: BLE001 - a program that needs the test's imports: left out
                continue
            if trace.output is None or not trace.output.askable or len(trace.output.text) > 300:
                continue
            rows.append({
                "question_id": str(number), "contest_id": "humaneval", "contest_date": "2021-07-07T00:00:00",
                "difficulty": "easy", "function_name": entry, "code": code, "input": keyword_call,
                "output": trace.output.text, "id": f"sample_{len(rows)}", "problem_id": problem["task_id"],
                "numsteps": len(trace.events),
            })
    return rows


_WANTED = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)


def _targets(node: ast.stmt) -> list[str]:
    def name(t: ast.expr) -> str | None:
        if isinstance(t, ast.Name):
            return t.id
        if isinstance(t, ast.Tuple) and all(isinstance(e, ast.Name) for e in t.elts):
            return "(" + ", ".join(e.id for e in t.elts) + ")"
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and isinstance(t.slice, (ast.Name, ast.Constant)):
            return ast.unparse(t)
        return None

    if isinstance(node, ast.Assign):
        found = [name(t) for t in node.targets]
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        found = [name(node.target)]
    elif isinstance(node, ast.Return) and node.value is not None:
        found = [n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)][:1]
    else:
        found = []
    return [f for f in found if f]


def _task_items(code: str, entry: str, rng: random.Random, k: int) -> list[dict]:
    tree = ast.parse(code)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry)
    candidates = []
    for node in ast.walk(fn):
        if isinstance(node, _WANTED) and node.lineno != fn.lineno:
            for var in _targets(node):
                candidates.append({"lineno": node.lineno, "var": var})
    return _pick(rng, candidates, k)


def reval_fixture(seed: int = SEED) -> tuple[list[dict], list[dict]]:
    """A REval checkout's data in its formats (``DREval_data.jsonl`` rows, ``DREval_tasks.jsonl``
    rows) from the HumanEval (up to 3 inputs) and CRUXEval (its input) programs."""
    from execverify_data.data import humaneval_records

    rng = random.Random(f"{seed}-reval")
    data, tasks = [], []

    def add(code: str, entry: str, inputs: list[str], items_per_input: int) -> None:
        try:
            items = _task_items(code, entry, rng, 8)
        except (SyntaxError, StopIteration):
            return
        if not items or not inputs:
            return
        idx = len(data)
        data.append({"task_id": f"Fixture/{idx}", "entry_point": entry, "code": code,
                     "inputs": [f"({a},)" for a in inputs]})
        pairs = []
        for input_idx, args in enumerate(inputs):
            pairs.append({"input_idx": input_idx, "task": _pick(rng, items, items_per_input),
                          "output_pred": f"assert {entry}({args}) == ??"})
        tasks.append({"task_id": f"DREval/{idx}", "idx": idx, "tasks": pairs})

    for problem in humaneval_records():
        code = problem["prompt"] + problem["canonical_solution"]
        add(code, problem["entry_point"], _humaneval_inputs(problem, 3), 3)
    for record in cruxeval_docs():
        add(record["code"], "f", [record["input"]], 3)
    return data, tasks


REVAL_TEMPLATES = {  # prompts in REval's template format (placeholders of its evaluation.py); our text
    "coverage": "[PYTHON]\n{code}\n{invocation}\n[/PYTHON]\nDoes line {line} ({codeline}) run for {invocation_abbr}?\n",
    "state": "[PYTHON]\n{code}\n{invocation}\n[/PYTHON]\nValue and type of {var} after line {line} ({codeline})?\n",
    "path": "[PYTHON]\n{code}\n{invocation}\n[/PYTHON]\nThe line after `{codeline}` for {invocation_abbr}?\n",
    "output": "[PYTHON]\n{code}\n{invocation}\n[/PYTHON]\n",
}


def write_reval_checkout(root: Path, data: list[dict], tasks: list[dict]) -> Path:
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "prompts").mkdir(exist_ok=True)
    for name, rows in (("DREval_data.jsonl", data), ("DREval_tasks.jsonl", tasks)):
        (root / "data" / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for kind, text in REVAL_TEMPLATES.items():
        for style, end in (("direct", "[ANSWER]"), ("cot", "[THOUGHT]")):
            (root / "prompts" / f"{style}_{kind}.txt").write_text(text + end, encoding="utf-8")
    return root


# --------------------------------------------------------------------------- REval answers


def _cot(answer: str, rng: random.Random) -> tuple[str, str]:
    return rng.choice([
        ("cot_tags", f"Let's trace it: x == 1 first.\n[/THOUGHT]\n[ANSWER]\n{answer}\n[/ANSWER]"),
        ("cot_unfinished", f"Let's trace it.\n[ANSWER]\n{answer}\n[/ANSWER]"),
        ("cot_no_tags", f"Traced.\n[/THOUGHT]\n{answer}\n"),
        ("cot_closed_only", f"Traced.\n[/THOUGHT]\n[ANSWER]\n{answer}\n"),
    ])


def _direct(answer: str, rng: random.Random) -> tuple[str, str]:
    return rng.choice([
        ("as_written", f"{answer}\n[/ANSWER]"),
        ("leading_newline", f"\n{answer}\n[/ANSWER]"),
        ("no_close", f"{answer}\n"),
        ("reopened_tag", f"[ANSWER]\n{answer}\n[/ANSWER]"),
        ("leading_newline_no_close", f"\n{answer}\n"),
        ("prose_after", f"{answer}\nBecause the condition holds.\n[/ANSWER]"),
    ])


def _state_values(gold: list | None) -> list:
    return [] if gold is None else list(gold)


def _type_names(value) -> list[str]:
    t = type(value).__name__
    names = [t, f"<class '{t}'>"]
    if t == "str":
        names.append("string")
    if t == "int":
        names.append("integer")
    if t == "list" and value and all(type(x) is int for x in value):
        names.append("List[int]")
    if t == "tuple":
        names.append("(" + ", ".join(type(x).__name__ for x in value) + ")" if value else "tuple")
    if t == "list" and value and isinstance(value[0], list):
        names.append("list[list[int]]")
    return names


def state_answers(gold_value_list, rng: random.Random) -> list[tuple[str, str]]:
    """State answer texts (``value; type`` and Nil forms) for a unit's gold values."""
    values = _state_values(gold_value_list)
    out = [("nil", "Nil"), ("nil_lower", "nil"), ("nil_list", "[Nil]"), ("nil_value", "Nil; NoneType")]
    for value in values[:2]:
        text = repr(value)
        for tname in _type_names(value):
            out.append((f"type:{tname}", f"{text}; {tname}"))
        for name, form in equal_forms(text)[1:] + expression_forms(text):
            out.append((f"value:{name}", f"{form}; {type(value).__name__}"))
        for name, form in wrong_forms(text):
            out.append((f"wrong:{name}", f"{form}; {type(value).__name__}"))
        if isinstance(value, str):
            out.append(("unquoted", f"{value}; str"))
            out.append(("curly_quotes", f"\u2018{value}\u2019; str"))
        if type(value) is int:
            out.append(("int_typed_float", f"{value}; float"))
            out.append(("float_typed_int", f"{value}.0; int"))
        if type(value) is float:
            out.append(("float_close", f"{value + 1e-9!r}; float"))
            out.append(("float_rounded", f"{round(value, 2)!r}; float"))
        out.append(("no_semicolon", text))
        out.append(("other_type_name", f"{text}; collections.deque"))
        out.append(("none_value", "None; int"))
    if not values:
        out += [("value_for_nil", "0; int"), ("none", "None; NoneType")]
    return out


def reval_answers(units: list[dict], per_unit: int, seed: int = SEED) -> list[Answer]:
    """Answers to the coverage, path and state questions of each unit (``per_unit`` of each kind,
    half direct, half CoT) and to each unit pair's output question."""
    rng = random.Random(f"{seed}-reval-answers")
    out: list[Answer] = []
    outputs_done = set()
    for unit in units:
        gold = unit["ref_gold"]
        code_lines = unit["code"].split("\n")
        for k in range(per_unit):
            cot = k % 2 == 1
            # coverage
            answer = rng.choice(["YES", "NO", "yes", "No.", "Yes, it runs.", "The line runs: YES", "YES/NO",
                                 "NOT executed", "maybe", "Y"] + (["YES"] * 3 if gold["coverage"] else ["NO"] * 3))
            wrap, text = _cot(answer, rng) if cot else _direct(answer, rng)
            out.append(Answer("reval_coverage", unit["id"], cot, f"{wrap}:{answer}", text))
            # path
            choices = [("minus_one", "-1")]
            for line in gold["path"]:
                if line > 0:
                    choices += [("next_line", code_lines[line - 1].strip())] * 3
                    choices += [("line_number", str(line)), ("numbered", f"{line}\t{code_lines[line - 1].strip()}"),
                                ("line_prefix", f"Line {line}: {code_lines[line - 1].strip()}")]
            other = rng.choice([t.strip() for t in code_lines if t.strip()] or ["pass"])
            choices.append(("other_line", other))
            name, answer = rng.choice(choices)
            wrap, text = _cot(answer, rng) if cot else _direct(answer, rng)
            out.append(Answer("reval_path", unit["id"], cot, f"{wrap}:{name}", text))
            # state
            name, answer = rng.choice(state_answers(gold["state"], rng))
            wrap, text = _cot(answer, rng) if cot else _direct(answer, rng)
            out.append(Answer("reval_state", unit["id"], cot, f"{wrap}:{name}", text))
        key = (unit["task_id"], unit["pair"])
        if key in outputs_done:
            continue
        outputs_done.add(key)
        question = unit["output_pred"]
        call = question[len("assert "): -len(" == ??")]
        output_text = repr(gold["output"])
        values = _value_choices(output_text)
        for k in range(per_unit + 3):
            cot = k % 2 == 1
            name, value = rng.choice(values)
            form, answer = rng.choice([
                ("assert", f"assert {call} == {value}"), ("assert", f"assert {call} == {value}"),
                ("assert_true", "assert True"), ("value_only", value),
                ("prose_after", f"assert {call} == {value}\nThe output is {value}."),
                ("leading_space", f" assert {call} == {value}"),
                ("two_lines", f"result = {call}\nassert result == {value}"),
                ("reversed", f"assert {value} == {call}"),
                ("fenced", f"```python\nassert {call} == {value}\n```"),
            ])
            wrap, text = _cot(answer, rng) if cot else _direct(answer, rng)
            out.append(Answer("reval_output", f"{unit['task_id']}/{unit['pair']}", cot, f"{wrap}:{form}:{name}", text))
    return out


def main() -> None:  # pragma: no cover - a writer for inspection
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    docs = cruxeval_docs()
    lcb = lcb_rows()
    corpus = (output_answers("cruxeval_o", docs, lambda d: f"f({d['input']})", 8)
              + cruxeval_input_answers(docs, 8) + output_answers("lcb", lcb, lambda d: d["input"], 12))
    (args.out / "lcb.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lcb), encoding="utf-8")
    data, tasks = reval_fixture()
    write_reval_checkout(args.out / "REval", data, tasks)
    (args.out / "corpus.jsonl").write_text("".join(json.dumps(asdict(a)) + "\n" for a in corpus), encoding="utf-8")
    print(f"{len(corpus)} answers, {len(lcb)} LiveCodeBench rows, {len(data)} REval problems -> {args.out}")


if __name__ == "__main__":  # pragma: no cover
    main()
