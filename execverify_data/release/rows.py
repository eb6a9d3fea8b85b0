"""From synthesized program records to the rows of every release config, verified.

:func:`rows_for_shard` is the unit of work of the release's second stage: one synthesis
shard in, the rows of every config out. It is a pure function of the shard's records
and the :class:`~execverify_data.release.config.ReleaseConfig` (it must run with
``PYTHONHASHSEED=0``, as the synthesis workers do, so that set orders in traced
values do not depend on the process).

Per program (``k`` traced inputs), one row per input in each question config:

* ``trace``: white-box questions (io first, then path and state questions;
  ``execverify`` style) with their ``verification``;
* ``sft``: a white-box prompt (other questions than ``trace``'s: another selection seed)
  with a trace-narrated reasoning chain and the answer block as the completion;
* ``io``: output prediction (CRUXEval style);
* ``oi``: input prediction (CRUXEval style);

and one ``codegen`` row:

* ``codegen``: a programming task: the signature and ``n_examples`` input/output examples are
  shown (programming by example), or, for a program with a ``description``, a function to complete
  (HumanEval style: the signature and a docstring holding the description and the examples as
  ``>>>`` lines); hidden ``tests`` come from the other inputs and from fresh draws.

Every row carries its program's ``description`` (``""`` when it has none).

The traces are the ones synthesis made (nothing is traced twice); every row's reference answer
is then scored by the consumers' own functions (:mod:`execverify_data.release.verify`).
"""

from __future__ import annotations

import ast
import json
from collections import Counter

from execverify_data.records import ProgramRecord
from execverify_data.seeds import derive_seed

__all__ = ["QUESTION_CONFIGS", "CONFIGS", "rows_for_program", "codegen_prompt"]

QUESTION_CONFIGS = ("io", "oi", "trace", "sft")
CONFIGS = ("io", "oi", "trace", "sft", "codegen")

CODEGEN_INSTRUCTIONS = (
    "Write a Python function `{signature}` that behaves as these examples show:\n\n{examples}\n\n"
    "Write the complete function (no other code) in a ```python code block."
)
#: The codegen prompt of a program with a description: the function to complete (``{stub}``: its signature and docstring).
CODEGEN_PROBLEM_INSTRUCTIONS = (
    "Complete the Python function `{entry}` below so that it does what its docstring says "
    "(the `>>>` lines are calls and what they return):\n\n```python\n{stub}\n```\n\n"
    "Write the complete function (no other code) in a ```python code block."
)


def _signature(code: str, entry: str, param_types: list[str], output_type: str) -> str:
    tree = ast.parse(code)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            names = [a.arg for a in node.args.args]
            params = ", ".join(f"{n}: {t}" for n, t in zip(names, param_types))
            return f"{entry}({params}) -> {output_type}"
    return f"{entry}(...)"


def _example_call(example: str) -> tuple[str, str]:
    """The call and the value of an example line ``assert CALL == VALUE``.

    >>> _example_call("assert f('a == b', [1]) == 'x'")
    ("f('a == b', [1])", "'x'")
    """
    test = ast.parse(example).body[0].test
    return ast.get_source_segment(example, test.left), ast.get_source_segment(example, test.comparators[0])


def _stub(signature: str, description: str, examples: list[str]) -> str:
    """``def`` + ``signature`` and a docstring: ``description``, then each example as a doctest (``>>> call``, value)."""
    calls = [_example_call(example) for example in examples]
    lines = [*description.strip().splitlines(), "", *(line for call, value in calls for line in (f">>> {call}", value))]
    body = "\n".join(f"    {line}" if line else "" for line in lines)
    return f'def {signature}:\n    """{body[4:]}\n    """'


def codegen_prompt(code: str, entry: str, param_types: list[str], output_type: str, examples: list[str],
                   description: str = "") -> str:
    r"""The ``codegen`` prompt (``examples`` are ``assert CALL == VALUE`` lines).

    Without a ``description``, programming by example: the signature and the examples. With one, a function to
    complete, HumanEval style (:data:`CODEGEN_PROBLEM_INSTRUCTIONS`): in a ```python block, ``def`` and the
    signature, then a docstring holding the description, a blank line and each example as a doctest
    (``>>> f([1])`` and, on the next line, ``1``).

    >>> print(codegen_prompt("def f(xs):\n    return len(xs)\n", "f", ["list[int]"], "int", ["assert f([1]) == 1"]))
    Write a Python function `f(xs: list[int]) -> int` that behaves as these examples show:
    <BLANKLINE>
    assert f([1]) == 1
    <BLANKLINE>
    Write the complete function (no other code) in a ```python code block.
    """
    signature = _signature(code, entry, param_types, output_type)
    if not description.strip():
        return CODEGEN_INSTRUCTIONS.format(signature=signature, examples="\n".join(examples))
    return CODEGEN_PROBLEM_INSTRUCTIONS.format(entry=entry, stub=_stub(signature, description, examples))


def _meta(rec: ProgramRecord, config_seed: int, feats: dict, score: float, bucket: int) -> dict:
    return {"program_id": rec.id, "level": rec.level, "target": rec.target, "code": rec.code,
            "entry_point": rec.entry_point, "description": rec.description, "ast_hash": rec.ast_hash, "difficulty": score, "bucket": bucket,
            "features": feats, "python": rec.python, "generator_version": rec.generator_version, "seed": rec.seed,
            "release_seed": config_seed}


def rows_for_program(rec: ProgramRecord, cfg, traces, trace_many, *, decon=None) -> tuple[dict[str, list[dict]], Counter]:
    """Rows of every config for one program record (not yet verified), and counts of what was skipped.

    ``traces`` are the record's traces as synthesis (or the retrace of given records) made them, one per
    input: nothing is traced twice. ``trace_many`` (``(code, calls) -> traces``, the worker's tracer)
    traces the codegen tests' fresh inputs.
    """
    from execverify_data import difficulty as dif
    from execverify_data.errors import ProgramError
    from execverify_data.questions import from_trace
    from execverify_data.trace import Status

    out: dict[str, list[dict]] = {c: [] for c in CONFIGS}
    counts: Counter = Counter()
    if decon is not None:
        match = decon.check(rec.code)
        if match is not None:
            counts[f"decontam_{match.benchmark}_{match.kind}"] += 1
            return out, counts
    if any(t.status is not Status.OK for t in traces):
        counts["retrace_failed"] += 1
        return out, counts
    code, calls = rec.code, rec.calls
    static = dif.static_features(code, catalog_ids=rec.catalog_ids)
    per_input = []
    for t in traces:
        feats = {**static, **dif.dynamic_features(t)}
        feats = {name: feats[name] for name in dif.FEATURES}
        score = dif.heuristic_score(feats)
        per_input.append(_meta(rec, cfg.seed, feats, score, dif.bucket(score)))

    def question_row(config: str, i: int, rendered, task: str) -> dict:
        return {
            "id": f"{rec.id}-{config}-{i}",
            **per_input[i],
            "call": calls[i],
            "task": task,
            "prompt": rendered.prompt,
            "reference_completion": rendered.reference_completion,
            "question_kinds": [q["kind"] for q in rendered.questions],
            "verification": json.dumps(rendered.verification, ensure_ascii=False, sort_keys=True),
            "expected_output": traces[i].output.text,
            "expected_type": traces[i].output.type,
        }

    try:
        for i, (c, t) in enumerate(zip(calls, traces)):
            for config in ("trace", "sft"):  # another selection seed for each
                r = from_trace(code, c, t, seed=derive_seed(cfg.seed, rec.seed, config, i), n_path=cfg.n_path,
                               n_state=cfg.n_state, rationale=config == "sft", chain_style=cfg.chain_style,
                               notes=_notes(cfg, code, c, t) if config == "sft" else None)
                out[config].append(question_row(config, i, r, "whitebox"))
            r = from_trace(code, c, t, n_path=0, n_state=0, style="cruxeval")
            out["io"].append(question_row("io", i, r, "output"))
            r = from_trace(code, c, t, n_path=0, n_state=0, style="cruxeval", task="input")
            out["oi"].append(question_row("oi", i, r, "input"))
    except ProgramError:
        counts["no_question"] += 1
        return {c: [] for c in CONFIGS}, counts
    out["codegen"] = _codegen(rec, cfg, traces, per_input[rec.row % len(calls)], counts, trace_many)
    for r in out["sft"]:  # TRL's prompt-completion format
        r["completion"] = r.pop("reference_completion")
    return out, counts


def _notes(cfg, code: str, call: str, trace) -> dict:
    """What decided each step of the row's trace (:mod:`execverify_data.decisions`), for an ``explained`` or
    ``compact`` chain: the synthesized program traced again in this process with the notes recorded, used only when
    that run's trace is the row's, digest for digest; none for a ``trace`` chain or a given program (code nobody
    reviewed runs only in the sandbox, which records no notes)."""
    if cfg.chain_style == "trace" or cfg.programs is not None:
        return {}
    from execverify_data.decisions import trace_with_decisions
    from execverify_data.synth.retrace import trace_digest

    again, notes = trace_with_decisions(code, call, max_steps=cfg.max_steps, timeout=cfg.timeout)
    return notes if trace_digest(again) == trace_digest(trace) else {}


def _codegen(rec: ProgramRecord, cfg, traces, meta: dict, counts: Counter, trace_many) -> list[dict]:
    from execverify_data.errors import InvalidArgument
    from execverify_data.inputs import draw_inputs
    from execverify_data.trace import Status
    from execverify_data.values import format_arguments, self_equal

    calls = rec.calls
    pairs = [(c, t.output) for c, t in zip(calls, traces)]
    seen = set(calls)
    try:
        extra = draw_inputs(rec.param_types, derive_seed(cfg.seed, rec.seed, "codegen"), cfg.codegen_extra_inputs,
                            min_size=rec.spec["min_size"], max_size=rec.spec["max_size"], domains=rec.param_domains or None)
    except Exception:  # noqa: BLE001 - a type the sampler cannot draw: no extra tests
        extra = []
    fresh = []
    for args in extra:
        try:
            call = f"{rec.entry_point}({format_arguments(args)})"
        except InvalidArgument:
            continue
        if call not in seen:
            seen.add(call)
            fresh.append(call)
    for call, t in zip(fresh, trace_many(rec.code, fresh) if fresh else []):
        if t.status is Status.OK and t.output is not None and t.output.askable and self_equal(t.output.text):
            pairs.append((call, t.output))
    n_ex = cfg.codegen_examples
    if len(pairs) < n_ex + 1:
        counts["codegen_too_few_tests"] += 1
        return []
    asserts = [f"assert {c} == {v.text}" for c, v in pairs]
    examples, tests = asserts[:n_ex], asserts[n_ex:]
    prompt = codegen_prompt(rec.code, rec.entry_point, rec.param_types, rec.output_types[0], examples, rec.description)
    return [{"id": f"{rec.id}-codegen-0", **meta, "prompt": prompt, "examples": examples, "tests": tests,
             "reference_solution": rec.code}]
