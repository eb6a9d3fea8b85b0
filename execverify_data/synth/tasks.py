"""Purpose-first programs (generator 3.0, levels 3-6): a task, then the spec met inside it.

A program here is a *fold over a stream*: it walks the items of an input (the words of a sentence, the
fields of a line, the numbers of a list, the digits of a number, the characters of a word), narrows them
(a test with a meaning: starts with ``prefix``, is a vowel, is longer than ``limit`` characters), may walk
each item's own parts, and builds one result from what is left: a count, a sum, a list, a string, a tally,
groups, the distinct values, the first match, whether any matches. An ``if``/``elif`` is a classification
of the items whose every class adds to that one result. Each piece carries the English it means
(:mod:`.phrases`), so the program's :attr:`~.generator.Program.description` is composed from the same
plan as its code: it is true by construction, never written afterwards.

The spec's chain is met by the stream's own steps: ``for`` walks items, ``if`` narrows them, ``while``
is a loop the task needs (the digits of a number, the leading items that pass a test, a string cut into
pieces), ``if-elif`` classifies. The target is placed in one of the plan's slots where a use of it does a
step the task needs (the walk, a test, the value folded, the fold's own update or its finish). Every
constant is a parameter or has a meaning in the task (the vowels, a separator); a level-6 helper is a
test or a value with the name of what it does.

>>> from execverify_data.synth.spec import ConstraintSpec
>>> import random
>>> p = compose(ConstraintSpec("str.startswith", control_flow=("for", "if"), n_params=2, nested_depth=0,
...                            other_methods=True), random.Random(3), seed=3)
>>> "startswith" in p.code and p.description.startswith("Return")
True
"""

from __future__ import annotations

import ast
import dataclasses
import random
from dataclasses import dataclass, field
from functools import cache

from execverify_data.astwalk import walk
from execverify_data.synth.code import GenFail, calls_in
from execverify_data.synth.measures import Chains, deepest_call, nested_depth
from execverify_data.synth.phrases import Phrase, phrase_of
from execverify_data.synth.vocab import SLOTS, Form, annotation, forms, param_type

__all__ = ["CHAINS", "Composed", "NoTask", "compose", "places", "supported"]


#: distinct builtins and methods a program may call (CRUXEval's functions call 2.4 on average, HumanEval's 2.2), for
#: both builders; and the share of plans calling exactly MAX_CALLS that are drawn again (a preference for fewer)
MAX_CALLS = 4
FEWER_CALLS = 0.6


class NoTask(GenFail):
    """No purpose-first task realizes this spec (its chain, or its target in any slot)."""


#: the chains a task realizes, per chain length, with how often a drawn spec takes each (levels 3-6)
CHAINS: dict[int, dict[tuple[str, ...], int]] = {
    1: {("for",): 45, ("while",): 20, ("if",): 20, ("if-elif",): 15},
    2: {("for", "if"): 35, ("for", "for"): 15, ("for", "if-elif"): 20, ("for", "while"): 8, ("while", "if"): 12,
        ("while", "if-elif"): 5, ("while", "for"): 5},
    3: {("for", "if", "for"): 12, ("for", "for", "if"): 18, ("for", "if", "if-elif"): 8, ("for", "for", "if-elif"): 14,
        ("for", "while", "if"): 10, ("for", "if", "while"): 6, ("while", "for", "if"): 10, ("while", "if", "for"): 6,
        ("while", "for", "if-elif"): 6},
}


def supported(chain: tuple[str, ...]) -> bool:
    """Whether a task realizes ``chain``."""
    return tuple(chain) in CHAINS.get(len(chain), {})


# ------------------------------------------------------------------------------------------ the plan's parts


@dataclass(frozen=True)
class Source:
    """What the entry point walks: a parameter of ``grain`` whose items are of ``item`` grain."""

    grain: str
    item: str
    head: str  # the loop's iterable, over {p} (and {sep})
    noun: str  # the items, in English, over {p}
    name: str  # the parameter's name
    var: str  # the item's name
    note: str = ""  # how the walk goes, when not in the input's order ("taken in sorted order")


SOURCES = (
    Source("words", "word", "{p}", "the words in {p}", "words", "word"),
    Source("text", "word", "{p}.split()", "the words of {p}", "text", "word"),
    Source("line", "word", "{p}.split({sep})", "the fields of {p} separated by {sep}", "line", "field"),
    Source("nums", "num", "{p}", "the numbers in {p}", "nums", "num"),
    Source("tnums", "num", "{p}", "the numbers in {p}", "values", "value"),
    Source("word", "char", "{p}", "the characters of {p}", "word", "ch"),
    Source("amounts", "amount", "{p}", "the amounts in {p}", "prices", "price"),
    Source("table", "word", "{p}", "the keys of {p}", "stock", "name"),
    Source("twords", "word", "{p}", "the words in {p}", "names", "name"),
    Source("blob", "blob", "{p}.split({bsep})", "the pieces of {p} separated by {bsep}", "data", "chunk"),
    Source("blob", "blob", "{p}.split()", "the pieces of {p} separated by whitespace", "data", "chunk"),
    Source("blob", "blob", "filter(None, {p}.split({bsep}))", "the non-empty pieces of {p} separated by {bsep}",
           "data", "chunk"),
    Source("tags", "word", "sorted({p})", "the words in {p}", "tags", "tag", "taken in sorted order"),  # (a set)
    Source("ids", "num", "sorted({p})", "the numbers in {p}", "ids", "ident", "taken in increasing order"),
    # walks in another order than the input's, for the folds whose result keeps their order (:data:`_IN_ORDER`)
    Source("text", "word", "sorted({p}.split())", "the words of {p}", "text", "word", "taken in sorted order"),
    Source("text", "word", "reversed({p}.split())", "the words of {p}", "text", "word", "from the last to the first"),
    Source("words", "word", "sorted(set({p}))", "the distinct words in {p}", "words", "word",
           "taken in sorted order"),
    Source("nums", "num", "sorted({p}, reverse=True)", "the numbers in {p}", "nums", "num",
           "taken from the largest to the smallest"),
    Source("count", "count", "range(1, {p} + 1)", "the whole numbers from 1 to {p}", "n", "k"),
    Source("text", "count", "map(len, {p}.split())", "the lengths of the words of {p}", "text", "size"),
    Source("word", "count", "map(ord, {p})", "the character codes of {p}", "word", "code"),
    Source("number", "count", "map(int, str(abs({p})))", "the digits of {p}", "n", "digit", "from the first"),
    Source("table", "count", "{p}.values()", "the quantities in {p}", "stock", "qty"),
    Source("text", "char", "{p}", "the characters of {p}", "text", "ch"),
    Source("word", "char", "reversed({p})", "the characters of {p}", "word", "ch", "from the last to the first"),
    Source("word", "char", "sorted({p})", "the characters of {p}", "word", "ch", "taken in sorted order"),
    Source("nums", "num", "sorted({p})", "the numbers in {p}", "nums", "num", "taken in increasing order"),
    Source("nums", "num", "reversed({p})", "the numbers in {p}", "nums", "num", "from the last to the first"),
    Source("words", "word", "sorted({p})", "the words in {p}", "words", "word", "taken in sorted order"),
    Source("words", "word", "reversed({p})", "the words in {p}", "words", "word", "from the last to the first"),
    Source("line", "word", "filter(None, {p}.split({sep}))", "the non-empty fields of {p} separated by {sep}", "line",
           "field"),
    Source("number", "char", "str(abs({p}))", "the digits of {p}", "n", "ch", "as characters, from the first"),
    # nested data, whose items have parts of their own to walk
    Source("doc", "text", "{p}.splitlines()", "the lines of {p}", "text", "line"),
    Source("grid", "nums", "{p}", "the rows of {p}", "rows", "row"),
)
#: the sources of nested data, which a walk of each item's parts takes NESTED_DATA of the time
_NESTED = frozenset(s for s in SOURCES if s.grain in ("doc", "grid"))
NESTED_DATA = 0.3
#: whether a source's walk calls a call (``sorted(text.split())``)
_DEEP_WALK = {s: nested_depth(s.head.format(p="p", sep="sep", bsep="bsep")) >= 1 for s in SOURCES}
#: the folds whose result keeps the order the items are walked in (a walk in another order is for them only)
_IN_ORDER = ("collect", "join", "build", "first", "group")

#: item grain -> (the parts walked by a nested ``for``: iterable over {v}, English over {one}, item grain, var)
PARTS = {
    "word": ("{v}", "the characters of {one}", "char", "ch"),
    "blob": ("{v}", "the bytes of {one}", "byte", "byte"),
    "text": ("{v}.split()", "the words of {one}", "word", "word"),
    "nums": ("{v}", "the numbers of {one}", "num", "x"),
}

#: slot -> the parameter it becomes (name, grain)
_SLOT_PARAMS = {"prefix": ("prefix", "fragment"), "suffix": ("suffix", "fragment"), "char": ("letter", "char"),
                "sub": ("part", "fragment"), "k": ("limit", "limit"), "m": ("divisor", "count"),
                "w": ("width", "count"), "i": ("start", "count"), "sep": ("sep", "sepchar"),
                "chars": ("chars", "fragment")}
#: slots whose literal has a meaning of its own in a task (a separator, a fill character, a width)
_MEANINGFUL_LITERALS = frozenset({"sep", "bsep", "fill", "w"})
#: grains a test may be made of, for each item grain the stream has
_TESTED = {"word": ("word",), "char": ("char",), "num": ("num",), "amount": ("amount",), "blob": ("blob",),
           "count": ("count",), "byte": ("byte",)}
#: how one item is named in English, by its variable where that is a word
_ONE_BY_VAR = {"name": "name", "field": "field", "chunk": "piece", "piece": "piece", "tag": "word", "price": "price",
               "ident": "number", "k": "number", "digit": "digit", "ch": "character", "word": "word", "num": "number",
               "value": "number", "count": "count", "term": "term", "bit": "bit", "rest": "number",
               "size": "length", "code": "code", "qty": "quantity", "line": "line", "row": "row", "x": "number"}
#: how one item is named in English, by item grain
_ONE = {"word": "word", "char": "character", "num": "number", "amount": "amount", "blob": "piece", "digit": "digit",
        "byte": "byte", "count": "number", "text": "line", "nums": "row"}


@dataclass
class _Item:
    var: str
    grain: str  # the grain forms are looked up by (digit -> count)
    noun: str  # the stream, in English (plural)
    one: str  # one item, in English
    extra: tuple = ()  # (var, grain, English) of a value walked with the item (its position, its count)
    filtered: bool = False  # the noun ends with a test ("... that start with `prefix`")
    note: str = ""  # how the walk goes, said after the tests ("from the last to the first")
    tested: tuple = ()  # (head, has a parameter) of each test made of the item
    ordered: bool = False  # walked in an order of the task's own: only a fold that keeps it has a use for it
    outer: str = ""  # for the parts of each item of an outer walk: "of each of the words in `words`", said last

    def narrowed(self, phrase: str) -> str:
        """The noun with a test's ``phrase`` said of these items, before the walk they come from ("the digits that
        are odd of each of the numbers in `nums`", never "the digits of each of the numbers ... that are odd")."""
        head = self.noun[: -len(self.outer) - 1] if self.outer else self.noun
        head = f"{head} and {phrase}" if self.filtered else f"{head} that {phrase}"
        return f"{head} {self.outer}" if self.outer else head

    @property
    def digit(self) -> bool:
        """A decimal or binary digit (0-9, 0-1): no one writes it in hex, as bytes or counts its bits."""
        return self.var in ("digit", "bit")

    def __post_init__(self) -> None:
        self.one = _ONE_BY_VAR.get(self.var, self.one)

    @property
    def said(self) -> str:
        """The stream in English, its tests and then how it is walked."""
        return f"{self.noun}, {self.note}" if self.note else self.noun


@dataclass
class _Plan:
    rng: random.Random
    target: str
    n_params: int
    params: list = field(default_factory=list)  # (name, grain)
    literals: dict = field(default_factory=dict)  # slot -> the text it has in the code
    placed: bool = False
    depth: int = 0  # the nested-call depth the spec wants
    reached: int = 0  # the nested-call depth of what is written so far (a walk ``sorted(set(words))``, a test)
    calls: set = field(default_factory=set)  # the builtins and methods called so far (``len``, ``.split``)
    singulars: dict = field(default_factory=dict)  # a test's plural English -> its singular
    free: bool = False  # up to n_params parameters, as many as the task takes
    role: str = ""  # where the target goes: test, value, walk, fold or finish
    starts: tuple = ()  # the ways the first step may walk (:func:`_paths`) that give the target its step
    chain: tuple = ()
    wants_helper: bool = False
    helper_slot: str = ""  # where a level-6 helper goes: a test or a value
    last_test: tuple = ("", False)  # (head, has a parameter) of the last test made
    value_form: Form | None = None  # the target's value, chosen before the fold that takes it
    helper: tuple | None = None  # (name, params, body lines, returns)
    tests: list = field(default_factory=list)  # (code, item, form) of each test written, a helper's to hold
    tail: tuple = ()  # the statements that end a while's body (``rest //= 10``)
    nest: tuple | None = None  # (line, indentation, outer item) where a loop over an item's own parts starts

    def singular(self, plural: str) -> str:
        """The singular of a test's plural English, as its phrase says it ("is a lower-case vowel")."""
        return self.singulars.get(plural) or _singular(plural)

    def reach(self, text: str) -> str:
        """``text``, written: the depth it reaches is noted (a value need not call a call once a test does)."""
        self.reached = max(self.reached, nested_depth(text))
        self.calls |= calls_in(text)
        return text

    def deeper(self, wraps: bool) -> int:
        """The nested-call depth a value still needs (one less where the update passes it to a call; -1: none, the
        item itself will do)."""
        return self.depth - (1 if wraps else 0) if self.reached < self.depth else -1

    def slot(self, name: str, *, may_literal: bool) -> tuple[str, str]:
        """The code text and English of slot ``name``: a parameter while the spec wants one, else a literal."""
        if name in self.literals:
            return self.literals[name]
        if name in _SLOT_PARAMS and len(self.params) < self.n_params:
            pname, grain = _SLOT_PARAMS[name]
            self.params.append((pname, grain))
            self.literals[name] = (pname, f"`{pname}`")
        elif name in _MEANINGFUL_LITERALS:
            value = self.rng.choice(SLOTS[name].pool)
            self.literals[name] = (repr(value), f"{value!r}" if not isinstance(value, bytes) else repr(value))
        else:
            raise GenFail(f"slot {name} would be an arbitrary constant")
        return self.literals[name]

    def fill(self, form: Form, x: str, x_en: str, *, may_literal: bool = False, grain: str | None = None,
             y: str = ""):
        """The use of ``form`` on the code ``x`` (English ``x_en``, grain ``grain``): its code, its phrase and
        the English of its slots."""
        ph = _TASK_PHRASES.get(form) or phrase_of(form, grain)
        if ph is None:
            raise GenFail(f"no plain use of {form.text}")
        code_slots, en_slots = {}, {}
        for s in form.slots:
            code_slots[s], en_slots[s] = self.slot(s, may_literal=may_literal and SLOTS[s].type != "int")
        if form.head == self.target:
            self.placed = True
        text, _ = form.write(x, y, **code_slots)
        self.calls |= calls_in(text)
        return text, ph, en_slots

    def fillable(self, form: Form, *, may_literal: bool) -> bool:
        """Whether every slot of ``form`` can be filled: a parameter while the spec wants one more, or a literal
        that has a meaning of its own (or any literal, for values, where ``may_literal``)."""
        free = self.n_params - len(self.params)
        for s in form.slots:
            if s in self.literals or s in _MEANINGFUL_LITERALS:
                continue
            if s in _SLOT_PARAMS and free > 0:
                free -= 1
                continue
            return False
        return True

    def pick(self, options: list, *, role: str, may_literal: bool = False):
        """A form among ``options`` for a step of ``role``: the target's own where the plan puts it there."""
        options = [f for f in options if self.fillable(f, may_literal=may_literal)]
        if not options:
            raise GenFail("no form fits")
        mine = [f for f in options if f.head == self.target]
        if mine and not self.placed and role == self.role:
            return self.rng.choice(mine)
        others = [f for f in options if f.head != self.target] or options
        if len(self.calls) >= 3 and self.rng.random() < 0.8:  # people reuse the calls they have made (MAX_CALLS)
            others = [f for f in others if _form_calls(f) <= self.calls] or others
        if len(self.params) < self.n_params and not self.free:  # a use with a parameter while the spec wants one
            lifted = [f for f in others if any(s in _SLOT_PARAMS and s not in self.literals for s in f.slots)]
            if lifted and self.rng.random() < 0.7:
                return self.rng.choice(lifted)
        return self.rng.choice(others)


@cache
def _form_calls(form: Form) -> frozenset[str]:
    return calls_in(form.text)


def _usable(form: Form) -> bool:
    return not form.y and not form.guard and phrase_of(form) is not None


@cache
def _forms(role: str, grain: str) -> tuple[Form, ...]:
    return tuple(f for f in forms(role=role, on=grain) if _usable(f))


def form_grain(form: Form, grain: str) -> str | None:
    """``grain`` if ``form`` applies to it, else None (a test of a digit is looked up among the counts')."""
    return grain if grain in form.on else None


def _say(template: str, x_en: str, slots: dict[str, str]) -> str:
    return template.format(x=x_en, **slots)


# ------------------------------------------------------------------------------------------ composing


def compose(spec, rng: random.Random, *, seed: int, tries: int = 12, free_params: bool = False) -> Composed:
    """A purpose-first program meeting ``spec`` (levels 3-6), or :class:`NoTask`. With ``free_params`` the task takes
    as many parameters as it needs, up to two, whatever ``spec.n_params`` says (a spec is then made to fit it)."""
    from execverify_data.synth.spec import level_of

    if not supported(spec.control_flow):
        raise NoTask(f"no task realizes the chain {spec.control_flow}")
    last: Exception | None = None
    for _ in range(tries):
        plan = _Plan(random.Random(rng.getrandbits(64)), spec.target, 2 if free_params else spec.n_params,
                     wants_helper=spec.helper_depth > 0, depth=spec.nested_depth, free=free_params)
        try:
            program = _build(plan, spec, level_of(spec), seed)
        except NoTask:
            raise
        except GenFail as exc:
            last = exc
            continue
        return program
    raise NoTask(f"no task placed {spec.target} in the chain {spec.control_flow}: {last}")


@dataclass(frozen=True)
class Composed:
    """A composed program's parts, which :func:`~.generator.generate` makes a ``Program`` of."""

    code: str
    entry_point: str
    param_types: tuple[str, ...]
    param_names: tuple[str, ...]
    helpers: tuple[str, ...]
    param_domains: tuple[str, ...]
    description: str


#: the ways a top-level ``while`` walks: kind -> the grain of its items
_TOP_WHILES = {"digits": "count", "budget:words": "word", "budget:nums": "num", "pieces": "word", "collatz": "num",
               "bpieces": "blob", "bits": "count", "halves": "count"}


def _paths(chain: tuple[str, ...]) -> list[tuple[str, tuple[str, ...], tuple[tuple[int, str], ...]]]:
    """Every way the steps of ``chain`` can walk the data: ``(start, grains, tests)``, where ``start`` names the
    first step's source (``src:text``, ``while:digits``), ``grains[k]`` is the item grain inside step ``k`` and
    ``tests`` the (step, grain) of every test the steps make."""
    if chain[0] == "for":
        starts = [(f"src:{s.grain}", s.item, ()) for s in SOURCES]
    elif chain[0] == "while":
        starts = [(f"while:{k}", g, ()) for k, g in _TOP_WHILES.items()
                  if len(chain) == 1 or not k.endswith("pieces")]  # (pieces are the result, never tested or walked)
    else:
        return []
    out = []
    for start, grain, tests in starts:
        grains, tests, ok = [grain], list(tests), True
        for k, step in enumerate(chain[1:], 1):
            if step == "for":
                ok = grain in PARTS
                grain = PARTS[grain][2] if ok else grain
            elif step == "while":
                ok = grain in ("num", "word")
                if grain == "word":
                    tests.append((k, "char"))
                grain = {"num": "count", "word": "char"}.get(grain, grain)
            else:
                tests.append((k, grain))
                ok = step == "if" or k == len(chain) - 1
            if not ok:
                break
            grains.append(grain)
        if ok:
            out.append((start, tuple(grains), tuple(tests)))
    return out


def _tested(grain: str) -> tuple[str, ...]:
    return _TESTED.get(grain, (grain,))


@cache
def _roles(target: str, chain: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Where ``target`` can do a step of a task with ``chain``: role (test, value, walk, fold, finish) -> the starts
    (:func:`_paths`) under which it can."""
    out: dict[str, tuple[str, ...]] = {}
    tests = {g for f in forms(head=target, role="pred") if _usable(f) and _fillable(f) for g in f.on}
    values = {g for r in ("measure", "map") for f in forms(head=target, role=r)
              if not f.y and phrase_of(f) is not None and _guard_phrase(f) is not None and _fillable(f) for g in f.on}
    paths = _paths(chain)
    starts = {
        "test": [st for st, _, ts in paths if any(set(_tested(g)) & tests for _, g in ts)],
        "value": [st for st, gs, _ in paths if gs[-1] in values],
        "fold": [st for st, _, _ in paths] if target in _FOLD_OF_TARGET else [],
        "finish": ([st for st, _, _ in paths if chain[-1] != "if-elif"]
                   if any(f.head == target for g in ("nums", "words") for f in _finishes(g)) else []),
    }
    after = chain[1] if len(chain) > 1 else None
    if chain[0] == "for" and any((f.gives, g) in _WALKED and _fits(_WALKED[f.gives, g][0], after)
                                 for f in forms(head=target, role="parts") if _walks(f) for g in f.on):
        starts["walk"] = ["walk"]
    for role, found in starts.items():
        if found:
            out[role] = tuple(dict.fromkeys(found))
    return out


def _fillable(form: Form) -> bool:
    """Whether some plan can fill every slot of ``form``: each a parameter (one at most, beside the walked one) or a
    literal with a meaning of its own (``word.replace(old, new)`` takes two parameters: no task has room)."""
    lifted = [s for s in form.slots if s not in _MEANINGFUL_LITERALS]
    return all(s in _SLOT_PARAMS for s in lifted) and len(lifted) <= 1


def _walks(form: Form) -> bool:
    """A parts form a task walks: pairs only from ``enumerate`` (a zip of neighbours is another task)."""
    return _usable(form) and (form.gives != "pairs" or form.head == "builtin.enumerate")


def _fits(item: str, after: str | None) -> bool:
    return (after != "for" or item in PARTS) and (after != "while" or item in ("num", "word"))


def places(target: str, chain: tuple[str, ...]) -> bool:
    """Whether a task with ``chain`` has a step ``target`` can do (a length-1 ``if`` or ``if-elif`` chain: a test or a
    value of the input)."""
    if chain in (("if",), ("if-elif",)):
        return bool(_branch_roles(target))
    return bool(_roles(target, tuple(chain)))


#: what a task without a loop takes: grain -> its parameter's name
_BRANCHED = {"word": "word", "text": "text", "num": "value", "blob": "data", "line": "line"}


@cache
def _branch_roles(target: str) -> dict[str, tuple[str, ...]]:
    """Where ``target`` can do a step of a task without a loop: role (the test, or the value returned) -> the grains
    of the input it can do it on."""
    out = {}
    for role, kinds in (("test", ("pred",)), ("value", ("map", "measure"))):
        grains = [g for k in kinds for f in forms(head=target, role=k) if _usable(f) and _fillable(f)
                  for g in f.on if g in _BRANCHED and (role == "test" or f.gives_on(g) == g)]
        if grains:
            out[role] = tuple(dict.fromkeys(grains))
    return out


def _build(plan: _Plan, spec, level: int, seed: int) -> Composed:
    chain = spec.control_flow
    rng = plan.rng
    body: list[str] = []
    plan.chain = chain
    plan.helper_slot = rng.choice(("test", "value"))
    if chain in (("if",), ("if-elif",)):
        roles = _branch_roles(spec.target)
        if not roles:
            raise NoTask(f"{spec.target} is neither a test nor a value of a word, a text, a line, a number or bytes")
        plan.role = rng.choice(sorted(roles))
        plan.starts = roles[plan.role]
    else:
        roles = _roles(spec.target, chain)
        if not roles:
            raise NoTask(f"{spec.target} has no step in a task with the chain {chain}")
        plan.role = rng.choice(sorted(roles))
        plan.starts = roles[plan.role]
    if chain in (("if",), ("if-elif",)):
        desc, ret_grain = _branch_task(plan, chain, body)
        returns, kind = annotation(ret_grain), "branch"
    else:
        item, steps = _stream(plan, chain, body)
        desc, returns, kind = _fold(plan, item, steps, body)
    if not plan.placed:
        raise GenFail(f"{spec.target} found no slot")
    if plan.wants_helper and plan.helper is None:  # a test written becomes the helper named for what it tests
        _test_helper(plan, body)
    if len(plan.params) != spec.n_params and not plan.free:
        raise GenFail(f"{len(plan.params)} parameters for a spec of {spec.n_params}")
    name = f"{_VERBS[kind]}_{plan.params[0][0]}"
    sig = ", ".join(f"{p}: {annotation(g)}" for p, g in plan.params)
    lines = []
    helpers = ()
    if plan.helper is not None:
        hname, hparams, hbody, hret = plan.helper
        lines += [f"def {hname}({hparams}) -> {hret}:", *("    " + b for b in hbody), ""]
        helpers = (hname,)
    lines += [f"def {name}({sig}) -> {returns}:", *("    " + b for b in body)]
    code = "\n".join(lines) + "\n"
    if level == 6 and not helpers:
        raise GenFail("no helper")
    calls = len(calls_in(code))  # people reuse a handful of builtins and methods (CRUXEval 2.4 a function)
    if calls > MAX_CALLS or (calls == MAX_CALLS and rng.random() < FEWER_CALLS):
        raise GenFail(f"{calls} distinct builtins and methods")
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:  # a call put inside an f-string of the same quotes (3.11)
        raise GenFail(f"not Python: {exc.msg}") from None
    nodes = walk(tree)
    depth, _ = deepest_call(tree, nodes)
    if depth < spec.nested_depth:
        raise GenFail(f"nested depth {depth} < {spec.nested_depth}")
    if Chains(code, tree).find(chain) is None:
        raise GenFail("control-flow chain not realized")
    _names_once(nodes, {p for p, _ in plan.params})
    return Composed(code, name, tuple(param_type(g) for _, g in plan.params), tuple(p for p, _ in plan.params), helpers,
                    tuple(g for _, g in plan.params), desc)


def _names_once(nodes: list[ast.AST], params: set[str]) -> None:
    """No name is bound twice (``counts = {}`` beside a parameter named counts, a loop variable assigned), and every
    name a loop binds is read (``for name, qty in ...`` reads ``qty``)."""
    assigned, looped = set(), set()
    for n in nodes:
        if isinstance(n, (ast.Assign, ast.AugAssign)):
            assigned |= {t.id for t in walk(n.targets[0] if isinstance(n, ast.Assign) else n.target)
                         if isinstance(t, ast.Name) and not isinstance(t.ctx, ast.Load)}  # (not ``d[key] = ...``'s key)
        elif isinstance(n, ast.For):
            bound = {t.id for t in walk(n.target) if isinstance(t, ast.Name)}
            looped |= bound
            read = {t.id for st in n.body for t in walk(st) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Load)}
            if bound - read:
                raise GenFail(f"the loop never reads {min(bound - read)}")
    twice = (assigned & params) | (looped & (assigned | params))
    if twice:
        raise GenFail(f"a name bound twice: {sorted(twice)}")


#: the entry point's name, by what it computes, before the name of what it walks
_VERBS = {"count": "count", "total": "total", "collect": "collect", "build": "build_from", "join": "join",
          "tally": "tally", "group": "group", "distinct": "distinct", "first": "first_in", "any": "any_in",
          "largest": "largest_in", "mean": "average_of", "common": "common_letters", "union": "characters_in",
          "classify": "classify",
          "classify_build": "rewrite", "classify_total": "sums_of", "branch": "adjust", "product": "product_of",
          "xor": "checksum_of"}


#: a walk's items, by what the parts form gives and the grain it walks: (item grain, var, extra (var, grain, English))
_WALKED = {
    ("words", "text"): ("word", "word", None), ("words", "line"): ("word", "field", None),
    ("words", "word"): ("char", "ch", None), ("blobs", "blob"): ("blob", "chunk", None),
    ("pairs", "word"): ("char", "ch", ("i", "count", "its position")),
    ("pairs", "text"): ("char", "ch", ("i", "count", "its position")),
    ("pairs", "words"): ("word", "word", ("i", "count", "its position")),
    ("pairs", "nums"): ("num", "num", ("i", "count", "its position")),
    ("nums", "count"): ("count", "k", None),
    ("keys", "table"): ("word", "name", None), ("keys", "names"): ("num", "ident", None),
    ("nums", "table"): ("count", "count", None), ("words", "names"): ("word", "name", None),
    ("items", "table"): ("word", "name", ("qty", "count", "its quantity")),
    ("items", "names"): ("num", "ident", ("name", "word", "its name")),
}
#: the name of a walked parameter, by grain
_PARAM_NAME = {"text": "text", "line": "line", "word": "word", "blob": "data", "words": "words", "nums": "nums",
               "count": "n", "table": "stock", "names": "names"}


def _source(plan: _Plan, after: str | None) -> tuple[str, _Item]:
    """The walked parameter (first of the signature) and the loop's iterable, fitting the step ``after`` the
    walk (a nested ``for`` needs items with parts, a nested ``while`` numbers or words) and, most often, a
    grain the target has a use on."""
    rng = plan.rng
    walks = [(f, g) for f in forms(head=plan.target, role="parts") if _walks(f) for g in f.on
             if (f.gives, g) in _WALKED and _fits(_WALKED[f.gives, g][0], after)]
    if walks and plan.role == "walk":
        form, grain = rng.choice(walks)
        name = _PARAM_NAME[grain]
        plan.params.insert(0, (name, grain))
        code, ph, slots = plan.fill(form, name, f"`{name}`", may_literal=True, grain=grain)
        item, var, extra = _WALKED[form.gives, grain]
        if extra:
            head = f"{extra[0]}, {var} in {code}" if form.gives == "pairs" else f"{var}, {extra[0]} in {code}"
        else:
            head = f"{var} in {code}"
        plan.reach(code)
        return head, _Item(var, item, _say(ph.plural, f"`{name}`", slots), _ONE.get(item, "item"),
                     (extra,) if extra else ())
    options = [s for s in SOURCES if _fits(s.item, after)]
    liked = [s for s in options if f"src:{s.grain}" in plan.starts] or options
    nested = [s for s in liked if s in _NESTED]
    if after == "for" and nested and rng.random() < NESTED_DATA:  # nested loops walk nested data
        liked = nested
    deep = [s for s in liked if _DEEP_WALK[s]]
    if deep and plan.depth > plan.reached and rng.random() < 0.35:  # the walk is where the spec's call on a call goes
        liked = deep
    elif plan.chain[-1:] == ("if-elif",) and plan.depth > plan.reached and rng.random() < 0.7:
        # a classification into classes people use (:data:`_CLASSES`) makes no call on a call: the walk does
        liked = [s for s in deep if not s.note and s.item in _CLASSES] or liked
    src = rng.choice(liked)
    plan.params.insert(0, (src.name, src.grain))
    slots = {}
    for s in ("sep", "bsep"):
        if "{" + s + "}" in src.head:
            slots[s] = plan.slot(s, may_literal=True)
    code = src.head.format(p=src.name, **{k: v[0] for k, v in slots.items()})
    noun = src.noun.format(p=f"`{src.name}`", **{k: v[1] for k, v in slots.items()})
    if src.head.startswith("sorted") and plan.target == "builtin.sorted":
        plan.placed = True
    if ".split(" in src.head and plan.target == ("bytes.split" if src.grain == "blob" else "str.split"):
        plan.placed = True
    # (a set has no order of its own to keep, and a number's digits are read from the first)
    reordered = src.note and src.grain not in ("tags", "ids", "number")
    return f"{src.var} in {plan.reach(code)}", _Item(src.var, src.item, noun, _ONE.get(src.item, "item"), note=src.note,
                                         ordered=bool(reordered))


def _stream(plan: _Plan, chain: tuple[str, ...], body: list[str]):
    """The statements of ``chain`` down to the fold (``body`` gets them, indented), and the innermost item.
    ``steps`` is what the fold needs to know: the innermost block's indentation and the last step."""
    indent = ""
    item = None
    steps = []
    for k, step in enumerate(chain):
        last = k == len(chain) - 1
        if step == "for":
            if item is None:
                head, item = _source(plan, chain[k + 1] if not last else None)
                body.append(f"{indent}for {head}:")
            else:
                if item.grain not in PARTS:
                    raise GenFail(f"a {item.grain} has no parts to walk")
                it, en, grain, var = PARTS[item.grain]
                plan.nest = (len(body), indent, item)
                body.append(f"{indent}for {var} in {it.format(v=item.var)}:")
                outer = "of each of " + item.said
                item = _Item(var, grain, en.format(one="each of " + item.said), _ONE.get(grain, "item"),
                             ordered=item.ordered, outer=outer if en.endswith(" of {one}") else "")
            indent += "    "
        elif step == "while":
            if item is not None:
                plan.nest = (len(body), indent, item)
            item, indent = _while(plan, item, indent, body, chain[k + 1] if not last else None)
        elif step == "if":
            if item is None:
                raise GenFail("an outer if has no stream")
            test, phrase = _test(plan, item, walked=not last and chain[k + 1] in ("for", "while"))
            body.append(f"{indent}if {test}:")
            item = _Item(item.var, item.grain, item.narrowed(phrase), item.one, item.extra, filtered=True,
                         note=item.note, tested=item.tested + (plan.last_test,), ordered=item.ordered,
                         outer=item.outer)
            indent += "    "
            steps.append("if")
        elif step == "if-elif":
            if not last:
                raise GenFail("a classification is the innermost step")
            steps.append("if-elif")
    return item, (indent, steps)


def _while(plan: _Plan, item: _Item | None, indent: str, body: list[str], after: str | None):
    """A loop the task needs: over the digits of a number, the leading items that fit a budget, a string cut into
    pieces (at the top); the digits of each number or the leading characters of each word (inside a walk)."""
    rng = plan.rng
    if item is None:
        liked = [k for k in _TOP_WHILES if f"while:{k}" in plan.starts]
        if after is not None:  # a string cut into pieces is a task when the pieces are the result (lines of a width);
            # pieces tested or walked character by character are a puzzle (readers: "fixed 3- or 4-character chunks
            # filtered by contrived rules")
            liked = [k for k in liked or _TOP_WHILES if not k.endswith("pieces")]
            if not liked:
                raise GenFail("pieces tested or walked: a puzzle, not a task")
        kind = rng.choice(liked or list(_TOP_WHILES))
        if kind == "digits":
            plan.params.insert(0, ("n", "number"))
            body += [f"{indent}rest = n", f"{indent}while rest > 0:", f"{indent}    digit = rest % 10"]
            plan.tail = (f"{indent}    rest //= 10",)
            return (_Item("digit", "count", "the digits of `n`", "digit",
                          note="taken from the last to the first, none if `n` is not positive"), indent + "    ")
        if kind in ("bits", "halves"):  # the binary digits of a number, or the number halved until it is 0
            plan.params.insert(0, ("n", "number"))
            bits = kind == "bits"
            body += [f"{indent}rest = n", f"{indent}while rest > 0:"]
            body += [f"{indent}    bit = rest % 2"] if bits else []
            plan.tail = (f"{indent}    rest //= 2",)
            if bits:
                return (_Item("bit", "count", "the binary digits of `n`", "bit",
                              note="taken from the lowest to the highest, none if `n` is not positive"),
                        indent + "    ")
            return (_Item("rest", "count", "the numbers `n`, `n` // 2, `n` // 4 and so on while they are positive",
                          "number"), indent + "    ")
        if kind == "collatz":  # the terms of a sequence: a loop whose length no walk knows in advance
            plan.params.insert(0, ("n", "number"))
            body += [f"{indent}term = n", f"{indent}while term > 1:"]
            plan.tail = (f"{indent}    term = term // 2 if term % 2 == 0 else 3 * term + 1",)
            return (_Item("term", "num", "the terms of the Collatz sequence from `n` (an even term is halved, an odd "
                          "one tripled plus 1) before it reaches 1", "term", note="none if `n` is below 2"),
                    indent + "    ")
        if kind.startswith("budget"):  # the leading items whose running total fits a budget (a line of text, a sum)
            words = kind.endswith("words")
            name, var, cost = ("words", "word", "len({})") if words else ("costs", "cost", "{}")
            if len(plan.params) >= plan.n_params:
                raise GenFail("a budget needs a parameter")
            budget = "width" if words else "budget"
            plan.params.insert(0, (name, "words" if words else "nums"))
            plan.params.append((budget, "limit"))
            plan.calls.add("len")
            body += [f"{indent}used = 0", f"{indent}i = 0",
                     f"{indent}while i < len({name}) and used + {cost.format(name + '[i]')} <= {budget}:",
                     f"{indent}    {var} = {name}[i]", f"{indent}    used += {cost.format(var)}"]
            plan.tail = (f"{indent}    i += 1",)
            what = "total length" if words else "running sum"
            one = "word" if words else "cost"
            return (_Item(var, "word" if words else "num", f"the {one}s at the start of `{name}` whose {what} stays "
                          f"within `{budget}`", one), indent + "    ")
        blob = kind == "bpieces"  # a string cut into pieces, or bytes (a record of fixed-width fields)
        name, var, unit = ("data", "chunk", "bytes") if blob else ("text", "piece", "characters")
        plan.params.insert(0, (name, "blob" if blob else "text"))
        size = rng.choice((3, 4))  # a width stated in the task, never a parameter a caller could make 0
        body += [f"{indent}rest = {name}", f"{indent}while rest:", f"{indent}    {var} = rest[:{size}]"]
        plan.tail = (f"{indent}    rest = rest[{size}:]",)
        return (_Item(var, "blob" if blob else "word", f"the pieces of `{name}` cut every {size} {unit}", "piece",
                      note="the last one perhaps shorter"), indent + "    ")
    if item.grain in ("num",):
        body += [f"{indent}rest = abs({item.var})", f"{indent}while rest > 0:", f"{indent}    digit = rest % 10"]
        plan.calls.add("abs")
        plan.tail = (f"{indent}    rest //= 10",)
        return (_Item("digit", "count", f"the digits of each of {item.said}", "digit",
                      note="each number's taken from the last to the first, none for 0", ordered=item.ordered,
                      outer=f"of each of {item.said}"),
                indent + "    ")
    if item.grain == "word":
        probe = _Item(f"{item.var}[i]", "char", "", "character")
        plan.calls.add("len")
        test, phrase = _test(plan, probe)
        body += [f"{indent}i = 0", f"{indent}while i < len({item.var}) and {test}:", f"{indent}    ch = {item.var}[i]"]
        plan.tail = (f"{indent}    i += 1",)
        return (_Item("ch", "char", f"the leading characters that {phrase} of each of {item.said}", "character",
                      ordered=item.ordered, outer=f"of each of {item.said}", filtered=True,
                      tested=(plan.last_test,)),
                indent + "    ")
    raise GenFail(f"no while over a {item.grain}")


def _test(plan: _Plan, item: _Item, *, classes: bool = False, deep: bool = False,
          walked: bool = False) -> tuple[str, str]:
    """A test of ``item`` with a meaning: its code and its plural English ("start with `prefix`"). At level 6 the
    first test made becomes a helper named for what it tests (``starts_with_prefix(word, prefix)``). A test that
    narrows items already narrowed takes a parameter; the ``classes`` of a classification need not (upper case,
    digits, the rest)."""
    sub = None if deep else _sub(plan, item, "test")
    if sub is not None:
        plan.last_test = (sub[1].name, False)
        plan.singulars[sub[1].plural] = sub[1].singular
        return sub[0], sub[1].plural
    options = [f for g in _TESTED.get(item.grain, (item.grain,)) for f in _forms("pred", g)]
    options += [f for f in _TASK_TESTS if item.grain in f.on]
    heads = {h for h, _ in item.tested}
    # a parameter is what one test compares with (``letter not in line`` and then ``letter in word`` contradict)
    used = {s for _, _, f in plan.tests for s in f.slots if s in _SLOT_PARAMS}
    # a second test of the same item is one with a parameter, unless it names another class of a classification
    bare = not classes and any(not slotted for _, slotted in item.tested)
    options = [f for f in options if f.head not in heads and not (bare and not f.slots)
               and (not deep or _calls_a_call(f))  # (``deep``: the test is where the spec's nested call goes)
               and not (walked and f.text == "not {x}")  # (``walked``: the item's parts are walked next)
               and not used & set(f.slots)]
    form = plan.pick(options, role="test")
    plan.last_test = (form.head, bool(form.slots))
    text, ph, slots = plan.fill(form, item.var, item.one, grain=form_grain(form, item.grain))
    plural = _say(ph.plural, item.one, slots)
    plan.singulars[plural] = _say(ph.singular, item.one, slots)
    plan.reach(text)
    plan.tests.append((text, item, form))
    if (plan.wants_helper and plan.helper is None and plan.helper_slot == "test" and _worth_a_helper(form)
            and plan.rng.random() < 0.3):
        text = _helper(plan, item, text, form)
    return text, plural


def _helper(plan: _Plan, item: _Item, test: str, form: Form) -> str:
    """``test`` of ``item`` moved into a helper named for what it tests; the call that replaces it."""
    arg = _HELPER_ARG.get(item.grain, "value")
    body = _rename(test, item.var, arg)
    used = [p for p, _ in plan.params if p in _names(body)]
    name = _HELPER_NAMES.get(form.text)
    if name is None and form.text == "{x}." + form.head.split(".")[-1] + "()" and form.head.split(".")[-1].startswith("is"):
        name = _HELPER_NAMES.get(form.head.split(".")[-1], "is_" + form.head.split(".")[-1][2:])
    if name is None:
        raise GenFail(f"no name for a helper testing {form.text}")
    if used and name in ("starts_with", "ends_with", "contains", "lacks"):
        name = f"{name}_{used[0]}"
    plan.helper = (name, ", ".join([arg, *used]), [f"return {body}"], "bool")
    return f"{name}({', '.join([item.var, *used])})"


def _test_helper(plan: _Plan, body: list[str]) -> None:
    """The first test in ``body`` a helper can hold (one with a name for what it tests) moved into that helper."""
    for text, item, form in plan.tests:
        if not _worth_a_helper(form):
            continue
        at = [k for k, line in enumerate(body) if line.lstrip().startswith(("if ", "elif ", "while ")) and text in line]
        if not at:
            continue
        try:
            call = _helper(plan, item, text, form)
        except GenFail:
            continue
        body[at[0]] = body[at[0]].replace(text, call, 1)
        return


@cache
def _worth_a_helper(form: Form) -> bool:
    """Whether a test is more than one method of its subject (``ch.isdigit()``) or its subject compared with a
    number or a parameter (``num > limit``): a helper holding only that would be named for what it calls."""
    node = ast.parse(_filled(form), mode="eval").body
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
        return bool(node.args)
    if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name):
        return not all(isinstance(c, ast.Name) or (isinstance(c, ast.Constant) and isinstance(c.value, (int, float)))
                       for c in node.comparators)
    return True


#: a helper's name by the test it holds (a form's template, or a method ``isX``)
_HELPER_NAMES = {
    "{x}.startswith({prefix})": "starts_with", "{x}.endswith({suffix})": "ends_with", "len({x}) > {k}": "is_long",
    "len({x}) < {k}": "is_short", "len({x}) <= {k}": "fits", "{x} % 2 == 0": "is_even", "{x} % {m} == 0": "is_multiple",
"{x} < 0": "is_negative", "{x} > {k}": "is_above", "{x} >= {k}": "is_at_least",
    "{x} <= {k}": "is_at_most", "{x} == {x}[::-1]": "is_palindrome", "{char} in {x}": "contains",
    "{char} not in {x}": "lacks", "{x} in 'aeiou'": "is_vowel", "not {x}": "is_empty", "{x}.count({char}) > 1": "repeats",
    "{x}.is_integer()": "is_whole", "{x}.isalpha() and {x}.lower() not in 'aeiou'": "is_consonant",
    "len(set({x})) == len({x})": "has_distinct_letters", "len(set({x})) < len({x})": "repeats_a_letter",
    "''.join(sorted({x})) == {x}": "is_sorted", "{x}.lower().startswith({prefix}.lower())": "starts_with",
    "{x}.lower() == {x}[::-1].lower()": "is_palindrome", "len(str(abs({x}))) > {k}": "has_more_digits",
    "len(str(abs({x}))) % 2 == 0": "has_even_digit_count", "{x} > 0": "is_positive",
    "{x}.bit_count() == 1": "is_power_of_two", "{x} > 1.0": "is_above_one",
    "{x} == {char}": "is_letter", "{x}.startswith({bsub})": "starts_with", "{x}.endswith({bchar})": "ends_with",
    "isalnum": "is_alphanumeric", "isspace": "is_blank", "istitle": "is_titled", "isupper": "is_upper_case",
    "islower": "is_lower_case", "isalpha": "is_alphabetic", "{x} in b' \\t\\n'": "is_whitespace",
}  # (a byte's ASCII range stays inline: in a helper it compares a parameter with a bare number)


@dataclass(frozen=True)
class _Sub:
    """A level-6 helper: a named sub-task of the program's items (a test or a value), its code and its English."""

    name: str
    grain: str
    kind: str  # test or value
    body: tuple[str, ...]
    plural: str  # a test: "are prime"; a value: "the number of vowels in {x}"
    singular: str = ""
    uses: tuple[str, ...] = ("collect", "key", "total", "largest")


_SUBS = (
    _Sub("is_prime", "num", "test", ("if n < 2:", "    return False", "for d in range(2, int(n ** 0.5) + 1):",
                                     "    if n % d == 0:", "        return False", "return True"),
         "are prime", "is prime"),
    _Sub("is_prime", "count", "test", ("if n < 2:", "    return False", "for d in range(2, n):", "    if n % d == 0:",
                                       "        return False", "return True"), "are prime", "is prime"),
    _Sub("is_palindrome", "word", "test", ("left, right = 0, len(word) - 1", "while left < right:",
                                           "    if word[left] != word[right]:", "        return False",
                                           "    left += 1", "    right -= 1", "return True"),
         "read the same backwards", "reads the same backwards"),
    _Sub("has_double_letter", "word", "test", ("for a, b in zip(word, word[1:]):", "    if a == b:",
                                               "        return True", "return False"),
         "have the same character twice in a row", "has the same character twice in a row"),
    _Sub("is_vowel", "char", "test", ("return ch.lower() in 'aeiou'",), "are vowels (of either case)",
         "is a vowel (of either case)"),
    _Sub("digit_sum", "num", "value", ("n = abs(n)", "total = 0", "while n > 0:", "    total += n % 10",
                                       "    n //= 10", "return total"), "the sum of the digits of {x}"),
    _Sub("vowel_count", "word", "value", ("count = 0", "for ch in word.lower():", "    if ch in 'aeiou':",
                                          "        count += 1", "return count"), "the number of vowels in {x}"),
    _Sub("normalized", "word", "value", ("word = word.strip()", "return word.lower()"),
         "{x} without surrounding whitespace, in lower case", uses=("collect", "key")),
    _Sub("is_perfect_square", "num", "test", ("if n < 0:", "    return False", "root = int(n ** 0.5)",
                                              "return root * root == n"),
         "are perfect squares", "is a perfect square"),
    _Sub("is_power_of_two", "num", "test", ("return n > 0 and n & (n - 1) == 0",), "are powers of two",
         "is a power of two"),
    _Sub("has_vowel", "word", "test", ("for ch in word.lower():", "    if ch in 'aeiou':", "        return True",
                                       "return False"), "contain a vowel (of either case)",
         "contains a vowel (of either case)"),
    _Sub("digit_count", "num", "value", ("n = abs(n)", "count = 0", "while n > 0:", "    count += 1",
                                         "    n //= 10", "return max(count, 1)"), "the number of digits of {x}"),
    _Sub("largest_digit", "num", "value", ("n = abs(n)", "best = 0", "while n > 0:", "    best = max(best, n % 10)",
                                           "    n //= 10", "return best"), "the largest digit of {x}"),
    _Sub("reversed_number", "num", "value", ("n = abs(n)", "result = 0", "while n > 0:",
                                             "    result = result * 10 + n % 10", "    n //= 10", "return result"),
         "the digits of {x} in reverse order, read as a number (its sign dropped)", uses=("collect", "key", "total")),
    _Sub("longest_run", "word", "value", ("best = 0", "run = 0", "previous = ''", "for ch in word:",
                                          "    run = run + 1 if ch == previous else 1", "    best = max(best, run)",
                                          "    previous = ch", "return best"),
         "the length of the longest run of one character repeated in {x}"),
    _Sub("rot13", "char", "value", ("if 'a' <= ch <= 'z':", "    return chr((ord(ch) - ord('a') + 13) % 26 + ord('a'))",
                                    "if 'A' <= ch <= 'Z':", "    return chr((ord(ch) - ord('A') + 13) % 26 + ord('A'))",
                                    "return ch"),
         "{x} with a letter moved 13 places along the alphabet (ROT13)", uses=("collect",)),
)
_SUB_ARG = {"num": "n", "count": "n", "word": "word", "char": "ch"}
#: the value helpers that give a string
_TEXT_SUBS = frozenset({"normalized", "rot13"})


def _sub(plan: _Plan, item: _Item, kind: str, use: str = "collect"):
    """A library helper of ``kind`` for ``item`` (its call and English), when the plan wants one here, else None."""
    if not plan.wants_helper or plan.helper is not None or plan.helper_slot != kind:
        return None
    if plan.role == kind and not plan.placed:  # the target's own step is not a helper's
        return None
    options = [h for h in _SUBS if h.grain == item.grain and h.kind == kind and use in h.uses]
    if not options:
        return None
    sub = plan.rng.choice(options)
    arg = _SUB_ARG[item.grain]
    returns = "bool" if kind == "test" else ("str" if sub.name in _TEXT_SUBS else "int")
    plan.helper = (sub.name, arg, list(sub.body), returns)
    plan.calls |= calls_in("\n".join(sub.body))  # (the program's calls: the rest reuses them where it can)
    return f"{sub.name}({item.var})", sub


_HELPER_ARG = {"word": "word", "char": "ch", "num": "num", "count": "digit", "amount": "price", "blob": "chunk",
               "byte": "byte", "text": "line", "nums": "row"}


def _names(text: str) -> set[str]:
    return {n.id for n in walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}


def _rename(text: str, old: str, new: str) -> str:
    """``text`` with the expression ``old`` (a name or ``words[i]``) replaced by the name ``new``."""
    tree = ast.parse(text, mode="eval")
    target = ast.dump(ast.parse(old, mode="eval").body)

    class Swap(ast.NodeTransformer):
        def visit(self, node):
            if isinstance(node, ast.expr) and ast.dump(node) == target:
                return ast.Name(new, ast.Load())
            return super().visit(node)

    return ast.unparse(Swap().visit(tree))


def _pred(form: str, on: tuple[str, ...], head: str, plural: str, singular: str) -> tuple[Form, Phrase]:
    return Form(head, on, "bool", "pred", form), Phrase(plural, singular)


def _map(form: str, on: tuple[str, ...], head: str, noun: str, gives: str = "same") -> tuple[Form, Phrase]:
    return Form(head, on, gives, "map", form), Phrase(noun, noun)


#: tests people write that are no single use of the vocabulary (a vowel, letters all different, the number of digits),
#: with their English over the English of their slots; several call a call (``len(set(word))``)
_TASK_TESTS: dict[Form, Phrase] = dict((
    _pred("{x} in 'aeiou'", ("char",), "op.in", "are lower-case vowels", "is a lower-case vowel"),
    _pred("{x}.isalpha() and {x}.lower() not in 'aeiou'", ("char",), "str.isalpha", "are consonants",
          "is a consonant"),
    _pred("len(set({x})) == len({x})", ("word",), "builtin.set", "have no character twice", "has no character twice"),
    _pred("len(set({x})) < len({x})", ("word",), "builtin.set", "have some character more than once",
          "has some character more than once"),
    _pred("''.join(sorted({x})) == {x}", ("word",), "builtin.sorted", "have their characters in sorted order",
          "has its characters in sorted order"),
    _pred("{x}.lower().startswith({prefix}.lower())", ("word",), "str.lower", "start with {prefix}, ignoring case",
          "starts with {prefix}, ignoring case"),
    _pred("{x}.lower() == {x}[::-1].lower()", ("word",), "str.lower", "read the same backwards, ignoring case",
          "reads the same backwards, ignoring case"),
    _pred("all({x}[i] == {x}[~i] for i in range(len({x}) // 2))", ("word",), "op.invert", "read the same backwards",
          "reads the same backwards"),
    _pred("len(str(abs({x}))) > {k}", ("num",), "builtin.str", "have more than {k} digits", "has more than {k} digits"),
    _pred("len(str(abs({x}))) % 2 == 0", ("num",), "builtin.str", "have an even number of digits",
          "has an even number of digits"),
    _pred("{x} > 0", ("num", "amount"), "op.gt", "are positive", "is positive"),
    # a byte is tested for what it encodes (readers found no purpose in bytes that are even or divisible by a divisor)
    _pred("{x} < 128", ("byte",), "op.lt", "are ASCII (below 128)", "is ASCII (below 128)"),
    _pred("32 <= {x} < 127", ("byte",), "op.le", "are printable ASCII (32 to 126)", "is printable ASCII (32 to 126)"),
    _pred("48 <= {x} <= 57", ("byte",), "op.ge", "are ASCII digits (48 to 57)", "is an ASCII digit (48 to 57)"),
    _pred("{x} in b' \\t\\n'", ("byte",), "op.in", "are a space, a tab or a newline",
          "is a space, a tab or a newline"),
))
#: values people compute that are no single use of the vocabulary (a word's letters sorted: its anagram key)
_TASK_VALUES: dict[Form, Phrase] = dict((
    _map("''.join(sorted({x}))", ("word",), "builtin.sorted", "the characters of {x} in sorted order"),
    _map("''.join(reversed({x}))", ("word",), "builtin.reversed", "{x} spelled backwards"),
    _map("' '.join(reversed({x}.split()))", ("text",), "builtin.reversed",
         "the words of {x} in reverse order, separated by single spaces"),
    _map("' '.join(sorted({x}.split()))", ("text",), "builtin.sorted",
         "the words of {x} in sorted order, separated by single spaces"),
    _map("' '.join({x}.split())", ("text",), "str.split", "{x} with each run of whitespace made one space and none "
         "at either end"),
    _map("min(abs({x}), {k})", ("num",), "builtin.min", "the magnitude of {x}, or {k} if that is smaller"),
    _map("''.join(sorted(set({x})))", ("word",), "builtin.set", "the distinct characters of {x} in sorted order"),
    _map("int(str(abs({x}))[::-1])", ("num",), "builtin.str", "the digits of {x} in reverse order, read as a number"),
    _map("chr(ord({x}) + 1)", ("char",), "builtin.chr", "the character after {x} in code order"),
    _map("str(ord({x}))", ("char",), "builtin.ord", "the code of {x}, written in decimal", "numstr"),
    _map("len(set({x}))", ("word",), "builtin.set", "the number of distinct characters in {x}", "count"),
    _map("len(str(abs({x})))", ("num",), "builtin.str", "the number of digits of {x}", "count"),
    _map("sum(map(int, str(abs({x}))))", ("num",), "builtin.map", "the sum of the digits of {x}", "count"),
    _map("sum(c in 'aeiou' for c in {x})", ("word",), "builtin.sum", "the number of lower-case vowels in {x}",
         "count"),
))
_TASK_PHRASES = {**_TASK_TESTS, **_TASK_VALUES}


# ------------------------------------------------------------------------------------------ folds

#: fold kind -> the item grains whose values it can take ("" takes none)
_FOLDS = ("count", "total", "collect", "build", "join", "tally", "group", "distinct", "first", "any", "largest", "mean",
          "common", "union", "product", "xor")
#: how often a fold is drawn among those that fit, beside 1 for the others: a list of one value per item fits
#: nearly every task, and would be most of them
_FOLD_WEIGHTS = {"collect": 0.6, "join": 0.8, "build": 0.8}


def _draw_fold(rng: random.Random, kinds, nested: bool = False) -> str:
    """A fold among ``kinds`` (``_FOLD_WEIGHTS``); where the items are the parts of each item of an outer walk, the
    folds that can be kept per outer item (a count, a sum, a largest value) three times as often."""
    kinds = list(kinds)
    weights = [_FOLD_WEIGHTS.get(k, 1.0) * (3.0 if nested and k in ("count", "total", "largest") else 1.0)
               for k in kinds]
    return rng.choices(kinds, weights=weights)[0]


#: the calls a fold makes itself
_FOLD_CALLS = {"collect": frozenset({".append"}), "join": frozenset({".append", ".join"}), "tally": frozenset({".get"}),
               "group": frozenset({".setdefault", ".append"}), "distinct": frozenset({".add", "set", "sorted"}),
               "largest": frozenset({"max"}), "common": frozenset({"set", "sorted", ".lower"}),
               "union": frozenset({"set", "sorted", ".lower"})}
#: the folds whose update passes the value to a call (``result.append(v)``, ``max(best, v)``, ``counts.get(v, 0)``)
_WRAPPING = frozenset({"collect", "join", "distinct", "tally", "group", "largest"})
#: the fold whose update a target is
_FOLD_OF_TARGET = {"list.append": ("collect", "join", "group"), "set.add": ("distinct",),
                   "dict.setdefault": ("group",), "dict.get": ("tally",), "str.join": ("join",), "bytes.join": ("join",),
                   "builtin.sorted": ("distinct",), "builtin.max": ("largest",), "op.iadd": ("count", "total", "build"),
                   "op.imul": ("product",), "op.ixor": ("xor",), "op.iand": ("common",)}
#: targets whose fold places them only where the fold writes them (a join of bytes, a sorted finish)
_PLACED_BY_THEIR_FOLD = frozenset({"builtin.sorted", "builtin.max", "str.join", "bytes.join"})
_NUMERIC = ("num", "count", "amount", "index", "byte")
_TEXTUAL = ("word", "char", "numstr", "digits")


#: the values people fold in each way, by template: a key to count or group by, a number to add up, a number
#: whose largest is wanted (values to collect, join or build a string of may be any form)
_NATURAL = {
    "key": frozenset({"len({x})", "{x}[0]", "{x}[-1]", "{x}.lower()", "{x}.casefold()", "{x} % {m}", "abs({x})",
                      "round({x}, 1)", "int({x})", "{x}.count({char})", "{x}.strip()", "{x}.upper()",
                      "{x}.bit_count()", "{x}.bit_length()", "''.join(sorted({x}))", "''.join(sorted(set({x})))",
                      "len(set({x}))", "len(str(abs({x})))", "sum(map(int, str(abs({x}))))"}),
    "total": frozenset({"len({x})", "abs({x})", "{x} * {x}", "{x} ** 2", "int({x})", "{x}.count({char})",
                        "len({x}.split())", "float({x})", "{x} % {m}", "{x}.count({bchar})", "{x}.bit_count()",
                        "{x}.bit_length()", "len(set({x}))", "len(str(abs({x})))", "sum(map(int, str(abs({x}))))",
                        "sum(c in 'aeiou' for c in {x})"}),
    "largest": frozenset({"len({x})", "abs({x})", "{x}.count({char})", "int({x})", "len({x}.split())",
                          "{x}.count({bchar})", "{x}.bit_count()", "{x}.bit_length()", "len(set({x}))",
                          "len(str(abs({x})))", "sum(map(int, str(abs({x}))))", "sum(c in 'aeiou' for c in {x})"}),
    "product": frozenset({"abs({x})", "int({x})"}),
    "xor": frozenset({"ord({x})", "len({x})", "int({x})"}),
}
#: grains whose item is itself a natural value of each use (a digit to add up, a word to count)
_ITSELF = {"key": ("word", "char", "num", "count", "blob"), "total": ("num", "count", "amount"),
           "largest": ("count",), "collect": ("word", "char", "num", "count", "amount", "blob"),
           "product": ("num", "count"), "xor": ("num", "count", "byte")}


def _value(plan: _Plan, item: _Item, grains: tuple[str, ...], *, depth: int = 0, use: str = "collect"):
    """A value of ``item`` of one of ``grains``, natural for ``use`` (key, total, largest, collect): a measure or a
    map of it, a value walked with it, or the item itself; returns its code, its English (None for the item itself),
    its grain and the guard it needs (code, plural English) or None. ``depth`` 1 asks for a call on a call
    (``len(word.strip())``: the length of the word without surrounding whitespace)."""
    rng = plan.rng
    sub = _sub(plan, item, "value", use) if depth <= 0 else None  # (a helper's call is no call on a call)
    if sub is not None:
        return (sub[0], sub[1].plural.format(x=f"the {item.one}"),
                "char" if sub[1].grain == "char" else "word" if sub[1].name in _TEXT_SUBS else "count", None)
    itself = (depth < 0 and item.grain in _ITSELF.get(use, ()) and item.grain in grains
              and (plan.role != "value" or plan.placed)
              and (use != "collect" or item.filtered))  # (a copy of every item walked is the walk's own list)
    if itself and rng.random() < (0.8 if len(plan.calls) >= 3 else 0.35):  # (no further call where there are many)
        return item.var, None, item.grain, None
    subjects = [(item.var, item.grain, f"the {item.one}")]
    for var, grain, en in item.extra:
        if grain in grains and depth < 0 and rng.random() < 0.3:
            return var, en.replace("its ", "the "), grain, None
        subjects.append((var, grain, en.replace("its ", "the ")))
    var, grain, en = subjects[0] if len(subjects) == 1 or rng.random() < 0.7 else rng.choice(subjects[1:])
    options = list(_value_forms(grain, grains, use, min(depth, 1)))
    if item.digit and var == item.var:
        options = [f for f in options if f.head not in _NOT_OF_A_DIGIT]
        if plan.value_form is not None and not plan.placed and plan.value_form.head in _NOT_OF_A_DIGIT:
            raise GenFail(f"{plan.value_form.text} says nothing of a digit")
    if plan.target != "builtin.ord":  # a character's code is a value where the task is about codes, nowhere else
        options = [f for f in options if "ord(" not in f.text]
        if not options:
            raise GenFail(f"no value of a {grain} but its code")
    if depth < 0 and rng.random() < 0.3:  # no call is needed: now and then a value that makes none (``n ** 2``)
        options = [f for f in options if not _form_calls(f)] or options
    if plan.value_form is not None and not plan.placed and plan.value_form in _value_forms(grain, grains, use,
                                                                                          min(depth, 1)):
        options = [plan.value_form]
    elif use == "collect" and not (plan.role == "value" and not plan.placed):
        # a value collected for its own sake is one people collect (a length, a word in upper case, a square), not
        # any use of the vocabulary (character codes, hex, padding): readers called those programs arbitrary
        options = [f for f in options if f.text in _COLLECTED or (f in _TASK_VALUES and "ord(" not in f.text)] or options
    form = plan.pick(options, role="value", may_literal=True)
    if (depth >= 1 or (not form.guard and rng.random() < 0.15)) and form.role == "measure":
        inner = [f for f in (*_forms("map", grain), *_forms("measure", grain))
                 if f.gives_on(grain) == grain and f.head != form.head and f.text in _NORMALIZING]
        if inner:
            first = plan.pick(inner, role="value", may_literal=True)
            ftext, fph, fslots = plan.fill(first, var, en, may_literal=True, grain=grain)
            var, en = ftext, _say(fph.singular, en, fslots)
        elif depth >= 1:
            raise GenFail(f"no call on a call of a {grain}")
    text, ph, slots = plan.fill(form, var, en, may_literal=True, grain=grain)
    guard = None
    if form.guard:
        code_slots = {k: plan.literals[k][0] for k in form.slots if k in plan.literals}
        guard = (form.guard.format(x=var, **code_slots), _say(_guard_phrase(form), en, slots))
    return text, _say(ph.singular, en, slots), form.gives_on(grain), guard


@cache
def _value_forms(grain: str, grains: tuple[str, ...], use: str, depth: int) -> tuple[Form, ...]:
    """The measures and maps of a ``grain`` that give one of ``grains``, natural for ``use``, that a phrase says
    (with their guard), the task's own values among them. ``depth`` 0 asks for a call (the update passes it to
    another: ``result.append(bin(n))``, not ``bin(n)[2:]``); 1 for those that call a call already
    (``''.join(sorted(word))``) and the measures without a guard (to put around another call)."""
    on_a_call = depth >= 1
    vocab = (f for role in ("measure", "map") for f in forms(role=role, on=grain)
             if not f.y and phrase_of(f) is not None and _guard_phrase(f) is not None)
    own = (f for f in _TASK_VALUES if grain in f.on)
    return tuple(f for f in (*vocab, *own)
                 if f.gives_on(grain) in grains and (use not in _NATURAL or f.text in _NATURAL[use])
                 and f.text not in _NO_VALUE
                 and (depth < 0 or _calls_a_call(f) or (not on_a_call and _is_call(f))
                      or (on_a_call and f.role == "measure" and not f.guard and "(" in f.text)))


@cache
def _returns_a_wrapper(form: Form) -> bool:
    """Whether ``return`` of ``form`` is a builtin around a builtin's result (``bytes(reversed(data))``): such a value
    is named before it is returned, and a branch returns its value at once."""
    from execverify_data.naturalness.patterns import finishing_wrappers

    return finishing_wrappers(f"def f(x, {', '.join(form.slots) or '_'}):\n    return {_filled(form)}\n") > 0


def _filled(form: Form) -> str:
    return form.text.format(x="x", **{s: s for s in form.slots})


def _calls_a_call(form: Form) -> bool:
    return nested_depth(_filled(form)) >= 1


def _is_call(form: Form) -> bool:
    """Whether ``form`` is a call (``bin(x)``, ``x.upper()``), not an expression around one (``bin(x)[2:]``)."""
    return isinstance(ast.parse(_filled(form), mode="eval").body, ast.Call)


#: the values of a number that say nothing of a single digit (its hex, its bits, its bytes, its character)
_NOT_OF_A_DIGIT = frozenset({"builtin.bin", "builtin.oct", "builtin.hex", "int.to_bytes", "int.bit_length",
                             "int.bit_count", "builtin.chr", "op.lshift", "op.rshift", "op.invert", "builtin.round",
                             "builtin.abs", "op.neg", "builtin.float"})
#: the values a task collects, joins or builds from when the target does another step: what people compute of
#: an item to keep it (its length, its case changed, its first letter, a square, a digit sum)
_COLLECTED = frozenset({
    "len({x})", "{x}.capitalize()", "{x}.lower()", "{x}.upper()", "{x}.title()", "{x}.strip()", "{x}[0]", "{x}[-1]",
    "{x}[::-1]", "{x}.replace({old}, {new})", "{x}.removeprefix({prefix})", "{x}.removesuffix({suffix})",
    "{x}.count({char})", "{x}[:{k}]", "abs({x})", "str({x})", "{x} * {x}", "{x} ** 2", "{x} % {m}", "{x} // 2",
    "{x} + {k}", "{x} - {k}", "-{x}", "max({x}, 0)", "min({x}, {k})", "int({x})", "round({x}, 1)", "{x}.decode()",
})
#: values no task folds (a character doubled, a dash per letter)
_NO_VALUE = frozenset({"{x} * 2", "'-' * len({x})"})
#: the steps that prepare a value for another (``len(word.strip())``): normalizing it, nothing arbitrary
_NORMALIZING = frozenset({"{x}.strip()", "{x}.lower()", "{x}.casefold()", "abs({x})", "{x}.upper()"})


def _guard_phrase(form: Form) -> str | None:
    """The plural English of ``form``'s guard ("" when it has none, None when it has one no phrase says)."""
    if not form.guard:
        return ""
    if form.guard == "{x}":
        return "are not empty"
    for f in forms(role="pred"):
        if f.text == form.guard and phrase_of(f) is not None:
            return phrase_of(f).plural
    return None


def _fold(plan: _Plan, item: _Item, steps, body: list[str]):
    """The fold at the innermost block: what the program builds from the items it reaches, and its finish."""
    indent, kinds = steps
    rng = plan.rng
    if kinds and kinds[-1] == "if-elif":
        return _classify(plan, item, indent, body, plan.tail)
    filtered = plan.chain[-1] == "if"  # the innermost step narrows the items (a return on a match, not a first pass)
    # (a checksum where a task keeps one: over bytes, or where the XOR is the spec's own step)
    options = [k for k in _FOLDS if (k not in ("first", "any") or filtered)
               and (k not in ("common", "union") or item.grain == "word")
               and (k != "xor" or item.grain == "byte" or plan.target == "op.ixor")
               and (k in _IN_ORDER or not item.ordered)]
    nested = plan.nest is not None and bool(item.outer)  # the parts of each item of an outer walk
    if ((plan.depth > plan.reached and rng.random() < (0.4 if nested else 0.85))
            or (plan.role == "value" and not plan.placed)):
        options = [k for k in options if k not in ("count", "any")]  # a fold that takes a value (a first match may)
    if plan.role == "value" and not plan.placed:  # the target's value first, then a fold in which it is natural
        own = [f for r in ("measure", "map") for f in forms(head=plan.target, role=r, on=item.grain)
               if not f.y and phrase_of(f) is not None and _guard_phrase(f) is not None
               and plan.fillable(f, may_literal=True)]
        if not own:
            raise GenFail(f"{plan.target} has no value of a {item.grain}")
        plan.value_form = rng.choice(own)
        options = [k for k in options if _takes(k, plan.value_form, item.grain)
                   and ((k in _WRAPPING and _is_call(plan.value_form)) or plan.reached >= plan.depth
                        or _calls_a_call(plan.value_form))]
        if not options:
            raise GenFail(f"no fold takes {plan.value_form.text}")
    mine = [k for k in options if k in _FOLD_OF_TARGET.get(plan.target, ())]
    finishing = [f for g in ("nums", "words") for f in _finishes(g) if f.head == plan.target]
    if finishing and "collect" in options:
        mine.append("collect")
    if mine and not plan.placed and plan.role in ("fold", "finish"):
        kind = rng.choice(mine)
    else:
        kind = _draw_fold(rng, options, nested=nested)  # (collect, join and build fit nearly every value: drawn less
        # often)
    if kind in _FOLD_OF_TARGET.get(plan.target, ()) and plan.target not in _PLACED_BY_THEIR_FOLD:
        plan.placed = True
    plan.calls |= _FOLD_CALLS.get(kind, frozenset())
    guard = None
    returns = "int"
    post: list[str] = []  # statements between the loop and the return

    use = {"total": "total", "mean": "total", "largest": "largest", "tally": "key", "group": "key",
           "product": "product", "xor": "xor"}.get(kind, "collect")

    def value(grains, wraps=True):  # ``wraps``: the update passes the value to a call (``result.append(v)``)
        nonlocal guard
        v, ven, g, guard = _value(plan, item, grains, depth=plan.deeper(wraps), use=use)
        return v, ven or f"the {item.one}", g

    if kind == "count":
        pre, update, ret = ["count = 0"], ["count += 1"], "count"
        desc = "Return the number of {n}."
    elif kind == "total":
        v, ven, g = value(_NUMERIC, wraps=False)
        pre, update, ret = [f"total = {'0.0' if g == 'amount' else '0'}"], [f"total += {v}"], "total"
        desc, returns = f"Return the sum of {ven}, over {{n}}.", "float" if g == "amount" else "int"
    elif kind == "product":  # of the numbers (digits) themselves, unless the target's value is the step
        if item.grain in ("num", "count") and (plan.role != "value" or plan.placed):
            v, ven = item.var, f"the {item.one}"
        else:
            v, ven, g = value(("num", "count"), wraps=False)
        pre, update, ret = ["product = 1"], [f"product *= {v}"], "product"
        desc = f"Return the product of {ven}, over {{n}}, or 1 if there are none."
    elif kind == "xor":  # a checksum
        if item.grain in ("num", "count", "byte") and (plan.role != "value" or plan.placed):
            v, ven = item.var, f"the {item.one}"
        else:
            v, ven, g = value(("num", "count", "byte"), wraps=False)
        pre, update, ret = ["check = 0"], [f"check ^= {v}"], "check"
        desc = f"Return the bitwise XOR of {ven}, over {{n}} (a checksum), or 0 if there are none."
    elif kind == "common":  # the letters every item has
        pre, ret = ["common = None"], "sorted(common) if common else []"
        update = ["if common is None:", f"    common = set({item.var}.lower())", "else:",
                  f"    common &= set({item.var}.lower())"]
        desc, returns = ("Return, in sorted order, the characters (in lower case) that every one of {n} contains, or "
                         "an empty list if there are none."), "list[str]"
    elif kind == "union":  # the letters any item has
        pre, ret = ["letters = set()"], "sorted(letters)"
        update = [f"letters |= set({item.var}.lower())"]
        desc, returns = "Return, in sorted order, the characters (in lower case) found in any of {n}.", "list[str]"
    elif kind == "mean":
        v, ven, g = value(_NUMERIC, wraps=False)
        pre, update, ret = ["total = 0", "count = 0"], [f"total += {v}", "count += 1"], "total / count if count else 0.0"
        desc, returns = f"Return the average of {ven}, over {{n}}, or 0.0 if there are none.", "float"
    elif kind in ("collect", "join", "build", "distinct"):
        v, ven, g = value(_TEXTUAL + ("blob",) if kind in ("join", "build") else _NUMERIC + _TEXTUAL + ("blob",),
                          wraps=kind != "build")  # (``out += v`` passes it to no call)
        if kind == "collect":
            pre, update, ret = ["result = []"], [f"result.append({v})"], "result"
            desc, returns = f"Return a list holding {ven} for each of {{n}}, in their order.", "list"
            finish = _finish(plan, g, f"the list of {ven} (one for each of {{n}})")
            if finish is not None:
                ret, desc, returns = finish
                if nested_depth(ret) >= 1:  # a builtin around a builtin's result is named before it is returned
                    post, ret = [f"result = {ret}"], "result"
            elif rng.random() < 0.1 and len(plan.params) < plan.n_params:  # at most `limit` of them
                limit, limit_en = plan.slot("k", may_literal=False)
                post = [f"del result[{limit}:]"]
                desc = f"Return a list holding {ven} for each of the first {limit_en} of {{n}}, in their order."
        elif kind == "build":  # a string, or bytes where the values are bytes
            blob = g == "blob"
            pre, update, ret = [f"out = {'b' if blob else ''}''"], [f"out += {v}"], "out"
            desc = (f"Return the {'bytes' if blob else 'string'} made of {ven} for each of {{n}}, in their order, with "
                    "nothing between.")
            returns = "bytes" if blob else "str"
        elif kind == "join":
            blob = g == "blob"
            sep, sep_en = plan.slot("bsep" if blob else "sep", may_literal=True)
            pre, update, ret = ["parts = []"], [f"parts.append({v})"], f"{sep}.join(parts)"
            if plan.target == ("bytes.join" if blob else "str.join"):
                plan.placed = True
            desc = f"Return {ven} for each of {{n}}, in their order, joined by {sep_en}."
            returns = "bytes" if blob else "str"
        else:
            if plan.target == "builtin.sorted":
                plan.placed = True
            pre, update, ret = ["seen = set()"], [f"seen.add({v})"], "sorted(seen)"
            order = "increasing" if g in _NUMERIC else "sorted"  # (strings sort by character: '10' before '2')
            desc, returns = f"Return the distinct values of {ven}, over {{n}}, in {order} order.", "list"
    elif kind in ("tally", "group"):
        k, ken, g = value(_NUMERIC + _TEXTUAL + ("blob",))
        if kind == "tally":
            pre, update, ret = ["counts = {}"], [f"counts[{k}] = counts.get({k}, 0) + 1"], "counts"
            desc = f"Return a dict mapping each value of {ken}, over {{n}}, to how many of them give it."
        else:
            pre, update, ret = ["groups = {}"], [f"groups.setdefault({k}, []).append({item.var})"], "groups"
            desc = f"Return a dict mapping each value of {ken}, over {{n}}, to the list of those that give it, in order."
        returns = "dict"
    elif kind == "largest":
        v, ven, g = value(("count", "index"))
        if plan.target == "builtin.max":
            plan.placed = True
        pre, update, ret = ["best = 0"], [f"best = max(best, {v})"], "best"
        desc = f"Return the largest value of {ven}, over {{n}}, or 0 if there is none."
    elif kind == "first" and ((plan.role == "value" and not plan.placed) or plan.depth > plan.reached
                              or rng.random() < 0.3):  # a value of the first match
        v, ven, g = value(_NUMERIC + _TEXTUAL + ("blob",), wraps=False)
        pre, update, ret = [], [f"return {v}"], "None"
        desc = f"Return {ven} for the first of {{n}}, or None if there is none."
        returns = f"{annotation(g)} | None"
    elif kind == "first":
        pre, update, ret = [], [f"return {item.var}"], "None"
        desc, returns = "Return the first of {n}, or None if there is none.", f"{annotation(_grain_of(item))} | None"
    else:  # any
        pre, update, ret = [], ["return True"], "False"
        desc, returns = "Return True if there is at least one of {n}, and False otherwise.", "bool"
    noun = item.said
    last = body[-1].strip() if body else ""
    if guard is not None and last.startswith("if ") and guard[0] in last[3:-1].split(" and "):
        guard = None  # the stream's test is the guard already (``if ch.isdigit():`` before ``int(ch)``)
    if guard is not None:  # the guard is a test of the stream, said as one
        joined = item.narrowed(guard[1])
        noun = f"{joined}, {item.note}" if item.note else joined
    if guard is not None and kinds and kinds[-1] == "if" and body and body[-1].lstrip().startswith("if "):
        body[-1] = f"{body[-1][:-1]} and {guard[0]}:"  # one test, not an if nested in an if
    elif guard is not None:
        update = [f"if {guard[0]}:", *("    " + u for u in update)]
    rebuilt = kind == "build" and ((update == [f"out += {item.var}"] and not item.filtered)  # (the item's copy)
                                   or any("ord(" in u for u in update))  # (a code per character is no task)
    finished = kind == "collect" and (post or ret != "result")  # (a finish of the whole list says nothing per item)
    if (plan.nest is not None and item.outer and kind in _PER_ITEM and not rebuilt and not finished
            and rng.random() < PER_ITEM_SHARE):
        return _per_item(plan, item, kind, (pre, update, ret, desc, returns), noun, indent, body)
    body[:0] = pre
    body.extend(indent + u for u in update)
    body.extend(plan.tail)
    body.extend(post)
    body.append(f"return {ret}")
    return desc.format(n=noun), returns, kind


#: folds that can be made once per item of an outer walk, over that item's own parts, and the name of the list of them
_PER_ITEM = {"count": "counts", "total": "totals", "largest": "peaks", "build": "rewritten", "collect": "collected",
             "join": "joined"}
#: how often such a fold is made per item where the chain walks each item's parts (a list or a dict of one value per
#: word or number: "the number of vowels of each word", "the digit sum of each number")
PER_ITEM_SHARE = 0.6


def _per_item(plan: _Plan, item: _Item, kind: str, fold, noun: str, indent: str, body: list[str]):
    """The fold made once for each item of the outer walk, over that item's parts, and kept per item: in a list, or in
    a dict keyed by the item (``counts.append(count)`` / ``counts[word] = count`` after the inner loop)."""
    pre, update, ret, desc, returns = fold
    at, outer_indent, outer = plan.nest
    keyed = plan.rng.random() < 0.4 and outer.grain != "nums"  # (a row is a list: no dict key)
    name = f"{pre[0].split(' = ')[0]}_by_{outer.var}" if keyed else _PER_ITEM[kind]
    collect = f"{name}[{outer.var}] = {ret}" if keyed else f"{name}.append({ret})"
    inner = noun.replace(" " + item.outer, "", 1).replace("each number's ", "")
    inner = "its " + inner[4:] if inner.startswith("the ") else inner
    what = desc[len("Return "):-1].format(n=inner)
    outer_said = item.outer[len("of each of "):]
    body[at:at] = [outer_indent + p for p in pre]
    body.extend(indent + u for u in update)
    tail = list(plan.tail)
    if tail and len(tail[0]) - len(tail[0].lstrip()) == len(outer_indent):  # the outer while's own step comes last
        body += [outer_indent + collect, *tail]
    else:
        body += [*tail, outer_indent + collect]
    body[:0] = [f"{name} = {{}}" if keyed else f"{name} = []"]
    body.append(f"return {name}")
    if keyed:
        return (f"Return a dict mapping each of {outer_said}{',' if ', ' in outer_said else ''} to {what}.",
                f"dict[{annotation(_grain_of(outer))}, {returns}]", kind)
    return f"Return a list holding, for each of {outer_said}, {what}.", f"list[{returns}]", kind


@cache
def _finishes(grain: str) -> tuple[Form, ...]:
    """Forms that finish a collected list of ``grain`` (``sorted(result)``, ``sum(result)``...): every one reads
    the values collected (``len(result)`` would make them pointless)."""
    return tuple(f for role in ("agg", "measure") for f in forms(role=role, on=grain)
                 if not f.y and not f.guard and f.head != "builtin.len" and phrase_of(f, grain) is not None)


def _finish(plan: _Plan, value_grain: str, noun: str):
    """A finish of the collected ``result`` (the target's own most often, else now and then): return text,
    description, annotation; None for the list as it is."""
    grain = "nums" if value_grain in ("num", "count", "index", "byte") else "words" if value_grain in _TEXTUAL else ""
    # (amounts and bytes are collected as they are: no finish reads a list of them as one of ints or strings)
    if not grain:
        return None
    options = [f for f in _finishes(grain) if plan.fillable(f, may_literal=False)]
    mine = [f for f in options if f.head == plan.target]
    natural = [f for f in options if f.text in _NATURAL_FINISHES]
    if mine and not plan.placed and plan.role == "finish":
        form = plan.rng.choice(mine)
    elif plan.rng.random() < 0.1 and natural:
        form = plan.rng.choice(natural)
    else:
        return None
    text, ph, slots = plan.fill(form, "result", noun, grain=grain)
    gives = form.gives_on(grain)
    return text, f"Return {_say(ph.singular, noun, slots)}.", annotation(gives) if gives in _ANNOTATED else "list"


#: finishes people write after collecting values (others only where they are the target's step)
_NATURAL_FINISHES = frozenset({"sorted({x})", "sorted({x}, reverse=True)", "sorted({x}, key=len)", "sum({x})",
                               "tuple({x})", "list(reversed({x}))", "{x}[::-1]", "{x}[:{k}]"})
_ANNOTATED = frozenset({"num", "count", "word", "amount", "words", "nums", "tnums", "twords", "ids", "tags", "fids",
                        "ftags", "table", "blob", "bool"})


def _takes(kind: str, form: Form, grain: str) -> bool:
    """Whether a fold of ``kind`` takes the value ``form`` gives on a ``grain`` as a natural one."""
    gives = form.gives_on(grain)
    if kind in ("collect", "distinct", "first"):
        return gives in _NUMERIC + _TEXTUAL + ("blob",)
    if kind in ("join", "build"):
        return gives in _TEXTUAL + ("blob",)
    use = {"total": "total", "mean": "total", "largest": "largest"}.get(kind, "key")
    if kind in ("total", "mean"):
        return gives in _NUMERIC and form.text in _NATURAL[use]
    if kind in ("product", "xor"):
        return gives in ("num", "count") + (("byte",) if kind == "xor" else ()) and form.text in _NATURAL[kind]
    if kind == "largest":
        return gives in ("count", "index") and form.text in _NATURAL[use]
    if kind in ("tally", "group"):
        return gives in _NUMERIC + _TEXTUAL + ("blob",) and form.text in _NATURAL[use]
    return False


def _grain_of(item: _Item) -> str:
    return {"digit": "count"}.get(item.grain, item.grain)


#: the classes people sort items into, by item grain: two tests (the second tried where the first fails) whose
#: classes, with the rest, mean something together (digits, letters and the rest; negative, zero and positive; blank
#: lines, comments and code). Readers called two tests drawn apart ("an even digit count, else a power of two") an
#: arbitrary classification.
_CLASSES: dict[str, tuple[tuple[tuple[Form, Phrase], tuple[Form, Phrase]], ...]] = {
    "char": (
        (_pred("{x}.isdigit()", ("char",), "str.isdigit", "are digits", "is a digit"),
         _pred("{x}.isalpha()", ("char",), "str.isalpha", "are letters", "is a letter")),
        (_pred("{x}.isupper()", ("char",), "str.isupper", "are upper-case letters", "is an upper-case letter"),
         _pred("{x}.islower()", ("char",), "str.islower", "are lower-case letters", "is a lower-case letter")),
        (_pred("{x} in 'aeiou'", ("char",), "op.in", "are lower-case vowels", "is a lower-case vowel"),
         _pred("{x}.isalpha()", ("char",), "str.isalpha", "are letters", "is a letter")),
        (_pred("{x}.isspace()", ("char",), "str.isspace", "are whitespace", "is whitespace"),
         _pred("{x}.isalnum()", ("char",), "str.isalnum", "are letters or digits", "is a letter or a digit")),
    ),
    "word": (
        (_pred("{x}.isdigit()", ("word",), "str.isdigit", "consist of digits", "consists of digits"),
         _pred("{x}.isalpha()", ("word",), "str.isalpha", "consist of letters", "consists of letters")),
        (_pred("{x}.isupper()", ("word",), "str.isupper", "are in upper case", "is in upper case"),
         _pred("{x}.istitle()", ("word",), "str.istitle", "are capitalized", "is capitalized")),
    ),
    **{grain: ((_pred("{x} < 0", (grain,), "op.lt", "are negative", "is negative"),
                _pred("{x} == 0", (grain,), "op.eq", "are zero", "is zero")),) for grain in ("num", "amount")},
    "text": ((_pred("not {x}.strip()", ("text",), "str.strip", "are blank", "is blank"),
              _pred("{x}.lstrip().startswith('#')", ("text",), "str.startswith",
                    "are comments (start with '#' after any indentation)",
                    "is a comment (starts with '#' after any indentation)")),),
}
#: the classes whose values are summed apart (the sum of the negative numbers and of the positive ones)
_SUM_CLASSES = {
    grain: ((_pred("{x} > 0", (grain,), "op.gt", "are positive", "is positive"),
             _pred("{x} < 0", (grain,), "op.lt", "are negative", "is negative")),) for grain in ("num", "amount")}
#: the count of each class of :data:`_CLASSES`, by its test: (of characters, lines or numbers; of words)
_CLASS_NAMES = {"{x}.isdigit()": ("digits", "numbers"), "{x}.isalpha()": ("letters", "words"),
                "{x}.isupper()": ("upper", "shouted"), "{x}.islower()": ("lower", "lower"),
                "{x} in 'aeiou'": ("vowels", "vowels"), "{x}.isspace()": ("spaces", "spaces"),
                "{x}.isalnum()": ("alphanumeric", "alphanumeric"), "{x}.istitle()": ("capitalized", "capitalized"),
                "{x} < 0": ("negative", "negative"), "{x} == 0": ("zeros", "zeros"),
                "not {x}.strip()": ("blank", "blank"), "{x}.lstrip().startswith('#')": ("comments", "comments"),
                "{x} > 0": ("positive", "positive")}
#: how often a classification whose classes the task leaves free takes a pair of :data:`_CLASSES` (two tests drawn
#: apart are the rest: a run of 20,000 programs needs their variety, it stopped at its row cap with every one a pair)
CLASSES_SHARE = 0.6
#: how often a classification of numbers sums each class's values (the positive and the negative numbers' sums)
#: instead of counting each class
CLASS_SUMS = 0.25


def _classify(plan: _Plan, item: _Item, indent: str, body: list[str], tail):
    """An ``if``/``elif`` over the items: two classes with a meaning, every class adding to the one result."""
    rng = plan.rng
    # the kind first: a count of each class, a string where one class is rewritten, or a sum for each class (where
    # the target's value or the spec's nested call must be a step of it)
    kind = (rng.choice(("count", "build")) if item.grain in ("char", "word")
            else "total" if rng.random() < CLASS_SUMS else "count")
    if item.ordered:  # only a string built in the walk's order keeps it
        if item.grain not in ("char", "word"):
            raise GenFail("a classification of items walked in an order of the task's own")
        kind = "build"
    if (plan.role == "value" and not plan.placed or plan.reached < plan.depth) and kind == "count":
        kind = "build" if item.grain in ("char", "word") else "total"
    if item.grain == "text" and kind != "count":
        raise GenFail("lines are classified to be counted")
    table = _SUM_CLASSES if kind == "total" else _CLASSES
    pairs = [pair for pair in table.get(item.grain, ()) if pair[0][0].head not in {h for h, _ in item.tested}]
    if plan.reached < plan.depth and (kind == "count" or item.grain == "char"):
        pairs = []  # (the classes carry no call on a call, and a count, or a character's value, cannot either)
    if not (plan.placed or plan.role == "test"):
        pairs = []  # (the value, fold or finish that still has the target's step is another task's)
    if plan.role == "test" and not plan.placed:  # the target is one of the classes' tests, or the classes are drawn
        pairs = [pair for pair in pairs if plan.target in (pair[0][0].head, pair[1][0].head)]
    names = ("first", "second")
    if pairs and rng.random() < CLASSES_SHARE:
        (f1, p1), (f2, p2) = rng.choice(pairs)
        (first, first_en), (second, second_en) = _class(plan, item, f1, p1), _class(plan, item, f2, p2)
        names = tuple(_CLASS_NAMES[f.text][item.grain == "word"] for f in (f1, f2))
    else:
        # (the target's value is the classes' step: a test calls the spec's call on a call where it does not)
        first, first_en = _test(plan, item, classes=True, deep=plan.role == "value" and plan.reached < plan.depth)
        tested = dataclasses.replace(item, tested=item.tested + (plan.last_test,))  # the second class is another test
        second, second_en = _test(plan, tested, classes=True)
    n = item.said
    if kind == "count":
        one, two = names
        pre = [f"{one} = 0", f"{two} = 0", "other = 0"]
        arms = [f"if {first}:", f"    {one} += 1", f"elif {second}:", f"    {two} += 1", "else:", "    other += 1"]
        ret, returns = f"({one}, {two}, other)", "tuple[int, int, int]"
        desc = (f"Over {n}, return a tuple of three counts: those that {first_en}, those that do not but "
                f"{second_en}, and the rest.")
    elif kind == "build":
        m1, m1en, _, guard = _value(plan, item, (item.grain, "numstr"), depth=max(plan.deeper(False), 0))
        m1en = m1en or f"the {item.one}"
        if guard is not None:
            raise GenFail("a class's value needs a guard")
        pre = ["out = ''"]
        arms = [f"if {first}:", f"    out += {m1}", f"elif {second}:", f"    out += {item.var}"]
        ret, returns = "out", "str"
        desc = (f"Return the string made from {n}, in order: {m1en} for each {item.one} that "
                f"{plan.singular(first_en)}, each other {item.one} that {plan.singular(second_en)} as it is, and "
                "nothing for the rest.")
    else:
        v, ven, g, guard = _value(plan, item, _NUMERIC, depth=plan.deeper(False))
        ven = ven or f"the {item.one}"
        if guard is not None:
            raise GenFail("a class's value needs a guard")
        # a sum for each class, returned together (one class's values added and another's taken away read as a puzzle)
        one, two = (f"{name}_total" for name in names)
        zero = "0.0" if g == "amount" else "0"
        pre = [f"{one} = {zero}", f"{two} = {zero}"]
        arms = [f"if {first}:", f"    {one} += {v}", f"elif {second}:", f"    {two} += {v}"]
        ret, returns = f"({one}, {two})", "tuple[float, float]" if g == "amount" else "tuple[int, int]"
        desc = (f"Over {n}, return a pair of sums: of {ven} for those that {first_en}, and of it for those that do "
                f"not but {second_en}.")
    body[:0] = pre
    body.extend(indent + a for a in arms)
    body.extend(tail)
    body.append(f"return {ret}")
    return desc, returns, "classify" if kind == "count" else f"classify_{kind}"


def _class(plan: _Plan, item: _Item, form: Form, phrase: Phrase) -> tuple[str, str]:
    """One class of a classification (:data:`_CLASSES`), written: its code and its plural English."""
    text = plan.reach(form.text.format(x=item.var))
    if form.head == plan.target:
        plan.placed = True
    plan.last_test = (form.head, False)
    plan.singulars[phrase.plural] = phrase.singular
    plan.tests.append((text, item, form))
    return text, phrase.plural


def _singular(plural: str) -> str:
    """The singular of a plural pred phrase made by :func:`_test` (phrases give both; this undoes ours)."""
    for a, b in (("are ", "is "), ("have ", "has "), ("do ", "does "), ("read ", "reads ")):
        if plural.startswith(a):
            return b + plural[len(a):]
    head, _, rest = plural.partition(" ")
    return f"{head}s {rest}".strip()


def _branch_task(plan: _Plan, chain, body: list[str]):
    """Level 3 without a loop: the input is tested and a different value returned for each outcome."""
    rng = plan.rng
    grain = rng.choice(plan.starts)  # a grain the target has its step on
    pname = _BRANCHED[grain]
    plan.params.insert(0, (pname, grain))
    item = _Item(pname, grain, "", "")
    maps = [f for f in (*_forms("map", grain), *_forms("measure", grain), *(f for f in _TASK_VALUES if grain in f.on))
            if f.gives_on(grain) == grain and not _returns_a_wrapper(f)]

    def returned(other: Form | None = None):  # a value returned instead, calling a call while the spec wants one
        deep = plan.reached < plan.depth and (plan.role != "value" or plan.placed)
        form = plan.pick([f for f in maps if f is not other and (not deep or _calls_a_call(f))], role="value",
                         may_literal=True)
        code, ph, slots = plan.fill(form, pname, f"`{pname}`", may_literal=True)
        return form, plan.reach(code), _say(ph.singular, f"`{pname}`", slots)

    if plan.role == "value":  # the target's value first; the test then calls a call where the value does not
        form, m1, m1en = returned()
    first, first_en = _test(plan, item, classes=True, deep=plan.role == "value" and plan.reached < plan.depth)
    if plan.role != "value":
        form, m1, m1en = returned()
    if chain == ("if",):  # (not one value or another: readers found the two unrelated, "word[1::2]" otherwise)
        body += [f"if {first}:", f"    return {m1}", f"return {pname}"]
        desc = f"Return {m1en} if `{pname}` {plan.singular(first_en)}, and `{pname}` unchanged otherwise."
    else:
        tested = dataclasses.replace(item, tested=(plan.last_test,))
        second, second_en = _test(plan, tested, classes=True)
        _, m2, m2en = returned(form)
        body += [f"if {first}:", f"    return {m1}", f"elif {second}:", f"    return {m2}", f"return {pname}"]
        desc = (f"Return {m1en} if `{pname}` {plan.singular(first_en)}; otherwise {m2en} if it {plan.singular(second_en)}; "
                f"otherwise `{pname}` unchanged.")
    return desc, grain
