"""The library's exception hierarchy.

Every error raised on purpose by execverify-data derives from :class:`ExecVerifyError`
and from the builtin it refines (``ValueError`` or ``TypeError``), so callers can
catch either. Messages say what was wrong and what to do next.
"""

from __future__ import annotations

__all__ = ["AnswerError", "DataError", "ExecVerifyError", "InvalidArgument", "ProgramError", "check_int", "check_seconds"]


class ExecVerifyError(Exception):
    """Base class of every error execverify-data raises on purpose."""


class AnswerError(ExecVerifyError, ValueError):
    """An answer text is not an accepted Python literal (see :func:`execverify_data.values.parse`)."""


class InvalidArgument(ExecVerifyError, TypeError):
    """A function was called with an argument it cannot use; the message says which and why."""


class DataError(ExecVerifyError, ValueError):
    """A dataset cannot be used as asked (not found, a column or rows missing); the message says what to change."""


class ProgramError(ExecVerifyError, ValueError):
    """A program or call given to the tracer or a runner cannot be used (syntax error, non-literal call...)."""


def check_int(name: str, value: object, minimum: int = 1) -> None:
    """Raise :class:`InvalidArgument` unless ``value`` is an int (a bool is not) of at least ``minimum``.

    >>> check_int("k", 3, minimum=3)
    >>> check_int("workers", True)
    Traceback (most recent call last):
    execverify_data.errors.InvalidArgument: workers must be a positive int, got True
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        kind = {0: "a non-negative int", 1: "a positive int"}.get(minimum, f"an int >= {minimum}")
        raise InvalidArgument(f"{name} must be {kind}, got {value!r}")


def check_seconds(name: str, value: object) -> None:
    """Raise :class:`InvalidArgument` unless ``value`` is a positive number of seconds (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise InvalidArgument(f"{name} must be a positive number of seconds, got {value!r}")
