"""Public code-problem formats as codegen rows: ``prompt``, ``tests``, ``stdio_tests``, ``entry_point``.

Three formats are read (each checked with :func:`~execverify_data.rewards.unit_tests.validate_tests`,
so a row that could not tell a right program from a wrong one is rejected here, at load):

* ``prime`` (PRIME / Eurus-2-RL-Data): ``prompt`` (chat messages) and ``reward_model.ground_truth``, a JSON
  text ``{"inputs", "outputs"[, "fn_name"]}``;
* ``apps`` (APPS): ``question``, ``starter_code`` and ``input_output`` (the same JSON);
* ``humaneval`` (HumanEval): ``prompt``, ``test`` (``def check(candidate)``) and ``entry_point``.

Without ``fn_name`` each input/output pair is a stdin/stdout case (an input or output given
as a list of lines is joined with newlines). With ``fn_name`` (call-based problems) each
pair becomes ``assert fn_name(*inputs) == output``; as in APPS and PRIME, an output given
as a one-element list also accepts its element (``assert fn(*inputs) in ([v], v)``).

>>> row = {"prompt": [{"role": "user", "content": "Add two numbers."}],
...        "reward_model": {"ground_truth": '{"inputs": ["1 2\\\\n"], "outputs": ["3\\\\n"]}', "style": "rule"}}
>>> to_codegen(row)["stdio_tests"]
[{'stdin': '1 2\\n', 'stdout': '3\\n'}]
>>> to_codegen({"question": "Sum.", "input_output": '{"fn_name": "add", "inputs": [[1, 2]], "outputs": [3]}'},
...            "apps")["tests"]
['assert add(1, 2) == 3']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from execverify_data.errors import InvalidArgument
from execverify_data.rewards.unit_tests import validate_tests

__all__ = ["FORMATS", "from_apps", "from_humaneval", "from_prime", "to_codegen"]


def _lines(value: Any, what: str) -> str:
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "\n".join(value)
    if isinstance(value, str):
        return value
    raise InvalidArgument(f"{what} must be a string or a list of lines, got {type(value).__name__}")


def _cases(ground_truth: Any, source: str) -> tuple[list[str], list[dict], str | None]:
    """``(tests, stdio_tests, entry_point)`` from an ``{"inputs", "outputs"[, "fn_name"]}`` record."""
    if isinstance(ground_truth, str):
        try:
            ground_truth = json.loads(ground_truth)
        except ValueError as exc:
            raise InvalidArgument(f"{source} is not valid JSON ({exc}); it should hold inputs and outputs") from None
    if not isinstance(ground_truth, Mapping):
        raise InvalidArgument(f"{source} must be a JSON object with inputs and outputs, got {type(ground_truth).__name__}")
    inputs, outputs = ground_truth.get("inputs"), ground_truth.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list) or len(inputs) != len(outputs):
        raise InvalidArgument(f"{source} needs lists 'inputs' and 'outputs' of the same length "
                              f"(got {type(inputs).__name__} and {type(outputs).__name__})")
    fn_name = ground_truth.get("fn_name")
    if fn_name is None:
        stdio = [{"stdin": _lines(i, f"input {k} of {source}"), "stdout": _lines(o, f"output {k} of {source}")}
                 for k, (i, o) in enumerate(zip(inputs, outputs))]
        return [], stdio, None
    if not (isinstance(fn_name, str) and fn_name.isidentifier()):
        raise InvalidArgument(f"fn_name of {source} must be a function name, got {fn_name!r}")
    tests = []
    for k, (args, output) in enumerate(zip(inputs, outputs)):
        if not isinstance(args, list):
            raise InvalidArgument(f"input {k} of {source} must be the list of the call's arguments, got {args!r:.60}")
        # the repr of what json.loads built (lists, dicts, numbers...) is its Python source
        call = f"{fn_name}({', '.join(repr(arg) for arg in args)})"
        if isinstance(output, list) and len(output) == 1:
            tests.append(f"assert {call} in ({output!r}, {output[0]!r})")
        else:
            tests.append(f"assert {call} == {output!r}")
    return tests, [], fn_name


def _row(prompt: Any, tests: list[str], stdio: list[dict], entry_point: str | None) -> dict:
    validate_tests(tests, stdio)
    if not tests and not stdio:
        raise InvalidArgument("the problem has no test case: give at least one input/output pair or test")
    return {"prompt": prompt, "tests": tests, "stdio_tests": stdio, "entry_point": entry_point}


def from_prime(row: Mapping) -> dict:
    """A PRIME / Eurus-2-RL-Data code row (``prompt``, ``reward_model.ground_truth``)."""
    reward_model = row.get("reward_model")
    if not isinstance(reward_model, Mapping) or "ground_truth" not in reward_model:
        raise InvalidArgument("a PRIME row needs reward_model.ground_truth (a JSON text with inputs and outputs)")
    tests, stdio, entry_point = _cases(reward_model["ground_truth"], "reward_model.ground_truth")
    return _row(row.get("prompt"), tests, stdio, entry_point)


def from_apps(row: Mapping) -> dict:
    """An APPS row (``question``, ``starter_code``, ``input_output``); the prompt is the question,
    followed by the starter code when there is one."""
    if "input_output" not in row:
        raise InvalidArgument("an APPS row needs input_output (a JSON text with inputs and outputs)")
    tests, stdio, entry_point = _cases(row["input_output"], "input_output")
    prompt = str(row.get("question") or "")
    if row.get("starter_code"):
        prompt = f"{prompt}\n\n{row['starter_code']}"
    return _row(prompt, tests, stdio, entry_point)


def from_humaneval(row: Mapping) -> dict:
    """A HumanEval row (``prompt``, ``test``, ``entry_point``)."""
    for key in ("prompt", "test", "entry_point"):
        if not isinstance(row.get(key), str):
            raise InvalidArgument(f"a HumanEval row needs a string {key!r}")
    return _row(row["prompt"], [row["test"]], [], row["entry_point"])


#: format name -> converter (see the module docs).
FORMATS: dict[str, Callable[[Mapping], dict]] = {"prime": from_prime, "apps": from_apps, "humaneval": from_humaneval}
#: format name -> the columns that tell a row of that format, tried in this order.
_COLUMNS = {"prime": ("reward_model",), "apps": ("input_output",), "humaneval": ("test", "entry_point")}


def to_codegen(row: Mapping, format: str | None = None) -> dict:
    """Convert one row of a public format (detected from its columns when ``format`` is ``None``)
    to the codegen columns ``prompt``, ``tests``, ``stdio_tests``, ``entry_point``.

    Raises:
        ValueError: an unknown format name (the message lists the valid ones).
        InvalidArgument: a malformed row, or tests that :func:`validate_tests` rejects.
    """
    if not isinstance(row, Mapping):
        raise InvalidArgument(f"a row must be a mapping of columns, got {type(row).__name__}")
    name = format or next((fmt for fmt, columns in _COLUMNS.items() if all(c in row for c in columns)), None)
    if name is None:
        raise InvalidArgument(f"cannot tell the format of a row with columns {sorted(row)}; pass format= one of "
                              f"{', '.join(FORMATS)}")
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}; valid names: {', '.join(FORMATS)}")
    return FORMATS[name](row)
