"""``execverify view`` without a browser: the page's data against the trace, sampling, the size bound,
escaping, release rows, example pages and the command's one-line errors (browser tests:
``test_view_browser.py``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from execverify_data import view
from execverify_data.cli import main
from execverify_data.errors import InvalidArgument
from execverify_data.questions import build
from execverify_data.trace import trace_call

PROGRAM = """\
def scale(x, k):
    y = x * k
    return y


def f(xs, k):
    out = []
    it = iter(xs)
    for x in it:
        if x < 0:
            print("skip", x)
            continue
        out.append(scale(x, k))
    return out
"""
CALL = "f([2, -1, 3], 10)"

LOOP = """\
def f(n):
    total = 0
    i = 0
    while i < n:
        total += i % 7
        i += 1
    return total
"""


def page_json(page: str) -> dict:
    """The data a page embeds (what its script parses)."""
    match = re.search(r'<script type="application/json" id="trace-data">(.*?)</script>', page, re.S)
    assert match, "the page has no data element"
    return json.loads(match.group(1))


def steps_of(data: dict) -> list[dict]:
    """The page's steps decoded: line, function, depth, locals {name: (text, type, askable)}, stack lines."""
    steps = data["steps"]
    out = []
    for i in range(len(steps["event"])):
        flat = data["states"][steps["state"][i]]
        local = {data["names"][flat[j]]: tuple(data["values"][flat[j + 1]][:3]) for j in range(0, len(flat), 2)}
        stack, node = [], steps["stack"][i]
        while node != -1:
            parent, function, _frame, line = data["stack_nodes"][node]
            stack.append((data["functions"][function], line))
            node = parent
        out.append({"event": steps["event"][i], "line": steps["line"][i], "function": data["functions"][steps["function"][i]],
                    "depth": steps["depth"][i], "locals": local, "stack": stack, "next": steps["next"][i]})
    return out


def test_every_step_is_the_trace():
    trace = trace_call(PROGRAM, CALL)
    data = view.page_data(PROGRAM, trace, call=CALL)
    assert data["format"] == "execverify-view/1" and data["sampling"] is None
    steps = steps_of(data)
    assert len(steps) == len(trace.events) == data["total"]
    for i, (step, event) in enumerate(zip(steps, trace.events)):
        assert step["event"] == i
        assert (step["line"], step["function"], step["depth"]) == (event.line, event.function, event.depth)
        assert step["locals"] == {name: (v.text, v.type, v.askable) for name, v in event.locals.items()}
        assert len(step["stack"]) == event.depth
        assert step["next"] == (trace.events[i + 1].line if i + 1 < len(trace.events) else -1)
    inside = next(s for s in steps if s["function"] == "scale")
    assert inside["stack"] == [("f", 13)]  # the caller, at its calling line
    assert data["stdout"] == "skip -1\n"
    assert any(not askable for s in steps for (_t, _ty, askable) in s["locals"].values())  # the iterator


def test_questions_point_at_their_step_and_answer():
    trace = trace_call(PROGRAM, CALL)
    verification = build(PROGRAM, CALL, seed=1, n_path=3, n_state=3, trace=trace).verification
    data = view.page_data(PROGRAM, trace, call=CALL, questions=json.dumps(verification))
    assert [q["kind"] for q in data["questions"]] == [q["kind"] for q in verification["questions"]]
    for q in data["questions"]:
        assert q["agrees"], q
        if q["kind"] == "io":
            assert q["step"] == len(trace.events) - 1 and q["answer"] == trace.output.text
        elif q["event"] is not None:
            event = trace.events[q["event"]]
            assert (event.line, event.occurrence) == (q["line"], q["k"]) and q["step"] == q["event"]
            if q["kind"] == "state":
                value = event.locals[q["var"]]
                assert q["answer"] == f"{value.text}; {value.type}"
    # a reference answer this trace does not give is marked
    tampered = json.loads(json.dumps(verification))
    tampered["questions"][0]["expected"]["text"] = "[0]"
    assert not view.page_data(PROGRAM, trace, call=CALL, questions=tampered)["questions"][0]["agrees"]


def test_kept_events_sample():
    kept = view._kept_events(100_000, 4000, [50_000, 99_999])
    assert kept == sorted(set(kept))
    assert kept[:2000] == list(range(2000)) and kept[-1000:] == list(range(99_000, 100_000))
    assert {50_000, 50_001, 99_999} <= set(kept)
    assert 4000 <= len(kept) <= 4002
    assert view._kept_events(30, 4000, [3]) == list(range(30))


def test_long_trace_is_sampled_and_questions_kept():
    call = "f(33332)"
    trace = trace_call(LOOP, call)
    assert len(trace.events) == 100_000
    verification = build(LOOP, call, seed=0, trace=trace).verification
    data = view.page_data(LOOP, trace, call=call, questions=verification)
    assert data["sampling"] == {"kept": len(data["steps"]["event"]), "max_events": view.DEFAULT_MAX_EVENTS}
    for q in data["questions"]:
        assert q["step"] is not None and data["steps"]["event"][q["step"]] == q["event"]
    steps = steps_of(data)
    for step in steps[::97]:  # a sampled step is still exactly its event
        event = trace.events[step["event"]]
        assert step["line"] == event.line
        assert step["locals"] == {name: (v.text, v.type, v.askable) for name, v in event.locals.items()}
    assert len(view._dump(data).encode()) < view.MAX_DATA_BYTES


def test_data_budget_halves_the_limits(monkeypatch):
    source = "def f(n):\n    xs = []\n    for i in range(n):\n        xs.append('ab' * i)\n    return len(xs)\n"
    trace = trace_call(source, "f(400)")
    monkeypatch.setattr(view, "MAX_DATA_BYTES", 60_000)
    data = view.page_data(source, trace, call="f(400)")
    assert len(view._dump(data).encode()) <= 60_000
    assert data["max_value_chars"] < view.DEFAULT_MAX_VALUE_CHARS
    longest = max(v[4] for v in data["values"])
    assert longest > data["max_value_chars"] and all(len(v[0]) <= data["max_value_chars"] for v in data["values"])


def test_page_is_self_contained_and_escapes_script_ends():
    source = "def f(s):\n    t = s + '</script><script>window.pwned = 1</script><!--'\n    return t\n"
    call = "f('&amp; \\u2028')"
    trace = trace_call(source, call)
    page = view.render_page(source, trace, call=call, title="<b>title</b>")
    assert page.count("</script>") == 2  # the data element's and the code's
    assert "<!--" not in page.split('id="trace-data">', 1)[1]
    assert not re.search(r"\b(src|href)=|https?:|//cdn|@import|url\(|<link|<img|<iframe|fetch\(|XMLHttpRequest|import\(", page)
    assert "<title>&lt;b&gt;title&lt;/b&gt; · execverify view</title>" in page
    data = page_json(page)
    assert data["source"] == source and data["output"][0] == trace.output.text


def test_bad_limits_are_refused():
    trace = trace_call(LOOP, "f(2)")
    with pytest.raises(InvalidArgument, match="max_events"):
        view.page_data(LOOP, trace, call="f(2)", max_events=0)


# ---------------------------------------------------------------------- release rows

ROW_PROGRAMS = [
    (1, "def g(xs: list[int]) -> int:\n    best = 0\n    for x in xs:\n        if x > best:\n            best = x\n    return best\n",
     ["g([3, 1, 4])", "g([])", "g([5, 9])"]),
    (2, "def h(s: str) -> str:\n    out = ''\n    for c in s:\n        out = c + out\n    return out\n",
     ["h('abc')", "h('')"]),
]


def make_release(root: Path, programs=ROW_PROGRAMS, descriptions: dict[int, str] | None = None) -> Path:
    """A release folder with ``trace`` rows (and one ``codegen`` row) in the release's schema; ``descriptions``
    gives programs (by number) a description."""
    import platform

    import pyarrow as pa
    import pyarrow.parquet as pq

    from execverify_data.release.config import FEATURE_COLUMNS, schema_for

    rows, codegen = [], []
    for number, (level, code, calls) in enumerate(programs):
        program_id = f"synth-0-{number:07d}"
        meta = {"program_id": program_id, "level": level, "target": "builtins.max", "code": code,
                "entry_point": calls[0].split("(")[0], "ast_hash": f"h{number}", "difficulty": 0.25, "bucket": 1,
                "features": {name: 1 for name in FEATURE_COLUMNS}, "python": platform.python_version(),
                "generator_version": "1.1.0", "seed": number, "release_seed": 0,
                "description": (descriptions or {}).get(number, "")}
        for i, call in enumerate(calls):
            rendered = build(code, call, seed=i, n_path=2, n_state=2)
            trace = trace_call(code, call)
            rows.append({"id": f"{program_id}-trace-{i}", **meta, "call": call, "task": "whitebox", "prompt": rendered.prompt,
                         "reference_completion": rendered.reference_completion,
                         "question_kinds": [q["kind"] for q in rendered.questions],
                         "verification": json.dumps(rendered.verification, sort_keys=True),
                         "expected_output": trace.output.text, "expected_type": trace.output.type})
        codegen.append({"id": f"{program_id}-codegen-0", **meta, "prompt": "p", "examples": [], "tests": [], "reference_solution": code})
    release = root / "release"
    for config, items in (("trace", rows), ("codegen", codegen)):
        (release / config).mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(items, schema=schema_for(config)), release / config / "train-00000-of-00001.parquet")
    return release


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return make_release(tmp_path_factory.mktemp("view-release"))


def test_view_row_shows_the_rows_questions(release, tmp_path):
    out = view.view_row(release, "synth-0-0000000-trace-0", tmp_path / "row.html")
    data = page_json(out.read_text(encoding="utf-8"))
    row = view.find_row(release, "synth-0-0000000-trace-0")
    expected = json.loads(row["verification"])["questions"]
    assert data["title"] == "synth-0-0000000-trace-0" and data["call"] == "g([3, 1, 4])"
    assert data["row"]["level"] == 1
    assert [q["kind"] for q in data["questions"]] == [q["kind"] for q in expected]
    assert all(q["agrees"] for q in data["questions"])
    assert steps_of(data)[0]["locals"] == {"xs": ("[3, 1, 4]", "list", True), "best": ("0", "int", True)}


def test_view_row_shows_the_programs_description_above_the_code(tmp_path):
    described = make_release(tmp_path, descriptions={0: "Return the largest item of `xs` <or 0>."})
    page = view.view_row(described, "synth-0-0000000-trace-0", tmp_path / "a.html").read_text(encoding="utf-8")
    shown = '<p id="description" style="margin: 0 0 8px; white-space: pre-wrap;">Return the largest item of <code>xs</code> &lt;or 0&gt;.</p>'
    assert page.index("<h2>Program</h2>") < page.index(shown) < page.index('<div id="code"')
    plain = view.view_row(described, "synth-0-0000001-trace-0", tmp_path / "b.html").read_text(encoding="utf-8")
    assert 'id="description"' not in plain  # a program without one: the page of the template alone
    row = view.find_row(described, "synth-0-0000001-trace-0")
    assert plain == view.render_page(row["code"], trace_call(row["code"], row["call"]), call=row["call"], questions=row["verification"],
                                     title=row["id"], row={k: row[k] for k in ("id", "program_id", "level", "target", "difficulty",
                                                                               "python", "generator_version")})


def test_find_row_errors(release, tmp_path):
    with pytest.raises(view.ViewError, match="no row with id 'synth-0-9-trace-0' .*one of its ids: synth-0-"):
        view.find_row(release, "synth-0-9-trace-0")
    with pytest.raises(view.ViewError, match="not a release folder"):
        view.find_row(tmp_path, "synth-0-0000000-trace-0")
    with pytest.raises(view.ViewError, match="codegen row.*synth-0-0000000-trace-0"):
        view.view_row(release, "synth-0-0000000-codegen-0", tmp_path / "x.html")


def test_render_examples_is_deterministic(release):
    first = view.render_examples(release, n=3)
    assert [p.name for p in first] == ["synth-0-0000000-trace-0.html", "synth-0-0000001-trace-0.html",
                                       "synth-0-0000000-trace-1.html"]  # one per level first, then by id
    shas = [p.read_bytes() for p in first]
    again = view.render_examples(release, n=3)
    assert again == first and [p.read_bytes() for p in again] == shas
    assert all(p.parent == release / "examples" for p in first)
    with pytest.raises(InvalidArgument):
        view.render_examples(release, n=0)


# ---------------------------------------------------------------------- the command


def invoke(*args: str):
    return CliRunner().invoke(main, ["view", *args])


def one_line_error(result, pattern: str) -> None:
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and re.search(pattern, errors[0]), result.output


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    return path


def test_cli_program_and_row(program, release, tmp_path):
    result = invoke(str(program), "--call", CALL, "-o", str(tmp_path / "p.html"))
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {tmp_path / 'p.html'}")
    data = page_json((tmp_path / "p.html").read_text(encoding="utf-8"))
    assert data["title"] == f"prog.py: {CALL}" and data["questions"][0]["kind"] == "io"
    result = invoke(str(release), "synth-0-0000001-trace-1", "-o", str(tmp_path / "r.html"))
    assert result.exit_code == 0, result.output
    assert page_json((tmp_path / "r.html").read_text(encoding="utf-8"))["call"] == "h('')"


def test_cli_errors(program, release, tmp_path):
    out = str(tmp_path / "x.html")
    one_line_error(invoke(str(release), "synth-0-0000000-trace-7", "-o", out), "no row with id 'synth-0-0000000-trace-7'")
    one_line_error(invoke(str(program), "--call", "f(len([1]), 2)", "-o", out), "not a literal call.*--trusted-call")
    one_line_error(invoke(str(program), "--call", "nothing(1)", "-o", out), "no function named 'nothing'")
    one_line_error(invoke(str(program), "--call", CALL, "-o", str(tmp_path / "missing" / "x.html")), "is not an existing folder")
    one_line_error(invoke(str(program), "--call", CALL, "-o", str(tmp_path)), "is a directory")
    one_line_error(invoke(str(program), "-o", out), "give the call")
    one_line_error(invoke(str(release), "-o", out), "give the id of a row")
    one_line_error(invoke(str(release), "x", "--call", CALL, "-o", out), "--call and --trusted-call are for PROGRAM.py")
    one_line_error(invoke(str(program), "synth-0-0000000-trace-0", "-o", out), "is a program file")
    one_line_error(invoke(str(tmp_path), "synth-0-0000000-trace-0", "-o", out), "not a release folder")
    if Path("/proc/self").is_dir():  # a folder nobody can create files in, even root
        one_line_error(invoke(str(program), "--call", CALL, "-o", "/proc/execverify-view.html"), "cannot write /proc/execverify-view.html")
    assert not (tmp_path / "x.html").exists()
