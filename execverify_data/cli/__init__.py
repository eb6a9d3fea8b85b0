"""The ``execverify`` command.

Subcommands live in their own modules under ``execverify_data/cli/`` and are
imported only when invoked, so ``execverify --help`` stays fast and light.
Register a new subcommand by adding one line to ``COMMANDS``.
"""

from __future__ import annotations

import importlib

import click

from execverify_data import __version__
from execverify_data.cli.common import one_line

# name -> "module:attribute" of a click command
COMMANDS: dict[str, str] = {
    "doctor": "execverify_data.cli.doctor:doctor",
    "questions": "execverify_data.cli.questions:questions",
    "score": "execverify_data.cli.score:score",
    "trace": "execverify_data.cli.trace:trace",
    "synthesize": "execverify_data.cli.synthesize:synthesize",
    "tasks-path": "execverify_data.cli.tasks_path:tasks_path",
    "difficulty": "execverify_data.cli.difficulty:difficulty",
    "build-release": "execverify_data.cli.build_release:build_release",
    "from-code": "execverify_data.cli.from_code:from_code",
    "push": "execverify_data.cli.push:push",
    "release": "execverify_data.cli.release:release",
    "view": "execverify_data.cli.view:view",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def __init__(self, *args, lazy: dict[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        self._lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._lazy})

    def get_command(self, ctx: click.Context, cmd_name: str):
        if cmd_name in self._lazy:
            module_name, attribute = self._lazy[cmd_name].split(":")
            return getattr(importlib.import_module(module_name), attribute)
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        """As click resolves it; a name that is no command says the ones it is close to (``synthesise``)."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=3, cutoff=0.6)
            hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            ctx.fail(f"No such command {name!r}.{hint} ('execverify --help' lists them.)")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context):
        """Run the subcommand; a library error or an OS error it did not foresee still ends in one line."""
        from execverify_data.errors import ExecVerifyError

        try:
            return super().invoke(ctx)
        except ExecVerifyError as exc:
            raise click.ClickException(one_line(exc)) from None
        except OSError as exc:
            where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
            raise click.ClickException(one_line(f"{exc.strerror or exc}{where}")) from None


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="execverify")
def main() -> None:
    """execverify: programs, traces and verifiable questions for code-execution reasoning."""
    from execverify_data.cli.common import exit_on_sigterm

    exit_on_sigterm()


if __name__ == "__main__":  # pragma: no cover
    main(prog_name="execverify")
