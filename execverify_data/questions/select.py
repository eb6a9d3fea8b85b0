"""Choosing questions from a program's AST and its trace.

:func:`select_questions` turns one :class:`~execverify_data.trace.Trace` into the ``io``
(or ``oi``) question, then ``path``, ``state`` and ``coverage`` questions drawn with
``random.Random(seed)`` round groups of lines (loop, branch, helper, comprehension,
unexecuted, plain; ``docs/questions.md``, "Selection"). Answers come from the trace only.

>>> from execverify_data.trace import trace_call
>>> src = "def f(n):\\n    s = 0\\n    for i in range(n):\\n        s += i\\n    if s < 0:\\n        s = -s\\n    return s\\n"
>>> qs = select_questions(src, trace_call(src, "f(3)"), "f(3)", seed=0, n_path=2, n_state=2)
>>> [q.kind.value for q in qs]
['io', 'path', 'path', 'state', 'state']
>>> qs[0].reference_answer
'3'
"""

from __future__ import annotations

from functools import lru_cache

import ast
import random
from dataclasses import dataclass, field

from execverify_data.errors import AnswerError, InvalidArgument, ProgramError, check_int
from execverify_data.questions.kinds import Kind, Question
from execverify_data.trace import Status, Trace
from execverify_data.values import encode, parse_call

__all__ = ["ProgramLines", "analyze_program", "event_index", "select_questions", "DEFAULT_MAX_STATE_CHARS"]

#: Longest value text a ``state`` question is asked about (longer values are skipped).
DEFAULT_MAX_STATE_CHARS = 200

# Statements that always compile to code with a line event of their own.
_EXECUTABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.If, ast.For, ast.While, ast.Raise, ast.Assert,
               ast.Delete, ast.Import, ast.ImportFrom, ast.Break, ast.Continue)

_TAG_ORDER = ("helper", "comprehension", "branch", "loop", "unexecuted", "plain")


@dataclass
class ProgramLines:
    """What the AST says about the lines of a program (only code inside functions).

    Attributes:
        statements (`set[int]`): first lines of statements inside function bodies that
            always produce a line event when they run.
        loop (`set[int]`): lines of loop headers and of statements in loop bodies.
        branch (`set[int]`): lines of ``if``/``while`` tests and of the first statement
            of each branch.
        assigned (`dict[int, list[str]]`): the names a statement starting on that line binds.
    """

    statements: set[int] = field(default_factory=set)
    loop: set[int] = field(default_factory=set)
    branch: set[int] = field(default_factory=set)
    assigned: dict[int, list[str]] = field(default_factory=dict)


def _always_has_event(node: ast.stmt) -> bool:
    """Whether the statement compiles to code with a line event of its own whenever control reaches it."""
    if isinstance(node, ast.AnnAssign) and node.value is None:
        return False  # "x: int" in a function compiles to nothing
    if isinstance(node, (ast.If, ast.While)) and isinstance(node.test, ast.Constant):
        return False  # constant tests are folded away by the compiler
    if isinstance(node, ast.Expr):
        return not isinstance(node.value, ast.Constant)
    return isinstance(node, _EXECUTABLE)


def _stored_names(node: ast.AST) -> list[str]:
    names: list[str] = []
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
        targets = [node.target]
    elif isinstance(node, (ast.Expr, ast.Return, ast.If, ast.While)):
        targets = [n.target for n in ast.walk(node) if isinstance(n, ast.NamedExpr)]
    for target in targets:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name) and sub.id not in names:
                names.append(sub.id)
    return names


@lru_cache(maxsize=64)
def analyze_program(source: str) -> ProgramLines:
    """Classify the lines of ``source`` (see :class:`ProgramLines`); the last few results are kept (one
    program's questions are built for several inputs and styles). Treat the result as read-only.

    Raises:
        ProgramError: the program does not parse.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        raise ProgramError(f"the program does not parse: {exc}") from None
    info = ProgramLines()

    def visit_body(body: list[ast.stmt], in_function: bool, in_loop: bool) -> None:
        for node in body:
            visit(node, in_function, in_loop)

    def visit(node: ast.stmt, in_function: bool, in_loop: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]  # a docstring runs no code
            visit_body(body, isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or in_function, False)
            return
        if in_function:
            names = _stored_names(node)
            if names:
                info.assigned.setdefault(node.lineno, names)
            if _always_has_event(node):
                info.statements.add(node.lineno)
            if in_loop:
                info.loop.add(node.lineno)
        if in_function and isinstance(node, (ast.If, ast.While)):
            info.branch.add(node.lineno)
        if in_function and isinstance(node, ast.If):
            info.branch.update(branch[0].lineno for branch in (node.body, node.orelse) if branch)
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            if in_function:
                info.loop.add(node.lineno)
            visit_body(node.body, in_function, True)
            visit_body(node.orelse, in_function, in_loop)
            return
        for name in ("body", "orelse", "finalbody"):
            visit_body(getattr(node, name, []) or [], in_function, in_loop)
        for handler in getattr(node, "handlers", []) or []:
            visit_body(handler.body, in_function, in_loop)
        for case in getattr(node, "cases", []) or []:
            visit_body(case.body, in_function, in_loop)

    visit_body(tree.body, False, False)
    return info


def event_index(trace: Trace) -> dict[tuple[int, int], int]:
    """The position in ``trace.events`` of each ``(line, k)``: line N's k-th execution."""
    return {(event.line, event.occurrence): i for i, event in enumerate(trace.events)}


def _entry_name(call: str) -> str:
    head = call.strip().split("(", 1)[0].strip()
    if not head.isidentifier():
        raise InvalidArgument(f"the call {call[:60]!r} must call a function by name, such as f(1, 'a')")
    return head


def _spread(rng: random.Random, groups: dict[str, list[int]], n: int) -> list[tuple[str, int]]:
    """Draw up to ``n`` lines going round the non-empty groups (in a seeded order), no line twice."""
    names = [name for name in _TAG_ORDER if groups.get(name)]
    rng.shuffle(names)
    pools = {name: list(groups[name]) for name in names}
    chosen, seen = [], set()
    while len(chosen) < n and names:
        for name in list(names):
            pool = pools[name]
            while pool:
                item = pool.pop(rng.randrange(len(pool)))
                if item not in seen:
                    seen.add(item)
                    chosen.append((name, item))
                    break
            if not pool:
                names.remove(name)
            if len(chosen) >= n:
                break
    return chosen


def select_questions(source: str, trace: Trace, call: str, *, seed: int = 0, n_path: int = 2, n_state: int = 2,
                     n_coverage: int = 0, task: str = "output", max_state_chars: int = DEFAULT_MAX_STATE_CHARS
                     ) -> list[Question]:
    """Choose the questions for one traced call.

    Args:
        source (`str`): the program text that was traced.
        trace (`Trace`): the trace of ``call``; it must have finished (``ok`` or ``exception``).
        call (`str`): the traced call, e.g. ``"f([1, 2])"``.
        seed (`int`, optional, defaults to 0): seed of ``random.Random`` for the draw.
        n_path (`int`, optional, defaults to 2): most ``path`` questions.
        n_state (`int`, optional, defaults to 2): most ``state`` questions.
        n_coverage (`int`, optional, defaults to 0): most ``coverage`` questions.
        task (`str`, optional, defaults to ``"output"``): ``"output"`` puts the ``io``
            question first; ``"input"`` asks only the ``oi`` question (step questions
            would reveal the input, so ``n_*`` must then be 0).
        max_state_chars (`int`, optional, defaults to `DEFAULT_MAX_STATE_CHARS`): longest
            value text a ``state`` question asks about.

    Returns:
        `list[Question]`: the final question (when the return value is askable), then
        ``path``, ``state`` and ``coverage`` questions. Fewer than asked when the trace
        has fewer candidates.

    Raises:
        ProgramError: the trace did not finish, or (``task="input"``) the call has no
            literal arguments or the return value has no literal.
        InvalidArgument: a count is negative or ``task`` is unknown.
    """
    for name, value in (("n_path", n_path), ("n_state", n_state), ("n_coverage", n_coverage)):
        check_int(name, value, minimum=0)
    if task not in ("output", "input"):
        raise InvalidArgument(f"task must be 'output' or 'input', got {task!r}")
    if trace.status not in (Status.OK, Status.EXCEPTION):
        raise ProgramError(f"the call did not finish (status {trace.status.value}); no questions can be asked about it")
    entry = _entry_name(call)
    call = call.strip()
    rng = random.Random(seed)
    questions: list[Question] = []
    output_ok = trace.status is Status.OK and trace.output is not None and trace.output.askable

    if task == "input":
        if n_path or n_state or n_coverage:
            raise InvalidArgument("task='input' asks only the oi question (step questions would reveal the input); set n_path, n_state and n_coverage to 0")
        if not output_ok:
            raise ProgramError("the call returned no value with a literal form, so no input question can be asked")
        try:
            parse_call(call)
        except AnswerError:
            raise ProgramError("the call's arguments are not literals, so it cannot serve as the reference input") from None
        return [Question(Kind.OI, expected=trace.output, call=call, entry=entry)]

    if output_ok:
        questions.append(Question(Kind.IO, expected=trace.output, call=call, entry=entry))
    if not (n_path or n_state or n_coverage):
        return questions

    lines = analyze_program(source)
    events = trace.events
    unexecuted = sorted(lines.statements - trace.lines_executed())
    index = event_index(trace)
    occurrences = {line: k for line, k in index}  # the last k of a line is its count

    def tags_of(line: int, function: str | None) -> list[str]:
        tags = []
        if function is not None and function != entry:
            tags.append("comprehension" if function.startswith("<") and function != "<lambda>" else "helper")
        if line in lines.branch:
            tags.append("branch")
        if line in lines.loop:
            tags.append("loop")
        return tags or ["plain"]

    groups: dict[str, list[int]] = {}
    for line in sorted(occurrences):
        for tag in tags_of(line, events[index[(line, 1)]].function):
            groups.setdefault(tag, []).append(line)

    # path: a line and one of its executions; never-executed lines answer -1
    for tag, line in _spread(rng, {**groups, "unexecuted": unexecuted}, n_path):
        if tag == "unexecuted":
            k, answer = 1, -1
        else:
            k = rng.randint(1, occurrences[line])
            i = index[(line, k)]
            answer = events[i + 1].line if i + 1 < len(events) else -1
        questions.append(Question(Kind.PATH, line=line, k=k, expected=encode(answer), tags=(tag,)))

    # state: a line, one of its executions, and a variable it binds (else any local)
    state_picks = []
    unexecuted_state = [line for line in unexecuted if lines.assigned.get(line)]
    for tag, line in _spread(rng, {**groups, "unexecuted": unexecuted_state}, n_state * 3):
        if len(state_picks) >= n_state:
            break
        if tag == "unexecuted":
            state_picks.append(Question(Kind.STATE, line=line, k=1, var=rng.choice(lines.assigned[line]), tags=(tag,)))
            continue
        k = rng.randint(1, occurrences[line])
        state = events[index[(line, k)]].locals
        usable = {name: value for name, value in state.items() if value.askable and len(value.text) <= max_state_chars}
        bound_here = [name for name in lines.assigned.get(line, []) if name in usable]
        names = bound_here or sorted(usable)
        if not names:
            continue
        var = rng.choice(names)
        state_picks.append(Question(Kind.STATE, line=line, k=k, var=var, expected=usable[var], tags=(tag,)))
    questions.extend(state_picks)

    # coverage: alternate executed and unexecuted lines
    if n_coverage:
        cover_groups = {"executed": sorted(occurrences), "unexecuted": unexecuted}
        names = [name for name in ("unexecuted", "executed") if cover_groups[name]]
        pools = {name: list(cover_groups[name]) for name in names}
        picked = 0
        while picked < n_coverage and names:
            for name in list(names):
                pool = pools[name]
                line = pool.pop(rng.randrange(len(pool)))
                questions.append(Question(Kind.COVERAGE, line=line, expected=encode(name == "executed"), tags=(name,)))
                picked += 1
                if not pool:
                    names.remove(name)
                if picked >= n_coverage:
                    break
    return questions
