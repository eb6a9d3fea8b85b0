"""The release builder: the whole pipeline into a folder laid out like a Hub dataset repository.

Stage 1 runs the shards (:class:`~execverify_data.release.engine.ReleaseRun`, cached in ``<out>.build``, resumable);
stage 2 (:func:`assemble`) writes the parquet files, plots, card and manifest. ``docs/release.md`` describes
the folder, the card and why the same version and seed give the same bytes.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics as stats_mod
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from string import Template
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from execverify_data.cards import template_path
from execverify_data.difficulty import spearman
from execverify_data.errors import InvalidArgument, check_int
from execverify_data.release.config import DESCRIPTION_COLUMN, ReleaseConfig, schema_for
from execverify_data.release.engine import ReleaseRun, done_markers, rows_file
from execverify_data.release.manifest import MANIFEST, release_files, sha256_file
from execverify_data.release.plots import coverage_by_kind, write_plots
from execverify_data.release.rows import CONFIGS
from execverify_data.release.verify import VerificationError
from execverify_data.release.versions import changelog_until, tag_for
from execverify_data.seeds import split_draw
from execverify_data.shards import ENGINES, claim_folder, shard_file, write_atomic

__all__ = ["build_release", "split_of", "DEFAULT_CONFIG"]

#: The config ``load_dataset(repo)`` gives without a name.
DEFAULT_CONFIG = "trace"
CONFIG_DESCRIPTIONS = {
    "io": "output prediction, CRUXEval format",
    "oi": "input prediction, CRUXEval format",
    "trace": "white-box questions (output, next line, variable state) with `verification`",
    "sft": "white-box prompt + trace-narrated reasoning chain + answer (`prompt`/`completion`)",
    "codegen": "programming by example: examples in the prompt, hidden `tests` + `entry_point`",
}
#: The ``codegen`` line of the config table in a release whose programs have descriptions.
CODEGEN_DESCRIBED = ("a function to complete: its signature and a docstring with its `description` and examples "
                     "in the prompt, hidden `tests` + `entry_point`")
FIELD_DOCS = {
    "id": "row id (`<program_id>-<config>-<input index>`)",
    "program_id": "the program's id in the synthesis run (`synth-<seed>-<row>`)",
    "level": "ConstraintSpec level 1-6 of a synthesized program; 0 for a program given as a record (from-code)",
    "target": "the catalog entry the program was built around",
    "call": "the traced call",
    "task": "`whitebox`, `output` or `input`",
    "prompt": "the prompt text",
    "reference_completion": "the exact completion a perfect model writes (scores 1.0)",
    "completion": "reasoning chain narrated from the trace, then the answer block (scores 1.0)",
    "question_kinds": "kinds of the questions, in order (`io`, `oi`, `path`, `state`)",
    "verification": "JSON object the scorer and the TRL rewards read (questions with canonical answers)",
    "expected_output": "canonical text of the call's return value",
    "expected_type": "type name of the return value",
    "examples": "the `assert` lines shown in the prompt",
    "tests": "hidden unit tests: `assert f(...) == <literal>` strings",
    "reference_solution": "the synthesized program (passes every test)",
    "code": "the program",
    "entry_point": "the function the call / tests name",
    "description": "what the program's function returns, in one or two sentences (`\"\"` when it has none)",
    "ast_hash": "normalized-AST hash (the split key)",
    "difficulty": "heuristic difficulty score in [0, 1]",
    "bucket": "curriculum bucket 0 (easiest) .. 4",
    "features": "static and dynamic difficulty features (struct of ints)",
    "python": "interpreter version that produced the traces",
    "generator_version": "program generator version",
    "seed": "the program's seed (a synthesized program replays with `generate(spec_for(level, seed), seed)`; a given one has nothing to replay)",
    "release_seed": "the release's global seed",
}


def split_of(ast_hash: str, test_permille: int, seed: int) -> str:
    """``"test"`` for a share ``test_permille``/1000 of program structures, by a hash of the normalized AST.

    >>> split_of("ab12", 0, 0), split_of("ab12", 999, 0)
    ('train', 'test')
    """
    return "test" if split_draw(seed, ast_hash) < test_permille else "train"


def _features(config: str, described: bool):
    from datasets import Features

    return Features.from_arrow_schema(schema_for(config, described=described))


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "1M<n<10M"


def build_release(cfg: ReleaseConfig, out: str | os.PathLike, *, workers: int = 1, engine: str = "local",
                  work_dir: str | os.PathLike | None = None, repo_id: str = "execverify/execverify",
                  progress: bool = False, keep_work: bool = True, ray_address: str | None = None) -> dict:
    """Build (or resume) release ``cfg`` into ``out``; return the manifest.

    Args:
        cfg (`ReleaseConfig`): version, size, seed and settings.
        out (`str` or `os.PathLike`): the release folder (created; files of an older build there are replaced).
        workers (`int`, defaults to 1): processes (local engine) or CPUs (local Ray).
        engine (`str`, defaults to ``"local"``): ``"local"`` or ``"ray"``.
        work_dir (optional): cache of per-shard outputs, ``<out>.build`` by default.
        repo_id (`str`): the Hub repository named in the card's examples.
        progress (`bool`): show rich progress bars and a summary table.
        keep_work (`bool`, defaults to True): keep the work folder (to extend or rebuild cheaply).
        ray_address (`str`, optional): with ``engine="ray"``, the cluster to join (``"auto"``, ``"HOST:6379"``);
            a local Ray with ``workers`` CPUs otherwise.
    """
    if engine not in ENGINES:
        raise InvalidArgument(f"unknown engine {engine!r}; choose one of {', '.join(sorted(ENGINES))}")
    check_int("workers", workers)
    out = Path(out)
    work = Path(work_dir) if work_dir is not None else out.with_name(out.name + ".build")
    claim_folder(work, cfg.identity(), hint="use another --work-dir")
    if ray_address is not None and engine != "ray":
        raise InvalidArgument("ray_address is only for engine='ray'")
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    t0 = time.perf_counter()
    columns = (TextColumn("{task.description:<10}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, disable=not progress) as bars:
        task = bars.add_task("examples", total=cfg.n_examples)
        run = ReleaseRun(cfg, work, progress=lambda done, total: bars.update(task, completed=done))
        run.run(workers, engine=engine, **({"address": ray_address} if engine == "ray" else {}))
        failures = [f for done in done_markers(work) for f in done["failures"]]
        if failures:
            listed = ", ".join(f"{f['id']} ({f['why']})" for f in failures[:10])
            more = f" and {len(failures) - 10} more" if len(failures) > 10 else ""
            raise VerificationError(f"{len(failures)} reference answer(s) do not get full marks under the consumers' scorers: "
                                    f"{listed}{more}; no release folder was written (the list is in {work}/rows/*.done.json)")
        t1 = time.perf_counter()
        manifest = assemble(cfg, work, out, repo_id=repo_id, bars=bars)
    manifest_timing = {"shards_seconds": round(t1 - t0, 2), "assemble_seconds": round(time.perf_counter() - t1, 2),
                       "shards_run": run.start - run.resumed, "shards_resumed": run.resumed}
    if progress:
        _print_summary(manifest, manifest_timing, out)
    if not keep_work:
        shutil.rmtree(work, ignore_errors=True)
    return {**manifest, "timing": manifest_timing}


def _print_summary(manifest: dict, timing: dict, out: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"execverify v{manifest['version']} -> {out}")
    for col in ("config", "train", "test", "total"):
        table.add_column(col, justify="right" if col != "config" else "left")
    for config, splits in manifest["rows"].items():
        table.add_row(config, str(splits.get("train", 0)), str(splits.get("test", 0)), str(sum(splits.values())))
    table.add_row("all (default excluded)", "", "", str(manifest["total_rows"]))
    console = Console()
    console.print(table)
    console.print(f"verification failures: {manifest['verification']['failed']}; decontaminated programs: "
                  f"{sum(manifest['decontamination']['dropped'].values())}; shards {timing['shards_seconds']} s, "
                  f"assemble {timing['assemble_seconds']} s ({timing['shards_resumed']} shards resumed)")


def _described(work: Path, n_shards: int) -> bool:
    """Whether a program of the build has a description (every config then has the ``description`` column). The
    ``trace`` rows name every kept program; row shards written before the column existed have none."""
    for s in range(n_shards):
        path = rows_file(work, s, DEFAULT_CONFIG)
        if DESCRIPTION_COLUMN in pq.read_schema(path).names and any(
                pq.read_table(path, columns=[DESCRIPTION_COLUMN]).column(DESCRIPTION_COLUMN).to_pylist()):
            return True
    return False


def _read_rows(work: Path, n_shards: int, config: str, described: bool):
    """A config's rows, in the published columns (:func:`schema_for` with ``described``)."""
    schema = schema_for(config, described=described)
    tables = []
    for s in range(n_shards):
        table = pq.read_table(rows_file(work, s, config))
        if DESCRIPTION_COLUMN in schema.names and DESCRIPTION_COLUMN not in table.schema.names:  # an older row shard
            table = table.append_column(DESCRIPTION_COLUMN, pa.array([""] * table.num_rows, pa.string()))
        tables.append(table.select(schema.names))
    return pa.concat_tables(tables) if tables else pa.Table.from_pylist([], schema=schema)


def _write_parquet(table, path: Path, cfg: ReleaseConfig, features) -> None:
    schema = table.schema.with_metadata({"huggingface": json.dumps({"info": {"features": features.to_dict()}}, sort_keys=True)})
    table = table.cast(schema)
    write_atomic(path, lambda p: pq.write_table(table, p, row_group_size=cfg.row_group_size, compression="zstd",
                                                 compression_level=3, write_statistics=True, store_schema=True))


def assemble(cfg: ReleaseConfig, work: Path, out: Path, *, repo_id: str, bars=None) -> dict:
    """Stage 2: cached shard rows -> the release folder; returns the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    done = done_markers(work)
    n_shards = len(done)
    counts: Counter = Counter()
    rejected: Counter = Counter()
    for d in done:
        counts.update(d["counts"])
        rejected.update(d["synth_rejected"])
    written: set[str] = set()
    rows: dict[str, dict[str, int]] = {}
    split_files: dict[str, dict[str, list[str]]] = {}
    infos: dict[str, Any] = {}
    contents: dict[str, dict[str, int]] = {}
    task = bars.add_task("assemble", total=len(CONFIGS)) if bars is not None else None
    described = _described(work, n_shards)

    def one_config(config: str):
        """Read, split and write one config (the configs are independent: two at a time, in threads, as
        pyarrow reads, filters and compresses without the GIL)."""
        table = _read_rows(work, n_shards, config, described)
        features = _features(config, described)
        hashes = table.column("ast_hash").to_pylist()
        mask = pa.array([split_of(h, cfg.test_permille, cfg.seed) == "test" for h in hashes])
        parts = {"train": table.filter(pc.invert(mask)), "test": table.filter(mask)}
        files_of, split_infos = {}, []
        for split, part in parts.items():
            if part.num_rows == 0:  # (tiny builds) an empty split is left out: datasets cannot read a 0-row parquet file
                continue
            (out / config).mkdir(parents=True, exist_ok=True)
            n_files = max(1, -(-part.num_rows // cfg.rows_per_file))
            files_of[split] = [f"{config}/{split}-{i:05d}-of-{n_files:05d}.parquet" for i in range(n_files)]
            for i, rel in enumerate(files_of[split]):
                _write_parquet(part.slice(i * cfg.rows_per_file, cfg.rows_per_file), out / rel, cfg, features)
            split_infos.append((split, part.nbytes, part.num_rows))
        info = (features, split_infos, sum(os.path.getsize(out / f) for fs in files_of.values() for f in fs))
        if bars is not None:
            bars.advance(task)
        return table if config == DEFAULT_CONFIG else None, files_of, info, config_contents(config, table)

    trace_table = None
    with ThreadPoolExecutor(2) as threads:
        for config, (table, files_of, info, content) in zip(CONFIGS, threads.map(one_config, CONFIGS)):
            split_files[config], infos[config], contents[config] = files_of, info, content
            rows[config] = {split: n for split, _, n in info[1]}
            written.update(f for fs in files_of.values() for f in fs)
            trace_table = table if table is not None else trace_table
    # stale shards of an older layout
    for config in CONFIGS:
        for f in sorted((out / config).glob("*.parquet")):
            if f.relative_to(out).as_posix() not in written:
                f.unlink()
    stats = statistics(cfg, trace_table, work, n_shards)
    plots = write_plots(out, stats, write_atomic)
    examples = _example_pages(cfg, out)
    nat = naturalness_table(cfg, work, done, programs=contents[DEFAULT_CONFIG]["programs"])
    decontam = {k[len("decontam_"):]: v for k, v in sorted(counts.items()) if k.startswith("decontam_")}
    verification = {
        "checked": {c: sum(d["verified"][c] for d in done) for c in CONFIGS},
        "failed": sum(len(d["failures"]) for d in done),
    }
    total = sum(sum(s.values()) for s in rows.values())
    from execverify_data.synth.generator import GENERATOR_VERSION

    meta = {
        "version": cfg.version,
        "seed": cfg.seed,
        "n": cfg.n_examples,
        "programs": counts.get("programs_kept", 0),
        "examples": contents[DEFAULT_CONFIG]["examples"],
        "contents": contents,
        "python": platform.python_version(),
        "generator_version": GENERATOR_VERSION,
        "rows": rows,
        "total_rows": total,
        "default_config": DEFAULT_CONFIG,
        "verification": verification,
        "decontamination": {"dropped": decontam, "n": cfg.decontam_n, "threshold": cfg.decontam_threshold,
                            "benchmarks": [name for name in ("cruxeval", "humaneval", *[name for name, _ in cfg.local_benchmarks])
                                           if name not in cfg.decontam_allow],
                            **({"allowed": list(cfg.decontam_allow)} if cfg.decontam_allow else {})},
        "synthesis": {"slots": sum(d["synth_slots"] for d in done), "accepted": sum(d["synth_accepted"] for d in done),
                      "rejected": dict(sorted(rejected.items())),
                      "other_drops": {k: v for k, v in sorted(counts.items()) if k in ("retrace_failed", "no_question", "codegen_too_few_tests")}},
        "statistics": {k: v for k, v in stats.items() if not k.endswith("_values")},
        "naturalness": nat,
        "sources": _sources(cfg, trace_table),
        "inputs_per_program": _inputs_per_program(trace_table),
        "branch_coverage": _given_coverage(cfg, trace_table),
        "example_pages": examples,
        "settings": cfg.identity(),
    }
    meta["notices"] = write_notices(out, meta["sources"], write_atomic)
    card = render_card(cfg, meta, stats, infos, split_files, plots, repo_id)
    write_atomic(out / "README.md", lambda p: p.write_text(card, encoding="utf-8"))
    files = {rel: {"sha256": sha256_file(out / rel), "bytes": os.path.getsize(out / rel)} for rel in release_files(out)}
    manifest = {**meta, "files": files}
    write_atomic(out / MANIFEST, lambda p: p.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n"))
    return manifest


def _sources(cfg: ReleaseConfig, trace_table) -> list[dict] | None:
    """Where a build from given records (``--programs``) got its programs: ``[{"source", "license", "programs"}]``
    over the programs in the release (None for a synthesized build: every program is the generator's)."""
    if cfg.programs is None:
        return None
    from collections import Counter

    counts = Counter((r.source or "given records", r.license or "not recorded") for r in _given_records(cfg, trace_table))
    return [{"source": s, "license": lic, "programs": n} for (s, lic), n in sorted(counts.items())]


def _given_records(cfg: ReleaseConfig, trace_table) -> list:
    """The records of ``cfg.programs`` whose programs are in the release (its ``trace`` rows)."""
    from execverify_data.release.programs import program_records

    kept = set(trace_table.column("program_id").to_pylist()) if trace_table is not None else set()
    return [r for r in program_records(cfg.programs) if r.id in kept]


def _inputs_per_program(trace_table) -> dict:
    """``{"min", "median", "max"}`` of the examples (distinct calls) per program in the ``trace`` config."""
    import statistics as stats_module
    from collections import Counter

    if trace_table is None or trace_table.num_rows == 0:
        return {"min": 0, "median": 0, "max": 0}
    calls = Counter(pid for pid, _ in set(zip(trace_table.column("program_id").to_pylist(),
                                                trace_table.column("call").to_pylist())))
    values = list(calls.values())
    return {"min": min(values), "median": stats_module.median(values), "max": max(values)}


def _given_coverage(cfg: ReleaseConfig, trace_table) -> dict | None:
    """For a build from given records: ``{"programs_with_branches", "mean", "full"}`` of their inputs' branch
    coverage (None for a synthesized build, whose filters make every ``if`` and ``while`` go both ways)."""
    if cfg.programs is None:
        return None
    values = [r.branch_coverage for r in _given_records(cfg, trace_table) if r.branch_coverage is not None]
    return {"programs_with_branches": len(values), "mean": round(sum(values) / len(values), 4) if values else None,
            "full": sum(v == 1.0 for v in values)}


#: Files of a source's license notice copied into a release made from its code (by record ``source``).
LICENSE_NOTICES = {"humaneval": ("HumanEval", "data/humaneval/LICENSE")}


def write_notices(out: Path, sources: list[dict] | None, write_atomic) -> list[str]:
    """Copy the license notice of each source that has one here (HumanEval's) into ``out`` as
    ``LICENSE-<NAME>``; the paths written."""
    from execverify_data.data import __file__ as data_init

    written = []
    for source in sources or ():
        notice = LICENSE_NOTICES.get(source["source"].split("==")[0])
        if notice is not None:
            name, rel = notice
            text = (Path(data_init).parent.parent / rel).read_text(encoding="utf-8")
            write_atomic(out / f"LICENSE-{name}", lambda p, t=text: p.write_text(t, encoding="utf-8"))
            written.append(f"LICENSE-{name}")
    return written


#: What the card always says a user should know before using a release.
LIMITATIONS = (
    "* Every label is what CPython {python} gives for the row's text; a few outputs differ on other versions "
    "(`docs/tracing.md` lists how), and each row records its interpreter version.",
    "* A row teaches execution of the program it shows, not the quality of that program: {what}.",
    "* Questions are generated from traces by templates; the wording is uniform, and the `sft` chains narrate "
    "results rather than the reasoning a person would write.",
    "* Decontamination drops programs that match the benchmarks named above by normalized AST or token "
    "n-grams; a paraphrase of a benchmark program can remain.",
)


def _card_words(cfg: ReleaseConfig, meta: dict) -> dict:
    """The card's sentences that depend on what the release holds: synthesized programs or given ones, the
    inputs per program and branch coverage measured on its rows, the replay recipe, the limitations."""
    per = meta["inputs_per_program"]
    given = meta.get("sources") is not None
    spread = f"{per['min']}" if per["min"] == per["max"] else f"{per['min']} to {per['max']} (median {per['median']:g})"
    if given:
        cov = meta.get("branch_coverage") or {}
        covered = ("" if not cov.get("programs_with_branches") else
                   f"; on the {cov['programs_with_branches']:,} programs with decisions, the inputs take "
                   f"{cov['mean']:.1%} of the decision outcomes on average, all of them on {cov['full']:,}")
        intro = ("Python functions given to `execverify from-code` (their sources and licenses are under *License*), "
                 "with interpreter traces and machine-checkable questions about them, built by `execverify-data` with "
                 "no model in the loop. Ground truth comes from the interpreter, never from a model.")
        inputs_claim = f"per program, {spread} traced inputs, chosen to take each decision both ways where they could{covered}"
        replay = ("the function's origin (`source`, `source_id`: a given program has no generator seed to replay; "
                  "`seed` is the row seed its inputs were drawn from)")
        what = "the functions are their authors', kept as written"
    else:
        intro = ("Synthetic Python programs, interpreter traces and machine-checkable questions about them, for teaching "
                 "small code LLMs to simulate program execution: the data side of the ExecVerify recipe "
                 "([arXiv 2603.11226](https://arxiv.org/abs/2603.11226)), built end to end by `execverify-data` with no "
                 "model in the loop. Ground truth comes from the interpreter, never from a model.")
        inputs_claim = (f"per program, {spread} traced inputs, chosen so that every `if` and `while` goes both ways "
                        "(the generator's filters reject a program whose branches its inputs cannot all take)")
        replay = "the program's seed (`seed`: replay with `generate(spec_for(level, seed), seed)`)"
        what = ("the programs are synthesized under structural constraints, and read less like code people write than "
                "benchmark code does (the naturalness table above)")
    limitations = [line.format(python=meta["python"], what=what) for line in LIMITATIONS]
    if cfg.limitations:
        limitations.append(f"* {cfg.limitations}")
    return {"description": f"{cfg.description}\n\n" if cfg.description else "", "intro": intro,
            "inputs_claim": inputs_claim, "replay": replay, "limitations": "\n".join(limitations)}


def _provenance_text(sources: list[dict] | None) -> str:
    """The card's words on where the programs come from (the License section)."""
    if sources is None:
        return ("Programs are synthesized; no benchmark or third-party code is included (benchmark copies were used "
                "only to remove overlaps).")
    table = "\n".join(f"| {s['source']} | {s['license']} | {s['programs']:,} |" for s in sources) or "| - | - | 0 |"
    notices = [f"`LICENSE-{LICENSE_NOTICES[s['source'].split('==')[0]][0]}`" for s in sources
               if s["source"].split("==")[0] in LICENSE_NOTICES]
    return ("The programs are not synthesized: they were given (`execverify from-code`, then `build-release --programs`), "
            "and each keeps its source's license, which applies to its code in every row:\n\n"
            "| source | license | programs |\n| --- | --- | --- |\n" + table +
            (f"\n\nThe license notices of those sources are in this folder: {', '.join(notices)}." if notices else ""))


def _example_pages(cfg: ReleaseConfig, out: Path) -> list[str]:
    """Render :attr:`ReleaseConfig.view_examples` trace rows as offline pages under ``examples/`` (one per level
    first, :func:`execverify_data.view.render_examples`); their paths relative to ``out``."""
    if cfg.view_examples < 1:
        return []
    from execverify_data.view import render_examples

    for stale in sorted((out / "examples").glob("*.html")):  # a rebuild chooses again
        stale.unlink()
    return [page.relative_to(out).as_posix() for page in render_examples(out, n=cfg.view_examples)]


def config_contents(config: str, table) -> dict[str, int]:
    """``{"rows", "programs", "examples"}`` of one config's rows: distinct programs, and distinct (program, input)
    examples (a question row is one, by its ``call``; a ``codegen`` row holds one per assertion, shown or
    hidden, each a distinct call of its program by construction).

    >>> import pyarrow as pa
    >>> config_contents("io", pa.table({"program_id": ["a", "a", "b"], "call": ["f(1)", "f(2)", "f(1)"]}))
    {'rows': 3, 'programs': 2, 'examples': 3}
    """
    ids = table.column("program_id").to_pylist()
    if config == "codegen":
        examples = sum(len(e) + len(t) for e, t in zip(table.column("examples").to_pylist(), table.column("tests").to_pylist()))
    else:
        examples = len(set(zip(ids, table.column("call").to_pylist())))
    return {"rows": table.num_rows, "programs": len(set(ids)), "examples": examples}


#: The naturalness measures the build computes (all of :data:`execverify_data.naturalness.MEASURES` but the linter rates).
NATURALNESS_KEYS = ("own_one_sided", "edits_one_sided", "edits_never_evaluated", "edits_dead_statements",
                    "finishing_wrappers", "nested_builtins", "round_trips", "loops_ignoring_variable", "countdown_loops",
                    "self_nested_tests", "literal_subscripts", "dict_literal_membership", "container_reprs",
                    "self_receiver_calls", "distinct_calls", "shadowed_builtins", "underscore_names")
_NATURALNESS_REFERENCE = "naturalness-reference.json"


def naturalness_reference(cfg: ReleaseConfig, work: Path, workers: int = 1) -> dict[str, dict]:
    """The naturalness measures of CRUXEval (800 programs, one input each) and HumanEval (164 solutions, the
    arguments of their first ``cfg.k`` test calls), measured as the release's programs are; cached in the work
    folder (a few seconds, in spawned processes with ``PYTHONHASHSEED=0``)."""
    from execverify_data.naturalness import (
        CRUXEVAL,
        HUMANEVAL,
        aggregate,
        benchmark_programs,
        measure_programs,
    )

    path = work / _NATURALNESS_REFERENCE
    if path.is_file():
        return json.loads(path.read_text())
    jobs = benchmark_programs(cfg.k)
    figures = measure_programs(jobs, workers=workers, seed=cfg.seed, lint=False)
    reference = {group: aggregate([f for j, f in zip(jobs, figures) if j["group"] == group], keys=NATURALNESS_KEYS)
                 for group in (CRUXEVAL, HUMANEVAL)}
    write_atomic(path, lambda p: p.write_text(json.dumps(reference, indent=1, sort_keys=True)))
    return reference


def naturalness_table(cfg: ReleaseConfig, work: Path, done: list[dict], *, programs: int) -> dict:
    """The card's naturalness figures: the release's measured programs (from the shards' ``done`` markers) beside
    CRUXEval and HumanEval (:func:`naturalness_reference`)."""
    from execverify_data.naturalness import aggregate

    measured = [m for d in done for m in d.get("naturalness", [])]
    return {"every": cfg.naturalness_every, "programs": programs, "measured": len(measured),
            "release": aggregate([m["figures"] for m in measured], keys=NATURALNESS_KEYS),
            **naturalness_reference(cfg, work, workers=2)}


def _naturalness_rows(nat: dict) -> str:
    from execverify_data.naturalness import CRUXEVAL, HUMANEVAL, MEASURES

    def cell(value) -> str:
        return "-" if value is None else f"{value:g}"

    return "\n".join(f"| {label} | " + " | ".join(cell(nat[group][key]) for group in ("release", CRUXEVAL, HUMANEVAL)) + " |"
                     for key, label, _ in MEASURES if key in NATURALNESS_KEYS)


def statistics(cfg: ReleaseConfig, trace_table, work: Path, n_shards: int) -> dict:
    """Figures for the card and the plots, from the ``trace`` config (one row per traced input)."""
    data = trace_table.select(["program_id", "level", "difficulty", "bucket", "features", "code"]).to_pydict()
    lengths = [f["trace_length"] for f in data["features"]]
    programs: Counter = Counter()
    used: set[str] = set()
    kept = set(data["program_id"])
    for s in range(n_shards):
        t = pq.read_table(shard_file(work / "synth", s, "parquet"), columns=["id", "level", "catalog_ids"]).to_pydict()
        for pid, lv, ids in zip(t["id"], t["level"], t["catalog_ids"]):
            if pid in kept:
                programs[str(lv)] += 1
                used.update(ids)
    by_kind = coverage_by_kind(used)
    med = {str(lv): stats_mod.median([x for x, level in zip(lengths, data["level"]) if level == lv])
           for lv in sorted(set(data["level"]))}
    n = len(lengths)
    return {
        "programs_by_level": dict(sorted(programs.items())),
        "median_trace_length_by_level": med,
        "buckets": dict(sorted(Counter(str(b) for b in data["bucket"]).items())),
        "spearman_difficulty_level": _correlation(data["difficulty"], data["level"]),
        "spearman_difficulty_trace_length": _correlation(data["difficulty"], lengths),
        "coverage": {"used": sum(v["used"] for v in by_kind.values()), "total": sum(v["total"] for v in by_kind.values())},
        "coverage_by_kind": by_kind,
        "difficulty_values": data["difficulty"],
        "trace_length_values": lengths,
    }


def _yaml_header(cfg: ReleaseConfig, meta: dict, infos: dict, split_files: dict) -> str:
    from datasets import DatasetInfo, SplitDict, SplitInfo
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCardData

    card_data = DatasetCardData(
        license=cfg.license,
        language=["en", "code"],
        task_categories=["text-generation"],
        tags=["code", "code-execution", "execution-reasoning", "python", *(["synthetic"] if cfg.programs is None else []),
              "reinforcement-learning", "execverify"],
        size_categories=[_size_category(meta["total_rows"])],
        pretty_name="ExecVerify",
    )
    configs, dinfos = {}, {}
    for name in (*CONFIGS, "default"):
        source = DEFAULT_CONFIG if name == "default" else name
        configs[name] = {"data_files": [{"split": split, "path": f"{source}/{split}-*"} for split in ("train", "test")
                                        if split in split_files[source]]}
        features, split_infos, download = infos[source]
        splits = SplitDict()
        for split, nbytes, nrows in split_infos:
            splits.add(SplitInfo(name=split, num_bytes=nbytes, num_examples=nrows))
        dinfos[name] = DatasetInfo(features=features, splits=splits, download_size=download,
                                   dataset_size=sum(b for _, b, _ in split_infos), config_name=name)
    MetadataConfigs(configs).to_dataset_card_data(card_data)
    DatasetInfosDict(dinfos).to_dataset_card_data(card_data)
    return "---\n" + card_data.to_yaml() + "\n---\n"


def _field_tables(described: bool) -> str:
    """One field table per distinct schema (with the ``description`` column when ``described``); configs that share
    a schema share its table."""
    groups: list[tuple[Any, list[str]]] = []
    for config in CONFIGS:
        schema = schema_for(config, described=described)
        for known, names in groups:
            if known.equals(schema):
                names.append(config)
                break
        else:
            groups.append((schema, [config]))
    return "\n\n".join(_field_table(names, schema) for schema, names in groups)


def _field_table(configs: list[str], schema) -> str:
    """A markdown table of ``schema``'s fields, titled with the configs it describes.

    Types stay plain (``list<item: string>``) inside backticks: markdown shows a code span as written.
    """
    title = ", ".join(f"`{c}`" for c in configs)
    if DEFAULT_CONFIG in configs:
        title += f" (and `default`, the `{DEFAULT_CONFIG}` config)"
    lines = [f"| `{f.name}` | `{f.type}` | {FIELD_DOCS.get(f.name, '')} |" for f in schema]
    return "\n".join([f"**{title}**", "", "| field | type | meaning |", "| --- | --- | --- |", *lines])


#: What the card says of the ``sft`` chains, per ``--chain-style`` (a given program's rows record no notes).
_CHAIN_STYLE_TEXT = {
    "trace": "The chains are in the `trace` style: each line executed, in order, with the values it changes.",
    "explained": "The chains are in the `explained` style: each line executed, in order, with the values it changes; "
                 "each `if`/`while` test with the values of its operands, each loop with the sequence it walks, the "
                 "arguments, indexes and slices a line reads, what each call of a helper returned, and, where a long "
                 "trace is shortened, which lines and loop iterations are skipped and the state after them.",
    "compact": "The chains are in the `compact` style: the `explained` chain's facts in short clauses "
               "(`L7: for ...: loop over ... (5 items); part = '43'`), for short contexts.",
    "given": "The chains are in the `{style}` style; for programs given as records (not synthesized), the values that "
             "decided each test are not recorded (their code runs only in the sandbox), so those chains tell the lines "
             "and the states they leave.",
}


def _build_flags(cfg: ReleaseConfig) -> str:
    """The ``build-release`` flags beyond version, size and seed that this build used (for the card's command).

    >>> _build_flags(ReleaseConfig(version="1.0.0", n_examples=10)), _build_flags(ReleaseConfig(version="1.0.0", n_examples=10, shard_size=10))
    ('', ' --shard-size 10')
    """
    flags = "" if cfg.k == ReleaseConfig.k else f" --inputs-per-program {cfg.k}"
    flags += "" if cfg.shard_size == ReleaseConfig.shard_size else f" --shard-size {cfg.shard_size}"
    flags += " --programs PROGRAMS_DIR" if cfg.programs is not None else ""  # records given (from-code, synthesize)
    flags += "".join(f" --allow-benchmark {name}" for name in cfg.decontam_allow)
    flags += "" if cfg.chain_style == ReleaseConfig.chain_style else f" --chain-style {cfg.chain_style}"
    return flags + "".join(f" --benchmark {name}=PATH" for name, _ in cfg.local_benchmarks)


def _correlation(xs, ys) -> float | None:
    """Spearman's coefficient, or None where it is undefined: fewer than two rows, or a side that never varies
    (a release of given programs is all level 0)."""
    return spearman(xs, ys) if len(xs) > 1 and len(set(xs)) > 1 and len(set(ys)) > 1 else None


def _rho(value: float | None) -> str:
    """A Spearman coefficient as the card prints every one: three decimals.

    >>> _rho(0.8376789), _rho(1.0), _rho(None)
    ('0.838', '1.000', 'undefined (fewer than two rows, or one side never varies)')
    """
    return "undefined (fewer than two rows, or one side never varies)" if value is None else f"{value:.3f}"


def _codegen_card_text(n_examples: int, described: bool) -> str:
    """What the card says a ``codegen`` prompt shows (its line in "How each config was made").

    >>> print(_codegen_card_text(2, False))
    programming by example: the prompt shows the signature and
      2 input/output examples
    """
    if not described:
        return f"programming by example: the prompt shows the signature and\n  {n_examples} input/output examples"
    return (f"a function to complete, HumanEval style: for a program with a `description`, the prompt\n"
            f"  shows the function's signature and a docstring holding the description and\n"
            f"  {n_examples} input/output examples as `>>>` lines (a program without one gets the\n"
            f"  programming-by-example prompt: the signature and the {n_examples} examples as `assert` lines)")


def render_card(cfg: ReleaseConfig, meta: dict, stats: dict, infos: dict, split_files: dict, plots: dict, repo_id: str) -> str:
    """``README.md``: YAML front matter (configs, dataset_info, license, tags...) and the rendered template."""
    rows, contents = meta["rows"], meta["contents"]
    described = DESCRIPTION_COLUMN in infos["codegen"][0]  # the release's columns (features) say it

    def about(c: str) -> str:
        return CODEGEN_DESCRIBED if c == "codegen" and described else CONFIG_DESCRIPTIONS[c]

    def sizes(c: str) -> str:
        return (f"| {rows[c].get('train', 0):,} / {rows[c].get('test', 0):,} | {contents[c]['programs']:,} "
                f"| {contents[c]['examples']:,} |")

    config_table = "\n".join(f"| `{c}` {sizes(c)} {about(c)} |" for c in CONFIGS) + (
        f"\n| `default` {sizes(DEFAULT_CONFIG)} the `{DEFAULT_CONFIG}` config |")
    nat = meta["naturalness"]
    every = nat["every"]
    sample = ("every kept program" if every == 1 else
              f"the kept programs whose synthesis row is a multiple of {every} (about one in {every})")
    medians = stats["median_trace_length_by_level"]
    level_table = "\n".join(f"| {lv} | {n:,} | {medians[lv]:g} |" if lv in medians else f"| {lv} | {n:,} | - |"
                            for lv, n in stats["programs_by_level"].items())
    bucket_table = "\n".join(f"| {b} | {n:,} |" for b, n in stats["buckets"].items())
    dropped = meta["decontamination"]["dropped"]
    decontam_table = "\n".join(f"| {k.rsplit('_', 1)[0]} | {k.rsplit('_', 1)[1]} | {v} |" for k, v in dropped.items()) or "| - | - | 0 |"
    rejected = ", ".join(f"{k} {v:,}" for k, v in meta["synthesis"]["rejected"].items()) or "none"
    changelog = "\n".join(f"* **v{v}**: {text}" for v, text in changelog_until(cfg.version))
    values = {
        "version": cfg.version, "tag": tag_for(cfg.version), "repo_id": repo_id, "total_rows": f"{meta['total_rows']:,}",
        "programs": f"{meta['programs']:,}", "config_table": config_table, "k": cfg.k, "n_path": cfg.n_path,
        "n_state": cfg.n_state, "verify_failed": meta["verification"]["failed"],
        "test_share": f"{cfg.test_permille / 10:g}%", "field_tables": _field_tables(described),
        "codegen_prompt": _codegen_card_text(cfg.codegen_examples, described),
        "level_table": level_table, "plot_level": plots["level"], "plot_difficulty": plots["difficulty"],
        "plot_trace_length": plots["trace_length"], "plot_coverage": plots["coverage"],
        "rho_level": _rho(stats["spearman_difficulty_level"]), "rho_trace": _rho(stats["spearman_difficulty_trace_length"]),
        "bucket_table": bucket_table, "coverage_used": stats["coverage"]["used"], "coverage_total": stats["coverage"]["total"],
        "decontam_benchmarks": ", ".join(meta["decontamination"]["benchmarks"]), "decontam_n": cfg.decontam_n,
        "decontam_threshold": cfg.decontam_threshold, "decontam_table": decontam_table,
        "synth_slots": f"{meta['synthesis']['slots']:,}", "synth_accepted": f"{meta['synthesis']['accepted']:,}",
        "synth_rejected": rejected, "n": cfg.n_examples, "seed": cfg.seed, "python": meta["python"],
        "generator_version": meta["generator_version"], "changelog": changelog, "license_name": cfg.license.upper(),
        "example_links": ", ".join(f"[`{Path(p).stem}`]({p})" for p in meta.get("example_pages", [])) or "none rendered",
        "build_flags": _build_flags(cfg), "examples": f"{meta['examples']:,}",
        "nat_measured": f"{nat['measured']:,}", "nat_sample": sample, "nat_table": _naturalness_rows(nat),
        "nat_crux": nat["CRUXEval"]["programs"], "nat_human": nat["HumanEval"]["programs"],
        "program_provenance": _provenance_text(meta.get("sources")),
        "chain_style_text": _CHAIN_STYLE_TEXT[cfg.chain_style if cfg.programs is None else "given"].format(style=cfg.chain_style),
        **_card_words(cfg, meta),
    }
    body = Template(template_path("dataset_card.md").read_text(encoding="utf-8")).substitute(values)
    return _yaml_header(cfg, meta, infos, split_files) + "\n" + body

