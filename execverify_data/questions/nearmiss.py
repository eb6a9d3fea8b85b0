"""Near-miss answers: plausible wrong answers that the scorer must reject.

Used to check data (every published question's near misses must score 0, as STYLE.md
asks) and in the tests. Each near miss is an ``execverify`` answer line labelled with what
is wrong with it (``off by one``, ``wrong type``, ``swapped order``...), returned only when
its value really differs under :func:`execverify_data.values.equal`. ``oi`` near misses are
only those wrong without running (a wrong claimed output, ``assert True``...).

>>> from execverify_data.values import encode
>>> [label for label, _ in near_misses(Question(Kind.PATH, line=3, k=1, expected=encode(4)))]
['off by one', 'off by one', 'wrong line', 'wrong type']
"""

from __future__ import annotations

from typing import Any

from execverify_data.errors import AnswerError
from execverify_data.questions.kinds import NOT_EXECUTED, Kind, Question
from execverify_data.values import encode, equal, parse

__all__ = ["near_miss_values", "near_misses"]


def _text(value: Any) -> str | None:
    canonical = encode(value)
    return canonical.text if canonical.askable else None


def near_miss_values(expected_text: str) -> list[tuple[str, str]]:
    """Wrong literal texts close to the value ``expected_text`` denotes, with labels."""
    value = parse(expected_text, max_chars=max(len(expected_text), 100_000))
    t = type(value)
    out: list[tuple[str, Any]] = []
    if t is bool:
        out += [("negated", not value), ("wrong type", int(value))]
    elif t is int:
        out += [("off by one", value + 1), ("off by one", value - 1), ("wrong type", float(value)), ("wrong type", str(value))]
    elif t is float:
        if value == value and value not in (float("inf"), float("-inf")):
            out += [("off by one", value + 1.0), ("wrong type", str(value))]
            if value.is_integer() and abs(value) < 1e15:
                out.append(("wrong type", int(value)))
        else:
            out += [("wrong value", 0.0), ("wrong type", str(value))]
    elif t is str:
        out += [("extra character", value + "x"), ("wrong type", [*value][:50] if value else None)]
        if value and value[::-1] != value:
            out.append(("swapped order", value[::-1]))
        if value and value.swapcase() != value:
            out.append(("wrong case", value.swapcase()))
    elif t in (list, tuple):
        other = tuple if t is list else list
        out.append(("wrong type", other(value)))
        if len(value) >= 2 and not equal(value, t(reversed(value))):
            out.append(("swapped order", t(reversed(value))))
        if value:
            out.append(("missing element", value[:-1]))
        out.append(("extra element", t([*value, 0])))
    elif t is dict:
        out.append(("wrong type", list(value.items())))
        if value:
            key = next(iter(value))
            out.append(("missing element", {k: v for k, v in value.items() if k != key}))
        out.append(("extra element", {**value, "__extra__": 0}))
    elif t in (set, frozenset):
        out.append(("wrong type", sorted(value, key=repr)))
        out.append(("extra element", t([*value, "__extra__"])))
        if value:
            out.append(("missing element", t(list(value)[1:])))
    elif value is None:
        out += [("wrong type", 0), ("wrong type", "None"), ("wrong type", False)]
    else:
        out.append(("wrong type", None))
    result = []
    for label, wrong in out:
        if wrong is None and value is None:
            continue
        if equal(value, wrong):
            continue
        text = _text(wrong)
        if text is not None:
            result.append((label, text))
    if t is str and value and value.isidentifier() and value not in ("None", "True", "False", "inf", "nan"):
        result.append(("unquoted", value))
    return result


def near_misses(question: Question) -> list[tuple[str, str]]:
    """Wrong answer lines for ``question`` (``execverify`` form), each with a label."""
    kind = question.kind
    expected = question.expected
    if kind is Kind.IO:
        return near_miss_values(expected.text) + [("calls the function", question.call)]  # type: ignore[union-attr,list-item]
    if kind is Kind.OI:
        wrong_outputs = [(label, f"assert {question.call} == {text}") for label, text in near_miss_values(expected.text)]  # type: ignore[union-attr]
        return wrong_outputs + [
            ("assert True", "assert True"),
            ("non-literal output", f"assert {question.call} == {question.call}"),
            ("no call", expected.text),  # type: ignore[union-attr]
        ]
    if kind is Kind.COVERAGE:
        return [("negated", "False" if expected.text == "True" else "True"), ("wrong type", "1" if expected.text == "True" else "0")]  # type: ignore[union-attr]
    if kind is Kind.PATH:
        line = int(expected.text)  # type: ignore[union-attr]
        misses = [("off by one", str(line + 1)), ("off by one", str(line - 1))]
        misses.append(("wrong line", str(question.line)) if question.line != line else ("wrong line", str(line + 2)))
        misses.append(("wrong type", f"{line}.0"))
        return [(label, text) for label, text in misses if text != expected.text]  # type: ignore[union-attr]
    # state
    if expected is None:
        return [("executed", "None; NoneType"), ("executed", "0; int")]
    misses = []
    for label, text in near_miss_values(expected.text):
        try:
            type_name = type(parse(text)).__name__
        except AnswerError:  # e.g. an unquoted string: keep the expected type
            type_name = expected.type
        misses.append((label, f"{text}; {type_name}"))
    wrong_type = "str" if expected.type != "str" else "bytes"
    misses += [
        ("wrong type name", f"{expected.text}; {wrong_type}"),
        ("type missing", expected.text),
        ("not executed", NOT_EXECUTED),
    ]
    return misses
