"""Question objects: what is asked about one traced call, and its canonical answer.

Five kinds, ``io``, ``oi``, ``coverage``, ``path`` and ``state``, with the semantics of
:mod:`execverify_data.trace` (the table in ``docs/questions.md``, "Kinds and their exact semantics").

>>> q = Question(Kind.PATH, line=2, k=1, expected=encode(3))
>>> q.reference_answer
'3'
>>> Question.from_json(q.to_json()) == q
True
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from execverify_data.errors import InvalidArgument
from execverify_data.values import CanonicalValue, encode

__all__ = ["Kind", "NOT_EXECUTED", "Question", "FINAL_KINDS", "STEP_KINDS"]

#: The answer of a ``state`` question about a line execution that does not happen.
NOT_EXECUTED = "not executed"


class Kind(str, enum.Enum):
    """The five question kinds."""

    IO = "io"
    OI = "oi"
    COVERAGE = "coverage"
    PATH = "path"
    STATE = "state"


#: Kinds that ask for the final answer of a call (the reward's gate).
FINAL_KINDS = frozenset({Kind.IO, Kind.OI})
#: Kinds that ask about an intermediate step of the execution.
STEP_KINDS = frozenset({Kind.COVERAGE, Kind.PATH, Kind.STATE})


@dataclass(frozen=True)
class Question:
    """One question and its canonical answer.

    Args:
        kind (`Kind`): the question kind.
        line (`int`, optional): line N (``coverage``, ``path``, ``state``).
        k (`int`, optional): the execution number of line N, from 1 (``path``, ``state``).
        var (`str`, optional): the variable (``state``).
        expected (`CanonicalValue`, optional): the expected value: the call's return
            value (``io``, ``oi``), ``True``/``False`` (``coverage``), the line number
            (``path``), the variable's value (``state``; ``None`` when line N has no
            k-th execution).
        call (`str`, optional): the call text: the asked call (``io``) or a reference
            call that returns ``expected`` (``oi``).
        entry (`str`, optional): the name of the called function.
        tags (`tuple[str, ...]`, optional): why selection picked this question
            (``loop``, ``branch``, ``helper``, ``comprehension``, ``unexecuted``, ``plain``).
    """

    kind: Kind
    line: int | None = None
    k: int | None = None
    var: str | None = None
    expected: CanonicalValue | None = None
    call: str | None = None
    entry: str | None = None
    tags: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind(self.kind))
        self._validate()

    def _validate(self) -> None:
        if self.expected is not None and not self.expected.askable:
            raise InvalidArgument(f"a {self.kind.value} question needs an askable expected value, got {self.expected.text}")
        missing = [name for name in _NEEDS[self.kind] if getattr(self, name) is None]
        if missing:
            raise InvalidArgument(f"a {self.kind.value} question needs {', '.join(missing)}")

    @property
    def executed(self) -> bool:
        """False only for a ``state`` question whose line execution does not happen."""
        return not (self.kind is Kind.STATE and self.expected is None)

    @property
    def reference_answer(self) -> str:
        """The exact answer line a perfect model writes in the ExecVerify and chat styles."""
        if self.kind is Kind.OI:
            return self.call  # type: ignore[return-value]
        if self.kind is Kind.STATE:
            if self.expected is None:
                return NOT_EXECUTED
            return f"{self.expected.text}; {self.expected.type}"
        return self.expected.text  # type: ignore[union-attr]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the form stored in ``verification["questions"]``)."""
        data: dict[str, Any] = {"kind": self.kind.value}
        for name in ("line", "k", "var", "call", "entry"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        data["expected"] = None if self.expected is None else {"text": self.expected.text, "type": self.expected.type}
        if self.tags:
            data["tags"] = list(self.tags)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Question:
        """Inverse of :meth:`to_json` (checked, and fast: rewards call it for every row)."""
        if not isinstance(data, dict):
            raise InvalidArgument("a question must be a dict with a 'kind'")
        kind = _KIND_BY_VALUE.get(data.get("kind"))  # type: ignore[arg-type]
        if kind is None:
            raise InvalidArgument(f"unknown question kind {data.get('kind')!r}; expected one of {', '.join(_KIND_BY_VALUE)}")
        expected = data.get("expected")
        if expected is not None:
            if not isinstance(expected, dict) or not isinstance(expected.get("text"), str) or not isinstance(expected.get("type"), str):
                raise InvalidArgument("a question's expected value must be {'text': str, 'type': str}")
            expected = _new_tuple(CanonicalValue, (expected["text"], expected["type"], True, None))
        question = object.__new__(cls)  # the fields set directly, in order (a frozen dataclass)
        question.__dict__.update(kind=kind, line=data.get("line"), k=data.get("k"), var=data.get("var"),
                                 expected=expected, call=data.get("call"), entry=data.get("entry"),
                                 tags=tuple(data.get("tags") or ()))
        if expected is None and kind is not Kind.STATE or any(data.get(name) is None for name in _NEEDS_KEYS[kind]):
            question._validate()  # raises with the list of missing fields
        return question


_new_tuple = tuple.__new__
_KIND_BY_VALUE = {kind.value: kind for kind in Kind}
_NEEDS = {Kind.IO: ("expected", "call"), Kind.OI: ("expected", "call"), Kind.COVERAGE: ("line", "expected"),
          Kind.PATH: ("line", "k", "expected"), Kind.STATE: ("line", "k", "var")}
_NEEDS_KEYS = {kind: tuple(name for name in names if name != "expected") for kind, names in _NEEDS.items()}
