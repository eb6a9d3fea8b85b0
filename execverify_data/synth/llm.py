r"""LLM-backed program generator: a :class:`ConstraintSpec` becomes a prompt, a model writes the code.

The prompt renders the spec as ExecVerify-style hard requirements ("write Python
code that tests the ``{method}`` method of the ``{type}`` type", nested calls,
other methods, the control-flow chain, the helper chain, the number of parameters,
input sizes). The template lives here and is versioned by :data:`PROMPT_VERSION`,
recorded with every accepted program. The reply's code block starts with a comment line
``# Description: ...`` saying what the entry point returns (:func:`split_description` takes it
out of the program: it becomes :attr:`LLMProgram.description` and the record's ``description``;
a program without one is kept, with ``""``).

Each completion goes through gates, the first that fails naming the rejection (the table of
docs/models.md, "The gates"): extraction of the code (``no_code``), ``ast.parse``
(``syntax_error``), the constraint checker (``checker:<first missed constraint>``), exact
duplicates in the same call (``duplicate``) and, with ``filters=FilterConfig(...)``, the
programmatic pipeline's :func:`execverify_data.synth.filters.evaluate` (``filter:<reason>``).

>>> from execverify_data.synth.spec import ConstraintSpec
>>> spec = ConstraintSpec("str.split", nested_depth=1, other_methods=True, control_flow=("for", "if"),
...                       helper_depth=1, n_params=1, min_size=6, max_size=10)
>>> print(render_prompt(spec))  # doctest: +ELLIPSIS
Write Python code that tests the `split` method of the `str` type.
<BLANKLINE>
Hard requirements:
1. Call the `split` method on a `str` value (`value.split(...)`) at least once.
2. Use nested calls: at least one call must take another call directly as an argument, 1 level deep, e.g. `f(g(x))`.
3. Also use at least one other built-in method or function besides `split`.
4. Include this control-flow chain, each statement inside the body of the previous one: a `for` loop, then inside it an `if` statement.
5. Use a chain of helper functions 1 call long: the entry-point function calls a helper function defined in the code.
6. The entry-point function is the last function in the code, and no other function calls it. It takes exactly 1 parameter (no default values, no `*args` or `**kwargs`), annotated with a concrete type such as `str`, `int`, `list[int]` or `dict[str, int]`, and returns a value.
7. It must work for inputs whose strings and containers have between 6 and 10 elements, terminate quickly and give the same result every time.
8. The code holds only imports and top-level function definitions: no classes, no top-level statements, no tests, no `print`.
9. Import only these standard-library modules, if any: bisect, collections, functools, heapq, itertools, math, re, string, typing.
10. Do not use `while True`, randomness, I/O, the clock, dunder names or attributes, or any of: __import__, breakpoint, compile, delattr, dir, eval, exec, exit, getattr, globals, help, input, locals, memoryview, open, quit, setattr, vars.
<BLANKLINE>
Reply with the complete program in a single ```python code block. Its first line is a comment that says in one or two sentences what the entry-point function returns for its inputs, with the parameter names in backticks, e.g. "# Description: Return the number of words in `words` that start with `prefix`."
>>> extract_code("Sure!\n```python\ndef f(x):\n    return x\n```\nDone.")
'def f(x):\n    return x\n'
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from execverify_data import catalog
from execverify_data.completions import extract_code
from execverify_data.errors import InvalidArgument
from execverify_data.models.base import TextBackend, check_generate_args
from execverify_data.seeds import derive_seed
from execverify_data.synth.checker import ALLOWED_IMPORTS, FORBIDDEN_NAMES, check
from execverify_data.synth.spec import ConstraintSpec

__all__ = ["PROMPT_VERSION", "SYSTEM_PROMPT", "LLMProgram", "LLMProgramGenerator", "extract_code", "render_messages",
           "render_prompt", "split_description"]

#: Bumped whenever the rendered prompt of some spec changes.
PROMPT_VERSION = "llm-prompt-v2"

SYSTEM_PROMPT = (
    "You are an expert Python programmer. You write small, self-contained, deterministic Python programs "
    "that exercise built-in types, exactly as the user's requirements say."
)

_HEAD_METHOD = "Write Python code that tests the `{name}` method of the `{type}` type."
_HEAD_FUNCTION = "Write Python code that tests the built-in function `{name}`."
_TAIL = ("Reply with the complete program in a single ```python code block. Its first line is a comment that says in "
         "one or two sentences what the entry-point function returns for its inputs, with the parameter names in "
         'backticks, e.g. "# Description: Return the number of words in `words` that start with `prefix`."')
#: The description line of a reply's program (a comment, anywhere; its text up to the end of the line).
_DESCRIPTION = re.compile(r"^[ \t]*#[ \t]*description[ \t]*:(.*)(?:\n|$)", re.IGNORECASE | re.MULTILINE)
_NESTED_EXAMPLES = {1: "f(g(x))", 2: "f(g(h(x)))", 3: "f(g(h(k(x))))"}
_FLOW_WORDS = {"if": "an `if` statement", "for": "a `for` loop",
               "while": "a `while` loop whose condition eventually becomes false",
               "if-elif": "an `if` statement with an `elif` branch"}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def split_description(source: str) -> tuple[str, str]:
    r"""The program without its ``# Description:`` comment line, and that description (``""`` when it has none).

    >>> split_description("# Description: Return `x` doubled.\ndef f(x: int) -> int:\n    return 2 * x\n")
    ('def f(x: int) -> int:\n    return 2 * x\n', 'Return `x` doubled.')
    >>> split_description("def f(x: int) -> int:\n    return x\n")
    ('def f(x: int) -> int:\n    return x\n', '')
    """
    match = _DESCRIPTION.search(source)
    if match is None:
        return source, ""
    return (source[: match.start()] + source[match.end() :]).lstrip("\n"), match.group(1).strip()


def render_requirements(spec: ConstraintSpec) -> list[str]:
    """The numbered hard requirements for ``spec`` (without numbers), in prompt order."""
    if not isinstance(spec, ConstraintSpec):
        raise InvalidArgument(f"spec must be a ConstraintSpec, got {type(spec).__name__}")
    entry = catalog.get(spec.target)
    out = []
    if entry.kind == "method":
        kind = spec.target.split(".", 1)[0]
        out.append(f"Call the `{entry.name}` method on a `{kind}` value (`value.{entry.name}(...)`) at least once.")
    else:
        out.append(f"Call the built-in function `{entry.name}(...)` at least once.")
    if spec.nested_depth:
        out.append("Use nested calls: at least one call must take another call directly as an argument, "
                   f"{_plural(spec.nested_depth, 'level')} deep, e.g. `{_NESTED_EXAMPLES[spec.nested_depth]}`.")
    if spec.other_methods:
        out.append(f"Also use at least one other built-in method or function besides `{entry.name}`.")
    if spec.control_flow:
        steps = [_FLOW_WORDS[spec.control_flow[0]]]
        steps += [f"then inside it {_FLOW_WORDS[step]}" for step in spec.control_flow[1:]]
        out.append("Include this control-flow chain, each statement inside the body of the previous one: "
                   + ", ".join(steps) + ".")
    if spec.helper_depth:
        chain = "the entry-point function calls a helper function defined in the code"
        if spec.helper_depth > 1:
            chain += ", which calls another helper" + ", which calls another" * (spec.helper_depth - 2)
        out.append(f"Use a chain of helper functions {_plural(spec.helper_depth, 'call')} long: {chain}.")
    out.append("The entry-point function is the last function in the code, and no other function calls it. "
               f"It takes exactly {_plural(spec.n_params, 'parameter')} (no default values, no `*args` or `**kwargs`), "
               "annotated with a concrete type such as `str`, `int`, `list[int]` or `dict[str, int]`, "
               "and returns a value.")
    out.append(f"It must work for inputs whose strings and containers have between {spec.min_size} and {spec.max_size} "
               "elements, terminate quickly and give the same result every time.")
    out.append("The code holds only imports and top-level function definitions: "
               "no classes, no top-level statements, no tests, no `print`.")
    modules = ", ".join(sorted(ALLOWED_IMPORTS - {"__future__"}))
    out.append(f"Import only these standard-library modules, if any: {modules}.")
    out.append("Do not use `while True`, randomness, I/O, the clock, dunder names or attributes, or any of: "
               + ", ".join(sorted(FORBIDDEN_NAMES)) + ".")
    return out


def render_prompt(spec: ConstraintSpec) -> str:
    """The user prompt for ``spec`` (template version :data:`PROMPT_VERSION`)."""
    requirements = render_requirements(spec)
    entry = catalog.get(spec.target)
    if entry.kind == "method":
        head = _HEAD_METHOD.format(name=entry.name, type=spec.target.split(".", 1)[0])
    else:
        head = _HEAD_FUNCTION.format(name=entry.name)
    body = "\n".join(f"{i}. {line}" for i, line in enumerate(requirements, 1))
    return f"{head}\n\nHard requirements:\n{body}\n\n{_TAIL}"


def render_messages(spec: ConstraintSpec) -> list[dict[str, str]]:
    """Chat messages for ``spec``: :data:`SYSTEM_PROMPT` then :func:`render_prompt`.

    >>> [m["role"] for m in render_messages(ConstraintSpec("list.pop"))]
    ['system', 'user']
    """
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": render_prompt(spec)}]


def render_completion_prompt(spec: ConstraintSpec) -> str:
    """A plain-text prompt for base (non-chat) models; it ends by opening a ```python block.

    >>> render_completion_prompt(ConstraintSpec("list.pop")).endswith("```python\\n")
    True
    """
    return f"{SYSTEM_PROMPT}\n\n{render_prompt(spec)}\n\n```python\n"


@dataclass
class LLMProgram:
    """A program an LLM wrote that passed every gate.

    Args:
        source (`str`): the extracted program (without its description comment).
        entry_point (`str`): the function the checker took as the entry point.
        spec (`ConstraintSpec`): the spec it was asked for and meets.
        seed (`int`): the ``seed`` of the :meth:`LLMProgramGenerator.generate` call.
        spec_index, sample_index (`int`): its spec's position and its sample number, which
            with ``seed`` and the backend replay it (for seeded local backends).
        prompt_version (`str`): :data:`PROMPT_VERSION`.
        backend (`str`): ``repr`` of the backend.
        completion (`str`): the raw completion text.
        filtered (`Any`, optional): the :class:`execverify_data.synth.filters.Accepted` record
            (inputs and traces) when filters ran.
        description (`str`, defaults to ``""``): what the entry point returns, from the reply's
            ``# Description:`` line (:func:`split_description`; ``""`` when it has none).
    """

    source: str
    entry_point: str
    spec: ConstraintSpec
    seed: int
    spec_index: int
    sample_index: int
    prompt_version: str
    backend: str
    completion: str
    filtered: Any = field(default=None, repr=False)
    description: str = ""


def _param_types(tree: ast.Module, entry: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            args = node.args.args
            if any(a.annotation is None for a in args):
                return None
            return tuple(ast.unparse(a.annotation) for a in args), tuple(a.arg for a in args)
    return None


class LLMProgramGenerator:
    """Ask a :class:`~execverify_data.models.TextBackend` for programs meeting specs, keep those that pass.

    Args:
        backend (`TextBackend`): the text-generation backend (see :func:`execverify_data.models.get_backend`).
        samples_per_spec (`int`, defaults to 4): completions asked per spec.
        temperature (`float`, defaults to 0.8), top_p (`float`, defaults to 0.95),
        max_new_tokens (`int`, defaults to 1024): sampling settings.
        chat (`bool`, defaults to True): send chat messages (:func:`render_messages`, for
            instruct models); False sends :func:`render_completion_prompt` (base models)
            and stops at the closing fence.
        filters (`FilterConfig`, optional): also run :func:`execverify_data.synth.filters.evaluate`
            (needs annotated entry-point parameters); None runs the checker only.
        tracer (`TraceBackend`, optional): the filters' tracer; defaults to ``TraceBackend("sandbox")``
            (LLM code is untrusted: every call is traced in a confined child of the untrusted sandbox).

    >>> class Fixed:  # a backend that always answers the same program
    ...     def generate(self, prompts, *, n=1, temperature=1.0, max_new_tokens=256, seed=None, stop=None, top_p=1.0):
    ...         return [["```python\\ndef f(xs: list[int]) -> list[int]:\\n    return sorted(set(xs))\\n```"] * n
    ...                 for _ in prompts]
    >>> gen = LLMProgramGenerator(Fixed(), samples_per_spec=2)
    >>> accepted, counts = gen.generate([ConstraintSpec("builtin.sorted", nested_depth=1)], seed=0)
    >>> [p.entry_point for p in accepted], dict(counts)
    (['f'], {'accepted': 1, 'duplicate': 1})
    """

    def __init__(self, backend: TextBackend, *, samples_per_spec: int = 4, temperature: float = 0.8,
                 top_p: float = 0.95, max_new_tokens: int = 1024, chat: bool = True, filters: Any = None,
                 tracer: Any = None) -> None:
        if not callable(getattr(backend, "generate", None)):
            raise InvalidArgument(
                f"backend must be a TextBackend (an object with .generate), got {type(backend).__name__}; "
                "see execverify_data.models.get_backend"
            )
        if isinstance(samples_per_spec, bool) or not isinstance(samples_per_spec, int) or samples_per_spec < 1:
            raise InvalidArgument(f"samples_per_spec must be an int of at least 1, got {samples_per_spec!r}")
        check_generate_args([], n=samples_per_spec, temperature=temperature, max_new_tokens=max_new_tokens, seed=None,
                            stop=None, top_p=top_p)
        if not isinstance(chat, bool):
            raise InvalidArgument(f"chat must be True or False, got {chat!r}")
        if filters is not None:
            from execverify_data.synth.filters import FilterConfig

            if not isinstance(filters, FilterConfig):
                raise InvalidArgument(f"filters must be a FilterConfig or None, got {type(filters).__name__}")
        if tracer is not None and filters is None:
            raise InvalidArgument("tracer is only used by the filters; pass filters=FilterConfig(...) too")
        self.backend = backend
        self.samples_per_spec = samples_per_spec
        self.temperature = temperature
        self.top_p = top_p
        self.max_new_tokens = max_new_tokens
        self.chat = chat
        self.filters = filters
        self.tracer = tracer

    def prompt(self, spec: ConstraintSpec) -> Any:
        """What is sent to the backend for ``spec``: chat messages or a completion prompt."""
        return render_messages(spec) if self.chat else render_completion_prompt(spec)

    def generate(self, specs: Sequence[ConstraintSpec], seed: int) -> tuple[list[LLMProgram], Counter]:
        """Sample ``samples_per_spec`` programs per spec and keep those passing every gate.

        Args:
            specs (`list[ConstraintSpec]`): the specs, one prompt each.
            seed (`int`): the backend's sampling seed (and the filters' input seed, derived per sample).

        Returns:
            ``(accepted, counts)``: the accepted programs in spec then sample order, and a
            ``Counter`` with ``accepted`` and one key per rejection reason (``no_code``,
            ``syntax_error``, ``checker:<constraint>``, ``duplicate``, ``filter:<reason>``);
            its values sum to ``len(specs) * samples_per_spec``.
        """
        if isinstance(specs, ConstraintSpec) or not isinstance(specs, Sequence):
            raise InvalidArgument(f"specs must be a list of ConstraintSpec, got {type(specs).__name__}")
        for i, spec in enumerate(specs):
            if not isinstance(spec, ConstraintSpec):
                raise InvalidArgument(f"specs[{i}] must be a ConstraintSpec, got {type(spec).__name__}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InvalidArgument(f"seed must be an int, got {seed!r}")
        counts: Counter = Counter()
        accepted: list[LLMProgram] = []
        if not specs:
            return accepted, counts
        completions = self.complete(specs, seed)
        backend = repr(self.backend)
        seen_sources: set[str] = set()
        seen_hashes: set[str] = set()
        tracer, own_tracer = self.tracer, False
        try:
            for i, (spec, texts) in enumerate(zip(specs, completions)):
                for j, text in enumerate(texts):
                    if self.filters is not None and tracer is None:
                        from execverify_data.synth.filters import TraceBackend

                        tracer, own_tracer = TraceBackend("sandbox"), True
                    program, reason = self.gate(spec, text, seed=derive_seed(seed, i, j), tracer=tracer,
                                                seen_sources=seen_sources, seen_hashes=seen_hashes)
                    if program is None:
                        counts[reason] += 1
                        continue
                    counts["accepted"] += 1
                    source, entry, filtered, description = program
                    accepted.append(LLMProgram(source, entry, spec, seed, i, j, PROMPT_VERSION, backend, text, filtered,
                                               description))
        finally:
            if own_tracer:
                tracer.close()
        return accepted, counts

    def complete(self, specs: Sequence[ConstraintSpec], seed: int | Sequence[int]) -> list[list[str]]:
        """The backend's ``samples_per_spec`` completions of each spec's prompt, in one ``generate`` call.

        ``seed`` is the sampling seed, or a list with one seed per spec (each spec's completions
        then depend on its own seed only, see :class:`~execverify_data.models.TextBackend`).
        """
        completions = self.backend.generate(
            [self.prompt(spec) for spec in specs], n=self.samples_per_spec, temperature=self.temperature,
            top_p=self.top_p, max_new_tokens=self.max_new_tokens, seed=seed if isinstance(seed, int) else list(seed),
            stop=None if self.chat else ["\n```"])
        if len(completions) != len(specs) or any(len(c) != self.samples_per_spec for c in completions):
            raise InvalidArgument(
                f"{self.backend!r} returned {[len(c) for c in completions]} completions for {len(specs)} prompts "
                f"with n={self.samples_per_spec}; a TextBackend must return n completions per prompt")
        return completions

    def gate(self, spec: ConstraintSpec, text: str, *, seed: int, tracer: Any = None, level: int = 0,
             seen_sources: set[str] | None = None, seen_hashes: set[str] | None = None,
             counts: dict[str, int] | None = None) -> tuple[tuple[str, str, Any, str] | None, str]:
        """Run one completion through every gate: ``((source, entry_point, accepted, description), "accepted")`` or
        ``(None, reason)``.

        Args:
            spec (`ConstraintSpec`): what the completion was asked for.
            text (`str`): the completion.
            seed (`int`): the filters' input seed.
            tracer (`TraceBackend`): the filters' trace backend (needed when the generator has filters).
            level (`int`, defaults to 0): recorded as the program's level.
            seen_sources (`set[str]`, optional): sources accepted so far (``duplicate``); joined on acceptance.
            seen_hashes (`set[str]`, optional): normalized hashes for the filters' ``duplicate`` rule.
            counts (`dict`, optional): receives the filters' ``input_raised`` count.

        ``accepted`` is the filters' :class:`~execverify_data.synth.filters.Accepted` (None without filters), whose
        program carries the description; ``source`` is the program without its description line
        (:func:`split_description`); the reasons are those of :meth:`generate`.
        """
        if self.filters is not None and tracer is None:
            raise InvalidArgument("gate needs the filters' tracer: pass tracer=TraceBackend('sandbox')")
        return self._gate(spec, text, seed, set() if seen_sources is None else seen_sources,
                          set() if seen_hashes is None else seen_hashes, tracer, level, counts)

    def _gate(self, spec: ConstraintSpec, text: str, row_seed: int, seen_sources: set[str], seen_hashes: set[str],
              tracer: Any, level: int = 0,
              counts: dict[str, int] | None = None) -> tuple[tuple[str, str, Any, str] | None, str]:
        source, description = split_description(extract_code(text if isinstance(text, str) else ""))
        if not source.strip():
            return None, "no_code"
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None, "syntax_error"
        try:
            report = check(source, spec)
        except RecursionError:  # pathologically deep expressions
            return None, "checker:too_deep"
        if not report.ok:
            return None, f"checker:{report.missed[0].name}"
        key = source.strip()
        if key in seen_sources:
            return None, "duplicate"
        entry = report.entry_point
        filtered = None
        if self.filters is not None:
            filtered, reason = self._filter(spec, source, tree, entry, row_seed, seen_hashes, tracer, level, counts,
                                            description)
            if filtered is None:
                return None, f"filter:{reason}"
        seen_sources.add(key)
        return (source, entry, filtered, description), "accepted"

    def _filter(self, spec: ConstraintSpec, source: str, tree: ast.Module, entry: str, row_seed: int,
                seen_hashes: set[str], tracer: Any, level: int = 0,
                counts: dict[str, int] | None = None, description: str = "") -> tuple[Any, str | None]:
        from execverify_data.synth.filters import evaluate
        from execverify_data.synth.generator import Program

        typed = _param_types(tree, entry)
        if typed is None:
            return None, "param_types"
        types, names = typed
        program = Program(source, entry, types, names, level=level, target=spec.target, seed=row_seed,
                          description=description)
        try:
            return evaluate(program, spec, seed=row_seed, config=self.filters, tracer=tracer, seen=seen_hashes,
                            counts=counts)
        except InvalidArgument:
            return None, "param_types"
