"""``execverify tasks-path``: the installed lm-eval task folder, for ``lm_eval --include_path``."""

from __future__ import annotations

import click


def task_folder() -> str:
    """Absolute path of the lm-eval task folder shipped in the package (``execverify_data/lm_eval_tasks``).

    >>> import os
    >>> os.path.isfile(os.path.join(task_folder(), "execverify.yaml"))
    True
    """
    from importlib import resources

    return str(resources.files("execverify_data").joinpath("lm_eval_tasks"))


@click.command("tasks-path")
def tasks_path() -> None:
    """Print the lm-eval task folder: lm_eval --include_path "$(execverify tasks-path)" --tasks execverify ..."""
    click.echo(task_folder())
