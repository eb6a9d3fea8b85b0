"""The linter rates of the naturalness measures: ruff and pylint rules counted per program."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence

from execverify_data.errors import ExecVerifyError, InvalidArgument, check_int

__all__ = ["LINT_RULES", "lint_counts"]

#: The rules of :func:`lint_counts`: ruff's SIM300 (yoda condition), SIM102 (collapsible ``if``), SIM114 (``if``
#: arms with the same body), C413 (``list``/``reversed`` around ``sorted``), then pylint's R5601 (confusing ``elif``).
LINT_RULES = ("SIM300", "SIM102", "SIM114", "C413", "R5601")
_RUFF_RULES = LINT_RULES[:4]


def _linter(module: str) -> None:
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise ImportError(f"the linter rates need {module}: pip install 'execverify-data[test]' (ruff and pylint)")


def lint_counts(sources: Sequence[str], *, jobs: int = 1) -> list[dict[str, int]]:
    """For each program, how many times each rule of :data:`LINT_RULES` fires (``docs/synthesis.md``).

    The programs are written to a temporary folder in ``jobs`` parts; ruff runs once over it, pylint once per
    part (its own ``--jobs`` costs several times the CPU), both with no configuration file.

    >>> counts = lint_counts(["def f(x):\\n    if 3 == x:\\n        return 1\\n    return 0\\n", "def g():\\n    return 1\\n"])
    >>> counts[0]["SIM300"], counts[1]["SIM300"]
    (1, 0)
    """
    if isinstance(sources, str):
        raise InvalidArgument("sources must be a sequence of program texts, not one str")
    check_int("jobs", jobs)
    _linter("ruff")
    _linter("pylint")
    counts = [dict.fromkeys(LINT_RULES, 0) for _ in sources]
    if not counts:
        return counts
    names: dict[str, int] = {}

    def tally(messages: list[dict], file_key: str, code_key: str) -> None:
        for message in messages:
            index = names.get(os.path.basename(message[file_key]))
            if index is not None and message[code_key] in counts[index]:
                counts[index][message[code_key]] += 1

    with tempfile.TemporaryDirectory(prefix="execverify-lint-") as folder:
        parts = [os.path.join(folder, f"part-{k}") for k in range(min(jobs, len(sources)))]
        size = -(-len(sources) // len(parts))
        for k, part in enumerate(parts):
            os.mkdir(part)
            for i in range(k * size, min(len(sources), (k + 1) * size)):
                names[f"p{i:07d}.py"] = i
                with open(os.path.join(part, f"p{i:07d}.py"), "w", encoding="utf-8") as handle:
                    handle.write(sources[i])
        pylint = []
        for part in parts:
            with open(part + ".json", "w", encoding="utf-8") as out, open(part + ".err", "w", encoding="utf-8") as err:
                pylint.append(subprocess.Popen(
                    [sys.executable, "-m", "pylint", "--disable=all", "--enable=confusing-consecutive-elif",
                     "--load-plugins=pylint.extensions.confusing_elif", "--output-format=json", "--score=n",
                     "--persistent=n", "--recursive=y", "--rcfile=/dev/null", part],
                    stdout=out, stderr=err, cwd=part,
                ))
        ruff = subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", ",".join(_RUFF_RULES),
             "--output-format", "json", "--exit-zero", folder],
            capture_output=True, text=True, check=False,
        )
        returns = [process.wait() for process in pylint]
        if ruff.returncode != 0:
            raise ExecVerifyError(f"ruff failed (exit {ruff.returncode}): {ruff.stderr.strip()[:500]}")
        tally(json.loads(ruff.stdout or "[]"), "filename", "code")
        for part, code in zip(parts, returns):
            if code & (1 | 32):  # a fatal message or a usage error
                with open(part + ".err", encoding="utf-8") as err:
                    raise ExecVerifyError(f"pylint failed (exit {code}): {err.read().strip()[:500]}")
            with open(part + ".json", encoding="utf-8") as out:
                tally(json.loads(out.read() or "[]"), "path", "message-id")
    return counts
