r"""What a model wrote: the text of a completion and the code inside it.

Completions arrive as strings, as chat message lists (TRL's conversational
format: the last assistant message counts), or as one message dict whose
``content`` may be a list of multimodal parts. Every consumer (the rewards, the
question scorer, the LLM program generator, the lm-eval tasks) reads them here.

>>> completion_text([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}])
'a'
>>> extract_code("Sure!\n```python\ndef f(x):\n    return x\n```\nDone.")
'def f(x):\n    return x\n'
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["completion_text", "extract_code"]


def completion_text(completion: Any) -> str | None:
    """The text of a completion; ``None`` when it holds no readable text.

    >>> completion_text({"role": "assistant", "content": [{"type": "text", "text": "x = 1"}]})
    'x = 1'
    >>> completion_text(42) is None
    True
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return _content(completion.get("content"))
    if isinstance(completion, (list, tuple)):
        messages = [m for m in completion if isinstance(m, dict)]
        chosen = [m for m in messages if m.get("role") == "assistant"] or messages
        return _content(chosen[-1].get("content")) if chosen else None
    return None


def _content(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal parts: [{"type": "text", "text": ...}]
        parts = [p.get("text") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts) if parts else None
    return None


_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)
_OPEN_LABELED = re.compile(r"```[ \t]*(?:python3?|py3?)[ \t]*\n", re.IGNORECASE)
_PYTHON_TAGS = frozenset({"python", "python3", "py", "py3", ""})


def extract_code(text: str) -> str:
    r"""The program in a completion's text: the last fenced ``python`` (or unlabeled) block, else the whole text.

    An opened block that is never closed gives what follows the fence; text that
    only closes a block (a completion of a prompt ending in ```python) gives what
    precedes the fence. Blocks labeled with another language are not code.

    >>> extract_code("```python\ndef a():\n    return 1\n```\n```py\ndef b():\n    return 2\n```")
    'def b():\n    return 2\n'
    >>> extract_code("def c():\n    return 3\n```\nExplanation...")
    'def c():\n    return 3\n'
    >>> extract_code("```python\ndef d():\n    return 4\n")
    'def d():\n    return 4\n'
    >>> extract_code("   ")
    ''
    """
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(text)]
    code_blocks = [body for lang, body in blocks if lang in _PYTHON_TAGS]
    if code_blocks:
        return code_blocks[-1] if code_blocks[-1].strip() else ""
    if not blocks and "```" in text:
        labeled = list(_OPEN_LABELED.finditer(text))
        head = text[: text.index("```")]
        if labeled:
            tail = text[labeled[-1].end() :]
        elif not head.strip():  # a bare opening fence: skip its line
            _, _, tail = text[len(head) :].partition("\n")
        else:  # a closing fence only: the prompt opened the block
            return head
        return tail if tail.strip() else ""
    return text if text.strip() else ""
