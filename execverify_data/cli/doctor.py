"""``execverify doctor``: which isolation layers of the untrusted sandbox work on this machine."""

from __future__ import annotations

import click


@click.command()
@click.option("--run/--no-run", "smoke", default=True, show_default=True,
              help="Also run one tiny program through the sandbox with every available layer.")
def doctor(smoke: bool) -> None:
    """Print which untrusted-sandbox layers are active here (see docs/sandbox.md)."""
    import os
    import platform
    import sys

    from execverify_data.errors import ExecVerifyError
    from execverify_data.sandbox import UntrustedPool, detect_layers
    from execverify_data.sandbox.layers import interpreter_dirs, unreadable_ancestors

    click.echo(f"python {platform.python_version()} on {platform.system()} {platform.release()}, "
               f"euid {os.geteuid()}, {len(os.sched_getaffinity(0))} CPUs")
    layers = detect_layers()
    for number, layer in enumerate(layers, 1):
        mark = "active " if layer.available else "missing"
        click.echo(f"  {number}. {layer.name:<15} {mark}  {layer.detail}")
    available = {layer.name for layer in layers if layer.available}
    hidden = unreadable_ancestors(interpreter_dirs())
    if hidden and {"bwrap", "privilege_drop"} <= available:
        click.echo(f"note: bwrap is needed here: without it the sandbox's uid could not read {', '.join(hidden)}, "
                   "where the interpreter lives")
    if not {"bwrap", "landlock"} & available:
        click.echo("warning: neither bwrap nor landlock: a completion can read files this machine's users can "
                   "(the package's benchmark data among them); install bubblewrap")
    if not smoke:
        return
    if not layers[0].available:
        click.echo("sandbox: unusable on this machine")
        sys.exit(1)
    try:
        with UntrustedPool(1) as pool:
            result = pool.run("import os\nx = os.getuid()", ["x", "sum(range(10))"], timeout=10)
            ok = result.ok and result.calls[1].ok and result.calls[1].value.text == "45"
            uid = result.calls[0].value.text if result.calls and result.calls[0].ok else "?"
            click.echo(f"smoke run: {result.status.value} (layers used: {', '.join(pool.active_layers)}; "
                       f"child uid {uid}; {result.duration_s * 1000:.1f} ms)")
            # a module the zygote did not pre-import (the pool's start-up probe checked a few already)
            imports = pool.run("import email.mime.text", ["1"], timeout=10)
            if imports.ok:
                click.echo("imports: any installed module can be imported inside the sandbox")
            else:
                click.echo(f"imports: failed inside the sandbox ({imports.detail})")
                ok = False
    except ExecVerifyError as exc:
        click.echo(f"sandbox: {exc}")
        sys.exit(1)
    if not ok:
        click.echo(f"smoke run failed: {result.detail}")
        sys.exit(1)
