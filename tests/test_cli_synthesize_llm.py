"""``execverify synthesize --generator llm:SPEC``: LLM rows end to end, through the tiny offline model and the
local OpenAI-compatible server; a mix by share (workers, resume); model-written code traced in the untrusted sandbox.
Bad arguments: tests/test_cli_errors.py."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from execverify_data.cli import main
from execverify_data.pipeline import MAX_ROWS_FACTOR, ROW_ATTEMPTS, SynthConfig, generator_for, level_for
from execverify_data.seeds import row_seed
from execverify_data.synth.checker import check
from execverify_data.synth.spec import ConstraintSpec
from execverify_data.testing import OpenAICompatibleServer

os.environ.setdefault("OMP_NUM_THREADS", "1")  # inherited by the spawned workers
ROOT = Path(__file__).resolve().parents[1]
LEVELS = (1, 2, 3, 4, 5, 6)
SEED = 5


def _digests(out: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.glob("shard-*.parquet"))}


def _rows(out: Path) -> list[dict]:
    return [r for p in sorted(out.glob("shard-*.parquet")) for r in pq.read_table(p).to_pylist()]


def _invoke(args: list[str]):
    result = CliRunner().invoke(main, ["synthesize", "--quiet", *args])
    assert result.exit_code == 0, result.output
    return result


def _honest(summary: dict) -> None:
    """Every row is accepted, a duplicate or given up; every attempt is accepted or has a reason."""
    assert sum(g["rows"] for g in summary["generators"].values()) == summary["rows"]
    assert sum(g["accepted"] for g in summary["generators"].values()) == summary["accepted"]
    for name, g in summary["generators"].items():
        rejected = g["rejected"]
        assert g["rows"] == g["accepted"] + rejected.get("row_given_up", 0) + rejected.get("duplicate", 0), name
        per_attempt = sum(v for k, v in rejected.items() if k not in ("row_given_up", "duplicate", "input_raised", "repaired"))
        assert g["attempts"] == per_attempt + g["accepted"] + rejected.get("duplicate", 0), name
        assert g["generated"] <= g["attempts"]


# ---------------------------------------------------------------- a backend that knows good programs


def _known_good(seed: int, rows: int, levels=LEVELS, per_row: int = 4) -> dict[str, list[str]]:
    """``{prompt: programs}``: for each row's spec (as the pipeline draws it), up to ``per_row`` programs the
    programmatic generator wrote for it (they meet the spec; the filters may still reject some)."""
    from execverify_data.synth.generator import GenFail, generate, spec_for
    from execverify_data.synth.llm import render_prompt

    table: dict[str, list[str]] = {}
    for i in range(rows):
        spec = spec_for(level_for(i, levels), row_seed(seed, i))
        found = []
        for attempt in range(ROW_ATTEMPTS):
            try:
                found.append(generate(spec, row_seed(seed, i, attempt)).code)
            except GenFail:
                continue
            if len(found) == per_row:
                break
        table[render_prompt(spec)] = found
    return table


class KnownGood:
    """A backend answering each prompt with the known good programs for its spec (prose around a fenced
    block), and, for the samples beyond them or a prompt it does not know, text without code."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table

    def generate(self, prompts, *, n=1, temperature=1.0, max_new_tokens=256, seed=None, stop=None, top_p=1.0):
        out = []
        for prompt in prompts:
            text = prompt[-1]["content"] if isinstance(prompt, list) else prompt
            codes = self.table.get(text, [])
            out.append([f"Here it is.\n```python\n{codes[j]}```\nDone." if j < len(codes) else "I cannot do that."
                        for j in range(n)])
        return out


@pytest.fixture(scope="module")
def server():
    with OpenAICompatibleServer(KnownGood(_known_good(SEED, 60)), model_name="known-good") as s:
        yield s


def _mix(server) -> list[str]:
    return ["--n", "12", "--seed", str(SEED), "--shard-size", "4", "--llm-samples", "4",
            "--generator", "program", "--share", "0.7", "--generator", f"llm:openai:{server.base_url}#known-good", "--share", "0.3"]


@pytest.fixture(scope="module")
def mix_runs(server, tmp_path_factory):
    one, two = tmp_path_factory.mktemp("w1") / "o", tmp_path_factory.mktemp("w2") / "o"
    first = _invoke([*_mix(server), "--workers", "1", "--out", str(one)])
    _invoke([*_mix(server), "--workers", "2", "--out", str(two)])
    return one, two, first


def test_server_rows_are_accepted_checked_and_reexecute(server, mix_runs):
    from execverify_data.reexecute import check_rows

    one, _, result = mix_runs
    summary = json.loads((one / "summary.json").read_text())
    name = f"llm:openai:{server.base_url}#known-good"
    assert set(summary["generators"]) == {"program", name}
    _honest(summary)
    rows = _rows(one)
    llm = [r for r in rows if r["generator"].startswith("llm:")]
    assert len(llm) >= 1 and summary["generators"][name]["accepted"] == len(llm)
    assert {r["generator"] for r in llm} == {"llm:openai:known-good llm-prompt-v2"}
    assert all(r["generator_version"] == "llm-prompt-v2" for r in llm)
    assert {r["generator"].split(" ")[0] for r in rows if r not in llm} == {"program"}
    for r in llm:
        assert check(r["code"], ConstraintSpec.from_dict(r["spec"])).ok
        k = SynthConfig(n_programs=1).k  # at least k inputs, up to k + 3 where the branches need them (coverage.choose)
        assert len(r["inputs"]) == len(r["outputs"]) and k <= len(r["inputs"]) <= k + 3 and len(set(r["outputs"])) >= 2
    report = check_rows(llm, hash_seed=0, states=True)  # `assert f(INPUT) == OUTPUT` as source, in a fresh interpreter
    assert report.calls == sum(len(r["inputs"]) for r in llm) and report.mismatches == []
    # the server saw each LLM row's prompt once, with the row's own seed
    bodies = [b for route, b in server.requests if route == "/v1/chat/completions"]
    assert {b["seed"] for b in bodies} >= {r["seed"] for r in llm} and all(b["n"] == 4 for b in bodies)
    assert f"{name}: {len(llm)} of {summary['generators'][name]['rows']} rows kept" in result.output


def test_mix_assignment_is_a_function_of_seed_and_row(server, mix_runs):
    one, _, _ = mix_runs
    config = SynthConfig(n_programs=12, seed=SEED, generators=(("program", 0.7), (f"llm:openai:{server.base_url}#known-good", 0.3)))
    for r in _rows(one):
        assert r["generator"].startswith("llm:") == (generator_for(r["row"], config) != "program")
    # neither n, the shard size, the levels nor the other settings move a row's generator; the seed does
    other = SynthConfig(n_programs=500, seed=SEED, shard_size=7, levels=(2, 5), k=6, generators=config.generators)
    assert [generator_for(i, other) for i in range(400)] == [generator_for(i, config) for i in range(400)]
    reseeded = SynthConfig(n_programs=12, seed=SEED + 1, generators=config.generators)
    assert [generator_for(i, reseeded) for i in range(400)] != [generator_for(i, config) for i in range(400)]
    llm = sum(generator_for(i, config) != "program" for i in range(1000))
    assert 295 <= llm <= 305  # the share, to within a few rows
    for level in LEVELS:  # not aligned with the levels' round robin
        rows = [i for i in range(1200) if level_for(i, LEVELS) == level]
        assert 0.25 < sum(generator_for(i, config) != "program" for i in rows) / len(rows) < 0.35


def test_mix_bytes_do_not_depend_on_workers(mix_runs):
    one, two, _ = mix_runs
    d1 = _digests(one)
    assert len(d1) >= 3 and d1 == _digests(two)
    s1, s2 = (json.loads((o / "summary.json").read_text()) for o in (one, two))
    assert s1["generators"] == s2["generators"]


def test_mix_resume_keeps_finished_shards(server, mix_runs, tmp_path):
    import shutil

    one, _, _ = mix_runs
    out = tmp_path / "o"
    shutil.copytree(one, out)
    before = _digests(out)
    last = len(before) - 1
    (out / f"shard-{last:05d}.parquet").unlink()
    (out / f"shard-{last:05d}.stats.json").unlink()
    (out / f".shard-{last:05d}.parquet.tmp-9").write_bytes(b"partial")  # a leftover of a killed writer
    kept = {p.name: p.stat().st_mtime_ns for p in out.glob("shard-*.parquet")}
    requests = len(server.requests)
    result = _invoke([*_mix(server), "--workers", "2", "--out", str(out), "--json"])
    summary = json.loads(result.stdout)
    assert _digests(out) == before
    assert summary["throughput"]["shards_resumed"] == last and summary["throughput"]["shards_run"] == 1
    assert {p: out.joinpath(p).stat().st_mtime_ns for p in kept} == kept  # finished shards untouched
    asked = {b["seed"] for _, b in server.requests[requests:]}
    config = SynthConfig(n_programs=12, seed=SEED, generators=(("program", 0.7), (f"llm:openai:{server.base_url}#known-good", 0.3)))
    llm_rows = [i for i in range(summary["rows"]) if generator_for(i, config) != "program"]
    lost = {row_seed(SEED, i) for i in llm_rows if i >= last * 4}
    assert lost and lost <= asked  # the lost shard's LLM rows were asked again (later ones may be, ahead of need)
    assert not asked & {row_seed(SEED, i) for i in llm_rows if i < last * 4}  # the finished shards' never


@pytest.mark.slow
def test_a_killed_run_resumes(server, tmp_path):
    """The command killed in the middle of a mixed run, then run again, gives the bytes of a clean run."""
    import time

    mix = [*_mix(server), "--workers", "1", "--n", "24", "--shard-size", "3"]  # the last --n, --shard-size count
    cmd = [sys.executable, "-c", "from execverify_data.cli import main; main()", "synthesize", "--quiet", *mix]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    killed = tmp_path / "killed"
    proc = subprocess.Popen([*cmd, "--out", str(killed)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not list(killed.glob("shard-*.stats.json")) and proc.poll() is None:
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    finished = len(list(killed.glob("shard-*.stats.json")))
    assert finished >= 1 and not (killed / "summary.json").exists()  # killed after a shard, before the end
    result = _invoke([*mix, "--out", str(killed), "--json"])
    summary = json.loads(result.stdout)
    assert summary["throughput"]["shards_resumed"] >= finished and summary["shards"] >= 8
    clean = tmp_path / "clean"
    _invoke([*mix, "--out", str(clean)])
    assert _digests(killed) == _digests(clean)


def test_a_server_that_stops_answering_mid_run_keeps_finished_shards(tmp_path):
    class Flaky(KnownGood):
        calls = 0

        def generate(self, prompts, **kwargs):
            Flaky.calls += 1
            if Flaky.calls > 6:  # one request per prompt: the first shard (4 rows) is answered
                raise ValueError("the model went away")  # the test server answers HTTP 400
            return super().generate(prompts, **kwargs)

    out = tmp_path / "o"
    with OpenAICompatibleServer(Flaky(_known_good(SEED, 12)), model_name="m") as flaky:
        result = CliRunner().invoke(main, ["synthesize", "--quiet", "--n", "12", "--seed", str(SEED), "--shard-size", "4",
                                           "--workers", "1", "--generator", f"llm:openai:{flaky.base_url}#m",
                                           "--llm-samples", "2", "--out", str(out)])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    [line] = [line for line in result.output.splitlines() if line.strip()]
    assert line.startswith("Error: --generator: ") and "the model went away" in line and line.endswith("; rerun to resume"), line
    assert list(out.glob("shard-*.parquet")) and not (out / "summary.json").exists()


# ---------------------------------------------------------------- the tiny offline model


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from execverify_data.testing import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def test_tiny_model_end_to_end(tiny_model, tmp_path):
    """A random-weight model writes garbage: the counts say so honestly, and nothing it wrote is kept unchecked."""
    out = tmp_path / "o"
    result = _invoke(["--n", "6", "--seed", "1", "--shard-size", "6", "--llm-samples", "2", "--llm-max-new-tokens", "24",
                      "--generator", f"llm:transformers:{tiny_model}", "--out", str(out), "--json"])
    summary = json.loads(result.stdout)
    name = f"llm:transformers:{tiny_model}"
    assert set(summary["generators"]) == {name}
    _honest(summary)
    g = summary["generators"][name]
    # rows are tried up to the run's bound: MAX_ROWS_FACTOR n + shard size
    assert g["rows"] == summary["rows"] == MAX_ROWS_FACTOR * 6 + 6
    assert g["rows"] <= g["attempts"] <= 2 * g["rows"] and (g["accepted"] > 0 or g["attempts"] == 2 * g["rows"])
    assert g["rejected"].get("no_code", 0) + g["rejected"].get("syntax_error", 0) > 0  # garbage, named as such
    assert not any(key.startswith("filter:") for key in g["rejected"])  # the filters' keys, as for programmatic rows
    for r in _rows(out):  # any accepted row passed the checker and says who wrote it
        assert r["generator"] == "llm:transformers:model llm-prompt-v2"  # the folder's name, not where it lies
        assert check(r["code"], ConstraintSpec.from_dict(r["spec"])).ok
    assert len(_rows(out)) == summary["accepted"] == g["accepted"]


def test_tiny_model_mix_over_http_in_a_subprocess(tiny_model, tmp_path):
    """The tiny model behind the OpenAI-compatible server, mixed with the programmatic generator, from a shell."""
    from execverify_data.models import get_backend

    backend = get_backend(f"transformers:{tiny_model}", device="cpu")
    out = tmp_path / "o"
    with OpenAICompatibleServer(backend, model_name="tiny") as tiny:
        url = tiny.base_url
        proc = subprocess.run(
            [sys.executable, "-m", "execverify_data", "synthesize", "--n", "8", "--seed", "2", "--shard-size", "8",
             "--workers", "1", "--quiet", "--llm-samples", "2", "--llm-max-new-tokens", "16", "--llm-prompt", "completion",
             "--generator", "program", "--share", "0.5", "--generator", f"llm:openai:{url}", "--share", "0.5",
             "--out", str(out)],
            env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=600)
        routes = {route for route, _ in tiny.requests}
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    _honest(summary)
    name = f"llm:openai:{url}"
    assert set(summary["generators"]) == {"program", name} and summary["generators"]["program"]["accepted"] > 0
    assert routes >= {"/v1/completions"}  # --llm-prompt completion: a base model's prompt
    assert f"  {name}: " in proc.stdout and "rows kept" in proc.stdout
    for r in _rows(out):
        if r["generator"].startswith("llm:"):
            assert r["generator"] == "llm:openai:tiny llm-prompt-v2"  # the served model's id, found from the server
            assert check(r["code"], ConstraintSpec.from_dict(r["spec"])).ok


# ---------------------------------------------------------------- model-written code is traced in the untrusted sandbox


def test_llm_rows_are_traced_in_the_sandbox(server, monkeypatch):
    """With the in-process tracer for programmatic rows, no line of a model-written program runs in this process."""
    from execverify_data import pipeline
    from execverify_data.synth import coverage, filters

    # no '#MODEL': the server's first model is used, and recorded
    config = SynthConfig(n_programs=8, seed=SEED, generators=(("program", 0.5), (f"llm:openai:{server.base_url}", 0.5)))
    llm_rows = [i for i in range(8) if generator_for(i, config) != "program"]
    assert llm_rows
    from execverify_data.synth.generator import spec_for
    from execverify_data.synth.llm import render_prompt

    table = server.backend.table
    model_code = {code for i in llm_rows
                  for code in table[render_prompt(spec_for(level_for(i, LEVELS), row_seed(SEED, i)))]}
    seen: list[tuple[str, str]] = []
    probe, trace_many = coverage.Probe.__init__, filters.TraceBackend.trace_many

    def spy_probe(self, code, entry):  # runs `code` in this process
        seen.append(("inprocess", code))
        probe(self, code, entry)

    def spy_trace_many(self, source, calls):
        seen.append((self.kind, source))
        return trace_many(self, source, calls)

    monkeypatch.setattr(coverage.Probe, "__init__", spy_probe)
    monkeypatch.setattr(filters.TraceBackend, "trace_many", spy_trace_many)
    inprocess = filters.TraceBackend("inprocess")
    try:
        records, stats = pipeline.synthesize_rows(config, 0, 8, tracer=inprocess)
        chunk = pipeline.synthesize_chunk(config, 0, 8)  # a worker's path
    finally:
        inprocess.close()
    assert records == [r.record for r in chunk["rows"] if r.record]
    assert stats["by_generator"][config.generators[1][0]]["accepted"] >= 1
    assert {r.generator for r in records if r.generator.startswith("llm:")} == {"llm:openai:known-good llm-prompt-v2"}
    kinds = {kind for kind, source in seen if any(code in source for code in model_code)}
    assert kinds == {"sandbox"}
    assert "inprocess" in {kind for kind, _ in seen}  # the programmatic rows did run in this process


# ---------------------------------------------------------------- the library's checks


@pytest.mark.parametrize(("generators", "error", "match"), [
    ((("program", 0.5),), "InvalidArgument", "shares must sum to 1, got 0.5"),
    ((("program", 0.5), ("program", 0.5)), "InvalidArgument", "each generator is listed once"),
    ((("gpt", 1.0),), "InvalidArgument", "a generator is 'program' or 'llm:BACKEND_SPEC', got 'gpt'"),
    ((("program", 0.0), ("llm:openai:http://x#m", 1.0)), "InvalidArgument", "must be a number in (0, 1]"),
    ((("program", True),), "InvalidArgument", "must be a number in (0, 1]"),
    ("program", "InvalidArgument", "non-empty tuple of (name, share) pairs"),
    ((), "InvalidArgument", "non-empty tuple"),
    (("program",), "InvalidArgument", "must hold (name, share) pairs"),
    ((("llm:hf:gpt2", 1.0),), "BackendSpecError", "unknown backend 'hf'"),
    ((("llm:openai:", 1.0),), "BackendSpecError", "has no target"),
])
def test_bad_generator_configs(generators, error, match):
    import re

    from execverify_data import errors, models

    with pytest.raises(getattr(errors, error, None) or getattr(models, error), match=re.escape(match)):
        SynthConfig(n_programs=5, generators=generators)


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(llm_samples=0), "llm_samples must be a positive int"),
    (dict(llm_max_new_tokens=0), "llm_max_new_tokens must be a positive int"),
    (dict(llm_temperature=-0.1), "llm_temperature must be a number >= 0"),
    (dict(llm_chat="yes"), "llm_chat must be True or False"),
])
def test_bad_llm_settings(kwargs, match):
    from execverify_data.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=match):
        SynthConfig(n_programs=5, **kwargs)


def test_a_programmatic_run_keeps_its_settings_file():
    """Runs without LLM rows record the settings of runs made before the mix (they resume as before)."""
    identity = SynthConfig(n_programs=5).identity()
    assert not {"generators", "llm_samples", "llm_temperature", "llm_max_new_tokens", "llm_chat", "prompt_version"} & set(identity)
    mixed = SynthConfig(n_programs=5, generators=(("program", 0.5), ("llm:openai:http://x/v1#m", 0.5))).identity()
    assert mixed["generators"] == [["program", 0.5], ["llm:openai:http://x/v1#m", 0.5]]
    assert mixed["prompt_version"] == "llm-prompt-v2" and mixed["llm_samples"] == 4


def test_shards_of_an_older_version_are_not_resumed_into(tmp_path):
    """A folder whose shards lack the `generator` field (written before it existed) is refused, not mixed."""
    import pyarrow as pa

    from execverify_data import pipeline, shards
    from execverify_data.errors import InvalidArgument
    from execverify_data.records import record_schema

    config = SynthConfig(n_programs=30, seed=1, shard_size=3)
    shards.claim_folder(tmp_path, config.identity(), hint="use another --out")
    old = pa.schema([f for f in record_schema() if f.name != "generator"])
    pq.write_table(pa.Table.from_pylist([], schema=old), shards.shard_file(tmp_path, 0, "parquet"))
    shards.shard_file(tmp_path, 0, "stats.json").write_text("{}")
    with pytest.raises(InvalidArgument, match="without the field.s. generator, written by an older version"):
        pipeline.synthesize(config, tmp_path)
