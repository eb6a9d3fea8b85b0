"""``execverify questions``: trace one call and print verifiable questions about it."""

from __future__ import annotations

import json
from pathlib import Path

import click

from execverify_data.cli.common import IntRange, check_call, one_line
from execverify_data.errors import ExecVerifyError

#: flag -> (question kind, what one question is about)
_COUNTS = {"--n-path": ("path", "lines"), "--n-state": ("state", "places (a line and a variable)"),
           "--n-coverage": ("coverage", "lines")}


def _check_counts(rendered, asked: dict[str, int | None]) -> None:
    """A count the user gave that the call cannot fill is an error, not a silent cap."""
    kinds = [q["kind"] for q in rendered.to_json()["questions"]]
    for flag, wanted in asked.items():
        kind, what = _COUNTS[flag]
        got = kinds.count(kind)
        if wanted is not None and got < wanted:
            raise click.BadParameter(
                f"{wanted} asked, but this call has only {got} {what} to ask {kind} questions about "
                f"(one question each); pass {flag} {got} or fewer", param_hint=[flag])


@click.command(name="questions")
@click.argument("program", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--call", "call", required=True, help="The call, with literal arguments, e.g. \"f([1, 2], 'a')\".")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (prompt, questions, reference_completion, verification).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the question draw.")
@click.option("--n-path", type=IntRange(min=0), default=None, help="Path questions (default 2; 0 with --task input or --style cruxeval).")
@click.option("--n-state", type=IntRange(min=0), default=None, help="State questions (default 2; 0 with --task input or --style cruxeval).")
@click.option("--n-coverage", type=IntRange(min=0), default=None, help="Coverage questions [default: 0].")
@click.option(
    "--style", type=click.Choice(["execverify", "cruxeval", "chat"]), default="execverify", show_default=True, help="Prompt style."
)
@click.option(
    "--task",
    type=click.Choice(["output", "input"]),
    default="output",
    show_default=True,
    help="output: the io question first, then step questions; input: the oi question alone.",
)
@click.option("--rationale", is_flag=True, help="Put a trace-narrated reasoning chain before the reference answers.")
@click.option("--chain-style", type=click.Choice(["trace", "explained", "compact"]), default="explained", show_default=True,
              help="With --rationale: how the chain is written (docs/chains.md).")
@click.option(
    "--trusted-call",
    is_flag=True,
    help="Evaluate the call's arguments as expressions in the program's namespace (trusted benchmark data only).",
)
def questions(
    program: Path,
    call: str,
    as_json: bool,
    seed: int,
    n_path: int | None,
    n_state: int | None,
    n_coverage: int | None,
    style: str,
    task: str,
    rationale: bool,
    chain_style: str,
    trusted_call: bool,
) -> None:
    """Trace CALL against PROGRAM (in the trusted runner) and print questions about it.

    By default the prompt is in the ExecVerify multi-question form: the output
    question first, then path and state questions, one answer per line inside
    <answer>...</answer>. The "verification" object of the JSON output is what
    `execverify score` and the TRL rewards read.

    \b
    Example:
        execverify questions prog.py --call "f([3, 1, 2])" --json --seed 7 > q.jsonl
    """
    from execverify_data.questions import build
    from execverify_data.sandbox.trusted import TrustedRunner

    asked = {"--n-path": n_path, "--n-state": n_state, "--n-coverage": n_coverage}
    single = task == "input" or style == "cruxeval"
    if single and (n_path or n_state or n_coverage):
        why = "--task input" if task == "input" else "--style cruxeval"
        raise click.UsageError(f"{why} asks a single question; drop --n-path, --n-state and --n-coverage")
    default = 0 if single else 2
    n_path = default if n_path is None else n_path
    n_state = default if n_state is None else n_state
    n_coverage = 0 if n_coverage is None else n_coverage
    try:
        source = program.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"cannot read {program}: {exc}", param_hint=["PROGRAM"]) from None
    check_call(call, trusted_call=trusted_call)
    try:
        with TrustedRunner(1) as runner:
            trace, notes = runner.map([(source, call, trusted_call)], notes=True)[0]
        rendered = build(
            source,
            call,
            seed=seed,
            n_path=n_path,
            n_state=n_state,
            n_coverage=n_coverage,
            task=task,
            style=style,
            trace=trace,
            rationale=rationale,
            chain_style=chain_style,
            notes=notes,
        )
    except ExecVerifyError as exc:
        raise click.UsageError(one_line(exc)) from None
    _check_counts(rendered, asked)
    if as_json:
        click.echo(json.dumps(rendered.to_json(), ensure_ascii=False))
        return
    prompt = rendered.prompt
    if isinstance(prompt, list):
        prompt = "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in prompt)
    click.echo(prompt)
    click.echo("\n--- reference completion ---")
    click.echo(rendered.reference_completion)
