"""Type-directed construction of expressions and calls from the catalog.

:class:`ExprBuilder` builds typed :class:`~execverify_data.synth.ir.Expr` values for a
scope: a variable of the wanted type, a literal, or a call of a catalog entry whose
instantiated signature returns that type, with arguments built the same way.
Preconditions are respected: when every argument they name is a literal, the
literal is redrawn until :func:`~execverify_data.catalog.preconditions.holds`; when
an argument depends on the input, a *guard* (a boolean expression such as
``sep in text`` or ``nums``) is returned for the caller to put in an ``if``.
"""

from __future__ import annotations

import ast
import random

from execverify_data.catalog import preconditions as pre_mod
from execverify_data.catalog.typelang import Type
from execverify_data.synth.ir import Expr, Scope, T, call_function, call_method, from_template, literal
from execverify_data.synth.typing_ import (
    Instance, PARAM_TYPES, VALUE_TYPES, bind, element_type, instances, is_value_type, usable_entries,
)

__all__ = ["ExprBuilder", "GenFail", "WORDS", "name_for_result", "name_for_param", "producers"]


#: Operators whose operands should have one type and differ (a == b, x if c else y).
_SAME_TYPE = frozenset({"op.eq", "op.ne", "op.is", "op.is_not", "op.ifexp", "op.bool_and", "op.bool_or"})


def _hash_ordered(t: Type) -> bool:
    """A set or frozenset whose iteration order depends on the hash seed: elements that are (or hold) str or bytes."""
    return t.name in ("set", "frozenset") and bool(t.args) and _seeded_hash(t.args[0])


def _seeded_hash(t: Type) -> bool:
    return t.name in ("str", "bytes", "object") or t.is_var or any(_seeded_hash(a) for a in t.args)


#: Calls and operators whose result does not depend on the order in which a set argument iterates.
_ORDER_FREE = frozenset({
    "builtin.len", "builtin.set", "builtin.frozenset", "builtin.any", "builtin.all", "builtin.sum", "builtin.bool",
    "builtin.isinstance", "builtin.sorted", "builtin.min", "builtin.max",
    "op.in", "op.not_in", "op.eq", "op.ne", "op.lt", "op.le", "op.gt", "op.ge", "op.bitor", "op.bitand", "op.bitxor",
    "op.sub", "op.ior", "op.iand", "op.ixor", "op.isub", "op.not", "op.bool_and", "op.bool_or", "op.ifexp", "op.is",
    "op.is_not", "op.unpack_set",
})


def _order_free(entry_id: str, keyed: bool) -> bool:
    """Whether ``entry_id`` may take a hash-ordered set: set methods (but ``pop``), order-blind builtins and
    operators; ``sorted``/``min``/``max`` only without ``key=`` (ties keep the iteration order)."""
    if entry_id.startswith(("set.", "frozenset.")):
        return entry_id != "set.pop"
    if entry_id in ("builtin.sorted", "builtin.min", "builtin.max"):
        return not keyed
    return entry_id in _ORDER_FREE


class GenFail(Exception):
    """This attempt cannot be completed; the caller retries with fresh choices."""


WORDS = ("apple", "banana", "kiwi", "lemon", "mango", "pear", "plum", "red", "blue", "cat", "dog", "sun",
         "moon", "star", "tree", "code", "data", "the", "an")
_SUBS = ("a", "e", "o", " ", ",", "-", "an", "ap", "x", "le", ".")

_PARAM_NAMES = {
    "str": ("text", "s", "word", "name", "sentence", "line", "label", "phrase"),
    "int": ("n", "k", "count", "limit", "step", "offset", "size", "target"),
    "float": ("x", "value", "ratio", "price", "amount"),
    "bool": ("flag", "strict", "enabled"),
    "bytes": ("data", "payload", "raw", "blob"),
    "list[int]": ("nums", "values", "numbers", "scores", "items", "arr"),
    "list[str]": ("words", "names", "tokens", "items", "lines", "tags"),
    "set[int]": ("ids", "seen", "marks", "codes"),
    "set[str]": ("tags", "labels", "vocab", "seen"),
    "frozenset[int]": ("allowed", "blocked", "fixed_ids"),
    "frozenset[str]": ("allowed", "stopwords", "banned"),
    "dict[str, int]": ("counts", "scores", "ages", "stock", "inventory", "prices"),
    "dict[int, str]": ("lookup", "names_by_id", "labels", "codes"),
    "tuple[int, ...]": ("coords", "dims", "point", "sizes"),
    "tuple[str, ...]": ("fields", "parts", "options", "keys"),
}

_RESULT_NAMES = {
    "split": "parts", "rsplit": "parts", "splitlines": "lines", "join": "joined", "strip": "cleaned",
    "lstrip": "trimmed", "rstrip": "trimmed", "lower": "lowered", "upper": "upper", "casefold": "folded",
    "replace": "replaced", "count": "count", "find": "pos", "rfind": "pos", "index": "idx", "rindex": "idx",
    "sorted": "ordered", "len": "size", "sum": "total", "max": "largest", "min": "smallest", "list": "items",
    "set": "unique", "dict": "mapping", "keys": "keys", "values": "vals", "items": "pairs", "get": "value",
    "pop": "removed", "popitem": "last", "partition": "pieces", "rpartition": "pieces", "enumerate": "indexed",
    "zip": "pairs", "reversed": "backwards", "abs": "magnitude", "round": "rounded", "str": "label",
    "int": "number", "float": "amount", "ord": "code", "chr": "char", "bin": "bits", "hex": "digits",
    "oct": "digits", "encode": "encoded", "decode": "decoded", "title": "titled", "capitalize": "capitalized",
    "swapcase": "swapped", "center": "padded", "ljust": "padded", "rjust": "padded", "zfill": "padded",
    "copy": "clone", "union": "combined", "intersection": "common", "difference": "rest",
    "symmetric_difference": "diff", "divmod": "qr", "tuple": "frozen", "frozenset": "frozen", "map": "mapped",
    "filter": "kept", "range": "indices", "removeprefix": "stem", "removesuffix": "stem", "expandtabs": "expanded",
    "translate": "translated", "format": "message", "format_map": "message", "repr": "shown", "bool": "truthy",
    "setdefault": "value", "next": "first", "pow": "power", "iter": "it", "type": "kind", "isinstance": "ok",
    "as_integer_ratio": "ratio", "bit_count": "ones", "bit_length": "width", "to_bytes": "encoded",
    "conjugate": "same", "hex_": "digits", "add": "combined", "sub": "remaining", "mul": "product",
    "repeat": "repeated", "truediv": "ratio", "floordiv": "quotient", "mod": "remainder", "getitem": "item",
    "neg": "negated", "fstring": "label", "ifexp": "choice",
}


def name_for_param(type_text: str, rng: random.Random) -> str:
    return rng.choice(_PARAM_NAMES.get(type_text, ("arg",)))


def name_for_result(entry_name: str, t: Type) -> str:
    if entry_name.startswith("slice"):
        return "chunk"
    if entry_name.startswith("is") and t.name == "bool":
        return entry_name[2:] if len(entry_name) > 4 else "ok"
    if entry_name in _RESULT_NAMES:
        return _RESULT_NAMES[entry_name]
    return {"int": "value", "str": "result", "bool": "ok", "float": "amount", "bytes": "chunk", "list": "result",
            "set": "group", "frozenset": "group", "dict": "table", "tuple": "pair"}.get(t.name, "result")


# --------------------------------------------------------------------------- producers

_PRODUCERS: dict[str, list[Instance]] | None = None


def producers() -> dict[str, list[Instance]]:
    """Return type text -> instances (value types only) returning it."""
    global _PRODUCERS
    if _PRODUCERS is None:
        out: dict[str, list[Instance]] = {}
        for eid in usable_entries():
            for inst in instances(eid):
                if inst.entry.form == "stmt" or inst.sig.returns == "None":
                    continue
                if inst.entry.kind == "function" and not inst.sig.params:
                    continue  # dict(), set(): constants
                r = inst.returns
                if r.name == "|" or not is_value_type(r):
                    continue
                out.setdefault(str(r), []).append(inst)
        _PRODUCERS = out
    return _PRODUCERS


# literal args chosen by parameter name (values already satisfy the usual preconditions)
_BY_NAME = {
    "sep": (" ", ",", "-", ":", "a"), "width": (6, 8, 10, 12), "fillchar": ("*", "-", ".", "#"),
    "encoding": ("utf-8", "ascii"), "byteorder": ("big", "little"), "length": (2, 4), "base": (10, 16, 2, 8),
    "tabsize": (2, 4), "ndigits": (1, 2), "start": (0, 1, 2), "end": (3, 5, 8), "count": (1, 2),
    "maxsplit": (1, 2), "index": (0, 1, -1), "keepends": (True, False), "reverse": (True,),
    "i": (0, 1, 2, -3), "j": (3, 4, -1), "k": (2, 3, -1, -2), "n": (2, 3), "exp": (2, 3), "mod": (7, 10),
    "old": (" ", "a", "-", "an"), "new": ("", "_", "A", "--"), "chars": (" ", "x.", "-", "ae"),
    "prefix": ("a", "ba", "the", "x"), "suffix": ("s", "a", "ing", "."), "signed": (True, False),
    "shift": (1, 2), "sub": _SUBS, "delete": (b"a", b" "),
}


class ExprBuilder:
    """Builds typed expressions for one function body.

    Args:
        rng (`random.Random`): all choices come from it.
        scope (`Scope`): the variables visible.
        allow_other (`bool`): whether catalog entries other than ``target`` may be used.
        target (`str`): the catalog id the program must use.
    """

    def __init__(self, rng: random.Random, scope: Scope, *, allow_other: bool, target: str):
        self.rng = rng
        self.scope = scope
        self.allow_other = allow_other
        self.target = target
        self.used_params: set[str] = set()
        self.avoid: set[str] = set()  # variables already passed to the call being built
        self.allow_reuse = False

    @property
    def read_names(self) -> set[str]:
        return self.used_params

    # ------------------------------------------------------------------ literals
    def literal_for(self, t: Type, pname: str | None = None) -> Expr:
        rng = self.rng
        if pname in _BY_NAME and t.name in ("str", "int", "bool", "bytes"):
            choices = [v for v in _BY_NAME[pname] if type(v).__name__ == t.name]
            if choices:
                return literal(rng.choice(choices), t)
        name = t.name
        if name == "str":
            return literal(rng.choice(WORDS + _SUBS) if rng.random() < 0.7 else rng.choice(_SUBS), t)
        if name == "int":
            return literal(rng.choice((0, 1, 2, 3, 5, 10, -1, 4, 7)), t)
        if name == "float":
            return literal(rng.choice((0.5, 1.5, 2.0, 2.5, 10.0, 0.25)), t)
        if name == "bool":
            return literal(rng.random() < 0.5, t)
        if name == "bytes":
            return literal(rng.choice((b"ab", b"x", b"-", b"hello", b"a b")), t)
        if name == "None":
            return literal(None, t)
        if name in ("list", "set", "frozenset"):
            items = [self.literal_for(t.args[0]).value for _ in range(rng.randint(2, 4))]
            value = {"list": list, "set": set, "frozenset": frozenset}[name](items)
            return literal(value, t)
        if name == "tuple":
            if len(t.args) == 2 and t.args[1].name == "...":
                return literal(tuple(self.literal_for(t.args[0]).value for _ in range(rng.randint(2, 3))), t)
            return literal(tuple(self.literal_for(a).value for a in t.args), t)
        if name == "dict":
            if t.args[0].name == "int" and t.args[1].name != "int":  # translate tables and id maps
                keys = rng.sample((97, 101, 111, 32, 1, 2, 3), 2)
            else:
                keys = [self.literal_for(t.args[0]).value for _ in range(2)]
            return literal({k: self.literal_for(t.args[1]).value for k in keys}, t)
        if name == "range":
            return call_function("range", [literal(rng.randint(3, 6), "int")], t, entry="builtin.range")
        raise GenFail(f"no literal for {t}")

    # ------------------------------------------------------------------ concretize
    def concretize(self, t: Type) -> Type:
        """A concrete value type for a (possibly abstract) parameter type."""
        rng = self.rng
        if t.name == "|":
            members = [m for m in t.args if m.name != "None"] or list(t.args)
            return self.concretize(rng.choice(members))
        if t.name == "object":
            return T(rng.choice(("int", "str", "list[int]", "list[str]", "bool")))
        if t.name in ("Iterable", "Sequence", "Collection"):
            e = t.args[0]
            if e.name == "object":
                e = T(rng.choice(("int", "str")))
            options = [Type("list", (e,)), Type("tuple", (e, Type("..."))) if t.name != "Collection" else Type("list", (e,))]
            if t.name != "Sequence" and e.name in ("int", "str"):
                options.append(Type("set", (e,)))
            if e.name == "str":
                options += [T("str"), T("list[str]")]
            if e.name == "int" and t.name != "Collection":
                options.append(T("range"))
            if e.name == "tuple" and len(e.args) == 2:  # dict(iterable of pairs)
                options = [Type("list", (e,))]
            return rng.choice(options)
        if t.is_var:
            return T(rng.choice(("int", "str")))
        return t

    # ------------------------------------------------------------------ expressions
    def var_of(self, t: Type, prefer_unused: bool = True):
        vs = [v for v in self.scope.all_vars() if v.type == t]
        fresh = [v for v in vs if v.name not in self.avoid]
        if not fresh and vs and self.allow_reuse is False:
            return None
        vs = fresh or vs
        if not vs:
            return None
        unused = [v for v in vs if v.param and v.name not in self.used_params]
        pool = unused if (unused and prefer_unused) else vs
        return self.rng.choice(pool)

    def use(self, e: Expr) -> Expr:
        self.used_params |= e.reads
        return e

    def expr(self, t: Type, budget: int = 1, *, pname: str | None = None, allow_literal: bool = True,
             guards: list | None = None) -> Expr:
        """An expression of concrete type ``t``."""
        rng = self.rng
        if t.name == "type":
            return Expr(ast.Name(rng.choice(("int", "str")), ast.Load()), t)
        if t.name == "range":
            n = self.var_of(T("int"))
            if n is not None and rng.random() < 0.5:
                arg = Expr.var(n)
            else:
                src = self.var_of(rng.choice((T("list[int]"), T("str"), T("list[str]"))))
                if src is not None and self.allow_other:
                    arg = call_function("len", [Expr.var(src)], "int", entry="builtin.len")
                else:
                    arg = literal(rng.randint(3, 6), "int")
            if self.allow_other or self.target == "builtin.range":
                return self.use(call_function("range", [arg], t, entry="builtin.range"))
            raise GenFail("range needs builtin.range")
        self.allow_reuse = not allow_literal
        v = self.var_of(t)
        self.allow_reuse = False
        r = rng.random()
        if v is not None and v.param and v.name in self.used_params and allow_literal and rng.random() < 0.6:
            v = None  # prefer a fresh value to reusing a parameter already read
        if pname in _BY_NAME and allow_literal and (v is None or v.name in self.used_params or rng.random() < 0.5):
            return self.literal_for(t, pname)
        if v is not None and (r < 0.75 or not allow_literal):
            return self.use(Expr.var(v))
        if budget > 0 and self.allow_other and r < 0.9:
            options = producers().get(str(t), [])
            options = [o for o in options if o.entry.id != self.target or True]
            for _ in range(4):
                if not options:
                    break
                inst = rng.choice(options)
                try:
                    e, gs = self.call(inst, budget=budget - 1)
                except GenFail:
                    continue
                if e.reads or not allow_literal:
                    if guards is not None:
                        guards.extend(gs)
                    elif gs:
                        continue
                    return e
        if v is not None:
            return self.use(Expr.var(v))
        if not allow_literal:
            raise GenFail(f"no input-dependent expression of type {t}")
        return self.literal_for(t, pname)

    def callable_arg(self, t: Type, pname: str) -> Expr:
        """A lambda (or builtin name) for a ``Callable[[A], R]`` parameter."""
        rng = self.rng
        params, result = t.args
        arg_t = params.args[0] if params.args else T("int")
        if arg_t.is_var or arg_t.name == "object":
            arg_t = T("int")
        name = {"int": "x", "str": "w"}.get(arg_t.name, "item")
        if not self.allow_other:
            options = [(name, str(arg_t), ())]
        elif arg_t.name == "int":
            options = (
                (f"-{name}", "int", ("op.neg",)), (f"{name} % 3", "int", ("op.mod",)), (f"abs({name})", "int", ("builtin.abs",)),
                (f"{name} * 2", "int", ("op.mul",)), (f"{name} > 2", "bool", ("op.gt",)), (f"{name} % 2 == 0", "bool", ("op.mod", "op.eq")),
                (f"str({name})", "str", ("builtin.str",)),
            )
        elif arg_t.name == "str":
            options = (
                (f"len({name})", "int", ("builtin.len",)), (f"{name}.lower()", "str", ("str.lower",)),
                (f"{name}.upper()", "str", ("str.upper",)), (f"{name}.count('a')", "int", ("str.count",)),
                (f"{name}.isalpha()", "bool", ("str.isalpha",)), (f"len({name}) > 3", "bool", ("builtin.len", "op.gt")),
                (f"'a' in {name}", "bool", ("op.in",)),
            )
        else:
            options = [(name, str(arg_t), ())]
        if not (result.is_var or result.name in ("object", "|")):  # map's U, for one, is bound: the lambda must return it
            options = [o for o in options if T(o[1]) == result]
            if not options:
                raise GenFail(f"no lambda from {arg_t} returns {result}")
        body_text, rtype, used = rng.choice(options)
        node = ast.parse(f"lambda {name}: {body_text}", mode="eval").body
        return Expr(node, Type("Callable", (Type("[]", (arg_t,)), T(rtype))), frozenset(used), frozenset())

    def call(self, inst: Instance, *, budget: int = 0, fixed: dict[str, Expr] | None = None) -> tuple[Expr, list[Expr]]:
        """Build a use of ``inst``; returns the expression and the guards its preconditions need."""
        rng = self.rng
        fixed = dict(fixed or {})
        entry, sig = inst.entry, inst.sig
        if entry.id != self.target and not self.allow_other:
            raise GenFail("only the target entry is allowed")
        saved_avoid = self.avoid
        self.avoid = set(saved_avoid).union(*(e.reads for e in fixed.values())) if fixed else set(saved_avoid)
        try:
            return self._call(inst, budget, fixed)
        finally:
            self.avoid = saved_avoid

    def _call(self, inst: Instance, budget: int, fixed: dict[str, Expr]) -> tuple[Expr, list[Expr]]:
        rng = self.rng
        entry, sig = inst.entry, inst.sig
        fixed_names = set(fixed)
        bound: dict[str, Expr] = {}
        positional: list[tuple[str, Expr]] = []
        keywords: list[tuple[str, Expr]] = []
        if sig.receiver is not None:
            rt = inst.ptype("self")
            bound["self"] = fixed.pop("self", None) or self.expr(rt, budget, allow_literal=False)
            self.avoid |= bound["self"].reads
        skipping = False
        all_optional = entry.kind == "function" and sig.params and all(p.optional or p.variadic for p in sig.params)
        for index, p in enumerate(sig.params):
            if p.optional and p.name not in fixed and not (all_optional and index == 0):
                if skipping or rng.random() < 0.65:
                    skipping = skipping or not p.keyword
                    continue
            pt = inst.ptype(p.name)
            if p.name in fixed:
                e = fixed.pop(p.name)
            elif pt.name == "Callable":
                e = self.callable_arg(pt, p.name)
            elif pt.name == "|" and any(m.name == "Callable" for m in pt.args):
                e = literal(None, "None") if rng.random() < 0.3 else self.callable_arg(next(m for m in pt.args if m.name == "Callable"), p.name)
            elif pt.name == "Iterator":
                src_t = Type("list", (pt.args[0],))
                try:
                    src = self.expr(src_t, 0, allow_literal=False)
                except GenFail:
                    src = self.expr(src_t, 0)
                if not self.allow_other:
                    raise GenFail("iterator arguments need builtin.iter")
                e = call_function("iter", [src], pt, entry="builtin.iter")
            elif pt.name == "tuple" and any(a.name == "type" for a in pt.args):
                e = Expr(ast.parse("(int, str)", mode="eval").body, pt)
            elif pt.name == "|" and any(m.name == "type" for m in pt.args):
                e = Expr(ast.Name(rng.choice(("int", "str")), ast.Load()), T("type"))
            elif entry.id == "op.ifexp" and p.name == "a":
                try:
                    e = self.expr(self.concretize(pt), budget, allow_literal=False)
                except GenFail:
                    e = self.expr(self.concretize(pt), budget)
            elif entry.id == "op.ifexp" and p.name == "cond":
                e = self.expr(T("bool"), budget, allow_literal=False)
            elif entry.id in ("op.is", "op.is_not") and p.name == "a":
                e = self.expr(self.concretize(pt), budget, allow_literal=False)
            elif entry.id in ("op.is", "op.is_not") and p.name == "b":
                e = literal(None, "None")
            elif entry.id in _SAME_TYPE and positional and p.name == "b":
                first = positional[0][1]
                e = self.expr(first.type, budget, pname=p.name)
                for _ in range(3):
                    if e.text != first.text:
                        break
                    e = self.literal_for(first.type, p.name)
                if e.text == first.text:
                    raise GenFail("both operands are the same")
            else:
                ct = self.concretize(pt)
                if entry.id == "op.unpack_call" and p.name == "a":
                    inner = self.expr(ct.args[0], budget)
                    e = Expr(ast.Tuple([inner.node], ast.Load()), ct, inner.entries, inner.reads)
                elif entry.id == "op.unpack_call" and p.name == "f":
                    e = Expr(ast.Name(rng.choice(("str", "abs") if pt.args[0].args[0].name == "int" else ("len", "str")), ast.Load()), pt)
                else:
                    e = self.expr(ct, budget, pname=p.name)
            if p.variadic and entry.id in ("builtin.max", "builtin.min"):
                continue
            self.avoid |= e.reads
            bound[p.name] = e
            (keywords if p.keyword else positional).append((p.name, e))
        if entry.id in _SAME_TYPE and "a" in bound and "b" in bound and bound["a"].type != bound["b"].type \
                and entry.id not in ("op.is", "op.is_not"):
            free = "a" if "a" not in fixed_names else "b"
            keep = "b" if free == "a" else "a"
            new = self.expr(bound[keep].type, 0, pname=free)
            bound[free] = new
            positional = [(n, new if n == free else e) for n, e in positional]
        if any(_hash_ordered(e.type) for e in bound.values()):
            keyed = any(name == "key" for name, _ in keywords)
            for name, e in bound.items():
                if _hash_ordered(e.type) and not _order_free(entry.id, keyed):
                    raise GenFail(f"{entry.id} would show the order of a set of strings (it changes with the hash seed)")
        if entry.kind == "operator" and len(bound) >= 2:
            texts = [e.text for e in bound.values()]
            if len(set(texts)) < len(texts):
                raise GenFail("an operator with two identical operands")
        guards = self._preconditions(inst, bound)
        if entry.kind == "method":
            node = call_method(bound["self"], entry.name, [e for _, e in positional], inst.returns, entry=entry.id,
                               keywords=keywords)
        elif entry.kind == "function":
            node = call_function(entry.name, [e for _, e in positional], inst.returns, entry=entry.id, keywords=keywords)
        else:
            if keywords:
                raise GenFail("operators take no keywords")
            node = from_template(entry.template, bound, inst.returns if sig.returns != "None" else T("None"), entry=entry.id)
        self.used_params |= node.reads
        return node, guards

    def _preconditions(self, inst: Instance, bound: dict[str, Expr]) -> list[Expr]:
        guards = []
        for pre in inst.sig.preconditions:
            if pre.unless is not None and pre.unless in bound:
                continue
            names = [a for a in pre.args if a in bound]
            if not names:
                continue
            exprs = [bound[a] for a in names]
            if all(e.is_literal for e in exprs):
                if not pre_mod.holds(pre, {a: bound[a].value for a in names}):
                    raise GenFail(f"literal arguments break {pre}")
                continue
            if pre.check == "small" and all(e.is_literal or e.type.name != "int" for e in exprs):
                continue
            g = _guard(pre, bound)
            if g is not None:
                guards.append(g)
        return guards


def _guard(pre, bound: dict[str, Expr]) -> Expr | None:
    """A boolean expression that makes ``pre`` hold, or None when no simple guard exists."""
    a = [bound.get(n) for n in pre.args]

    def mk(text: str, entries: tuple[str, ...]) -> Expr:
        node = ast.parse(text, mode="eval").body
        reads = frozenset().union(*(e.reads for e in a if e is not None))
        return Expr(node, T("bool"), frozenset(entries).union(*(e.entries for e in a if e is not None)), reads)

    def paren(e: Expr) -> str:
        return e.text if isinstance(e.node, (ast.Name, ast.Constant, ast.Call, ast.Attribute, ast.Subscript)) else f"({e.text})"

    c = pre.check
    if c == "nonempty":
        return mk(paren(a[0]), ())
    if c == "contains" and a[1] is not None:
        return mk(f"{paren(a[1])} in {paren(a[0])}", ("op.in",))
    if c == "found" and a[1] is not None and len(a) < 3 or (c == "found" and all(x is None for x in a[2:])):
        return mk(f"{paren(a[1])} in {paren(a[0])}", ("op.in",))
    if c == "valid_index" and a[1] is not None:
        if a[1].is_literal and isinstance(a[1].value, int):
            i = a[1].value
            return mk(f"len({paren(a[0])}) > {i if i >= 0 else -i - 1}", ("builtin.len", "op.gt"))
        return mk(f"0 <= {paren(a[1])} < len({paren(a[0])})", ("builtin.len", "op.le", "op.lt"))
    if c == "nonzero":
        return mk(f"{paren(a[0])} != 0", ("op.ne",))
    if c == "nonnegative":
        return mk(f"{paren(a[0])} >= 0", ("op.ge",))
    if c == "small":
        return mk(f"{paren(a[0])} < 10", ("op.lt",))
    if c == "single_char":
        return mk(f"len({paren(a[0])}) == 1", ("builtin.len", "op.eq"))
    if c == "codepoint":
        return mk(f"{paren(a[0])} >= 0", ("op.ge",))
    if c == "int_literal" and (len(a) < 2 or a[1] is None or (a[1].is_literal and a[1].value == 10)):
        return mk(f"{paren(a[0])}.isdigit()", ("str.isdigit",))
    return None
