"""Step-by-step execution narratives written from the trace itself, correct by construction.

ExecVerify asks a teacher model (QwQ-32B) for SFT reasoning chains and keeps the
ones that end in the right answer, which still lets wrong intermediate steps
through. :func:`narrate` writes the chain from the interpreter's own record
instead: every line it says runs did run, in that order; every value it states is
the after-state the tracer recorded; every branch it says is taken was taken.
What it tells and what it summarises: ``docs/questions.md``, "Reasoning chains".

>>> from execverify_data.trace import trace_call
>>> from execverify_data.questions import select_questions
>>> src = "def f(x):\\n    y = x + 1\\n    if y > 3:\\n        y = 0\\n    return y\\n"
>>> t = trace_call(src, "f(5)")
>>> print(narrate(src, t, [], call="f(5)"))
We execute `f(5)` line by line.
Line 2 (1st time): `y = x + 1`. Now x = 5, y = 6.
Line 3 (1st time): `if y > 3:`. The condition is true.
Line 4 (1st time): `y = 0`. Now y = 0.
Line 5 (1st time): `return y`.
The call returns 0.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from execverify_data.decisions import MAX_ITEMS
from execverify_data.errors import InvalidArgument, ProgramError, check_int
from execverify_data.questions.kinds import Kind, Question
from execverify_data.questions.select import event_index
from execverify_data.questions.templates import ordinal, render
from execverify_data.trace import Status, Trace

__all__ = ["CHAIN_STYLES", "narrate", "rationale_completion"]

#: Chain styles: ``trace`` (lines and the states they leave), ``explained`` (also what decided each test and
#: what each loop walks, from :mod:`execverify_data.decisions`; skipped stretches say what they skip and the
#: state after them), ``compact`` (the explained chain in short clauses, for short contexts).
CHAIN_STYLES = ("trace", "explained", "compact")
#: What ``explained`` adds to a test's truth value.
_OUTCOME = {"if": ("", ""), "while": (", and the loop body runs", ", and the loop ends")}

#: What an ``if``/``while``/``for`` header says when its body runs next, and when it does not.
_BRANCH_SENTENCES = {
    "if": (" The condition is true.", " The condition is false."),
    "while": (" The condition is true, so the loop body runs.", " The condition is false, so the loop ends."),
    "for": (" Another iteration starts.", " There are no more items, so the loop ends."),
}


@dataclass(frozen=True)
class _Block:
    kind: str  # "if", "while", "for"
    header: int
    body: range  # lines of the body
    end: int  # last line of the whole statement


@lru_cache(maxsize=16)
def _blocks(source: str) -> Mapping[int, _Block]:
    """The ``if``/``while``/``for`` statements of ``source`` by header line (read-only: a program's
    rows narrate several traces of one text, so the text is parsed once)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        raise ProgramError(f"the program does not parse: {exc}") from None
    blocks: dict[int, _Block] = {}
    for node in ast.walk(tree):
        kind = {ast.If: "if", ast.While: "while", ast.For: "for"}.get(type(node))
        if kind is None or not node.body:
            continue
        body = range(node.body[0].lineno, node.body[-1].end_lineno + 1)
        blocks.setdefault(node.lineno, _Block(kind, node.lineno, body, node.end_lineno))
    return MappingProxyType(blocks)


def _value(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[: limit - 10]}... ({len(text)} characters)"


def _changes(before: Mapping[str, Any] | None, after: Mapping[str, Any], limit: int) -> str:
    parts = []
    for name, value in after.items():
        if before is None or name not in before or before[name].text != value.text or before[name].type != value.type:
            parts.append(f"{name} = {_value(value.text, limit)}")
    return ", ".join(parts)


def _loop_runs(trace: Trace, blocks: Mapping[int, _Block]) -> list[list[int]]:
    """Indices of the header events of each run of each loop, per frame."""
    loops = {line: b for line, b in blocks.items() if b.kind in ("for", "while")}
    active: dict[tuple[int, int], list[int]] = {}
    runs: list[list[int]] = []
    for i, event in enumerate(trace.events):
        for key in [key for key in active if key[0] == event.frame]:
            block = loops[key[1]]
            if not block.header <= event.line <= block.end:
                runs.append(active.pop(key))
        if event.line in loops:
            active.setdefault((event.frame, event.line), []).append(i)
    runs.extend(active.values())
    return runs


def _comprehension_runs(trace: Trace) -> list[list[int]]:
    """Event indices of each comprehension or generator-expression frame (its "iterations")."""
    frames: dict[int, list[int]] = {}
    for i, event in enumerate(trace.events):
        if event.function.startswith("<") and event.function != "<lambda>":
            frames.setdefault(event.frame, []).append(i)
    return list(frames.values())


def _hidden(trace: Trace, blocks: Mapping[int, _Block], max_iterations: int) -> list[bool]:
    hidden = [False] * len(trace.events)
    for run in _comprehension_runs(trace):
        if len(run) - 1 > max_iterations + 1:
            for i in run[max_iterations + 1 : -1]:
                hidden[i] = True
    for run in _loop_runs(trace, blocks):
        if len(run) - 2 > max_iterations:  # iterations max_iterations+1 .. m-2 are summarised
            for i in range(run[max_iterations], run[-2]):
                hidden[i] = True
    return hidden


def _shown(trace: Trace, blocks: Mapping[int, _Block], questions: Sequence[Question], max_iterations: int,
           max_events: int) -> list[int]:
    """The indices of the events a chain tells: long loops' middle iterations hidden, the events questions are
    about always told, and at most ``max_events`` (the first and the last half of them)."""
    hidden = _hidden(trace, blocks, max_iterations)
    forced = _forced(trace, questions)
    shown = [i for i in range(len(trace.events)) if not hidden[i] or i in forced]
    if len(shown) > max_events:
        head, tail = shown[: max_events // 2], shown[-(max_events - max_events // 2) :]
        keep = set(head) | set(tail) | (forced & set(shown))
        shown = [i for i in shown if i in keep]
    return shown


def _next_in_frame(trace: Trace, i: int) -> int | None:
    frame = trace.events[i].frame
    for j in range(i + 1, len(trace.events)):
        if trace.events[j].frame == frame:
            return trace.events[j].line
        if trace.events[j].depth < trace.events[i].depth:
            return None  # the frame ended
    return None


def _forced(trace: Trace, questions: Sequence[Question]) -> set[int]:
    index = event_index(trace)
    forced: set[int] = set()
    for q in questions:
        if q.kind in (Kind.PATH, Kind.STATE) and (q.line, q.k) in index:
            i = index[(q.line, q.k)]
            forced.update((i, i + 1) if q.kind is Kind.PATH else (i,))
    return forced


def _fact(q: Question, trace: Trace) -> str:
    if q.kind is Kind.IO:
        return f"`{q.call}` returns {q.expected.text}."  # type: ignore[union-attr]
    if q.kind is Kind.OI:
        return f"`{q.call}` returns {q.expected.text}, as required."  # type: ignore[union-attr]
    if q.kind is Kind.COVERAGE:
        return f"Line {q.line} {'is' if q.expected.text == 'True' else 'is never'} executed."  # type: ignore[union-attr]
    nth = ordinal(q.k)  # type: ignore[arg-type]
    times = "at all" if q.k == 1 else f"{q.k} times"
    if q.kind is Kind.PATH:
        if q.expected.text == "-1":  # type: ignore[union-attr]
            if trace.occurrences(q.line) >= q.k:  # type: ignore[operator]
                return f"The {nth} execution of line {q.line} is the last line executed, so the answer is -1."
            return f"Line {q.line} is not executed {times}, so the answer is -1."
        return f"After the {nth} execution of line {q.line}, line {q.expected.text} runs."  # type: ignore[union-attr]
    if q.expected is None:
        return f"Line {q.line} is not executed {times}."
    return f"Right after the {nth} execution of line {q.line}, `{q.var}` is {q.expected.text} (type {q.expected.type})."


def narrate(source: str, trace: Trace, questions: Sequence[Question] = (), *, max_iterations: int = 3,
            max_events: int = 150, max_value_chars: int = 120, call: str | None = None, style: str = "trace",
            notes: Mapping[int, Sequence[Any]] | None = None) -> str:
    """A step-by-step narrative of ``trace`` (see the module docs), without the answer block.

    Args:
        source (`str`): the traced program.
        trace (`Trace`): its trace (``ok`` or ``exception``).
        questions (`Sequence[Question]`, optional): questions whose facts are restated at
            the end; their lines are always narrated.
        max_iterations (`int`, optional, defaults to 3): loop iterations told in full
            before the rest (but the last) are summarised.
        max_events (`int`, optional, defaults to 150): most lines narrated in all.
        max_value_chars (`int`, optional, defaults to 120): values longer than this are shortened
            (marked with their length); answers in the answer block never are.
        call (`str`, optional): the call, for the first sentence (else taken from the questions).
        style (`str`, optional, defaults to ``"trace"``): one of :data:`CHAIN_STYLES`.
        notes (`Mapping`, optional): what decided each event, by event index
            (:func:`execverify_data.decisions.trace_with_decisions`); ``explained`` and ``compact`` state them.

    Raises:
        ProgramError: the trace did not finish or the program does not parse.
        InvalidArgument: a limit is not a positive int.
    """
    for name, value in (("max_iterations", max_iterations), ("max_events", max_events), ("max_value_chars", max_value_chars)):
        check_int(name, value)
    if style not in CHAIN_STYLES:
        raise InvalidArgument(f"style must be one of {', '.join(CHAIN_STYLES)}, got {style!r}")
    if trace.status not in (Status.OK, Status.EXCEPTION):
        raise ProgramError(f"the trace did not finish (status {trace.status.value}); there is nothing to narrate")
    if style != "trace":
        return _Explainer(source, trace, questions, notes or {}, style, max_iterations, max_events, max_value_chars,
                          call).text()
    blocks = _blocks(source)
    lines = source.split("\n")
    events = trace.events
    shown = _shown(trace, blocks, questions, max_iterations, max_events)

    if call is None:
        call = next((q.call for q in questions if q.kind is Kind.IO), None)
    out = [f"We execute `{call}` line by line." if call else "We execute the call line by line."]
    told: dict[int, Mapping[str, Any]] = {}  # frame -> locals as last narrated
    waiting: dict[int, int] = {}  # frame -> index of a line that called into a deeper frame
    previous: int | None = None

    def finish(frame: int) -> None:
        j = waiting.pop(frame)
        change = _changes(told.get(frame), events[j].locals, max_value_chars)
        out.append(f"Back in `{events[j].function}`, line {events[j].line} finishes." + (f" Now {change}." if change else ""))
        told[frame] = events[j].locals

    for i in shown:
        event = events[i]
        if previous is not None and i != previous + 1:
            skipped = i - previous - 1
            out.append(f"({skipped} line execution{'s are' if skipped != 1 else ' is'} not told here; "
                       "what they change shows in the next \"Now\".)")
        if previous is not None and events[previous].frame != event.frame:
            if event.depth > events[previous].depth and event.frame not in told:
                out.append(f"Now inside a call of `{event.function}`.")
        for frame in [frame for frame in waiting if frame != event.frame and events[waiting[frame]].depth >= event.depth]:
            finish(frame)
        if event.frame in waiting:
            finish(event.frame)
        code = lines[event.line - 1].strip() if 0 < event.line <= len(lines) else ""
        if previous == i - 1 and events[previous].line == event.line and events[previous].frame == event.frame:
            sentence = f"Line {event.line} ({ordinal(event.occurrence)} time) again."
        else:
            sentence = f"Line {event.line} ({ordinal(event.occurrence)} time): `{code}`."
        block = blocks.get(event.line)
        if block is not None and block.header == event.line:
            next_line = _next_in_frame(trace, i)
            if next_line is not None:
                sentence += _BRANCH_SENTENCES[block.kind][next_line not in block.body]
        if i + 1 < len(events) and events[i + 1].depth > event.depth:  # the line calls into a deeper frame
            waiting[event.frame] = i
        else:
            change = _changes(told.get(event.frame), event.locals, max_value_chars)
            if change:
                sentence += f" Now {change}."
            told[event.frame] = event.locals
        out.append(sentence)
        previous = i
    if previous is not None and previous != len(events) - 1:
        skipped = len(events) - 1 - previous
        out.append(f"({skipped} more line execution{'s follow' if skipped != 1 else ' follows'} before the call ends.)")
    if trace.status is Status.OK:
        out.append(f"The call returns {_value(trace.output.text, max_value_chars) if trace.output else 'a value'}.")
    else:
        exc = trace.exception
        out.append(f"The call raises {exc.type}: {exc.message}." if exc else "The call raises an exception.")
    facts = [f"{n}. {_fact(q, trace)}" for n, q in enumerate(questions, 1)]
    if facts:
        out += ["", "So, question by question:", *facts]
    return "\n".join(out)


def _and(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


class _Explainer:
    """The ``explained`` and ``compact`` chains (see :func:`narrate`): the ``trace`` chain's lines and states, plus
    the values that decided each test and the sequence each loop walks (from the notes), and skipped stretches
    that say what they skip, with the state after them, so that no change is told on a line that did not make it."""

    def __init__(self, source, trace, questions, notes, style, max_iterations, max_events, limit, call):
        self.source, self.trace, self.questions, self.notes, self.style = source, trace, questions, notes, style
        self.limit = limit
        self.blocks = _blocks(source)
        self.lines = source.split("\n")
        self.shown = _shown(trace, self.blocks, questions, max_iterations, max_events)
        self.call = call if call is not None else next((q.call for q in questions if q.kind is Kind.IO), None)

    # -- pieces of sentences
    def value(self, text: str) -> str:
        return _value(text, self.limit)

    def pairs(self, notes) -> list[str]:
        if self.style == "compact":
            return [f"`{n.text}`={self.value(n.value.text)}" for n in notes]
        return [f"`{n.text}` is {self.value(n.value.text)}" for n in notes]

    def returned(self, notes) -> str:
        done = [n for n in notes if n.kind == "returned"]
        if not done:
            return ""
        if self.style == "compact":
            return "".join(f"; `{n.text}` returned {self.value(n.value.text)}" for n in done)
        return " " + " ".join(f"The call of `{n.text}` returned {self.value(n.value.text)}." for n in done)

    def header(self, i: int, block: _Block) -> str:
        """What an ``if``/``while``/``for`` header event says: its outcome and what decided it."""
        trace, notes = self.trace, self.notes.get(i, ())
        next_line = _next_in_frame(trace, i)
        if next_line is None:
            return ""
        runs = next_line in block.body
        if block.kind == "for":
            sequence = [n for n in notes if n.kind == "sequence"]
            if self.style == "compact":
                if sequence:
                    n = sequence[0]
                    return f" loop over `{n.text}` = {self.value(n.value.text)} ({n.length} items)" + ("" if runs else ", none")
                return " next item" if runs else " loop ends"
            told = ""
            if sequence:
                n = sequence[0]
                more = f", the first {MAX_ITEMS} shown" if n.length > MAX_ITEMS else ""
                told = (f" The loop walks `{n.text}`, which gives {self.value(n.value.text)} ({n.length} item"
                        f"{'s' if n.length != 1 else ''}{more}).")
            return told + _BRANCH_SENTENCES["for"][not runs]
        operands = [n for n in notes if n.kind == "operand" and n.value is not None]
        if self.style == "compact":
            why = f" ({'; '.join(self.pairs(operands))})" if operands else ""
            return f" -> {'true' if runs else 'false'}{why}"
        if operands:
            return f" Here {_and(self.pairs(operands))}, so the condition is {'true' if runs else 'false'}" \
                   f"{_OUTCOME[block.kind][not runs]}."
        return _BRANCH_SENTENCES[block.kind][not runs]

    def reads(self, i: int) -> str:
        reads = [n for n in self.notes.get(i, ()) if n.kind == "read"]
        if not reads:
            return ""
        if self.style == "compact":
            return f" ({'; '.join(self.pairs(reads))})"
        return f" Here {_and(self.pairs(reads))}."

    def gap(self, previous: int, i: int) -> tuple[str, int]:
        """The sentence for the events strictly between ``previous`` and ``i``: how many, which lines, which loop
        iterations; and the index of the last skipped event in ``i``'s frame (-1: none)."""
        events = self.trace.events
        skipped = range(previous + 1, i)
        frame = events[i].frame
        lines = sorted({events[j].line for j in skipped})
        where = [f"line {lines[0]}"] if len(lines) == 1 else [f"lines {_and([str(x) for x in lines])}"]
        loops = [b for b in self.blocks.values() if b.kind in ("for", "while") and b.header in lines
                 and any(events[j].frame == frame and events[j].line == b.header for j in skipped)]
        iterations = ""
        if loops:
            loop = min(loops, key=lambda b: b.end - b.header)  # the innermost
            start = previous
            while start >= 0 and not (events[start].frame == frame and not loop.header <= events[start].line <= loop.end):
                start -= 1
            before = sum(1 for j in range(start + 1, previous + 1)
                         if events[j].frame == frame and events[j].line == loop.header)
            count = sum(1 for j in skipped if events[j].frame == frame and events[j].line == loop.header)
            first, last = before + 1, before + count
            span = f"iteration {first}" if first == last else f"iterations {first} to {last}"
            iterations = f": {span} of the loop at line {loop.header}"
        last = max((j for j in skipped if events[j].frame == frame), default=-1)
        n = len(skipped)
        if self.style == "compact":
            return f"(skipped {n} line run{'s' if n != 1 else ''} of {where[0]}{iterations})", last
        return (f"({n} line execution{'s' if n != 1 else ''} of {where[0]} not told one by one{iterations}.)", last)

    def text(self) -> str:
        events, compact = self.trace.events, self.style == "compact"
        out = [f"We execute `{self.call}` line by line." if self.call else "We execute the call line by line."]
        told: dict[int, Mapping[str, Any]] = {}
        waiting: dict[int, int] = {}
        previous: int | None = None
        now = "" if compact else "Now "

        def finish(frame: int) -> None:
            j = waiting.pop(frame)
            change = _changes(told.get(frame), events[j].locals, self.limit)
            back = f"back in {events[j].function} (line {events[j].line})" if compact else \
                f"Back in `{events[j].function}`, line {events[j].line} finishes."
            tail = (f"; {change}" if compact else f" {now}{change}.") if change else ""
            out.append(back + self.returned(self.notes.get(j, ())) + tail)
            told[frame] = events[j].locals

        for i in self.shown:
            event = events[i]
            if previous is not None and i != previous + 1:
                sentence, last = self.gap(previous, i)
                if last >= 0 and event.frame not in waiting:
                    change = _changes(told.get(event.frame), events[last].locals, self.limit)
                    if change:
                        sentence += f"; then {change}" if compact else f" After them, {change}."
                    told[event.frame] = events[last].locals
                out.append(sentence)
            if previous is not None and events[previous].frame != event.frame:
                if event.depth > events[previous].depth and event.frame not in told:
                    out.append(f"in {event.function}:" if compact else f"Now inside a call of `{event.function}`.")
            for frame in [f for f in waiting if f != event.frame and events[waiting[f]].depth >= event.depth]:
                finish(frame)
            if event.frame in waiting:
                finish(event.frame)
            code = self.lines[event.line - 1].strip() if 0 < event.line <= len(self.lines) else ""
            if compact:
                sentence = f"L{event.line}: {code}"
            elif previous == i - 1 and events[previous].line == event.line and events[previous].frame == event.frame:
                sentence = f"Line {event.line} ({ordinal(event.occurrence)} time) again."
            else:
                sentence = f"Line {event.line} ({ordinal(event.occurrence)} time): `{code}`."
            block = self.blocks.get(event.line)
            if block is not None and block.header == event.line:
                sentence += self.header(i, block)
            else:
                sentence += self.reads(i)
            if i + 1 < len(events) and events[i + 1].depth > event.depth:
                waiting[event.frame] = i
            else:
                change = _changes(told.get(event.frame), event.locals, self.limit)
                if change:
                    sentence += f" {now}{change}." if not compact else f"; {change}"
                told[event.frame] = event.locals
                sentence += self.returned(self.notes.get(i, ()))
            out.append(sentence)
            previous = i
        if previous is not None and previous != len(events) - 1:
            skipped = len(events) - 1 - previous
            out.append(f"({skipped} more line execution{'s follow' if skipped != 1 else ' follows'} before the call ends.)")
        trace = self.trace
        if trace.status is Status.OK:
            out.append(f"The call returns {self.value(trace.output.text) if trace.output else 'a value'}.")
        else:
            exc = trace.exception
            out.append(f"The call raises {exc.type}: {exc.message}." if exc else "The call raises an exception.")
        facts = [f"{n}. {_fact(q, trace)}" for n, q in enumerate(self.questions, 1)]
        if facts:
            out += ["", "So, question by question:", *facts]
        return "\n".join(out)


def rationale_completion(source: str, trace: Trace, questions: Sequence[Question], *, style: str = "execverify",
                         call: str | None = None, **limits: Any) -> str:
    """A whole completion: :func:`narrate`'s chain (``limits`` are its ``max_*`` options), then the answer block."""
    text = narrate(source, trace, questions, call=call, **limits)
    return render(source, list(questions), style=style, call=call, rationale=text).reference_completion
