"""``execverify doctor``: which isolation layers of the untrusted sandbox work on this machine."""

from __future__ import annotations

import json
import sys

import click

IMPORTS_WARNING = ("only pre-imported modules work inside the sandbox; install Python where an unprivileged user can read it, "
                   "or install bubblewrap")


def _smoke(report: dict) -> None:
    from execverify_data.errors import ExecVerifyError
    from execverify_data.sandbox import UntrustedPool

    try:
        with UntrustedPool(1) as pool:  # its start-up probe already imports modules the zygote did not
            result = pool.run("import os\nx = os.getuid()", ["x", "sum(range(10))"], timeout=10)
            ok = result.ok and result.calls[1].ok and result.calls[1].value.text == "45"
            uid = result.calls[0].value.text if result.calls and result.calls[0].ok else None
            # a module the zygote did not pre-import: the dropped uid must be able to read the interpreter
            imports = pool.run("import email.mime.text", ["1"], timeout=10)
            report["smoke"] = {"ok": ok, "status": result.status.value, "layers_used": list(pool.active_layers),
                               "child_uid": uid, "ms": round(result.duration_s * 1000, 1),
                               "detail": None if ok else result.detail}
            report["imports"] = {"ok": imports.ok, "detail": None if imports.ok else imports.detail}
    except ExecVerifyError as exc:  # a pool that cannot start says why, in one line
        report["smoke"] = {"ok": False, "status": "unusable", "layers_used": [], "child_uid": None, "ms": None,
                           "detail": str(exc)}
        report["imports"] = {"ok": False, "detail": str(exc)}


def _notes(layers) -> list[str]:
    from execverify_data.sandbox.layers import interpreter_dirs, unreadable_ancestors

    available = {layer.name for layer in layers if layer.available}
    notes = []
    hidden = unreadable_ancestors(interpreter_dirs())
    if hidden and {"bwrap", "privilege_drop"} <= available:
        notes.append(f"bwrap is needed here: without it the sandbox's uid could not read {', '.join(hidden)}, "
                     "where the interpreter lives")
    if not {"bwrap", "landlock"} & available:
        notes.append("neither bwrap nor landlock: a completion can read files this machine's users can "
                     "(the package's benchmark data among them); install bubblewrap")
    return notes


@click.command()
@click.option("--run/--no-run", "smoke", default=True, show_default=True,
              help="Also run one tiny program through the sandbox with every available layer.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
def doctor(smoke: bool, as_json: bool) -> None:
    """Print which untrusted-sandbox layers are active here (see docs/sandbox.md).

    Exits 1 when the sandbox cannot run programs on this machine.
    """
    import os
    import platform

    from execverify_data.sandbox import detect_layers

    layers = detect_layers()
    report: dict = {
        "python": platform.python_version(), "system": f"{platform.system()} {platform.release()}", "euid": os.geteuid(),
        "cpus": len(os.sched_getaffinity(0)),
        "layers": [{"name": layer.name, "available": layer.available, "detail": layer.detail} for layer in layers],
        "usable": layers[0].available, "smoke": None, "imports": None, "notes": _notes(layers),
    }
    if smoke and report["usable"]:
        _smoke(report)
    failed = not report["usable"] or (report["smoke"] is not None and not report["smoke"]["ok"])
    if as_json:
        click.echo(json.dumps(report))
    else:
        _print(report)
    if failed:
        sys.exit(1)


def _print(report: dict) -> None:
    click.echo(f"python {report['python']} on {report['system']}, euid {report['euid']}, {report['cpus']} CPUs")
    for number, layer in enumerate(report["layers"], 1):
        mark = "active " if layer["available"] else "missing"
        click.echo(f"  {number}. {layer['name']:<15} {mark}  {layer['detail']}")
    for note in report["notes"]:
        click.echo(f"note: {note}")
    if not report["usable"]:
        click.echo("sandbox: unusable on this machine")
        return
    run = report["smoke"]
    if run is None:
        return
    if run["status"] == "unusable":
        click.echo(f"sandbox: {run['detail']}")
        return
    click.echo(f"smoke run: {run['status']} (layers used: {', '.join(run['layers_used'])}; "
               f"child uid {run['child_uid'] or '?'}; {run['ms']:.1f} ms)")
    if report["imports"]["ok"]:
        click.echo("imports: any installed module can be imported inside the sandbox")
    else:
        click.echo(f"imports: WARNING, {IMPORTS_WARNING} ({report['imports']['detail']})")
    if not run["ok"]:
        click.echo(f"smoke run failed: {run['detail']}")
