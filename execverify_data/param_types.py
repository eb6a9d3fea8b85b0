"""The parameter types of a function written by someone else (``execverify from-code``): from its
annotations, its seed inputs, and what its body does with each parameter.

:func:`candidates` gives, for each parameter, the types to try, in order, each with how it was
found (:data:`ORIGINS`): a drawable annotation (``annotation``), the seed inputs' values (``seed``),
or the body's use of the parameter (``use``): arithmetic and ``range`` say a number, string methods
and string literals say a text, ``len``, indexing, iteration and ``sorted`` say a sequence, whose
items are read the same way from what the loop variable meets; a bare or ``Any`` annotation
(``l: list``, ``List[Any]``, ``dict``) names the container and leaves its items to the body. Where a
parameter keeps several candidates, :mod:`execverify_data.fromcode` runs the function on a few
draws of each combination, in the untrusted sandbox, and keeps the first under which the most calls
return (``probe``).

>>> [[t for t, _ in c] for c in candidates("def f(n):\\n    return [i * 2 for i in range(n)]\\n", "f", [])]
[['int']]
>>> [[t for t, _ in c] for c in candidates("def f(l: list):\\n    return sorted(x for x in l if x > 0)\\n", "f", [])]
[['list[int]', 'list[float]']]
>>> [[t for t, _ in c] for c in candidates("def f(text):\\n    return sum(1 for ch in text if ch in 'aeiou')\\n", "f", [])]
[['str', 'list[str]']]
>>> candidates("def f(x):\\n    return x\\n", "f", [])
[[]]
"""

from __future__ import annotations

import ast
import itertools

__all__ = ["DOMAIN_VARIANTS", "ORIGINS", "annotation", "candidates", "combinations", "variants"]

#: How a parameter's type was settled, as recorded in a from-code record's ``type_origins``.
ORIGINS = ("annotation", "seed", "use", "probe")
#: Most combinations of candidate types a probe tries.
MAX_COMBINATIONS = 16

_GENERIC = {"List": "list", "list": "list", "Set": "set", "set": "set", "FrozenSet": "frozenset", "frozenset": "frozenset",
            "Dict": "dict", "dict": "dict", "Tuple": "tuple", "tuple": "tuple", "Sequence": "list", "Iterable": "list"}
_SCALARS = {"int", "str", "float", "bool", "bytes"}
#: Bare containers (or ``Any`` items): the candidates for their items come from the body.
_BARE = {"list": "list", "List": "list", "Sequence": "list", "Iterable": "list", "set": "set", "Set": "set",
         "tuple": "tuple", "Tuple": "tuple", "dict": "dict", "Dict": "dict"}
_INT_OPS = (ast.Mod, ast.FloorDiv, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)
_NUMBER_FUNCTIONS = {"abs", "round", "divmod", "pow", "sqrt", "floor", "ceil", "factorial", "gcd", "isqrt", "log",
                     "exp", "sin", "cos", "isclose", "isfinite"}
_INT_FUNCTIONS = {"range", "chr", "bin", "hex", "oct", "factorial", "isqrt", "gcd"}
_SEQUENCE_FUNCTIONS = {"len", "sorted", "reversed", "enumerate", "zip", "set", "list", "tuple", "any", "all", "map",
                       "filter", "max", "min", "sum", "frozenset", "Counter", "iter", "dict"}
_NUMBER_ITEMS = {"sum"}
_ISINSTANCE = {"int": "int", "float": "float", "str": "str", "list": "list", "dict": "dict", "bool": "int"}


def annotation(node: ast.expr | None) -> str | None:
    """The type-language text of an annotation the sampler can draw, or None."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # "List[int]" written as a string
        try:
            return annotation(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return None
    if isinstance(node, ast.Attribute):  # typing.List
        node = ast.Name(node.attr)
    if isinstance(node, ast.Name):
        return node.id if node.id in _SCALARS else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        a, b = annotation(node.left), annotation(node.right)
        return f"{a} | {b}" if a and b else None
    if isinstance(node, ast.Subscript):
        base = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", None)
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base == "Optional" and len(args) == 1:
            inner = annotation(args[0])
            return f"{inner} | None" if inner else None
        if base == "Union":
            parts = [annotation(a) for a in args]
            return " | ".join(parts) if all(parts) else None
        name = _GENERIC.get(base or "")
        if name is None:
            return None
        if name == "tuple" and len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis:
            inner = annotation(args[0])
            return f"tuple[{inner}, ...]" if inner else None
        parts = [annotation(a) for a in args]
        if not all(parts) or (name in ("list", "set", "frozenset") and len(parts) != 1) or (name == "dict" and len(parts) != 2):
            return None
        return f"{name}[{', '.join(parts)}]"
    return None


def _bare(node: ast.expr | None) -> str | None:
    """``list``, ``set``, ``tuple`` or ``dict`` for an annotation that names a container but not a drawable
    item type (``list``, ``List[Any]``, ``Dict``, ``Iterable[object]``)."""
    if isinstance(node, ast.Attribute):
        node = ast.Name(node.attr)
    if isinstance(node, ast.Name):
        return _BARE.get(node.id)
    if isinstance(node, ast.Subscript):
        base = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", None)
        return _BARE.get(base or "")
    return None


class _Evidence:
    """What the body does with one name: ``kinds`` (``int``, ``number``, ``float``, ``str``, ``sequence``,
    ``list``, ``dict``, ``char``) and, for a sequence, what its items meet (an :class:`_Evidence` too)."""

    def __init__(self) -> None:
        self.kinds: set[str] = set()
        self.items: _Evidence | None = None

    def item(self) -> _Evidence:
        if self.items is None:
            self.items = _Evidence()
        return self.items


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _constant_kind(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and not isinstance(node.value, bool):
        if isinstance(node.value, int):
            return "int"
        if isinstance(node.value, float):
            return "float"
        if isinstance(node.value, str):
            return "str"
    return None


def _targets(node: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)] if isinstance(node, (ast.Name, ast.Tuple)) else []


def _collect(fn: ast.AST, name: str, evidence: _Evidence, depth: int = 0) -> None:
    """Add to ``evidence`` what ``fn`` does with ``name`` (loop variables over it, to ``depth`` 2, as its items)."""
    parents = _parents(fn)
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(id(node))
        kinds = evidence.kinds
        if isinstance(parent, ast.BinOp):
            other = parent.right if parent.left is node else parent.left
            constant = _constant_kind(other)
            if isinstance(parent.op, _INT_OPS) and not (isinstance(parent.op, ast.Mod) and parent.right is node):
                kinds.add("int")
            elif isinstance(parent.op, ast.Mult) and constant == "str":
                kinds.add("int")
            elif isinstance(parent.op, ast.Add) and constant == "str":
                kinds.add("str")
            elif constant in ("int", "float") or isinstance(parent.op, (ast.Sub, ast.Div, ast.Pow, ast.Mult)):
                kinds.add("float" if constant == "float" else "number")
            elif isinstance(parent.op, ast.Add):
                kinds.add("addable")
        elif isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub):
            kinds.add("number")
        elif isinstance(parent, ast.AugAssign) and parent.value is node:
            pass
        elif isinstance(parent, ast.Compare):
            others = [parent.left, *parent.comparators]
            position = next(k for k, o in enumerate(others) if o is node)
            pairs = []  # (op, the other operand, whether the name is on the op's right)
            if position > 0:
                pairs.append((parent.ops[position - 1], others[position - 1], True))
            if position < len(parent.ops):
                pairs.append((parent.ops[position], others[position + 1], False))
            for op, other, right in pairs:
                constant = _constant_kind(other)
                if isinstance(op, (ast.In, ast.NotIn)) and right:  # other in name: name holds such items
                    kinds.add("sequence")
                    if constant == "str":
                        if len(other.value) == 1:
                            evidence.item().kinds.add("char")
                        else:
                            kinds.add("text")
                    elif constant:
                        evidence.item().kinds.add(constant)
                elif isinstance(op, (ast.In, ast.NotIn)):  # name in other
                    if constant == "str":
                        kinds.add("str")
                    elif isinstance(other, (ast.Tuple, ast.List, ast.Set)):
                        found = {_constant_kind(v) for v in other.elts} - {None}
                        if len(found) == 1:
                            kinds.add(found.pop())
                elif constant in ("int", "float"):
                    kinds.add("number" if constant == "int" else "float")
                elif constant == "str":
                    kinds.add("str")
                elif isinstance(op, (ast.Lt, ast.Gt, ast.LtE, ast.GtE)):
                    kinds.add("ordered")
                elif isinstance(op, (ast.Eq, ast.NotEq)):
                    kinds.add("comparable")
        elif isinstance(parent, ast.Call) and node in parent.args:
            func = parent.func
            fname = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if fname == "isinstance" and len(parent.args) == 2 and parent.args[0] is node:
                named = [n.id for n in ([parent.args[1]] if isinstance(parent.args[1], ast.Name) else
                                        getattr(parent.args[1], "elts", [])) if isinstance(n, ast.Name)]
                kinds.update(_ISINSTANCE[n] for n in named if n in _ISINSTANCE)
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "re" \
                    and parent.args[0] is not node:
                kinds.add("str")  # re.split(pattern, text), re.findall(pattern, text)...
            elif fname == "str":
                kinds.add("number")
            elif fname in _INT_FUNCTIONS:
                kinds.add("int")
            elif fname == "ord":
                kinds.add("str")
            elif fname in _NUMBER_FUNCTIONS:
                kinds.add("number")
            elif fname in ("max", "min", "sum") and len(parent.args) > 1:
                kinds.add("ordered")
            elif fname in _SEQUENCE_FUNCTIONS:
                kinds.add("sequence")
                if fname in _NUMBER_ITEMS:
                    evidence.item().kinds.add("number")
            elif fname == "join" and isinstance(func, ast.Attribute):
                kinds.add("sequence")
                evidence.item().kinds.add("str")
        elif isinstance(parent, ast.Subscript):
            if parent.value is node:
                kinds.add("indexed")
                if _constant_kind(parent.slice) == "str":
                    kinds.add("dict")
            elif parent.slice is node:
                kinds.add("int")
        elif isinstance(parent, ast.Attribute) and parent.value is node:
            method = parent.attr
            if method in ("append", "extend", "insert", "pop", "sort", "reverse", "remove", "copy", "clear"):
                kinds.add("list")
            elif method in ("items", "keys", "values", "get", "setdefault", "update"):
                kinds.add("dict")
            elif method in ("is_integer",):
                kinds.add("float")
            elif method in ("bit_length", "to_bytes"):
                kinds.add("int")
            elif hasattr(str, method) and hasattr(list, method):  # index, count: a text or a list
                kinds.add("indexed")
            elif hasattr(str, method):
                kinds.add("str")
        elif isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
            kinds.add("sequence")
            if depth < 2:
                scope = parent if isinstance(parent, ast.For) else parents.get(id(parent), fn)
                for target in _targets(parent.target)[:1]:
                    _collect(scope, target, evidence.item(), depth + 1)


def _from_use(evidence: _Evidence) -> list[str]:
    """Candidate types, most likely first, for a name the body uses as ``evidence`` says."""
    kinds = evidence.kinds
    items = evidence.items.kinds if evidence.items is not None else set()
    if "dict" in kinds:
        return ["dict[str, int]", "dict[str, str]", "dict[int, int]"]
    if "list" in kinds:
        return _sequences(items, text=False)
    if "str" in kinds or "text" in kinds:
        return ["str"] if not kinds & {"int", "number", "float"} else ["str", "int"]
    if kinds & {"sequence", "indexed"}:
        return _sequences(items, text=True)
    if "float" in kinds:
        return ["float", "int"]
    if "int" in kinds:
        return ["int"]
    if "number" in kinds:
        return ["int", "float"]
    if "ordered" in kinds:
        return ["int", "float", "str"]
    if "addable" in kinds:
        return ["int", "str", "float", "list[int]"]
    if "comparable" in kinds:
        return ["int", "str"]
    return []


def _sequences(items: set[str], *, text: bool) -> list[str]:
    if items & {"char"} or (items & {"str"} and text):
        return ["str", "list[str]"] if text else ["list[str]"]
    if items & {"str"}:
        return ["list[str]"]
    if items & {"float"}:
        return ["list[float]", "list[int]"]
    if items & {"int", "number", "sequence", "indexed"} - {"sequence", "indexed"}:
        return ["list[int]", "list[float]"]
    if items & {"sequence", "indexed"}:
        return ["list[list[int]]", "list[str]"]
    return ["list[int]", "str", "list[str]"] if text else ["list[int]", "list[str]"]


def _container(bare: str, used: list[str]) -> list[str]:
    """Candidates for a bare container annotation, items read from the body's use."""
    if bare == "dict":
        return ["dict[str, int]", "dict[str, str]", "dict[int, int]"]
    lists = [t for t in used if t.startswith("list[")] or ["list[int]", "list[float]", "list[str]"]
    if bare == "list":
        return lists
    if bare == "tuple":
        return [f"tuple[{t[5:-1]}, ...]" for t in lists]
    return [f"set[{t[5:-1]}]" for t in lists if t in ("list[int]", "list[str]")] or ["set[int]"]


def candidates(code: str | ast.Module, entry: str, seed_args: list[tuple]) -> list[list[tuple[str, str]]]:
    """For each parameter of ``entry``, the ``(type, origin)`` candidates in order (empty: nothing tells)."""
    from execverify_data.catalog.typelang import conforms
    from execverify_data.inputs import common_type, drawable

    tree = ast.parse(code) if isinstance(code, str) else code
    fn = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == entry)
    out = []
    for i, a in enumerate(fn.args.args):
        values = [args[i] for args in seed_args if i < len(args)]
        seeded = common_type(values, widen=True)
        declared = annotation(a.annotation)
        if drawable(declared) and all(conforms(v, declared) for v in values):
            out.append([(declared, "annotation")])
            continue
        if drawable(seeded):
            out.append([(seeded, "seed")])
            continue
        evidence = _Evidence()
        _collect(fn, a.arg, evidence)
        used = [t for t in _from_use(evidence) if drawable(t)]
        method = _method_owner(tree, fn, a.arg)
        if method is not None and not (evidence.kinds & {"list", "dict"}):
            used = [method] + [t for t in used if t != method]
        bare = _bare(a.annotation)
        if bare is not None:
            used = _container(bare, used)
        if len(used) == 1 and method is not None and used[0] == method:
            out.append([(method, "use")])
        else:
            out.append([(t, "use") for t in used])
    return out


def _method_owner(tree: ast.Module, fn: ast.AST, name: str) -> str | None:
    """``str`` or ``bytes`` when every method the body calls on ``name`` is one of that type's in the catalog."""
    from execverify_data.catalog.usage import analyze

    owners: set[str] | None = None
    inside = {id(n) for n in ast.walk(fn)}
    for use in analyze(tree).calls:
        func = use.node.func
        if id(use.node) in inside and use.how == "method" and isinstance(func, ast.Attribute) \
                and isinstance(func.value, ast.Name) and func.value.id == name:
            these = {i.split(".")[0] for i in use.ids}
            owners = these if owners is None else owners & these
    if owners and owners <= {"str", "bytes"}:
        return "str" if "str" in owners else "bytes"
    return None


#: The input domains (:data:`execverify_data.inputs.DOMAINS`) a probe tries for a parameter of a type, after
#: plain draws: a text parameter may need sentences, digits or a number written out; a count, large numbers.
DOMAIN_VARIANTS = {"str": ("text", "tokens", "digits", "numstr", "word", "line", "char"), "int": ("number", "count"),
                   "float": ("amount",), "list[str]": ("words", "numstrs"), "list[float]": ("amounts",)}


def variants(types: list[str], *, domains: bool) -> list[tuple[str, str]]:
    """A parameter's ``(type, domain)`` options in the order a probe tries them: each type drawn plainly,
    then (with ``domains``) each type in each of its :data:`DOMAIN_VARIANTS`."""
    out = [(t, "") for t in types]
    if domains:
        out += [(t, d) for t in types for d in DOMAIN_VARIANTS.get(t, ())]
    return out


def combinations(options: list[list], limit: int = MAX_COMBINATIONS) -> list[tuple]:
    """The first ``limit`` combinations of the parameters' options (one from each list), those with the
    earlier options first (by the sum of their ranks)."""
    ranked = sorted(itertools.product(*[range(len(o)) for o in options]), key=lambda ranks: (sum(ranks), ranks))
    return [tuple(options[p][r] for p, r in enumerate(ranks)) for ranks in ranked[:limit]]
