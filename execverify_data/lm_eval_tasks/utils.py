"""Glue between lm-eval task YAMLs and ``execverify_data``: datasets, prompts, scoring.

Nothing runs at import time. Two scoring rules (README.md):

* **official** (the tasks named after a benchmark): the benchmark's own answer extraction and
  verdict program (``assert {output} == {answer}``), decided by :mod:`.official`;
* **strict** (the ``*_strict`` variants and the project's own tasks): the project's single
  scorer, :class:`execverify_data.questions.Scorer`, as in the TRL rewards and the release.

Loaders (``custom_dataset``) read their own keys of the task ``metadata`` (``lcb_path``,
``lcb_revision``, ``lcb_limit``, ``release_path``, ``release_repo``); data that must be
downloaded and cannot be raises :class:`DataUnavailable` naming the key to pass.

Prompt strings of CRUXEval (MIT, (c) Meta Platforms) and LiveCodeBench (MIT) are
reproduced verbatim from their repositories for fidelity; see README.md.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "DataUnavailable", "LCB_REVISION", "cruxeval_input_prompt", "cruxeval_input_cot_prompt", "cruxeval_output_prompt",
    "cruxeval_output_cot_prompt", "lcb_output_prompt", "lcb_output_cot_prompt", "load_cruxeval_input",
    "load_cruxeval_input_strict", "load_cruxeval_output", "load_cruxeval_trace", "load_humaneval", "load_lcb_exec",
    "load_lcb_exec_strict", "load_synth_io", "load_synth_oi", "load_synth_trace", "process_cruxeval_input",
    "process_cruxeval_input_cot", "process_cruxeval_output", "process_cruxeval_output_cot", "process_humaneval",
    "process_humaneval_strict", "process_lcb", "process_lcb_cot", "process_results",
]

DATA_DIR = Path(__file__).resolve().parent / "data"

# --------------------------------------------------------------------------- prompts
# CRUXEval prompts (facebookresearch/cruxeval, prompts.py, MIT): verbatim.
_CRUX_OUTPUT = """You are given a Python function and an assertion containing an input to the function. Complete the assertion with a literal (no unsimplified expressions, no function calls) containing the output when executing the provided code on the given input, even if the function is incorrect or incomplete. Do NOT output any extra information. Provide the full assertion with the correct output in [ANSWER] and [/ANSWER] tags, following the examples.

[PYTHON]
def f(n):
    return n
assert f(17) == ??
[/PYTHON]
[ANSWER]
assert f(17) == 17
[/ANSWER]

[PYTHON]
def f(s):
    return s + "a"
assert f("x9j") == ??
[/PYTHON]
[ANSWER]
assert f("x9j") == "x9ja"
[/ANSWER]

[PYTHON]
{code}
assert f({input}) == ??
[/PYTHON]
[ANSWER]
"""

_CRUX_OUTPUT_COT = """You are given a Python function and an assertion containing an input to the function. Complete the assertion with a literal (no unsimplified expressions, no function calls) containing the output when executing the provided code on the given input, even if the function is incorrect or incomplete. Do NOT output any extra information. Execute the program step by step before arriving at an answer, and provide the full assertion with the correct output in [ANSWER] and [/ANSWER] tags, following the examples.

[PYTHON]
def f(s):
    s = s + s
    return "b" + s + "a"
assert f("hi") == ??
[/PYTHON]
[THOUGHT]
Let's execute the code step by step:

1. The function f is defined, which takes a single argument s.
2. The function is called with the argument "hi", so within the function, s is initially "hi".
3. Inside the function, s is concatenated with itself, so s becomes "hihi".
4. The function then returns a new string that starts with "b", followed by the value of s (which is now "hihi"), and ends with "a".
5. The return value of the function is therefore "bhihia".
[/THOUGHT]
[ANSWER]
assert f("hi") == "bhihia"
[/ANSWER]

[PYTHON]
{code}
assert f({input}) == ??
[/PYTHON]
[THOUGHT]
"""

_CRUX_INPUT = """You will be given a function f and an output in the form f(??) == output. Find any input such that executing f on the input leads to the given output. There may be multiple answers, but you should only output one. In [ANSWER] and [/ANSWER] tags, complete the assertion with one such input that will produce the output when executing the function.

[PYTHON]
def f(my_list):
    count = 0
    for i in my_list:
        if len(i) % 2 == 0:
            count += 1
    return count
assert f(??) == 3
[/PYTHON]
[ANSWER]
assert f(["mq", "px", "zy"]) == 3
[/ANSWER]

[PYTHON]
def f(s1, s2):
    return s1 + s2
assert f(??) == "banana"
[/PYTHON]
[ANSWER]
assert f("ba", "nana") == "banana"
[/ANSWER]

[PYTHON]
{code}
assert f(??) == {output}
[/PYTHON]
[ANSWER]
"""

_CRUX_INPUT_COT = """You will be given a function f and an output in the form f(??) == output. Your task is to find any input such that executing f on the input leads to the given output. There may be multiple answers, but only output one. First, think step by step. You MUST surround the answer with [ANSWER] and [/ANSWER] tags. Express your answer as a passing assertion containing the input and the given output.

[PYTHON]
def f(x):
    return x + 1
assert f(??) == 17
[/PYTHON]
[THOUGHT]
To find an input such that executing f on the input leads to the given output, we can work backwards from the given assertion. We know that f(??) == 17. 

Since the function f(x) returns x + 1, for f(??) to be equal to 17, the value of ?? should be 16. 
[/THOUGHT]
[ANSWER]
assert f(16) == 17
[/ANSWER]

[PYTHON]
{code}
assert f(??) == {output}
[/PYTHON]
[THOUGHT]
"""

# LiveCodeBench code-execution prompts (LiveCodeBench/LiveCodeBench, lcb_runner/prompts/code_execution.py, MIT): verbatim.
_LCB_OUTPUT = """You are given a Python function and an assertion containing an input to the function. Complete the assertion with a literal (no unsimplified expressions, no function calls) containing the output when executing the provided code on the given input, even if the function is incorrect or incomplete. Do NOT output any extra information. Provide the full assertion with the correct output in [ANSWER] and [/ANSWER] tags, following the examples.

[PYTHON]
def repeatNumber(number : int) -> int:
    return number
assert repeatNumber(number = 17) == ??
[/PYTHON]
[ANSWER]
assert repeatNumber(number = 17) == 17
[/ANSWER]

[PYTHON]
def addCharacterA(string : str) -> str:
    return string + "a"
assert addCharacterA(string = "x9j") == ??
[/PYTHON]
[ANSWER]
assert addCharacterA(string = "x9j") == "x9ja"
[/ANSWER]

[PYTHON]
{code}
assert {input} == ??
[/PYTHON]
[ANSWER]
"""

_LCB_OUTPUT_COT = """You are given a Python function and an assertion containing an input to the function. Complete the assertion with a literal (no unsimplified expressions, no function calls) containing the output when executing the provided code on the given input, even if the function is incorrect or incomplete. Do NOT output any extra information. Execute the program step by step before arriving at an answer, and provide the full assertion with the correct output in [ANSWER] and [/ANSWER] tags, following the examples.

[PYTHON]
def performOperation(s):
    s = s + s
    return "b" + s + "a"
assert performOperation(s = "hi") == ??
[/PYTHON]
[THOUGHT]
Let's execute the code step by step:

1. The function performOperation is defined, which takes a single argument s.
2. The function is called with the argument "hi", so within the function, s is initially "hi".
3. Inside the function, s is concatenated with itself, so s becomes "hihi".
4. The function then returns a new string that starts with "b", followed by the value of s (which is now "hihi"), and ends with "a".
5. The return value of the function is therefore "bhihia".
[/THOUGHT]
[ANSWER]
assert performOperation(s = "hi") == "bhihia"
[/ANSWER]

[PYTHON]
{code}
assert {input} == ??
[/PYTHON]
[THOUGHT]
"""


def _prompt(name: str, template: str, field: str):
    def prompt(doc: dict) -> str:
        """lm-eval ``doc_to_text``: the upstream template filled with the doc's ``code`` and ``input``/``output``."""
        return template.format(code=doc["code"], **{field: doc[field]})

    prompt.__name__ = name
    return prompt


cruxeval_output_prompt = _prompt("cruxeval_output_prompt", _CRUX_OUTPUT, "input")
cruxeval_output_cot_prompt = _prompt("cruxeval_output_cot_prompt", _CRUX_OUTPUT_COT, "input")
cruxeval_input_prompt = _prompt("cruxeval_input_prompt", _CRUX_INPUT, "output")
cruxeval_input_cot_prompt = _prompt("cruxeval_input_cot_prompt", _CRUX_INPUT_COT, "output")
lcb_output_prompt = _prompt("lcb_output_prompt", _LCB_OUTPUT, "input")
lcb_output_cot_prompt = _prompt("lcb_output_cot_prompt", _LCB_OUTPUT_COT, "input")


# --------------------------------------------------------------------------- scoring


@lru_cache(maxsize=1)
def _scorer():
    from execverify_data.questions import Scorer

    return Scorer()


def score(verification: Any, completion: Any):
    """The project's verdicts (:class:`~execverify_data.questions.ScoreResult`) for one completion."""
    return _scorer().score(verification, completion)


def process_results(doc: dict, results: list) -> dict[str, float]:
    """lm-eval ``process_results``: ``acc`` (every question right) and ``question_acc``
    (fraction of the doc's questions right; equal to ``acc`` for one-question docs)."""
    correct = score(doc["verification"], results[0] if results else "").correct
    return {"acc": float(all(correct)), "question_acc": sum(correct) / len(correct)}


def _completion(results: list) -> str:
    completion = results[0] if results else ""
    return completion if isinstance(completion, str) else str(completion)


def _official_processor(name: str, check: str, cot: bool, **task: str):
    def process(doc: dict, results: list) -> dict[str, float]:
        """lm-eval ``process_results`` of an official task: ``acc`` by the benchmark's own answer
        extraction and ``assert`` program (:mod:`.official`; 0 where upstream scores it 0 unrun)."""
        from execverify_data.lm_eval_tasks import official

        made = getattr(official, check)(doc["code"], doc["input"], doc["output"], _completion(results), cot=cot, **task)
        return {"acc": float(made is not None and official.passes([made])[0])}

    process.__name__ = name
    return process


process_cruxeval_output = _official_processor("process_cruxeval_output", "cruxeval_check", False, task="output")
process_cruxeval_output_cot = _official_processor("process_cruxeval_output_cot", "cruxeval_check", True, task="output")
process_cruxeval_input = _official_processor("process_cruxeval_input", "cruxeval_check", False, task="input")
process_cruxeval_input_cot = _official_processor("process_cruxeval_input_cot", "cruxeval_check", True, task="input")
process_lcb = _official_processor("process_lcb", "lcb_check", False)
process_lcb_cot = _official_processor("process_lcb_cot", "lcb_check", True)


class DataUnavailable(SystemExit):
    """Data a loader must download cannot be downloaded: one line naming the ``--metadata`` key to pass.

    A ``SystemExit`` because lm-eval's command line does not catch errors of task loaders (any other
    exception ends in a long traceback); this one prints its line and exits with status 1.
    """

    def __init__(self, message: str):
        super().__init__(message)  # str(exc) and exc.code: the message
        self.message = message


def download(what: str, key: str, example: str, fetch):
    """``fetch()``; a network or Hub error becomes :class:`DataUnavailable` naming ``--metadata``.

    >>> def offline():
    ...     raise ConnectionError("Couldn't reach 'x' on the Hub (OfflineModeIsEnabled)")
    >>> download("LiveCodeBench-Exec (livecodebench/execution-v2)", "lcb_path", '"execution-v2.jsonl"', offline)
    Traceback (most recent call last):
    ...
    execverify_data.lm_eval_tasks.utils.DataUnavailable: cannot download LiveCodeBench-Exec (livecodebench/execution-v2): ConnectionError: Couldn't reach 'x' on the Hub (OfflineModeIsEnabled); pass a local copy: --metadata '{"lcb_path": "execution-v2.jsonl"}'
    """
    try:
        return fetch()
    except (ConnectionError, TimeoutError, OSError) as exc:  # datasets, huggingface_hub, requests, urllib
        reason = " ".join(str(exc).split())[:200]
        raise DataUnavailable(
            f"cannot download {what}: {type(exc).__name__}: {reason}; pass a local copy: --metadata '{{\"{key}\": {example}}}'"
        ) from None


def as_dataset(rows: list[dict]):
    import datasets

    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def _read_jsonl(path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _read_table(path: str | Path) -> list[dict]:
    """Rows of a local jsonl/json/parquet file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist; pass an existing jsonl, json or parquet file")
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, list) else data.get("data", data.get("rows", []))
    return _read_jsonl(path)


# --------------------------------------------------------------------------- CRUXEval


def _crux_rows(kind: str, strict: bool) -> list[dict]:
    """CRUXEval docs. Official rows keep the data as CRUXEval has it (800 for both tasks); strict
    rows carry the project's ``verification`` (input task: 798, two inputs hold a ``lambda``)."""
    from execverify_data.data import cruxeval_records

    verifications = {row["id"]: row for row in _read_jsonl(DATA_DIR / "cruxeval_verifications.jsonl")}
    rows = []
    for record in cruxeval_records():
        extra = verifications[record["id"]]
        verification = extra["o"] if kind == "o" else extra["i"]
        row = {"id": record["id"], "code": record["code"], "input": record["input"], "output": record["output"]}
        if not strict:
            reference = f"assert f({record['input']}) == {record['output']}"
        elif verification is None:
            continue  # no literal input exists (a lambda argument): the strict input task cannot score it
        else:
            call = f"f({record['input']})" if kind == "o" else extra["reference_call"]
            reference = f"assert {call} == {verification['questions'][0]['expected']['text']}"
        if verification:  # the strict rule's, on CRUXEval's verdict, an assert: floats compared by Python's ==
            verification = {**verification, "floats": "exact"}
        row["verification"] = json.dumps(verification, ensure_ascii=False) if verification else ""
        row["reference"] = reference + "\n[/ANSWER]"
        rows.append(row)
    return rows


def load_cruxeval_output(**metadata) -> Any:
    """The 800 CRUXEval output-prediction docs (``id``, ``code``, ``input``, ``output``)."""
    return as_dataset(_crux_rows("o", strict=False))


def load_cruxeval_input(**metadata) -> Any:
    """The 800 CRUXEval input-prediction docs, as CRUXEval scores them (inputs may be expressions)."""
    return as_dataset(_crux_rows("i", strict=False))


def load_cruxeval_input_strict(**metadata) -> Any:
    """The CRUXEval input-prediction docs the strict rule can score (798 of 800: two inputs hold a ``lambda``)."""
    return as_dataset(_crux_rows("i", strict=True))


def load_cruxeval_trace(**metadata) -> Any:
    """Path, state and coverage questions over the 800 CRUXEval programs (scripts/make_cruxeval_trace.py)."""
    rows = _read_jsonl(DATA_DIR / "cruxeval_trace.jsonl")
    for row in rows:
        row["verification"] = json.dumps(row["verification"], ensure_ascii=False)
        row["reference"] = row.pop("reference_completion")
    return as_dataset(rows)


# --------------------------------------------------------------------------- LiveCodeBench


LCB_HUB_ID = "livecodebench/execution-v2"
#: The Hub commit of ``livecodebench/execution-v2`` the task reads (main on 2024-06-13, 479 rows).
LCB_REVISION = "e3bbac6d5da0043c4a0b4e4f4b678f1f6497cc86"


def _lcb_verification(row: dict) -> dict | None:
    from execverify_data.errors import ExecVerifyError
    from execverify_data.questions import Kind, Question
    from execverify_data.questions.templates import verification_for
    from execverify_data.values import encode, parse

    try:
        expected = encode(parse(row["output"]))
    except (ExecVerifyError, ValueError, TypeError, RecursionError):
        return None
    if not expected.askable:
        return None
    entry = row.get("function_name") or row["input"].split("(", 1)[0].strip() or "f"
    question = Question(Kind.IO, expected=expected, call=row["input"], entry=entry)
    return verification_for(row["code"], [question], "cruxeval", exact_floats=True)  # an assert decides upstream


def _lcb_records(lcb_path: str | None, lcb_revision: str) -> list[dict]:
    if lcb_path:
        return _read_table(lcb_path)

    def fetch():
        import datasets

        return datasets.load_dataset(LCB_HUB_ID, split="test", revision=lcb_revision).to_list()

    return download(f"LiveCodeBench-Exec ({LCB_HUB_ID} at {lcb_revision[:7]})", "lcb_path", '"execution-v2.jsonl"', fetch)


def _lcb_rows(lcb_path: str | None, lcb_limit: Any, lcb_revision: str, strict: bool) -> list[dict]:
    records = _lcb_records(lcb_path, lcb_revision)
    rows = []
    for record in records if lcb_limit is None else records[: int(lcb_limit)]:
        verification = _lcb_verification(record)
        if strict and verification is None:
            continue  # the strict rule needs a literal output
        rows.append({"id": str(record.get("id", record.get("question_id", len(rows)))),
                     "question_id": str(record.get("question_id", "")),
                     "function_name": record.get("function_name", ""), "code": record["code"],
                     "input": record["input"], "output": record["output"],
                     "verification": json.dumps(verification, ensure_ascii=False) if verification else "",
                     "reference": f"assert {record['input']} == {record['output']}\n[/ANSWER]"})
    return rows


def load_lcb_exec(lcb_path: str | None = None, lcb_limit: int | None = None, lcb_revision: str = LCB_REVISION,
                  **metadata) -> Any:
    """LiveCodeBench code-execution docs: ``lcb_path`` (local file) or the Hub dataset at ``lcb_revision``."""
    return as_dataset(_lcb_rows(lcb_path, lcb_limit, lcb_revision, strict=False))


def load_lcb_exec_strict(lcb_path: str | None = None, lcb_limit: int | None = None, lcb_revision: str = LCB_REVISION,
                         **metadata) -> Any:
    """As :func:`load_lcb_exec`, without the rows whose output is not a literal (the strict rule cannot score them)."""
    return as_dataset(_lcb_rows(lcb_path, lcb_limit, lcb_revision, strict=True))


# --------------------------------------------------------------------------- the release (synth)

RELEASE_HUB_ID = "execverify/execverify"  # the default repo_id of execverify_data.release


def _prompt_text(prompt: Any) -> str:
    """A prompt column as text: a string, or chat messages joined (system, then user)."""
    if isinstance(prompt, str):
        if not prompt.startswith("[{"):
            return prompt
        try:
            messages = json.loads(prompt)
        except ValueError:
            return prompt
        if not (isinstance(messages, list) and all(isinstance(m, dict) for m in messages)):
            return prompt
        prompt = messages
    if isinstance(prompt, list):
        return "\n\n".join(str(m.get("content", "")) for m in prompt if isinstance(m, dict))
    return str(prompt)


def _release_records(part: str, release_path: str | None, release_repo: str) -> tuple[list[dict], bool]:
    """The test rows of config ``part`` (``<config>/test-*.parquet`` of a release folder; any other
    folder or file read whole, files whose path contains ``test``) and whether they need filtering."""
    if not release_path:

        def fetch():
            import datasets

            return datasets.load_dataset(release_repo, part, split="test").to_list()

        return download(f"the release's {part} test split ({release_repo})", "release_path", '"RELEASE_DIR"', fetch), False
    path = Path(release_path)
    if path.is_dir() and (path / part).is_dir():
        files = sorted(f for f in (path / part).iterdir() if f.name.startswith("test") and f.suffix in (".parquet", ".jsonl"))
        if not files:
            raise DataUnavailable(f"the release folder {path} has no test split of {part} ({path / part}/test-*.parquet); "
                                  "rebuild it with a larger --test-share or more --n examples")
        return [row for f in files for row in _read_table(f)], False
    if path.is_file():
        files = [path]
    elif path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in (".parquet", ".jsonl") and "test" in p.relative_to(path).as_posix())
    else:
        raise FileNotFoundError(f"release_path {path} is neither a file nor a folder")
    if not files:
        raise DataUnavailable(f"no test split (*test*.parquet or *test*.jsonl) under {path}; pass a release folder built "
                              "with a test split (build-release --test-share)")
    return [row for f in files for row in _read_table(f)], True


def _wanted(part: str, kinds: set) -> bool:
    from execverify_data.questions import Kind

    if part == "io":
        return kinds == {Kind.IO}
    if part == "oi":
        return Kind.OI in kinds
    return bool(kinds - {Kind.IO, Kind.OI})  # trace: step questions (with or without the output question)


def _synth_rows(part: str, release_path: str | None, release_repo: str) -> list[dict]:
    from execverify_data.questions import load_verification

    records, mixed = _release_records(part, release_path, release_repo)
    rows = []
    for number, record in enumerate(records):
        raw = record.get("verification")
        if not raw:
            continue  # codegen rows have tests, not questions
        verification = load_verification(raw)
        if mixed and not _wanted(part, set(verification.kinds)):
            continue
        rows.append({"id": str(record.get("id", number)), "prompt": _prompt_text(record["prompt"]),
                     "verification": raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False),
                     "reference": _prompt_text(record.get("reference_completion") or record.get("completion") or ""),
                     "style": verification.style})
    return rows


def load_synth_io(release_path: str | None = None, release_repo: str = RELEASE_HUB_ID, **metadata) -> Any:
    """Test split of the release's ``io`` config (output prediction, CRUXEval format)."""
    return as_dataset(_synth_rows("io", release_path, release_repo))


def load_synth_oi(release_path: str | None = None, release_repo: str = RELEASE_HUB_ID, **metadata) -> Any:
    """Test split of the release's ``oi`` config (input prediction, CRUXEval format)."""
    return as_dataset(_synth_rows("oi", release_path, release_repo))


def load_synth_trace(release_path: str | None = None, release_repo: str = RELEASE_HUB_ID, **metadata) -> Any:
    """Test split of the release's ``trace`` config (output, next-line, state questions)."""
    return as_dataset(_synth_rows("trace", release_path, release_repo))


def synth_final_results(doc: dict, results: list) -> dict[str, float]:
    """``acc``: the final (io/oi) answer; ``question_acc``: all questions of the row."""
    result = score(doc["verification"], results[0] if results else "")
    return {"acc": float(bool(result.final_correct)), "question_acc": sum(result.correct) / len(result.correct)}


# --------------------------------------------------------------------------- HumanEval

def load_humaneval(**metadata) -> Any:
    """The 164 HumanEval problems shipped with the package (MIT)."""
    from execverify_data.data import humaneval_records

    return as_dataset([dict(r, reference=r["canonical_solution"]) for r in humaneval_records()])


def humaneval_prompt(doc: dict) -> str:
    return doc["prompt"]


def process_humaneval(doc: dict, results: list) -> dict[str, float]:
    """pass@1 of one greedy completion as HumanEval's ``check_correctness`` defines it: the program
    ``prompt + completion + "\\n" + test + "\\n" + f"check({entry_point})"`` runs without an
    exception within 3 s. It runs in the untrusted sandbox's test mode: the completion in one
    child, the test (``check(candidate)``) in another that never runs model code."""
    from execverify_data.lm_eval_tasks.official import UPSTREAM_TIMEOUT
    from execverify_data.sandbox import Status, run_untrusted

    program = doc["prompt"] + _completion(results)
    test = doc["test"] + "\n" + f"check({doc['entry_point']})"
    result = run_untrusted(program, test=test, timeout=UPSTREAM_TIMEOUT, memory_mb=1024)
    return {"pass@1": float(result.status is Status.OK and result.test_passed is True)}


def process_humaneval_strict(doc: dict, results: list) -> dict[str, float]:
    """pass@1 of one greedy completion cut at its first code fence (text a chat model writes after
    the function), run by :func:`execverify_data.rewards.unit_test_reward` (5 s)."""
    from execverify_data.rewards import unit_test_reward

    program = doc["prompt"] + _completion(results).split("```")[0]
    reward = unit_test_reward(completions=["```python\n" + program + "\n```"], tests=[[doc["test"]]],
                              entry_point=[doc["entry_point"]])
    return {"pass@1": float(reward[0] or 0.0)}
