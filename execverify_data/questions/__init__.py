"""Verifiable questions about traced calls: selection, prompt templates, extraction, scoring.

The pieces, in the order data flows through them:

* :func:`select_questions` (``select.py``): questions of five kinds (:class:`Kind`)
  chosen from a program's AST and a :class:`~execverify_data.trace.Trace`;
* :func:`render` (``templates.py``): a prompt in the ``execverify``, ``cruxeval``
  or ``chat`` style, its ``reference_completion`` and its ``verification`` object;
* :func:`answer_lines` (``extract.py``): the answers a completion gives;
* :class:`Scorer` (``scoring.py``): one verdict per question, with
  :func:`execverify_data.values.same` as the only comparison.

:func:`build` runs the whole chain for one program and call (``trace=`` skips the tracing).

>>> r = build("def f(xs):\\n    return sorted(xs)\\n", "f([3, 1])", n_path=0, n_state=0, style="cruxeval")
>>> print(r.reference_completion)
[ANSWER]
assert f([3, 1]) == [1, 3]
[/ANSWER]
"""

from __future__ import annotations

from execverify_data.questions.extract import answer_lines, completion_text
from execverify_data.questions.kinds import FINAL_KINDS, NOT_EXECUTED, STEP_KINDS, Kind, Question
from execverify_data.questions.scoring import OiExecutor, ScoreResult, Scorer, Verification, load_verification
from execverify_data.questions.select import analyze_program, select_questions
from execverify_data.questions.templates import STYLES, TEMPLATE_VERSION, Rendered, question_text, render

__all__ = ["FINAL_KINDS", "NOT_EXECUTED", "STEP_KINDS", "STYLES", "TEMPLATE_VERSION", "Kind", "OiExecutor", "Question",
           "Rendered", "ScoreResult", "Scorer", "Verification", "analyze_program", "answer_lines", "build",
           "completion_text", "from_trace", "load_verification", "question_text", "render", "select_questions"]


def build(source: str, call: str, *, trusted_call: bool = False, trace=None, **options) -> Rendered:
    """Trace ``call`` in this process (unless ``trace``, a trace of it made elsewhere, is given), then
    :func:`from_trace`. ``trusted_call`` as :func:`~execverify_data.trace.trace_call`; ``options`` as :func:`from_trace`.

    Raises:
        ProgramError: the program or call cannot be traced, the call did not finish, or no question can be asked.
    """
    if trace is None:
        from execverify_data.trace import trace_call

        trace = trace_call(source, call, trusted_call=trusted_call)
    return from_trace(source, call, trace, **options)


def from_trace(source: str, call: str, trace, *, seed: int = 0, n_path: int = 2, n_state: int = 2, n_coverage: int = 0,
               task: str = "output", style: str = "execverify", rationale: bool = False, chain_style: str = "trace",
               notes=None) -> Rendered:
    """Questions about ``trace`` (a trace of ``call``: synthesis's, the trusted runner's), selected and rendered;
    nothing runs.

    Args:
        source (`str`): the program text.
        call (`str`): the call, e.g. ``"f([1, 2])"``.
        trace (`Trace`): the trace of ``call``.
        seed, n_path, n_state, n_coverage, task: as :func:`select_questions`.
        style (`str`, optional, defaults to ``"execverify"``): as :func:`render`.
        rationale (`bool`, optional, defaults to `False`): put a step-by-step narrative
            (:func:`execverify_data.rationale.narrate`) before the reference answer block.
        chain_style (`str`, optional, defaults to ``"trace"``), notes (optional): the narrative's ``style`` and
            ``notes`` (what decided each step; :func:`execverify_data.decisions.trace_with_decisions`).

    Raises:
        ProgramError: the call did not finish, or no question can be asked.
    """
    from execverify_data.errors import ProgramError

    questions = select_questions(source, trace, call, seed=seed, n_path=n_path, n_state=n_state, n_coverage=n_coverage,
                                 task=task)
    if not questions:
        raise ProgramError("no question can be asked about this call (its return value has no literal and no step was selected)")
    text = None
    if rationale:
        from execverify_data.rationale import narrate

        text = narrate(source, trace, questions, style=chain_style, notes=notes)
    return render(source, questions, style=style, call=call.strip(), rationale=text)
