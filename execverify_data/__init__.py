"""execverify-data: synthesize Python programs, trace them, and turn the traces into
verifiable questions, rewards and evaluation tasks for code-execution reasoning."""

from __future__ import annotations

__version__ = "0.1.0"

from execverify_data.errors import AnswerError, ExecVerifyError, InvalidArgument, ProgramError
from execverify_data.values import CanonicalValue, encode, parse, same

__all__ = ["__version__", "AnswerError", "CanonicalValue", "ExecVerifyError", "InvalidArgument", "ProgramError",
           "encode", "parse", "same"]
