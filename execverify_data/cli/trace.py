"""``execverify trace``: trace one call of a program and print its events."""

from __future__ import annotations

import json
from pathlib import Path

import click

from execverify_data.cli.common import IntRange, check_call, one_line
from execverify_data.errors import ProgramError
from execverify_data.trace import DEFAULT_MAX_STEPS, DEFAULT_TIMEOUT, Trace

#: events the table shows unless --max-events says otherwise (JSON output keeps them all)
TABLE_EVENTS = 200


@click.command(name="trace")
@click.argument("program", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--call", "call", required=True, help="The call to trace, with literal arguments, e.g. \"f([1, 2], 'a')\".")
@click.option(
    "--trusted-call",
    is_flag=True,
    help="Evaluate the call's arguments as expressions in the program's namespace (trusted benchmark data only).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option("--max-steps", type=IntRange(min=1), default=DEFAULT_MAX_STEPS, show_default=True, help="Most line events.")
@click.option(
    "--timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIMEOUT, show_default=True, help="Seconds of wall clock."
)
@click.option("--max-events", type=IntRange(min=0), default=None,
              help=f"Most events printed, then a line on those left out; 0 prints all "
                   f"[default: {TABLE_EVENTS} in the table, all with --json].")
def trace(program: Path, call: str, trusted_call: bool, as_json: bool, max_steps: int, timeout: float,
          max_events: int | None) -> None:
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
        raise click.BadParameter(f"cannot read {program}: {exc}", param_hint=["PROGRAM"]) from None
    check_call(call, trusted_call=trusted_call)
    try:
        with TrustedRunner(1, max_steps=max_steps, timeout=timeout) as runner:
            result = runner.trace(source, call, trusted_call=trusted_call)
    except ProgramError as exc:
        raise click.UsageError(one_line(exc)) from None
    if as_json:
        data = result.to_json()
        if max_events:
            data["events_left_out"] = max(0, len(data["events"]) - max_events)
            data["events"] = data["events"][:max_events]
        click.echo(json.dumps(data, ensure_ascii=False))
    else:
        _print_table(result, TABLE_EVENTS if max_events is None else max_events)


def left_out(events, shown: int) -> str | None:
    """One line on the events after the first ``shown`` (None when nothing is left out).

    >>> from collections import namedtuple
    >>> E = namedtuple("E", "function line")
    >>> left_out([E("f", 2), E("f", 3), E("f", 4), E("g", 9)], 1)
    '3 of 4 events left out (lines 3, 4 of f; line 9 of g); --max-events 0 prints them all, --json writes them all'
    """
    rest = events[shown:] if shown else []
    if not rest:
        return None
    lines: dict[str, set[int]] = {}
    for event in rest:
        lines.setdefault(event.function, set()).add(event.line)
    where = "; ".join(f"{_lines(sorted(numbers))} of {function}" for function, numbers in list(lines.items())[:4])
    more = f"; and {len(lines) - 4} more functions" if len(lines) > 4 else ""
    return (f"{len(rest):,} of {len(events):,} events left out ({where}{more}); "
            "--max-events 0 prints them all, --json writes them all")


def _lines(numbers: list[int]) -> str:
    shown = ", ".join(map(str, numbers[:8])) + (f" and {len(numbers) - 8} more" if len(numbers) > 8 else "")
    return ("line " if len(numbers) == 1 else "lines ") + shown


def _print_table(result: Trace, max_events: int) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"trace ({result.python})", show_lines=False)
    for column in ("function", "frame", "depth", "line", "k", "locals after the line"):
        table.add_column(column, justify="right" if column in {"frame", "depth", "line", "k"} else "left", overflow="fold")
    events = result.events[:max_events] if max_events else result.events
    for event in events:
        state = ", ".join(f"{name}={value.text}" for name, value in event.locals.items())
        cells = (event.function, str(event.frame), str(event.depth), str(event.line), str(event.occurrence), state)
        table.add_row(*(Text(cell) for cell in cells))  # Text: program values are never rich markup
    console = Console(highlight=False)
    console.print(table)
    note = left_out(result.events, max_events)
    if note is not None:
        console.print(note, markup=False, soft_wrap=True)
    console.print(f"status: {result.status.value}", markup=False)
    if result.output is not None:
        console.print(f"output: {result.output.text} ({result.output.type})", markup=False)
    if result.exception is not None:
        console.print(f"exception: {result.exception.type}: {result.exception.message}", markup=False)
