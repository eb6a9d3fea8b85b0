"""What every ``execverify`` subcommand shares: its pre-flight checks and the ``--workers`` rule.

A command checks its output path, its optional extras and its literal call *before* it
does any work, so bad input ends with one line (click's ``Error: ...``; exit 2 for a bad
argument, 1 for a missing extra or an unreachable service) and leaves nothing behind.

>>> one_line("a\\n  b   c")
'a b c'
>>> default_workers() >= 1
True
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import click

__all__ = ["EXTRAS", "IntRange", "check_call", "default_workers", "flag_words", "one_line", "read_jsonl",
           "require_backend_extra", "require_extra", "workers_option", "writable_file", "writable_folder"]

#: extra -> the modules it installs that the commands import (checked without importing them)
EXTRAS: dict[str, tuple[str, ...]] = {
    "release": ("datasets", "matplotlib", "huggingface_hub", "yaml"),
    "ray": ("ray",),
    "train": ("torch", "transformers"),
    "vllm": ("vllm",),
}
_INSTALL = {
    "train": "pip install torch==2.13.0 && pip install 'execverify-data[train]'",
}


class IntRange(click.IntRange):
    """click's ``IntRange`` whose errors say "integer", not "integer range" (``'abc' is not a valid integer``)."""

    name = "integer"


def one_line(text: object) -> str:
    """``text`` with its whitespace runs (newlines too) folded into single spaces."""
    return " ".join(str(text).split())


def flag_words(message: object, **flags: str) -> str:
    """A library message in the user's words: a leading Python name becomes its flag.

    >>> flag_words("version must look like 1.0.0, got '1.0'", version="--release-version")
    "--release-version must look like 1.0.0, got '1.0'"
    """
    text = one_line(message)
    for name, flag in flags.items():
        if text.startswith(name + " "):
            return flag + text[len(name):]
    return text


def default_workers() -> int:
    """The one default of ``--workers``: the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def workers_option(what: str = "Worker processes"):
    """The ``--workers`` option, with the same default rule in every command."""
    return click.option("--workers", type=IntRange(min=1), default=None,
                        help=f"{what} [default: the CPUs this process may use, here {default_workers()}].")


def require_extra(extra: str, *, needed_by: str) -> None:
    """Raise a one-line error naming the ``pip install`` line when ``extra``'s modules are missing."""
    from execverify_data.models.base import module_available

    missing = [m for m in EXTRAS[extra] if not module_available(m)]
    if missing:
        install = _INSTALL.get(extra, f"pip install 'execverify-data[{extra}]'")
        raise click.ClickException(f"{needed_by} needs the '{extra}' extra ({', '.join(missing)} not installed): {install}")


def require_backend_extra(spec: str, *, needed_by: str, prefix: str = "") -> None:
    """:func:`require_extra` for the extra a model backend spec needs (``transformers:...``, ``vllm:...``);
    the message names ``f"{needed_by} {prefix}{backend}:..."``."""
    backend = spec.partition(":")[0]
    if backend in ("transformers", "vllm"):
        require_extra("train" if backend == "transformers" else "vllm", needed_by=f"{needed_by} {prefix}{backend}:...")


def read_jsonl(path: Path, *, flag: str) -> list[Any]:
    """The JSON values of a JSONL file (blank lines skipped); a bad line is a usage error naming it."""
    rows = []
    try:
        with Path(path).open("r", encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    rows.append(json.loads(line))
                except ValueError as exc:
                    raise click.BadParameter(f"{path} line {number}: not JSON ({exc})", param_hint=[flag]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"cannot read {path}: {one_line(exc)}", param_hint=[flag]) from None
    return rows


def read_rows(path: Path, *, flag: str) -> list[Any]:
    """The rows of a JSONL file or of a parquet file (a release's, by its ``PAR1`` magic), as :func:`read_jsonl` gives
    them; a file that is neither is a usage error that says which two it expected."""
    try:
        with Path(path).open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise click.BadParameter(f"cannot read {path}: {one_line(exc)}", param_hint=[flag]) from None
    if magic != b"PAR1":
        try:
            return read_jsonl(path, flag=flag)
        except click.BadParameter as exc:
            raise click.BadParameter(f"{exc.message}; expected JSONL (one JSON value per line) or a parquet file",
                                     param_hint=[flag]) from None
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path).to_pylist()
    except Exception as exc:  # noqa: BLE001 - pyarrow's errors (ArrowInvalid, OSError) for a damaged file
        raise click.BadParameter(f"{path}: a parquet file pyarrow cannot read ({one_line(exc)})", param_hint=[flag]) from None


def _existing_ancestor(path: Path) -> Path:
    path = Path(os.path.abspath(path))
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _probe(folder: Path, shown: Path, flag: str) -> None:
    """Create and remove a file in ``folder``: the only sure test (a read-only mount, root, ACLs)."""
    try:
        fd, name = tempfile.mkstemp(prefix=".execverify-write-test-", dir=folder)
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise click.BadParameter(f"cannot write {shown}: {why.lower()} ({folder}); choose a writable place",
                                 param_hint=[flag]) from None
    os.close(fd)
    os.unlink(name)


def writable_folder(path: str | os.PathLike, *, flag: str, _shown: Path | None = None) -> Path:
    """Check that folder ``path`` exists and is writable or can be created; nothing is created."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        what = f"cannot create {_shown}: {path}" if _shown else str(path)
        raise click.BadParameter(f"{what} is a file, not a folder; choose another path", param_hint=[flag])
    ancestor = _existing_ancestor(path)
    if not ancestor.is_dir():
        raise click.BadParameter(f"cannot create {_shown or path}: {ancestor} is a file, not a folder", param_hint=[flag])
    _probe(ancestor, _shown or path, flag)
    return path


def writable_file(path: str | os.PathLike, *, flag: str) -> Path:
    """Check that file ``path`` can be written (its folder exists or can be created); nothing is created."""
    path = Path(path)
    if path.is_dir():
        raise click.BadParameter(f"{path} is a folder; give a file name", param_hint=[flag])
    writable_folder(path.parent, flag=flag, _shown=path)
    return path


def check_call(call: str, *, trusted_call: bool) -> None:
    """A bad ``--call`` as a usage error in the CLI's words (the library speaks of answers and keywords)."""
    from execverify_data.errors import AnswerError
    from execverify_data.values import parse_call

    if trusted_call:
        return
    try:
        parse_call(call)
    except AnswerError as exc:
        why = str(exc).replace("in an answer", "in a literal call")
        raise click.BadParameter(
            f"{call[:80]!r} is not a literal call ({why}); if its arguments are expressions from trusted data, add --trusted-call",
            param_hint=["--call"],
        ) from None


def exit_on_sigterm() -> None:
    """Make SIGTERM to this process a ``SystemExit(143)``, as Ctrl-C is a ``KeyboardInterrupt``: a long job
    killed politely stops its workers at once (:func:`execverify_data.shards.spawn_pool`) and leaves its
    finished shards as they are, to resume from. Both go through :func:`execverify_data.shards.request_stop`,
    so a run that Python's handling lost the exception of still stops."""
    import signal

    from execverify_data.shards import STOP_REQUESTED, request_stop

    STOP_REQUESTED.clear()  # a command run in a process that an earlier one stopped (a notebook, CliRunner) starts afresh

    def on_term(signum, frame):
        request_stop(SystemExit(128 + signum))

    def on_interrupt(signum, frame):
        request_stop(KeyboardInterrupt())

    if threading_main():
        signal.signal(signal.SIGTERM, on_term)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not where the shell ignores it
            signal.signal(signal.SIGINT, on_interrupt)


def threading_main() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()
