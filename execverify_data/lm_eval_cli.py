"""``execverify-lm-eval``: lm-eval's command line with the execverify task folder included.

lm-eval 0.4.13 has no entry point through which a package can register tasks, so this script
adds ``--include_path <installed task folder>`` and hands over to lm-eval's own CLI (the same as
``lm_eval --include_path "$(execverify tasks-path)" ...``); every other argument is lm-eval's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["build_argv", "main"]

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


def main(argv: Sequence[str] | None = None) -> None:
    """Run lm-eval's CLI with the execverify task folder included."""
    try:
        from lm_eval.__main__ import cli_evaluate
    except ImportError:  # pragma: no cover - depends on the install
        sys.stderr.write("execverify-lm-eval needs lm-eval: pip install 'execverify-data[eval]'\n")
        raise SystemExit(2) from None
    from execverify_data.cli.tasks_path import task_folder

    sys.argv = [sys.argv[0], *build_argv(sys.argv[1:] if argv is None else argv, task_folder())]
    cli_evaluate()


if __name__ == "__main__":  # pragma: no cover
    main()
