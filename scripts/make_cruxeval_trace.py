"""Make the data files of the CRUXEval-based lm-eval tasks (reproducible: fixed seed, no randomness elsewhere).

Writes, under ``execverify_data/lm_eval_tasks/data/``:

* ``cruxeval_verifications.jsonl``: per CRUXEval ``id``, the ``verification`` objects of
  the output task (``io``) and the input task (``oi``; ``null`` when the input has no
  literal form, e.g. a ``lambda`` argument) and the literal reference call;
* ``cruxeval_trace.jsonl``: the ``execverify_cruxeval_trace`` questions: path, state
  and coverage questions about each of the 800 programs run on its CRUXEval input,
  rendered in the ``execverify`` style.

Usage: ``python scripts/make_cruxeval_trace.py [--seed 0] [--out DIR]``. Ground truth
comes from ``execverify_data.trace.trace_call``; the CRUXEval input is evaluated by the
interpreter (trusted, shipped data) only to find literal arguments for the ``oi`` reference.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from execverify_data.data import cruxeval_records
from execverify_data.errors import ExecVerifyError
from execverify_data.questions import Kind, render, select_questions
from execverify_data.questions.templates import verification_for
from execverify_data.questions.kinds import Question
from execverify_data.trace import trace_call
from execverify_data.values import encode, format_call

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "execverify_data" / "lm_eval_tasks" / "data"


def literal_call(code: str, arguments: str) -> str | None:
    """``f(<literal args>)`` equal to ``f(<arguments>)``, or None when an argument has no literal."""
    namespace: dict = {}
    exec(compile(code, "<cruxeval>", "exec"), namespace)  # trusted: the shipped CRUXEval programs
    args, kwargs = eval(f"(lambda *a, **k: (a, k))({arguments})", namespace)  # noqa: S307 - trusted data
    if not all(encode(a).askable for a in (*args, *kwargs.values())):
        return None
    try:
        return format_call("f", args, kwargs)
    except (ExecVerifyError, ValueError, TypeError):
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    verifications, trace_rows = [], []
    for number, record in enumerate(cruxeval_records()):
        code, call = record["code"], f"f({record['input']})"
        trace = trace_call(code, call, trusted_call=True)
        output = trace.output  # the interpreter's canonical return value
        io = Question(Kind.IO, expected=output, call=call, entry="f")
        row = {"id": record["id"], "o": verification_for(code, [io], "cruxeval")}
        reference = literal_call(code, record["input"])
        if reference is not None:
            oi = Question(Kind.OI, expected=output, call=reference, entry="f")
            row["i"] = verification_for(code, [oi], "cruxeval")
        else:
            row["i"] = None
        row["reference_call"] = reference
        verifications.append(row)
        questions = select_questions(
            code, trace, call, seed=args.seed + number, n_path=2, n_state=2, n_coverage=2, task="output"
        )
        steps = [q for q in questions if q.kind not in (Kind.IO, Kind.OI)]
        if steps:
            rendered = render(code, steps, style="execverify", call=call)
            trace_rows.append(
                {
                    "id": record["id"],
                    "code": code,
                    "input": record["input"],
                    "output": record["output"],
                    "prompt": rendered.prompt,
                    "reference_completion": rendered.reference_completion,
                    "verification": rendered.verification,
                }
            )
    with open(args.out / "cruxeval_verifications.jsonl", "w", encoding="utf-8") as handle:
        for row in verifications:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    with open(args.out / "cruxeval_trace.jsonl", "w", encoding="utf-8") as handle:
        for row in trace_rows:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{len(verifications)} verification rows, {sum(r['i'] is not None for r in verifications)} input rows, "
          f"{len(trace_rows)} trace rows -> {args.out}")


if __name__ == "__main__":
    main()
