"""The trace explorer: one traced call as a static HTML page that steps through it.

:func:`render_page` turns a program, a :class:`~execverify_data.trace.Trace` of one of
its calls and (optionally) the row's questions into one self-contained HTML file (CSS,
JavaScript and data inline: no server, no network); :func:`view_row` renders a row of a
release folder (traced again by the trusted runner), :func:`view_call` a program and a
call, :func:`render_examples` a few deterministic example pages into a release folder.
Long traces are sampled (:func:`_kept_events`). ``docs/view.md`` describes the page.

>>> from execverify_data.trace import trace_call
>>> source = "def f(xs):\\n    total = 0\\n    for x in xs:\\n        total += x\\n    return total\\n"
>>> data = page_data(source, trace_call(source, "f([1, 2])"), call="f([1, 2])")
>>> data["total"], data["steps"]["line"], data["sampling"]
(7, [2, 3, 4, 3, 4, 3, 5], None)
"""

from __future__ import annotations

import html
import json
import os
import platform
import re
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

from execverify_data.errors import ExecVerifyError, check_int

__all__ = ["DEFAULT_MAX_EVENTS", "DEFAULT_MAX_VALUE_CHARS", "MAX_DATA_BYTES", "ViewError", "find_row", "page_data",
           "render_examples", "render_page", "view_call", "view_row"]

#: Events a page holds at most; longer traces are sampled (see the module docs).
DEFAULT_MAX_EVENTS = 4000
#: Characters of a value's canonical text a page shows at most (the full length is noted).
DEFAULT_MAX_VALUE_CHARS = 500
#: Budget of the page's embedded JSON, in bytes (UTF-8); limits are halved until it fits.
MAX_DATA_BYTES = 4_000_000
#: The configs whose rows carry a traced call (``codegen`` rows do not).
VIEWABLE_CONFIGS = ("trace", "sft", "io", "oi")
#: Seconds of wall clock for re-tracing a row (the step budget decides, as in the release).
RETRACE_TIMEOUT = 60.0
FORMAT = "execverify-view/1"
_TEMPLATE = "view.html"
_DATA_MARK = "/*EXECVERIFY-VIEW-DATA*/null"
#: The program panel's heading in the template; a description goes right after it, above the code.
_PROGRAM_HEADING = "<h2>Program</h2>\n"


class ViewError(ExecVerifyError, ValueError):
    """A row or page cannot be made (no such row, not a release folder...); the message says what to do."""


def _question_event(question, trace, lines: dict) -> int | None:
    """Index (in ``trace.events``) of the event a question asks about, or None."""
    from execverify_data.questions import Kind

    kind = question.kind
    if kind in (Kind.IO, Kind.OI):
        return len(trace.events) - 1 if trace.events else None
    return lines.get((question.line, 1 if kind is Kind.COVERAGE else question.k))


def _question_agrees(question, trace, event: int | None) -> bool:
    """Whether this trace gives the question's reference answer (the row may come from another Python)."""
    from execverify_data.questions import Kind

    expected = question.expected
    kind = question.kind
    if kind in (Kind.IO, Kind.OI):
        return trace.output is not None and (trace.output.text, trace.output.type) == (expected.text, expected.type)
    if kind is Kind.COVERAGE:
        return expected.text == str(event is not None)
    if event is None:
        return kind is Kind.STATE and expected is None or kind is Kind.PATH and expected.text == "-1"
    if kind is Kind.PATH:
        following = trace.events[event + 1].line if event + 1 < len(trace.events) else -1
        return expected.text == str(following)
    value = trace.events[event].locals.get(question.var)
    if expected is None or value is None:
        return False
    return (value.text, value.type) == (expected.text, expected.type)


def _kept_events(total: int, max_events: int, wanted: Iterable[int]) -> list[int]:
    """The event indices a page holds: all of them, or the first half of ``max_events``, the last quarter, a quarter
    spread evenly over the middle, and every ``wanted`` index with its successor."""
    if total <= max_events:
        return list(range(total))
    head, tail = max_events // 2, max_events // 4
    middle = max_events - head - tail
    kept = set(range(head)) | set(range(total - tail, total))
    span = total - tail - head
    kept.update(head + (i * span) // middle for i in range(middle))
    for index in wanted:
        kept.update(i for i in (index, index + 1) if 0 <= i < total)
    return sorted(kept)


def _stack_parents(trace) -> list[int]:
    """For each event, the index of the event its caller frame was last at (-1 at depth 0)."""
    current: list[int] = []  # event index per depth, for the frames on the stack now
    parents = []
    for index, event in enumerate(trace.events):
        depth = event.depth
        del current[depth:]
        current += [-1] * (depth - len(current))  # (a caller with no event yet: not shown)
        parents.append(current[depth - 1] if depth else -1)
        current.append(index)
    return parents


def page_data(source: str, trace, *, call: str, questions=None, title: str | None = None, row: dict | None = None,
              max_events: int = DEFAULT_MAX_EVENTS, max_value_chars: int = DEFAULT_MAX_VALUE_CHARS) -> dict[str, Any]:
    """The JSON object a page embeds (see ``docs/view.md`` for its fields).

    Args:
        source (`str`): the program text.
        trace (`Trace`): a trace of ``call`` against ``source``.
        call (`str`): the traced call.
        questions (optional): the row's questions: a ``verification`` object (dict or JSON
            text, as :func:`execverify_data.questions.load_verification` reads it) or a
            sequence of :class:`~execverify_data.questions.Question`.
        title (`str`, optional): the page's title (the call by default).
        row (`dict`, optional): facts about the row shown in the header (``id``, ``level``...).
        max_events (`int`, optional, defaults to `DEFAULT_MAX_EVENTS`): events held at most.
        max_value_chars (`int`, optional, defaults to `DEFAULT_MAX_VALUE_CHARS`): longest value text shown.

    Raises:
        InvalidArgument: a limit is not a positive int, or ``questions`` is not a verification.
    """
    for name, value in (("max_events", max_events), ("max_value_chars", max_value_chars)):
        check_int(name, value)
    from execverify_data.questions import load_verification
    from execverify_data.questions.select import event_index

    if not isinstance(questions, (list, tuple)):
        verification = load_verification(questions)
        questions = verification.questions if verification is not None else ()
    questions = tuple(questions)
    lines = event_index(trace)
    asked = [_question_event(q, trace, lines) for q in questions]
    parents = _stack_parents(trace)
    while True:
        data = _build(source, trace, call, questions, asked, parents, title, row, max_events, max_value_chars)
        size = len(_dump(data).encode("utf-8"))
        if size <= MAX_DATA_BYTES or (max_events <= 16 and max_value_chars <= 16):
            return data
        max_events, max_value_chars = max(16, max_events // 2), max(16, max_value_chars // 2)


def _build(source, trace, call, questions, asked, parents, title, row, max_events, max_value_chars) -> dict:
    """The page data at these limits (:func:`page_data` halves them until it fits :data:`MAX_DATA_BYTES`)."""
    from execverify_data.questions import question_text

    events = trace.events
    total = len(events)
    kept = _kept_events(total, max_events, [i for i in asked if i is not None])
    position = {index: n for n, index in enumerate(kept)}

    functions: dict[str, int] = {}
    names: dict[str, int] = {}
    values: dict[tuple, int] = {}
    states: dict[int, int] = {}  # id(locals mapping) -> state index (the tracer shares equal mappings)
    state_rows: list[list[int]] = []
    nodes: dict[int, int] = {}  # event index -> stack node index
    node_rows: list[list[int]] = []

    def value_id(value) -> int:
        return values.setdefault(tuple(_value_json(value, max_value_chars)), len(values))

    def state_id(mapping) -> int:
        if id(mapping) not in states:
            states[id(mapping)] = len(state_rows)
            state_rows.append([i for name, value in mapping.items()
                               for i in (names.setdefault(name, len(names)), value_id(value))])
        return states[id(mapping)]

    def node_id(index: int) -> int:
        chain = []
        while index != -1 and index not in nodes:
            chain.append(index)
            index = parents[index]
        parent = nodes[index] if index != -1 else -1
        for i in reversed(chain):
            event = events[i]
            nodes[i] = len(node_rows)
            node_rows.append([parent, functions.setdefault(event.function, len(functions)), event.frame, event.line])
            parent = nodes[i]
        return parent

    steps: dict[str, list] = {key: [] for key in ("event", "function", "frame", "depth", "line", "k", "state", "stack", "next")}
    for index in kept:
        event = events[index]
        steps["event"].append(index)
        steps["function"].append(functions.setdefault(event.function, len(functions)))
        steps["frame"].append(event.frame)
        steps["depth"].append(event.depth)
        steps["line"].append(event.line)
        steps["k"].append(event.occurrence)
        steps["state"].append(state_id(event.locals))
        steps["stack"].append(node_id(parents[index]))
        steps["next"].append(events[index + 1].line if index + 1 < total else -1)

    shown_questions = [
        {"number": number, "kind": question.kind.value, "text": question_text(question),
         "answer": question.reference_answer, "line": question.line, "k": question.k, "var": question.var,
         "event": index, "step": position.get(index) if index is not None else None,
         "agrees": _question_agrees(question, trace, index)}
        for number, (question, index) in enumerate(zip(questions, asked), 1)]
    marks = getattr(trace, "stdout_marks", None)  # per-event output lengths, where the tracer records them
    return {
        "format": FORMAT, "title": title or call, "call": call, "source": source, "python": trace.python,
        "viewer_python": platform.python_version(), "status": trace.status.value,
        "output": None if trace.output is None else _value_json(trace.output, max_value_chars),
        "exception": None if trace.exception is None else trace.exception.to_json(),
        "stdout": trace.stdout, "stdout_marks": None if marks is None else [marks[i] for i in kept],
        "total": total, "steps": steps, "functions": list(functions), "names": list(names),
        "values": [list(key) for key in values], "states": state_rows, "stack_nodes": node_rows,
        "questions": shown_questions,
        "sampling": None if len(kept) == total else {"kept": len(kept), "max_events": max_events},
        "max_value_chars": max_value_chars, "row": row,
    }


def _value_json(value, max_chars: int) -> list:
    """A value as the page holds it: text (cut at ``max_chars``), type, askable, reason, full length."""
    text = value.text
    return [text[:max_chars], value.type, value.askable, value.reason or "", len(text)]


def _dump(data: dict) -> str:
    """JSON safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` are escaped (no ``</script>``, no ``<!--``)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _description_html(description: str) -> str:
    """A program's description as the page shows it above the code: escaped, names in backticks as code.

    >>> _description_html("Return `xs` < 3.")
    '      <p id="description" style="margin: 0 0 8px; white-space: pre-wrap;">Return <code>xs</code> &lt; 3.</p>\\n'
    """
    text = re.sub(r"`([^`\n]+)`", r"<code>\1</code>", html.escape(description.strip()))
    return f'      <p id="description" style="margin: 0 0 8px; white-space: pre-wrap;">{text}</p>\n'


def render_page(source: str, trace, *, call: str, description: str = "", **options) -> str:
    """The page's HTML text; ``options`` as :func:`page_data` (``questions``, ``title``, ``row``, limits).
    A ``description`` of the program (what it returns) is shown above the code; without one the page is the
    template's alone.

    >>> from execverify_data.trace import trace_call
    >>> page = render_page("def f():\\n    return '</script>'\\n", trace_call("def f():\\n    return '</script>'\\n", "f()"), call="f()")
    >>> page.count("</script>"), "http://" in page or "https://" in page  # the data element's and the code's
    (2, False)
    """
    data = page_data(source, trace, call=call, **options)
    template = resources.files(__package__).joinpath(_TEMPLATE).read_text(encoding="utf-8")
    head, mark, tail = template.partition(_DATA_MARK)
    if not mark:  # pragma: no cover - a broken install
        raise ViewError(f"the page template {_TEMPLATE} has no data mark; reinstall execverify-data")
    head = head.replace("<title>execverify view</title>", f"<title>{html.escape(data['title'])} · execverify view</title>", 1)
    if description and description.strip():
        head = head.replace(_PROGRAM_HEADING, _PROGRAM_HEADING + _description_html(description), 1)
    return head + _dump(data) + tail


def _write(path: Path, text: str) -> Path:
    from execverify_data.shards import write_atomic

    path = Path(path)
    try:
        write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"))
    except OSError as exc:
        raise ViewError(f"cannot write {path}: {exc.strerror or exc}; choose another output path") from None
    return path


def _release_files(release: Path, config: str | None) -> list[Path]:
    configs = [config] if config in VIEWABLE_CONFIGS or config == "codegen" else [*VIEWABLE_CONFIGS, "codegen"]
    return [f for c in configs for f in sorted((release / c).glob("*-*.parquet"))]


def find_row(release_dir: str | os.PathLike, row_id: str) -> dict:
    """The row ``row_id`` of a release folder, as a dict (looked up in the config its id names).

    Raises:
        ViewError: the folder holds no release shards, or no row has that id.
    """
    import pyarrow.parquet as pq

    release = Path(release_dir)
    if not isinstance(row_id, str) or not row_id.strip():
        raise ViewError("the row id is empty; row ids look like synth-0-0000012-trace-1 (the `id` column)")
    row_id = row_id.strip()
    parts = row_id.rsplit("-", 2)
    config = parts[1] if len(parts) == 3 else None
    files = _release_files(release, config)
    if not files and config is not None:
        files = _release_files(release, None)
    if not files:
        raise ViewError(f"{release} is not a release folder: it has no <config>/<split>-*.parquet files "
                        "(build one with `execverify build-release`)")
    for path in files:
        try:
            table = pq.read_table(path, filters=[("id", "=", row_id)])
        except (OSError, ValueError) as exc:
            raise ViewError(f"cannot read {path}: {exc}") from None
        if table.num_rows:
            return table.slice(0, 1).to_pylist()[0]
    example = pq.read_table(files[0], columns=["id"]).slice(0, 1).column("id").to_pylist()
    hint = f" (one of its ids: {example[0]})" if example else ""
    raise ViewError(f"{release} has no row with id {row_id!r}{hint}; row ids are the `id` column, "
                    "like synth-0-0000012-trace-1")


def _row_page(row: dict, runner, limits: dict) -> str:
    from execverify_data.errors import ProgramError

    if "call" not in row or row.get("call") is None:
        program = row.get("program_id", "the program")
        raise ViewError(f"row {row.get('id')!r} is a codegen row, which has no traced call; view one of its "
                        f"question rows instead, e.g. {program}-trace-0")
    try:
        trace = runner.trace(row["code"], row["call"])
    except ProgramError as exc:
        raise ViewError(f"row {row['id']!r} cannot be traced: {exc}") from None
    facts = {key: row.get(key) for key in ("id", "program_id", "level", "target", "difficulty", "python", "generator_version")}
    return render_page(row["code"], trace, call=row["call"], questions=row.get("verification") or None,
                       title=row["id"], row=facts, description=row.get("description") or "", **limits)


def _runner(python: str | None, max_steps: int, timeout: float):
    from execverify_data.sandbox.trusted import TrustedRunner
    from execverify_data.trace import DEFAULT_MAX_STEPS

    return TrustedRunner(1, max_steps=max_steps or DEFAULT_MAX_STEPS, timeout=timeout, python=python)


def view_row(release_dir: str | os.PathLike, row_id: str, out: str | os.PathLike, *, python: str | None = None,
             max_steps: int | None = None, **limits) -> Path:
    """Write the page of row ``row_id`` of a release folder to ``out``; return its path. The row's call is traced
    again by a one-worker trusted runner running ``python`` (``docs/view.md``, "Rows of a release").

    Raises:
        ViewError: no such row, a codegen row, a row that cannot be traced, an unwritable ``out``.
    """
    row = find_row(release_dir, row_id)
    with _runner(python, max_steps, RETRACE_TIMEOUT) as runner:
        page = _row_page(row, runner, limits)
    return _write(Path(out), page)


def view_call(source: str, call: str, out: str | os.PathLike, *, trusted_call: bool = False, seed: int = 0,
              n_path: int = 2, n_state: int = 2, python: str | None = None, max_steps: int | None = None,
              timeout: float | None = None, title: str | None = None, description: str = "", **limits) -> Path:
    """Trace ``call`` against ``source`` in a one-worker trusted runner and write its page to ``out`` (with
    ``description``, what the program returns, above the code).

    The page shows the questions :func:`execverify_data.questions.build` selects with
    ``seed``, ``n_path`` and ``n_state`` (none when the call did not finish).

    Raises:
        ProgramError: the program does not compile, the call is not a literal call...
        ViewError: ``out`` cannot be written.
    """
    from execverify_data.errors import ProgramError
    from execverify_data.questions import build
    from execverify_data.trace import DEFAULT_TIMEOUT

    with _runner(python, max_steps, timeout or DEFAULT_TIMEOUT) as runner:
        trace = runner.trace(source, call, trusted_call=trusted_call)
    try:
        verification = build(source, call, seed=seed, n_path=n_path, n_state=n_state, trace=trace).verification
    except ProgramError:  # the call did not finish, or nothing can be asked: a page without questions
        verification = None
    page = render_page(source, trace, call=call.strip(), questions=verification, title=title, description=description,
                       **limits)
    return _write(Path(out), page)


def render_examples(release_dir: str | os.PathLike, n: int = 5, *, folder: str = "examples",
                    python: str | None = None) -> list[Path]:
    """Render ``n`` example pages of a release's ``trace`` rows into ``<release_dir>/<folder>/<row id>.html``
    and return their paths: one row per level first (lowest level first, its first id), then the next ids."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    check_int("n", n)
    release = Path(release_dir)
    files = _release_files(release, "trace")
    if not files:
        raise ViewError(f"{release} has no trace/<split>-*.parquet files; build the release first")
    table = pa.concat_tables([pq.read_table(f, columns=["id", "level"]) for f in files])
    ordered = sorted(zip(table.column("id").to_pylist(), table.column("level").to_pylist()))
    chosen, seen_levels = [], set()
    for row_id, level in sorted(ordered, key=lambda pair: (pair[1], pair[0])):
        if level not in seen_levels and len(chosen) < n:
            seen_levels.add(level)
            chosen.append(row_id)
    chosen += [row_id for row_id, _ in ordered if row_id not in chosen][: n - len(chosen)]
    target = release / folder
    target.mkdir(parents=True, exist_ok=True)
    written = []
    with _runner(python, None, RETRACE_TIMEOUT) as runner:
        for row_id in chosen:
            page = _row_page(find_row(release, row_id), runner, {})
            written.append(_write(target / f"{row_id}.html", page))
    return written
