"""``execverify-lm-eval``: lm-eval's command line with the execverify task folder included.

lm-eval 0.4.13 has no entry point through which a package can register tasks, so this script
adds ``--include_path <installed task folder>`` and hands over to lm-eval's own CLI (the same as
``lm_eval --include_path "$(execverify tasks-path)" ...``); every other argument is lm-eval's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["build_argv", "main", "unknown_tasks"]

_SUBCOMMANDS_WITH_INCLUDE = ("run", "ls", "validate")


def build_argv(argv: Sequence[str], task_folder: str) -> list[str]:
    """lm-eval's argument list with ``--include_path <task_folder>`` added after the subcommand.

    >>> build_argv(["--model", "hf", "--tasks", "execverify_cruxeval_o"], "/t")
    ['run', '--include_path', '/t', '--model', 'hf', '--tasks', 'execverify_cruxeval_o']
    >>> build_argv(["ls", "tasks"], "/t")
    ['ls', 'tasks', '--include_path', '/t']

    Raises:
        InvalidArgument: ``--include_path`` is given (lm-eval's CLI takes one folder only).
    """
    from execverify_data.errors import InvalidArgument

    args = list(argv)
    if args and args[0] in ("-h", "--help"):
        return args
    if any(a == "--include_path" or a.startswith("--include_path=") for a in args):
        raise InvalidArgument(
            "execverify-lm-eval adds --include_path itself and lm-eval's CLI takes one folder; to combine task "
            "folders, copy them into one or run lm_eval --include_path <folder> with the tasks of one folder"
        )
    if not args or args[0] not in _SUBCOMMANDS_WITH_INCLUDE:
        args.insert(0, "run")
    if args[0] == "ls":  # lm-eval ls: the positional "tasks|groups|..." comes first
        return [*args, "--include_path", task_folder]
    return [args[0], "--include_path", task_folder, *args[1:]]


def unknown_tasks(args: Sequence[str], known: Sequence[str]) -> str | None:
    """The one-line error for the ``execverify*`` names of ``--tasks`` that are no task or group of ours (with the
    close ones), or None; other names and patterns (``'execverify_*'``) are lm-eval's to judge.

    >>> unknown_tasks(["run", "--tasks", "execverify_cruxeval_0,arc_easy"], ["execverify_cruxeval_o"])
    "unknown task 'execverify_cruxeval_0' (did you mean 'execverify_cruxeval_o'?); `execverify-lm-eval ls tasks` lists them"
    """
    import difflib

    names = []
    for i, arg in enumerate(args):
        if arg == "--tasks" and i + 1 < len(args):
            names += args[i + 1].split(",")
        elif arg.startswith("--tasks="):
            names += arg.split("=", 1)[1].split(",")
    ours = [n for n in known if n.startswith("execverify")]
    for name in names:
        name = name.strip()
        if name.startswith("execverify") and not any(c in name for c in "*?[") and name not in known:
            close = difflib.get_close_matches(name, ours, n=2, cutoff=0.6)
            hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
            return f"unknown task {name!r}{hint}; `execverify-lm-eval ls tasks` lists them"
    return None


def main(argv: Sequence[str] | None = None) -> None:
    """Run lm-eval's CLI with the execverify task folder included; a mistyped task of ours is one line."""
    try:
        from lm_eval.__main__ import cli_evaluate
    except ImportError:  # pragma: no cover - depends on the install
        sys.stderr.write("execverify-lm-eval needs lm-eval: pip install 'execverify-data[eval]'\n")
        raise SystemExit(2) from None
    from execverify_data.cli.tasks_path import task_folder

    args = build_argv(sys.argv[1:] if argv is None else argv, task_folder())
    if any(a == "--tasks" or a.startswith("--tasks=") for a in args):
        from lm_eval.tasks import TaskManager

        problem = unknown_tasks(args, TaskManager(include_path=task_folder()).all_tasks)
        if problem is not None:
            sys.stderr.write(f"execverify-lm-eval: error: {problem}\n")
            raise SystemExit(2)
    sys.argv = [sys.argv[0], *args]
    cli_evaluate()


if __name__ == "__main__":  # pragma: no cover
    main()
