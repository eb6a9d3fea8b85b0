"""``execverify trace``: trace one call of a program and print its events."""

from __future__ import annotations

import json
from pathlib import Path

import click

from execverify_data.errors import ProgramError
from execverify_data.trace import DEFAULT_MAX_STEPS, DEFAULT_TIMEOUT, Trace


@click.command(name="trace")
@click.argument("program", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--call", "call", required=True, help="The call to trace, with literal arguments, e.g. \"f([1, 2], 'a')\".")
@click.option(
    "--trusted-call",
    is_flag=True,
    help="Evaluate the call's arguments as expressions in the program's namespace (trusted benchmark data only).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option("--max-steps", type=click.IntRange(min=1), default=DEFAULT_MAX_STEPS, show_default=True, help="Most line events.")
@click.option(
    "--timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIMEOUT, show_default=True, help="Seconds of wall clock."
)
def trace(program: Path, call: str, trusted_call: bool, as_json: bool, max_steps: int, timeout: float) -> None:
    """Trace CALL against PROGRAM and print every executed line with the locals after it.

    The call runs in a worker process of the trusted runner, so an endless loop ends
    with status "timeout". A program that raises, runs out of steps or out of time
    still prints its status and the events recorded so far.

    \b
    Example:
        execverify trace prog.py --call "f([3, 1, 2])" --json
    """
    from execverify_data.sandbox.trusted import TrustedRunner

    try:
        source = program.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"cannot read {program}: {exc}") from None
    try:
        with TrustedRunner(1, max_steps=max_steps, timeout=timeout) as runner:
            result = runner.trace(source, call, trusted_call=trusted_call)
    except ProgramError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        _print_table(result)


def _print_table(result: Trace) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"trace ({result.python})", show_lines=False)
    for column in ("function", "frame", "depth", "line", "k", "locals after the line"):
        table.add_column(column, justify="right" if column in {"frame", "depth", "line", "k"} else "left", overflow="fold")
    for event in result.events:
        state = ", ".join(f"{name}={value.text}" for name, value in event.locals.items())
        cells = (event.function, str(event.frame), str(event.depth), str(event.line), str(event.occurrence), state)
        table.add_row(*(Text(cell) for cell in cells))  # Text: program values are never rich markup
    console = Console(highlight=False)
    console.print(table)
    console.print(f"status: {result.status.value}", markup=False)
    if result.output is not None:
        console.print(f"output: {result.output.text} ({result.output.type})", markup=False)
    if result.exception is not None:
        console.print(f"exception: {result.exception.type}: {result.exception.message}", markup=False)
