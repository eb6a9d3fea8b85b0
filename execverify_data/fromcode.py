"""Any Python functions become records: ``execverify from-code``.

The input is a JSONL file of ``{"code", "entry_point"}`` objects, each with optional seed calls
(``"inputs"``: CRUXEval-style argument texts such as ``"[1, 2], 3"``, e.g. taken from a
benchmark's tests), an optional ``"id"`` (or ``"task_id"``) and an optional ``"description"`` (one or
two sentences saying what the function returns, parameter names in backticks: the record's
``description``, which a release's ``codegen`` prompt then states), or a folder of ``.py`` files (every
top-level ``def`` with positional parameters only, no decorator, is a candidate), or the shipped
HumanEval (:func:`humaneval_functions`: seed calls read from each problem's ``check`` function by
:func:`execverify_data.values.literal_calls`).

Each function goes through these steps; the first that fails names the reason it is skipped
(:data:`REASONS`, counted in ``summary.json``):

1. ``bad_source`` (does not parse, no such function), ``unsupported_signature`` (``*args``,
   keyword-only parameters, decorators, async), ``no_params``, ``io`` (it imports a module of the outside
   world, ``os``, ``time``, ``random``, ``socket``..., calls ``open``, ``input``, ``__import__``, or reads the
   clock, ``date.today()``: :func:`world_uses`; its result would be this machine's), ``bad_seed_input`` (a
   seed call is not a literal call with the function's arity).
2. Parameter types (:func:`settle_types`): the annotation when it is one the input sampler draws
   (``List[int]``, ``Optional[str]``, ``dict[str, int]``...), else the types of the seed inputs'
   values, else what the body's method calls on the parameter say (:mod:`execverify_data.catalog.usage`:
   ``s.split()`` settles ``str``). A parameter still unknown skips the function (``untyped_param``).
3. Decontamination (:mod:`execverify_data.decontam`, as in the release): a function found in a
   benchmark is dropped (``decontam_<benchmark>_<kind>``) unless that benchmark is allowed
   (``allow_benchmarks``; e.g. ``humaneval`` when HumanEval itself is the input).
4. Inputs (:func:`execverify_data.inputs.draw_inputs`): the seed inputs first, then
   type-preserving mutations of them (as evalplus does for HumanEval) and fresh draws from the
   types, from the row's seed (:func:`execverify_data.seeds.row_seed`). The candidates run
   instrumented, each traced in a confined child of the untrusted sandbox (the ``synthesize --tracer
   sandbox`` path, :func:`execverify_data.synth.filters.prescreen` with ``best_effort``; the child
   streams its events and the trace is built in this process, :mod:`execverify_data.sandbox._tracing`).
   A function the sandbox refuses an act on any input (reading a frame of the interpreter, opening a
   file, importing outside the standard library, starting a process) is dropped (``refused``). The
   inputs kept are
   chosen, as the generator chooses them, to take every decision both ways where the inputs allow
   (:func:`execverify_data.synth.coverage.choose`); an input that raises, runs past the step budget
   or returns a value without a literal is discarded. ``too_few_inputs`` when fewer than ``k`` remain.
5. Tracing and determinism: the kept calls are traced in the sandbox (hash seed 0, as every trace of the
   project), traced again in a second sandbox pool under hash seed 1 and run once more untraced in the
   sandbox (:mod:`execverify_data.sandbox.untrusted`: layered isolation, no files, no network); any
   difference in trace or output (time, randomness, I/O, set order) drops the function
   (``nondeterministic``; the sandbox failing the untraced run is ``sandbox_failed``). Dates, times, spans
   and ``Decimal`` amounts are values like any (``datetime.date(2024, 1, 5)``, ``Decimal('4.50')``: their
   ``repr``); the row's program gets the import that makes that text run beside it
   (:func:`bind_value_names`), and a module that binds ``datetime`` or ``Decimal`` to something else is
   given up (``value_names``).
6. ``duplicate``: the normalized AST of a function kept earlier in the input.

A record is a :class:`~execverify_data.records.ProgramRecord` (level 0, target ``from_code``) with its
provenance fields set (``source``, ``source_id``,
``input_origins``: ``seed`` or ``generated`` per input, ``branch_coverage``). Records are written in
shards by the shard engine (:mod:`execverify_data.shards`: atomic, resumable), so ``execverify build-release --programs OUT``
builds every config from them.

>>> settle_types("def f(xs: List[int], s):\\n    return s.upper() * len(xs)\\n", "f", [])
(('list[int]', 'str'), None)
>>> settle_types("def f(x):\\n    return x\\n", "f", [])
(None, "untyped_param: cannot settle the type of 'x' (no annotation, no seed input, no telling use)")
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import os
import platform
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from execverify_data import shards
from execverify_data.errors import InvalidArgument, check_int
from execverify_data.pipeline import RecordRun
from execverify_data.records import ProgramRecord

__all__ = ["FROMCODE_VERSION", "REASONS", "FromCodeConfig", "FromCodeError", "Function", "convert", "from_code",
           "humaneval_functions", "load", "load_folder", "load_jsonl", "load_package", "package_source", "program_of",
           "settle_types", "world_uses", "bind_value_names", "with_siblings"]

#: The ``generator_version`` of from-code records.
FROMCODE_VERSION = "fromcode-2"
#: Why a function is skipped, in the order of the steps (``decontam_<benchmark>_<kind>`` besides).
REASONS = ("bad_source", "unsupported_signature", "no_params", "state", "relative_import", "io", "bad_seed_input",
           "untyped_param", "decontam",
           "too_few_inputs", "value_names", "step_budget", "refused", "time_cap", "nondeterministic", "sandbox_failed",
           "constant_output", "returns_input", "duplicate")
#: Functions per work unit (one function costs dozens of forked calls).
CHUNK_FUNCTIONS = 8


class FromCodeError(InvalidArgument):
    """Input that from-code cannot read; the message names the file (and line) and the fix."""


@dataclass(frozen=True)
class Function:
    """One candidate: the module ``code`` that defines ``entry_point``, seed argument texts, provenance, what
    it returns in words (``description``, ``""`` when not given) and the user's parameter ``types``."""

    code: str
    entry_point: str
    inputs: tuple[str, ...] = ()
    source: str = ""
    source_id: str = ""
    description: str = ""
    types: tuple[str, ...] = ()  # the user's types, one per parameter (type-language texts), or none
    license: str = ""  # the code's license where known (a package's), else ""


# ---------------------------------------------------------------------------- reading the input


def humaneval_functions() -> list[Function]:
    """The shipped HumanEval (164 problems): prompt + canonical solution, seed calls from its tests."""
    from execverify_data.data import humaneval_records
    from execverify_data.values import literal_calls

    return [Function(code=p["prompt"] + p["canonical_solution"], entry_point=p["entry_point"],
                     inputs=tuple(literal_calls(p["test"], keywords=False)), source="humaneval", source_id=p["task_id"],
                     license="MIT")
            for p in humaneval_records()]


def load_jsonl(path: str | os.PathLike) -> list[Function]:
    """Functions from a JSONL file of ``{"code", "entry_point", "inputs"?, "id"?, "description"?}`` objects."""
    path = Path(path)
    out = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise FromCodeError(f"cannot read {path}: {exc}; give a readable UTF-8 JSONL file") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise FromCodeError(f"{where}: not JSON ({exc}); fix or remove that line") from None
        if not isinstance(row, dict) or not isinstance(row.get("code"), str) or not isinstance(row.get("entry_point"), str):
            raise FromCodeError(f"{where}: expected an object with string fields 'code' and 'entry_point'")
        inputs = row.get("inputs", [])
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list) or not all(isinstance(x, str) for x in inputs):
            raise FromCodeError(f"{where}: 'inputs' must be a list of argument texts such as \"[1, 2], 3\"")
        types = row.get("types", [])
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            raise FromCodeError(f"{where}: 'types' must be a list of type texts such as [\"list[int]\", \"str\"]")
        description = row.get("description", "")
        if not isinstance(description, str):
            raise FromCodeError(f"{where}: 'description' must be a string saying what the function returns, "
                                f"got {type(description).__name__}")
        ident = row.get("id", row.get("task_id", f"{path.name}:{number}"))
        out.append(Function(row["code"], row["entry_point"], tuple(inputs), source=path.name, source_id=str(ident),
                            description=description.strip(), types=tuple(types)))
    if not out:
        raise FromCodeError(f"{path}: no functions found (the file has no JSON lines); give one object per line")
    return out


def doctest_inputs(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    """The argument texts of the function's own calls in its docstring's examples (``>>> nights_between("2024-03-01",
    "2024-03-04")``) with a literal for every parameter: the author's inputs, taken as seed inputs where the
    folder's sidecar gives none.

    >>> fn = ast.parse("def f(a, b=1):\\n    '''>>> f(2, 3)\\n    5\\n    >>> f(4)\\n    '''").body[0]
    >>> doctest_inputs(fn)
    ('2, 3',)
    """
    import doctest

    from execverify_data.values import literal_calls, parse_call

    doc = ast.get_docstring(node) or ""
    try:
        source = "\n".join(e.source for e in doctest.DocTestParser().get_examples(doc))
        calls = literal_calls(source, node.name, keywords=False)
    except Exception:  # noqa: BLE001 - a docstring whose examples do not parse: no seeds from it
        return ()
    n = len(node.args.args)
    return tuple(c for c in calls if len(parse_call(f"f({c})")[1]) == n)


def program_of(code: str, entry: str | list[str], tree: ast.Module | None = None) -> str:
    """The part of module ``code`` that function ``entry`` needs (or the names ``entry`` lists, functions or
    constants): the functions and classes it refers to by name, and the imports and top-level assignments they
    use, transitively (in the module's order, their text as written); other functions, top-level calls and the
    ``if __name__ == "__main__":`` block are left out.

    >>> print(program_of("import re, os\\nN = 2\\nM = 3\\n\\ndef g(x):\\n    return x * N\\n\\ndef f(s):\\n    return g(len(s))\\n\\n"
    ...                  "def h():\\n    pass\\n\\nprint(f('ab'))\\n", "f"))
    N = 2
    <BLANKLINE>
    <BLANKLINE>
    def g(x):
        return x * N
    <BLANKLINE>
    <BLANKLINE>
    def f(s):
        return g(len(s))
    <BLANKLINE>
    """
    tree = tree or ast.parse(code)
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    roots = [entry] if isinstance(entry, str) else list(entry)
    needed = {n for n in roots if n in defs}
    todo = list(needed)
    while todo:
        for node in ast.walk(defs[todo.pop()]):
            if isinstance(node, ast.Name) and node.id in defs and node.id not in needed:
                needed.add(node.id)
                todo.append(node.id)
    def names(node) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    def bound(node) -> set[str]:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return {a.asname or a.name.split(".")[0] for a in node.names}
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}

    used = set().union(*(names(defs[n]) for n in needed), set(roots) - set(defs))
    module_level = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign))]
    keep: set[int] = set()
    grew = True
    while grew:  # the assignments and imports the kept code uses, and what those use
        grew = False
        for node in module_level:
            if id(node) not in keep and bound(node) & used:
                keep.add(id(node))
                used |= names(node) if not isinstance(node, (ast.Import, ast.ImportFrom)) else set()
                grew = True
    lines = code.splitlines()
    blocks: list[tuple[bool, str]] = []
    for node in tree.body:
        is_def = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if (is_def and node.name in needed) or id(node) in keep:
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
            blocks.append((is_def, "\n".join(lines[first - 1:node.end_lineno])))
    text = ""
    for i, (is_def, block) in enumerate(blocks):
        if i:
            text += "\n\n\n" if is_def or blocks[i - 1][0] else "\n"
        text += block
    return text + "\n"


#: The file in a folder of ``.py`` files that gives functions seed inputs, types and descriptions.
SIDECAR = "from-code.json"


def _sidecar(path: Path) -> dict[str, dict]:
    """``{"file.py:function": {"inputs"?, "types"?, "description"?}}`` from the folder's :data:`SIDECAR`."""
    file = path / SIDECAR
    if not file.exists():
        return {}
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise FromCodeError(f"{file}: not a JSON file ({exc}); fix it or remove it") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise FromCodeError(f"{file}: expected an object of \"file.py:function\": {{\"inputs\", \"types\", \"description\"}}")
    for key, entry in data.items():
        for field_name, kind in (("inputs", list), ("types", list), ("description", str)):
            value = entry.get(field_name, kind())
            if not isinstance(value, kind) or (kind is list and not all(isinstance(x, str) for x in value)):
                raise FromCodeError(f"{file}: {key!r} has a {field_name!r} that is not a "
                                    f"{'list of strings' if kind is list else 'string'}")
        unknown = set(entry) - {"inputs", "types", "description"}
        if unknown:
            raise FromCodeError(f"{file}: {key!r} has unknown fields {sorted(unknown)}; use inputs, types, description")
    return data


def load_folder(path: str | os.PathLike) -> list[Function]:
    """Every top-level function of the ``.py`` files under ``path`` (sorted by path, then by position),
    each with the part of its file it needs (:func:`program_of`) as its code, and what the folder's
    :data:`SIDECAR` (``from-code.json``) says of it: seed ``inputs``, ``types``, a ``description``.

    A file that does not parse gives one candidate that is skipped as ``bad_source``."""
    path = Path(path)
    given = _sidecar(path) if path.is_dir() else {}
    out = []
    files: list[tuple[Path, str, ast.Module | None]] = []
    for file in sorted(path.rglob("*.py")):
        code, tree = "", None
        try:
            code = file.read_text(encoding="utf-8")
            tree = ast.parse(code)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            pass
        files.append((file, code, tree))
    dotted = {file: file.relative_to(path).with_suffix("").as_posix().replace("/", ".") for file, _, _ in files}
    modules = {dotted[file]: (code, tree) for file, code, tree in files if tree is not None}  # by dotted name
    for file, code, tree in files:
        rel = file.relative_to(path).as_posix()
        if tree is None:
            out.append(Function(code, "", source=rel, source_id=rel))  # skipped as bad_source, with the parser's word
            continue
        merged = with_siblings(code, tree, modules, dotted[file])
        merged_tree = ast.parse(merged) if merged != code else tree
        for node in tree.body:  # the module's own functions, each with what it needs of the merged text
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                say = given.pop(f"{rel}:{node.name}", {})
                inputs = tuple(say.get("inputs", ())) or doctest_inputs(node)
                out.append(Function(program_of(merged, node.name, merged_tree), node.name, inputs, source=rel,
                                    source_id=f"{rel}:{node.name}", description=say.get("description", "").strip(),
                                    types=tuple(say.get("types", ()))))
    if given:
        raise FromCodeError(f"{path / SIDECAR}: no function {', '.join(sorted(given))} in the folder; "
                            "keys are \"file.py:function\" with the file's path under the folder")
    if not out:
        raise FromCodeError(f"{path}: no functions found (no .py file with a top-level def); point at a folder of .py files")
    return out


def with_siblings(code: str, tree: ast.Module, modules: dict[str, tuple[str, ast.Module]], name: str,
                  seen: frozenset = frozenset()) -> str:
    """Module ``code`` with what it imports from other modules of its folder written in: ``from scheduling import
    parse_hhmm`` becomes the part of ``scheduling.py`` that ``parse_hhmm`` needs (:func:`program_of`, its own
    imports from the folder written in too), above the module's code, and the import line goes. ``modules`` holds
    the folder's modules by dotted name (``name`` is this one's); a relative import (``from .scheduling import``)
    is read from the module's own package. An import with ``as``, a ``*``, or names that the module defines
    itself stays as it is (the function needing it is then given up, with the import's error).

    >>> mods = {"clock": ("def hhmm(t):\\n    return int(t[:2]) * 60\\n", None)}
    >>> code = "from clock import hhmm\\n\\ndef shift(a, b):\\n    return hhmm(b) - hhmm(a)\\n"
    >>> print(with_siblings(code, ast.parse(code), {k: (c, ast.parse(c)) for k, (c, _) in mods.items()}, "rota"))
    def hhmm(t):
        return int(t[:2]) * 60
    <BLANKLINE>
    <BLANKLINE>
    <BLANKLINE>
    def shift(a, b):
        return hhmm(b) - hhmm(a)
    <BLANKLINE>
    """
    seen = seen | {name}
    package = name.rpartition(".")[0]
    own = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in getattr(node, "targets", None) or [node.target]:
                own.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    parts, drop = [], set()
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.level > 1 or not node.module:
            continue
        source = f"{package}.{node.module}" if node.level == 1 and package else node.module
        if source not in modules and package and node.level == 0 and f"{package}.{node.module}" in modules:
            source = f"{package}.{node.module}"  # a script beside its sibling, run from its own folder
        wanted = [a.name for a in node.names]
        if source not in modules or source in seen or any(a.asname or a.name == "*" for a in node.names) or own & set(wanted):
            continue
        sibling_code, sibling_tree = modules[source]
        sibling_code = with_siblings(sibling_code, sibling_tree, modules, source, seen)
        sibling_tree = ast.parse(sibling_code)
        bound = {n.name for n in sibling_tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        if not set(wanted) <= bound | {t.id for n in sibling_tree.body if isinstance(n, ast.Assign)
                                       for t in n.targets if isinstance(t, ast.Name)}:
            continue
        part = program_of(sibling_code, wanted, sibling_tree)
        if own & {n.name for n in ast.parse(part).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} - set(wanted):
            continue  # a helper of the sibling's named as one of this module's
        parts.append(part)
        drop.update(range(node.lineno, node.end_lineno + 1))
    if not parts:
        return code
    kept = [line for i, line in enumerate(code.splitlines(keepends=True), 1) if i not in drop]
    return "\n\n".join(p.rstrip("\n") for p in parts) + "\n\n\n" + "".join(kept)


#: Folders of a package that hold its tests, not its functions.
_TEST_DIRS = {"test", "tests", "testing", "_tests"}


def package_source(name: str) -> tuple[list[tuple[str, Path]], str, str]:
    """``([(module name, file)...], version, license)`` of an installed package or standard-library module
    ``name``, found without importing it (its code is not run here): a top-level name only."""
    import importlib.metadata
    import importlib.util
    import sys

    if not name.isidentifier():
        raise FromCodeError(f"--package {name!r}: give the top-level name of an installed package or module "
                            "(textwrap, colorsys, more_itertools)")
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin in (None, "built-in", "frozen") or not str(spec.origin).endswith(".py"):
        raise FromCodeError(f"--package {name}: no pure-Python package or module of that name is installed here "
                            "(a C extension or a frozen module has no source to read)")
    if spec.submodule_search_locations:
        root = Path(next(iter(spec.submodule_search_locations)))
        files = [f for f in sorted(root.rglob("*.py")) if not (_TEST_DIRS & set(f.relative_to(root).parts[:-1]))]
        modules = [(".".join([name, *f.relative_to(root).with_suffix("").parts]).removesuffix(".__init__"), f) for f in files]
    else:
        modules = [(name, Path(spec.origin))]
    if name in sys.stdlib_module_names:
        return modules, platform.python_version(), "PSF-2.0"
    dists = importlib.metadata.packages_distributions().get(name, [])
    if not dists:
        return modules, "unknown", "unknown"
    meta = importlib.metadata.metadata(dists[0])
    license_ = meta.get("License-Expression") or next(
        (c.rsplit("::", 1)[1].strip() for c in meta.get_all("Classifier") or [] if c.startswith("License ::")), None) \
        or (meta.get("License") or "").strip().splitlines()[0:1] or ["unknown"]
    license_ = license_[0] if isinstance(license_, list) else license_
    return modules, importlib.metadata.version(dists[0]), license_[:80]


def load_package(name: str) -> list[Function]:
    """Every public top-level function of package or module ``name`` (:func:`package_source`), each with the
    part of its module it needs (:func:`program_of`); ``source`` is ``name==version``, ``license`` the package's."""
    modules, version, license_ = package_source(name)
    out = []
    for module, file in modules:
        try:
            code = file.read_text(encoding="utf-8")
            tree = ast.parse(code)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
                out.append(Function(program_of(code, node.name, tree), node.name, doctest_inputs(node), source=f"{name}=={version}",
                                    source_id=f"{module}:{node.name}", license=license_))
    if not out:
        raise FromCodeError(f"--package {name}: no public top-level function in its modules")
    return out


def load(path: str | os.PathLike) -> list[Function]:
    """A JSONL file (:func:`load_jsonl`) or a folder of ``.py`` files (:func:`load_folder`)."""
    path = Path(path)
    if path.is_dir():
        return load_folder(path)
    if path.is_file():
        return load_jsonl(path)
    raise FromCodeError(f"{path}: no such file or folder; give a JSONL file of {{code, entry_point}} or a folder of .py files")


# ---------------------------------------------------------------------------- types


def _entry(code: str | ast.Module, entry: str) -> ast.FunctionDef | None:
    for node in (ast.parse(code) if isinstance(code, str) else code).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry:
            return node
    return None


def settle_types(code: str, entry: str, seed_args: list[tuple]) -> tuple[tuple[str, ...] | None, str | None]:
    """``(param types, None)`` or ``(None, "untyped_param: why")`` for ``entry``'s parameters: each one's
    first candidate (:func:`execverify_data.param_types.candidates`: the annotation if the sampler draws it and
    every seed conforms, else the seed values' types, else what the body does with it). :func:`convert` runs
    the function on draws of the other candidates where a parameter has several (:func:`probe_types`)."""
    from execverify_data.param_types import candidates

    tree = ast.parse(code)
    options = candidates(tree, entry, seed_args)
    why = _untyped(_entry(tree, entry), options, seed_args)
    return (None, why) if why else (tuple(o[0][0] for o in options), None)


def _untyped(fn: ast.FunctionDef, options: list, seed_args: list[tuple]) -> str | None:
    for i, (a, found) in enumerate(zip(fn.args.args, options)):
        if not found:
            how = "no annotation" if a.annotation is None else "an annotation the sampler cannot draw"
            seeds = "seed inputs of no drawable type" if any(i < len(s) for s in seed_args) else "no seed input"
            return f"untyped_param: cannot settle the type of {a.arg!r} ({how}, {seeds}, no telling use)"
    return None


#: Draws of each combination of candidate types a type probe runs, the fewest that must return, and the
#: seconds the sandbox gives one combination's draws (a type that makes the function loop costs no more).
PROBE_DRAWS, PROBE_MIN_RETURNS, PROBE_SECONDS = 6, 2, 2.0


def probe_types(fn: Function, options: list[list[tuple[str, str]]], seed: int, config: FromCodeConfig, pool, *,
                domains: bool, deadline: float | None = None) -> tuple[tuple[str, ...] | None, tuple[str, ...], list[str], str]:
    """Settle the parameters' types (each one's candidates, ``options``) and, with ``domains``, the input
    domains drawn from (:data:`~execverify_data.param_types.DOMAIN_VARIANTS`: sentences, digit strings,
    large numbers...): the combination under which the most of :data:`PROBE_DRAWS` draws return, with the
    most distinct outputs among those (the first such in :func:`~execverify_data.param_types.combinations`
    order), run untraced in the untrusted sandbox, one child per combination, each with what the function's checks
    that raise and its lookups of one parameter in another ask (:func:`~execverify_data.narrowing.guard_proposals`,
    :func:`~execverify_data.narrowing.agreement_proposals`). With ``domains``, where draws
    of the best combination raise, the domains are then narrowed from what raised
    (:func:`execverify_data.narrowing.proposals`: non-empty, non-negative, digit strings, the program's keys...),
    one narrowing at a time, for up to :data:`NARROWING_ROUNDS` rounds, each kept when more draws return or
    give more distinct outputs.

    Returns ``(types, domains, origins, "")``, or ``(None, (), [], why)`` when no combination (and no narrowing
    of the best, and no four times as many draws of the best) returns for :data:`PROBE_MIN_RETURNS` draws."""
    from execverify_data.narrowing import agreement_proposals, guard_proposals, proposals
    from execverify_data.param_types import combinations, hints as hints_of, preferred_domains, variants

    hints = hints_of(fn.code, fn.entry_point)
    best, best_score, best_errors, tried = None, (False, -1, -1), [], []
    firsts = preferred_domains(fn.code, fn.entry_point)
    per_param = [variants([t for t, _ in o], domains=domains, first=first) for o, first in zip(options, firsts)]
    for combo in combinations(per_param):
        if deadline is not None and time.monotonic() >= deadline:
            break
        types, chosen = tuple(t for t, _ in combo), tuple(d for _, d in combo)
        if domains:  # what the checks that raise and the lookups of one parameter in another ask, from the first draws
            chosen = _with_rules(chosen, agreement_proposals(fn.code, fn.entry_point, types)
                                 + guard_proposals(fn.code, fn.entry_point, types))
        score, errors, n = _probe_run(fn, types, chosen, seed, config, pool, hints, deadline, tried)
        if score is None:
            continue
        if score > best_score:
            best, best_score, best_errors = tuple(zip(types, chosen)), score, errors
        if score[2] == n and score[1] >= min(3, n):
            break
    if best is not None and domains:
        types, chosen = tuple(t for t, _ in best), [d for _, d in best]
        for _ in range(NARROWING_ROUNDS):
            gain = None
            for rule in proposals(best_errors, types)[:NARROWING_TRIES]:
                if deadline is not None and time.monotonic() >= deadline:
                    break
                trial = _with_rules(chosen, [rule])
                if trial == tuple(chosen):
                    continue
                score, errors, _ = _probe_run(fn, types, trial, seed, config, pool, hints, deadline, tried)
                if score is not None and score > best_score and (gain is None or score > gain[0]):
                    gain = (score, errors, trial)
            if gain is None:
                break
            best_score, best_errors, chosen = gain[0], gain[1], list(gain[2])
            best = tuple(zip(types, chosen))
            if not best_errors:
                break
    if best is not None and not best_score[0] and best_score[2] > 0 and (deadline is None or time.monotonic() < deadline):
        # a precondition few draws meet (two times of day parsed, then a shift no longer than 12 hours): more draws
        types, chosen = tuple(t for t, _ in best), tuple(d for _, d in best)
        score, _, _ = _probe_run(fn, types, chosen, seed + 1, config, pool, hints, deadline, tried, draws=PROBE_DRAWS * 4)
        if score is not None and score[0]:
            best_score = score
    if best is None or not best_score[0]:
        return None, (), [], f"no draws of the candidate types return (returns of {PROBE_DRAWS} draws: {'; '.join(tried)})"[:400]
    return (tuple(t for t, _ in best), tuple(d for _, d in best),
            ["probe" if len(o) > 1 else o[0][1] for o in options], "")


def _with_rules(chosen, rules: list[tuple[int, str]]) -> tuple[str, ...]:
    """Domain texts ``chosen`` with each ``(parameter index, narrowing)`` of ``rules`` added."""
    from execverify_data.narrowing import with_rule

    out = list(chosen)
    for j, rule in rules:
        out[j] = with_rule(out[j], rule)
    return tuple(out)


#: Rounds of narrowing after the type probe, and the narrowings tried in one round.
NARROWING_ROUNDS, NARROWING_TRIES = 3, 6


def _probe_run(fn: Function, types: tuple[str, ...], chosen: tuple[str, ...], seed: int, config: FromCodeConfig, pool,
               hints, deadline: float | None, tried: list[str], *, draws: int = PROBE_DRAWS) -> tuple[tuple | None, list[str], int]:
    """Run ``draws`` (:data:`PROBE_DRAWS`) draws of ``types`` in domains ``chosen`` in the sandbox: ``(score, errors)``,
    the score ``(enough returned, distinct outputs, returns)`` (None when the sampler cannot draw them) and the
    ``"Type: message"`` of each draw that raised, and the number of draws; a line for the give-up detail goes
    to ``tried``."""
    from execverify_data.inputs import draw_inputs
    from execverify_data.sandbox.untrusted import Status as SandboxStatus
    from execverify_data.values import format_arguments

    try:
        draws = draw_inputs(types, seed, draws, min_size=config.min_size, max_size=config.max_size,
                            hints=hints, domains=chosen)
    except Exception:  # noqa: BLE001 - a type the sampler cannot draw at these sizes
        return None, [], 0
    calls = [f"{fn.entry_point}({format_arguments(args)})" for args in draws]
    most = min(PROBE_SECONDS, config.timeout * len(calls))
    result = pool.run(fn.code, calls, timeout=most if deadline is None else _left(deadline, most))
    ok = result.status is SandboxStatus.OK
    values = [c.value.text for c in result.calls if c.ok] if ok else []
    errors = [c.message for c in result.calls if not c.ok and c.message] if ok else []
    ended = "" if ok else f" ({result.status.value})"
    tried.append(f"{', '.join(t + (f' ({d})' if d else '') for t, d in zip(types, chosen))}: {len(values)}/{len(calls)}{ended}")
    return (len(values) >= PROBE_MIN_RETURNS, len(set(values)), len(values)), errors, len(calls)


# ---------------------------------------------------------------------------- one function


@dataclass(frozen=True)
class FromCodeConfig:
    """Settings of a from-code run.

    Args:
        seed (`int`, defaults to 0): the global seed; function ``i`` draws from ``row_seed(seed, i)``.
        k (`int`, defaults to 5): inputs wanted per function (more when covering every decision takes more).
        min_inputs (`int`, defaults to 3): the fewest a kept function has (``too_few_inputs`` otherwise).
        k_max (`int`, defaults to 8): the most (the inputs that cover the most decisions first).
        candidates (`int`, defaults to 48): candidate inputs run per function (seeds included).
        shard_size (`int`, defaults to 200): functions per shard (the unit of resume).
        max_steps (`int`, defaults to 5000), timeout (`float`, defaults to 5.0): per-call budgets.
        function_seconds (`float`, defaults to 10.0): the wall-clock cap on the whole conversion of one
            function (type probe, candidate runs, traces); past it the function is given up (``time_cap``).
        min_size, max_size (`int`, defaults to 0 and 8): sizes of freshly drawn strings and containers.
        allow_benchmarks (`tuple[str, ...]`): benchmarks not decontaminated against (the input's own).

    :func:`from_code` sets ``n_functions`` (the number of input functions) and ``input_digest`` (a digest of them:
    a resumed run must have the same input) on its copy.
    """

    seed: int = 0
    k: int = 5
    min_inputs: int = 3
    k_max: int = 8
    candidates: int = 48
    shard_size: int = 200
    max_steps: int = 5000
    timeout: float = 5.0
    function_seconds: float = 10.0
    min_size: int = 0
    max_size: int = 8
    allow_benchmarks: tuple[str, ...] = ()
    input_digest: str = field(default="", init=False)
    n_functions: int = field(default=0, init=False)
    tracer: str = field(default="sandbox", init=False)  # every run in the untrusted sandbox (filters.worker_tracer)

    def __post_init__(self) -> None:
        for name in ("k", "min_inputs", "k_max", "candidates", "shard_size", "max_steps"):
            value = getattr(self, name)
            check_int(name, value)
        check_int("seed", self.seed, minimum=0)
        if isinstance(self.function_seconds, bool) or not isinstance(self.function_seconds, (int, float)) \
                or self.function_seconds <= 0:
            raise InvalidArgument(f"function_seconds must be a positive number of seconds, got {self.function_seconds!r}")
        if not self.min_inputs <= self.k <= self.k_max:
            raise InvalidArgument(f"need min_inputs <= k <= k_max, got {self.min_inputs}, {self.k}, {self.k_max}")
        if not 0 <= self.min_size <= self.max_size:
            raise InvalidArgument(f"need 0 <= min_size <= max_size, got {self.min_size}, {self.max_size}")
        object.__setattr__(self, "allow_benchmarks", tuple(sorted(set(self.allow_benchmarks))))

    @property
    def max_rows(self) -> int:
        return self.n_functions

    @property
    def n_programs(self) -> int:
        """The most programs the run keeps (as :class:`~execverify_data.pipeline.RecordRun` reads it): one per function."""
        return self.n_functions

    def identity(self) -> dict:
        # its key stays "n", as in the folders written before the field was named n_functions (they resume)
        data = {"n" if k == "n_functions" else k: v for k, v in asdict(self).items()}
        data["allow_benchmarks"] = list(self.allow_benchmarks)
        data["generator_version"] = FROMCODE_VERSION
        data["python"] = platform.python_version()
        return data


#: Modules whose use means a function reads or changes the world outside its arguments (files, the
#: environment, the clock, processes, the network, the interpreter).
WORLD_MODULES = frozenset({"os", "sys", "io", "pathlib", "shutil", "glob", "tempfile", "socket", "ssl", "http", "urllib",
                           "requests", "subprocess", "multiprocessing", "threading", "asyncio", "signal", "time",
                           "random", "secrets", "uuid", "platform", "getpass", "ctypes", "importlib", "builtins", "inspect",
                           "gc", "sqlite3", "pickle", "shelve", "logging", "webbrowser"})
#: Builtins of the same kind.
WORLD_BUILTINS = frozenset({"open", "input", "__import__", "breakpoint"})  # eval/exec of the arguments stay: the sandbox holds them
#: Methods of :mod:`datetime`'s classes that read the clock or this machine's time zone (the module's date
#: arithmetic is pure; these are not).
WORLD_METHODS = frozenset({"now", "today", "utcnow", "fromtimestamp", "utcfromtimestamp", "astimezone", "timestamp"})


def world_uses(code: str) -> list[str]:
    """What in ``code`` reaches outside the function's arguments: imports of :data:`WORLD_MODULES`, calls
    of :data:`WORLD_BUILTINS` (sorted, without repeats). Re-execution catches what changes between runs;
    this catches what does not change on this machine (a file's bytes, an environment variable).

    >>> world_uses("import os, math\\ndef f(p):\\n    return open(p).read() + os.sep\\n")
    ['import os', 'open()']
    >>> world_uses("from datetime import date\\ndef f(d):\\n    return (date.today() - d).days\\n")
    ['.today()']
    """
    out = set()
    tree = ast.parse(code)
    clock = any(isinstance(n, (ast.Import, ast.ImportFrom)) and "datetime" in
                {getattr(n, "module", None), *(a.name for a in n.names)} for n in ast.walk(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(f"import {a.name}" for a in node.names if a.name.split(".")[0] in WORLD_MODULES)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in WORLD_MODULES:
            out.add(f"from {node.module} import")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in WORLD_BUILTINS:
            out.add(f"{node.func.id}()")
        elif clock and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WORLD_METHODS:
            out.add(f".{node.func.attr}()")
    return sorted(out)


#: The names the canonical text of a standard-library value starts with (``datetime.date(2024, 1, 5)``,
#: ``Decimal('4.50')``, :mod:`execverify_data.values`), and the import that binds each in a row's program.
VALUE_IMPORTS = {"datetime": "import datetime", "Decimal": "from decimal import Decimal"}


#: The type-language names whose values' text starts with one of :data:`VALUE_IMPORTS`.
_VALUE_HEADS = {"date": "datetime", "time": "datetime", "timedelta": "datetime"}


def bind_value_names(code: str, texts: list[str]) -> tuple[str, str | None]:
    """``code`` with the imports that the values in ``texts`` (a row's inputs and outputs, or type-language
    texts such as ``list[date]``) need to run as source beside it: ``import datetime`` for a date where the
    module wrote ``from datetime import date``.
    Returns ``(code, None)``, or ``(code, why)`` when the module binds such a name to something else
    (``from datetime import datetime``: ``datetime.date(2024, 1, 5)`` would not mean a date there).

    >>> bind_value_names("from datetime import date\\n\\ndef f(d):\\n    return d.year\\n", ["datetime.date(2024, 1, 5)", "2024"])[0]
    'import datetime\\nfrom datetime import date\\n\\ndef f(d):\\n    return d.year\\n'
    >>> bind_value_names("from datetime import datetime\\ndef f(d):\\n    return d.date()\\n", ["datetime.date(2024, 1, 5)"])[1]
    "its values are written datetime.date(...) as Python writes them, but the module binds 'datetime' to something else (from datetime import datetime)"
    """
    import io
    import tokenize

    needed: set[str] = set()
    for text in texts:
        if any(name in text for name in ("date", "time", "Decimal")):
            needed |= {_VALUE_HEADS.get(t.string, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
                       if t.type == tokenize.NAME and _VALUE_HEADS.get(t.string, t.string) in VALUE_IMPORTS}
    if not needed:
        return code, None
    tree = ast.parse(code)
    bindings: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bindings.update({a.asname or a.name.split(".")[0]: node for a in node.names})
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bindings[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in getattr(node, "targets", None) or [node.target]:
                bindings.update({n.id: node for n in ast.walk(target) if isinstance(n, ast.Name)})
    def binds(node: ast.AST, name: str) -> bool:  # the import VALUE_IMPORTS names, maybe among others
        want = VALUE_IMPORTS[name].split()  # import datetime | from decimal import Decimal
        if isinstance(node, ast.ImportFrom) and want[0] == "from" and node.module == want[1]:
            return any(a.name == want[3] and (a.asname or a.name) == name for a in node.names)
        return isinstance(node, ast.Import) and want[0] == "import" and any(a.name == want[1] and not a.asname for a in node.names)

    lines = []
    for name in sorted(needed):
        node = bindings.get(name)
        if node is None:
            lines.append(VALUE_IMPORTS[name])
        elif not binds(node, name):
            return code, (f"its values are written {name}{'.date' if name == 'datetime' else ''}(...) as Python writes "
                          f"them, but the module binds {name!r} to something else ({ast.unparse(node)[:60]})")
    at = max([n.end_lineno for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"], default=0)
    source = code.splitlines(keepends=True)
    return "".join(source[:at] + [line + "\n" for line in lines] + source[at:]), None


def _skip(reason: str, detail: str = "") -> tuple[None, dict]:
    return None, {"attempts": 1, reason: 1, **({"why": detail} if detail else {})}


def convert(fn: Function, i: int, config: FromCodeConfig, *, tracer, decon=None,
            pool=None) -> tuple[ProgramRecord | None, dict]:
    """Function ``fn`` (row ``i`` of the run) as a record, or None; and the counts of what happened
    (``{"attempts": 1, reason: 1, "why": detail}`` when skipped). The whole conversion ends within
    ``config.function_seconds`` (and a second or two of the sandbox's grace): the tracer's calls and the
    sandbox's runs get no more than the time left, and a function that ran out of it is ``time_cap``."""
    deadline = time.monotonic() + config.function_seconds
    before = getattr(tracer, "deadline", None)
    if tracer is not None:
        tracer.deadline = deadline
    try:
        record, counts = _convert(fn, i, config, tracer=tracer, decon=decon, pool=pool, deadline=deadline)
    finally:
        if tracer is not None:
            tracer.deadline = before
    if record is None and time.monotonic() >= deadline and "time_cap" not in counts:
        counts = {k: v for k, v in counts.items() if k in ("attempts",) or k.startswith("input_")}
        counts.update(time_cap=1, why=f"its conversion ran past the {config.function_seconds:g} s cap per function")
    return record, counts


def _left(deadline: float, most: float) -> float:
    return max(0.05, min(most, deadline - time.monotonic()))


def _convert(fn: Function, i: int, config: FromCodeConfig, *, tracer, decon, pool,
             deadline: float) -> tuple[ProgramRecord | None, dict]:
    from execverify_data.catalog.usage import entries_used
    from execverify_data.inputs import draw_inputs
    from execverify_data.param_types import candidates, hints as hints_of
    from execverify_data.sandbox.untrusted import Status as SandboxStatus
    from execverify_data.synth.filters import FilterConfig, prescreen, normalized_hash
    from execverify_data.synth.generator import Program
    from execverify_data.trace import Status
    from execverify_data.instrument import OVER_BUDGET
    from execverify_data.seeds import row_seed
    from execverify_data.values import format_arguments, parse_call

    if not fn.code:
        return _skip("bad_source", "no code (the file cannot be read as UTF-8 text)")
    try:
        node = _entry(fn.code, fn.entry_point)
    except (SyntaxError, ValueError) as exc:
        return _skip("bad_source", f"does not parse: {exc}")
    if node is None:
        return _skip("bad_source", f"no top-level function {fn.entry_point!r}")
    a = node.args
    if isinstance(node, ast.AsyncFunctionDef) or node.decorator_list or a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        return _skip("unsupported_signature", "async, decorated, or with *args, **kwargs, keyword-only or positional-only parameters")
    names = tuple(x.arg for x in a.args)
    if not names:
        return _skip("no_params", "a function without parameters has one output")
    tree = ast.parse(fn.code)
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(node)):
        return _skip("state", "it rebinds a global or nonlocal name: its result depends on state, not only its arguments")
    relative = sorted({f"from {'.' * n.level}{n.module or ''} import" for n in ast.walk(tree)
                       if isinstance(n, ast.ImportFrom) and n.level})
    if relative:
        return _skip("relative_import", f"it needs its package's other modules ({', '.join(relative)})")
    touches = world_uses(fn.code)
    if touches:  # it may run the same every time, but on this machine's files, environment or clock
        return _skip("io", f"reaches outside its arguments: {', '.join(touches)}")
    seeds = []
    for text in fn.inputs:
        try:
            _, args, kwargs = parse_call(f"{fn.entry_point}({text})")
        except Exception:  # noqa: BLE001 - not a literal call
            return _skip("bad_seed_input", f"seed input {text!r} is not a literal argument list")
        if kwargs or len(args) != len(names):
            return _skip("bad_seed_input", f"seed input {text!r} does not give the {len(names)} parameters")
        seeds.append(tuple(args))
    if fn.types:
        from execverify_data.inputs import drawable

        bad = [t for t in fn.types if not drawable(t)]
        if len(fn.types) != len(names) or bad:
            return _skip("untyped_param", f"the given types {list(fn.types)} are not one drawable type per parameter "
                                          f"({len(names)}){': cannot draw ' + ', '.join(bad) if bad else ''}")
        options = [[(t, "given")] for t in fn.types]
    else:
        options = candidates(fn.code, fn.entry_point, seeds)
    why = _untyped(node, options, seeds)
    if why:
        return _skip("untyped_param", why.split(": ", 1)[1])
    if decon is not None:
        match = decon.check(fn.code)
        if match is not None:
            return _skip(f"decontam_{match.benchmark}_{match.kind}", f"found in {match.benchmark} ({match.kind})")
    s = row_seed(config.seed, i)
    given = fn
    # the candidate types' values are written datetime.date(...), Decimal('4.50') in the calls the sandbox runs
    # as text beside the program: it binds those names while types and inputs are chosen
    fn = dataclasses.replace(fn, code=bind_value_names(fn.code, [t for o in options for t, _ in o])[0])
    for o in options:  # a parameter whose every candidate type is such a value, which the module cannot spell
        clashes = [bind_value_names(fn.code, [t])[1] for t, _ in o]
        if o and all(clashes):
            return _skip("value_names", clashes[0])
    domains: tuple[str, ...] = ("",) * len(names)
    if (seeds or fn.types) and all(len(o) == 1 for o in options):  # the user says what the function is given
        types, origins = tuple(o[0][0] for o in options), [o[0][1] for o in options]
    else:
        types, domains, origins, why = probe_types(fn, options, s, config, pool or _pool(), domains=not seeds,
                                                   deadline=deadline)
        if types is None:  # the types were known (an annotation): it is the inputs that never returned
            return _skip("too_few_inputs" if all(len(o) == 1 for o in options) else "untyped_param", why)
    program = Program(fn.code, fn.entry_point, types, names, level=0, target="from_code", seed=s)
    try:
        candidates = draw_inputs(types, s, config.candidates, min_size=config.min_size, max_size=config.max_size,
                                 mutation_rate=0.7 if seeds else 0.4, hints=hints_of(fn.code, fn.entry_point), seeds=seeds,
                                 domains=domains)
    except Exception as exc:  # noqa: BLE001 - a seed the mutator cannot edit under the settled type
        return _skip("untyped_param", f"cannot draw inputs of {types}: {type(exc).__name__}")
    counts: dict = {"attempts": 1}
    report: dict = {}
    fconfig = FilterConfig(k=config.k, max_steps=config.max_steps, timeout=config.timeout, max_events=config.max_steps)
    aim = _aimer(fn, types, s, config, deadline)
    picked = prescreen(program, candidates, fconfig, counts, tracer=tracer, best_effort=True, k_max=config.k_max, report=report,
                       aim=aim, rounds=AIM_ROUNDS)
    if report.get("refused"):
        return None, {**counts, "refused": 1, "why": f"refused in the sandbox: {report['refused']}"}
    if isinstance(picked, str):
        counts[picked] = 1
        counts["why"] = f"{picked} after {len(candidates)} candidate inputs"
        return None, counts
    if len(picked) < config.min_inputs:
        return None, {**counts, "too_few_inputs": 1,
                      "why": f"{len(picked)} of {len(candidates)} candidate inputs returned a value"}
    inputs = [format_arguments(args) for args, _ in picked]
    code, clash = bind_value_names(given.code, [*inputs, *(out for _, out in picked)])  # dates and Decimals run as text
    if clash:
        return None, {**counts, "value_names": 1, "why": clash}
    calls = [f"{fn.entry_point}({text})" for text in inputs]
    traces = tracer.trace_many(code, calls)
    for trace, (_, text) in zip(traces, picked):
        if trace.exception is not None and trace.exception.type == "SandboxRefused":
            return None, {**counts, "refused": 1, "why": f"refused in the sandbox: {trace.exception.message}"}
        if trace.status in OVER_BUDGET:
            return None, {**counts, "step_budget": 1, "why": f"traced call ended {trace.status.value}"}
        if trace.status is not Status.OK or trace.output.text != text:
            return None, {**counts, "nondeterministic": 1, "why": "a second traced run gave another result"}
    if not tracer.reproduces(code, calls, traces):
        return None, {**counts, "nondeterministic": 1, "why": "a trace under another hash seed differs"}
    result = (pool or _pool()).run(code, calls, timeout=_left(deadline, config.timeout * len(calls) + 1))
    if result.status is not SandboxStatus.OK:
        return None, {**counts, "sandbox_failed": 1, "why": f"the untrusted sandbox ended {result.status.value}: {result.detail}"[:300]}
    if [c.value.text if c.ok else None for c in result.calls] != [t.output.text for t in traces]:
        return None, {**counts, "nondeterministic": 1, "why": "the untrusted sandbox gave another output"}
    outputs = [t.output.text for t in traces]
    if len(set(outputs)) == 1:
        return None, {**counts, "constant_output": 1,
                      "why": f"every kept input gives {outputs[0][:60]} (the rows would teach a constant)"}
    for j, name in enumerate(names):
        if all(out == format_arguments((args[j],)) for (args, _), out in zip(picked, outputs)):
            return None, {**counts, "returns_input": 1,
                          "why": f"every kept input returns its {name!r} unchanged (the rows would teach the identity)"}
    seed_texts = {format_arguments(x) for x in seeds}
    record = ProgramRecord(
        id=f"fromcode-{config.seed}-{i:07d}", row=i, seed=s, level=0,
        spec={"target": "from_code", "nested_depth": 0, "other_methods": False, "control_flow": [], "helper_depth": 0,
              "n_params": len(names), "min_size": config.min_size, "max_size": config.max_size},
        target="from_code", code=code, entry_point=fn.entry_point, param_types=list(types),
        param_domains=list(domains), inputs=inputs, outputs=[t.output.text for t in traces],
        output_types=[t.output.type for t in traces], trace_lengths=[len(t.events) for t in traces],
        ast_hash=normalized_hash(code), catalog_ids=sorted(entries_used(code)), python=traces[0].python,
        generator_version=FROMCODE_VERSION, generator="from_code", description=fn.description, source=fn.source,
        source_id=fn.source_id,
        input_origins=["seed" if text in seed_texts else "generated" for text in inputs],
        branch_coverage=report.get("branch_coverage"), type_origins=origins, license=fn.license or None,
        branch_coverage_returning=report.get("branch_coverage_returning"))
    counts["generated"] = 1
    return record, counts


#: Rounds of draws aimed at the decision sides no candidate took, the draws of a round, and the sides aimed at in
#: one round; a round starts only while half the function's time cap is left.
AIM_ROUNDS, AIM_DRAWS, AIM_SIDES = 8, 24, 4


def _literals(node: ast.AST, constants: dict[str, list]) -> tuple[list, list]:
    """``(strings, numbers)`` a test compares with: its constants and those of the values the names it reads were
    assigned (``constants``: ``v in FALSE_WORDS``, ``kind == 'fixed'`` after ``kind, value = CODES.get(code)``),
    without the probe's own recorder ids."""
    strs: dict = {}
    numbers: dict = {}
    todo, seen = [node], set()
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id.startswith("_probe_"):
            todo.extend(n.args[1:])  # _probe_record_(id, test): the id is the recorder's
            continue
        if isinstance(n, ast.Name) and n.id in constants and n.id not in seen:
            seen.add(n.id)
            todo.extend(constants[n.id])
        elif isinstance(n, ast.Constant) and type(n.value) is str and len(n.value) <= 30:
            for part in (n.value, *(n.value if 1 < len(n.value) <= 4 and not n.value.isalnum() else ())):
                strs.setdefault(part)  # '#;' (ch in '#;') also as its characters
        elif isinstance(n, ast.Constant) and type(n.value) in (int, float):
            numbers.setdefault(n.value)
        todo.extend(reversed(list(ast.iter_child_nodes(n))))
    return list(strs), list(numbers)


def _aimer(fn: Function, types: tuple[str, ...], seed: int, config: FromCodeConfig, deadline: float):
    """The ``aim`` of :func:`~execverify_data.synth.filters.prescreen` for ``fn``: for each decision side no input
    took (up to :data:`AIM_SIDES` a round), inputs that returned and ran that decision, edited with the literals
    its test compares with and the program's regular expressions (:func:`execverify_data.inputs.aimed`)."""
    from execverify_data.inputs import Hints, aimed
    from execverify_data.synth.coverage import decision_tests

    module = ast.parse(fn.code)
    # what a name a test reads was made from: the module's constants (FALSE_WORDS), the functions' assignments
    # (kind, value = DISCOUNT_CODES.get(code, ...)), followed to their literals
    constants: dict[str, list] = {}
    for node in ast.walk(module):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            for target in getattr(node, "targets", None) or [node.target]:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        constants.setdefault(name.id, []).append(node.value)
    patterns = Hints.of_source(module).patterns
    rounds = iter(range(AIM_ROUNDS))

    def aim(left: list, probe, returned: list) -> list[tuple]:
        r = next(rounds, None)
        if r is None or not returned or deadline - time.monotonic() < config.function_seconds / 2:
            return []
        tests = decision_tests(ast.parse(getattr(probe, "source", fn.code)))
        reached = set().union(*(run.outcomes for _, run in returned))
        # the sides of decisions that ran first (the other side taken), each round on the next of them
        left = sorted(left, key=lambda side: ((side[0], not side[1]) not in reached, side))
        start = r * AIM_SIDES % len(left)
        sides = (left[start:] + left[:start])[:AIM_SIDES]
        everywhere = [_literals(t, constants) for t in tests.values()]
        out: list[tuple] = []
        for j, (i, outcome) in enumerate(sides):
            ran = [a for a, run in returned if (i, not outcome) in run.outcomes]
            strs, numbers = _literals(tests[i], constants) if i in tests else ([], [])
            if not strs and not numbers:  # a test of names only (in_quote == ch): the literals of every test
                strs = list(dict.fromkeys(x for found, _ in everywhere for x in found))
                numbers = list(dict.fromkeys(x for _, found in everywhere for x in found))
            n = AIM_DRAWS // len(sides)
            for half, bases in enumerate((ran, [a for a, _ in returned])):  # those that ran the test, and any
                out += aimed(types, bases, seed + 1000 * (r + 1) + 10 * j + half, n - n // 2 if half else n // 2,
                             strs=strs, numbers=numbers, patterns=patterns)
        return out

    return aim


_POOL = None


def _pool():
    """One untrusted-sandbox pool per process, with one worker (closed at exit)."""
    global _POOL
    if _POOL is None:
        import atexit

        from execverify_data.sandbox.untrusted import UntrustedPool

        _POOL = UntrustedPool(workers=1)
        atexit.register(_POOL.close)
    return _POOL


def fromcode_chunk(config: FromCodeConfig, start: int, functions: list[Function]) -> dict:
    """The work unit: functions ``start, start + 1, ...`` as ``{"rows": [RowOutcome...], "details", "seconds"}``
    (``details``: why each row's function was given up, or None; for ``rejected.jsonl``)."""
    from execverify_data.records import RowOutcome
    from execverify_data.release.engine import decontaminator
    from execverify_data.synth.filters import worker_tracer

    t0 = time.perf_counter()
    tracer = worker_tracer(config.tracer, config.max_steps, config.timeout)
    decon = decontaminator((), 10, 0.5, config.allow_benchmarks)
    rows, details = [], []
    for j, fn in enumerate(functions):
        record, counts = convert(fn, start + j, config, tracer=tracer, decon=decon)
        details.append(counts.pop("why", None))
        rows.append(RowOutcome(start + j, 0, "from_code", counts, record))
    return {"rows": rows, "details": details, "seconds": time.perf_counter() - t0}


def digest(functions: list[Function]) -> str:
    """SHA-256 of the input functions (code, entry point, seed inputs, description), for resume checks."""
    h = hashlib.sha256()
    for fn in functions:
        # a description, types and a license only when given: the folders of inputs without them resume as before
        given = ([fn.description] if fn.description else []) + ([list(fn.types)] if fn.types else []) + \
            ([fn.license] if fn.license else [])
        h.update(json.dumps([fn.code, fn.entry_point, list(fn.inputs), fn.source_id, *given]).encode())
    return h.hexdigest()


def from_code(functions: list[Function], out: str | os.PathLike, *, config: FromCodeConfig | None = None, workers: int = 1,
              progress: Callable[[int, int], None] | None = None) -> dict:
    """Convert ``functions`` into record shards under ``out`` (resuming a killed run); returns the
    summary, also written to ``summary.json`` (the pipeline's summary plus a ``from_code`` section:
    inputs per row, branch coverage, seed inputs kept, and one example per skip reason)."""
    from execverify_data.pipeline import summarize

    if not functions:
        raise FromCodeError("no functions found in the input; give at least one function")
    config = dataclasses.replace(config or FromCodeConfig())
    object.__setattr__(config, "n_functions", len(functions))
    object.__setattr__(config, "input_digest", digest(functions))
    out = Path(out)
    shards.claim_folder(out, config.identity(), hint="use another --out (it holds a run with other input or settings)")
    run = FromCodeRun(config, out, functions, progress)
    t0 = time.perf_counter()
    run.run(workers)
    wall = time.perf_counter() - t0
    summary = summarize(out, config)
    given_up = [entry for stats in shards.read_stats(out, finished_shards_of(out))
                for entry in stats.get("rejected_functions", [])]
    shards.write_atomic(out / "rejected.jsonl", lambda p: p.write_text("".join(json.dumps(e) + "\n" for e in given_up)))
    summary["from_code"] = _extra_summary(out, len(functions), given_up)
    summary["throughput"] = {"this_invocation_seconds": round(wall, 3), "workers": workers,
                             "shards_run": run.start - run.resumed, "shards_resumed": run.resumed}
    shards.write_json(out / "summary.json", summary)
    return summary


class FromCodeRun(RecordRun):
    """A record run over given functions (every function is tried, none is skipped as known), with progress
    counted in functions processed and one example of each skip reason kept (:attr:`why`)."""

    provenance = True

    def __init__(self, config: FromCodeConfig, out: Path, functions: list[Function], progress=None):
        self.functions = functions
        self.done = min(config.n_functions, finished_shards_of(out) * config.shard_size)
        super().__init__(config, out, progress)
        # the function each kept program came from (a duplicate later in the input names it)
        self.first_of = {r.ast_hash: r.source_id for r in shards.read_records(out)} if self.start else {}

    def jobs(self, shard: int) -> list:
        first = shard * self.config.shard_size
        last = min(first + self.config.shard_size, len(self.functions))
        return [(fromcode_chunk, [self.config, a, self.functions[a:min(a + CHUNK_FUNCTIONS, last)]])
                for a in range(first, last, CHUNK_FUNCTIONS)]

    def shard_extra(self, results: list[dict]) -> dict:
        """Each function of the shard given up, with its reason and detail (``rejected.jsonl`` is made from
        them): a duplicate names the function it repeats."""
        given_up, seen = [], dict(self.first_of)
        for chunk in results:
            for row, detail in zip(chunk["rows"], chunk.get("details", [None] * len(chunk["rows"]))):
                fn = self.functions[row.row]
                entry = {"row": row.row, "source_id": fn.source_id, "entry_point": fn.entry_point}
                if row.record is None:
                    reason = next((k for k in row.counts if k not in ("attempts", "generated") and not k.startswith("input_")),
                                  "unknown")
                    given_up.append({**entry, "reason": reason, "detail": detail or ""})
                elif row.record.ast_hash in seen:
                    given_up.append({**entry, "reason": "duplicate",
                                     "detail": f"the same code, names aside, as {seen[row.record.ast_hash]} (kept)"})
                else:
                    seen[row.record.ast_hash] = fn.source_id
        self.first_of = seen
        return {"rejected_functions": given_up}

    def on_result(self, chunk: dict | None) -> None:
        self.done += len(chunk["rows"]) if chunk else 0
        self.show(self.done, self.config.n_functions)

    @property
    def complete(self) -> bool:
        return self.start * self.config.shard_size >= self.config.n_functions


def finished_shards_of(out: Path) -> int:
    return shards.finished_shards(out, *shards.RECORD_MARKERS)


def _extra_summary(out: Path, n: int, given_up: list[dict]) -> dict:
    import pyarrow.parquet as pq

    per_row, coverage, seeds, generated = [], [], 0, 0
    for s in range(finished_shards_of(out)):
        table = pq.read_table(shards.shard_file(out, s, "parquet"), columns=["inputs", "input_origins", "branch_coverage"]).to_pydict()
        per_row += [len(x) for x in table["inputs"]]
        coverage += [c for c in table["branch_coverage"] if c is not None]
        for origins in table["input_origins"]:
            seeds += origins.count("seed")
            generated += origins.count("generated")
    return {
        "functions": n,
        "rows": len(per_row),
        "inputs_per_row": dict(sorted(Counter(per_row).items())),
        "inputs_per_row_mean": round(statistics.mean(per_row), 2) if per_row else None,
        "inputs": {"seed": seeds, "generated": generated},
        "branch_coverage": {
            "rows_with_branches": len(coverage),
            "mean": round(statistics.mean(coverage), 4) if coverage else None,
            "median": statistics.median(coverage) if coverage else None,
            "full": sum(c == 1.0 for c in coverage),
        },
        "given_up": dict(sorted(Counter(e["reason"] for e in given_up).items())),
        # one function given up per reason, with its detail (all of them: rejected.jsonl)
        "examples": {reason: next(f"{e['source_id']}: {e['detail']}" for e in given_up if e["reason"] == reason)
                     for reason in sorted({e["reason"] for e in given_up})},
        "rejected_file": "rejected.jsonl",
    }
