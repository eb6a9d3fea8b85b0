"""The programmatic generator: type-directed programs that meet a constraint level by construction.

:func:`generate` builds one program meeting a :class:`~execverify_data.synth.spec.ConstraintSpec`
from a seed, with no model and no GPU (:func:`spec_for` draws a level's spec from a seed):

* without control flow (L1, L2): straight-line code, the target call bound to a
  named result and consumed by 0-2 further steps, with nested calls as the spec asks;
* with a control-flow chain (L3-L5): an accumulator idiom (:mod:`.idioms`) inside the
  spec's chain of ``for`` (over finite iterables), ``if``/``if-elif`` and ``while``
  (over a strictly decreasing counter bounded by a length), so every loop terminates;
* with a helper chain (L6): a straight-line helper holds the target and the entry
  point, holding the control-flow chain, calls it.

The same ``(spec, seed)`` always gives the same program, whatever the
process or hash seed (no set or dict iteration order reaches a choice).

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
import random
from dataclasses import dataclass, field
from functools import lru_cache

from execverify_data import catalog
from execverify_data.astwalk import walk
from execverify_data.catalog import typelang
from execverify_data.catalog.typelang import Type
from execverify_data.errors import InvalidArgument
from execverify_data.synth.exprs import ExprBuilder, GenFail, name_for_param, name_for_result, producers
from execverify_data.synth.idioms import KINDS, Accumulator, expr_node, stmt
from execverify_data.synth.ir import Expr, Function, Scope, T, call_function, literal, render
from execverify_data.synth.spec import ConstraintSpec, level_spec
from execverify_data.synth.typing_ import (
    PARAM_TYPES,
    Instance,
    bind,
    element_type,
    instances,
    is_value_type,
    usable_entries,
)

__all__ = ["GENERATOR_VERSION", "LEVELS", "Program", "generate", "level_of", "spec_for", "targets"]

#: Bumped whenever the same seed can give a different program.
GENERATOR_VERSION = "1.1.0"
#: The six constraint levels.
LEVELS = (1, 2, 3, 4, 5, 6)
_ATTEMPTS = 12


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
    """

    code: str
    entry_point: str
    param_types: tuple[str, ...]
    param_names: tuple[str, ...]
    level: int
    target: str
    seed: int
    helpers: tuple[str, ...] = field(default=())


def targets() -> tuple[str, ...]:
    """Catalog ids a program can target: methods and builtin functions available here."""
    return tuple(i for i in usable_entries() if not i.startswith("op."))


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
    if _hopeless(spec):
        raise GenFail(f"{spec.target} alone cannot read {spec.n_params} parameters (level 1 allows no other call)")
    rng = random.Random(seed)
    last: Exception | None = None
    for attempt in range(_ATTEMPTS):
        sub = random.Random(rng.getrandbits(64))
        try:
            return _Gen(sub, spec, seed).run()
        except (GenFail, RecursionError, typelang.InvalidArgument, KeyError, IndexError) as exc:
            last = exc
    raise GenFail(f"could not build a program for {spec.target} (control flow {spec.control_flow}) from seed {seed}: {last}")


def _slots(inst: Instance) -> int:
    """How many parameters one call of ``inst`` can read: its receiver and its non-callable arguments."""
    return (inst.sig.receiver is not None) + sum(
        2 if p.variadic else 1 for p in inst.sig.params if "Callable" not in p.type and p.type != "type")


def _hopeless(spec: ConstraintSpec) -> bool:
    """A level-1 spec (the target is the only call allowed) with more parameters than any use of the target reads."""
    if spec.other_methods or spec.control_flow or spec.helper_depth:
        return False
    return spec.n_params > _most_slots(spec.target)


@lru_cache(maxsize=None)
def _most_slots(target: str) -> int:
    return max((_slots(i) for i in instances(target)), default=0)


def level_of(spec: ConstraintSpec) -> int:
    """The ExecVerify level a spec corresponds to (1-6)."""
    if spec.helper_depth:
        return 6
    if spec.control_flow:
        return 2 + len(spec.control_flow)
    return 2 if spec.other_methods else 1


def spec_for(level: int, seed: int, *, min_size: int = 6, max_size: int = 10) -> ConstraintSpec:
    """The spec of row ``seed`` at ``level``: target and level options drawn from the seed only.

    >>> spec_for(3, 11) == spec_for(3, 11)
    True
    """
    if level not in LEVELS:
        raise InvalidArgument(f"level must be one of {LEVELS}, got {level!r}")
    rng = random.Random(seed)
    target = rng.choice(targets())
    return level_spec(level, target, rng, min_size=min_size, max_size=max_size)


# --------------------------------------------------------------------------- helpers


@dataclass(frozen=True)
class _Helper:
    """A generated helper function that later functions may (or must) call."""

    name: str
    params: tuple[Type, ...]
    returns: Type


def _singular(name: str, elem: Type) -> str:
    if elem.name == "str" and name in ("text", "s", "sentence", "line", "phrase", "label", "name", "word"):
        return "ch"
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s") and len(name) > 3 and not name.endswith("ss"):
        return name[:-1]
    return {"int": "x", "str": "item"}.get(elem.name, "item")


def _is_mutator(inst: Instance) -> bool:
    return inst.sig.mutates or inst.sig.returns == "None" or inst.entry.form == "stmt"


_PURE: dict[str, list[Instance]] = {}


def _pure_producers(type_text: str) -> list[Instance]:
    """Producers of ``type_text`` that change nothing in place."""
    if type_text not in _PURE:
        _PURE[type_text] = [i for i in producers().get(type_text, []) if not _is_mutator(i)]
    return _PURE[type_text]


class _Gen:
    def __init__(self, rng: random.Random, spec: ConstraintSpec, seed: int):
        self.rng = rng
        self.spec = spec
        self.level = level_of(spec)
        self.target = spec.target
        self.seed = seed
        options = [i for i in instances(spec.target) if self._feasible(i)]
        if not options:
            raise GenFail(f"{spec.target} has no signature the generator can use")
        self.inst = rng.choice(options)
        self.placed = False

    def _feasible(self, inst: Instance) -> bool:
        if not self.spec.control_flow and not _is_mutator(inst) and not is_value_type(inst.returns):
            return False
        return True

    # ------------------------------------------------------------------ driver
    def run(self) -> Program:
        spec = self.spec
        if spec.helper_depth:
            functions = self.chain()
        elif spec.control_flow:
            functions = [self.looped(spec.control_flow, n_params=spec.n_params)]
        else:
            functions = [self.straight(spec.other_methods, n_params=spec.n_params)]
        names = [f.name for f in functions]
        if len(set(names)) != len(names):
            raise GenFail("two functions with one name")
        deepen(functions, spec.nested_depth, self.rng)
        main = functions[-1]
        code = render(functions)
        if spec.other_methods and not self._other_anywhere(functions):
            if not _wrap_one(functions, self.rng, 1) or not self._other_anywhere(functions):
                raise GenFail("no other method or function")
            code = render(functions)
        ast.parse(code)
        return Program(code, main.name, tuple(str(p.type) for p in main.params), tuple(p.name for p in main.params),
                       self.level, self.target, self.seed, tuple(f.name for f in functions[:-1]))

    # ------------------------------------------------------------------ params
    def declare_params(self, scope: Scope, inst: Instance | None, b: ExprBuilder, n: int, *,
                       loops: bool = False, given: list[Type] | None = None) -> list:
        """Declare exactly ``n`` parameters, typed for the callee's receiver and arguments."""
        rng = self.rng
        wanted: list[Type] = list(given or [])
        if inst is not None and not given:
            if inst.sig.receiver is not None:
                wanted.append(b.concretize(inst.ptype("self")))
            for p in inst.sig.params:
                if p.optional or p.keyword:
                    continue
                pt = inst.ptype(p.name)
                if pt.name in ("Callable", "Iterator", "type") or (pt.name == "|" and any(m.name in ("Callable", "type") for m in pt.args)):
                    continue
                wanted.append(b.concretize(pt))
        wanted = [t for t in wanted if str(t) in PARAM_TYPES]
        head, rest = wanted[:1], wanted[1:]
        rng.shuffle(rest)
        wanted = (head + rest)[:n]
        if loops and n > len(wanted) and not any(element_type(t) is not None for t in wanted):
            wanted.append(T(rng.choice(("list[int]", "list[str]", "str"))))
        while len(wanted) < n:
            wanted.append(T(rng.choice(("int", "str", "list[int]", "list[str]", "int"))))
        return [scope.declare(scope.fresh(name_for_param(str(t), rng)), t, param=True) for t in wanted]

    def callee_expr(self, b: ExprBuilder, callee, *, budget: int, fixed: dict | None = None) -> tuple[Expr, list[Expr]]:
        if isinstance(callee, _Helper):
            args = []
            fixed_list = list((fixed or {}).values())
            for t in callee.params:
                match = [e for e in fixed_list if e.type == t]
                if match:
                    e = match[0]
                    fixed_list.remove(e)
                else:
                    e = b.expr(t, budget)
                args.append(e)
            e = call_function(callee.name, args, callee.returns, entry=None)
            b.used_params |= e.reads
            return e, []
        return b.call(callee, budget=budget, fixed=fixed)

    def fixed_for(self, callee, focus: list[Expr]) -> dict[str, Expr]:
        """Bind a focus expression to a compatible parameter of the callee."""
        if isinstance(callee, _Helper):
            out = {}
            for i, t in enumerate(callee.params):
                for e in focus:
                    if e.type == t and e not in out.values():
                        out[f"p{i}"] = e
                        break
            return out
        names = [p.name for p in callee.sig.params if not p.optional and not p.keyword and not p.variadic]
        self.rng.shuffle(names)
        if callee.sig.receiver is not None:
            names.insert(0 if self.rng.random() < 0.85 else len(names), "self")
        for e in focus:
            for n in names:
                pt = callee.ptype(n)
                if e.type.name == "bool" and pt.name != "bool" and not pt.is_var:
                    continue
                if pt.name not in ("Callable",) and bind(pt, e.type, {}) is not None:
                    if callee.entry.form == "stmt" and n == "a" and not isinstance(e.node, ast.Name):
                        continue
                    return {n: e}
        return {}

    # ------------------------------------------------------------------ statements
    def emit_call(self, b: ExprBuilder, scope: Scope, callee, *, budget: int, fixed: dict | None = None,
                  name: str | None = None) -> tuple[list[ast.stmt], Expr | None, list[Expr]]:
        """Statement(s) using the callee; returns (stmts, expression of a named result or mutated object, guards)."""
        e, guards = self.callee_expr(b, callee, budget=budget, fixed=fixed)
        if isinstance(callee, Instance) and callee.entry.form == "stmt":
            first = e  # the template's first operand is assignable (fixed to a Name)
            target_node = ast.parse(e.text).body[0] if False else None
            raise GenFail("statement operators are emitted by emit_stmt_op")
        if isinstance(callee, Instance) and _is_mutator(callee):
            recv = e.node.func.value if isinstance(e.node, ast.Call) and isinstance(e.node.func, ast.Attribute) else None
            if not isinstance(recv, ast.Name):
                raise GenFail("mutator receiver must be a variable")
            var = next((v for v in scope.all_vars() if v.name == recv.id), None)
            if var is None:
                raise GenFail("mutator receiver not in scope")
            if var.name in getattr(self, "iterating", ()):
                raise GenFail("a loop must not mutate what it iterates")
            if callee.returns.name == "None":
                return [ast.Expr(e.node)], Expr.var(var), guards
            res = scope.fresh(name or name_for_result(callee.entry.name, e.type))
            scope.declare(res, e.type)
            return [ast.Assign([ast.Name(res, ast.Store())], e.node)], Expr(ast.Name(res, ast.Load()), e.type, frozenset(), frozenset({res})), guards
        if not is_value_type(e.type):
            if not b.allow_other:
                raise GenFail("result has no literal form")
            wrap = "list" if e.type.name not in ("range",) else "list"
            elem = element_type(e.type)
            if elem is None:
                raise GenFail(f"cannot materialize {e.type}")
            e = call_function(wrap, [e], Type("list", (elem,)), entry="builtin.list")
        res = scope.fresh(name or name_for_result(callee.name if isinstance(callee, _Helper) else callee.entry.name, e.type))
        scope.declare(res, e.type)
        return [ast.Assign([ast.Name(res, ast.Store())], e.node)], Expr(ast.Name(res, ast.Load()), e.type, frozenset(), frozenset({res})), guards

    def emit_stmt_op(self, b: ExprBuilder, scope: Scope, inst: Instance) -> tuple[list[ast.stmt], Expr, list[Expr]]:
        """A statement-form operator (``a[i] = v``, ``del a[i]``, ``a += b``) on a variable."""
        at = inst.ptype("a")
        cands = [v for v in scope.all_vars() if bind(at, v.type, {}) is not None and (v.param or v.mutable_local)
                 and v.name not in getattr(self, "iterating", ())]
        if not cands:
            raise GenFail("no variable for the statement operator")
        var = self.rng.choice(cands)
        e, guards = b.call(inst, budget=0 if not b.allow_other else 1, fixed={"a": Expr.var(var)})
        return [ast.parse(e.text if False else _stmt_text(inst, e)).body[0]], Expr.var(var), guards

    # ------------------------------------------------------------------ straight line (L1, L2, helpers)
    def straight(self, allow_other: bool, *, n_params: int, callee=None, params: list[Type] | None = None,
                 need_other: bool | None = None) -> Function:
        rng = self.rng
        callee = callee or self.inst
        scope = Scope()
        b = ExprBuilder(rng, scope, allow_other=allow_other, target=self.target)
        ps = self.declare_params(scope, callee if isinstance(callee, Instance) else None, b, n_params, given=params)
        body: list[ast.stmt] = []
        transformed = False
        # sometimes normalise a parameter first (text = text.lower())
        if allow_other and rng.random() < 0.25:
            p = rng.choice(ps)
            step = self.convert(b, Expr.var(p), p.type, step=True, tries=6)
            if step is not None:
                body.append(ast.Assign([ast.Name(p.name, ast.Store())], step.node))
                transformed = True
        if isinstance(callee, Instance) and callee.entry.form == "stmt":
            stmts, result, gs = self.emit_stmt_op(b, scope, callee)
        else:
            focus = [Expr.var(p) for p in ps]
            rng.shuffle(focus)
            fixed = self.fixed_for(callee, focus) if rng.random() < 0.8 else {}
            stmts, result, gs = self.emit_call(b, scope, callee, budget=1, fixed=fixed)
            if not _is_mutator(callee) if isinstance(callee, Instance) else False:
                if rng.random() < 0.4:
                    nested = self._nest_self(b, callee, stmts, result)
                    if nested is not None:
                        stmts, result = nested
        if gs and rng.random() < 0.5:
            # a guarded call: the precondition becomes a conditional expression
            test = self.take_guards(gs[-1]) if False else gs[0]
            alt = b.literal_for(result.type) if is_value_type(result.type) else None
            last = stmts[-1]
            if alt is not None and isinstance(last, ast.Assign):
                last.value = ast.IfExp(test.node, last.value, alt.node)
        body += stmts
        # one or two more steps consuming the latest result
        for _ in range(rng.choice((0, 1, 1, 2)) if allow_other else rng.choice((0, 0, 1))):
            step = self._consume(b, scope, result)
            if step is None:
                break
            st, result = step
            body += st
        unused = [p for p in ps if p.name not in b.used_params and p.name not in {n for node in body for n in _names_read(node)}]
        for p in unused:  # use a forgotten parameter in one more step
            step = self._combine(b, scope, result, Expr.var(p))
            if step is None:
                raise GenFail(f"parameter {p.name} is unused")
            st, result = step
            body += st
        if isinstance(result.node, ast.Name) and rng.random() < 0.3:
            body += self._tweak(result)
        if not is_value_type(result.type):
            raise GenFail("result type has no literal")
        if (allow_other if need_other is None else need_other) and not self._has_other(ps, body, result):
            step = self._consume(b, scope, result, calls_only=True)
            if step is None:
                raise GenFail("no other method or function")
            st, result = step
            body += st
        first = body[0] if body and transformed else None
        if (isinstance(first, ast.Assign) and isinstance(first.targets[0], ast.Name)
                and first.targets[0].id not in {n for node in body[1:] for n in _names_read(node)} | {result.text}):
            body = body[1:]
        body = self._inline_last(body, result)
        name = self.function_name(callee, ps, result)
        used = {n for node in body for n in _names_read(node)}
        _check_no_dead_stores(body, used)
        if any(p.name not in used for p in ps):
            raise GenFail("a parameter is unused")
        return Function(name, ps, body, str(result.type))

    def _tweak(self, result: Expr) -> list[ast.stmt]:
        """An in-place adjustment of a result: ``count %= 7``, ``del items[:2]``, ``items[1:3] = [x]``..."""
        rng, name, t = self.rng, result.node.id, result.type
        k = rng.choice((2, 3, 5, 7))
        if t.name == "int":
            op = rng.choice(("+=", "-=", "*=", "//=", "%=", "|=", "&=", "^=", "<<=")[:8])
            return [stmt(f"{name} {op} {k}")]
        if t.name == "float":
            return [stmt(f"{name} {rng.choice(('/=', '*=', '-='))} {k}")]
        if t.name == "list" and t.args[0].name in ("int", "str"):
            item = repr(rng.choice((0, 1, 9)) if t.args[0].name == "int" else rng.choice(("x", "end", "a")))
            return [rng.choice((stmt(f"del {name}[:{k - 1}]"), stmt(f"{name}[1:{k}] = [{item}]"),
                                ast.If(expr_node(name), [stmt(f"del {name}[0]")], [])))]
        if t.name == "dict" and t.args[1].name == "int":
            return [ast.If(expr_node(f"{name}"), [stmt(f"{name}[next(iter({name}))] = {k}")], [])]
        if t.name == "set":
            return [stmt(f"{name} {rng.choice(('|=', '&=', '^=', '-='))} {{{k}}}" if t.args[0].name == "int" else f"{name} |= {{'x'}}")]
        return []

    def _combine(self, b: ExprBuilder, scope: Scope, result: Expr, other: Expr):
        """One step that reads both ``result`` and ``other``."""
        for _ in range(10):
            t = T(self.rng.choice(("int", "str", "list[int]", "list[str]", "bool", str(result.type), str(other.type))))
            opts = _pure_producers(str(t))
            if not opts:
                continue
            inst = self.rng.choice(opts)
            f1 = self.fixed_for(inst, [result])
            if not f1:
                continue
            f2 = {}
            names = [n for n in ((["self"] if inst.sig.receiver else []) + [p.name for p in inst.sig.params if not p.keyword and not p.variadic]) if n not in f1]
            for n in names:
                pt = inst.ptype(n)
                if pt.name != "Callable" and bind(pt, other.type, {}) is not None and not (other.type.name == "bool" and pt.name != "bool"):
                    f2 = {n: other}
                    break
            if not f2:
                continue
            try:
                out, gs = b.call(inst, fixed={**f1, **f2})
            except GenFail:
                continue
            if gs or not is_value_type(out.type):
                continue
            res = scope.fresh(name_for_result(_entry_name(out), out.type))
            scope.declare(res, out.type)
            return [ast.Assign([ast.Name(res, ast.Store())], out.node)], Expr(ast.Name(res, ast.Load()), out.type, frozenset(), frozenset({res}))
        return None

    def _inline_last(self, body: list[ast.stmt], result: Expr) -> list[ast.stmt]:
        last = body[-1] if body else None
        if (isinstance(last, ast.Assign) and len(last.targets) == 1 and isinstance(last.targets[0], ast.Name)
                and isinstance(result.node, ast.Name) and last.targets[0].id == result.node.id and self.rng.random() < 0.6):
            return body[:-1] + [ast.Return(last.value)]
        return body + [ast.Return(result.node)]

    def _nest_self(self, b: ExprBuilder, callee: Instance, stmts, result):
        last = stmts[-1]
        if not isinstance(last, ast.Assign):
            return None
        inner = Expr(last.value, result.type, frozenset({callee.entry.id}), frozenset())
        b.scope.vars = [v for v in b.scope.vars if v.name != last.targets[0].id]
        for inst in instances(callee.entry.id):
            fixed = self.fixed_for(inst, [inner])
            if fixed:
                try:
                    e, gs = b.call(inst, fixed=fixed)
                except GenFail:
                    continue
                if not is_value_type(e.type) or gs:
                    continue
                name = last.targets[0].id
                return [ast.Assign([ast.Name(name, ast.Store())], e.node)], Expr(ast.Name(name, ast.Load()), e.type, frozenset(), frozenset({name}))
        return None

    def convert(self, b: ExprBuilder, e: Expr, to: Type, guards: list[Expr] | None = None, *,
                step: bool = False, tries: int = 12) -> Expr | None:
        """An expression of type ``to`` that reads ``e`` (``e`` itself when it has that type, unless ``step``
        asks for one call on it, as in ``text = text.lower()``).

        A condition that tests a string or container for equality with (or membership in)
        a literal (``if text == 'blue'``, ``if word in ['kiwi', 'x']``) is true for almost no
        input, so the code under it never runs: such a test is taken only when no other
        condition turns up.
        """
        if e.type == to and not step:
            return e
        opts = _pure_producers(str(to))
        if to.name == "bool" and not step:
            opts = _informative_predicates(self.target)
        blind: tuple[Expr, list[Expr]] | None = None
        for _ in range(tries):
            if not opts:
                return None
            inst = self.rng.choice(opts)
            fixed = self.fixed_for(inst, [e])
            if not fixed:
                continue
            try:
                out, gs = b.call(inst, fixed=fixed)
            except GenFail:
                continue
            if gs and guards is None:
                continue
            if to.name == "bool" and not step and _blind_test(out, e, self._is_param(b, e)):
                blind = blind or (out, gs)
                continue
            if guards is not None:
                guards.extend(gs)
            return out
        if blind is not None:
            if guards is not None:
                guards.extend(blind[1])
            return blind[0]
        return None

    @staticmethod
    def _is_param(b: ExprBuilder, e: Expr) -> bool:
        return isinstance(e.node, ast.Name) and any(v.name == e.node.id and v.param for v in b.scope.all_vars())

    def _other_in(self, code: str) -> bool:
        """Whether some call maps only to catalog methods/functions other than the target (the checker's rule)."""
        from execverify_data.catalog.usage import analyze

        return any(use.ids and self.target not in use.ids for use in analyze(code).calls)

    def _other_anywhere(self, functions: list[Function]) -> bool:
        return any(self._has_other([], f.body, Expr(ast.Constant(None), T("None"))) for f in functions)

    def _has_other(self, ps, body, result) -> bool:
        """Cheap syntactic version of :meth:`_other_in` (the final check uses the usage analyzer)."""
        import builtins

        name = catalog.get(self.target).name
        for st in [*body, ast.Return(result.node)]:
            for n in walk(st):
                if isinstance(n, ast.Call):
                    f = n.func
                    if isinstance(f, ast.Name) and hasattr(builtins, f.id) and f.id != name:
                        return True
                    if isinstance(f, ast.Attribute) and f.attr != name:
                        return True
        return False

    def _consume(self, b: ExprBuilder, scope: Scope, result: Expr, calls_only: bool = False):
        if calls_only:
            opts = _call_consumers(str(result.type), self.target)
            for _ in range(10):
                if not opts:
                    break
                inst = self.rng.choice(opts)
                fixed = self.fixed_for(inst, [result])
                if not fixed:
                    continue
                try:
                    out, gs = b.call(inst, fixed=fixed)
                except GenFail:
                    continue
                if gs or not is_value_type(out.type):
                    continue
                res = scope.fresh(name_for_result(inst.entry.name, out.type))
                scope.declare(res, out.type)
                return [ast.Assign([ast.Name(res, ast.Store())], out.node)], Expr(ast.Name(res, ast.Load()), out.type, frozenset(), frozenset({res}))
            return None
        for _ in range(8):
            # no step to bool: a yes/no answer at the end of a chain makes most outputs alike
            t = T(self.rng.choice(("int", "str", "list[int]", "list[str]", str(result.type))))
            out = self.convert(b, result, t)
            if calls_only and (out is None or not isinstance(out.node, ast.Call) or self.target in out.entries):
                continue
            if out is not None and out is not result:
                res = scope.fresh(name_for_result(_entry_name(out), out.type))
                scope.declare(res, out.type)
                return [ast.Assign([ast.Name(res, ast.Store())], out.node)], Expr(ast.Name(res, ast.Load()), out.type, frozenset(), frozenset({res}))
        return None

    def function_name(self, callee, params, result: Expr | None, verb: str | None = None) -> str:
        noun = params[0].name if params else "value"
        if verb is None:
            verb = callee.name if isinstance(callee, _Helper) else callee.entry.name
            verb = {"add": "combine", "sub": "subtract", "mul": "multiply", "getitem": "pick", "in": "has",
                    "not_in": "lacks", "eq": "same", "ne": "differs", "fstring": "describe", "not": "negate"}.get(verb, verb)
            if verb.startswith("slice"):
                verb = "slice"
            if verb.startswith("i") and verb[1:] in ("add", "sub", "mul", "truediv", "floordiv", "mod", "or", "and", "xor"):
                verb = "update"
        return f"{verb}_{noun}".replace("__", "_")

    # ------------------------------------------------------------------ control flow (L3-L5)
    def looped(self, chain: tuple[str, ...], *, n_params: int, callee=None, params: list[Type] | None = None) -> Function:
        rng = self.rng
        callee = callee or self.inst
        scope = Scope()
        b = ExprBuilder(rng, scope, allow_other=True, target=self.target)
        ps = self.declare_params(scope, callee if isinstance(callee, Instance) else None, b, n_params,
                                 loops=any(c in ("for", "while") for c in chain), given=params)
        self.b, self.scope = b, scope
        self.callee = callee
        self.placed = False
        self.prelude_result = None
        self.char_vars: set[str] = set()
        self.iterating: set[str] = set()
        self.pending_guards: list[Expr] = []
        body: list[ast.stmt] = []
        mutator = isinstance(callee, Instance) and _is_mutator(callee)
        placement = rng.choice(("prelude", "leaf", "leaf")) if not mutator else rng.choice(("prelude", "prelude", "leaf"))
        if placement == "prelude":
            if isinstance(callee, Instance) and callee.entry.form == "stmt":
                st, res, gs = self.emit_stmt_op(b, scope, callee)
            else:
                focus = [Expr.var(p) for p in ps]
                st, res, gs = self.emit_call(b, scope, callee, budget=1, fixed=self.fixed_for(callee, focus))
            if gs:
                st = self._guarded(b, st, gs, res)
            body += st
            self.placed = True
            self.prelude_result = res
        self.acc = acc = self.choose_acc(scope, chain)
        body += acc.init()
        body += self.nest(chain, scope)
        if not self.placed:
            raise GenFail("target not placed")
        default = None
        if acc.kind.name == "search":
            default = {"int": literal(-1, "int"), "str": literal("", "str")}.get(acc.type.name) or b.literal_for(acc.type)
        body.append(acc.finish(default))
        used = {n for node in body for n in _names_read(node)}
        _check_no_dead_stores(body, used)
        if any(p.name not in used for p in ps):
            raise GenFail("a parameter is unused")
        verb = {"total": "total", "count": "count", "collect": "collect", "build": "build", "group": "group",
                "best": "best", "search": "find", "unique": "unique"}[acc.kind.name]
        name = self.function_name(callee, ps, None, verb=verb)
        returns = acc.type if acc.kind.name != "search" else acc.type
        return Function(name, ps, body, str(returns))

    def _guarded(self, b: ExprBuilder, st: list[ast.stmt], gs: list[Expr], res: Expr | None) -> list[ast.stmt]:
        """Make a call whose precondition depends on the input safe: ``x = call if guard else default``
        or ``if guard: stmt``."""
        test = gs[0] if len(gs) == 1 else Expr(ast.BoolOp(ast.And(), [g.node for g in gs]), T("bool"))
        last = st[-1]
        if isinstance(last, ast.Assign) and res is not None and is_value_type(res.type):
            last.value = ast.IfExp(test.node, last.value, b.literal_for(res.type).node)
            return st
        return st[:-1] + [ast.If(test.node, [last], [])]

    def choose_acc(self, scope: Scope, chain: tuple[str, ...]) -> Accumulator:
        rng = self.rng
        last = chain[-1]
        kinds = [k for k in KINDS if (not k.needs_if or last == "if") or (k.name in ("count", "search") and last == "if-elif")]
        kind = rng.choice(kinds)
        elem = rng.choice(("int", "str"))
        name = scope.fresh(kind.base) if kind.base else ""
        if kind.name == "group":
            name = scope.fresh(rng.choice(("counts", "freq", "tally")))
        if kind.name == "collect":
            name = scope.fresh(rng.choice(("result", "kept", "collected")))
        if name:
            scope.taken.add(name)
        return Accumulator(kind, name, elem)

    def iterables(self, scope: Scope) -> list:
        out = []
        for v in scope.all_vars():
            if v.name == getattr(self.acc, "name", None):
                continue
            el = element_type(v.type)
            if v.type.name == "str" and not v.param and v.name in self.char_vars:
                continue  # never loop over the characters of a single character
            if el is not None and v.type.name not in ("Iterator",) and el.name in ("int", "str"):
                out.append(v)
        return out

    def nest(self, chain: tuple[str, ...], scope: Scope) -> list[ast.stmt]:
        rng = self.rng
        acc = self.acc
        if not chain:
            return self.leaf(scope)
        step, rest = chain[0], chain[1:]
        child = scope.child()
        if step in ("if", "if-elif"):
            if not rest and step == "if":
                return self.if_leaf(child)
            pre, cond = self.condition(child)
            test = self.take_guards(cond)
            inner = self.nest(rest, child) if rest else self.leaf(child, plain=True)
            orelse: list[ast.stmt] = []
            if step == "if-elif":
                alt_scope = scope.child()
                for _ in range(4):
                    _, cond2 = self.condition(alt_scope, place=False)
                    if cond2.text != test.text:
                        break
                else:
                    raise GenFail("elif repeats the if")
                test2 = self.take_guards(cond2)
                orelse = [ast.If(test2.node, self.leaf(alt_scope, plain=True, place=False), [])]
            return pre + [ast.If(test.node, inner, orelse)]
        iters = self.iterables(scope)
        pre_res = self.prelude_result
        preferred = [v for v in iters if pre_res is not None and isinstance(pre_res.node, ast.Name) and v.name == pre_res.node.id]
        if step == "while":
            seqs = [v for v in iters if v.type.name in ("list", "str", "tuple", "bytes")]
            ints = [v for v in scope.all_vars() if v.type.name == "int" and v.param]
            pref = [v for v in seqs if v in preferred]
            if seqs and (pref or not ints or rng.random() < 0.7):
                src = pref[0] if pref and rng.random() < 0.85 else rng.choice(seqs)
                el = element_type(src.type)
                counter = child.fresh(rng.choice(("i", "idx", "pos")))
                loop_name = child.fresh(_singular(src.name, el))
                if src.type.name == "str":
                    self.char_vars.add(loop_name)
                child.declare(counter, "int")
                child.declare(loop_name, el)
                self.iterating.add(src.name)  # as for a for loop: a sequence indexed by the counter never grows inside
                inner = self.nest(rest, child)
                body = [stmt(f"{counter} -= 1"), stmt(f"{loop_name} = {src.name}[{counter}]")] + inner
                return [stmt(f"{counter} = len({src.name})"), ast.While(expr_node(f"{counter} > 0"), body, [])]
            if ints:
                n = rng.choice(ints)
                counter = child.fresh(rng.choice(("remaining", "steps", "left")))
                child.declare(counter, "int")
                inner = self.nest(rest, child)
                body = [stmt(f"{counter} -= 1")] + inner
                return [stmt(f"{counter} = {n.name}"), ast.While(expr_node(f"{counter} > 0"), body, [])]
            counter = child.fresh("rounds")
            child.declare(counter, "int")
            inner = self.nest(rest, child)
            return [stmt(f"{counter} = {rng.choice((2, 3))}"), ast.While(expr_node(f"{counter} > 0"), [stmt(f"{counter} -= 1")] + inner, [])]
        # for
        if not iters:
            ints = [v for v in scope.all_vars() if v.type.name == "int"]
            loop_name = child.fresh(rng.choice(("i", "step", "k")))
            child.declare(loop_name, "int")
            bound = rng.choice(ints).name if ints and rng.random() < 0.6 else str(rng.choice((3, 4, 5)))
            inner = self.nest(rest, child)
            return [ast.For(ast.Name(loop_name, ast.Store()), expr_node(f"range({bound})"), inner, [])]
        src = preferred[0] if preferred and rng.random() < 0.85 else rng.choice(iters)
        el = element_type(src.type)
        loop_name = child.fresh(_singular(src.name, el))
        self.iterating.add(src.name)  # never mutated inside the loop (no endless for over a growing list)
        style = rng.random()
        if style < 0.2 and src.type.name in ("list", "str", "tuple"):
            idx = child.fresh("i")
            child.declare(idx, "int")
            child.declare(loop_name, el)
            if src.type.name == "str":
                self.char_vars.add(loop_name)
            inner = self.nest(rest, child)
            target = ast.Tuple([ast.Name(idx, ast.Store()), ast.Name(loop_name, ast.Store())], ast.Store())
            return [ast.For(target, expr_node(f"enumerate({src.name})"), inner, [])]
        if style < 0.4 and src.type.name == "dict":
            vt = src.type.args[1]
            val = child.fresh("value" if vt.name == "int" else "label")
            child.declare(loop_name, el)
            child.declare(val, vt)
            inner = self.nest(rest, child)
            target = ast.Tuple([ast.Name(loop_name, ast.Store()), ast.Name(val, ast.Store())], ast.Store())
            return [ast.For(target, expr_node(f"{src.name}.items()"), inner, [])]
        child.declare(loop_name, el)
        if src.type.name == "str":
            self.char_vars.add(loop_name)
        iter_node = expr_node(src.name)
        if src.type.name in ("set", "frozenset"):
            iter_node = expr_node(f"sorted({src.name})")
        inner = self.nest(rest, child)
        return [ast.For(ast.Name(loop_name, ast.Store()), iter_node, inner, [])]

    def focus(self, scope: Scope) -> list[Expr]:
        own = [v for v in reversed(scope.vars) if v.name != self.acc.name]
        unused = [v for v in scope.all_vars() if v.param and v.name not in self.b.used_params and v not in own]
        rest = [v for v in reversed(scope.all_vars()) if v.name != self.acc.name and v not in own and v not in unused]
        if unused and self.rng.random() < 0.6:
            order = own[:1] + unused + own[1:] + rest
        else:
            order = own + unused + rest
        pre = self.prelude_result
        if pre is not None and isinstance(pre.node, ast.Name) and pre.node.id not in self.b.read_names:
            order = [v for v in order if v.name == pre.node.id] + [v for v in order if v.name != pre.node.id]
        return [Expr.var(v) for v in order]

    def place_target(self, scope: Scope) -> tuple[list[ast.stmt], list[Expr]]:
        """Statements placing the target call in the current block (once)."""
        if self.placed:
            return [], []
        callee = self.callee
        if isinstance(callee, Instance) and callee.entry.form == "stmt":
            s, res, gs = self.emit_stmt_op(self.b, scope, callee)
        else:
            s, res, gs = self.emit_call(self.b, scope, callee, budget=1, fixed=self.fixed_for(callee, self.focus(scope)))
        self.placed = True
        self.prelude_result = res
        return s, gs

    def condition(self, scope: Scope, place: bool = True) -> tuple[list[ast.stmt], Expr]:
        pre, gs = ([], [])
        if place and not self.placed and self.rng.random() < 0.5:
            pre, gs = self.place_target(scope)
            self.pending_guards += gs
        for e in self.focus(scope)[:4]:
            c = self.convert(self.b, e, T("bool"), guards=self.pending_guards)
            if c is not None:
                return pre, c
        raise GenFail("no condition")

    def take_guards(self, cond: Expr) -> Expr:
        gs, self.pending_guards = self.pending_guards, []
        seen, parts = set(), []
        for g in gs + [cond]:
            if g.text not in seen:
                seen.add(g.text)
                parts.append(g)
        if len(parts) == 1:
            return parts[0]
        node = ast.BoolOp(ast.And(), [p.node for p in parts])
        return Expr(node, T("bool"), frozenset({"op.bool_and"}).union(*(p.entries for p in parts)), frozenset().union(*(p.reads for p in parts)))

    def value_for(self, scope: Scope, t: Type) -> Expr:
        for e in self.focus(scope)[:5]:
            v = self.convert(self.b, e, t, guards=self.pending_guards)
            if v is not None:
                return v
        raise GenFail(f"no value of type {t}")

    def _guard_with_flag(self) -> None:
        """A target call that answers a yes/no question (``ok = text.isascii()``) and is read nowhere yet
        guards the next update (``if ok: ...``) instead of being left as a dead store."""
        res = self.prelude_result
        if (res is not None and res.type.name == "bool" and isinstance(res.node, ast.Name)
                and res.node.id not in self.b.read_names and all(g.text != res.text for g in self.pending_guards)):
            self.pending_guards.append(res)
            self.b.used_params.add(res.node.id)

    def leaf(self, scope: Scope, *, plain: bool = False, place: bool = True) -> list[ast.stmt]:
        acc = self.acc
        pre, gs = [], []
        if place and (not self.placed):
            pre, gs = self.place_target(scope)
        self.pending_guards += gs
        if not (plain and acc.kind.name == "best"):
            self._guard_with_flag()
        if acc.kind.name == "best":
            value = self.value_for(scope, T("int"))
            upd, _ = acc.update(value)
            cond = acc.best_condition(value)
            test = self.take_guards(cond)
            return pre + [ast.If(test.node, upd, [])] if not plain else pre + upd
        value = self.value_for(scope, acc.consumes) if acc.consumes is not None else None
        upd, _ = acc.update(value)
        if self.pending_guards:
            test = self.take_guards(self.pending_guards.pop())
            return pre + [ast.If(test.node, upd, [])]
        return pre + upd

    def if_leaf(self, scope: Scope) -> list[ast.stmt]:
        acc = self.acc
        pre, cond = self.condition(scope)
        if acc.kind.name == "best":
            value = self.value_for(scope, T("int"))
            cond = acc.best_condition(value)
        else:
            value = self.value_for(scope, acc.consumes) if acc.consumes is not None else None
        if not self.placed:
            pre2, gs = self.place_target(scope)
            self.pending_guards += gs
            pre = pre + pre2
        self._guard_with_flag()
        upd, _ = acc.update(value)
        test = self.take_guards(cond)
        return pre + [ast.If(test.node, upd, [])]

    # ------------------------------------------------------------------ helper chain (L6)
    def chain(self) -> list[Function]:
        """Level 6: the entry point (with the control-flow chain) calls a helper holding the target."""
        rng = self.rng
        spec = self.spec
        helper_fn = self.straight(True, n_params=rng.choice((1, 1, 2)), need_other=False)
        mutated = _mutated_names(helper_fn.body)
        # the caller may loop over what it passes: a helper that changes a parameter works on a copy
        copies = [stmt(f"{p.name} = {p.name}.copy()") for p in helper_fn.params
                  if p.type.name in ("list", "set", "dict") and p.name in mutated]
        helper_fn.body = copies + helper_fn.body
        helper_fn.name = helper_fn.name if not helper_fn.name.startswith("_") else helper_fn.name[1:]
        functions = [helper_fn]
        helper = _Helper(helper_fn.name, tuple(p.type for p in helper_fn.params), typelang.parse(helper_fn.returns))
        for k in range(spec.helper_depth - 1):
            fn = self.straight(True, n_params=len(helper.params), callee=helper, params=list(helper.params), need_other=False)
            fn.name = f"{fn.name}_step{k + 1}"
            functions.append(fn)
            helper = _Helper(fn.name, tuple(p.type for p in fn.params), typelang.parse(fn.returns))
        given = [Type("list", (t,)) if t.name in ("int", "str") and rng.random() < 0.6 else t for t in helper.params]
        given = (given + [T(rng.choice(("int", "str")))] * spec.n_params)[: spec.n_params]
        main = self.looped(spec.control_flow, n_params=spec.n_params, callee=helper, params=given)
        if main.name in {f.name for f in functions}:
            main.name = f"{main.name}_all"
        functions.append(main)
        return functions


_PREDICATES: dict[str, list[Instance]] = {}
#: Boolean producers that are constant on typed values (type tests, identity with None).
_CONSTANT_TESTS = frozenset({"op.is", "op.is_not", "builtin.isinstance", "builtin.bool"})


def _blind_test(test: Expr, e: Expr, param: bool = False) -> bool:
    """``e == <literal>``, ``e != <literal>``, ``e in <literal>``, ``e not in <literal>`` for a string or container ``e``;
    and, for a parameter (never empty: inputs respect the spec's minimum size), ``not e``, ``bool(e)``, ``any(e)``,
    and ``all(e)`` of a string."""
    node = test.node
    sized = e.type.name not in ("int", "bool", "float", "None")
    if param and sized:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Name):
            return True
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1
                and isinstance(node.args[0], ast.Name) and node.func.id in ("bool", "any", "all")):
            return node.func.id != "all" or e.type.name in ("str", "bytes")
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    if not isinstance(node, ast.Compare) or len(node.ops) != 1 or test.reads - e.reads:
        return False  # not a comparison, or one with another variable
    op = node.ops[0]
    if isinstance(op, (ast.In, ast.NotIn)):
        return e.type.name not in ("int", "bool") and ast.unparse(node.left) == e.text
    return isinstance(op, (ast.Eq, ast.NotEq)) and e.type.name not in ("int", "bool")


def _informative_predicates(target: str) -> list[Instance]:
    """Boolean producers for conditions, without tests that are constant on typed values."""
    if target not in _PREDICATES:
        _PREDICATES[target] = [i for i in _pure_producers("bool")
                               if i.entry.id not in _CONSTANT_TESTS or i.entry.id == target]
    return _PREDICATES[target]


_CONSUMERS: dict[tuple[str, str], list[Instance]] = {}


def _call_consumers(type_text: str, target: str) -> list[Instance]:
    """Method/function instances (not the target, not mutators) that accept a value of this type."""
    key = (type_text, target)
    if key not in _CONSUMERS:
        t = typelang.parse(type_text)
        out = []
        for insts in producers().values():
            for inst in insts:
                if inst.entry.kind == "operator" or inst.entry.id == target or _is_mutator(inst):
                    continue
                names = (["self"] if inst.sig.receiver else []) + [p.name for p in inst.sig.params if not p.optional and not p.keyword and not p.variadic]
                if any(bind(inst.ptype(n), t, {}) is not None for n in names if inst.ptype(n).name != "Callable"):
                    out.append(inst)
        out.sort(key=lambda i: (i.entry.id, str(i.sig), str(i.bindings)))
        _CONSUMERS[key] = out
    return _CONSUMERS[key]


_MUTATING_METHODS = frozenset(e.name for e in catalog.ENTRIES if e.kind == "method" and e.mutates)


def _mutated_names(body: list[ast.stmt]) -> set[str]:
    """Names whose object a block may change in place (method calls as statements, item/slice stores, del, +=)."""
    out: set[str] = set()

    def base(node: ast.AST) -> str | None:
        while isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None

    for node in walk(ast.Module(body, type_ignores=[])):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr not in _MUTATING_METHODS:
                continue
            name = base(node.func.value)
        elif isinstance(node, ast.Delete):
            name = next((base(t) for t in node.targets), None)
        elif isinstance(node, ast.Assign):
            name = next((base(t) for t in node.targets if isinstance(t, ast.Subscript)), None)
        elif isinstance(node, ast.AugAssign):
            name = base(node.target)
        else:
            continue
        if name:
            out.add(name)
    return out


def _stmt_text(inst: Instance, e: Expr) -> str:
    return ast.unparse(e.node) if not isinstance(e.node, ast.expr) else e.text


def _entry_name(e: Expr) -> str:
    node = e.node
    if isinstance(node, ast.Call):
        f = node.func
        return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "value")
    if isinstance(node, ast.Subscript):
        return "getitem" if not isinstance(node.slice, ast.Slice) else "slice"
    if isinstance(node, ast.BinOp):
        return type(node.op).__name__.lower()
    return "value"


def _tidy_unused(body: list[ast.stmt], used: set[str]) -> None:
    """Unused loop targets become ``_``; unused ``item = seq[i]`` reads are dropped."""
    for node in list(walk(ast.Module(body, type_ignores=[]))):
        if isinstance(node, ast.For):
            targets = node.target.elts if isinstance(node.target, ast.Tuple) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id not in used:
                    t.id = "_"
            if isinstance(node.target, ast.Tuple) and all(isinstance(t, ast.Name) and t.id == "_" for t in targets):
                node.target = ast.Name("_", ast.Store())
        for field_name in ("body", "orelse"):
            block = getattr(node, field_name, None)
            if isinstance(block, list):
                keep = [st for st in block if not (isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name)
                        and st.targets[0].id not in used and isinstance(st.value, ast.Subscript))]
                if keep and len(keep) != len(block):
                    setattr(node, field_name, keep)


def _check_no_dead_stores(body: list[ast.stmt], used: set[str]) -> None:
    _tidy_unused(body, used)
    for node in body:
        for n in walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in used and n.id != "_":
                raise GenFail(f"{n.id} is assigned but never read")


def _names_read(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _call_depth(node: ast.AST) -> int:
    if not isinstance(node, ast.Call):
        return -1
    best = 0
    for arg in (*node.args, *(k.value for k in node.keywords)):
        if isinstance(arg, ast.Starred):
            arg = arg.value
        if isinstance(arg, ast.Call):
            best = max(best, 1 + _call_depth(arg))
    return best


def _max_depth(functions: list[Function]) -> int:
    return max((_call_depth(n) for f in functions for st in f.body for n in walk(st)), default=-1)


_WRAPPERS = {"list": ("sorted", "list"), "str": ("str",), "int": ("abs", "int"), "bool": ("bool",), "set": ("set",),
             "frozenset": ("frozenset",), "tuple": ("tuple",), "dict": ("dict",), "float": ("abs", "float"), "bytes": ("bytes",)}


def deepen(functions: list[Function], need: int, rng: random.Random) -> None:
    """Make some call take a call as argument ``need`` levels deep.

    First inline single-use locals assigned from calls into the call that reads
    them (``parts = s.split()`` + ``len(parts)`` -> ``len(s.split())``); then, if still
    short, wrap a call argument or the returned call in a type-preserving builtin
    (``sorted``, ``str``, ``abs``...).
    """
    for _ in range(6):
        if _max_depth(functions) >= need:
            return
        if not _inline_one(functions, rng):
            break
    for _ in range(2):
        if _max_depth(functions) >= need:
            return
        if not _wrap_one(functions, rng, need):
            break
    if _max_depth(functions) < need:
        raise GenFail(f"cannot reach nested call depth {need}")


def _inline_one(functions: list[Function], rng: random.Random) -> bool:
    options = []
    for f in functions:
        body = f.body
        for i, st in enumerate(body):
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                    and isinstance(st.value, ast.Call)):
                continue
            name = st.targets[0].id
            if any(p.name == name for p in f.params):
                continue
            later = body[i + 1:]
            reads = [n for s2 in later for n in walk(s2) if isinstance(n, ast.Name) and n.id == name]
            stores = [n for s2 in later for n in walk(s2) if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)]
            if len(reads) != 1 or stores:
                continue
            # the single read must be a direct argument of a call, in a statement that is not a loop (no re-evaluation)
            for j, s2 in enumerate(later):
                parents = [c for c in walk(s2) if isinstance(c, ast.Call) and any(a is reads[0] for a in (*c.args, *(k.value for k in c.keywords)))]
                if parents and isinstance(s2, (ast.Assign, ast.Return, ast.Expr, ast.AugAssign)):
                    names_in_value = {n.id for n in walk(st.value) if isinstance(n, ast.Name)}
                    between = body[i + 1:i + 1 + j]
                    rebound = any(isinstance(n, ast.Name) and n.id in names_in_value and not isinstance(n.ctx, ast.Load)
                                  for s3 in between for n in walk(s3))
                    mutated = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) for s3 in between for n in walk(s3))
                    if not rebound and not mutated:
                        options.append((f, i, parents[0], reads[0], st.value))
                    break
    if not options:
        return False
    f, i, parent, read, value = rng.choice(options)
    parent.args = [value if a is read else a for a in parent.args]
    for k in parent.keywords:
        if k.value is read:
            k.value = value
    del f.body[i]
    return True


# Finishing expressions for a returned value: (template, result type, call depth), by type head.
_FINISH = {  # (template, result type, call depth it adds); none collapses the value to a few outcomes
    "list": [("sorted(set({r}))", "list[X]", 1), ("len(set({r}))", "int", 1), ("list(reversed(sorted({r})))", "list[X]", 2),
             ("list(enumerate(sorted({r})))", "list[tuple[int, X]]", 2), ("sorted(set(map(str, {r})))", "list[str]", 2)],
    "str": [("''.join(sorted({r}))", "str", 1), ("sorted(set({r}))", "list[str]", 1), ("''.join(sorted(set({r})))", "str", 2),
            ("list(map(len, {r}.split()))", "list[int]", 2), ("sorted(set({r}.split()))", "list[str]", 2)],
    "int": [("str(abs({r}))", "str", 1), ("hex(abs({r}))", "str", 1), ("list(divmod(abs({r}), 10))", "list[int]", 2)],
    "dict": [("sorted({r}.items())", "list[tuple[K, V]]", 1), ("dict(sorted({r}.items()))", "dict[K, V]", 2),
             ("list(enumerate(sorted({r})))", "list[tuple[int, K]]", 2)],
    "set": [("tuple(sorted({r}))", "tuple[X, ...]", 1), ("list(enumerate(sorted({r})))", "list[tuple[int, X]]", 2),
            ("list(reversed(sorted({r})))", "list[X]", 2)],
    "frozenset": [("tuple(sorted({r}))", "tuple[X, ...]", 1), ("list(enumerate(sorted({r})))", "list[tuple[int, X]]", 2)],
    "tuple": [("sorted(set({r}))", "list[X]", 1), ("list(reversed(sorted({r})))", "list[X]", 2)],
    "bool": [("str(int({r}))", "str", 1), ("str(int(bool({r})))", "str", 2)],
    "float": [("str(round({r}, 2))", "str", 1), ("str(abs(round({r}, 2)))", "str", 2)],
    "bytes": [("list(sorted({r}))", "list[int]", 1), ("sorted(set(list({r})))", "list[int]", 2)],
}


def _wrap_one(functions: list[Function], rng: random.Random, need: int = 1) -> bool:
    """Wrap the entry point's final returned value in a finishing expression of nested calls."""
    f = functions[-1]
    ret = f.body[-1] if f.body else None
    if not isinstance(ret, ast.Return) or ret.value is None or not f.returns:
        return False
    t = typelang.parse(f.returns)
    have = max(_call_depth(ret.value), 0)
    options = [o for o in _FINISH.get(t.name, ()) if have + o[2] >= need]
    short = [o for o in options if o[2] == min(x[2] for x in options)] if options else []
    if t.name in ("list", "set", "frozenset", "tuple") and t.args and t.args[0].name not in ("int", "str"):
        return False
    if t.name == "dict" and t.args[0].name not in ("int", "str"):
        return False
    if any(isinstance(n, ast.Return) and n is not ret for st in f.body for n in walk(st)):
        return False  # early returns: the type must stay the same everywhere
    if not short:
        return False
    template, rtype, _ = rng.choice(short)
    inner = ast.unparse(ret.value)
    if not isinstance(ret.value, (ast.Name, ast.Call, ast.Attribute, ast.Subscript)):
        inner = f"({inner})"
    ret.value = expr_node(template.format(r=inner))
    x = str(t.args[0]) if t.args else "int"
    k, v = (str(t.args[0]), str(t.args[1])) if t.name == "dict" else ("int", "int")
    f.returns = rtype.replace("X", x).replace("K", k).replace("V", v)
    return True
