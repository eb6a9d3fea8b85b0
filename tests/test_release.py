"""The release builder on a small build: layout, card, manifest, load_dataset, verification, reproducibility, resume."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("datasets")
pytest.importorskip("matplotlib")

from execverify_data.release import ManifestError, ReleaseConfig, verify_manifest  # noqa: E402
from execverify_data.release.builder import build_release, split_of  # noqa: E402
from execverify_data.release.rows import CONFIGS  # noqa: E402

# 3 inputs per program (the fewest): about 44 programs for 130 examples, some of them in the test split
SMALL = dict(version="1.0.0", n_examples=130, seed=3, shard_size=4, k=3)


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    out = tmp_path_factory.mktemp("rel") / "execverify"
    manifest = build_release(ReleaseConfig(**SMALL), out, workers=2)
    return out, manifest


def _shas(manifest: dict) -> dict:
    return {k: v["sha256"] for k, v in manifest["files"].items()}


def test_layout_and_manifest(release):
    out, manifest = release
    files = set(manifest["files"])
    assert "README.md" in files
    for config in CONFIGS:
        assert f"{config}/train-00000-of-00001.parquet" in files
        assert f"{config}/test-00000-of-00001.parquet" in files
    assert {f for f in files if f.startswith("images/")} == {
        "images/level_distribution.png", "images/difficulty_distribution.png",
        "images/trace_length_distribution.png", "images/catalog_coverage.png"}
    assert manifest["total_rows"] >= SMALL["n_examples"]
    # every published row was scored by the consumers' own functions (a build with a failure raises instead)
    assert manifest["verification"]["checked"] == {c: sum(manifest["rows"][c].values()) for c in CONFIGS}
    for key in ("version", "generator_version", "python", "seed", "rows"):
        assert key in manifest
    assert verify_manifest(out)["version"] == "1.0.0"


def test_card_front_matter_and_counts(release):
    out, manifest = release
    import yaml

    text = (out / "README.md").read_text()
    head = yaml.safe_load(text.split("---\n")[1])
    assert head["license"] == "mit" and head["pretty_name"] == "ExecVerify"
    assert {c["config_name"] for c in head["configs"]} == {*CONFIGS, "default"}
    infos = {i["config_name"]: i for i in head["dataset_info"]}
    for config in CONFIGS:
        splits = {s["name"]: s["num_examples"] for s in infos[config]["splits"]}
        assert splits == manifest["rows"][config]
        train, test = manifest["rows"][config].get("train", 0), manifest["rows"][config].get("test", 0)
        assert f"| `{config}` | {train:,} / {test:,} |" in text
    assert f"**{manifest['total_rows']:,} rows**" in text
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        assert (out / image).is_file()
    assert "2603.11226" in text and "v1.0.0" in text


def test_load_dataset_offline(release, monkeypatch):
    out, manifest = release
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from datasets import load_dataset

    for config in (*CONFIGS, "default"):
        ds = load_dataset(str(out), config, cache_dir=str(out.parent / "hf-cache"))
        source = "trace" if config == "default" else config
        assert {k: len(v) for k, v in ds.items()} == manifest["rows"][source]
    row = ds["train"][0]
    assert row["python"] and row["generator_version"] and isinstance(row["seed"], int)


def test_published_references_score_full_marks(release):
    import pyarrow.parquet as pq

    from execverify_data.questions import Scorer

    out, manifest = release
    scorer = Scorer()
    for config in ("io", "oi", "trace", "sft"):
        answer = "completion" if config == "sft" else "reference_completion"
        scored = 0
        for f in sorted((out / config).glob("*.parquet")):
            t = pq.read_table(f).to_pydict()
            results = scorer.score_batch(t["verification"], t[answer])
            assert all(r is not None and all(r.correct) for r in results), (config, f.name)
            scored += len(results)
        assert scored == sum(manifest["rows"][config].values()) > 0, config  # every row, not the rows of no file


def test_codegen_rows(release):
    import pyarrow.parquet as pq

    from execverify_data.rewards import split_assertion

    out, _ = release
    t = pq.read_table(out / "codegen" / "train-00000-of-00001.parquet").to_pylist()
    for row in t:
        assert row["tests"] and row["examples"]
        assert not set(row["tests"]) & set(row["examples"])
        for test in row["tests"]:
            call, _ = split_assertion(test)
            assert call.startswith(row["entry_point"] + "(")
        if row.get("description"):  # a function to complete: the examples are doctests in its docstring
            assert row["description"] in row["prompt"]
            assert all(">>> {}\n    {}\n".format(call, value.text) in row["prompt"]
                       for call, value in map(split_assertion, row["examples"]))
        else:  # programming by example: the assert lines themselves
            assert all(e in row["prompt"] for e in row["examples"])


def test_split_by_structure(release):
    import pyarrow.parquet as pq

    out, _ = release
    train = set(pq.read_table(out / "trace" / "train-00000-of-00001.parquet", columns=["ast_hash"]).column(0).to_pylist())
    test = set(pq.read_table(out / "trace" / "test-00000-of-00001.parquet", columns=["ast_hash"]).column(0).to_pylist())
    assert test and not train & test
    assert split_of("x", 0, 0) == "train"


def test_same_bytes_with_one_worker_and_resume(release, tmp_path):
    out, manifest = release
    other = tmp_path / "one"
    again = build_release(ReleaseConfig(**SMALL), other, workers=1)
    assert _shas(again) == _shas(manifest)
    # lose the last shard's rows, a published shard and the card: the rerun rebuilds them to the same bytes
    work = other.with_name("one.build")
    last = len(list((work / "rows").glob("*.done.json"))) - 1
    for f in (work / "rows").glob(f"shard-{last:05d}.*"):
        f.unlink()
    (other / "trace" / "train-00000-of-00001.parquet").unlink()
    (other / "README.md").write_text("stale")
    resumed = build_release(ReleaseConfig(**SMALL), other, workers=1)
    assert resumed["timing"]["shards_run"] == 1
    assert _shas(resumed) == _shas(manifest)


def test_tampered_folder_fails_verification(release, tmp_path):
    out, _ = release
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    verify_manifest(copy)
    (copy / "io" / "extra.parquet").write_bytes(b"x")
    with pytest.raises(ManifestError, match="not in the manifest"):
        verify_manifest(copy)
    (copy / "io" / "extra.parquet").unlink()
    (copy / "README.md").write_text("edited")
    with pytest.raises(ManifestError, match="sha256 differs: README.md"):
        verify_manifest(copy)


def test_other_settings_refused(release):
    out, _ = release
    from execverify_data.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="other settings"):
        build_release(ReleaseConfig(**{**SMALL, "seed": 4}), out, workers=1)


@pytest.mark.slow
def test_kill_and_rerun_gives_same_bytes(release, tmp_path):
    _, manifest = release
    out = tmp_path / "killed"
    cmd = [sys.executable, "-c", "from execverify_data.cli import main; main()", "build-release", "--version", "1.0.0", "--n", str(SMALL["n_examples"]),
           "--seed", str(SMALL["seed"]), "--shard-size", str(SMALL["shard_size"]), "--inputs-per-program", str(SMALL["k"]),
           "--out", str(out), "--workers", "2", "--quiet"]
    proc = subprocess.Popen(cmd, start_new_session=True)
    rows = out.with_name("killed.build") / "rows"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (rows.exists() and list(rows.glob("*.done.json"))):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    again = json.loads((out / "MANIFEST.json").read_text())
    assert _shas(again) == _shas(manifest)


@pytest.mark.slow
def test_codegen_reference_solutions_pass_unit_test_reward(release):
    import pyarrow.parquet as pq

    from execverify_data.rewards import UnitTestReward

    out, _ = release
    rows = pq.read_table(out / "codegen" / "train-00000-of-00001.parquet").to_pylist()[:10]
    reward = UnitTestReward(workers=1)
    good = reward(prompts=[r["prompt"] for r in rows], completions=[f"```python\n{r['reference_solution']}\n```" for r in rows],
                  tests=[r["tests"] for r in rows], entry_point=[r["entry_point"] for r in rows])
    assert good == [1.0] * len(rows)
    bad = reward(prompts=[rows[0]["prompt"]], completions=[f"```python\ndef {rows[0]['entry_point']}(*a):\n    return None\n```"],
                 tests=[rows[0]["tests"]], entry_point=[rows[0]["entry_point"]])
    assert bad == [0.0]


def test_verifier_names_rows_that_do_not_get_full_marks():
    import json as _json

    from execverify_data.questions import build
    from execverify_data.release.verify import Verifier

    code = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n"
    white = build(code, "f([1, 2])", n_path=1, n_state=1, style="execverify", seed=0)
    io = build(code, "f([1, 2])", n_path=0, n_state=0, style="cruxeval")
    good = {"id": "t-trace-0", "verification": _json.dumps(white.verification), "reference_completion": white.reference_completion}
    wrong = {**good, "id": "t-trace-1", "reference_completion": white.reference_completion.replace("3", "4")}
    io_row = {"id": "t-io-0", "verification": _json.dumps(io.verification), "reference_completion": io.reference_completion}
    codegen = {"id": "t-codegen-0", "prompt": "p", "entry_point": "f", "reference_solution": code,
               "examples": ["assert f([1, 2]) == 3"], "tests": ["assert f([]) == 0", "assert f([5]) == 5"]}
    broken = {**codegen, "id": "t-codegen-1", "reference_solution": "def f(xs):\n    return 0\n"}
    with Verifier() as verifier:
        failures = verifier.check({"trace": [good, wrong], "io": [io_row], "codegen": [codegen, broken]})
    assert {f["id"] for f in failures} == {"t-trace-1", "t-codegen-1"}
    assert any("whitebox_reward" in f["why"] for f in failures)
    assert any("unit_test_reward 0.33" in f["why"] for f in failures)


_FAILING_BUILD = r"""
import sys
from concurrent.futures import Future
from contextlib import contextmanager
from execverify_data.release import builder, verify
from execverify_data.release.config import ReleaseConfig

real = verify.Verifier.check
def check(self, rows):  # one codegen row gets less than full marks
    failures = real(self, rows)
    return failures + [{"id": r["id"], "config": "codegen", "why": "unit_test_reward 0.8 (full marks 1.0)"}
                       for r in rows.get("codegen", [])[:1]]
verify.Verifier.check = check

@contextmanager
def here(workers):  # the chunks run in this process, in the main thread (the prescreen's alarms need it)
    def submit(fn, *args):
        future = Future()
        future.set_result(fn(*args))
        return future
    yield submit
builder.ENGINES["local"] = here
try:
    builder.build_release(ReleaseConfig(version="1.0.0", n_examples=12, seed=3, shard_size=4), sys.argv[1], workers=1)
except verify.VerificationError as exc:
    print("FAILED:", exc)
"""


def test_a_row_without_full_marks_fails_the_build_and_is_named(tmp_path):
    out = tmp_path / "rel"
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-c", _FAILING_BUILD, str(out)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "FAILED:" in done.stdout and "-codegen-0 (unit_test_reward 0.8" in done.stdout, done.stdout
    assert re.search(r"FAILED: \d+ reference answer", done.stdout)
    assert not out.exists()  # nothing published


def _parquet(out: Path, config: str):
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pa.concat_tables([pq.read_table(f) for f in sorted((out / config).glob("*.parquet"))])


def test_n_counts_trace_examples(release):
    out, _ = release
    trace = _parquet(out, "trace").to_pydict()
    per_program: dict[str, int] = {}
    for pid in trace["program_id"]:
        per_program[pid] = per_program.get(pid, 0) + 1
    examples = len(set(zip(trace["program_id"], trace["call"])))
    assert examples == len(trace["id"])  # every trace row is its own (program, input) example
    assert examples >= SMALL["n_examples"]
    # programs are kept in row order until the n-th example: without the last kept program there were fewer
    last = max(per_program, key=lambda pid: int(pid.rsplit("-", 1)[1]))
    assert examples - per_program[last] < SMALL["n_examples"]
    assert min(per_program.values()) >= ReleaseConfig(**SMALL).k  # k traced inputs per program at least
    for config in ("io", "oi", "sft"):  # each example is a row of every question config
        t = _parquet(out, config).to_pydict()
        assert sorted(zip(t["program_id"], t["call"])) == sorted(zip(trace["program_id"], trace["call"]))
    assert sorted(_parquet(out, "codegen").column("program_id").to_pylist()) == sorted(per_program)


def test_card_and_manifest_counts_equal_the_parquet_rows(release):
    out, manifest = release
    text = (out / "README.md").read_text()
    for config in CONFIGS:
        t = _parquet(out, config).to_pydict()
        programs = len(set(t["program_id"]))
        if config == "codegen":
            examples = sum(len(e) + len(x) for e, x in zip(t["examples"], t["tests"]))
        else:
            examples = len(set(zip(t["program_id"], t["call"])))
        assert manifest["contents"][config] == {"rows": len(t["id"]), "programs": programs, "examples": examples}
        assert sum(manifest["rows"][config].values()) == len(t["id"])
        train, test = manifest["rows"][config].get("train", 0), manifest["rows"][config].get("test", 0)
        assert f"| `{config}` | {train:,} / {test:,} | {programs:,} | {examples:,} |" in text
    assert manifest["examples"] == manifest["contents"]["trace"]["examples"]
    assert manifest["programs"] == manifest["contents"]["trace"]["programs"]
    assert f"made from {manifest['programs']:,} programs: {manifest['examples']:,}\ndistinct (program, input) examples" in text


def test_naturalness_table_comes_from_the_builds_programs(release):
    import pyarrow.parquet as pq

    from execverify_data.naturalness import MEASURES, aggregate, measure_programs
    from execverify_data.release.builder import NATURALNESS_KEYS

    out, manifest = release
    cfg = ReleaseConfig(**SMALL)
    work = out.with_name(out.name + ".build")
    records = {r["id"]: r for f in sorted((work / "synth").glob("shard-*.parquet")) for r in pq.read_table(f).to_pylist()}
    kept = set(_parquet(out, "trace").column("program_id").to_pylist())
    measured = [m for f in sorted((work / "rows").glob("*.done.json")) for m in json.loads(f.read_text())["naturalness"]]
    wanted = sorted(pid for pid in kept if records[pid]["row"] % cfg.naturalness_every == 0)
    assert wanted and sorted(m["program_id"] for m in measured) == wanted  # the sampled programs, all of them, only them
    # measured again from the published programs and their inputs (in processes with PYTHONHASHSEED=0, as the workers)
    jobs = [{"source": records[m["program_id"]]["code"], "entry_point": records[m["program_id"]]["entry_point"],
             "inputs": records[m["program_id"]]["inputs"], "types": records[m["program_id"]]["param_types"]} for m in measured]
    figures = measure_programs(jobs, workers=1, seed=cfg.seed, lint=False)
    assert figures == [m["figures"] for m in measured]
    nat = manifest["naturalness"]
    assert nat["release"] == aggregate(figures, keys=NATURALNESS_KEYS) and nat["measured"] == len(wanted)
    assert nat["CRUXEval"]["programs"] == 800 and nat["HumanEval"]["programs"] == 164
    text = (out / "README.md").read_text()
    assert f"| this release ({len(wanted)}) | CRUXEval (800) | HumanEval (164) |" in text
    labels = {key: label for key, label, _ in MEASURES}
    for key in NATURALNESS_KEYS:
        cells = [nat[g][key] for g in ("release", "CRUXEval", "HumanEval")]
        row = f"| {labels[key]} | " + " | ".join("-" if v is None else f"{v:g}" for v in cells) + " |"
        assert row in text, row
    assert nat["release"]["own_one_sided"] == 0  # generator 2.0: every test goes both ways on a row's own inputs


def test_the_release_carries_rendered_example_pages_the_card_links(release):
    out, manifest = release
    pages = manifest["example_pages"]
    assert len(pages) == 5 and all(p.startswith("examples/") and p.endswith(".html") for p in pages)
    trace = _parquet(out, "trace").to_pydict()
    levels = dict(zip(trace["id"], trace["level"]))
    chosen = [Path(p).stem for p in pages]
    assert all(row_id in levels for row_id in chosen)
    assert len({levels[r] for r in chosen}) == min(5, len(set(levels.values())))  # one per level first
    text = (out / "README.md").read_text()
    for page in pages:
        assert f"]({page})" in text and page in manifest["files"]
        html = (out / page).read_text()
        assert "<script" in html and Path(page).stem in html


def test_rows_of_a_record_trace_only_the_codegen_inputs(monkeypatch):
    """Synthesis traced each record's calls; its rows are made from those traces: no call is traced again
    (a trace_call raises here), and only the codegen tests' fresh inputs reach the worker's tracer."""
    import execverify_data.trace as trace_module
    from execverify_data.pipeline import program_rows
    from execverify_data.release.rows import rows_for_program
    from execverify_data.synth.filters import worker_tracer

    cfg = ReleaseConfig(**SMALL)
    synth = cfg.synth_config()
    backend = worker_tracer(synth.tracer, synth.max_steps, synth.timeout)
    outcomes = [o for o in program_rows(synth, 0, 12, tracer=backend) if o.record is not None]
    assert len(outcomes) >= 3

    def no_second_trace(*args, **kwargs):
        raise AssertionError("a record's call was traced again")

    monkeypatch.setattr(trace_module, "trace_call", no_second_trace)
    asked = []

    def trace_many(code, calls):
        asked.append(list(calls))
        return backend.trace_many(code, calls)

    for outcome in outcomes:
        asked.clear()
        out, _ = rows_for_program(outcome.record, cfg, outcome.traces, trace_many)
        assert len(out["trace"]) == len(outcome.record.calls) and out["codegen"]
        fresh = [call for calls in asked for call in calls]
        assert len(asked) <= 1 and not set(fresh) & set(outcome.record.calls)
        assert len(fresh) <= cfg.codegen_extra_inputs


def test_codegen_prompt_without_a_description_is_unchanged():
    """A program without a description keeps the programming-by-example prompt of the releases made before the
    field existed, byte for byte (the text below is what the builder wrote then)."""
    from execverify_data.release.rows import codegen_prompt

    code = "def count_at_least(xs, n):\n    return sum(1 for x in xs if x >= n)\n"
    examples = ["assert count_at_least([1, 5, 7], 5) == 2", "assert count_at_least([], 0) == 0"]
    expected = ("Write a Python function `count_at_least(xs: list[int], n: int) -> int` that behaves as these examples show:\n\n"
                "assert count_at_least([1, 5, 7], 5) == 2\nassert count_at_least([], 0) == 0\n\n"
                "Write the complete function (no other code) in a ```python code block.")
    assert codegen_prompt(code, "count_at_least", ["list[int]", "int"], "int", examples) == expected
    assert codegen_prompt(code, "count_at_least", ["list[int]", "int"], "int", examples, "") == expected


def test_codegen_prompt_with_a_description_is_a_function_to_complete():
    """With a description, the codegen prompt is the signature and a docstring holding the description and the first
    ``codegen_examples`` examples as doctests; the hidden tests stay out of it, and every row carries the description."""
    import dataclasses

    from execverify_data.pipeline import program_rows
    from execverify_data.release.rows import _signature, rows_for_program
    from execverify_data.rewards import split_assertion
    from execverify_data.synth.filters import worker_tracer

    cfg = ReleaseConfig(**SMALL)
    synth = cfg.synth_config()
    backend = worker_tracer(synth.tracer, synth.max_steps, synth.timeout)
    outcomes = [o for o in program_rows(synth, 0, 6, tracer=backend) if o.record is not None]
    assert outcomes
    for outcome in outcomes:
        rec = outcome.record
        plain, _ = rows_for_program(dataclasses.replace(rec, description=""), cfg, outcome.traces, backend.trace_many)
        text = f"Return what `{rec.entry_point}` gives for its arguments."
        described, _ = rows_for_program(dataclasses.replace(rec, description=text), cfg, outcome.traces, backend.trace_many)
        assert all(r["description"] == "" for rows in plain.values() for r in rows)
        assert all(r["description"] == text for rows in described.values() for r in rows)
        (before,), (row,) = plain["codegen"], described["codegen"]
        prompt = row["prompt"]
        assert before["prompt"].startswith("Write a Python function `") and prompt != before["prompt"]
        # only the prompt and the description differ: examples and hidden tests are those of the plain row
        assert {k: v for k, v in row.items() if k not in ("prompt", "description")} == {
            k: v for k, v in before.items() if k not in ("prompt", "description")}
        signature = _signature(rec.code, rec.entry_point, rec.param_types, rec.output_types[0])
        assert f'```python\ndef {signature}:\n    """{text}\n\n    >>> ' in prompt
        assert "complete the python function" in prompt.lower() and prompt.count(">>> ") == cfg.codegen_examples == 2
        for example in row["examples"]:
            call, value = split_assertion(example)
            assert f"    >>> {call}\n    {value.text}\n" in prompt
        for test in row["tests"]:
            assert f">>> {split_assertion(test)[0]}\n" not in prompt and test not in prompt


def test_the_description_column_is_published_only_when_a_program_has_one(release):
    """A build whose programs have no description publishes the columns (and card) of the releases made before the
    field existed; one with descriptions has the column in every config, and the card says what its prompt is."""
    import pyarrow.parquet as pq

    from execverify_data.release.config import schema_for

    out, _ = release
    card = (out / "README.md").read_text()
    described = any(d for f in sorted((out / "trace").glob("*.parquet"))
                    for d in pq.read_table(f).to_pydict().get("description", []))
    for config in CONFIGS:
        for f in sorted((out / config).glob("*.parquet")):
            assert pq.read_schema(f).names == schema_for(config, described=described).names, f
    assert ("| `description` |" in card) == described == ("a function to complete" in card)
    assert ("programming by example: the prompt shows the signature and\n  2 input/output examples;" in card) != described


def test_row_shards_of_an_older_build_read_with_an_empty_description(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from execverify_data.release.builder import _read_rows
    from execverify_data.release.config import schema_for
    from execverify_data.release.engine import rows_file

    (tmp_path / "rows").mkdir()
    old = schema_for("codegen", described=False)
    row = {"id": "a-codegen-0", "program_id": "a", "level": 1, "target": "t", "prompt": "p", "examples": [], "tests": [],
           "reference_solution": "", "code": "", "entry_point": "f", "ast_hash": "h", "difficulty": 0.0, "bucket": 0,
           "features": None, "python": "3", "generator_version": "g", "seed": 0, "release_seed": 0}
    pq.write_table(pa.Table.from_pylist([row], schema=old), rows_file(tmp_path, 0, "codegen"))
    pq.write_table(pa.Table.from_pylist([{**row, "id": "b-codegen-0", "description": "Return 1."}], schema=schema_for("codegen")),
                   rows_file(tmp_path, 1, "codegen"))
    table = _read_rows(tmp_path, 2, "codegen", True)
    assert table.schema.names == schema_for("codegen").names and table.column("description").to_pylist() == ["", "Return 1."]
    assert _read_rows(tmp_path, 2, "codegen", False).schema.names == old.names


def test_inspect_checks_every_claim_of_a_synthetic_release(release, tmp_path):
    """`execverify release inspect`: every count and claim of the card and manifest holds on the rows; a card
    edited afterwards, or a file changed, is named."""
    import shutil

    from click.testing import CliRunner

    from execverify_data.cli import main
    from execverify_data.release.inspect import inspect_release

    out, manifest = release
    report = inspect_release(out)
    assert report.problems == [] and report.checked > 40
    assert report.figures["inputs_per_program"] == manifest["inputs_per_program"]
    assert report.figures["inputs_per_program"]["min"] >= SMALL["k"]
    card = (out / "README.md").read_text()
    assert "every `if` and `while` goes both ways" in card and "replay with `generate(" in card and "## Limitations" in card
    result = CliRunner().invoke(main, ["release", "inspect", str(out)])
    assert result.exit_code == 0 and "claims checked" in result.output and "all hold" in result.output
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    edited = card.replace(f"**{manifest['total_rows']:,} rows**", f"**{manifest['total_rows'] + 1:,} rows**")
    (copy / "README.md").write_text(edited)
    result = CliRunner().invoke(main, ["release", "inspect", str(copy)])  # the manifest's sha256 of the card differs
    assert result.exit_code == 1 and "does not match its manifest" in result.output and "Traceback" not in result.output
