"""The programmatic generator (2.0): programs built from the shapes people write.

:func:`generate` builds one program meeting a :class:`~execverify_data.synth.spec.ConstraintSpec`
from a seed, with no model and no GPU (:func:`spec_for` draws a level's spec from a seed).

A program is a computation people write (:mod:`.accumulators`) in which the target plays a role
that decides the result (:mod:`.vocab`); the spec's control-flow chain is that computation's own
loops and tests (:mod:`.loops`, levels 3-6), straight-line levels (1, 2) a short pipeline of such
uses (here). docs/synthesis.md ("How a program is built") describes each step.

>>> from execverify_data.synth import ConstraintSpec
>>> spec = ConstraintSpec("str.upper", nested_depth=1, other_methods=True, control_flow=("for", "if"), n_params=1)
>>> p = generate(spec, seed=7)
>>> p.level, p.target, ".upper(" in p.code, len(p.param_types)
(4, 'str.upper', True, 1)
>>> generate(spec, seed=7) == p
True
"""

from __future__ import annotations

import ast
import dataclasses
import json
import random
import re
from dataclasses import dataclass, field
from functools import cache, lru_cache

from execverify_data.astwalk import walk
from execverify_data.data import data_path
from execverify_data.errors import InvalidArgument
from execverify_data.synth import accumulators as accs
from execverify_data.synth.code import (
    SIGNATURE,
    GenFail,
    NoUse,
    Val,
    atom,
    calls_in,
    render,
    rewrite,
    texts,
)
from execverify_data.synth.loops import LoopBuilder
from execverify_data.synth.measures import (
    Chains,
    builtin_chain,
    deepest_call,
    nested_depth,
)
from execverify_data.synth.names import Names
from execverify_data.synth.spec import ConstraintSpec, level_of, level_spec
from execverify_data.synth.tasks import (
    CHAINS,
    FEWER_CALLS,
    MAX_CALLS,
    NoTask,
    compose,
    places,
    supported,
)
from execverify_data.synth.typing_ import usable_entries
from execverify_data.synth.vocab import (
    SLOTS,
    Form,
    annotation,
    element_grain,
    forms,
    grain_type,
    param_type,
)

__all__ = ["GENERATOR_VERSION", "LEVELS", "GenFail", "NoUse", "Program", "generate", "level_of", "spec_for", "targets"]

#: Bumped whenever the same seed can give a different program or a run different rows (2.2.0: the
#: constant_value rule and duplicates of kept programs ended before they run; 3.0.0: levels 3-6 composed purpose
#: first with a description, the effectless_call and magic_number filters).
GENERATOR_VERSION = "3.0.0"
#: The six constraint levels.
LEVELS = (1, 2, 3, 4, 5, 6)
_ATTEMPTS = 6

#: Targets no natural program uses (they would only appear as noise): left to other levels' vocabulary.
UNNATURAL_TARGETS = frozenset({
    "int.conjugate", "float.conjugate", "int.as_integer_ratio", "builtin.print", "builtin.type", "builtin.isinstance",
    "str.format_map", "builtin.bool", "dict.clear", "frozenset.copy",
})


@dataclass(frozen=True)
class Program:
    """A generated program.

    Args:
        code (`str`): the source, helpers first, entry point last.
        entry_point (`str`): the function to call.
        param_types (`tuple[str, ...]`): type of each entry-point parameter (catalog type language).
        param_names (`tuple[str, ...]`): names of the entry-point parameters.
        level (`int`): the constraint level it was built for.
        target (`str`): the catalog id the level requires.
        seed (`int`): the seed it was built from.
        helpers (`tuple[str, ...]`): names of the helper functions.
        param_domains (`tuple[str, ...]`): the grain of each parameter (:mod:`.vocab`), which
            :func:`execverify_data.inputs.draw_inputs` draws from ("" for the type's default domain).
        description (`str`): one or two sentences saying what the entry point returns for its inputs,
            made from the same task structure as the code ("" where the generator has none).
    """

    code: str
    entry_point: str
    param_types: tuple[str, ...]
    param_names: tuple[str, ...]
    level: int
    target: str
    seed: int
    helpers: tuple[str, ...] = field(default=())
    param_domains: tuple[str, ...] = field(default=())
    description: str = ""


@cache
def targets() -> tuple[str, ...]:
    """Catalog ids a program can target: methods and builtin functions available here that some
    natural use of the vocabulary or an accumulator exercises."""
    served = {f.head for f in forms()} | set(accs.KINDS_FOR_TARGET)
    return tuple(i for i in usable_entries()
                 if not i.startswith("op.") and i in served and i not in UNNATURAL_TARGETS)


#: a target is drawn with weight (calls + 1) ** TARGET_TEMPER, calls being how often the standard library's own code
#: calls it (``data/stdlib_calls``): programs use the methods people use most, and every target is still drawn
TARGET_TEMPER = 0.35
TARGET_FLOOR = 1.0


@cache
def target_weights() -> tuple[float, ...]:
    """The weight of each of :func:`targets` when a row draws its target (``TARGET_TEMPER``).

    >>> weights = dict(zip(targets(), target_weights()))
    >>> weights["str.split"] > weights["bytes.split"] > weights["bytes.istitle"] >= 1.0
    True
    """
    calls = json.loads(data_path("stdlib_calls", "counts.json").read_text(encoding="utf-8"))["counts"]
    return tuple((calls.get(t, 0.0) + TARGET_FLOOR) ** TARGET_TEMPER for t in targets())


def _draw_target(rng: random.Random) -> str:
    return rng.choices(targets(), weights=target_weights())[0]


def spec_for(level: int, seed: int, *, target: str | None = None, min_size: int = 6,
             max_size: int = 10) -> ConstraintSpec:
    """The spec of row ``seed`` at ``level``: target and level options drawn from the seed only; ``target`` fixes the
    target instead of drawing it (with :func:`target_weights`).

    >>> spec_for(3, 11) == spec_for(3, 11)
    True
    >>> spec_for(4, 11, target="list.pop").target
    'list.pop'
    """
    if level not in LEVELS:
        raise InvalidArgument(f"level must be one of {LEVELS}, got {level!r}")
    if target is not None and target not in targets():
        raise InvalidArgument(f"target {target!r} is not one a program can target; see execverify_data.synth.generator.targets()")
    rng = random.Random(seed)
    draw_target = _draw_target if target is None else (lambda _rng: target)
    first = level_spec(level, draw_target(rng), rng, min_size=min_size, max_size=max_size)
    if level < 3:
        return first
    # a task in which the target does a step (generator 3.0): its chain, as often as people write it. A target whose
    # composition fails here is drawn again (up to TARGET_DRAWS) before the row goes to the 2.2 builder; one that no
    # task places goes there at once UNPLACED_KEPT of the time, else is drawn again too (the 2.2 builder's programs
    # are the widest space a run has: without them a 20,000-program run stops at its row cap, and they write the
    # catalog entries no task uses)
    for draw in range(TARGET_DRAWS):
        spec = first if draw == 0 else level_spec(level, draw_target(rng), rng, min_size=min_size,
                                                  max_size=max_size)
        chains = {c: w for c, w in CHAINS[len(spec.control_flow)].items() if places(spec.target, c)}
        if not chains and (target is not None or (draw == 0 and rng.random() < UNPLACED_KEPT)):
            return first
        for _ in range(2 if chains else 0):  # the task says how many parameters it takes; generate() composes it
            chain = rng.choices(list(chains), weights=list(chains.values()))[0]  # again from the same draws
            task = dataclasses.replace(spec, control_flow=chain)
            composed = _task(task, seed)
            if composed is not None:
                return dataclasses.replace(task, n_params=len(composed.param_names))
    return first


#: targets drawn for a row of levels 3-6 before its spec goes to the 2.2 builder
TARGET_DRAWS = 3
#: how often a row of levels 3-6 whose first target no task places goes to the 2.2 builder with it
UNPLACED_KEPT = 0.5


@lru_cache(maxsize=256)
def _task(spec: ConstraintSpec, seed: int):
    """The task composed for ``spec`` (its parameter count aside: the task takes what it needs) from ``seed``, or None;
    ``spec_for`` and ``generate`` both ask for it, and it is made once."""
    try:
        return compose(dataclasses.replace(spec, n_params=1), random.Random(random.Random(seed).getrandbits(64)),
                       seed=seed, free_params=True)
    except NoTask:
        return None


def generate(spec: ConstraintSpec, seed: int) -> Program:
    """Build one program meeting ``spec`` from ``seed``.

    Raises:
        InvalidArgument: ``spec`` is not a :class:`ConstraintSpec` or its target is unavailable.
        GenFail: no program could be built for this (spec, seed) in a few attempts.
    """
    if not isinstance(spec, ConstraintSpec):
        raise InvalidArgument(f"spec must be a ConstraintSpec (see execverify_data.synth.level_spec), got {type(spec).__name__}")
    if spec.target not in usable_entries():
        raise InvalidArgument(f"catalog id {spec.target!r} is not available in this interpreter")
    rng = random.Random(seed)
    if supported(spec.control_flow):  # purpose first (generator 3.0); the 2.2 builder for what no task places
        rng.getrandbits(64)  # the draws of the task spec_for composed (free parameters)
        composed = _task(spec, seed)
        if composed is None or len(composed.param_names) != spec.n_params:  # else with the spec's own count
            try:
                composed = compose(spec, random.Random(rng.getrandbits(64)), seed=seed)
            except NoTask:
                composed = None
        if composed is not None:
            c = composed
            return Program(c.code, c.entry_point, c.param_types, c.param_names, level_of(spec), spec.target, seed,
                           c.helpers, c.param_domains, c.description)
    last: Exception | None = None
    for _ in range(_ATTEMPTS):
        try:
            return _Gen(random.Random(rng.getrandbits(64)), spec, seed).run()
        except NoUse:
            raise
        except (GenFail, KeyError, IndexError) as exc:
            last = exc
    raise GenFail(f"could not build a program for {spec.target} (control flow {spec.control_flow}) from seed {seed}: {last}")


# ---------------------------------------------------------------------------------------------- parameters

#: grains an entry-point parameter may have (a character or an index is never an input on its own)
PARAM_GRAINS = ("text", "word", "line", "digits", "numstr", "num", "count", "number", "amount", "amounts", "blob", "nums",
                "words", "numstrs", "ids", "tags", "fids", "ftags", "table", "names", "tnums", "twords", "flag",
                "limit", "fragment", "char", "sepchar", "key")
#: item grain -> the parameter grains whose items are of that grain
_SOURCES = {
    "char": ("text", "word", "line", "digits"),
    "word": ("words", "text", "line", "tags", "twords", "table", "ftags"),
    "numstr": ("numstrs", "line"),
    "num": ("nums", "ids", "tnums", "fids", "names", "count", "number"),
    "byte": ("blob",),
    "line": ("text",),
    "blob": ("blob",),
    "amount": ("amounts",),
}


@dataclass
class _Param:
    name: str
    grain: str


class _Gen:
    def __init__(self, rng: random.Random, spec: ConstraintSpec, seed: int):
        self.rng = rng
        self.spec = spec
        self.seed = seed
        self.level = level_of(spec)
        self.target = spec.target
        self.names = Names(rng)
        self.params: list[_Param] = []
        self.placed = False  # the target is in the program
        self.markers: dict[str, tuple[str, str | None, bool]] = {}  # marker -> (grain, literal, needed)
        self.calls: set[str] = set()  # builtins (``len``) and methods (``.upper``) the program calls so far

    # ------------------------------------------------------------------ driver
    def run(self) -> Program:
        spec = self.spec
        if spec.control_flow:
            functions = self.looped()
        else:
            functions = [self.straight()]
        functions = self.resolve(functions)
        if len(self.params) != spec.n_params:
            raise GenFail(f"{len(self.params)} parameters for a spec of {spec.n_params}")
        signature = self.signature()
        functions = [(n, signature if p == SIGNATURE else p, r, b) for n, p, r, b in functions]
        calls = calls_in("\n".join(_flatten(functions)))  # before rendering: the cheapest check first
        if len(calls) > MAX_CALLS or (len(calls) == MAX_CALLS and self.rng.random() < FEWER_CALLS):
            raise GenFail(f"{len(calls)} distinct builtins and methods (at most {MAX_CALLS}, fewer preferred)")
        code = render(functions)
        tree = ast.parse(code)
        self.check_reads(tree)
        self.verify(code, tree)
        main = functions[-1]
        return Program(code, main[0], tuple(param_type(p.grain) for p in self.params), tuple(p.name for p in self.params),
                       self.level, self.target, self.seed, tuple(f[0] for f in functions[:-1]),
                       tuple(p.grain for p in self.params))

    def check_reads(self, tree: ast.Module) -> None:
        """Every parameter of every function is read (a parameter nothing reads is a bug of the plan), and every
        ``for`` loop's body reads its variable."""
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                reads = {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
                unread = [a.arg for a in node.args.args if a.arg not in reads]
                if unread:
                    raise GenFail(f"parameter {unread[0]} of {node.name} is never read")
                for loop in walk(node):  # a loop reads what it walks (``for ch in word: n += 1`` is len(word))
                    if isinstance(loop, ast.For):
                        bound = {n.id for n in walk(loop.target) if isinstance(n, ast.Name)}
                        if not any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in bound
                                   for st in loop.body for n in walk(st)):
                            raise GenFail(f"the loop over {ast.unparse(loop.iter)} never reads its variable")

    def verify(self, code: str, tree: ast.Module) -> None:
        """Cheap structural checks before the filters: the measures the checker applies."""
        depth, _ = deepest_call(tree)
        if depth < self.spec.nested_depth:
            raise GenFail(f"nested depth {depth} < {self.spec.nested_depth}")
        if self.spec.control_flow and Chains(code, tree).find(self.spec.control_flow) is None:
            raise GenFail("control-flow chain not realized")

    # ------------------------------------------------------------------ parameters
    #
    # The first parameter is made at once; every later one starts as a *marker* in the text (a name
    # ``_slotN_``), made a parameter only when the program is finished: a marker a value needs (the
    # second collection of ``a & b``) always, a literal slot (``len(word) > 3``) only while the spec
    # wants more parameters, the others going back to their literal. Nothing is ever declared and
    # then left unread.

    def param(self, grain: str) -> Val:
        """A new entry-point parameter of ``grain`` (made now)."""
        if len(self.params) >= self.spec.n_params:
            raise GenFail("no parameter left")
        name = self.names.param(grain)
        self.params.append(_Param(name, grain))
        return Val(name, grain, frozenset({name}))

    def param_of(self, grain: str) -> Val | None:
        """An existing parameter of ``grain``."""
        for p in self.params:
            if p.grain == grain:
                return Val(p.name, grain, frozenset({p.name}))
        return None

    def needed(self, grain: str, avoid: frozenset = frozenset()) -> Val | None:
        """A value of ``grain`` that must be a parameter: an existing one (not in ``avoid``: a method is never
        given its own receiver), or a marker for a new one (the same marker for the same grain), or None when
        the spec has no parameter left."""
        for p in self.params:
            if p.grain == grain and p.name not in avoid:
                return Val(p.name, grain, frozenset({p.name}))
        for key, (g, literal, required) in self.markers.items():
            if g == grain and required:
                return Val(key, grain, frozenset({key}))
        if self.spare - sum(1 for _, _, r in self.markers.values() if r) <= 0:
            return None
        key = f"_slot{len(self.markers)}_"
        self.markers[key] = (grain, None, True)
        return Val(key, grain, frozenset({key}))

    def liftable(self, grain: str, literal: str) -> str:
        """A literal that may become a parameter of ``grain`` when the spec wants one more."""
        if self.spec.n_params <= 1:
            return literal
        key = f"_slot{len(self.markers)}_"
        self.markers[key] = (grain, literal, False)
        return key

    @property
    def spare(self) -> int:
        return self.spec.n_params - len(self.params)

    def wants_marker(self) -> bool:
        """Whether the spec wants a parameter that no marker can give yet (prefer uses with a slot)."""
        return self.spare - len(self.markers) > 0

    def resolve(self, functions: list) -> list:
        """Turn the markers into parameters (needed ones first, then literal slots while the spec wants
        more parameters, in order of appearance) and the rest back into their literals."""
        text = "\n".join(_flatten(functions))
        order = list(dict.fromkeys(re.findall(r"_slot\d+_", text)))
        choice: dict[str, str] = {}
        required = [k for k in order if self.markers[k][2]]
        optional = [k for k in order if not self.markers[k][2]]
        if len(required) > self.spare:
            raise GenFail("more values need parameters than the spec has")
        for key in required:
            choice[key] = self.param(self.markers[key][0]).text
        droppable = [k for k in optional if self.markers[k][1] == ""]
        literal_slots = [k for k in optional if self.markers[k][1] != ""]
        for key in literal_slots + droppable:  # a slot with a literal first; a [:k] slice only when nothing else
            grain, literal, _ = self.markers[key]
            last = key == (literal_slots + droppable)[-1]
            if self.spare > 0 and (literal and self.rng.random() < 0.7 or last):
                choice[key] = self.param(grain).text
            else:
                choice[key] = literal
        if self.spare > 0:
            raise GenFail("the spec wants a parameter the program cannot use")
        pattern = re.compile(r"\[:(_slot\d+_)\]|_slot\d+_")

        def put(m: re.Match) -> str:
            if m.group(1):  # a [:k] slice: kept with the parameter, dropped without it
                value = choice.get(m.group(1), "")
                return f"[:{value}]" if value else ""
            return choice.get(m.group(0), m.group(0))

        return _substitute(functions, lambda t: pattern.sub(put, t))

    def signature(self) -> str:
        return ", ".join(f"{p.name}: {param_type(p.grain)}" for p in self.params)

    # ------------------------------------------------------------------ forms
    def fill(self, form: Form, x: Val, y: Val | None = None, *, lift: bool = True) -> tuple[Val, str]:
        """``form`` applied to ``x`` (and ``y``): the value and its guard text ("" when none).

        A literal slot that allows it is a marker that may become a parameter (see :meth:`resolve`).
        """
        values = {}
        used: set = set()
        for slot in form.slots:
            spec = SLOTS[slot]
            pool = [v for v in spec.pool if v not in used] or list(spec.pool)
            value = self.rng.choice(pool)
            used.add(value)
            literal = repr(value)
            values[slot] = self.liftable(spec.param_grain, literal) if lift and spec.param else literal
        if form.y and y is None:
            raise GenFail(f"form {form.text} needs a second value")
        if form.head == "op.fstring" and not x.text.isidentifier():
            raise GenFail("an f-string takes a plain name")
        x_text = _unwrap_list(x.text) if _takes_iterable(form) else x.text
        text, guard = form.write(atom(x_text), y.atom if y is not None else "", **values)
        return Val.of(text, form.gives_on(x.grain)), guard

    @property
    def depth_so_far(self) -> int:
        return self._depth

    def note(self, text: str) -> None:
        """Remember the call depth of a text that is in the program for good (a test, a loop header)."""
        self._depth = max(self._depth, nested_depth(text))
        self.calls |= calls_in(text)

    def frugal(self, options: list, text_of=lambda f: f"{f.text} {f.guard}") -> list:
        """The ``options`` that call no builtin or method the program does not call yet, nine times in ten
        once it calls one (people reuse a few calls: CRUXEval's functions call 2.4 distinct ones); all of
        them when none is such."""
        if not self.calls or self.rng.random() < 0.1:
            return options
        return self.known(options, text_of) or options

    def known(self, options: list, text_of=lambda f: f"{f.text} {f.guard}") -> list:
        """The ``options`` whose text calls only builtins and methods the program already calls."""
        return [o for o in options if calls_in(text_of(o)) <= self.calls]

    _depth = 0

    def forms_on(self, grain: str, role: str, *, target: bool = False) -> list[Form]:
        """Forms of ``role`` on ``grain`` (the target's only when ``target``)."""
        return [f for f in forms(on=grain, role=role)
                if target == (f.head == self.target) and f.head not in UNNATURAL_TARGETS]

    def second_for(self, form: Form, grain: str, context: tuple[Val, ...]) -> Val | None:
        """The second value ``{y}`` of ``form`` on a subject of ``grain``: a value in context, an existing
        parameter, or a marker for a new one."""
        want = form.y
        if want == "same":
            want = grain
        elif want == "elem":
            return next((v for v in reversed(context) if v.grain == element_grain(grain)), None)
        elif want == "elemof":
            want = element_grain(grain)
        for v in reversed(context):
            if v.grain == want and v.text not in self._subjects:
                return v
        if want in PARAM_GRAINS:
            return self.needed(want, avoid=self._subjects)
        return None

    _subjects: frozenset = frozenset()

    def can_second(self, form: Form, grain: str, context: tuple[Val, ...]) -> bool:
        if not form.y:
            return True
        want = grain if form.y == "same" else element_grain(grain) if form.y in ("elem", "elemof") else form.y
        if form.y == "elem":
            return any(v.grain == want for v in context)
        if any(v.grain == want for v in context) or self.param_of(want) is not None:
            return True
        return want in PARAM_GRAINS and self.spare - sum(1 for _, _, r in self.markers.values() if r) > 0

    def use(self, form: Form, x: Val, context: tuple[Val, ...] = ()) -> tuple[Val, str]:
        self._subjects = frozenset({x.text})
        y = self.second_for(form, x.grain, context) if form.y else None
        self._subjects = frozenset()
        if form.y and y is None:
            raise GenFail(f"no second value for {form.text}")
        value, guard = self.fill(form, x, y)
        if form.head == self.target:
            self.placed = True
        self.calls |= calls_in(f"{value.text} {guard}")
        return value, guard

    def mark(self, entry_id: str) -> None:
        """Note that the program uses ``entry_id`` (the target is placed when it is the target)."""
        if entry_id == self.target:
            self.placed = True
        kind, _, name = entry_id.partition(".")
        if kind == "builtin":
            self.calls.add(name)
        elif kind != "op":
            self.calls.add(f".{name}")

    def pick(self, options: list[Form]) -> Form:
        if not options:
            raise GenFail("no form fits")
        return self.rng.choice(options)

    # ------------------------------------------------------------------ straight line (levels 1, 2)
    def straight(self) -> tuple[str, str, str, list]:
        """A short pipeline: the target's use on a parameter (or on a value one step away), consumed by
        a step that gives it meaning, reaching the nested depth inside the expression."""
        rng = self.rng
        tforms = [f for f in forms(head=self.target) if f.role in ("measure", "map", "parts", "agg", "pred", "pair")]
        if self.target in accs.KINDS_FOR_TARGET:
            return self.straight_mutation()
        if not tforms:
            raise NoUse(f"{self.target} has no straight-line use")
        form = self.pick(tforms)
        if form.role == "pred" and form.y == "same":
            return self.straight_relation(form)
        if form.role == "pred":
            return self.straight_test(form)
        grains = [g for g in form.on if g in PARAM_GRAINS and g not in ("char",)]
        if not grains:
            raise GenFail("the target's use needs a subject no parameter gives")
        subject = self.param(rng.choice(grains))
        body: list = []
        need = self.spec.nested_depth
        origin = subject  # the function is named for the input
        before = None
        if rng.random() < 0.6:  # first a cleaning or reordering step of its own (``cleaned = text.strip()``)
            before = self.before(subject, form)
        if before is None and need >= 1 and subject.grain in _DEEP_BEFORE and nested_depth(form.text) < need and rng.random() < 0.5:
            text, stem = rng.choice(_DEEP_BEFORE[subject.grain])  # a preparation that is itself a nested call
            before = (self.names.fresh(stem), text.format(x=subject.text))
        if before is not None:
            name, text = before
            body.append(f"{name} = {text}")
            self.note(text)
            subject = Val(name, subject.grain, frozenset({name}) | subject.reads)
        value, guard = self.use(form, subject)
        if nested_depth(value.text) < need:
            deeper = self.deep_argument(form, subject)
            if deeper is None or (nested_depth(deeper[0].text) < need and self.rng.random() < 0.5):
                deeper = self.prepared(form, subject, need) or deeper
            if deeper is not None:
                value, guard = deeper
        value = self.deepen(value, lambda v: self.depth_so_far >= need or nested_depth(v.text) >= need, lambda grain: grain not in ("bool",))
        if max(nested_depth(value.text), self.depth_so_far) < need:
            raise GenFail("depth not reached")
        value = value.or_empty(guard)
        for p in self.params_unread(value):
            if p.text not in subject.reads:  # read by the preparing step
                value = self.combine(value, p)
        if self.wants_marker():
            value = self.combine(value, Val(self.liftable(rng.choice(("limit", "fragment")), ""), "marker"))
        out_grain = value.grain
        if out_grain in ("pairs", "iter", "keys", "items"):
            value = Val.of(f"list({value.text})", out_grain)  # annotated list[tuple] / list
        elif value.text.startswith(("range(", "reversed(", "map(", "filter(")):
            value = Val.of(f"list({value.text})", out_grain)  # a list, as annotated, not a lazy object
        if out_grain in ("triple", "btriple", "pairnum"):
            parts = [self.names.fresh(n) for n in (("head", "sep", "tail") if out_grain != "pairnum" else ("q", "r"))]
            body.append(f"{', '.join(parts)} = {value.text}")
            value = Val.of(f"{parts[-1]}" if out_grain != "pairnum" else f"{parts[0]} * 10 + {parts[1]}", "word")
        body += self.returning(value)
        name = self.names.fresh(_function_name(form, origin, self.rng))
        return (name, SIGNATURE, annotation(value.grain), body)

    def straight_test(self, form: Form) -> tuple[str, str, str, list]:
        """A test without control flow (levels 1-2 ask for none, so the test decides no branch): the items of an
        input, prepared in one nested step (``words = sorted(set(text.lower().split()))``), counted or checked
        with the test (``sum(w.istitle() for w in words)``, ``any(...)``, ``all(...)``)."""
        rng = self.rng
        need = self.spec.nested_depth
        item_grains = [g for g in form.on if g in ("char", "word", "num", "numstr", "blob")]
        if not item_grains:
            raise NoUse("the test applies to no item of an input")
        item = rng.choice(item_grains)
        sources = [src for src in _SOURCES.get(item, ()) if src in PARAM_GRAINS and src not in ("count", "number", "names", "table")]
        if not sources:
            raise GenFail("no input holds such items")
        src = self.param(rng.choice(sources))
        prepared = _PREPARED.get((src.grain, item), ())
        prepared = [(t.format(v=src.text), n) for t, n in prepared if nested_depth(t.format(v=src.text)) >= need]
        if not prepared:
            raise GenFail("no preparation deep enough")
        text, stem = rng.choice(prepared)
        items = self.names.fresh(stem)
        var = self.names.fresh({"char": "ch", "word": "word", "num": "n", "numstr": "token", "blob": "chunk"}[item])
        test, guard = self.use(form, Val(var, item, frozenset({var})))
        cond = test.as_test(guard)
        how = rng.choice(("sum", "sum", "any", "all"))
        self.placed = True
        body = [f"{items} = {text}", f"return {how}({cond} for {var} in {items})"]
        grain = "count" if how == "sum" else "bool"
        for p in self.params_unread(Val.of(text, "words")):
            raise GenFail(f"parameter {p.text} unread")
        if self.wants_marker() and how == "sum":
            key = self.liftable("limit", "")  # a marker: the spec wants more than one parameter
            body[-1] = f"return {how}({cond} for {var} in {items}) > {key}"
            grain = "bool"
        elif self.wants_marker():
            raise GenFail("no use of a second parameter in a checked test")
        name = self.names.fresh(f"{_PRED_VERBS.get(form.head.split('.')[-1], 'select')}_{src.text}")
        return (name, SIGNATURE, annotation(grain), body)

    def straight_relation(self, form: Form) -> tuple[str, str, str, list]:
        """A test between two inputs of one kind (``a.issubset(b)``, ``a <= b``), the first one normalized in a
        nested step (``lowered = set(map(str.lower, tags))``) so that the test compares what it means to."""
        grains = [g for g in form.on if g in _DEEP_BEFORE and g in PARAM_GRAINS]
        if not grains:
            raise GenFail("no input of the relation's kind")
        subject = self.param(self.rng.choice(grains))
        text, stem = self.rng.choice(_DEEP_BEFORE[subject.grain])
        if nested_depth(text) < self.spec.nested_depth:
            raise GenFail("depth not reached")
        name = self.names.fresh(stem)
        value, guard = self.use(form, Val(name, subject.grain, frozenset({name})))
        result = value.as_test(guard)
        body = [f"{name} = {text.format(x=subject.text)}", f"return {result}"]
        verb = {"issubset": "within", "issuperset": "covers", "isdisjoint": "apart"}.get(form.head.split(".")[-1], "compare")
        return (self.names.fresh(f"{verb}_{subject.text}"), SIGNATURE, "bool", body)

    def deep_argument(self, form: Form, subject: Val) -> tuple[Val, str] | None:
        """The form with a call as its argument, when it has a slot: a second parameter normalized
        (``text.count(part.lower())``) when the spec wants one, else a value of the subject
        (``text.find(max(text))``, ``nums.count(max(nums))``)."""
        slots = [slot for slot in form.slots if SLOTS[slot].type in ("str", "int")]
        if not slots:
            return None
        slot = slots[0]
        spec = SLOTS[slot]
        if self.wants_marker() and spec.param:
            key = f"_slot{len(self.markers)}_"
            self.markers[key] = (spec.param_grain, None, True)
            call = f"{key}.lower()" if spec.type == "str" else f"abs({key})"
        elif spec.type == "str" and subject.grain in ("text", "word", "line"):
            call = f"{self.rng.choice(('max', 'min'))}({subject.text})"
        else:
            return None
        values = {s: (call if s == slot else repr(self.rng.choice(SLOTS[s].pool))) for s in form.slots}
        text, guard = form.write(subject.atom, **values)
        return Val.of(text, form.gives_on(subject.grain)), guard

    def before(self, subject: Val, form: Form) -> tuple[str, str] | None:
        """A step that prepares an input for the target's use and keeps its kind (``cleaned = line.strip()``,
        ``ordered = sorted(nums)``, ``lowered = text.lower()``): its name and text, or None when none fits
        (none that the use would undo or that leaves nothing to use)."""
        options = [f for f in self.forms_on(subject.grain, "map") + self.forms_on(subject.grain, "agg")
                   if not f.y and not f.guard and f.gives == "same" and f.head != form.head
                   and _meaningful_pair(f, form) and not (f.head in _CASE and form.head in _CASE_TESTS)
                   and f.head in _PREPARING]
        if grain_type(subject.grain).startswith(("tuple", "set", "frozenset", "dict")):
            options = [f for f in options if f.head.startswith("op.slice")]  # sorted(t) is no tuple
        if not options:
            return None
        step = self.rng.choice(self.frugal(options))
        value, _ = self.fill(step, subject, lift=False)
        stem = _BEFORE_NAMES.get(step.head, "cleaned")
        return self.names.fresh(stem), value.text

    def prepared(self, form: Form, subject: Val, need: int) -> tuple[Val, str] | None:
        """The target's use on a value made from its subject in one step that changes what the use sees
        (``len(word.replace('a', ''))``, ``sum(sorted(nums)[:3])``, ``len(text.split())``), when the use on
        the subject alone is not deep enough; None when no such step is meaningful. Only for a builtin function
        without a guard: a method's receiver keeps its exact type (``sorted(t)`` is no tuple), and a guard
        would repeat the step."""
        if not form.head.startswith("builtin.") or form.guard:
            return None
        options = [f for role in ("parts", "agg", "map") for f in self.forms_on(subject.grain, role)
                   if not f.y and not f.guard and f.gives_on(subject.grain) in form.on and f.head != form.head]
        self.rng.shuffle(options)
        best = None
        for inner_form in options[:8]:
            inner, _ = self.fill(inner_form, subject, lift=False)
            if inner.grain in ("pairs", "iter", "keys", "items") or not _meaningful(form, inner):
                continue
            try:
                value, guard = self.use(form, inner)
            except GenFail:
                continue
            if builtin_chain(value.text) >= 3 or not _meaningful_pair(inner_form, form):
                continue
            if best is None or nested_depth(value.text) > nested_depth(best[0].text):
                best = (value, guard)
            if nested_depth(value.text) >= need:
                break
        return best

    def returning(self, value: Val) -> list[str]:
        """The statements that return ``value``: a call of a builtin on a builtin's result is first bound to a
        name (``unique = sorted(set(words))`` / ``return unique``), as people write it; three builtins
        nested in one expression are not written at all."""
        if builtin_chain(value.text) >= 3:
            raise GenFail("three builtins nested in one expression")
        if builtin_chain(value.text) >= 2:
            base = "ok" if value.grain == "bool" else _RESULT_NAMES.get(value.text.split("(", 1)[0], "result")
            name = self.names.fresh(base)
            return [f"{name} = {value.text}", f"return {name}"]
        return [f"return {value.text}"]

    def straight_mutation(self) -> tuple[str, str, str, list]:
        """Straight-line code around a mutating target: a copy of an input changed in place and returned (a
        ``.copy()`` target makes the copy and changes it with another step)."""
        rng = self.rng
        t = self.target
        k = self.liftable("limit", repr(rng.choice((2, 3))))
        family = t.split(".")[0]
        deep = self.spec.nested_depth >= 2
        if family == "list":
            subject = self.param(rng.choice(("nums", "words")))
            x = subject.text
            copy = self.names.fresh(rng.choice(("items", "result", "ordered")))
            steps = {
                "list.append": (f"{copy}.append(len(set({x})))" if deep else f"{copy}.append(len({x}))"
                                if subject.grain == "nums" else f"{copy}.append(max({x}, key=len))"),
                "list.insert": f"{copy}.insert(0, {copy}.pop({copy}.index(max({copy}))))" if deep else f"{copy}.insert(0, {copy}.pop())",
                "list.extend": f"{copy}.extend(sorted(set({x}))[:{k}])" if deep else f"{copy}.extend(sorted({x})[:{k}])",
                "list.sort": f"{copy}.sort(reverse=True)",
                "list.reverse": f"{copy}.reverse()",
                "list.remove": f"{copy}.remove(max({copy}))",
                "list.pop": f"{copy}.pop({copy}.index(min({copy})))",
                "op.slice_assign": f"{copy}[:{k}] = sorted({copy}[:{k}])",
                "op.slice_delete": f"del {copy}[:{k}]",
                "op.delitem": f"del {copy}[0]",
            }
            guarded = {"list.remove", "list.pop", "list.insert"}  # steps that need an item: not after a copy
            first = f"{copy} = {rng.choices((f'list({x})', f'{x}[:]', f'[*{x}]'), (5, 4, 1))[0]}"
        elif family == "set":
            subject = self.param(rng.choice(("ids", "tags")))
            x = subject.text
            other = self.param(subject.grain) if self.spare > 0 else None
            copy = self.names.fresh("result")
            arg = other.text if other else (f"range({k})" if subject.grain == "ids" else f"sorted({x})[:{k}]")
            steps = {
                "set.add": f"{copy}.add(len({x}))" if subject.grain == "ids" else f"{copy}.add(min({x}, key=len))",
                "set.update": f"{copy}.update({arg})",
                "set.discard": f"{copy}.discard(max({x}))" if subject.grain == "ids" else f"{copy}.discard(min({x}))",
                "set.remove": f"{copy}.remove(min({copy}))",
                "set.intersection_update": f"{copy}.intersection_update({arg})",
                "set.difference_update": f"{copy}.difference_update({arg})",
                "set.symmetric_difference_update": f"{copy}.symmetric_difference_update({arg})",
            }
            guarded = {"set.remove"}
            first = f"{copy} = {rng.choices((f'set({x})', f'{{*{x}}}'), (4, 1))[0]}"
        elif family == "dict":
            subject = self.param("table")
            x = subject.text
            other = self.param("table") if self.spare > 0 else None
            copy = self.names.fresh(rng.choice(("merged", "result", "updated")))
            steps = {
                "dict.update": f"{copy}.update({other.text})" if other else f"{copy}.update({{'total': sum({copy}.values())}})",
                "dict.setdefault": f"{copy}.setdefault(min({copy}), 0)",
                "dict.pop": f"{copy}.pop(max({copy}, key={copy}.get), None)",
                "dict.popitem": f"{copy}.popitem()",
                "op.delitem": f"del {copy}[min({copy}, key={copy}.get)]",
            }
            guarded = {"dict.setdefault", "dict.popitem"}
            first = f"{copy} = {rng.choices((f'dict({x})', f'{{**{x}}}'), (3, 1))[0]}"
        else:
            raise GenFail("no straight use")
        need = self.spec.nested_depth
        if t.endswith(".copy"):
            first = f"{copy} = {x}.copy()"
            options = [v for key, v in steps.items() if key not in guarded and "_slot" not in v and nested_depth(v) >= need]
            step = rng.choice(options) if options else None
        else:
            step = steps.get(t)
        if step is not None and nested_depth(step) < need == 1 and not t.endswith(".copy"):
            first = f"{copy} = {_NORMALIZED_COPY[subject.grain].format(x=x)}"  # the copy made of normalized items
        if step is None or max(nested_depth(step), nested_depth(first)) < need:  # reached in the code, never by wrapping the result
            raise GenFail("no straight use" if step is None else "depth not reached")
        self.placed = True
        body: list = [first, step, f"return sorted({copy})" if family == "set" else f"return {copy}"]
        if self.wants_marker():
            raise GenFail("unused parameter slot")
        name = self.names.fresh(_verb_for(t) + "_" + subject.text)
        return (name, SIGNATURE, _annotation_of_return(body[-1], subject.grain), body)

    def deepen(self, value: Val, deep_enough, accepts) -> Val:
        """Wrap ``value`` in steps that add a call level and a meaning (:data:`WRAPPERS`: ``len(set(word))`` is
        the number of distinct letters, ``''.join(sorted(word))`` the letters in order...), each at most
        once, until ``deep_enough(value)``; a plain name first gets the wrapper's own preparation
        (``word.lower()``) when one level is not enough. ``accepts(grain)``: grains the result may have."""
        applied: set[str] = set()
        for _ in range(3):
            if deep_enough(value):
                return value
            heads = _heads_of(value.text)
            if heads & _PADDING:
                return value  # a padded string is an end product: its letters, sorted or counted, say nothing
            reshaped = heads & _RESHAPING  # case-changed: its length or distinct letters say little
            # a repetition (``ch * 2``, ``nums[:3] * 2``): its distinct items are the original's, its length a multiple
            repeated = "op.mul" in heads and grain_type(value.grain) not in ("int", "float")
            options = [w for w in WRAPPERS.get(value.grain, ()) if accepts(w[1]) and w[0] not in applied
                       and not (w[0] == "len({v})" and _keeps_length(value.text))
                       and not ((reshaped or repeated) and w[0].startswith("len("))
                       and not (repeated and "set(" in w[0])
                       and not (w[0] in _NAME_ONLY_WRAPPERS and not value.text.isidentifier())]
            if not options:
                return value
            template, grain, prep = self.rng.choice(self.frugal(options, lambda w: w[0]))
            head = template.split("(", 1)[0]
            inner_head = value.text.split("(", 1)[0]
            if ((head and head in inner_head) or (head in ("max", "min", "sum", "len", "set") and inner_head in ("sorted", "reversed"))
                    or (f"builtin.{head}", f"builtin.{inner_head}") in _INVERSE):
                applied.add(template)
                continue  # no sorted(sorted(...)), no max(sorted(...)), no ord(chr(b)): the inner step would change nothing
            inner = value.text
            if inner.isidentifier() and prep and not deep_enough(Val.of(template.format(v=inner), grain)):
                inner = inner + self.rng.choice(prep)
            applied.add(template)
            value = Val.of(template.format(v=inner if inner.isidentifier() or "(" in inner or "." in inner else atom(inner)), grain)
        return value

    def params_unread(self, value: Val) -> list[Val]:
        return [Val(p.name, p.grain, frozenset({p.name})) for p in self.params if p.name not in value.reads]

    def combine(self, value: Val, other: Val) -> Val:
        """``value`` combined with a parameter it does not read yet: the first ``limit`` items, a cap, the
        count of a fragment, a test against a threshold. ``other`` may be a marker (grain ``marker``)."""
        g, o = value.grain, other.grain
        sequence = g in ("words", "nums", "numstrs", "word", "text", "line", "digits")
        number = g in ("count", "num", "index")
        if o == "marker":  # a parameter still to make: its grain follows from the use
            if not (sequence or number):
                raise GenFail(f"cannot give a {g} result a second parameter")
            o = "count" if sequence else "limit"
            self.markers[other.text] = (o, "", False)
        if o in ("limit", "count") and sequence:
            return Val.of(f"{atom(value.text)}[:{other.text}]", g)
        if o in ("limit", "count", "num") and number:
            if self.rng.random() < 0.5 and builtin_chain(value.text) < 2:
                return Val.of(f"min({value.text}, {other.text})", "num")
            return Val.of(f"{atom(value.text)} > {other.text}", "bool")
        if o == "fragment" and g in ("word", "text", "line"):
            return Val.of(f"{atom(value.text)}.count({other.text})", "count")
        if o == "fragment" and g in ("words",):
            return Val.of(f"[w for w in {value.text} if w.startswith({other.text})]", "words")
        raise GenFail(f"cannot combine {g} with {o}")

    # ------------------------------------------------------------------ control flow (levels 3-6)
    def looped(self) -> list[tuple[str, str, str, list]]:
        return LoopBuilder(self).build()


# ---------------------------------------------------------------------------------------------- helpers

def _flatten(functions: list) -> list[str]:
    """The parameter lists and the statements' texts of ``(name, parameters, returns, body)`` functions."""
    return [t for _, params, _, body in functions for t in (params, *texts(body))]


def _substitute(functions: list, fn) -> list:
    return [(name, fn(params), returns, rewrite(body, fn)) for name, params, returns, body in functions]


def _takes_iterable(form: Form) -> bool:
    """Whether the form passes its subject to a function that takes any iterable (no list needed)."""
    return form.head in ("builtin.sum", "builtin.max", "builtin.min", "builtin.sorted", "builtin.set", "builtin.len",
                         "builtin.any", "builtin.all", "builtin.frozenset", "builtin.tuple", "str.join", "builtin.dict",
                         "builtin.enumerate", "builtin.zip", "builtin.list") and form.text.startswith(form.head.split(".")[-1] + "(")


def _unwrap_list(text: str) -> str:
    """``list(X)`` -> ``X`` (a consumer that takes any iterable does not need the list)."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return text
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "list"
            and len(node.args) == 1 and not node.keywords):
        return ast.unparse(node.args[0])
    return text

#: wrappers that add a call level and a meaning, by the grain of the value they take:
#: (template, grain of the result, preparations of a plain name when one level is not enough)
WRAPPERS: dict[str, tuple[tuple[str, str, tuple[str, ...]], ...]] = {
    "word": (("len(set({v}))", "count", (".lower()",)), ("len({v})", "count", (".strip('.')", ".strip()")),
             ("''.join(sorted({v}))", "word", (".lower()",))),  # the letters in order: an anagram's key
    "text": (("len({v}.split())", "count", ()), ("sorted({v}.split())", "words", (".lower()",)),
             ("len(set({v}.split()))", "count", (".lower()",)), ("max({v}.split(), key=len)", "word", ()),
             ("' '.join({v}.split())", "text", (".strip()",))),
    "line": (("len({v}.split(','))", "count", ()), ("len({v})", "count", (".strip()",))),
    "numstr": (("len({v})", "count", (".strip()",)),),
    "digits": (("sum(map(int, {v}))", "num", ()), ("len(set({v}))", "count", ())),
    "blobs": (("len({v})", "count", ()), ("b'-'.join({v})", "blob", ())),
    "char": (("ord({v})", "num", (".lower()",)),),
    "num": (("len(str({v}))", "count", ()),),
    "count": (),
    "words": (("len(set({v}))", "count", ()), ("sorted(set({v}))", "words", ()), ("' '.join({v})", "text", ()),
              ("max({v}, key=len)", "word", ())),
    "nums": (("sum({v})", "num", ()), ("len(set({v}))", "count", ()), ("sorted(set({v}))", "nums", ())),
    "blob": (("len({v})", "count", (".strip()",)), ("len(set({v}))", "count", (".lower()",)),
             ("b' '.join({v}.split())", "blob", ())),  # (never the bytes sorted: no one wants them in that order)
    "amount": (("round({v}, 1)", "amount", ()), ("int({v})", "num", ())),
}
#: wrappers that mean something of a value people name (the digits of a count, the letters of a word), and
#: nothing of a computed one (the digits of ``ord(ch)``, the sorted letters of ``oct(n)``)
_NAME_ONLY_WRAPPERS = {"len(str({v}))", "''.join(sorted({v}))"}
_LENGTH_KEEPERS = (".upper(", ".lower(", ".title(", ".capitalize(", ".swapcase(", ".casefold(", "sorted(", "reversed(",
                   "[", ".translate(", "list(", ".encode(", ".decode(", ".zfill(", ".center(", ".ljust(", ".rjust(", " * ")


def _keeps_length(text: str) -> bool:
    return any(k in text for k in _LENGTH_KEEPERS)


_LENGTH_KEEPING = {"str.upper", "str.lower", "str.title", "str.capitalize", "str.swapcase", "str.casefold",
                   "str.translate", "builtin.sorted", "builtin.reversed", "op.slice_reverse", "list.copy", "set.copy",
                   "builtin.list", "builtin.tuple", "str.encode", "bytes.decode", "builtin.bytes", "builtin.map",
                   "dict.copy", "frozenset.copy", "op.slice_copy", "bytes.upper", "bytes.lower", "bytes.title",
                   "bytes.capitalize", "bytes.swapcase", "builtin.str", "op.repeat"}
_ORDER_ONLY = {"builtin.sorted", "builtin.reversed", "op.slice_reverse", "list.copy", "op.slice_copy"}
_ORDER_BLIND = {"builtin.sum", "builtin.max", "builtin.min", "builtin.len", "builtin.set", "builtin.frozenset",
                "builtin.sorted", "builtin.any", "builtin.all"}
_CASE = {"str.upper", "str.lower", "str.title", "str.capitalize", "str.swapcase", "str.casefold"}
_INVERSE = {("builtin.int", "builtin.str"), ("builtin.str", "builtin.int"), ("builtin.list", "builtin.tuple"),
            ("builtin.tuple", "builtin.list"), ("bytes.decode", "str.encode"), ("str.encode", "bytes.decode"),
            ("builtin.set", "builtin.frozenset"), ("builtin.frozenset", "builtin.set"), ("builtin.list", "builtin.list"),
            ("builtin.set", "builtin.set"), ("builtin.sorted", "builtin.sorted"), ("builtin.abs", "builtin.abs"),
            ("builtin.ord", "builtin.chr"), ("builtin.chr", "builtin.ord")}


@lru_cache(maxsize=65536)
def _heads_of(text: str) -> frozenset[str]:
    from execverify_data.catalog.usage import analyze

    try:
        return frozenset(analyze(f"def _f(x):\n    return {text}\n").ids)
    except SyntaxError:
        return frozenset()


def _meaningful(outer: Form, value: Val) -> bool:
    """Whether applying ``outer`` to ``value`` says something ``value`` alone does not (no round trip)."""
    inner = _heads_of(value.text)
    if outer.head in ("builtin.len",) and inner & _LENGTH_KEEPING:
        return False
    if outer.head in _ORDER_BLIND and inner & _ORDER_ONLY:
        return False
    if outer.head in _CASE and inner & _CASE:
        return False
    if any((outer.head, i) in _INVERSE for i in inner):
        return False
    return not (outer.head == "builtin.sorted" and "builtin.set" not in inner and value.grain in ("nums", "words") and "builtin.sorted" in inner)


_RESULT_NAMES = {"len": "count", "sorted": "ordered", "sum": "total", "max": "largest", "min": "smallest", "set": "unique",
                 "list": "items", "dict": "table", "tuple": "items", "abs": "distance", "str": "label", "int": "number"}


#: preparations of an input that are themselves a nested call (and keep its type), by grain: (template, name)
_DEEP_BEFORE = {
    "text": (("' '.join({x}.split())", "normalized"), ("' '.join(sorted({x}.split()))", "ordered")),
    "word": (("''.join(sorted({x}))", "letters"),),
    "digits": (("''.join(sorted({x}))", "ordered"),),
    "nums": (("sorted(set({x}))", "unique"), ("list(map(abs, {x}))", "sizes")),
    "words": (("sorted(set({x}))", "unique"), ("list(map(str.lower, {x}))", "lowered"), ("list(filter(None, {x}))", "nonempty")),
    "numstrs": (("list(map(str.strip, {x}))", "cleaned"),),
    "ids": (("set(map(abs, {x}))", "sizes"),),
    "tags": (("set(map(str.lower, {x}))", "lowered"),),
    "fids": (("frozenset(map(abs, {x}))", "sizes"),),
    "ftags": (("frozenset(map(str.lower, {x}))", "lowered"),),
    "table": (("dict(sorted({x}.items()))", "ordered"),),
    "blob": (("b' '.join({x}.split())", "normalized"),),
}
#: the steps that prepare an input for a use, as people clean or order data before they use it: trimmed, lower-cased,
#: a prefix or suffix dropped, sorted, a header or a tail cut off (never a case change for show, a reversal, every
#: other item or character: readers called ``text.swapcase()`` before ``splitlines()`` and ``raw[::2]`` arbitrary)
_PREPARING = {"str.strip", "str.lstrip", "str.rstrip", "str.lower", "str.casefold", "str.removeprefix",
              "str.removesuffix", "bytes.strip", "bytes.lower", "builtin.sorted", "op.slice_to", "op.slice_from",
              "op.slice_copy"}
#: names of a straight-line preparing step, by its head
_BEFORE_NAMES = {"str.strip": "cleaned", "str.lstrip": "cleaned", "str.rstrip": "cleaned", "str.lower": "lowered",
                 "str.upper": "upper", "str.casefold": "folded", "str.title": "titled", "str.capitalize": "capitalized",
                 "str.swapcase": "swapped", "str.replace": "replaced", "str.removeprefix": "rest", "str.removesuffix": "stem",
                 "op.slice_reverse": "backwards", "op.slice_to": "head", "op.slice_from": "tail", "op.slice": "inner",
                 "op.slice_step": "every_other", "op.slice_from_step": "odd_places", "builtin.sorted": "ordered",
                 "builtin.reversed": "backwards", "op.slice_copy": "copy", "str.translate": "coded",
                 "bytes.strip": "cleaned", "bytes.lower": "lowered", "bytes.upper": "upper", "bytes.replace": "replaced"}
#: tests a case change decides by itself (``text.lower().islower()``)
_CASE_TESTS = {"str.isupper", "str.islower", "str.istitle", "bytes.isupper", "bytes.islower", "bytes.istitle"}
#: a one-call-deeper copy of an input of each grain, of normalized items (straight-line code over a copy)
_NORMALIZED_COPY = {"nums": "list(map(abs, {x}))", "words": "list(map(str.lower, {x}))", "ids": "set(map(abs, {x}))",
                    "tags": "set(map(str.lower, {x}))", "table": "dict(sorted({x}.items()))"}

#: steps after which a count of the items or letters is noise (``len(set(word.zfill(8)))``, ``len(set(b.title()))``)
_RESHAPING = {"str.zfill", "str.center", "str.ljust", "str.rjust", "str.expandtabs", "str.title", "str.capitalize",
              "str.swapcase", "str.upper", "str.lower", "str.casefold", "str.translate", "bytes.zfill", "bytes.center",
              "bytes.ljust", "bytes.rjust", "bytes.expandtabs", "bytes.title", "bytes.capitalize", "bytes.swapcase",
              "bytes.upper", "bytes.lower", "bytes.translate"}

_PADDING = {"builtin.range", "int.to_bytes", "str.replace", "bytes.replace", "str.zfill", "str.center", "str.ljust", "str.rjust", "str.expandtabs", "bytes.zfill",
            "bytes.center", "bytes.ljust", "bytes.rjust", "bytes.expandtabs"}


def _meaningful_pair(inner: Form, outer: Form) -> bool:
    """Whether ``outer`` applied to what ``inner`` gives keeps ``inner``'s effect (``len`` of a case change or a
    reorder, the case of a case change, a total of a reorder say nothing ``inner`` did)."""
    if outer.head == "builtin.len" and (inner.head in _LENGTH_KEEPING or inner.head in _PADDING):
        return False
    if outer.head in _ORDER_BLIND and inner.head in _ORDER_ONLY:
        return False
    if outer.head in _CASE and inner.head in _CASE:
        return False
    return (outer.head, inner.head) not in _INVERSE


def _annotation_of_return(text: str, grain: str) -> str:
    """The annotation of ``return X`` in straight-line code over a copy of an input of ``grain``."""
    value = text.removeprefix("return ").strip()
    if value.startswith("dict("):
        return "dict[str, int]"
    if value.startswith(("sorted(", "list(")):
        return "list[int]" if grain in ("nums", "ids") or "map(len" in value or "map(abs" in value else "list"
    return annotation(grain)


#: one nested step that prepares the items an L1/L2 test is counted over: (input grain, item grain) -> templates
_PREPARED = {
    ("text", "word"): (("sorted(set({v}.split()))", "words"), ("sorted({v}.lower().split())", "words"),
                       ("sorted(set({v}.lower().split()))", "words")),
    ("text", "char"): (("sorted(set({v}))", "letters"), ("list({v}.strip())", "chars"), ("sorted(set({v}.lower()))", "letters")),
    ("word", "char"): (("sorted(set({v}))", "letters"), ("list({v}.lower())", "chars"), ("sorted({v}.strip())", "chars")),
    ("line", "char"): (("sorted(set({v}))", "chars"), ("list({v}.strip())", "chars")),
    ("line", "word"): (("sorted({v}.split(','))", "fields"), ("sorted(set({v}.split(',')))", "fields")),
    ("digits", "char"): (("sorted(set({v}))", "digits_seen"), ("list(reversed({v}))", "backwards")),
    ("words", "word"): (("sorted(set({v}))", "unique"), ("list(map(str.strip, {v}))", "cleaned")),
    ("twords", "word"): (("sorted(set({v}))", "unique"),),
    ("tags", "word"): (("sorted(map(str.lower, {v}))", "lowered"),),
    ("ftags", "word"): (("sorted(map(str.lower, {v}))", "lowered"),),
    ("numstrs", "numstr"): (("sorted(set({v}))", "unique"), ("list(map(str.strip, {v}))", "cleaned")),
    ("nums", "num"): (("sorted(set({v}))", "unique"), ("list(map(abs, {v}))", "sizes")),
    ("tnums", "num"): (("sorted(set({v}))", "unique"),),
    ("ids", "num"): (("sorted(map(abs, {v}))", "sizes"),),
    ("fids", "num"): (("sorted(map(abs, {v}))", "sizes"),),
    ("blob", "blob"): (("sorted({v}.split())", "chunks"), ("sorted(set({v}.split()))", "chunks")),
}
_PRED_VERBS = {"isdigit": "digits_in", "isalpha": "letters_in", "isupper": "upper_in", "islower": "lower_in",
               "isspace": "spaces_in", "startswith": "starting", "endswith": "ending", "istitle": "titles_in",
               "isalnum": "alnum_in", "isdecimal": "decimals_in", "isnumeric": "numerals_in", "isascii": "ascii_in",
               "isidentifier": "names_in", "isprintable": "printable_in"}
_VERBS = {"pred": "check", "measure": "measure", "map": "convert", "parts": "split", "agg": "summarize", "pair": "parse"}


def _function_name(form: Form, subject: Val, rng: random.Random) -> str:
    head = form.head.split(".")[-1]
    verb = {"split": "split", "rsplit": "split", "partition": "parse", "rpartition": "parse", "count": "count",
            "find": "locate", "rfind": "locate", "index": "locate", "rindex": "locate", "len": "size_of",
            "sorted": "sort", "join": "join", "sum": "sum", "max": "largest", "min": "smallest", "strip": "clean",
            "replace": "replace_in", "upper": "shout", "lower": "normalize", "decode": "decode", "hex": "hex_of",
            "get": "lookup", "union": "merge", "intersection": "common", "difference": "without"}.get(head)
    return f"{verb or _VERBS.get(form.role, 'process')}_{subject.text}"


def _verb_for(target: str) -> str:
    return {"list.append": "extend", "list.insert": "rotate", "list.extend": "pad", "list.sort": "rank",
            "list.reverse": "flip", "list.remove": "drop_max", "list.pop": "drop_min", "set.add": "with_size",
            "set.update": "merge", "set.discard": "without_top", "set.remove": "without_min",
            "set.intersection_update": "keep_common", "set.difference_update": "subtract",
            "set.symmetric_difference_update": "toggle", "dict.update": "merge", "dict.setdefault": "ensure",
            "dict.pop": "drop_top", "dict.popitem": "drop_last"}.get(target, "update")
