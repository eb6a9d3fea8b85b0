"""An independent checker of ``explained`` reasoning chains (issue 32): every claim a chain makes, read back from
its text, against the recorded trace and against Python run again, not against the notes that wrote it.

* line order: the told lines, with their occurrence numbers, are trace events in order, and each
  "(N line executions of lines ... not told one by one[: iterations a to b of the loop at line L].)" counts and
  names exactly the events between the two told lines (and the loop iterations among them);
* states: every ``name = value`` after "Now" is that local's after-state at the told event; after "After them,"
  at the last skipped event of the frame; so no state is told on a line that did not make it;
* truth values: "the condition is true/false" is whether the next line of the frame is in the test's body;
* operands, reads: each "`expr` is value" is ``expr`` evaluated again (Python's ``eval`` on the values parsed back
  from the frame's previous after-state), compared as canonical text;
* sequences: "The loop walks `expr`, which gives [...] (N items)" is the values the loop target takes at the loop's
  iterations (from the trace), and N is their number;
* returns: "The call of `g` returned v" is ``g`` called again, in a fresh trace, on the arguments its frame began
  with.

A claim whose inputs cannot be parsed back (an iterator's ``<list_iterator object>``) is counted as unchecked.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, field

from execverify_data.trace import trace_call
from execverify_data.values import encode, parse

_LINE = re.compile(r"^Line (\d+) \((\d+)(?:st|nd|rd|th) time\)(?:: `.*?`\.| again\.)(.*)$")
_GAP = re.compile(r"^\((\d+) line executions? of lines? ([\d, and]+) not told one by one(?:: iterations? (\d+)(?: to (\d+))?"
                  r" of the loop at line (\d+))?\.\)(?: After them, (.*)\.)?$")
_BACK = re.compile(r"^Back in `(\w+)`, line (\d+) finishes\.(.*)$")
_PAIR = re.compile(r"`([^`]+)` is ")


@dataclass
class Report:
    checked: Counter = field(default_factory=Counter)
    unchecked: Counter = field(default_factory=Counter)
    mismatches: list = field(default_factory=list)
    headers: int = 0
    explained: int = 0
    unexplained: list = field(default_factory=list)

    def bad(self, kind: str, detail: str) -> None:
        self.mismatches.append((kind, detail))


def _same(claimed: str, actual: str) -> bool:
    """A claimed value equals the actual canonical text, or is its abridged form (``<start>... (N characters)``)."""
    if claimed == actual:
        return True
    m = re.fullmatch(r"(.*)\.\.\. \((\d+) characters\)", claimed, flags=re.S)
    return bool(m) and int(m.group(2)) == len(actual) and actual.startswith(m.group(1))


def _assignments(text: str) -> list[tuple[str, str]]:
    """``a = 1, b = [1, 2]`` -> pairs, splitting only where the next part starts a new ``name = ``."""
    parts = re.split(r", (?=[A-Za-z_]\w* = )", text)
    return [tuple(p.split(" = ", 1)) for p in parts if " = " in p]


def _pairs(text: str) -> list[tuple[str, str]]:
    """``Here `a` is 1 and `len(b)` is 2`` (the part after "Here") -> [(expr, value)]."""
    found = list(_PAIR.finditer(text))
    out = []
    for k, m in enumerate(found):
        end = found[k + 1].start() if k + 1 < len(found) else len(text)
        value = text[m.end():end]
        value = re.sub(r"(, | and )$", "", value) if k + 1 < len(found) else value
        out.append((m.group(1), value))
    return out


class _Program:
    def __init__(self, source: str):
        self.source = source
        tree = ast.parse(source)
        self.blocks = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.If, ast.While, ast.For)) and node.body:
                self.blocks.setdefault(node.lineno, (type(node).__name__, range(node.body[0].lineno, node.body[-1].end_lineno + 1),
                                                     node))
        self.params = {n.name: [a.arg for a in n.args.args] for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        self.constants = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                try:
                    self.constants[node.targets[0].id] = ast.literal_eval(node.value)
                except ValueError:
                    pass
        self.names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.functions: dict = {}
        exec(compile(tree, "<checked program>", "exec"), self.functions)  # the test's own synthesized program


def _values(state) -> dict | None:
    out = {}
    for name, value in state.items():
        try:
            out[name] = parse(value.text)
        except Exception:  # noqa: BLE001 - a value with no literal
            return None
    return out


def _before(trace, i: int, program: _Program) -> dict | None:
    """The frame's locals before event ``i``: the after-state of its previous event, else its parameters."""
    frame = trace.events[i].frame
    for j in range(i - 1, -1, -1):
        if trace.events[j].frame == frame:
            return _values(trace.events[j].locals)
    params = program.params.get(trace.events[i].function, [])
    return _values({k: v for k, v in trace.events[i].locals.items() if k in params})


def _next_in_frame(trace, i: int):
    e = trace.events[i]
    for j in range(i + 1, len(trace.events)):
        if trace.events[j].frame == e.frame:
            return trace.events[j].line
        if trace.events[j].depth < e.depth:
            return None
    return None


def check_chain(source: str, trace, chain: str, report: Report) -> None:
    """Check every claim of one ``explained`` chain (see the module docs), adding to ``report``."""
    program = _Program(source)
    events = trace.events
    position = {(e.line, e.occurrence): i for i, e in enumerate(events)}
    told = []  # event indices told, in order
    lines = chain.split("\n\nSo, question by question:")[0].split("\n")[1:]
    pending_gap = None
    for text in lines:
        m = _LINE.match(text)
        if m:
            line, k, rest = int(m.group(1)), int(m.group(2)), m.group(3)
            i = position.get((line, k))
            if i is None or (told and i <= told[-1]):
                report.bad("order", f"line {line} ({k}) {text[:80]}")
                return
            gap = range(told[-1] + 1, i) if told else range(0)
            if pending_gap is not None:
                n, gap_lines, first, last, loop, after = pending_gap
                skipped = list(gap)
                report.checked["gap"] += 1
                if n != len(skipped) or gap_lines != sorted({events[j].line for j in skipped}):
                    report.bad("gap", f"{text[:60]}: told {n} of {gap_lines}, trace {len(skipped)}")
                if loop is not None:
                    frame = events[i].frame
                    count = sum(1 for j in skipped if events[j].frame == frame and events[j].line == loop)
                    if count != last - first + 1:
                        report.bad("gap", f"iterations {first}-{last} at {loop}, trace {count}")
                if after:
                    frame = events[i].frame
                    last_j = max((j for j in skipped if events[j].frame == frame), default=None)
                    for name, value in _assignments(after):
                        report.checked["state"] += 1
                        if last_j is None or name not in events[last_j].locals or not _same(value, events[last_j].locals[name].text):
                            report.bad("state_after_gap", f"{name} = {value[:40]}")
                pending_gap = None
            elif told and len(gap) and not any(events[j].depth > events[told[-1]].depth for j in gap):
                report.bad("untold_gap", f"{len(gap)} events skipped silently before {text[:40]}")
            told.append(i)
            _check_line(program, trace, i, rest, report)
            continue
        m = _GAP.match(text)
        if m:
            gap_lines = [int(x) for x in re.findall(r"\d+", m.group(2))]
            first = int(m.group(3)) if m.group(3) else None
            last = int(m.group(4) or m.group(3)) if m.group(3) else None
            pending_gap = (int(m.group(1)), gap_lines, first, last, int(m.group(5)) if m.group(5) else None, m.group(6))
            continue
        m = _BACK.match(text)
        if m:
            callers = [t for t in told if events[t].function == m.group(1) and events[t].line == int(m.group(2))]
            if not callers:
                report.bad("back", text[:80])
                continue
            _check_returns(program, trace, callers[-1], m.group(3), report)
            now = re.search(r" Now (.*)\.$", m.group(3))
            for name, value in _assignments(now.group(1)) if now else ():
                report.checked["state"] += 1
                actual = events[callers[-1]].locals.get(name)
                if actual is None or not _same(value, actual.text):
                    report.bad("state", f"back at line {m.group(2)}: {name} = {value[:40]}")


def _check_line(program: _Program, trace, i: int, rest: str, report: Report) -> None:
    event = trace.events[i]
    now = re.search(r" Now (.*)\.(?: The call of .*)?$", rest)
    if now:
        for name, value in _assignments(now.group(1)):
            report.checked["state"] += 1
            actual = event.locals.get(name)
            if actual is None or not _same(value, actual.text):
                report.bad("state", f"line {event.line}: {name} = {value[:40]} vs {actual and actual.text[:40]}")
    block = program.blocks.get(event.line)
    nxt = _next_in_frame(trace, i)
    if block is not None and nxt is not None:
        kind, body, node = block
        is_start = kind == "For" and not any(
            trace.events[j].frame == event.frame and node.lineno <= trace.events[j].line <= node.end_lineno
            for j in [max((j for j in range(i) if trace.events[j].frame == event.frame), default=-1)] if j >= 0)
        if kind in ("If", "While") or is_start:
            report.headers += 1
            trivial = kind != "For" and not [n for n in ast.walk(node.test) if not isinstance(n, (ast.Constant, ast.expr_context))
                                             and not isinstance(n, (ast.cmpop, ast.boolop, ast.unaryop))]
            if "Here `" in rest or "The loop walks `" in rest or trivial:
                report.explained += 1
            else:
                report.unexplained.append(program.source.split("\n")[event.line - 1].strip())
        if kind in ("If", "While"):
            truth = re.search(r"the condition is (true|false)", rest, flags=re.I)
            if truth:
                report.checked["truth"] += 1
                if (truth.group(1) == "true") != (nxt in body):
                    report.bad("truth", f"line {event.line}: {truth.group(1)}")
        walks = re.search(r"The loop walks `(.+?)`, which gives (.*) \((\d+) items?(?:, the first (\d+) shown)?\)\.", rest)
        if walks and kind == "For":
            _check_sequence(program, trace, i, node, walks, report)
    here = re.search(r" Here (.*?)(?:, so the condition is (?:true|false)(?:, and the loop (?:body runs|ends))?)?\.(?: Now |$)", rest)
    if here:
        before = _before(trace, i, program)
        for expr, value in _pairs(here.group(1)):
            if before is None:
                report.unchecked["operand"] += 1
                continue
            space = {**program.functions, **program.constants, **before}
            try:
                actual = encode(eval(expr, {"__builtins__": __builtins__}, space)).text  # the test's trusted program
            except Exception as exc:  # noqa: BLE001
                report.unchecked["operand"] += 1
                report.bad("operand_eval", f"line {event.line}: `{expr}`: {type(exc).__name__}: {exc}"[:120])
                continue
            report.checked["operand"] += 1
            if not _same(value, actual):
                report.bad("operand", f"line {event.line}: `{expr}` told {value[:40]}, Python {actual[:40]}")
    _check_returns(program, trace, i, rest, report)


def _check_sequence(program, trace, i, node, walks, report) -> None:
    events = trace.events
    frame = events[i].frame
    targets = [n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)]
    taken, exhausted = [], False
    for j in range(i, len(events)):
        e = events[j]
        if e.frame != frame:
            continue
        if not node.lineno <= e.line <= node.end_lineno:
            break
        if e.line == node.lineno:
            nxt = _next_in_frame(trace, j)
            if nxt is None or not (node.body[0].lineno <= nxt <= node.body[-1].end_lineno):
                exhausted = nxt is not None
                break
            values = tuple(e.locals[t].text if t in e.locals else None for t in targets)
            taken.append(values)
    report.checked["sequence"] += 1
    n = int(walks.group(3))
    if n != len(taken) and (exhausted or len(taken) > n):  # fewer only when the loop was left early (break, return)
        report.bad("sequence_length", f"line {node.lineno}: told {n} items, the loop ran {len(taken)} times")
        return
    try:
        items = parse(walks.group(2))
    except Exception:  # noqa: BLE001 - abridged: check the count only
        report.unchecked["sequence_items"] += 1
        return
    for item, values in zip(items, taken):
        expected = item if len(targets) > 1 else (item,)
        got = tuple(encode(x).text for x in (expected if isinstance(expected, tuple) else (expected,)))
        if len(targets) > 1 and isinstance(node.target, ast.Tuple) and len(node.target.elts) == len(targets):
            if got != values:
                report.bad("sequence_item", f"line {node.lineno}: {got} vs {values}")
                return
        elif len(targets) == 1 and got != values:
            report.bad("sequence_item", f"line {node.lineno}: {got} vs {values}")
            return


def _check_returns(program, trace, i, rest, report) -> None:
    for name, value in re.findall(r"The call of `(\w+)` returned (.*?)\.(?= The call of | Now |$)", rest):
        events = trace.events
        caller = events[i]
        # the first event of each frame entered from the caller's line i (deeper, right after it)
        starts = []
        for j in range(i + 1, len(events)):
            if events[j].depth <= caller.depth and events[j].frame == caller.frame:
                break
            if events[j].function == name and events[j].depth == caller.depth + 1 and events[j - 1].frame != events[j].frame \
                    and (j - 1 == i or events[j - 1].depth <= events[j].depth):
                starts.append(j)
        args = None
        for j in starts:
            params = program.params.get(name, [])
            state = events[j].locals
            if all(p in state for p in params):
                args = [state[p].text for p in params]
                break
        if args is None or program.params.get(name) is None:
            report.unchecked["returned"] += 1
            continue
        again = trace_call(program.source, f"{name}({', '.join(args)})")
        report.checked["returned"] += 1
        if again.output is None or not _same(value, again.output.text):
            report.bad("returned", f"{name}({', '.join(args)[:40]}): told {value[:40]}, Python {again.output and again.output.text[:40]}")


# ----------------------------------------------------------------------------- compact chains

_C_LINE = re.compile(r"^L(\d+): (.*)$")
_C_GAP = re.compile(r"^\(skipped (\d+) line runs? of (lines? [\d, and]+)((?:: iterations? \d+(?: to \d+)? of the loop at line \d+)?)\)"
                    r"(?:; then (.*))?$")
_C_BACK = re.compile(r"^back in (\w+) \(line (\d+)\)(.*)$")
_C_SPLIT = re.compile(r"; (?=`[^`]+` returned |[A-Za-z_]\w* = )")


def _ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def _c_pairs(text: str) -> str:
    """``(`a`=1; `b`=2)`` contents -> "`a` is 1 and `b` is 2"."""
    parts = re.split(r"; (?=`)", text)
    said = [re.sub(r"^(`[^`]+`)=", r"\1 is ", p) for p in parts]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def _c_tail(parts: list[str]) -> str:
    """The ``; x = 1, y = 2`` and ``; `g` returned v`` clauses of a compact line, in explained words."""
    out = ""
    for part in parts:
        m = re.match(r"`(\w+)` returned (.*)$", part)
        out += f" The call of `{m.group(1)}` returned {m.group(2)}." if m else f" Now {part}."
    return out


def compact_to_explained(source: str, trace, chain: str, report: Report) -> str:
    """A ``compact`` chain said in the ``explained`` chain's words, so that :func:`check_chain` checks every claim;
    each told line's execution number comes from the trace, after checking that the line is the one that ran
    there (an order mismatch is reported)."""
    lines = source.split("\n")
    events = trace.events
    out, p, skip = [], 0, 0
    head, _, facts = chain.partition("\n\nSo, question by question:")
    for text in head.split("\n"):
        m = _C_LINE.match(text)
        if m:
            n, rest = int(m.group(1)), m.group(2)
            code = lines[n - 1].strip()
            j = p + skip
            skip = 0
            if j >= len(events) or events[j].line != n or not rest.startswith(code):
                report.bad("compact_order", f"L{n} told where the trace ran {events[j].line if j < len(events) else 'nothing'}")
                return ""
            p = j + 1
            rest = rest[len(code):]
            pieces = _C_SPLIT.split(rest)
            say, tail = pieces[0], pieces[1:]
            words = ""
            t = re.match(r"^ -> (true|false)(?: \((.*)\))?$", say)
            loop = re.match(r"^ loop over (`.+`) = (.*) \((\d+) items\)(, none)?$", say)
            if t:
                words = (f" Here {_c_pairs(t.group(2))}, so the condition is {t.group(1)}." if t.group(2)
                         else f" The condition is {t.group(1)}.")
            elif loop:
                words = (f" The loop walks {loop.group(1)}, which gives {loop.group(2)} ({loop.group(3)} items)."
                         + (" There are no more items, so the loop ends." if loop.group(4) else " Another iteration starts."))
            elif say == " next item":
                words = " Another iteration starts."
            elif say == " loop ends":
                words = " There are no more items, so the loop ends."
            elif re.match(r"^ \((`.*)\)$", say):
                words = f" Here {_c_pairs(say[2:-1])}."
            elif say:
                report.bad("compact_parse", text[:80])
            out.append(f"Line {n} ({_ordinal(events[j].occurrence)} time): `{code}`.{words}{_c_tail(tail)}")
            continue
        m = _C_GAP.match(text)
        if m:
            skip = int(m.group(1))
            out.append(f"({m.group(1)} line execution{'s' if skip != 1 else ''} of {m.group(2)} not told one by one"
                       f"{m.group(3)}.)" + (f" After them, {m.group(4)}." if m.group(4) else ""))
            continue
        m = _C_BACK.match(text)
        if m:
            tail = _C_SPLIT.split(m.group(3))[1:] if m.group(3) else []
            out.append(f"Back in `{m.group(1)}`, line {m.group(2)} finishes.{_c_tail(tail)}")
            continue
        m = re.match(r"^in (\w+):$", text)
        out.append(f"Now inside a call of `{m.group(1)}`." if m else text)
    return "\n".join(out) + (f"\n\nSo, question by question:{facts}" if facts else "")
