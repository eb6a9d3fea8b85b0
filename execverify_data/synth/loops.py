"""Control-flow programs (levels 3-6): the spec's chain realized as the loops and tests of one computation.

:class:`LoopBuilder` first *plans* the data the chain walks (:func:`_walks`: for each loop step, a hop
from the value in focus to its items, chosen so that the target's use lands on a value of a grain it
applies to), then writes the chain from the outside in, the innermost block updating the accumulator
(:mod:`.accumulators`) with a value of the focus so that every loop variable is read. Every ``while``
terminates by construction. docs/synthesis.md ("The walk") describes each form.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache

from execverify_data.astwalk import walk
from execverify_data.synth import accumulators as accs
from execverify_data.synth.code import BUILTIN_NAMES, SIGNATURE, GenFail, NoUse, Stmt, Val, texts
from execverify_data.synth.measures import nested_depth
from execverify_data.synth.names import Names
from execverify_data.synth.vocab import (
    SLOTS, Form, annotation, element_grain, empty_value, forms, grain_type, param_type,
)

__all__ = ["LoopBuilder"]

_NUMBERS = ("num", "count", "index", "byte", "number")
_TEXTS = ("word", "char", "text", "line", "numstr", "digits")
_SEQUENCES = ("text", "line", "word", "digits", "numstr", "words", "numstrs", "twords", "nums", "tnums", "amounts")
_SET_GRAINS = ("ids", "tags", "fids", "ftags")

#: how a ``for`` loop gets from a value of one grain to its items: grain -> [(item grain, how)]
FOR_HOPS: dict[str, list[tuple[str, str]]] = {
    "text": [("word", "split"), ("char", "iter")],
    "line": [("word", "split_sep"), ("char", "iter")],
    "word": [("char", "iter")], "digits": [("char", "iter")], "numstr": [("char", "iter")],
    "words": [("word", "iter"), ("word", "enumerate")], "numstrs": [("numstr", "iter")], "twords": [("word", "iter")],
    "tags": [("word", "sorted")], "ftags": [("word", "sorted")],
    "nums": [("num", "iter"), ("num", "enumerate")], "tnums": [("num", "iter")],
    "ids": [("num", "sorted")], "fids": [("num", "sorted")],
    "table": [("word", "items_key"), ("num", "items_value")], "names": [("word", "items_value"), ("num", "items_key")],
    "blob": [("byte", "iter"), ("blob", "split_bsep")],
    "count": [("count", "range")],
    "amounts": [("amount", "iter")],
}
#: the same for ``while`` loops
WHILE_HOPS: dict[str, list[tuple[str, str]]] = {
    **{g: [(element_grain(g), "index_walk")] for g in _SEQUENCES},
    "number": [("num", "digits")],
    **{g: [(element_grain(g), "sorted_walk")] for g in _SET_GRAINS + ("table",)},
}
#: parameter grains a chain may start from
_SOURCES = ("words", "nums", "text", "line", "numstrs", "table", "names", "tnums", "twords", "ids", "tags", "fids",
            "ftags", "blob", "word", "digits", "number", "count", "amounts")
#: targets that are a ``while`` loop emptying a copy, and the grain the copy is made of
_STRUCT = {"list.pop": ("nums", "words"), "set.pop": ("ids", "fids"), "dict.popitem": ("table",), "op.ifloordiv": ("number",)}
_INDEXABLE = ("text", "word", "line", "digits", "numstr", "words", "nums", "numstrs", "tnums", "twords")


@dataclass
class _Plan:
    source: str
    hops: list  # per chain step: (item grain, how) for loops, None for tests
    grains: list  # the focus grain at each chain step (before it)
    cond_at: int  # chain step whose test is the target's (-1: an extra test innermost; -2: none)


class LoopBuilder:
    def __init__(self, gen):
        self.g = gen
        self.rng = gen.rng
        self.names = gen.names
        self.spec = gen.spec
        self.chain = tuple(gen.spec.control_flow)
        self.target = gen.target
        self.acc: accs.Acc | None = None
        self.mode = ""
        self.tform: Form | None = None
        self.secondary: accs.Acc | None = None
        self.plan: _Plan | None = None
        self.helper: _Helper | None = None
        self.setup: Val | None = None  # a value computed before the loops (mode "setup")
        self.setup_used = False
        self.indexed = False  # the target's use is on the focus's first item
        self.value_grain: str | None = None
        self.result_grain: str | None = None  # the grain of what the return makes of the accumulator, when it does
        self.scope: list[tuple[str, str]] = []  # (value, kind of test) of the tests around the block being built
        self.scope_texts: list[str] = []  # the texts of those tests (never asked again inside them)
        self.pre = False  # the target's use transforms the input before the loops

    def fail(self, why: str):
        raise GenFail(why)

    # ------------------------------------------------------------------ plan
    def choose_mode(self) -> None:
        if self.target in _STRUCT:
            self.mode = "struct"
        elif self.target in accs.KINDS_FOR_TARGET:
            self.mode = "acc"
        else:
            options = [f for f in forms(head=self.target) if f.role in ("pred", "measure", "map", "parts", "agg", "pair")]
            if not options:
                raise NoUse(f"{self.target} has no use in a loop")
            self.tform = self.rng.choice(options)
            self.mode = {"pred": "cond", "measure": "value", "map": "value", "parts": "iter", "agg": "result",
                         "pair": "pair"}[self.tform.role]
            if self.mode == "result":
                collection = self.tform.gives in _COLLECTION_GIVES
                if collection and (self.tform.head not in _FINISHERS or self.rng.random() < 0.6):
                    self.mode = "iter"  # for x in sorted(xs), for x in a & b, for w in filter(None, words)
                elif not collection and (self.tform.head not in _FINISHERS or self.rng.random() < 0.5):
                    self.mode = "setup"  # top = max(nums), then a test or value reads it

    def make_plan(self) -> _Plan:
        """A walk of the chain (or of the chain with one more loop innermost, when the target's use needs a
        loop the spec does not ask for: deeper nesting still meets the spec), drawn among every walk that
        lets the target be used (:func:`_walks`, computed once per target use and chain)."""
        spec_chain = self.chain
        extra = {"struct": ("while",), "iter": ("for",)}.get(self.mode, ("for",))
        chains = [spec_chain, spec_chain + extra]
        if self.mode in ("acc", "struct") and not any(s in ("for", "while") for s in spec_chain):
            chains = chains[1:]  # an accumulator needs a loop to fill it
        for chain in chains:
            walks = _walks(self.mode, self.tform, self.target, chain)
            if walks:
                self.chain = chain
                source, hops, grains, placements = self.rng.choice(walks)
                cond_at, self.indexed, self.pre = self.rng.choice(placements)
                return _Plan(source, list(hops), list(grains), cond_at)
        if self.mode in ("struct", "acc", "setup", "iter"):
            raise NoUse(f"no walk of the chain {spec_chain} reaches the target's use")
        self.fail(f"no walk of the chain {spec_chain} reaches the target's use")

    # ------------------------------------------------------------------ build
    def build(self) -> list:
        g = self.g
        self.choose_mode()
        self.plan = self.make_plan()
        if self.spec.helper_depth:
            self.helper = _Helper(self)
        top = g.param(self.plan.source)
        setup: list = []
        if self.mode == "setup":
            value, guard = g.use(self.tform, top, (top,))
            name = self.names.fresh(_SETUP_NAMES.get(self.tform.head, "pivot"))
            expr = value.or_empty(guard).text
            setup.append(f"{name} = {expr}")
            g.note(expr)
            self.setup = _v(name, value.grain)
        walked = top
        if self.pre:
            value, guard = g.use(self.tform, top, (top,))
            name = self.names.fresh(_PRE_NAMES.get(self.tform.role, "cleaned"))
            setup.append(f"{name} = {value.text}" if not guard else f"{name} = {value.text} if {guard} else {top.text}")
            g.note(value.text)
            walked = _v(name, top.grain)
        body = self.block(0, walked, (top, walked) if walked is not top else (top,))
        if self.setup is not None and self.setup.text not in _reads(body):
            self.fail("the set-up value is never read")
        body = setup + body
        if not g.placed:
            self.fail("the target found no place")
        acc = self.acc
        init = list(acc.init) + (self.secondary.init if self.secondary else [])
        tail = list(acc.finish)
        if acc.early:
            if self.secondary is not None:
                self.fail("an early return with a second counter")
            tail.append(f"return {self.fallback(top)}")
        else:
            returns = acc.returns if self.secondary is None else f"{acc.returns}, {self.secondary.returns}"
            tail.append(f"return {returns}")
        body = self.reach_depth(init + body + tail)
        name = self.names.fresh(acc.function_name(top.text.rstrip("0123456789")))
        functions = []
        if self.helper is not None:
            if not self.helper.defined or f"{self.helper.name}(" not in "\n".join(_flat(body)):
                self.fail("the helper was never called")
            functions.append(self.helper.function())
        returns = acc.return_annotation(self.value_grain, self.result_grain)
        if self.secondary is not None:
            returns = f"tuple[{returns}, int]"
        functions.append((name, SIGNATURE, returns, body))
        return functions

    def reach_depth(self, body: list) -> list:
        """When the computation is not yet as deeply nested as the spec asks, walk the distinct items of the
        first loop's input in order: ``for word in words`` -> ``for word in sorted(set(words))`` (and
        ``sorted(set(text.lower()))`` for two levels). The loop then visits each value once."""
        need = self.spec.nested_depth

        def deep_enough() -> bool:  # the texts are parsed only while the program is not deep enough yet
            return self.g.depth_so_far >= need or any(nested_depth(t) >= need for t in _flat(body))

        if deep_enough():
            return body

        params = {p.name: p.grain for p in self.g.params}
        rules = [
            (r"for (\w+) in (\w+)\.split\((.*)\):", lambda m: f"for {m[1]} in sorted(set({m[2]}.split({m[3]}))):"),
            (r"for (\w+), (\w+) in (\w+)\.items\(\):", lambda m: f"for {m[1]}, {m[2]} in sorted({m[3]}.items()):"),
            (r"for (\w+), (\w+) in enumerate\((\w+)\):", lambda m: f"for {m[1]}, {m[2]} in enumerate(sorted({m[3]})):"),
            (r"for (\w+) in sorted\((\w+)\):", lambda m: f"for {m[1]} in sorted(set({m[2]})):"),
            (r"for (\w+) in (\w+):", lambda m: f"for {m[1]} in sorted(set({m[2]})):"),
            (r"for (\w+) in (?:sorted\()?(\w+)\)?:", lambda m: f"for {m[1]} in sorted(map({_NORMAL[params[m[2]]]}, {m[2]})):"),
        ]
        for st in _statements(body):
            if not isinstance(st, Stmt) or not st.head.startswith("for "):
                continue
            for pattern, rewrite in rules:
                m = re.fullmatch(pattern, st.head)
                if not m:
                    continue
                src = m.groups()[1] if pattern.startswith("for (\\w+) in (\\w+)") else None
                grain = params.get(src or "")
                walked = next((grain for name, grain in params.items() if name in m.groups()[1:]), None)
                if pattern.endswith(r"\)?:") != (walked in _NORMAL):
                    continue  # a set has no duplicates to drop: its items are walked normalized instead
                if src is not None and pattern.endswith(r"(\w+):") and grain not in (
                        "words", "nums", "text", "word", "line", "twords", "tnums", "numstrs"):
                    continue
                old = st.head
                st.head = rewrite(m)
                if deep_enough():
                    self.g.mark("builtin.sorted")
                    return body
                st.head = old
        self.fail(f"nested depth below {need}")

    def fallback(self, top: Val) -> str:
        """What a function with early returns returns at its end: a value of the same grain as the others
        (another use of the input for a choice without loop, the grain's empty value after a search)."""
        grain = self.value_grain or self.acc.gives
        if self.acc.kind == "any":
            return "False"
        if self.acc.kind == "choose":
            if top.grain == grain:
                return top.text
            options = self.uses_giving(top, grain)
            if options:
                return self.g.use(self.rng.choice(options), top)[0].text
        return empty_value(grain)

    def uses_giving(self, value: Val, grain: str) -> list[Form]:
        """The uses of ``value`` (as a value or a measure, with no guard or second value) that give ``grain``."""
        return [f for f in self.g.forms_on(value.grain, "map") + self.g.forms_on(value.grain, "measure")
                if not f.guard and not f.y and f.gives_on(value.grain) == grain]

    def block(self, i: int, focus: Val, context: tuple[Val, ...]) -> list:
        if i == len(self.chain):
            if self.mode == "cond" and self.plan.cond_at == -1 and not self.g.placed:
                test = self.target_test(focus, context)
                body = self.action(focus, context)
                tail = []
                under_test = bool(self.chain) and self.chain[-1] in ("if", "if-elif")
                if under_test or _bare_if(body):
                    if self.acc.early:
                        self.fail("two bare nested tests around an early return")
                    tail = [("else:", self.other_action(focus, context, test))]  # no collapsible pair of tests
                return [Stmt(f"if {test}:", body, tail)]
            return self.action(focus, context)
        step = self.chain[i]
        if step == "for":
            return self.for_step(i, focus, context)
        if step == "while":
            return self.while_step(i, focus, context)
        return self.if_step(i, focus, context)

    # ---------------------------------------------------------------- for
    def for_step(self, i: int, focus: Val, context) -> list:
        item_grain, how = self.plan.hops[i]
        names, g, rng = self.names, self.g, self.rng
        src = focus.text
        new: list[Val]
        if how == "target_parts":
            value, guard = g.use(self.tform, focus, context)
            if guard:
                self.fail("parts with a guard")
            if value.grain in _SET_GRAINS:  # a set's order depends on the hash seed: walk it sorted
                value = Val.of(f"sorted({value.text})", value.grain)
            head, new = self._walk(value, item_grain)
        elif how == "split":
            var = names.fresh(rng.choice(("word", "token")))
            head, new = f"for {var} in {src}.split():", [_v(var, "word")]
            g.mark("str.split")
        elif how == "split_sep":
            var = names.fresh(rng.choice(("field", "part", "item")))
            head, new = f"for {var} in {src}.split({rng.choice(_SEPS)!r}):", [_v(var, "word")]
            g.mark("str.split")
        elif how == "split_bsep":
            var = names.fresh(rng.choice(("chunk", "part")))
            head, new = f"for {var} in {src}.split({rng.choice((b',', b' ', b'-'))!r}):", [_v(var, "blob")]
            g.mark("bytes.split")
        elif how == "sorted":
            var = names.element(src, focus.grain)
            head, new = f"for {var} in sorted({src}):", [_v(var, item_grain)]
            g.mark("builtin.sorted")
        elif how in ("items_key", "items_value"):
            k = names.element(src, focus.grain) if focus.grain == "table" else names.fresh("key")
            v = names.fresh(rng.choice(("qty", "amount", "value"))) if focus.grain == "table" else names.fresh("name")
            kv = (_v(k, "word"), _v(v, "num")) if focus.grain == "table" else (_v(k, "num"), _v(v, "word"))
            head = f"for {k}, {v} in {src}.items():"
            g.mark("dict.items")
            # the other half of the item stays in context; the planned grain is the focus
            new = [x for x in kv if x.grain != item_grain] + [x for x in kv if x.grain == item_grain]
        elif how == "range":
            var = names.fresh(rng.choice(("i", "step")))
            head = f"for {var} in range(1, {src} + 1):" if rng.random() < 0.3 else f"for {var} in range({src}):"
            new = [_v(var, "count")]
            g.mark("builtin.range")
        elif how == "enumerate":
            idx, var = names.fresh("i"), names.element(src, focus.grain)
            start = ", 1" if rng.random() < 0.3 else ""
            head, new = f"for {idx}, {var} in enumerate({src}{self.maybe_slice(i, focus)}{start}):", [_v(idx, "index"), _v(var, item_grain)]
            g.mark("builtin.enumerate")
        else:  # iter
            var = names.element(src, focus.grain)
            head, new = f"for {var} in {src}{self.maybe_slice(i, focus)}:", [_v(var, item_grain)]
        self.g.note(head[4:].rstrip(":").split(" in ", 1)[-1])
        body = self.block(i + 1, new[-1], context + tuple(new))
        return [Stmt(head, body)]

    def maybe_slice(self, i: int, focus: Val) -> str:
        """In the first loop over an input, when the spec wants a second parameter: ``[:limit]`` that
        stays only if that parameter is not found another use (:meth:`_Gen.resolve`)."""
        if i != _first_loop(self.chain) or self.spec.n_params < 2 or focus.grain not in _INDEXABLE:
            return ""
        return f"[:{self.g.liftable('count', '')}]"

    def _walk(self, value: Val, item_grain: str) -> tuple[str, list[Val]]:
        names = self.names
        if value.grain == "pairs":
            item = {"word": "word", "num": "n", "char": "ch", "numstr": "token", "byte": "b"}.get(item_grain, "item")
            if value.text.startswith("enumerate("):
                a, b = names.fresh(self.rng.choice(("i", "pos", "idx"))), names.fresh(item)
                return f"for {a}, {b} in {value.text}:", [_v(a, "index"), _v(b, item_grain)]
            if value.text.startswith("zip(*[iter("):  # consecutive pairs of one input
                a, b = names.fresh("left"), names.fresh("right")
                return f"for {a}, {b} in {value.text}:", [_v(a, item_grain), _v(b, item_grain)]
            if ", " in value.text and "[1:]" in value.text:  # zip(xs, xs[1:]): each item and the next
                a, b = names.fresh("prev"), names.fresh("cur")
                return f"for {a}, {b} in {value.text}:", [_v(a, item_grain), _v(b, item_grain)]
            a, b = names.fresh("first"), names.fresh("second")
            return f"for {a}, {b} in {value.text}:", [_v(a, "word"), _v(b, item_grain)]
        if value.grain == "items":
            k, v = names.fresh("key"), names.fresh("value")
            return f"for {k}, {v} in {value.text}:", [_v(v, "num"), _v(k, item_grain)]
        var = names.fresh({"word": "part", "count": "i", "char": "ch", "blob": "chunk"}.get(item_grain, "item"))
        return f"for {var} in {value.text}:", [_v(var, item_grain)]

    # ---------------------------------------------------------------- while
    def while_step(self, i: int, focus: Val, context) -> list:
        item_grain, how = self.plan.hops[i]
        names, g, rng = self.names, self.g, self.rng
        src = focus.text
        if how == "digits" or (how == "struct" and self.target == "op.ifloordiv"):
            rest = names.fresh(rng.choice(("rest", "n", "value")))
            d = names.fresh("digit")
            dv = _v(d, "num")
            body = [f"{d} = {rest} % 10"] + self.block(i + 1, dv, context + (dv,)) + [f"{rest} //= 10"]
            g.mark("op.ifloordiv")
            return [f"{rest} = abs({src})" if rng.random() < 0.3 else f"{rest} = {src}", Stmt(f"while {rest} > 0:", body)]
        if how == "target_parts":
            value, guard = g.use(self.tform, focus, context)
            if guard:
                self.fail("parts with a guard")
            parts = names.fresh(rng.choice(("parts", "pieces", "items")))
            idx = names.fresh(rng.choice(("i", "pos")))
            var = names.fresh({"word": "part", "char": "ch", "num": "num", "blob": "chunk", "count": "value"}.get(item_grain, "item"))
            self.g.note(value.text)
            text = f"sorted({value.text})" if value.grain in _SET_GRAINS else _materialize(value.text)
            return [f"{parts} = {text}", *self.index_walk(i, parts, idx, var, item_grain, context, with_index=True)]
        if how == "index_walk":
            idx = names.fresh(rng.choice(("i", "pos", "idx")))
            return self.index_walk(i, src, idx, names.element(src, focus.grain), item_grain, context, with_index=True)
        if how == "sorted_walk":
            items = names.fresh("ordered")
            idx = names.fresh("i")
            walk = self.index_walk(i, items, idx, names.element(src, focus.grain), item_grain, context)
            g.mark("builtin.sorted")
            return [f"{items} = sorted({src})", *walk]
        if how == "struct":
            t = self.target
            g.placed = True
            if t == "list.pop":
                stack = names.fresh(rng.choice(("stack", "pending", "todo")))
                var = names.element(src, focus.grain)
                ev = _v(var, item_grain)
                pop = f"{stack}.pop()" if rng.random() < 0.7 else f"{stack}.pop(0)"
                return [f"{stack} = list({src})", Stmt(f"while {stack}:", [f"{var} = {pop}"] + self.block(i + 1, ev, context + (ev,)))]
            if t == "set.pop":
                pool = names.fresh("pool")
                var = names.fresh("num")
                ev = _v(var, "num")
                return [f"{pool} = set({src})", Stmt(f"while {pool}:", [f"{var} = {pool}.pop()"] + self.block(i + 1, ev, context + (ev,)))]
            pending = names.fresh("pending")
            k, v = names.fresh("key"), names.fresh("value")
            kv, vv = _v(k, "word"), _v(v, "num")
            return [f"{pending} = dict({src})",
                    Stmt(f"while {pending}:", [f"{k}, {v} = {pending}.popitem()"] + self.block(i + 1, vv, context + (kv, vv)))]
        self.fail(f"no while {how}")

    def index_walk(self, i: int, seq: str, idx: str, var: str, item_grain: str, context, *, with_index=False) -> list:
        """``idx = 0`` / ``while idx < len(seq):`` / ``var = seq[idx]`` ... ``idx += 1``, the chain going on with
        ``var`` in focus (and ``idx`` in context ``with_index``)."""
        item = _v(var, item_grain)
        new = (_v(idx, "index"), item) if with_index else (item,)
        body = [f"{var} = {seq}[{idx}]"] + self.block(i + 1, item, context + new) + [f"{idx} += 1"]
        return [f"{idx} = 0", Stmt(f"while {idx} < len({seq}):", body)]

    # ---------------------------------------------------------------- if / if-elif
    def if_step(self, i: int, focus: Val, context) -> list:
        """``if`` (the chain goes on in its body) or ``if``/``elif`` (the chain goes on in the ``elif`` branch, the
        ``if`` branch updating the result directly: no ``if`` ending a branch just before an ``elif``).
        An ``if`` whose body is another test gets an ``else`` (two bare nested tests collapse into one)."""
        rng = self.rng
        step = self.chain[i]
        if self.mode == "cond" and self.plan.cond_at == i and not self.g.placed:
            test = self.target_test(focus, context)
        else:
            test = self.test(focus, context)
        self.g.note(test)
        mark = _test_mark(test, focus)
        nested_test = i + 1 < len(self.chain) and self.chain[i + 1] in ("if", "if-elif")
        if step == "if-elif":
            other = self.test(focus, context, avoid={test})
            self.g.note(other)
            self.scope += [mark, _test_mark(other, focus)]
            self.scope_texts += [test, other]
            cont = self.block(i + 1, focus, context)
            if _bare_if(cont):
                self.fail("an elif whose body is one bare test")  # elif a: if b: collapses into elif a and b
            self.scope = self.scope[:-2]
            self.scope_texts = self.scope_texts[:-2]
            early = self.acc is not None and self.acc.early
            first = self.other_action(focus, context, test)
            tail = [(f"elif {other}:", cont)]
            if rng.random() < 0.35 and not early:
                arm = self.other_action(focus, context, test, second=True)
                if arm != first and arm != cont:
                    tail.append(("else:", arm))
            return [Stmt(f"if {test}:", first, tail)]
        self.scope.append(mark)
        self.scope_texts.append(test)
        body = self.block(i + 1, focus, context)
        self.scope.pop()
        self.scope_texts.pop()
        tail = []
        early = self.acc is not None and self.acc.early
        last = i == len(self.chain) - 1
        collapsible = _bare_if(body)
        under_test = i > 0 and self.chain[i - 1] in ("if", "if-elif")  # alone in an if or elif branch: needs an else
        wants_else = nested_test or collapsible or under_test or (self.acc is not None and self.acc.kind == "partition" and last)
        if (wants_else or (last and rng.random() < 0.35)) and not early:
            arm = self.other_action(focus, context, test)
            if arm != body:
                tail.append(("else:", arm))
        elif (nested_test or collapsible or under_test) and early:
            self.fail("two bare nested tests around an early return")
        if collapsible and not tail:
            self.fail("two bare nested tests")
        return [Stmt(f"if {test}:", body, tail)]

    def target_test(self, focus: Val, context) -> str:
        g = self.g
        if self.indexed and focus.grain not in self.tform.on:
            focus = _first_item(focus, self.rng)
        for v in (focus, *reversed(context)):
            if v.grain in self.tform.on and g.can_second(self.tform, v.grain, context):
                value, guard = g.use(self.tform, v, context)
                text = value.as_test(guard)
                if text in self.scope_texts:
                    self.fail("the target's test repeats an enclosing one")
                return self.maybe_helper_test(text, v)
        self.fail("the target's test finds no subject")

    def test(self, focus: Val, context, *, avoid: set[str] = frozenset()) -> str:
        """A test of the focus that the inputs can make go both ways: not the same kind of test of the same
        value as an enclosing one or as the ``if`` of its ``elif`` (``islower`` inside ``islower``, ``isalnum``
        inside ``isdigit``, ``len(x) > 7`` after ``len(x) > 3`` are decided by the test around them)."""
        rng, g = self.rng, self.g
        candidates: list = []
        blocked = set(self.scope)
        avoid = set(avoid) | set(self.scope_texts)
        if self.mode == "cond" and self.tform is not None:
            blocked |= {(focus.text, _group(_kind_of_form(self.tform)))}
        for f in g.forms_on(focus.grain, "pred"):
            if g.can_second(f, focus.grain, context) and (focus.text, _group(_kind_of_form(f))) not in blocked:
                candidates.append(f)
        if (focus.text, "len") in blocked:
            avoid = set(avoid) | {"__len__"}
        if self.setup is not None and not self.setup_used:
            test = _against(focus, self.setup, rng)
            if test is not None and test not in avoid:
                self.setup_used = True
                return test
        cmp = _threshold(focus, self.spec, rng, g) if "__len__" not in avoid else None
        if g.wants_marker():
            candidates = [f for f in candidates if _has_param_slot(f) or f.y] or candidates
        operators = [f for f in candidates if f.head.startswith("op.") and "(" not in f.text]
        if operators and rng.random() < 0.7:
            candidates = operators  # x % 2 == 0, ch in 'aeiou': a test without another call
        candidates = g.frugal(candidates)
        # a length test brings ``len`` into a program that may call enough already
        share = 0.35 if "len" in g.calls or not g.known(candidates) else 0.1
        for _ in range(10):
            if cmp is not None and (not candidates or rng.random() < share):
                text = cmp
            else:
                if not candidates:
                    break
                value, guard = g.use(rng.choice(candidates), focus, context)
                text = value.as_test(guard)
            if text not in avoid:
                return self.maybe_helper_test(text, focus)
            cmp = _threshold(focus, self.spec, rng, g) if "__len__" not in avoid else None
        self.fail(f"no test for {focus.grain}")

    def maybe_helper_test(self, text: str, subject: Val) -> str:
        if self.helper is not None and not self.helper.defined and self.rng.random() < 0.6:
            return self.helper.predicate(text, subject)
        return text

    # ---------------------------------------------------------------- innermost
    def action(self, focus: Val, context) -> list:
        g = self.g
        body: list = []
        if self.mode == "pair" and not g.placed:
            if self.indexed and focus.grain not in self.tform.on:
                focus = _first_item(focus, self.rng)
            value, guard = g.use(self.tform, focus, context)
            names = [self.names.fresh(p) for p in (("head", "sep", "tail") if value.grain in ("triple", "btriple") else ("q", "r"))]
            body.append(f"{', '.join(names)} = {value.text}")
            keep = names[0] if value.grain != "pairnum" else names[1]
            grain = {"triple": "word", "btriple": "blob", "pairnum": "num"}[value.grain]
            focus = _v(keep, grain)
            context = context + (focus,)
        value = self.value(focus, context)
        if self.acc is None:
            self.acc = self.choose_acc(value, focus, context)
        if value is not None and self.acc.needs and not self.acc.accepts(value.grain):
            self.fail(f"{self.acc.kind} cannot take {value.grain}")
        key = self.key_for(focus, context, value) if self.acc.kind in ("group", "index") else None
        value = self.deepen(value, key)
        self.value_grain = value.grain if value is not None else None
        body += self.acc.update(value, key)
        if self.mode == "result" and not g.placed:
            self.place_result()
        return body

    def deepen(self, value: Val | None, key: Val | None) -> Val | None:
        """Reach the spec's nested-call depth inside the update (:meth:`_Gen.deepen`)."""
        if value is None:
            return None
        acc = self.acc

        def deep_enough(v: Val) -> bool:  # the program may be deep enough already: then no update is parsed
            need = self.spec.nested_depth
            return self.g.depth_so_far >= need or nested_depth("\n".join(_flat(acc.update(v, key)))) >= need

        return self.g.deepen(value, deep_enough, acc.accepts)

    def value(self, focus: Val, context) -> Val | None:
        """What the innermost block feeds the accumulator: the target's use, or a use of the focus."""
        rng, g = self.rng, self.g
        if self.mode == "value" and not g.placed:
            if self.indexed and focus.grain not in self.tform.on:
                focus = _first_item(focus, rng)
            subjects = [focus] + [v for v in reversed(context) if v.grain in self.tform.on and self.tform.y == "elem"]
            for v in subjects:
                if v.grain in self.tform.on and g.can_second(self.tform, v.grain, context):
                    value, guard = g.use(self.tform, v, context)
                    value = value.or_empty(guard)
                    return self.maybe_helper_value(value, v)
            self.fail("the target's value finds no subject")
        if self.acc is not None and not self.acc.needs:
            return None
        if self.setup is not None and not self.setup_used:
            joined = _combine_with(focus, self.setup)
            if joined is not None:
                self.setup_used = True
                return joined
        options = [f for f in g.forms_on(focus.grain, "map") + g.forms_on(focus.grain, "measure")
                   if not f.guard and g.can_second(f, focus.grain, context)]
        if self.acc is not None:
            options = [f for f in options if self.acc.accepts(f.gives_on(focus.grain))]
        if g.wants_marker():
            options = [f for f in options if _has_param_slot(f)] or options
        if not options or (rng.random() < 0.7 and not g.wants_marker()):
            value = focus
        else:
            value, _ = g.use(rng.choice(g.frugal(options)), focus, context)
        return self.maybe_helper_value(value, focus)

    def maybe_helper_value(self, value: Val, subject: Val) -> Val:
        if self.helper is not None and not self.helper.defined and subject.text in value.reads and value.text != subject.text:
            return self.helper.transform(value, subject)
        return value

    def key_for(self, focus: Val, context, value: Val) -> Val:
        g = self.g
        opts = [f for f in g.forms_on(focus.grain, "measure") + g.forms_on(focus.grain, "map")
                if not f.guard and not f.y and f.gives_on(focus.grain) in _NUMBERS + _TEXTS]
        if not opts:
            return focus
        key, _ = g.use(self.rng.choice(g.frugal(opts)), focus, context)
        return key

    def choose_acc(self, value: Val | None, focus: Val, context) -> accs.Acc:
        rng, g = self.rng, self.g
        grain = value.grain if value is not None else focus.grain
        if self.mode == "acc":
            kinds = [k for k in accs.KINDS_FOR_TARGET[self.target] if k in accs.BUILDERS]
        elif self.mode == "result":
            kinds = ["collect", "dedupe", "seen", "join"]
        elif grain in _NUMBERS or grain == "amount":
            kinds = ["total", "total", "best", "collect", "tally", "worst", "first", "seen", "best_none", "mean"]
            if grain in ("num", "count", "byte", "index"):
                kinds += ["xor", "total_mod", "product", "chunks", "recent"] if rng.random() < 0.5 else []
            if grain in ("count", "index") and rng.random() < 0.3:
                kinds.append("mask")
        elif grain in _TEXTS:
            kinds = ["collect", "build", "join", "tally", "seen", "dedupe", "longest", "first", "group"]
            if grain in ("word", "text", "line"):
                kinds += ["letters", "common_op"] if rng.random() < 0.4 else []
            if value is not None and _REPEAT.fullmatch(value.text):
                # a repetition (``ch * 2``): its length is fixed by the count, its letters are the original's
                kinds = [k for k in kinds if k not in ("longest", "letters", "common_op")]
            if grain in ("word", "char") and rng.random() < 0.3:
                kinds += ["chunks", "chunks_set", "recent"]
        elif grain == "blob":
            kinds = ["collect", "first"]
        else:
            kinds = ["collect"]
        if self.mode == "cond":
            kinds = kinds + ["count", "count", "first", "any", "partition"]
        if not any(step in ("for", "while") for step in self.chain):
            kinds = ["choose"]  # no loop: each branch returns its own value (an accumulator needs a loop)
        if self.chain[-1] not in ("if", "if-elif") and not (self.mode == "cond" and self.plan.cond_at == -1):
            kinds = [k for k in kinds if k != "partition"]  # two lists need a test that splits them
        if any(a == "if" and b in ("if", "if-elif") for a, b in zip(self.chain, self.chain[1:])):
            kinds = [k for k in kinds if k not in ("first", "any", "index_of")] or kinds  # the outer test needs an else
        rng.shuffle(kinds)
        params = {p.name for p in g.params}
        for kind in kinds:
            wants = _SUBJECT_GRAINS.get(kind, ("words", "nums", "ids", "tags", "table"))
            subject = next((v for v in context if v.text in params and v.grain in wants), None)
            first = f"{context[0].text}[0]" if context and context[0].grain == "words" else ""
            if kind.startswith("remaining") and subject is None:
                continue
            if kind in ("common", "common_op") and not first:
                continue
            if kind == "choose":
                subject = context[0]
            if kind.startswith("remaining") and (element_grain(subject.grain) != grain or not (value and value.text.isidentifier())):
                continue  # it removes the input's own items
            copy = (self.target.endswith(".copy") and subject is not None
                    and grain_type(subject.grain).startswith(self.target.split(".")[0]))
            if self.mode == "acc" and self.target.endswith(".copy") and not copy:
                continue  # the target is the copy of an input of its own type
            acc = accs.make(kind, self.names, rng, value_grain=grain, first_value=first, subject=subject, copy=copy)
            if kind.startswith("remaining"):
                acc.needs = (grain,)
            if acc.needs and not acc.accepts(grain):
                continue
            if self.mode == "acc" or (self.target == "list.append" and "append(" in "".join(map(str, acc.update(_v("x", grain))))):
                g.placed = True
            return acc
        self.fail(f"no accumulator takes {grain}")

    def other_action(self, focus: Val, context, test: str, *, second: bool = False) -> list:
        """What an ``elif``/``else`` arm does: another update of the result, else a second counter."""
        acc = self.acc
        if acc is not None and acc.kind == "choose":
            grain = self.value_grain or acc.gives
            options = self.uses_giving(focus, grain)
            if focus.grain == grain and not options:
                return acc.other(focus)
            if options:
                value, _ = self.g.use(self.rng.choice(options), focus, context)
                return acc.other(value)
            self.fail("no other value to choose")
        if acc is not None and acc.kind == "first" and self.value_grain and self.value_grain != acc.gives:
            return [f"return {empty_value(self.value_grain)}"]  # what the function returns when nothing is found
        if acc is not None and not second:
            value = focus if not acc.needs or acc.accepts(focus.grain) else None
            if value is not None:
                arm = acc.other(value)
                if arm:
                    return arm
        if self.secondary is None:
            self.secondary = accs.make("count", self.names, self.rng)
            self.secondary.returns = self.secondary.name
        return [f"{self.secondary.name} += 1"]

    def place_result(self) -> None:
        """The target's whole-collection use applied to the accumulator in the return statement."""
        acc, form, g = self.acc, self.tform, self.g
        if acc.early or acc.gives not in form.on or form.y:
            self.fail("the result does not fit the target's use")
        value, guard = g.fill(form, Val(acc.returns, acc.gives, frozenset({acc.returns})), lift=True)
        value = value.or_empty(guard)
        acc.returns = value.text
        self.result_grain = value.grain
        g.placed = True


_SEPS = (",", ";", "-", "|")
#: a name repeated a literal number of times (``ch * 2``)
_REPEAT = re.compile(r"\w+ \* \d+")
#: what an aggregate gives when it is a collection a loop can walk
_COLLECTION_GIVES = ("same", "listof", "words", "nums", "numstrs", "setof", "fsetof", "tupleof", "blobs", "table",
                     "pairs")
#: aggregates that read naturally as the last step of a function (``return sorted(result)``)
_FINISHERS = ("builtin.sorted", "str.join", "builtin.max", "builtin.min", "builtin.sum", "builtin.len", "builtin.tuple",
              "builtin.dict", "builtin.set", "bytes.join")
#: what a kind that starts from the input needs the input to be
_SUBJECT_GRAINS = {"remaining": ("ids", "tags", "words", "nums"), "remaining_checked": ("ids", "tags", "words", "nums"),
                   "remaining_many": ("tags", "words"), "remaining_list": ("words", "nums", "twords", "tnums"),
                   "remaining_dict": ("table", "names"), "remaining_del": ("table", "names")}
_PRE_NAMES = {"map": "cleaned", "measure": "value"}
#: how reach_depth walks the items of a set parameter in order, one call deeper (a set has no duplicates to drop)
_NORMAL = {"ids": "abs", "fids": "abs", "tags": "str.lower", "ftags": "str.lower"}
_SETUP_NAMES = {"builtin.max": "top", "builtin.min": "low", "builtin.sum": "total", "builtin.len": "size",
                "builtin.next": "first", "op.getitem": "pivot", "dict.get": "base", "list.index": "where",
                "tuple.index": "where", "builtin.any": "flag", "builtin.all": "every", "list.count": "zeros",
                "tuple.count": "ones"}


@lru_cache(maxsize=None)
def _walks(mode: str, tform: Form | None, target: str, chain: tuple[str, ...]) -> tuple:
    """Every walk of ``chain`` from a parameter grain that lets the target's use be placed:
    ``(source, hops, grains, placements)`` with placements ``(cond_at, indexed, pre)`` (see ``_places``)."""
    out = []

    def search(source: str, i: int, hops: tuple, grains: tuple) -> None:
        if i == len(chain):
            placements = _places(mode, tform, chain, hops, grains)
            if placements:
                out.append((source, hops, grains, tuple(placements)))
            return
        step, here = chain[i], grains[-1]
        if step in ("if", "if-elif"):
            search(source, i + 1, hops + (None,), grains + (here,))
            return
        options = list((FOR_HOPS if step == "for" else WHILE_HOPS).get(here, []))
        if mode == "iter" and here in tform.on:
            item = _item_of(tform, here)
            if item and (step == "for" or tform.gives_on(here) not in ("pairs", "items", "keys", "iter")):
                options.append((item, "target_parts"))
        if step == "while" and mode == "struct" and here in _STRUCT[target]:
            options.append((element_grain(here) if target != "op.ifloordiv" else "num", "struct"))
        for item, how in options:
            search(source, i + 1, hops + ((item, how),), grains + (item,))

    for source in _SOURCES:
        search(source, 0, (), (source,))
    return tuple(out)


def _places(mode: str, tform: Form | None, chain: tuple, hops: tuple, grains: tuple) -> list:
    """Where a walk lets the target go: ``[(cond_at, indexed, pre), ...]``; ``cond_at`` is the chain step whose
    test is the target's (-1: an extra test innermost; -2: not a test), ``indexed`` puts the use on the first
    item of the focus (``word[0].isupper()``), ``pre`` on the input before the loops (``text = text.lower()``)."""
    last, first = grains[-1], grains[0]
    on = tform.on if tform else ()
    if mode in ("value", "pair"):
        if last in on or (mode == "value" and tform.y == "elem" and len(grains) > 1 and grains[-2] in on
                          and element_grain(grains[-2]) == last):
            return [(-2, False, False)]
        out = []
        if element_grain(last) in on and last in _INDEXABLE:
            out.append((-2, True, False))
        if mode == "value" and first in on and tform.gives_on(first) == first:
            out.append((-2, False, True))
        return out
    if mode == "cond":
        spots = [i for i, step in enumerate(chain) if step in ("if", "if-elif") and grains[i] in on]
        if spots:
            return [(i, False, False) for i in spots]
        if last in on:
            return [(-1, False, False)]
        spots = [i for i, step in enumerate(chain) if step in ("if", "if-elif")
                 and grains[i] in _INDEXABLE and element_grain(grains[i]) in on]
        return [(i, True, False) for i in spots]
    if mode == "iter":
        return [(-2, False, False)] if any(h and h[1] == "target_parts" for h in hops) else []
    if mode == "struct":
        return [(-2, False, False)] if any(h and h[1] == "struct" for h in hops) else []
    if mode == "setup":
        return [(-2, False, False)] if first in on else []
    return [(-2, False, False)]


def _item_of(form: Form, here: str) -> str | None:
    """The item grain of a loop over ``form`` applied to a value of grain ``here``."""
    gives = form.gives_on(here)
    if gives == "pairs":
        return "num" if form.head == "builtin.zip" else element_grain(here)
    if gives in ("keys", "items"):
        return "word"
    if gives == "blobs":
        return "blob"
    if gives == "nums" and form.head == "builtin.range":
        return "count"
    return element_grain(gives)


def _against(focus: Val, setup: Val, rng) -> str | None:
    """A test of the focus against a value computed before the loop."""
    if focus.grain in _NUMBERS and setup.grain in _NUMBERS:
        return rng.choice((f"{focus.text} == {setup.text}", f"{focus.text} < {setup.text}", f"{focus.text} > {setup.text}"))
    if focus.grain == "word" and setup.grain == "word":
        return rng.choice((f"{focus.text} == {setup.text}", f"len({focus.text}) < len({setup.text})"))
    if focus.grain == "word" and setup.grain in _NUMBERS:
        return f"len({focus.text}) < {setup.text}"
    return None


def _combine_with(focus: Val, setup: Val) -> Val | None:
    if focus.grain in _NUMBERS and setup.grain in _NUMBERS:
        return Val.of(f"{setup.text} - {focus.text}", "num")
    return None


def _v(name: str, grain: str) -> Val:
    return Val(name, grain, frozenset({name}))


def _threshold(focus: Val, spec, rng, g) -> str | None:
    """``len(x) > k`` / ``x > k`` with ``k`` inside the range the inputs take (a literal that may become a
    parameter, ``limit``, when the spec wants one more)."""
    grain = focus.grain

    def k(text: str) -> str:
        return g.liftable("limit", text)

    if grain in ("word", "numstr"):
        return f"len({focus.text}) > {k(str(rng.choice((2, 3, 4))))}"
    if grain in ("text", "line", "digits", "words", "nums", "numstrs", "tnums", "twords", "ids", "tags", "table", "names"):
        return f"len({focus.text}) > {k(str(rng.randint(spec.min_size, max(spec.min_size, spec.max_size - 1))))}"
    if grain in ("num",):
        return rng.choice((f"{focus.text} > {k(str(rng.choice((0, 2, 4, 5))))}", f"{focus.text} < {k(str(rng.choice((0, 3, 6))))}"))
    if grain in ("count", "index"):
        return f"{focus.text} > {k(str(rng.choice((1, 2, 3))))}"
    if grain == "byte":
        return f"{focus.text} > {rng.choice((96, 100, 110))}"
    if grain == "amount":
        return f"{focus.text} > {k(rng.choice(('1.0', '2.5', '0.5')))}"
    return None


#: tests that decide each other when asked of the same value (a digit string is alphanumeric...)
_GROUPS = {**dict.fromkeys(("isdigit", "isdecimal", "isnumeric", "isalpha", "isalnum", "isspace", "isidentifier",
                            "isascii", "isprintable"), "class"),
           **dict.fromkeys(("isupper", "islower", "istitle"), "case"),
           **dict.fromkeys(("startswith", "endswith"), "ends")}


def _group(kind: str) -> str:
    return _GROUPS.get(kind, kind)


@lru_cache(maxsize=None)
def _kind_of_form(form: Form) -> str:
    m = re.match(r"\{x\}(?:\[[^\]]*\])?\.(\w+)\(", form.text)
    if m:
        return m.group(1)
    if form.text.startswith("len({x})"):
        return "len"
    if re.fullmatch(r"\{x\} (==|!=|in|not in) (['\"].*|\{char\})", form.text):
        return "literal"
    return form.head.split(".")[-1]


def _test_mark(test: str, focus: Val) -> tuple[str, str]:
    """(value, group of the kind of test) of a test text of the focus."""
    m = re.search(re.escape(focus.text) + r"(?:\[[^\]]*\])?\.(\w+)\(", test)
    if m:
        return (focus.text, _group(m.group(1)))
    if f"len({focus.text})" in test:
        return (focus.text, "len")
    if re.fullmatch(re.escape(focus.text) + r" (==|!=|in|not in) ['\"].*", test):
        return (focus.text, "literal")  # ch == 'a' and ch in 'aeiou' decide each other
    return (focus.text, test)


def _bare_if(block: list) -> bool:
    """Whether ``block`` is one ``if`` without ``elif``/``else`` (nested in a test, the two collapse into one)."""
    return len(block) == 1 and isinstance(block[0], Stmt) and block[0].head.startswith("if ") and not block[0].tail


def _statements(block: list):
    for st in block:
        yield st
        if isinstance(st, Stmt):
            yield from _statements(st.body)
            for _, body in st.tail:
                yield from _statements(body)


def _head_value(head: str) -> str | None:
    """What a compound statement's head evaluates (``for x in xs:`` -> ``xs``, ``if a:`` -> ``a``); None for ``else:``."""
    for kw in ("for ", "while ", "if ", "elif "):
        if head.startswith(kw):
            value = head.rstrip(":")[len(kw):]
            return value.split(" in ", 1)[-1] if kw == "for " else value
    return None


def _flat(block: list) -> list[str]:
    """The statements of ``block`` and the values its compound statements' heads evaluate (not ``elif`` heads)."""
    return [(_head_value(st.head) or st.head.rstrip(":")) if isinstance(st, Stmt) else st for st in _statements(block)]


def _has_param_slot(form: Form) -> bool:
    return any(SLOTS[slot].param for slot in form.slots)


def _first_loop(chain) -> int:
    return next((i for i, step in enumerate(chain) if step in ("for", "while")), -1)


def _materialize(text: str) -> str:
    """A value an index can walk: sets and iterators become sorted lists or lists."""
    if text.startswith(("reversed(", "map(", "filter(", "zip(", "enumerate(", "iter(")):
        return f"list({text})"
    return text


def _first_item(focus: Val, rng) -> Val:
    """``focus[0]`` (or ``focus[-1]``): the first item of a string or list."""
    return Val.of(f"{focus.atom}[{rng.choice((0, 0, -1))}]", element_grain(focus.grain))


#: methods and builtins whose result is a bool
_BOOL_CALLS = re.compile(r"(is\w*|startswith|endswith|isdisjoint|issubset|issuperset|any|all|bool|callable)$")


def _is_bool(node) -> bool:
    """Whether an expression's value is always a bool, read from its form."""
    if isinstance(node, ast.Compare) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return True
    if isinstance(node, ast.BoolOp):
        return all(_is_bool(v) for v in node.values)
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return bool(_BOOL_CALLS.match(name))
    return False


def _as_bool(test: str) -> str | None:
    """What a ``-> bool`` helper returns for ``test``: the test itself when it is a bool, ``bool(test)``
    for arithmetic (``x & 1``, ``x % 3``), None when its value may be of another type (``a and b`` where
    ``a`` is a string: the test stays inline)."""
    node = ast.parse(test, mode="eval").body
    if _is_bool(node):
        return test
    if isinstance(node, ast.BinOp):
        return f"bool({test})"
    return None


class _Helper:
    """A level-6 helper: a test or a transformation the loop calls."""

    def __init__(self, builder: LoopBuilder):
        self.b = builder
        self.defined = False
        self.name = self.params = self.returns = ""
        self.body: list = []

    def predicate(self, test: str, subject: Val) -> str:
        """A ``-> bool`` helper for ``test`` when its value is a bool (``x & 1`` is returned as
        ``bool(x & 1)``); a test whose value may be something else (``word and word[0] != 'a'`` gives
        ``''`` for an empty word) stays inline rather than under an annotation that would lie."""
        body = _as_bool(test)
        if body is None:
            return test
        extracted = self._extract(body, subject, "bool", ("is_", "has_", "keeps_"))
        return test if extracted == body else extracted

    def transform(self, value: Val, subject: Val) -> Val:
        return Val.of(self._extract(value.text, subject, annotation(value.grain), ("score_", "clean_", "key_of_")), value.grain)

    def _extract(self, text: str, subject: Val, returns: str, prefixes) -> str:
        b = self.b
        if self.defined:
            return text
        others = sorted(n for n in _free_names(text) if n != subject.text)
        entry_params = {p.name: p.grain for p in b.g.params}
        if any(n in b.g.markers for n in others):
            return text  # a literal that may become a parameter: stays inline
        if any(n not in entry_params for n in others):
            return text  # it reads loop state: stays inline
        local = Names(b.rng)  # the helper's own scope: its parameter may share a name with the caller's locals
        local.used.update(others)
        pname = local.fresh({"word": "word", "char": "ch", "num": "value", "count": "value", "byte": "value",
                             "index": "position", "line": "line", "text": "text"}.get(subject.grain, "item"))
        body_text = _rename(text, subject.text, pname)
        stem = {"char": "char", "byte": "byte", "num": "value", "count": "value", "index": "position"}.get(subject.grain, subject.grain)
        self.name = b.names.fresh(_helper_name(text, b.rng.choice(prefixes), stem))
        args = [f"{pname}: {annotation(subject.grain)}"] + [f"{n}: {param_type(entry_params[n])}" for n in others]
        self.params, self.returns = ", ".join(args), returns
        self.body = [f"return {body_text}"]
        self.defined = True
        return f"{self.name}({', '.join([subject.text, *others])})"

    def function(self):
        return (self.name, self.params, self.returns, self.body)


def _helper_name(text: str, prefix: str, stem: str) -> str:
    """A helper's name from what it does: ``is_digit`` for ``x.isdigit()``, ``key_of_lower`` for ``x.lower()``."""
    m = re.search(r"\.(\w+)\(", text) or re.match(r"(\w+)\(", text)
    if m:
        name = m.group(1)
        if prefix == "is_" and name.startswith("is"):
            return "is_" + name[2:]
        if name.startswith(("starts", "ends")):
            return name.replace("with", "_with")
        return f"{prefix}{name}".rstrip("_")
    return prefix + stem


@lru_cache(maxsize=4096)
def _free_names(text: str) -> frozenset[str]:
    """The names an expression reads that are neither bound by its comprehensions nor builtins."""
    tree = ast.parse(text, mode="eval")
    nodes = walk(tree)
    bound = {t.id for n in nodes if isinstance(n, ast.comprehension) for t in walk(n.target) if isinstance(t, ast.Name)}
    return frozenset({n.id for n in nodes if isinstance(n, ast.Name)} - bound - BUILTIN_NAMES)


@lru_cache(maxsize=4096)
def _rename(text: str, old: str, new: str) -> str:
    """The expression ``text`` with the name ``old`` written ``new`` (attributes and strings untouched)."""
    tree = ast.parse(text, mode="eval")
    for node in walk(tree):
        if isinstance(node, ast.Name) and node.id == old:
            node.id = new
    return ast.unparse(tree)


def _reads(block) -> set[str]:
    """Names read anywhere in a block (statement heads and bodies)."""
    out: set[str] = set()
    for text in texts(block):
        t = _head_value(text) if text.endswith(":") else text
        if t is None:
            continue
        try:
            tree = ast.parse(t)
        except SyntaxError:
            continue
        out.update(n.id for n in walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    return out
