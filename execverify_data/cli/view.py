"""``execverify view``: one traced call as a static HTML page that steps through it."""

from __future__ import annotations

from pathlib import Path

import click

from execverify_data.cli.common import IntRange, check_call, one_line, writable_file
from execverify_data.errors import ExecVerifyError


@click.command(name="view")
@click.argument("target", metavar="RELEASE_DIR|PROGRAM.py", type=click.Path(exists=True, path_type=Path))
@click.argument("row_id", required=False)
@click.option("--call", "call", help="With PROGRAM.py: the call to trace, with literal arguments, e.g. \"f([1, 2], 'a')\".")
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The HTML file to write.")
@click.option(
    "--trusted-call",
    is_flag=True,
    help="With PROGRAM.py: evaluate the call's arguments as expressions in the program's namespace (trusted data only).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="With PROGRAM.py: seed of the question draw.")
@click.option("--n-path", type=IntRange(min=0), default=2, show_default=True, help="With PROGRAM.py: path questions.")
@click.option("--n-state", type=IntRange(min=0), default=2, show_default=True, help="With PROGRAM.py: state questions.")
@click.option("--max-steps", type=IntRange(min=1), default=None, help="Most line events traced (default 100,000).")
@click.option("--python", "python", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Interpreter that traces (default: this one); use the row's Python version for a faithful trace.")
def view(target: Path, row_id: str | None, call: str | None, output: Path, trusted_call: bool, seed: int,
         n_path: int, n_state: int, max_steps: int | None, python: str | None) -> None:
    """Write an HTML page that steps through one traced call, like Python Tutor.

    Either a release row (RELEASE_DIR ROW_ID: the row's program and call are traced
    again in the trusted runner; the page shows the row's questions and reference
    answers) or a program and a call (PROGRAM.py --call ...: the page shows the
    questions `execverify questions` would ask). The page is one file with inline
    CSS and JavaScript: open it offline in any browser and step with the arrow keys.

    \b
    Examples:
        execverify view execverify-v1.0.0 synth-0-0000012-trace-1 -o row.html
        execverify view prog.py --call "f([3, 1, 2])" -o page.html
    """
    from execverify_data.view import view_call, view_row

    if not output.parent.is_dir():
        raise click.UsageError(f"cannot write {output}: {output.parent} is not an existing folder")
    writable_file(output, flag="--output")
    try:
        if target.is_dir():
            if call is not None or trusted_call:
                raise click.UsageError("--call and --trusted-call are for PROGRAM.py; a release row has its own call")
            if row_id is None:
                raise click.UsageError(f"give the id of a row of {target}, e.g. execverify view {target} synth-0-0000012-trace-1 -o row.html")
            path = view_row(target, row_id, output, python=python, max_steps=max_steps)
        else:
            if row_id is not None:
                raise click.UsageError(f"{target} is a program file: give --call \"f(...)\" instead of a row id")
            if call is None:
                raise click.UsageError(f"give the call to trace: execverify view {target} --call \"f(...)\" -o page.html")
            try:
                source = target.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise click.UsageError(f"cannot read {target}: {exc}") from None
            check_call(call, trusted_call=trusted_call)
            path = view_call(source, call, output, trusted_call=trusted_call, seed=seed, n_path=n_path,
                             n_state=n_state, python=python, max_steps=max_steps, title=f"{target.name}: {call.strip()}")
    except ExecVerifyError as exc:  # no such row, not a release folder, a call that does not trace...
        raise click.UsageError(one_line(exc)) from None
    click.echo(f"wrote {path} ({path.stat().st_size:,} bytes)")
