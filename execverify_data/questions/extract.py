"""Answer extraction: from what a model wrote to one answer text per question.

Extraction only finds and trims text; it never decides correctness (that is
:mod:`execverify_data.questions.scoring`) and never raises for any input. The rules
(answer blocks of each style, list markers, multi-line cruxeval statements, the forms
each kind accepts) are listed in ``docs/questions.md``, "Extraction".

>>> answer_lines("Thinking...\\n<answer>\\n1. 8\\n2. `3`\\n</answer>", "execverify")
['8', '3']
>>> final_parts("assert f(3) == [1, 2]", "io")
('f(3)', '[1, 2]')
>>> split_state("'a;b'; str")
("'a;b'", 'str')
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from typing import Any

from execverify_data.completions import completion_text

__all__ = ["MAX_COMPLETION_CHARS", "MAX_LINE_CHARS", "answer_lines", "completion_text", "final_parts",
           "has_answer_block", "normalize_coverage", "normalize_path", "split_state"]

#: Longest completion read, in characters; a longer one has no answers.
MAX_COMPLETION_CHARS = 200_000
#: Longest answer line kept (``values.parse`` reads at most 100,000 characters anyway).
MAX_LINE_CHARS = 100_000

_OPEN_LINE = re.compile(r"^[ \t]*<answer>[ \t]*$", re.IGNORECASE | re.MULTILINE)
_CLOSE_LINE = re.compile(r"^[ \t]*</answer>[ \t]*$", re.IGNORECASE | re.MULTILINE)
_INLINE = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
_OPEN_ANY = re.compile(r"<answer>", re.IGNORECASE)
_CRUX = re.compile(r"\[ANSWER\](.*?)\[/ANSWER\]", re.IGNORECASE | re.DOTALL)
_CRUX_OPEN = re.compile(r"\[ANSWER\]", re.IGNORECASE)
# List markers ("1. ", "2) ", "Answer 3:", "- ") and prose ("The output is"), repeated: removed.
_PREFIX = re.compile(
    r"^(?:(?:"
    r"(?:answer|ans|a|q|question)\s*\d{0,3}\s*[:.)\-]\s*"
    r"|\(?\d{1,3}[.):]\s+"
    r"|[-*\u2022]\s+"
    r"|(?:the\s+)?(?:output|answer|result|return value|returned value|value)\s*(?:is|:|=)\s*"
    r"))+",
    re.IGNORECASE,
)
_NO_PREFIX_START = frozenset("'\"[({`")
_PATH = re.compile(r"^(?:line\s*(?:number\s*)?)?(-?\d+)\s*\.?$", re.IGNORECASE)
_TYPE = re.compile(r"^(?:type\s*[:=]?\s*)?[`'\"]?(?:<class\s+'([\w.]+)'>|([A-Za-z_][\w.]*))[`'\"]?\.?$", re.IGNORECASE)
_STATE = re.compile(r"^(.*);\s*(.+?)\s*$", re.DOTALL)
_YES = {"true", "yes", "executed", "y"}
_NO = {"false", "no", "not executed", "never executed", "n"}


def _last(pattern: re.Pattern, text: str, end: int | None = None) -> re.Match | None:
    match = None
    for match in pattern.finditer(text, 0, len(text) if end is None else end):
        pass
    return match


def _execverify_block(text: str) -> str | None:
    close = _last(_CLOSE_LINE, text)
    if close:
        opening = _last(_OPEN_LINE, text, close.start())
        if opening:
            return text[opening.end() : close.start()]
    inline = _last(_INLINE, text)
    last_open = _last(_OPEN_ANY, text)
    if last_open is not None and (inline is None or last_open.start() >= inline.end()):
        return text[last_open.end() :]  # unclosed final block
    return inline.group(1) if inline is not None else None


def _crux_block(text: str) -> str:
    block = _last(_CRUX, text)
    if block is not None:
        text = text[block.end() :]
    last_open = _last(_CRUX_OPEN, text)
    if last_open is not None:
        return text[last_open.end() :]
    return block.group(1) if block is not None else text


def clean_line(line: str) -> str:
    """Trim one answer line: whitespace, list markers, prose like ``Output:``, wrapping backticks."""
    line = line.strip()
    if line and line[0] not in _NO_PREFIX_START:
        prefix = _PREFIX.match(line)
        if prefix:
            line = line[prefix.end() :]
    if len(line) >= 2 and line[0] == "`" and line[-1] == "`":
        line = line.strip("`").strip()
    return line


def _lines(block: str) -> list[str]:
    out = []
    for raw in block.split("\n"):
        stripped = raw.strip()
        if stripped and not stripped.startswith(("```", "~~~")):
            # a line too long to read is present but unreadable: it counts as an answer, and a wrong one
            out.append(clean_line(stripped) if len(stripped) <= MAX_LINE_CHARS else "")
    return out


#: most physical lines joined into one statement
_MAX_JOINED = 200
#: printable characters after which the tokenizer may read a bracket as something else than a bracket
_NOT_PLAIN = re.compile(r"['\"#\\]")


def _open_brackets(line: str) -> int:
    """Brackets opened minus closed, outside string literals (a cheap first look; a join is kept
    only when Python parses the result): :func:`_tokenized_brackets`, counted by characters where
    no string, comment, backslash or control character can hide one."""
    if line.isprintable() and not _NOT_PLAIN.search(line):
        return line.count("(") + line.count("[") + line.count("{") - line.count(")") - line.count("]") - line.count("}")
    return _tokenized_brackets(line)


def _tokenized_brackets(line: str) -> int:
    """Brackets opened minus closed among the tokenizer's operators (it stops at what it cannot read)."""
    depth = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line).readline):
            if tok.type == tokenize.OP:
                depth += (tok.string in "([{") - (tok.string in ")]}")
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass  # the unclosed bracket ends the tokens; depth counts what was read
    return depth


def _statements(lines: list[str]) -> list[str]:
    """Physical answer lines joined where a bracket opened on one closes on a later one (and the
    joined text parses); every other line stays as it is.

    >>> _statements(["assert f(1) == [1,", "2, 3]", "x"])
    ['assert f(1) == [1,\\n2, 3]', 'x']
    """
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "(" in line or "[" in line or "{" in line:
            depth = _open_brackets(line)
            j = i + 1
            joined = line
            while depth > 0 and j < len(lines) and j - i < _MAX_JOINED:
                joined += "\n" + lines[j]
                depth = _open_brackets(joined)
                j += 1
            if j > i + 1 and depth == 0 and _parse(joined) is not None:
                out.append(joined)
                i = j
                continue
        out.append(line)
        i += 1
    return out


def _parse(text: str) -> ast.Module | None:
    """``text`` parsed as a module, None when it does not parse (warnings silenced)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def answer_lines(completion: Any, style: str) -> list[str] | None:
    """The answer texts of a completion, in order, or None when it has no answer block.

    Args:
        completion (`str`, `list[dict]` or `dict`): what the model wrote.
        style (`str`): the prompt style (``execverify``, ``chat`` or ``cruxeval``).
    """
    text = completion_text(completion)
    if text is None or len(text) > MAX_COMPLETION_CHARS:
        return None
    if style == "cruxeval":
        lines = _statements(_lines(_crux_block(text)))
        if not lines:
            return None
        asserts = [line for line in lines if line.startswith("assert")]
        return [asserts[-1] if asserts else lines[-1]]
    block = _execverify_block(text)
    if block is None:
        return None
    return _lines(block)


def has_answer_block(completion: Any, style: str) -> bool:
    """Whether the completion has the answer block of ``style``: ``[ANSWER]`` ... for
    ``cruxeval`` (a final unclosed one counts, as in :func:`answer_lines`), ``<answer>`` ...
    for every other style. :func:`answer_lines` reads a ``cruxeval`` completion without a
    block as one bare answer; this tells the two apart.

    >>> has_answer_block("hello world", "cruxeval"), has_answer_block("[ANSWER]\\nassert f(1) == 2\\n[/ANSWER]", "cruxeval")
    (False, True)
    >>> has_answer_block("<reasoning>\\nx\\n</reasoning>\\n<answer>\\n3\\n</answer>", "reasoning")
    True
    """
    text = completion_text(completion)
    if text is None or len(text) > MAX_COMPLETION_CHARS:
        return False
    if style == "cruxeval":
        return _CRUX_OPEN.search(text) is not None
    return _execverify_block(text) is not None


def _segment(text: str, node: ast.AST) -> str:
    return ast.get_source_segment(text, node) or ""


def final_parts(line: str, kind: str) -> tuple[str | None, str | None]:
    """Split a final answer into ``(call text, value text)``.

    For ``io`` the value is what the model claims the call returns; for ``oi`` the
    call is the proposed input and the value, when given, the claimed output.
    ``assert f(x) == y``, ``f(x) == y``, a bare value (``io``) or a bare call (``oi``).

    >>> final_parts("assert f(1, 'a') == 3", "oi")
    ("f(1, 'a')", '3')
    >>> final_parts("f(2)", "oi"), final_parts("assert True", "oi")
    (('f(2)', None), (None, None))
    """
    text = line.strip()
    if text.endswith(";"):
        text = text[:-1].rstrip()
    if "==" not in text and not text.startswith("assert"):  # no assertion: skip the statement parse
        if kind == "io":
            return None, text
        if "(" not in text:
            return None, None
    node = _parse_statement(text)
    if isinstance(node, ast.Assert):
        node = node.test
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
            return None, None  # "assert True", "assert x" and the like
    elif isinstance(node, ast.Expr):
        node = node.value
    else:
        return (None, text) if kind == "io" else (None, None)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
        left, right = node.left, node.comparators[0]
        call = _segment(text, left) if isinstance(left, ast.Call) else None
        return call, _segment(text, right)
    if kind == "oi":
        return (_segment(text, node), None) if isinstance(node, ast.Call) else (None, None)
    return None, text


def _parse_statement(text: str) -> ast.stmt | None:
    module = _parse(text) if text and len(text) <= MAX_LINE_CHARS else None
    return module.body[0] if module is not None and len(module.body) == 1 else None


def normalize_path(line: str) -> str:
    """``line 7``, ``Line 7.`` and ``7`` read as ``7``; anything else is left as written."""
    match = _PATH.match(line.strip())
    return match.group(1) if match else line


def normalize_coverage(line: str) -> str:
    """``yes``/``no`` (and ``executed``/``not executed``) read as ``True``/``False``."""
    word = line.strip().rstrip(".!").strip().lower()
    if word in _YES:
        return "True"
    if word in _NO:
        return "False"
    return line


def split_state(line: str) -> tuple[str, str | None]:
    """Split ``value; type`` at the last ``;`` that is followed by a type name.

    Returns ``(value text, type name)``; the type is None when the answer names none.

    >>> split_state("[1, 2]; list"), split_state("{'a': 1}; <class 'dict'>"), split_state("5")
    (('[1, 2]', 'list'), ("{'a': 1}", 'dict'), ('5', None))
    """
    text = line.strip()
    position = len(text)
    while True:
        position = text.rfind(";", 0, position)
        if position < 0:
            return text, None
        type_match = _TYPE.match(text[position + 1 :].strip())
        if type_match:
            return text[:position].strip(), type_match.group(1) or type_match.group(2)
