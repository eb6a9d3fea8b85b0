"""``execverify from-code``: functions we did not write become records, and a release builds from them.

The end-to-end run takes 12 HumanEval problems (seed inputs from their tests' assertions) and a
folder of 3 ``.py`` files (``tests/fixtures/fromcode``: two plain functions, one a helper of the
other; two nondeterministic ones, on the random generator and the clock; one that reads the
environment; one whose types cannot be settled), checks the skip reasons, re-executes every kept row as plain
source in a fresh interpreter, and builds a self-verified release with ``build-release --programs``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from execverify_data.cli import main
from execverify_data.fromcode import FromCodeError, Function, humaneval_functions, load_folder, load_jsonl, settle_types
from execverify_data.values import literal_calls, parse_call

FOLDER = Path(__file__).parent / "fixtures" / "fromcode"
N_HUMANEVAL = 12
#: The optional "description" of two of the input's functions (the others have none).
DESCRIPTIONS = {"HumanEval/0": "Return whether two numbers in `numbers` are closer to each other than `threshold`.",
                "HumanEval/2": "Return the decimal part of the positive float `number`."}


def _records(out: Path) -> list[dict]:
    return [r for shard in sorted(out.glob("shard-*.parquet")) for r in pq.read_table(shard).to_pylist()]


def _convert_folder(tmp_path: Path, files: dict[str, str]) -> dict[str, dict]:
    """``execverify from-code`` (seed 3, one worker) on a folder ``tmp_path / "src"`` of ``files`` (name -> text), into
    ``tmp_path / "o"``: its records by entry point."""
    (tmp_path / "src").mkdir()
    for name, text in files.items():
        (tmp_path / "src" / name).write_text(text)
    result = CliRunner().invoke(main, ["from-code", str(tmp_path / "src"), "--workers", "1", "--quiet", "--seed", "3",
                                       "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    return {r["entry_point"]: r for r in _records(tmp_path / "o")}


@pytest.fixture(scope="module")
def humaneval_jsonl(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("in") / "humaneval12.jsonl"
    rows = [{"id": f.source_id, "code": f.code, "entry_point": f.entry_point, "inputs": list(f.inputs),
             **({"description": DESCRIPTIONS[f.source_id]} if f.source_id in DESCRIPTIONS else {})}
            for f in humaneval_functions()[:N_HUMANEVAL]]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def humaneval_run(humaneval_jsonl, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "he"
    result = CliRunner().invoke(main, ["from-code", str(humaneval_jsonl), "--allow-benchmark", "humaneval", "--workers", "1",
                                       "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def folder_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "py"
    result = CliRunner().invoke(main, ["from-code", str(FOLDER), "--workers", "1", "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 of 7 functions became rows" in result.output
    return out


# ---------------------------------------------------------------------------- pieces


def test_seed_calls_are_the_literal_calls_of_the_tests():
    test = ("def check(candidate):\n    assert candidate([1, 2], 3) == [1]\n    assert candidate([], 0) == []\n"
            "    assert candidate([1, 2], 3) == [1]\n    for x in range(3):\n        assert candidate([x], x)\n")
    assert literal_calls(test, keywords=False) == ["[1, 2], 3", "[], 0"]
    he = humaneval_functions()
    assert len(he) == 164 and sum(bool(f.inputs) for f in he) >= 160
    for f in he[:20]:  # each seed is a literal call of the problem's arity
        for text in f.inputs:
            parse_call(f"{f.entry_point}({text})")


def test_draw_inputs_starts_from_the_seeds_and_mutates_them():
    from execverify_data.inputs import draw_inputs

    seeds = [([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200],), ([],)]
    drawn = draw_inputs(("list[int]",), seed=5, k=30, seeds=seeds, mutation_rate=1.0)
    assert drawn[:2] == [tuple(s) for s in seeds]
    assert drawn == draw_inputs(("list[int]",), seed=5, k=30, seeds=seeds, mutation_rate=1.0)
    mutated = [a for a in drawn[2:] if any(x >= 100 for x in a[0])]
    assert mutated and any(len(a[0]) > 10 for a in mutated)  # a seed's mutations keep its size, not the draw bounds
    assert draw_inputs(("list[int]",), seed=5, k=30) == draw_inputs(("list[int]",), seed=5, k=30, seeds=())


def test_best_effort_choice_covers_what_the_inputs_reach():
    from execverify_data.synth.coverage import Probe, branch_coverage, choose

    code = "def f(x):\n    if x > 100:\n        return 'big'\n    if x % 2:\n        return 'odd'\n    return 'even'\n"
    probe = Probe(code, "f")
    runs = [probe.run((x,)) for x in (2, 4, 3, 6)]
    assert choose(runs, probe, k=2) == "one_sided_branch"  # the generator's rule: x > 100 never holds
    chosen = choose(runs, probe, k=2, best_effort=True)
    assert sorted(runs[i].output for i in chosen) == ["'even'", "'odd'"]
    assert branch_coverage(runs, probe) == 0.75 and branch_coverage([runs[0]], probe) == 0.5


@pytest.mark.parametrize("code, seeds, expected", [
    ("def f(xs: List[int], d: Dict[str, float], o: Optional[str]):\n    return xs\n", [], ("list[int]", "dict[str, float]", "str | None")),
    ("def f(t: tuple[int, ...], u: 'list[str]'):\n    return t\n", [], ("tuple[int, ...]", "list[str]")),
    ("def f(xs, n):\n    return xs[n]\n", [([1, 2.5], 1), ([], 0)], ("list[float]", "int")),
    ("def f(xs: list, n: int):\n    return xs[n]\n", [(["a"], 0)], ("list[str]", "int")),  # a bare list: elements from the seeds
    ("def f(s, sep):\n    return s.split(sep)\n", [], ("str", "int")),  # sep is only handed on: the first of the probe's candidates
    ("def f(a, b):\n    return (b, a)\n", [], None),  # nothing tells
    ("def f(s):\n    return s.strip().lower()\n", [], ("str",)),  # what the methods on s say
    ("def f(n: int):\n    return n\n", [("x",)], ("str",)),  # a seed that contradicts the annotation wins
])
def test_settle_types(code, seeds, expected):
    types, why = settle_types(code, "f", seeds)
    assert types == expected
    assert (why is None) == (expected is not None)


def test_bad_inputs_are_named(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"code": "def f(x: int):\\n    return x\\n", "entry_point": "f"}\n{not json\n')
    with pytest.raises(FromCodeError, match="bad.jsonl line 2: not JSON"):
        load_jsonl(bad)
    bad.write_text('{"code": "x = 1", "entry_point": "f", "inputs": [1]}\n')
    with pytest.raises(FromCodeError, match="line 1: 'inputs' must be a list of argument texts"):
        load_jsonl(bad)
    bad.write_text('{"code": "x = 1", "entry_point": "f", "description": ["Return x."]}\n')
    with pytest.raises(FromCodeError, match="line 1: 'description' must be a string saying what the function returns, got list"):
        load_jsonl(bad)
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "consts.py").write_text("X = 1\n")
    with pytest.raises(FromCodeError, match="no functions found"):
        load_folder(tmp_path / "empty")


@pytest.mark.parametrize("make_args, message", [
    (lambda p: [str(p / "missing.jsonl")], "missing.jsonl: no such file or folder"),
    (lambda p: [str(p / "bad.jsonl")], "bad.jsonl line 1: not JSON"),
    (lambda p: [str(p / "empty")], "no functions found"),
    (lambda p: [str(FOLDER), "--allow-benchmark", "mbpp"], "unknown benchmark mbpp"),
    (lambda p: ["--humaneval", str(FOLDER)], "give one of SOURCE"),
    (lambda p: [str(FOLDER), "--min-inputs", "6"], "--min-inputs"),
])
def test_cli_bad_input_is_one_line(tmp_path, make_args, message):
    (tmp_path / "bad.jsonl").write_text("{oops\n")
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(main, ["from-code", *make_args(tmp_path), "--out", str(tmp_path / "o"), "--quiet"])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_cli_unwritable_out_is_one_line(tmp_path):
    (tmp_path / "afile").write_text("")
    result = CliRunner().invoke(main, ["from-code", str(FOLDER), "--out", str(tmp_path / "afile" / "o"), "--quiet"])
    assert result.exit_code == 2 and "is a file, not a folder" in result.output and "Traceback" not in result.output


# ---------------------------------------------------------------------------- end to end


def test_folder_reasons(folder_run):
    summary = json.loads((folder_run / "summary.json").read_text())
    rejected = summary["rejected"]
    assert rejected["nondeterministic"] == 1  # noisy.py: a set's order (caught by tracing under another hash seed)
    assert rejected["io"] == 3  # noisy.py: random, time, os.environ (read from the code, before any run)
    assert rejected["untyped_param"] == 1  # untyped.py: swap(a, b)
    assert summary["from_code"]["examples"]["io"] == "noisy.py:pick: reaches outside its arguments: import random"
    assert "noisy.py:" in summary["from_code"]["examples"]["nondeterministic"]
    assert "'a'" in summary["from_code"]["examples"]["untyped_param"]
    clip, longest = _records(folder_run)
    assert clip["source_id"] == "clip.py:clip_words" and clip["param_types"] == ["str", "int"]
    assert longest["source_id"] == "clip.py:longest_clipped"
    for rec in (clip, longest):
        assert rec["branch_coverage"] == 1.0 and set(rec["input_origins"]) == {"generated"}
        assert len(set(rec["outputs"])) >= 2
        assert "__main__" not in rec["code"] and "def clip_words" in rec["code"]  # each row is the part of the file it needs
    assert "def longest_clipped" not in clip["code"] and clip["ast_hash"] != longest["ast_hash"]


def test_humaneval_rows(humaneval_run):
    summary = json.loads((humaneval_run / "summary.json").read_text())
    fc = summary["from_code"]
    records = _records(humaneval_run)
    assert fc["functions"] == N_HUMANEVAL and fc["rows"] == len(records)
    assert len(records) == N_HUMANEVAL, summary["rejected"]  # the first 12 problems all qualify
    seeds = {f.source_id: [parse_call(f"f({t})")[1] for t in f.inputs] for f in humaneval_functions()[:N_HUMANEVAL]}
    for rec in records:
        assert rec["source"] == "humaneval12.jsonl" and rec["generator_version"] == "fromcode-2"
        assert 3 <= len(rec["inputs"]) <= 8 and len(rec["inputs"]) == len(rec["outputs"]) == len(rec["input_origins"])
        for text, origin in zip(rec["inputs"], rec["input_origins"]):  # a "seed" input is one of the tests' calls
            assert (origin == "seed") == (parse_call(f"f({text})")[1] in seeds[rec["source_id"]]), (rec["source_id"], text)
        assert rec["branch_coverage"] is None or 0 < rec["branch_coverage"] <= 1
        assert rec["description"] == DESCRIPTIONS.get(rec["source_id"], "")  # the input's, "" where it gives none
    assert fc["inputs"]["seed"] > 0 and fc["branch_coverage"]["mean"] > 0.9


def test_kept_rows_reexecute_as_source(humaneval_run, folder_run):
    from execverify_data.reexecute import check_rows

    rows = _records(humaneval_run) + _records(folder_run)
    report = check_rows(rows)
    assert report.calls == sum(len(r["inputs"]) for r in rows)
    assert report.mismatches == []


def test_decontamination_drops_the_benchmark_unless_allowed(humaneval_jsonl, tmp_path):
    out = tmp_path / "o"
    result = CliRunner().invoke(main, ["from-code", str(humaneval_jsonl), "--workers", "1", "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rejected"] == {"decontam_humaneval_ast": N_HUMANEVAL} and summary["accepted"] == 0


def test_rerun_resumes(humaneval_jsonl, humaneval_run):
    before = (humaneval_run / "shard-00000.parquet").read_bytes()
    result = CliRunner().invoke(main, ["from-code", str(humaneval_jsonl), "--allow-benchmark", "humaneval", "--workers", "1",
                                       "--json", "--out", str(humaneval_run)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["throughput"]["shards_resumed"] == 1
    assert (humaneval_run / "shard-00000.parquet").read_bytes() == before
    other = CliRunner().invoke(main, ["from-code", str(FOLDER), "--quiet", "--out", str(humaneval_run)])
    assert other.exit_code == 2 and "use another --out" in other.output


def test_build_release_from_programs_self_verifies(humaneval_run, tmp_path):
    pytest.importorskip("datasets")
    out = tmp_path / "rel"
    result = CliRunner().invoke(main, ["build-release", "--release-version", "0.1.0", "--programs", str(humaneval_run),
                                       "--allow-benchmark", "humaneval", "--workers", "1", "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "MANIFEST.json").read_text())
    examples = sum(len(r["inputs"]) for r in _records(humaneval_run))
    assert manifest["programs"] == N_HUMANEVAL
    # every row was scored by the consumers' own functions (a build with a failure raises instead)
    assert manifest["verification"]["checked"] == {"io": examples, "oi": examples, "trace": examples, "sft": examples,
                                                   "codegen": N_HUMANEVAL}
    assert manifest["decontamination"]["allowed"] == ["humaneval"]
    for config in ("io", "oi", "trace", "sft", "codegen"):
        assert sum(manifest["rows"][config].values()) == (N_HUMANEVAL if config == "codegen" else examples)
    # programs with a description: every config has the column, and their codegen prompt is a function to complete
    for config in ("io", "oi", "trace", "sft", "codegen"):
        rows = [r for f in sorted((out / config).glob("*.parquet")) for r in pq.read_table(f).to_pylist()]
        assert {r["description"] for r in rows} == {"", *DESCRIPTIONS.values()}, config
    by_id = {r["source_id"]: r["id"] for r in _records(humaneval_run)}
    codegen = {r["program_id"]: r for f in sorted((out / "codegen").glob("*.parquet")) for r in pq.read_table(f).to_pylist()}
    for source_id, text in DESCRIPTIONS.items():
        row = codegen[by_id[source_id]]
        assert row["prompt"].startswith("Complete the Python function") and f'"""{text}\n\n    >>> ' in row["prompt"]
    assert codegen[by_id["HumanEval/1"]]["prompt"].startswith("Write a Python function `separate_paren_groups(")
    card = (out / "README.md").read_text()
    assert "a function to complete: its signature and a docstring with its `description`" in card
    assert "| `description` | `string` |" in card and "a function to complete, HumanEval style" in card
    # the card says where the programs come from, not that they were synthesized
    assert "Programs are synthesized" not in card and "| humaneval12.jsonl | not recorded | 12 |" in card
    assert manifest["sources"] == [{"source": "humaneval12.jsonl", "license": "not recorded", "programs": 12}]
    from execverify_data.release.inspect import inspect_release

    report = inspect_release(out)
    assert report.problems == [] and report.figures["programs_by_level"] == {"0": N_HUMANEVAL}


def test_build_release_programs_needs_records(tmp_path):
    result = CliRunner().invoke(main, ["build-release", "--release-version", "0.1.0", "--programs", str(tmp_path),
                                       "--out", str(tmp_path / "rel"), "--quiet"])
    assert result.exit_code == 2 and "no record shards" in result.output and "Traceback" not in result.output


def test_folder_file_that_does_not_parse_is_a_reason(tmp_path):
    from execverify_data.fromcode import FromCodeConfig, convert

    (tmp_path / "broken.py").write_text("def f(x:\n")
    (tmp_path / "star.py").write_text("def g(*xs):\n    return xs\n\ndef h():\n    return 1\n")
    functions = load_folder(tmp_path)
    assert [f.source_id for f in functions] == ["broken.py", "star.py:g", "star.py:h"]
    reasons = [convert(f, i, FromCodeConfig(), tracer=None)[1] for i, f in enumerate(functions)]  # skipped before any run
    assert [next(k for k in r if k != "attempts" and k != "why") for r in reasons] == ["bad_source", "unsupported_signature", "no_params"]
    assert "does not parse" in reasons[0]["why"]


def test_jsonl_description_is_read(humaneval_jsonl):
    functions = load_jsonl(humaneval_jsonl)
    assert {f.source_id: f.description for f in functions if f.description} == DESCRIPTIONS
    assert all(f.description == "" for f in load_folder(FOLDER))


def test_function_is_a_value():
    f = Function("def f(x: int):\n    return x\n", "f", ("1",), source="s", source_id="s:f")
    assert f == Function("def f(x: int):\n    return x\n", "f", ("1",), source="s", source_id="s:f")


def test_a_release_too_small_for_a_test_split_says_so_and_the_share_is_set(folder_run, tmp_path):
    """Issue 31, item 2: a release of two functions silently got an empty test split, and the lm-eval tasks on it
    ended in a FileNotFoundError traceback."""
    pytest.importorskip("datasets")
    from execverify_data.lm_eval_tasks import utils

    small = tmp_path / "small"
    result = CliRunner().invoke(main, ["build-release", "--release-version", "0.1.0", "--programs", str(folder_run),
                                       "--workers", "1", "--quiet", "--out", str(small)])
    assert result.exit_code == 0, result.output
    assert "warning: the test split is empty (2 programs, 0.05 of their structures drawn for it)" in result.output
    with pytest.raises(utils.DataUnavailable, match="has no test split of io .*--test-share"):
        utils.load_synth_io(release_path=str(small))
    wide = tmp_path / "wide"
    result = CliRunner().invoke(main, ["build-release", "--release-version", "0.1.0", "--programs", str(folder_run),
                                       "--workers", "1", "--quiet", "--test-share", "0.999", "--out", str(wide)])
    assert result.exit_code == 0 and "warning" not in result.output, result.output
    manifest = json.loads((wide / "MANIFEST.json").read_text())
    assert manifest["rows"]["io"].get("test", 0) > 0
    assert len(utils.load_synth_io(release_path=str(wide))["test"]) == manifest["rows"]["io"]["test"]
    bad = CliRunner().invoke(main, ["build-release", "--release-version", "0.1.0", "--programs", str(folder_run),
                                    "--test-share", "1.5", "--out", str(tmp_path / "bad")])
    assert bad.exit_code == 2 and "--test-share" in bad.output


MODULE = '''import re

WORD_RE = re.compile(r"[a-z]+")
DOMAINS = tuple(sorted({"org", "com"}))


def find_words(text: str) -> list[str]:
    return WORD_RE.findall(text)


def domain_count(text: str) -> int:
    count = 0
    for word in text.split():
        if word.endswith(DOMAINS):
            count += 1
    return count


print(find_words("x@y.org"))
'''


def test_a_module_with_calls_at_module_level_is_converted(tmp_path):
    """Module-level calls (``re.compile``) run before the coverage probe's recorders exist; only the functions
    are instrumented (this stopped the whole run with a NameError of ``_probe_value_`` before)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "contacts.py").write_text(MODULE)
    result = CliRunner().invoke(main, ["from-code", str(tmp_path / "src"), "--workers", "1", "--quiet",
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    records = {r["entry_point"]: r for r in _records(tmp_path / "out")}
    assert sorted(records) == ["domain_count", "find_words"]
    assert records["domain_count"]["branch_coverage"] == 1.0
    assert "WORD_RE = re.compile" in records["find_words"]["code"] and "print(" not in records["find_words"]["code"]


@pytest.mark.parametrize("code, expected", [
    ("def f(n):\n    return [i * i for i in range(n)]\n", [["int"]]),
    ("def f(a, h):\n    return a * h / 2.0\n", [["int", "float"], ["int", "float"]]),
    ("def f(l: list):\n    return sorted(set(l))[:3] if l else []\n", [["list[int]", "list[str]"]]),
    ("def f(text):\n    return sum(1 for ch in text if ch in 'aeiou')\n", [["str", "list[str]"]]),
    ("def f(arr):\n    return [x for x in arr if x % 2 == 0]\n", [["list[int]", "list[float]"]]),
    ("def f(d):\n    return sorted(d.items())\n", [["dict[str, int]", "dict[str, str]", "dict[int, int]"]]),
    ("def f(xs, k):\n    return xs.index(k)\n", [["list[int]", "str", "list[str]"], ["int", "str", "list[int]"]]),
    ("def f(x, y):\n    return max(x, y) - min(x, y)\n", [["int", "float", "str"], ["int", "float", "str"]]),
    ("import re\ndef f(s):\n    return re.split('[,;]', s)\n", [["str"]]),
    # records: the items of a list read at string keys, each key's value of the type the body reads there
    ("def f(tasks):\n    return sum(1 for t in tasks if t.get('done'))\n", [["list[dict[str, int]]", "list[dict[str, str]]"]]),
    ("def f(tasks):\n    return [t['title'].upper() for t in tasks if t.get('done', False)]\n",
     [["list[dict[str, bool | str]]", "list[dict[str, int]]", "list[dict[str, str]]"]]),
    ("def f(rows):\n    return sorted(rows, key=lambda r: r.get('rank', 0))\n", [["list[dict[str, int]]", "list[dict[str, str]]"]]),
    # a board: cells compared with a string literal
    ("def f(board, r, c):\n    return board[r][c] == ''\n", [["list[list[str]]", "list[list[int]]", "list[str]"], ["int"], ["int"]]),
    # str(value) of a number or of a text already; zip's items; a slice read with a string method
    ("def f(v):\n    return str(v).strip().lower() in ('yes', 'on')\n", [["int", "float", "str"]]),
    ("def f(a, b):\n    return sum(x * y for x, y in zip(a, b))\n", [["list[int]", "list[float]"], ["list[int]", "list[float]"]]),
    ("def f(text, n):\n    return text[:n].rstrip() + '.'\n", [["str"], []]),
    # zip's items under enumerate; a flag; a table's .get; a dict's values read through .get
    ("def f(a, b):\n    return [x.strip() == y for i, (x, y) in enumerate(zip(a, b))]\n",
     [["str", "list[str]"], ["list[int]", "str", "list[str]"]]),
    ("def f(has_hold, n):\n    if has_hold:\n        return 0\n    return n + 1\n", [["bool"], ["int", "float"]]),
    ("T = {'a': 1, 'b': 2}\ndef f(k):\n    return T.get(k)\n", [["str"]]),
    ("def f(d, k):\n    s = d.get(k)\n    return sum(s) / len(s)\n", [["dict[str, list[int]]", "dict[str, list[float]]",
                                                                  "dict[str, int]", "dict[str, str]", "dict[int, int]"], ["int", "str", "list[int]"]]),
    # dates, times of day, spans and amounts: what the body reads of them, or adds to them
    ("from datetime import timedelta\ndef f(start, days=14):\n    return start + timedelta(days=days)\n",
     [["date", "datetime"], ["int"]]),
    ("def f(due, returned):\n    return max(0, (returned - due).days)\n", [["date", "datetime"], ["date", "datetime"]]),
    ("def f(day):\n    return day.weekday() >= 5\n", [["date", "datetime"]]),
    ("def f(slot):\n    return 'early' if slot.hour < 9 else 'late'\n", [["time", "datetime"]]),
    ("def f(amount):\n    return amount.quantize(CENT)\n", [["Decimal"]]),
    ("from datetime import date\ndef f(d: date, n: int):\n    return d.year + n\n", [["date"], ["int"]]),
    # a parameter nothing types whose default is None stays at its default
    ("T = {'a': 1}\ndef f(k, table=None):\n    t = T if table is None else table\n    return t.get(k.lower(), 0)\n",
     [["str"], ["None"]]),
])
def test_types_from_use(code, expected):
    from execverify_data.param_types import candidates

    assert [[t for t, _ in c] for c in candidates(code, "f", [])] == expected


def test_untyped_parameters_are_settled_by_a_probe_in_the_sandbox(tmp_path):
    """Parameters without annotation or seed: the body's use gives candidates, a probe in the sandbox picks the
    types (and the input domains) under which the function returns; the record says how each was settled."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "funcs.py").write_text(
        "def midpoint(lo, hi):\n    return lo + (hi - lo) / 2\n\n\n"
        "def vowels(text):\n    return sum(1 for ch in text.lower() if ch in 'aeiou')\n\n\n"
        "def to_number(s: str) -> int:\n    return int(s) * 2\n")
    result = CliRunner().invoke(main, ["from-code", str(tmp_path / "src"), "--workers", "1", "--quiet", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    records = {r["entry_point"]: r for r in _records(tmp_path / "o")}
    assert records["midpoint"]["type_origins"] == ["probe", "probe"]
    assert set(records["midpoint"]["param_types"]) <= {"int", "float"}
    assert records["vowels"]["param_types"] == ["str"] and records["vowels"]["type_origins"] == ["use"]  # text.lower()
    assert records["to_number"]["type_origins"] == ["annotation"]
    domain = records["to_number"]["param_domains"][0].split("+")[0]  # after it, narrowings ("digits+min1")
    assert domain in ("digits", "numstr", "tokens")  # int(s) needs digits


def test_draws_that_raise_narrow_the_domain_until_the_function_returns(tmp_path):
    """Issue 30 item 2: a table's keys for KeyError, numbers in the split format for int(), non-negative
    numbers for a math domain error, an exact size for an unpacking: each function becomes a row, its
    narrowing named in the record's domains, with the checks' other outcomes still taken where the code has them."""
    records = _convert_folder(tmp_path, {"shop.py": (
        "import math\n\nPRICES = {'apple': 3, 'pear': 5, 'plum': 2}\n\n\n"
        "def basket_total(lines):\n    total = 0\n    for name, qty in lines:\n        if qty > 2:\n"
        "            total += PRICES[name] * qty - 1\n        else:\n            total += PRICES[name] * qty\n"
        "    return total\n\n\n"
        "def minutes(t):\n    h, m = t.split(':')\n    return int(h) * 60 + int(m)\n\n\n"
        "def root_sum(values: list) -> float:\n    return round(sum(math.sqrt(v) for v in values), 3)\n\n\n"
        "def volume(box: tuple) -> int:\n    w, h, d = box\n    return w * h * d if w > 0 else 0\n")})
    assert set(records) == {"basket_total", "minutes", "root_sum", "volume"}, (tmp_path / "o" / "rejected.jsonl").read_text()
    assert "keys" in records["basket_total"]["param_domains"][0]
    assert "numfields" in records["minutes"]["param_domains"][0]
    assert "nonneg" in records["root_sum"]["param_domains"][0] or "pos" in records["root_sum"]["param_domains"][0]
    assert "size3" in records["volume"]["param_domains"][0]
    assert records["basket_total"]["branch_coverage"] == 1.0 and records["volume"]["branch_coverage"] == 1.0


def test_thresholds_records_boards_and_words_become_rows_with_every_branch(tmp_path):
    """Issue 30 (a fourth folder): numbers drawn around the thresholds the body compares with, records typed by
    the keys a loop reads, square boards of the strings cells are compared with, the literals a stringified value
    is looked up among."""
    records = _convert_folder(tmp_path, {"mix.py": (
        "LEVELS = [(75, 'gold'), (40, 'silver')]\nYES = ('yes', 'on', '1')\n\n\n"
        "def medal(points: float) -> str:\n    for cutoff, name in LEVELS:\n        if points >= cutoff:\n"
        "            return name\n    return 'none'\n\n\n"
        "def open_titles(items):\n    out = []\n    for it in items:\n        if not it.get('closed', False):\n"
        "            out.append(it['title'].strip())\n    return out\n\n\n"
        "def free_cells(board):\n    n = 0\n    for r in range(len(board)):\n        for c in range(len(board)):\n"
        "            if board[r][c] == '':\n                n += 1\n    return n\n\n\n"
        "def truthy(value):\n    if str(value).strip().lower() in YES:\n        return True\n    return False\n")})
    assert set(records) == {"medal", "open_titles", "free_cells", "truthy"}, (tmp_path / "o" / "rejected.jsonl").read_text()
    assert {r["entry_point"] for r in records.values() if r["branch_coverage"] == 1.0} == set(records)
    assert "record" in records["open_titles"]["param_domains"][0] and "'title': '" in records["open_titles"]["inputs"][0]
    assert records["free_cells"]["param_domains"] == ["cells"]


def test_raising_checks_yes_no_flags_table_gets_and_docstring_examples_settle_inputs(tmp_path):
    """Issue 30 (a fifth folder): what the checks that raise ask (three sides for both boxes, a known item type, no
    negative count: two parameters narrowed at once where each alone does not help), a parameter only tested
    for truth (a flag), a parameter looked up with ``TABLE.get``, and the texts a docstring quotes as examples."""
    records = _convert_folder(tmp_path, {"lib.py": (
        "import re\n\nLOAN_DAYS = {'book': 21, 'dvd': 7}\nMAX_ITEMS = {'child': 5, 'adult': 10}\n"
        "_CODE_RE = re.compile(r'^([A-Z])(\\d{1,2})-(\\d)-(\\d{2})$')\n\n\n"
        "def fits(item_dims: tuple, bin_dims: tuple) -> bool:\n"
        "    if len(item_dims) != 3 or len(bin_dims) != 3:\n        raise ValueError('need three dimensions')\n"
        "    return all(i <= b for i, b in zip(sorted(item_dims), sorted(bin_dims)))\n\n\n"
        "def loan_days(item_type, renewals=0):\n    if item_type not in LOAN_DAYS:\n        raise ValueError('unknown')\n"
        "    if renewals < 0:\n        raise ValueError('negative')\n    return LOAN_DAYS[item_type] * (1 + renewals)\n\n\n"
        "def can_renew(renewals_so_far, has_hold):\n    if has_hold:\n        return False\n    return renewals_so_far < 2\n\n\n"
        "def can_borrow(member_type, current_loans):\n    limit = MAX_ITEMS.get(member_type)\n    if limit is None:\n"
        "        return False\n    return current_loans < limit\n\n\n"
        "def parse_code(code):\n    \"\"\"'B12-3-07' -> ('B', 12, 3, 7); 'A1-2-03' too.\"\"\"\n"
        "    m = _CODE_RE.match(code.strip())\n    if not m:\n        raise ValueError('bad code')\n"
        "    aisle, bay, level, slot = m.groups()\n    return (aisle, int(bay), int(level), int(slot))\n")})
    assert set(records) == {"fits", "loan_days", "can_renew", "can_borrow", "parse_code"}, \
        (tmp_path / "o" / "rejected.jsonl").read_text()
    assert ["size3" in d for d in records["fits"]["param_domains"]] == [True, True]
    assert "in:LOAN_DAYS" in records["loan_days"]["param_domains"][0]
    assert records["can_renew"]["param_types"][1] == "bool"
    assert records["can_borrow"]["param_types"][0] == "str"
    assert records["parse_code"]["param_domains"][0].startswith(("example", "pattern"))
    returning = {name for name, r in records.items() if r["branch_coverage_returning"] in (None, 1.0)}
    assert returning == set(records)


def test_a_value_looked_for_in_another_parameter_dict_values_and_lines_a_helper_parses(tmp_path):
    """Issue 30 (a sixth folder): a parameter the body looks for among another's values (``mark_done(tasks,
    title)`` raises unless ``title`` is one of the tasks'), a dict whose values the body sums (read through
    ``.get``), and lines a helper parses with the module's regular expression."""
    records = _convert_folder(tmp_path, {"log.py": (
        "import re\n\nWEIGHTS = {'homework': 0.25, 'quizzes': 0.25, 'final': 0.5}\n"
        "SET_RE = re.compile(r'^\\s*([A-Za-z ]+?)\\s*:\\s*(\\d+)\\s*x\\s*(\\d+)\\s*$')\n\n\n"
        "def mark_done(tasks, title):\n    found = False\n    updated = []\n    for t in tasks:\n"
        "        if t['title'] == title and not t['done']:\n            t = {**t, 'done': True}\n            found = True\n"
        "        updated.append(t)\n    if not found:\n        raise KeyError(title)\n    return updated\n\n\n"
        "def weighted_average(categories: dict) -> float:\n    total = used = 0.0\n    for name, weight in WEIGHTS.items():\n"
        "        scores = categories.get(name)\n        if not scores:\n            continue\n"
        "        total += weight * sum(scores) / len(scores)\n        used += weight\n"
        "    if used == 0:\n        raise ValueError('no graded categories')\n    return round(total / used, 2)\n\n\n"
        "def parse_set(line):\n    m = SET_RE.match(line)\n    if not m:\n        raise ValueError('bad set')\n"
        "    name, weight, reps = m.groups()\n    return name.strip().lower(), int(weight), int(reps)\n\n\n"
        "def total_volume(lines):\n    volume = 0\n    for line in lines:\n        if not line.strip():\n            continue\n"
        "        _, weight, reps = parse_set(line)\n        volume += weight * reps\n    return volume\n")})
    assert {"mark_done", "weighted_average", "total_volume"} <= set(records), (tmp_path / "o" / "rejected.jsonl").read_text()
    assert "from0" in records["mark_done"]["param_domains"][1]
    assert records["weighted_average"]["param_types"][0].startswith("dict[str, list[")
    assert records["total_volume"]["param_domains"][0].startswith("patterns")
    assert len(set(records["total_volume"]["outputs"])) > 1


def test_a_docstrings_doctest_calls_are_seed_inputs_and_a_cleaned_copy_is_matched_as_its_text(tmp_path):
    """Issue 30 (a seventh folder): the author's own calls in a docstring example are seed inputs (a date format
    nothing else tells), and a text matched with the module's pattern after it was cleaned (``cleaned =
    postcode.upper().replace(' ', '')``) is drawn as texts the pattern matches."""
    records = _convert_folder(tmp_path, {"hotel.py": (
        "import re\n\nPOSTCODE = re.compile(r'^([A-Z]{1,2}\\d[A-Z\\d]?)\\s*(\\d[A-Z]{2})$')\n\n\n"
        "def nights_between(check_in, check_out):\n    \"\"\"\n    >>> nights_between('2024-03-01', '2024-03-04')\n    3\n"
        "    \"\"\"\n    y1, m1, d1 = (int(p) for p in check_in.split('-'))\n    y2, m2, d2 = (int(p) for p in check_out.split('-'))\n"
        "    days = (y2 - y1) * 365 + (m2 - m1) * 30 + (d2 - d1)\n    if days <= 0:\n        raise ValueError('check-out first')\n"
        "    return days\n\n\n"
        "def format_postcode(postcode: str) -> str:\n    cleaned = postcode.upper().replace(' ', '')\n"
        "    m = POSTCODE.match(cleaned)\n    if not m:\n        raise ValueError('not a postcode')\n"
        "    return m.group(1) + ' ' + m.group(2)\n")})
    assert set(records) == {"nights_between", "format_postcode"}, (tmp_path / "o" / "rejected.jsonl").read_text()
    assert records["nights_between"]["inputs"][0] == "'2024-03-01', '2024-03-04'"
    assert records["nights_between"]["type_origins"] == ["seed", "seed"]
    assert records["format_postcode"]["param_domains"][0].startswith("pattern")


def test_a_named_date_format_and_a_text_whose_lines_a_pattern_matches(tmp_path):
    """Issue 30 (the seventh folder, after it was read): a docstring's ``'YYYY-MM-DD'`` is drawn filled in, and a
    text split into lines that the module's pattern matches is drawn as such lines among prose."""
    records = _convert_folder(tmp_path, {"notes.py": (
        "import re\n\nHEADING_RE = re.compile(r'^(#{1,6})\\s+(.*?)\\s*$')\n\n\n"
        "def parse_date(text):\n    \"\"\"Turn 'YYYY-MM-DD' into a (year, month, day) tuple.\"\"\"\n"
        "    parts = text.strip().split('-')\n    if len(parts) != 3:\n        raise ValueError('bad date')\n"
        "    year, month, day = (int(p) for p in parts)\n    if not 1 <= month <= 12:\n        raise ValueError('bad month')\n"
        "    return year, month, day\n\n\n"
        "def headings(markdown: str, max_level: int = 3) -> list:\n    out = []\n    for line in markdown.splitlines():\n"
        "        m = HEADING_RE.match(line)\n        if m and len(m.group(1)) <= max_level:\n"
        "            out.append(m.group(2))\n    return out\n")})
    assert set(records) == {"parse_date", "headings"}, (tmp_path / "o" / "rejected.jsonl").read_text()
    assert records["parse_date"]["param_domains"][0].startswith("example")
    assert records["headings"]["param_domains"][0].startswith("lines")
    assert any(out != "[]" for out in records["headings"]["outputs"])


def test_a_function_no_narrowing_saves_is_given_up_with_what_was_tried(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("def never(xs: list[int]) -> int:\n    raise ValueError('never returns')\n")
    result = CliRunner().invoke(main, ["from-code", str(tmp_path / "src"), "--workers", "1", "--quiet", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    (entry,) = [json.loads(line) for line in (tmp_path / "o" / "rejected.jsonl").read_text().splitlines()]
    assert entry["reason"] == "too_few_inputs" and "(+min1)" in entry["detail"]


def test_every_function_given_up_is_in_rejected_jsonl(tmp_path):
    """Each with its reason and detail; a duplicate names the function it repeats; the summary counts them."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text(
        "def evens(xs: list[int]) -> int:\n    return sum(1 for x in xs if x % 2 == 0)\n\n\n"
        "def swap(a, b):\n    return (b, a)\n\n\n"
        "def same(values: list[int]) -> list[int]:\n    return values\n")
    (tmp_path / "src" / "b.py").write_text("def odds(ys: list[int]) -> int:\n    return sum(1 for y in ys if y % 2 == 0)\n")
    result = CliRunner().invoke(main, ["from-code", str(tmp_path / "src"), "--workers", "1", "--quiet", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    given_up = [json.loads(line) for line in (tmp_path / "o" / "rejected.jsonl").read_text().splitlines()]
    assert {(e["source_id"], e["reason"]) for e in given_up} == {
        ("a.py:swap", "untyped_param"), ("a.py:same", "returns_input"), ("b.py:odds", "duplicate")}
    assert all(e["detail"] for e in given_up)
    assert next(e for e in given_up if e["reason"] == "duplicate")["detail"].endswith("as a.py:evens (kept)")
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["from_code"]["given_up"] == {"duplicate": 1, "returns_input": 1, "untyped_param": 1}


def test_a_looping_function_costs_at_most_its_cap(tmp_path):
    """A function that returns on small inputs and loops on the others: the probe settles its domain, the
    candidate runs time out, and the whole conversion ends within the cap (plus the sandbox's grace)."""
    import time

    from execverify_data.fromcode import FromCodeConfig, convert
    from execverify_data.synth.filters import TraceBackend

    code = "def collatz_steps(n: int) -> int:\n    steps = 0\n    while n > 3:\n        n = n - 1 if n % 7 else n + 7\n        steps += 1\n    return steps\n"
    config = FromCodeConfig(function_seconds=4.0, timeout=3.0)
    with TraceBackend("sandbox", max_steps=10 ** 9, timeout=3.0) as tracer:
        t0 = time.monotonic()
        record, counts = convert(Function(code, "collatz_steps"), 0, config, tracer=tracer)
        took = time.monotonic() - t0
    assert took < 4.0 + 3.0, took
    assert record is None and ("time_cap" in counts or "too_few_inputs" in counts), counts


def test_a_folder_sidecar_gives_seed_inputs_types_and_descriptions(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "rle.py").write_text(
        "def rle_encode(s):\n    out = []\n    for ch in s:\n        if out and out[-1][0] == ch:\n            out[-1][1] += 1\n"
        "        else:\n            out.append([ch, 1])\n    return ''.join(f'{c}{n}' for c, n in out)\n")
    (tmp_path / "src" / "from-code.json").write_text(json.dumps({"rle.py:rle_encode": {
        "inputs": ["'aaabcc'", "'abc'"], "types": ["str"], "description": "Return `s` run-length encoded."}}))
    result = CliRunner().invoke(main, ["from-code", str(tmp_path / "src"), "--workers", "1", "--quiet", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    (record,) = _records(tmp_path / "o")
    assert record["type_origins"] == ["given"] and record["description"] == "Return `s` run-length encoded."
    assert record["inputs"][:2] == ["'aaabcc'", "'abc'"] and record["input_origins"][:2] == ["seed", "seed"]
    (tmp_path / "src" / "from-code.json").write_text(json.dumps({"rle.py:rle_decode": {"inputs": ["'a1'"]}}))
    result = CliRunner().invoke(main, ["from-code", str(tmp_path / "src"), "--quiet", "--out", str(tmp_path / "o2")])
    assert result.exit_code == 2 and "no function rle.py:rle_decode" in result.output and "Traceback" not in result.output


def test_a_package_becomes_rows_with_its_version_and_license(tmp_path):
    """--package reads an installed module's source without importing it; rows record name==version and license."""
    import platform

    result = CliRunner().invoke(main, ["from-code", "--package", "colorsys", "--workers", "1", "--quiet", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    records = _records(tmp_path / "o")
    assert len(records) >= 4 and {r["entry_point"] for r in records} <= {"rgb_to_yiq", "yiq_to_rgb", "rgb_to_hls", "hls_to_rgb",
                                                                         "rgb_to_hsv", "hsv_to_rgb"}
    assert {(r["source"], r["license"]) for r in records} == {(f"colorsys=={platform.python_version()}", "PSF-2.0")}
    assert all(r["source_id"].startswith("colorsys:") for r in records)
    result = CliRunner().invoke(main, ["from-code", "--package", "no_such_package_here", "--quiet", "--out", str(tmp_path / "p")])
    assert result.exit_code == 2 and "no pure-Python package or module" in result.output and "Traceback" not in result.output


def test_functions_that_depend_on_state_or_their_package_are_given_up_with_the_reason(tmp_path):
    from execverify_data.fromcode import FromCodeConfig, convert

    config = FromCodeConfig()
    stateful = Function("TOTAL = 0\n\n\ndef add(x: int) -> int:\n    global TOTAL\n    TOTAL += x\n    return TOTAL\n", "add")
    relative = Function("from .util import helper\n\n\ndef f(x: int) -> int:\n    return helper(x)\n", "f")
    assert "state" in convert(stateful, 0, config, tracer=None)[1]
    assert "relative_import" in convert(relative, 1, config, tracer=None)[1]


def test_the_card_of_a_release_from_a_users_folder_says_what_it_holds(folder_run, tmp_path):
    """Every claim computed from the rows and records: not 'synthetic', the inputs per program and the branch
    coverage measured, level 0, the sources and their licenses, the user's license, description and limitations."""
    pytest.importorskip("datasets")
    out = tmp_path / "rel"
    result = CliRunner().invoke(main, ["build-release", "--release-version", "0.1.0", "--programs", str(folder_run),
                                       "--workers", "1", "--quiet", "--out", str(out), "--test-share", "0",
                                       "--license", "Apache-2.0", "--description", "Two text helpers of ours.",
                                       "--limitations", "Only two functions."])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "MANIFEST.json").read_text())
    card = (out / "README.md").read_text()
    records = _records(folder_run)
    counts = [len(r["inputs"]) for r in records]
    assert manifest["inputs_per_program"] == {"min": min(counts), "median": sorted(counts)[len(counts) // 2] if len(counts) % 2
                                              else (sorted(counts)[len(counts) // 2 - 1] + sorted(counts)[len(counts) // 2]) / 2,
                                              "max": max(counts)}
    assert "Synthetic Python programs" not in card and "Programs are synthesized" not in card
    assert "Two text helpers of ours." in card and "Python functions given to `execverify from-code`" in card
    low, high = min(counts), max(counts)
    assert (f"per program, {low} traced inputs" if low == high else f"per program, {low} to {high} traced inputs") in card
    assert "every `if` and `while` goes both ways" not in card
    assert "| 0 | 2 |" in card  # the level table: level 0, two programs
    assert "license: apache-2.0" in card and "released under the APACHE-2.0 license" in card
    assert "## Limitations" in card and "* Only two functions." in card
    assert "| clip.py | not recorded | 2 |" in card and "replay with `generate(" not in card
    assert not list(out.glob("LICENSE-*"))
    from execverify_data.release.inspect import inspect_release

    assert inspect_release(out).problems == []


def test_a_humaneval_release_carries_its_notice(tmp_path):
    from execverify_data.release.builder import _provenance_text, write_notices
    from execverify_data.shards import write_atomic

    sources = [{"source": "humaneval", "license": "MIT", "programs": 161}]
    assert write_notices(tmp_path, sources, write_atomic) == ["LICENSE-HumanEval"]
    assert "Copyright (c) OpenAI" in (tmp_path / "LICENSE-HumanEval").read_text()
    text = _provenance_text(sources)
    assert "| humaneval | MIT | 161 |" in text and "`LICENSE-HumanEval`" in text


def test_sides_that_end_in_raise_are_not_goals_for_returning_inputs():
    """Issue 30: ``if score < 0 or score > 100: raise`` is taken only by inputs that raise (not kept), so it is not a
    goal of best-effort coverage and the records say the coverage both with it (``branch_coverage``) and without it
    (``branch_coverage_returning``); a raise that a ``try`` may catch, or a side that returns, stays a goal."""
    import ast

    from execverify_data.synth.coverage import Probe, branch_coverage, raising_sides

    code = ("def grade(score, words):\n    if score < 0 or score > 100:\n        raise ValueError(score)\n"
            "    v = words.strip()\n    if v in ('yes', 'on'):\n        return 1\n    elif v == 'no':\n        return 0\n"
            "    raise ValueError(v)\n\n\n"
            "def guarded(x):\n    try:\n        if x < 0:\n            raise ValueError(x)\n    except ValueError:\n"
            "        return 0\n    return 1 if x else 2\n")
    sides, lines = raising_sides(ast.parse(code))
    assert sides == {(0, True), (1, False)} and lines == {3, 9}  # the elif (id 1) falls to the raise; the guarded one stays
    probe = Probe(code.split("\n\n\n")[0], "grade")
    runs = [probe.run((s, w)) for s, w in ((5, "yes"), (50, " no"), (-1, "yes"))]  # the last raises
    assert branch_coverage(runs, probe) == 0.6667 and branch_coverage(runs, probe, returning=True) == 1.0


def test_aimed_edits_put_the_untaken_tests_literals_into_inputs_that_returned():
    """Issue 30: the draws aimed at a side no input took edit inputs that returned with the literals its test
    compares with (at an end, around the text, twice, in its place) and append draws of the program's patterns."""
    from execverify_data.inputs import aimed

    texts = {a for (a,) in aimed(("str",), [("12",)], seed=1, k=40, strs=("(", ")"), patterns=(r"!(\d)",))}
    assert {"(12)", "(12", "12)"} & texts and any(t.startswith("12 !") for t in texts) and "" in texts
    numbers = {n for (_, n) in aimed(("str", "int"), [("a", 3)], seed=2, k=30, numbers=(59,))}
    assert {58, 59, 60} & numbers
    assert aimed(("str",), [("x",)], seed=0, k=3) == aimed(("str",), [("x",)], seed=0, k=3)  # from the seed alone


def test_draws_aimed_at_untaken_branches_take_them(tmp_path):
    """Issue 30: where the candidates leave a decision one-sided, rounds of draws aimed at it (the literals of its
    test, of the constants and assignments it reads) take it: a sign or parentheses before digits, the keys of a
    table a value was looked up in; the raising sides are left out of the second figure only."""
    records = _convert_folder(tmp_path, {"money.py": (
        "CODES = {'SAVE10': ('percent', 10), 'SHIPFREE': ('shipping', 0)}\n\n\n"
        "def parse_amount(s):\n    s = s.strip()\n    negative = False\n    if s.startswith('(') and s.endswith(')'):\n"
        "        negative = True\n        s = s[1:-1]\n    elif s.startswith('-'):\n        negative = True\n        s = s[1:]\n"
        "    if not s.isdigit():\n        raise ValueError(s)\n    return -int(s) if negative else int(s)\n\n\n"
        "def discount(total: int, code: str) -> float:\n    kind, value = CODES.get(code.strip().upper(), (None, 0))\n"
        "    if kind == 'percent':\n        return total * (100 - value) / 100\n    if kind == 'shipping':\n"
        "        return total - 5\n    return float(total)\n")})
    assert set(records) == {"parse_amount", "discount"}, (tmp_path / "o" / "rejected.jsonl").read_text()
    assert records["parse_amount"]["branch_coverage_returning"] == 1.0 > records["parse_amount"]["branch_coverage"]
    assert records["discount"]["branch_coverage"] == records["discount"]["branch_coverage_returning"] == 1.0


def test_best_effort_choice_adds_an_input_that_is_not_returned_unchanged():
    """Issue 30: where the inputs chosen for coverage all return their argument unchanged (sorted words that are
    sorted already, the empty one that takes the filter), one that does not is added: a row teaches no identity."""
    from execverify_data.synth.filters import FilterConfig, prescreen
    from execverify_data.synth.generator import Program

    code = "def f(words):\n    return ' '.join(sorted(w for w in words.split(' ') if w))\n"
    program = Program(code, "f", ("str",), ("words",), level=0, target="from_code", seed=0)
    candidates = [("a",), ("a b",), ("b",), ("c d",), ("e",), ("d c",), ("",)]  # the empty one, taking `if w`, last
    picked = prescreen(program, candidates, FilterConfig(k=5, max_steps=1000, timeout=2.0), {}, best_effort=True, k_max=8)
    assert ("d c",) in [args for args, _ in picked] and ("",) in [args for args, _ in picked]


LOANS = """from datetime import date, timedelta
from decimal import Decimal, ROUND_HALF_UP

DAILY_FINE = Decimal("0.25")
CAP = Decimal("5.00")


def due_date(borrowed: date, days: int = 14) -> date:
    due = borrowed + timedelta(days=days)
    while due.weekday() >= 5:  # a weekend: the next Monday
        due += timedelta(days=1)
    return due


def fine(due, returned):
    late = (returned - due).days
    if late <= 0:
        return Decimal("0.00")
    return min(CAP, (DAILY_FINE * late).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def age_on(birth, day):
    years = day.year - birth.year
    if (day.month, day.day) < (birth.month, birth.day):
        years -= 1
    return years
"""

CLOCK = """from datetime import date, datetime


def days_left(day):
    return (day - date.today()).days


def stamp(moment: datetime) -> date:
    if moment.hour < 6:
        return moment.date().replace(day=1)
    return moment.date()
"""


def test_dates_and_decimals_are_drawn_and_their_rows_run_as_text(tmp_path):
    """Dates and Decimal amounts are values of the rows (``datetime.date(2024, 1, 5)``, ``Decimal('0.75')``, as
    Python writes them); a program that binds ``date`` only gets ``import datetime`` so that its rows run as
    source; reading the clock is the outside world, and a module where ``datetime`` is the class cannot spell a
    date (both given up, with their reasons). Before, every one of these was ``untyped_param`` or ``io``."""
    from execverify_data.reexecute import check_rows

    records = _convert_folder(tmp_path, {"loans.py": LOANS, "clock.py": CLOCK})
    rejected = {e["entry_point"]: e for e in map(json.loads, (tmp_path / "o" / "rejected.jsonl").read_text().splitlines())}
    assert set(records) == {"due_date", "fine", "age_on"}, rejected
    assert records["due_date"]["param_types"] == ["date", "int"] and records["fine"]["param_types"][0] == "date"
    assert records["due_date"]["code"].startswith("import datetime\nfrom datetime import date, timedelta\n")
    assert any(out.startswith("Decimal('") and out != "Decimal('0.00')" for out in records["fine"]["outputs"])
    assert all(r["branch_coverage_returning"] == 1.0 for r in records.values()), records
    assert rejected["days_left"]["reason"] == "io" and ".today()" in rejected["days_left"]["detail"]
    assert rejected["stamp"]["reason"] == "value_names" and "from datetime import date, datetime" in rejected["stamp"]["detail"]
    assert check_rows(list(records.values()), states=True).mismatches == []


CLOCKS = """import re
from datetime import datetime

TIME_RE = re.compile(r"^(\\d{1,2}):(\\d{2})$")


def minutes(value):
    m = TIME_RE.match(value or "")
    if not m:
        raise ValueError(f"bad time: {value!r}")
    hours, mins = int(m.group(1)), int(m.group(2))
    if hours > 23 or mins > 59:
        raise ValueError("out of range")
    return hours * 60 + mins


def weekday_of(text):
    day = datetime.strptime(text, "%d/%m/%Y")
    return "weekend" if day.weekday() >= 5 else "weekday"
"""

ROTA = """from clocks import minutes


def shift_length(start, end):
    a, b = minutes(start), minutes(end)
    if a > b:
        raise ValueError("ends before it starts")
    if b - a > 360:
        return "long"
    return "short" if b - a < 240 else "normal"


def gap(first, second):
    if first > second:
        raise ValueError("out of order")
    return second - first
"""


def test_a_folders_modules_lend_each_other_their_functions(tmp_path):
    """``from clocks import minutes`` in ``rota.py``: the row of ``shift_length`` carries ``minutes`` and what it
    needs (the pattern), its texts are drawn in the pattern's format through ``minutes(start)``'s ``value or ""``,
    ``strptime``'s format gives dates written so, and ``if first > second: raise`` draws the two in order. Before,
    ``shift_length`` failed on the import, and the other two were given up or took one side."""
    from execverify_data.reexecute import check_rows

    records = _convert_folder(tmp_path, {"clocks.py": CLOCKS, "rota.py": ROTA})
    rejected = (tmp_path / "o" / "rejected.jsonl").read_text()
    assert set(records) == {"minutes", "weekday_of", "shift_length", "gap"}, rejected
    shift = records["shift_length"]
    assert "def minutes(value):" in shift["code"] and "TIME_RE = re.compile" in shift["code"] and "from clocks" not in shift["code"]
    assert {"'long'", "'normal'", "'short'"} <= set(shift["outputs"])
    assert {"'weekend'", "'weekday'"} <= set(records["weekday_of"]["outputs"])
    assert records["gap"]["branch_coverage_returning"] == 1.0
    assert check_rows(list(records.values())).mismatches == []


def test_a_run_that_keeps_no_row_says_so_without_an_average_of_nothing(tmp_path):
    """A folder whose every function is given up printed "(None inputs each on average; ...)"."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("def answer():\n    return 42\n")
    result = CliRunner().invoke(main, ["from-code", str(tmp_path / "src"), "--workers", "1", "--quiet", "--seed", "3",
                                       "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "0 of 1 functions became rows" in result.output and "no rows" in result.output, result.output
    assert "None" not in result.output, result.output
