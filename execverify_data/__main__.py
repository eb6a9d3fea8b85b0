"""``python -m execverify_data``: the ``execverify`` command, for environments without its console script."""

from execverify_data.cli import main

if __name__ == "__main__":  # pragma: no cover
    main(prog_name="python -m execverify_data")
