"""The library's exception hierarchy.

Every error raised on purpose by execverify-data derives from :class:`ExecVerifyError`
and from the builtin it refines (``ValueError`` or ``TypeError``), so callers can
catch either. Messages say what was wrong and what to do next.
"""

from __future__ import annotations

__all__ = ["ExecVerifyError", "AnswerError", "InvalidArgument", "ProgramError"]


class ExecVerifyError(Exception):
    """Base class of every error execverify-data raises on purpose."""


class AnswerError(ExecVerifyError, ValueError):
    """An answer text is not an accepted Python literal (see :func:`execverify_data.values.parse`)."""


class InvalidArgument(ExecVerifyError, TypeError):
    """A function was called with an argument it cannot use; the message says which and why."""


class ProgramError(ExecVerifyError, ValueError):
    """A program or call given to the tracer or a runner cannot be used (syntax error, non-literal call...)."""
