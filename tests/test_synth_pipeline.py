"""The synthesis pipeline: byte-identical shards across workers, resume, re-execution in a fresh interpreter."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from execverify_data.errors import InvalidArgument
from execverify_data.pipeline import SynthConfig, level_for, synthesize, synthesize_rows
from execverify_data.records import record_schema
from execverify_data.seeds import row_seed

ROOT = Path(__file__).resolve().parents[1]


def _digests(out: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.glob("shard-*.parquet"))}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    config = SynthConfig(n_programs=72, seed=3, shard_size=24)
    one = tmp_path_factory.mktemp("w1")
    two = tmp_path_factory.mktemp("w2")
    s1 = synthesize(config, one, workers=1)
    s2 = synthesize(config, two, workers=2)
    return config, one, two, s1, s2


def test_shards_are_byte_identical_whatever_the_workers(runs):
    _, one, two, _, _ = runs
    d1, d2 = _digests(one), _digests(two)
    assert len(d1) >= 3 and d1 == d2


def test_records_have_the_documented_fields(runs):
    config, one, _, summary, _ = runs
    table = pq.read_table(one / "shard-00000.parquet").to_pylist()
    assert table and list(table[0]) == record_schema().names
    for row in table:
        assert config.k <= len(row["inputs"]) <= config.k + 3  # at least k: more where the coverage needs them
        assert len(row["inputs"]) == len(row["outputs"]) == len(row["output_types"])
        assert len(set(row["outputs"])) >= 2
        assert row["level"] == level_for(row["row"], config.levels)
        assert row["spec"]["target"] == row["target"]
    assert summary["accepted"] == sum(len(pq.read_table(p)) for p in one.glob("shard-*.parquet"))
    assert json.loads((one / "summary.json").read_text())["accepted"] == summary["accepted"]
    assert summary["rejected"].get("checker", 0) == 0


def test_resume_after_a_lost_shard_gives_the_same_bytes(runs):
    config, one, _, _, _ = runs
    before = _digests(one)
    last = len(before) - 1
    (one / f"shard-{last:05d}.parquet").unlink()
    (one / f"shard-{last:05d}.stats.json").unlink()
    (one / f".shard-{last:05d}.parquet.tmp-123").write_bytes(b"partial")  # a leftover of a killed writer
    summary = synthesize(config, one, workers=1)
    assert _digests(one) == before
    assert summary["throughput"]["shards_run"] == 1 and summary["throughput"]["shards_resumed"] == last
    # a shard lost in the middle: the later ones depend on it (duplicates), so they are made again, the same
    (one / "shard-00001.stats.json").unlink()
    summary = synthesize(config, one, workers=2)
    assert _digests(one) == before
    assert summary["throughput"]["shards_run"] == last and summary["throughput"]["shards_resumed"] == 1


def test_a_run_keeps_n_distinct_programs_across_shards(tmp_path):
    """Duplicates are removed over the whole run (generator 1.1 removed them per shard only), and rows after
    ``n`` replace the rows left out, so the run has exactly ``n`` programs."""
    config = SynthConfig(n_programs=300, seed=2, levels=(1,), shard_size=25)
    summary = synthesize(config, tmp_path, workers=2)
    rows = [r for p in sorted(tmp_path.glob("shard-*.parquet")) for r in pq.read_table(p, columns=["row", "ast_hash"]).to_pylist()]
    assert len(rows) == summary["accepted"] == 300
    assert len({r["ast_hash"] for r in rows}) == 300
    assert summary["rejected"]["duplicate"] >= 5  # level-1 programs repeat: the rule is exercised
    assert summary["rows"] == max(r["row"] for r in rows) + 1 > 300
    assert [r["row"] for r in rows] == sorted(r["row"] for r in rows)


def test_rows_skip_before_any_run_the_programs_earlier_shards_kept(tmp_path, monkeypatch):
    """A row whose program an earlier shard kept ends as a duplicate at once (KnownPrograms), and a run
    where that happens gives the same bytes with 1 and 2 workers."""
    from execverify_data.pipeline import iter_rows
    from execverify_data.shards import KnownPrograms, write_records
    from execverify_data.synth import filters

    config = SynthConfig(n_programs=40, seed=5, levels=(1,))
    records, stats = synthesize_rows(config, 0, 40)
    assert len(records) >= 20
    write_records(tmp_path, 0, records, stats)
    known = KnownPrograms(tmp_path, 1, config.identity())
    assert all(r.ast_hash in known for r in records) and "0" * 40 not in known
    assert not any(r.ast_hash in KnownPrograms(tmp_path, 0, config.identity()) for r in records)
    kept = {r.row for r in records}
    real_draw = filters.draw_inputs
    drawn: list[str] = []
    monkeypatch.setattr(filters, "draw_inputs", lambda *a, **k: drawn.append(a) or real_draw(*a, **k))
    tracer = filters.TraceBackend("inprocess")
    try:
        again = list(iter_rows(config, 0, 40, tracer=tracer, known=known))
    finally:
        tracer.close()
    assert all(r.record is None for r in again)  # every program these rows keep is known
    assert all(r.counts["duplicate"] == 1 for r in again if r.row in kept)
    first_try = sum(1 for r in again if r.row in kept and r.counts["attempts"] == 1)
    assert first_try >= 5  # those rows ran nothing: the known program was their first (8 of 40 since 3.0 rejects
    # effectless calls, so fewer rows keep their first attempt)
    assert len(drawn) <= sum(r.counts["attempts"] for r in again) - first_try

    small = SynthConfig(n_programs=150, seed=2, levels=(1, 2), shard_size=25)
    one, two = tmp_path / "one", tmp_path / "two"
    s1, s2 = synthesize(small, one, workers=1), synthesize(small, two, workers=2)
    assert _digests(one) == _digests(two) and len(_digests(one)) >= 4
    assert s1["rejected"] == s2["rejected"] and s1["rejected"]["duplicate"] >= 5


def test_run_ordered_makes_a_shards_jobs_only_after_the_lagged_shard_is_finished():
    import random
    from concurrent.futures import ThreadPoolExecutor

    from execverify_data.shards import run_ordered

    events: list[tuple[str, int]] = []

    def work(shard: int, delay: float) -> int:
        time.sleep(delay)
        return shard

    def jobs_of(shard: int):
        events.append(("jobs", shard))
        rng = random.Random(shard)
        return [(work, [shard, rng.random() / 200]) for _ in range(3)]

    def finish(shard: int, results: list) -> bool:
        assert results == [shard] * 3
        events.append(("finish", shard))
        return shard == 9

    with ThreadPoolExecutor(4) as pool:
        run_ordered(pool.submit, jobs_of, finish, inflight=8, lag=2)
    for kind, shard in events:
        if kind == "jobs" and shard >= 2:
            assert events.index(("finish", shard - 2)) < events.index(("jobs", shard))
    assert [s for kind, s in events if kind == "finish"] == list(range(10))
    assert ("jobs", 4) in events and events.index(("jobs", 3)) > events.index(("finish", 0))


def test_progress_counts_programs_and_ends_at_what_was_written(tmp_path):
    seen = []
    summary = synthesize(SynthConfig(n_programs=60, seed=4, shard_size=60), tmp_path, workers=2, progress=lambda d, t: seen.append((d, t)))
    assert all(t == 60 and 0 <= d <= 60 for d, t in seen)
    assert len({d for d, _ in seen}) > 3  # moves as chunks finish, not once per shard
    assert seen[-1][0] == summary["accepted"] == 60


def test_other_settings_in_the_same_folder_are_refused(runs):
    config, one, _, _, _ = runs
    with pytest.raises(InvalidArgument, match="other settings"):
        synthesize(SynthConfig(n_programs=72, seed=4, shard_size=24), one)


def test_outputs_equal_a_plain_run_in_a_fresh_interpreter(runs):
    from execverify_data.reexecute import check_rows

    _, one, _, _, _ = runs
    rows = [r for p in sorted(one.glob("shard-*.parquet")) for r in pq.read_table(p).to_pylist()]
    report = check_rows(rows, hash_seed=0, states=True)
    assert report.calls == sum(len(r["inputs"]) for r in rows) and report.mismatches == []


def test_row_seeds_depend_on_seed_and_row_only():
    assert row_seed(1, 2) == row_seed(1, 2)
    assert len({row_seed(1, i) for i in range(1000)}) == 1000
    assert [level_for(i, (1, 2, 3)) for i in range(6)] == [1, 2, 3, 1, 2, 3]
    a, _ = synthesize_rows(SynthConfig(n_programs=10, seed=8), 4, 9)
    b, _ = synthesize_rows(SynthConfig(n_programs=10, seed=8), 3, 9)
    assert a and a == [r for r in b if r.row >= 4]


@pytest.mark.parametrize(
    "kwargs",
    [dict(n_programs=0), dict(n_programs=5, seed=-1), dict(n_programs=5, levels=(7,)), dict(n_programs=5, levels=(1, 1)), dict(n_programs=5, k=2),
     dict(n_programs=5, shard_size=0), dict(n_programs=5, tracer="docker")],
)
def test_bad_configs(kwargs):
    with pytest.raises(InvalidArgument):
        SynthConfig(**kwargs)


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


@pytest.mark.slow
def test_killed_run_resumes_without_losing_or_duplicating_rows(tmp_path):
    cmd = [sys.executable, "-c", "from execverify_data.cli import main; main()", "synthesize", "--n", "240", "--seed", "5", "--shard-size", "40",
           "--workers", "1", "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    killed = tmp_path / "killed"
    proc = subprocess.Popen([*cmd, "--out", str(killed)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not list(killed.glob("shard-*.stats.json")) and proc.poll() is None:
        time.sleep(0.05)
    workers = _children(proc.pid)
    proc.kill()
    proc.wait()
    assert len(list(killed.glob("shard-*.parquet"))) < 6
    assert workers  # the pool's worker, alive when its parent was killed
    deadline = time.time() + 10
    while time.time() < deadline and any(os.path.exists(f"/proc/{pid}") for pid in workers):
        time.sleep(0.05)
    assert not [pid for pid in workers if os.path.exists(f"/proc/{pid}")]  # it died with the run (it waited for ever)
    subprocess.run([*cmd, "--out", str(killed)], env=env, check=True, capture_output=True, timeout=300)
    clean = tmp_path / "clean"
    subprocess.run([*cmd, "--out", str(clean), "--workers", "2"], env=env, check=True, capture_output=True, timeout=300)
    assert _digests(killed) == _digests(clean)
    ids = [i for p in sorted(killed.glob("shard-*.parquet")) for i in pq.read_table(p, columns=["id"])["id"].to_pylist()]
    assert len(ids) == len(set(ids))


def test_trusted_runner_tracer_agrees_with_the_in_process_tracer(tmp_path):
    # the in-process tracer picks inputs with plain calls first, the trusted one with traces:
    # the rule is the same, so the same rows agree (they can differ only when a candidate
    # input exceeds the step budget)
    config = dict(n_programs=12, seed=4, shard_size=12)
    synthesize(SynthConfig(**config), tmp_path / "a", workers=1)
    synthesize(SynthConfig(**config, tracer="trusted"), tmp_path / "b", workers=1)
    # (every shard: a row given up or a duplicate leaves its program to a later row, perhaps of the next shard)
    a = {r["id"]: r for p in sorted((tmp_path / "a").glob("shard-*.parquet")) for r in pq.read_table(p).to_pylist()}
    b = {r["id"]: r for p in sorted((tmp_path / "b").glob("shard-*.parquet")) for r in pq.read_table(p).to_pylist()}
    assert len(a) == len(b) == 12
    same = [i for i in a if i in b and a[i]["seed"] == b[i]["seed"]]
    assert len(same) >= 10
    for i in same:
        assert (a[i]["code"], a[i]["inputs"], a[i]["outputs"], a[i]["trace_lengths"]) == \
               (b[i]["code"], b[i]["inputs"], b[i]["outputs"], b[i]["trace_lengths"])


def test_description_goes_from_the_program_into_the_shards_and_back(tmp_path, monkeypatch):
    """A program's description is its record's, survives parquet, and a shard written before the column existed
    reads as ""."""
    import dataclasses

    from execverify_data import shards
    from execverify_data.synth import generator

    made = generator.generate

    def described(spec, seed, **kwargs):
        program = made(spec, seed, **kwargs)
        return dataclasses.replace(program, description=f"Return what `{program.param_names[0]}` gives (seed {seed}).")

    monkeypatch.setattr(generator, "generate", described)
    records, _ = synthesize_rows(SynthConfig(n_programs=4, seed=5), 0, 4)
    assert records and all(r.description.startswith("Return what `") for r in records)
    shards.write_records(tmp_path, 0, records, {})
    assert pq.read_table(tmp_path / "shard-00000.parquet").column("description").to_pylist() == [r.description for r in records]
    assert shards.read_records(tmp_path) == records
    old = pq.read_table(tmp_path / "shard-00000.parquet").drop_columns(["description"])
    pq.write_table(old, tmp_path / "shard-00000.parquet")
    assert shards.read_records(tmp_path) == [dataclasses.replace(r, description="") for r in records]
