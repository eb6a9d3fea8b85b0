"""Every prompt template of the question layer, in one place and versioned.

Four styles (:data:`STYLES`; ``docs/questions.md``, "Templates", shows each): ``execverify``
(numbered code and questions, one answer per line in ``<answer>``), ``cruxeval`` (one
``io``/``oi`` assertion to complete), ``chat`` (the ``execverify`` prompt as messages) and
``reasoning`` (the paper's RL form: ``<reasoning>`` then ``<answer>``).

Change any text here and :data:`TEMPLATE_VERSION` must change with it; it is
stored in every ``verification`` object and dataset row. (Adding the
``reasoning`` style changed no text of the other three, so it did not.)

>>> from execverify_data.values import encode
>>> q = Question(Kind.IO, expected=encode(8), call="f(3)", entry="f")
>>> r = render("def f(x):\\n    return 2 * x + 2\\n", [q], style="cruxeval")
>>> print(r.reference_completion)
[ANSWER]
assert f(3) == 8
[/ANSWER]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from execverify_data.errors import InvalidArgument
from execverify_data.questions.kinds import FINAL_KINDS, NOT_EXECUTED, Kind, Question

__all__ = ["FLOAT_RULES", "STYLES", "TEMPLATE_VERSION", "VERIFICATION_FORMAT", "Rendered", "answer_block", "codegen_messages",
           "number_lines", "ordinal", "question_text", "render", "verification_for"]

#: Version of every text in this module; bump it on any change of a prompt or answer form.
TEMPLATE_VERSION = "1.0"
#: Marks a ``verification`` object made by this module.
VERIFICATION_FORMAT = "execverify-questions/1"
#: The prompt styles.
STYLES = ("execverify", "cruxeval", "chat", "reasoning")
#: A verification's ``floats`` rule: ``close`` (the default, the project's own questions: ``docs/values.md``) or
#: ``exact`` (Python's ``==``, for the tasks named after a benchmark)
FLOAT_RULES = ("close", "exact")

ANSWER_OPEN, ANSWER_CLOSE = "<answer>", "</answer>"
CRUX_OPEN, CRUX_CLOSE = "[ANSWER]", "[/ANSWER]"

EXECVERIFY_INSTRUCTIONS = (
    "You are given a Python program whose lines are numbered, and a call of one of its functions. "
    "Simulate the execution of the call and answer every question below. "
    "Line numbers refer to the numbers on the left. "
    "\"The k-th execution of line N\" counts every time line N runs during the call, in any function call. "
    "Write every value as a Python literal (no expressions, no function calls except "
    "set(), frozenset(), float('nan'), float('inf') and the like for values that have no other literal)."
)
EXECVERIFY_FOOTER = (
    "Reason step by step if you like. Then write the answers, one per line and in the order of the questions, "
    "between {open} and {close}, for example:\n{open}\nanswer to question 1\nanswer to question 2\n{close}"
)
SYSTEM_MESSAGE = "You simulate Python programs exactly, line by line, the way the CPython interpreter runs them."
REASONING_OPEN, REASONING_CLOSE = "<reasoning>", "</reasoning>"
#: The system message of the ``reasoning`` style: the one of the paper's RL data (Stage I and Stage II).
REASONING_SYSTEM_MESSAGE = "You are a programming expert."
REASONING_FOOTER = (
    "Think it through step by step between {ropen} and {rclose}. After that, write the answers, one per line "
    "and in the order of the questions, between {open} and {close}. The response must have this shape:\n"
    "{ropen}\n(the step-by-step simulation)\n{rclose}\n{open}\nanswer to question 1\nanswer to question 2\n{close}"
)
#: The Stage II (code generation) wrapper of the ``reasoning`` style: the paper's form, code in the answer block.
REASONING_CODEGEN = (
    "Solve this programming problem in Python.\n\n{problem}\n\n"
    "Check your program against the example inputs and outputs of the problem before answering. "
    "The response must have this shape:\n"
    "{ropen}\n(the step-by-step reasoning)\n{rclose}\n{open}\n```python\n(the complete program)\n```\n{close}\n"
)

CRUX_OUTPUT_INSTRUCTIONS = (
    "You are given a Python function and an assertion that calls it. Complete the assertion with the literal "
    "value the call returns (no expressions, no function calls), even if the function looks wrong. "
    "Write the completed assertion between {open} and {close}."
)
CRUX_INPUT_INSTRUCTIONS = (
    "You are given a Python function and the value it must return. Find any arguments with which the call "
    "returns that value; several may work, give one. Write a passing assertion with literal arguments "
    "between {open} and {close}."
)
CRUX_EXAMPLE_OUTPUT = "[PYTHON]\ndef g(s):\n    return s.upper() + '!'\nassert g('ok') == ??\n[/PYTHON]\n[ANSWER]\nassert g('ok') == 'OK!'\n[/ANSWER]"
CRUX_EXAMPLE_INPUT = "[PYTHON]\ndef g(n):\n    return n * 3\nassert g(??) == 12\n[/PYTHON]\n[ANSWER]\nassert g(4) == 12\n[/ANSWER]"


def ordinal(k: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``... ``11th``, ``21st``."""
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def question_text(question: Question) -> str:
    """The text of one question in the ``execverify`` and ``chat`` styles.

    >>> from execverify_data.values import encode
    >>> question_text(Question(Kind.PATH, line=4, k=2, expected=encode(5)))
    'Which line is executed immediately after the 2nd execution of line 4? Answer with a line number, or -1 if no line follows it or line 4 is not executed 2 times.'
    """
    kind = question.kind
    if kind is Kind.IO:
        return f"What value does `{question.call}` return? Answer with a Python literal."
    if kind is Kind.OI:
        return (
            f"Give a call of `{question.entry}` with literal arguments that returns `{question.expected.text}`. "  # type: ignore[union-attr]
            f"Answer with the call, such as `{question.entry}(...)`."
        )
    if kind is Kind.COVERAGE:
        return f"Is line {question.line} executed during the call? Answer True or False."
    nth = ordinal(question.k)  # type: ignore[arg-type]
    times = "once" if question.k == 1 else f"{question.k} times"
    if kind is Kind.PATH:
        return (f"Which line is executed immediately after the {nth} execution of line {question.line}? Answer with "
                f"a line number, or -1 if no line follows it or line {question.line} is not executed {times}.")
    return (f"What are the value and the type of variable `{question.var}` right after the {nth} execution of line "
            f"{question.line}? Answer as `value; type` (for example `[1, 2]; list`), or `{NOT_EXECUTED}` "
            f"if line {question.line} is not executed {times}.")


def number_lines(source: str) -> str:
    """The program with right-aligned line numbers, as shown in the ``execverify`` style.

    >>> print(number_lines("def f(x):\\n    return x\\n"))
    1 def f(x):
    2     return x
    """
    lines = source.rstrip("\n").split("\n")
    width = len(str(len(lines)))
    return "\n".join(f"{n:>{width}} {text}".rstrip() for n, text in enumerate(lines, 1))


def answer_block(answers: list[str], style: str) -> str:
    """The closing answer block a perfect model writes for ``answers`` (already formatted lines)."""
    opening, closing = (CRUX_OPEN, CRUX_CLOSE) if style == "cruxeval" else (ANSWER_OPEN, ANSWER_CLOSE)
    return f"{opening}\n" + "\n".join(answers) + f"\n{closing}"


def reference_answers(questions: list[Question], style: str) -> list[str]:
    """The answer lines of a perfect completion, one per question."""
    if style == "cruxeval":
        return [f"assert {q.call} == {q.expected.text}" for q in questions]  # type: ignore[union-attr]
    return [q.reference_answer for q in questions]


@dataclass(frozen=True)
class Rendered:
    """A rendered prompt with everything needed to check answers to it.

    Attributes:
        prompt (`str` or `list[dict]`): the prompt text, or chat messages for the ``chat`` style.
        questions (`list[dict]`): one ``{"kind", "text", "reference_answer"}`` per question,
            in order; ``reference_answer`` is that question's line of the reference completion.
        reference_completion (`str`): the exact text a perfect model would write.
        verification (`dict`): the JSON-serialisable object rewards and scorers read.
    """

    prompt: str | list[dict[str, str]]
    questions: list[dict[str, str]]
    reference_completion: str
    verification: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The four fields as a dict, in order."""
        return dict(self.__dict__)


def verification_for(source: str, questions: list[Question], style: str, *, exact_floats: bool = False) -> dict[str, Any]:
    """The ``verification`` object: format, versions, style, questions with canonical answers,
    (only when an ``oi`` question needs to run it) the program, and (only when ``exact_floats``, for a task
    named after a benchmark) ``"floats": "exact"``: floats compared as Python's ``==`` compares them."""
    data: dict[str, Any] = {
        "format": VERIFICATION_FORMAT,
        "template_version": TEMPLATE_VERSION,
        "style": style,
        "questions": [q.to_json() for q in questions],
    }
    if any(q.kind is Kind.OI for q in questions):
        data["program"] = source
    if exact_floats:
        data["floats"] = "exact"
    return data


def _check(source: str, questions: list[Question], style: str) -> None:
    if style not in STYLES:
        raise InvalidArgument(f"unknown style {style!r}; choose one of {', '.join(STYLES)}")
    if not isinstance(source, str):
        raise InvalidArgument(f"source must be a str, got {type(source).__name__}")
    if not questions or not all(isinstance(q, Question) for q in questions):
        raise InvalidArgument("questions must be a non-empty list of Question")
    if style == "cruxeval" and (len(questions) != 1 or questions[0].kind not in FINAL_KINDS):
        raise InvalidArgument("the cruxeval style asks exactly one io or oi question; use the execverify or chat style for step questions")
    if any(q.kind is Kind.OI for q in questions) and len(questions) != 1:
        raise InvalidArgument("an oi question must be asked alone: other questions would reveal the input")


def _execverify_body(source: str, questions: list[Question], call: str | None, footer: str) -> tuple[str, list[str]]:
    texts = [question_text(q) for q in questions]
    if questions[0].kind is Kind.OI:
        call = None  # the input is what is asked
    elif call is None:
        call = next((q.call for q in questions if q.kind is Kind.IO), None)
        if call is None:
            raise InvalidArgument("the questions name no call (no io question); pass call=")
    parts = [EXECVERIFY_INSTRUCTIONS, "", "[CODE]", number_lines(source), "[/CODE]", ""]
    if call is not None:
        parts += [f"Call: `{call}`", ""]
    parts.append("Questions:")
    parts += [f"{n}. {text}" for n, text in enumerate(texts, 1)]
    parts += ["", footer]
    return "\n".join(parts), texts


def render(source: str, questions: list[Question], *, style: str = "execverify", call: str | None = None,
           rationale: str | None = None) -> Rendered:
    """Render ``questions`` about ``source`` as a prompt with its reference completion.

    Args:
        source (`str`): the program text (its line numbers are the ones questions use).
        questions (`list[Question]`): from :func:`~execverify_data.questions.select.select_questions`.
        style (`str`, optional, defaults to ``"execverify"``): one of :data:`STYLES`
            (``chat`` and ``reasoning`` give chat messages).
        call (`str`, optional): the traced call, shown in the prompt when no ``io``
            question carries it (a prompt with step questions only).
        rationale (`str`, optional): reasoning text put before the answer block of the
            reference completion (see :mod:`execverify_data.rationale`).

    Raises:
        InvalidArgument: unknown style, empty question list, step questions in the
            ``cruxeval`` style, or an ``oi`` question together with others.
    """
    _check(source, questions, style)
    answers = reference_answers(questions, style)
    block = answer_block(answers, style)
    if not rationale:
        reference = block
    elif style == "reasoning":
        reference = f"{REASONING_OPEN}\n{rationale.strip()}\n{REASONING_CLOSE}\n{block}"
    else:
        reference = f"{rationale.rstrip()}\n\n{block}"
    verification = verification_for(source, questions, style)
    if call is not None:
        verification["call"] = call
    if style == "cruxeval":
        question = questions[0]
        code = source.rstrip("\n")
        if question.kind is Kind.IO:
            instructions = CRUX_OUTPUT_INSTRUCTIONS.format(open=CRUX_OPEN, close=CRUX_CLOSE)
            example, assertion = CRUX_EXAMPLE_OUTPUT, f"assert {question.call} == ??"
        else:
            instructions = CRUX_INPUT_INSTRUCTIONS.format(open=CRUX_OPEN, close=CRUX_CLOSE)
            example, assertion = CRUX_EXAMPLE_INPUT, f"assert {question.entry}(??) == {question.expected.text}"  # type: ignore[union-attr]
        prompt = f"{instructions}\n\n{example}\n\n[PYTHON]\n{code}\n{assertion}\n[/PYTHON]\n"
        items = [{"kind": question.kind.value, "text": assertion, "reference_answer": answers[0]}]
        return Rendered(prompt, items, reference, verification)
    if style == "reasoning":
        footer = REASONING_FOOTER.format(open=ANSWER_OPEN, close=ANSWER_CLOSE, ropen=REASONING_OPEN, rclose=REASONING_CLOSE)
    else:
        footer = EXECVERIFY_FOOTER.format(open=ANSWER_OPEN, close=ANSWER_CLOSE)
    body, texts = _execverify_body(source, questions, call, footer)
    items = [{"kind": q.kind.value, "text": t, "reference_answer": a} for q, t, a in zip(questions, texts, answers)]
    if style in ("chat", "reasoning"):
        system = SYSTEM_MESSAGE if style == "chat" else REASONING_SYSTEM_MESSAGE
        messages = [{"role": "system", "content": system}, {"role": "user", "content": body}]
        return Rendered(messages, items, reference, verification)
    return Rendered(body, items, reference, verification)


def codegen_messages(problem: str) -> list[dict[str, str]]:
    """A code-generation problem as a ``reasoning``-style prompt: the paper's Stage II messages.

    >>> messages = codegen_messages("Write add(a, b).")
    >>> messages[0]["content"], messages[1]["content"].splitlines()[2]
    ('You are a programming expert.', 'Write add(a, b).')
    """
    if not isinstance(problem, str) or not problem.strip():
        raise InvalidArgument("a code-generation problem must be a non-empty string")
    text = REASONING_CODEGEN.format(problem=problem, open=ANSWER_OPEN, close=ANSWER_CLOSE,
                                    ropen=REASONING_OPEN, rclose=REASONING_CLOSE)
    return [{"role": "system", "content": REASONING_SYSTEM_MESSAGE}, {"role": "user", "content": text}]

