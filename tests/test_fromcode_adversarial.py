"""Hostile functions given to ``execverify from-code`` (tests/adversarial/from_code/*.py.txt), with every
layer of the untrusted sandbox and without bubblewrap (issue 29: every probe, trace and retrace of a
user's function runs in the sandbox, and its trace is assembled where it cannot reach it).

For each: nothing outside ``--out`` changes, no secret of the caller's environment becomes an output,
no forged value (424242) reaches a record or a trace, and the honest function given after it is
kept with Python's outputs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execverify_data.sandbox import detect_layers
from execverify_data.sandbox.layers import interpreter_dirs, unreadable_ancestors

HOSTILE = sorted((Path(__file__).parent / "adversarial" / "from_code").glob("*.py.txt"))
LAYERS = {layer.name: layer for layer in detect_layers()}
#: Honest functions, one after each hostile one (each of another shape: from-code drops duplicates),
#: with what Python gives for them.
HONEST = [
    ("def spread(xs: list[int]) -> int:\n    ordered = sorted(xs)\n    total = sum(ordered)\n"
     "    return ordered[-1] - ordered[0] + total if ordered else total\n",
     lambda xs: max(xs) - min(xs) + sum(xs) if xs else 0),
    ("def evens(xs: list[int]) -> int:\n    count = 0\n    for x in xs:\n        if x % 2 == 0:\n"
     "            count += 1\n    return count\n", lambda xs: sum(x % 2 == 0 for x in xs)),
    ("def squares(xs: list[int]) -> list[int]:\n    return [x * x for x in xs if x > 0]\n",
     lambda xs: [x * x for x in xs if x > 0]),
    ("def largest_two(xs: list[int]) -> list[int]:\n    return sorted(xs, reverse=True)[:2]\n",
     lambda xs: sorted(xs, reverse=True)[:2]),
    ("def distinct(xs: list[int]) -> int:\n    seen = set()\n    for x in xs:\n        seen.add(x)\n"
     "    return len(seen)\n", lambda xs: len(set(xs))),
    ("def running(xs: list[int]) -> list[int]:\n    out = []\n    total = 0\n    for x in xs:\n"
     "        total += x\n        out.append(total)\n    return out\n",
     lambda xs: [sum(xs[:i + 1]) for i in range(len(xs))]),
]
FORGED = "424242"
SECRET_NAME = "EXECVERIFY_TEST_SECRET"


def _hostile(path: Path, canary: Path) -> str:
    return path.read_text().replace("{{CANARY}}", str(canary)).replace("{{SECRET_NAME}}", SECRET_NAME)


def _functions(tmp_path: Path, canary: Path) -> list[dict]:
    rows = []
    for (code, _), path in zip(HONEST, HOSTILE):
        rows.append({"code": _hostile(path, canary), "entry_point": "total", "id": path.name})
        rows.append({"code": code, "entry_point": code.split("(")[0][4:], "id": f"honest-after-{path.name}"})
    return rows


def _check_records(records, secret: str) -> None:
    from execverify_data.values import parse

    kept = {r.source_id: r for r in records}
    for (_, python), path in zip(HONEST, HOSTILE):  # the honest function after each hostile one: kept, right
        honest = kept.get(f"honest-after-{path.name}")
        assert honest is not None, f"the honest function after {path.name} was dropped"
        for text, out in zip(honest.inputs, honest.outputs):
            assert parse(out) == python(parse(f"[{text}]")[0]), (path.name, text, out)
    for record in records:
        for out in record.outputs:
            assert FORGED not in out and secret not in out, (record.source_id, out)


def _check_traces(tmp_path: Path, canary: Path) -> None:
    """Every state a sandbox trace of a hostile function gives is Python's (no 424242 anywhere)."""
    from execverify_data.synth.filters import TraceBackend

    with TraceBackend("sandbox", max_steps=5000, timeout=5.0) as tracer:
        for path in HOSTILE:
            for trace in tracer.trace_many(_hostile(path, canary), ["total([1, 2, 3])", "total([5])"]):
                for event in trace.events:
                    assert all(FORGED not in v.text for v in event.locals.values()), (path.name, event)
                assert trace.output is None or FORGED not in trace.output.text, path.name


def test_there_is_a_hostile_function_for_each_attack():
    assert len(HOSTILE) >= 6 and len(HONEST) >= len(HOSTILE)


def test_hostile_functions_with_every_layer(tmp_path):
    """The real command, in a process whose environment holds a secret."""
    canary = tmp_path / "outside" / "pwned"
    canary.parent.mkdir()
    source = tmp_path / "funcs.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in _functions(tmp_path, canary)))
    secret = os.urandom(12).hex()
    env = {**os.environ, SECRET_NAME: secret}
    done = subprocess.run([sys.executable, "-m", "execverify_data", "from-code", str(source), "--out",
                           str(tmp_path / "out"), "--seed", "3"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not canary.exists() and not Path(f"{canary}.system").exists()
    assert sorted(p.name for p in canary.parent.iterdir()) == []
    from execverify_data import shards

    records = list(shards.read_records(tmp_path / "out"))
    _check_records(records, secret)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["from_code"]["examples"].get("refused", "").split(":")[0].endswith(".py.txt")
    kept = {r.source_id for r in records}
    for name in ("01_write_outside_out.py.txt", "02_read_ancestor_environ.py.txt", "03_forge_through_a_traceback.py.txt",
                 "05_forge_records_on_the_stream.py.txt"):
        assert name not in kept, f"{name} was kept"
    _check_traces(tmp_path, canary)


def _readable_python() -> str | None:
    for python in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(python) and not unreadable_ancestors(interpreter_dirs(python)):
            return python
    return None


def test_hostile_functions_without_bubblewrap(tmp_path, monkeypatch):
    """The conversion a worker runs, with the sandbox's pools started without bubblewrap."""
    if not LAYERS["bwrap"].available:
        options = {}
    else:
        python = _readable_python()
        if python is None and LAYERS["privilege_drop"].available:
            pytest.skip("without bwrap no interpreter here is readable by the sandbox's uid")
        options = {"bwrap": False, **({"python": python} if python else {})}
    from execverify_data import fromcode
    from execverify_data.synth import filters

    monkeypatch.setattr(filters, "SANDBOX_OPTIONS", options)
    canary = tmp_path / "outside" / "pwned"
    canary.parent.mkdir()
    environ = Path("/proc/self/environ").read_bytes().split(b"\0")  # a secret this process has from its start
    secret = next((v.split(b"=", 1)[1].decode() for v in environ if b"=" in v and len(v.split(b"=", 1)[1]) >= 12),
                  "no-such-secret-here")
    functions = [fromcode.Function(r["code"], r["entry_point"], source_id=r["id"]) for r in _functions(tmp_path, canary)]
    config = fromcode.FromCodeConfig(seed=3)
    records = []
    with filters.TraceBackend("sandbox", max_steps=config.max_steps, timeout=config.timeout) as tracer:
        for i, fn in enumerate(functions):
            record, counts = fromcode.convert(fn, i, config, tracer=tracer)
            if record is not None:
                records.append(record)
    assert not canary.exists() and not Path(f"{canary}.system").exists()
    _check_records([r for r in records if not r.source_id.startswith("02_")], secret)
    assert all(secret not in out for r in records for out in r.outputs)
    _check_traces(tmp_path, canary)
