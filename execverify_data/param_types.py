"""The parameter types of a function written by someone else (``execverify from-code``): from its
annotations, its seed inputs, and what its body does with each parameter.

:func:`candidates` gives, for each parameter, the types to try, in order, each with how it was
found (:data:`ORIGINS`; ``given``: the user's, from-code's input file or sidecar): a drawable annotation (``annotation``), the seed inputs' values (``seed``),
the default value's type (``default``), or the body's use of the parameter (``use``): arithmetic and ``range`` say a number, string methods
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
import re

__all__ = ["DOMAIN_VARIANTS", "ORIGINS", "annotation", "candidates", "combinations", "field_types", "hints", "preferred_domains",
           "text_copies", "variants"]

#: How a parameter's type was settled, as recorded in a from-code record's ``type_origins``.
ORIGINS = ("given", "annotation", "seed", "default", "use", "probe")
#: Most combinations of candidate types a probe tries.
MAX_COMBINATIONS = 16

_GENERIC = {"List": "list", "list": "list", "Set": "set", "set": "set", "FrozenSet": "frozenset", "frozenset": "frozenset",
            "Dict": "dict", "dict": "dict", "Tuple": "tuple", "tuple": "tuple", "Sequence": "list", "Iterable": "list"}
_SCALARS = {"int", "str", "float", "bool", "bytes", "date", "datetime", "time", "timedelta", "Decimal"}
#: What reading an attribute or calling a method of a value says it is (``due.weekday()``, ``price.quantize(CENT)``).
_STDLIB_ATTRIBUTES = {**dict.fromkeys(("year", "month", "day", "weekday", "isoweekday", "toordinal", "isocalendar",
                                       "strftime", "isoformat", "timetuple"), "date"),
                      **dict.fromkeys(("hour", "minute", "second", "microsecond"), "clock"),
                      "date": "datetime", "time": "datetime", "days": "timedelta", "total_seconds": "timedelta",
                      **dict.fromkeys(("quantize", "as_tuple", "is_finite", "is_signed", "adjusted"), "Decimal")}
#: What a parameter used so is drawn as, most likely first.
_STDLIB_KINDS = {"date": ["date", "datetime"], "clock": ["time", "datetime"], "datetime": ["datetime"],
                 "timedelta": ["timedelta"], "Decimal": ["Decimal"]}
#: Bare containers (or ``Any`` items): the candidates for their items come from the body.
_BARE = {"list": "list", "List": "list", "Sequence": "list", "Iterable": "list", "set": "set", "Set": "set",
         "tuple": "tuple", "Tuple": "tuple", "dict": "dict", "Dict": "dict"}
_INT_OPS = (ast.Mod, ast.FloorDiv, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)
_NUMBER_FUNCTIONS = {"abs", "round", "divmod", "pow", "sqrt", "floor", "ceil", "factorial", "gcd", "isqrt", "log",
                     "exp", "sin", "cos", "isclose", "isfinite"}
_INT_FUNCTIONS = {"range", "chr", "bin", "hex", "oct", "factorial", "isqrt", "gcd"}
_SEQUENCE_FUNCTIONS = {"len", "sorted", "reversed", "enumerate", "zip", "set", "list", "tuple", "any", "all", "map",
                       "filter", "max", "min", "sum", "frozenset", "Counter", "iter", "groupby", "accumulate", "chain",
                       "combinations", "permutations", "pairwise", "islice", "deque", "heapify", "fsum", "mean", "median"}
#: String methods that return a string (a chain of them ends in the method that tells: ``.split()``).
_STR_TO_STR = {"replace", "strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "capitalize"}
#: Methods of a compiled pattern whose first argument is the text.
_PATTERN_METHODS = {"match", "search", "fullmatch", "findall", "finditer", "split", "sub", "subn"}
_NUMBER_ITEMS = {"sum"}
_ORDER_KEEPING = {"sorted", "reversed", "list", "tuple", "set"}
_ISINSTANCE = {"int": "int", "float": "float", "str": "str", "list": "list", "dict": "dict", "bool": "int",
               "date": "date", "datetime": "datetime", "Decimal": "Decimal"}


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
        self.elements: list[str] | None = None  # the types of an unpacked tuple's names, when they are scalars
        self.values: _Evidence | None = None  # for a dict, what its values meet

    def item(self) -> _Evidence:
        if self.items is None:
            self.items = _Evidence()
        return self.items

    def value(self) -> _Evidence:
        if self.values is None:
            self.values = _Evidence()
        return self.values


def _callee(func: ast.AST) -> str | None:
    """The name a call calls: ``timedelta`` of ``timedelta(...)`` and of ``datetime.timedelta(...)``."""
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


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


def _string_table(node: ast.AST) -> bool:
    if isinstance(node, ast.Dict):
        keys = node.keys
    elif isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        keys = node.elts
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset") \
            and node.args and isinstance(node.args[0], (ast.Set, ast.List, ast.Tuple)):
        keys = node.args[0].elts
    else:
        return False
    return bool(keys) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys)


class _Module:
    """What of the module a function's parameters may meet: its functions (a parameter passed to one is
    read there too) and its compiled patterns (``EMAIL_RE.match(address)``: a text)."""

    def __init__(self, tree: ast.AST | None):
        body = tree.body if isinstance(tree, ast.Module) else []
        self.functions = {n.name: n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.patterns = {t.id for n in body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                         and isinstance(n.value.func, ast.Attribute) and n.value.func.attr == "compile"
                         for t in n.targets if isinstance(t, ast.Name)}
        # lookup tables: module names bound to a dict display with string keys, or a set, list or tuple of strings
        self.tables = {t.id for n in body if isinstance(n, ast.Assign) and _string_table(n.value)
                       for t in n.targets if isinstance(t, ast.Name)}


def _looked_up(node: ast.AST, parents: dict, module: _Module) -> bool:
    """Whether ``node``, made a text (``str(code)``, ``.upper()``, ``.strip()``: at least one such step), is looked
    up in one of the module's tables: ``TABLE.get(...)``, ``... in TABLE``, ``TABLE[...]``."""
    steps, parent = 0, parents.get(id(node))
    while True:
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "str" \
                and parent.args[:1] == [node]:
            node, parent = parent, parents.get(id(parent))
        elif isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in _STR_TO_STR \
                and isinstance(parents.get(id(parent)), ast.Call):
            node = parents.get(id(parent))
            parent = parents.get(id(node))
        else:
            break
        steps += 1
    if not steps:
        return False
    tables = module.tables
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr == "get" \
            and isinstance(parent.func.value, ast.Name) and parent.func.value.id in tables and parent.args[:1] == [node]:
        return True
    if isinstance(parent, ast.Subscript) and parent.slice is node and isinstance(parent.value, ast.Name):
        return parent.value.id in tables
    return isinstance(parent, ast.Compare) and parent.left is node and isinstance(parent.ops[0], (ast.In, ast.NotIn)) \
        and isinstance(parent.comparators[0], ast.Name) and parent.comparators[0].id in tables


def _textual(fn: ast.AST, name: str) -> bool:
    """Whether ``fn`` binds ``name`` to a text it made: ``key = product.strip().lower()``, an f-string, a join."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id == name:
            value = node.value
            if isinstance(value, ast.JoinedStr) or isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr in _STR_TO_STR | {"join", "format"}:
                return True
    return False


def _collect(fn: ast.AST, name: str, evidence: _Evidence, depth: int = 0, module: _Module | None = None,
             field: str | None = None) -> None:
    """Add to ``evidence`` what ``fn`` does with ``name``: loop variables over it (as its items), names it is
    copied or sorted into, the parameter of a module function it is passed to (each to ``depth`` 2). With
    ``field``, what it does with the value at that string key of any dict (``task["title"]``, ``t.get("tags", [])``)."""
    module = module or _Module(None)
    parents = _parents(fn)
    for node in ast.walk(fn):
        if field is not None:
            if _field_of(node) != field:
                continue
        elif not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(id(node))
        kinds = evidence.kinds
        while isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.Or) and parent.values[0] is node \
                and _constant_kind(parent.values[-1]) == "str":  # CLOCK_RE.match(text or ""): read as the text
            kinds.add("str")
            node, parent = parent, parents.get(id(parent))
        if _looked_up(node, parents, module):  # CATEGORY.get(str(code).upper()): one of the table's keys, as a text
            kinds.update(("str", "lookup"))
        if isinstance(parent, ast.Call) and node in parent.args:
            func = parent.func
            if isinstance(func, ast.Name) and func.id in module.functions and func.id != getattr(fn, "name", None):
                callee = module.functions[func.id]
                position = parent.args.index(node)
                if depth < 2 and position < len(callee.args.args) and not any(isinstance(a, ast.Starred) for a in parent.args):
                    _collect(callee, callee.args.args[position].arg, evidence, depth + 1, module)
                    kinds.add("passed")
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in module.patterns \
                    and func.attr in _PATTERN_METHODS and parent.args[-1 if func.attr in ("sub", "subn") else 0] is node:
                kinds.update(("str", "pattern"))
            elif isinstance(func, ast.Attribute) and func.attr in ("strptime", "fromisoformat") and parent.args[0] is node:
                kinds.update(("str", "datefmt"))  # datetime.strptime(text, "%d/%m/%Y"), date.fromisoformat(text)
            elif isinstance(func, ast.Attribute) and func.attr == "get" and isinstance(func.value, ast.Name) \
                    and func.value.id in module.tables and parent.args[0] is node:
                kinds.update(("str", "lookup"))  # MAX_ITEMS.get(member_type): one of the table's keys, or not
            elif isinstance(func, ast.Attribute):
                kinds.add("passed")  # an argument of a method: something, at least
        if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], ast.Tuple):  # x, y = point: a pair
            kinds.add(f"unpacked{len(parent.targets[0].elts)}")
        if isinstance(parent, ast.Subscript) and parent.value is node and not isinstance(parent.slice, ast.Slice):
            holder = parents.get(id(parent))
            if isinstance(holder, ast.Assign) and holder.value is parent and len(holder.targets) == 1 \
                    and isinstance(holder.targets[0], ast.Tuple):  # x1, y1 = points[i]: its items are pairs
                evidence.item().kinds.add(f"tuple{len(holder.targets[0].elts)}")
        alias = parent
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _ORDER_KEEPING \
                and parent.args and parent.args[0] is node or isinstance(parent, ast.Subscript) and parent.value is node \
                and isinstance(parent.slice, ast.Slice):
            alias = parents.get(id(parent))  # ordered = sorted(intervals), rest = items[1:]: the same items
        if isinstance(alias, ast.Assign) and len(alias.targets) == 1 and isinstance(alias.targets[0], ast.Name) \
                and depth < 2 and alias.targets[0].id != name:
            _collect(fn, alias.targets[0].id, evidence, depth + 1, module)
        if isinstance(parent, ast.BinOp):
            other = parent.right if parent.left is node else parent.left
            constant = _constant_kind(other)
            outer = parents.get(id(parent))
            if isinstance(other, ast.Call) and _callee(other.func) == "timedelta" and isinstance(parent.op, (ast.Add, ast.Sub)):
                kinds.add("date")  # due + timedelta(days=14)
            elif isinstance(parent.op, ast.Sub) and isinstance(outer, ast.Attribute) and outer.attr in ("days", "total_seconds"):
                kinds.add("date")  # (end - start).days
            elif isinstance(parent.op, _INT_OPS) and not (isinstance(parent.op, ast.Mod) and parent.right is node):
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
        elif isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is node \
                or isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            kinds.add("truth")  # if has_hold: / not express: a yes-or-no value, where nothing else tells
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
                    elif isinstance(other, ast.Name) and other.id in module.tables:
                        kinds.update(("str", "lookup"))  # key in TRUE_STRINGS
                    elif isinstance(other, (ast.Tuple, ast.List, ast.Set)):
                        found = {_constant_kind(v) for v in other.elts} - {None}
                        if len(found) == 1:
                            kinds.add(found.pop())
                elif constant in ("int", "float"):
                    kinds.add("number" if constant == "int" else "float")
                elif constant == "str":
                    kinds.add("str")
                elif isinstance(op, (ast.Is, ast.IsNot)) and isinstance(other, ast.Constant) and other.value is None:
                    kinds.add("optional")
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
                if _constant_kind(parent.args[0]) == "str" and func.attr in _PATTERN_METHODS:
                    kinds.add("pattern")
            elif fname == "str":
                kinds.update(("number", "stringified"))  # str(value): a number, or a text already
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
            elif fname == "dict":
                kinds.add("dict")
            elif fname == "join" and isinstance(func, ast.Attribute):
                kinds.add("sequence")
                evidence.item().kinds.add("str")
        elif isinstance(parent, ast.Starred) and isinstance(parents.get(id(parent)), ast.Call):
            kinds.add("sequence")  # zip(*matrix): rows
            evidence.item().kinds.add("sequence")
        elif isinstance(parent, ast.Subscript):
            if parent.value is node:
                kinds.add("indexed")
                holder = parents.get(id(parent))
                if isinstance(holder, ast.Subscript) and holder.value is parent or (
                        isinstance(holder, ast.Call) and isinstance(holder.func, ast.Name) and holder.func.id == "len"):
                    evidence.item().kinds.add("indexed")  # grid[r][c], len(grid[0]): rows
                    if isinstance(holder, ast.Subscript) and _compared_with_text(holder, parents):
                        evidence.item().kinds.add("textcells")  # board[r][c] == "": rows of texts
                if _constant_kind(parent.slice) == "str":
                    kinds.update(("dict", "record"))
                elif isinstance(parent.slice, ast.Name) and _textual(fn, parent.slice.id):
                    kinds.add("dict")  # price_list[key] after key = product.strip().lower(): a table of texts
                elif _constant_kind(parent.slice) == "int" and 0 <= parent.slice.value < 4:
                    kinds.add(f"at{parent.slice.value}")
            elif parent.slice is node:
                if isinstance(parent.value, ast.Name) and parent.value.id in module.tables:
                    kinds.update(("str", "lookup"))  # DIRECTIONS[direction]: one of the table's keys
                else:
                    kinds.add("int")
        elif isinstance(parent, ast.Attribute) and parent.value is node:
            method = parent.attr
            if method in ("append", "extend", "insert", "pop", "sort", "reverse", "remove", "copy", "clear"):
                kinds.add("list")
            elif method in ("items", "keys", "values", "get", "setdefault", "update"):
                kinds.add("dict")
                if _field_of(parents.get(id(parent))) is not None:
                    kinds.add("record")  # t.get("done"): a record
                elif depth < 2:
                    _dict_values(fn, parents, parent, method, evidence, depth, module)
            elif method in _STDLIB_ATTRIBUTES and not kinds & {"str", "list", "dict"}:
                kinds.add(_STDLIB_ATTRIBUTES[method])  # due.weekday(), slot.hour, price.quantize(CENT)
            elif method in ("is_integer",):
                kinds.add("float")
            elif method in ("bit_length", "to_bytes"):
                kinds.add("int")
            elif hasattr(str, method) and hasattr(list, method):  # index, count: a text or a list
                kinds.add("indexed")
            elif hasattr(str, method):
                kinds.add("str")
                attribute, call = parent, parents.get(id(parent))
                while attribute.attr in _STR_TO_STR and isinstance(call, ast.Call):  # name.replace('-', ' ').split()
                    outer = parents.get(id(call))
                    if not isinstance(outer, ast.Attribute):
                        break
                    attribute, call = outer, parents.get(id(outer))
                if attribute.attr in _STR_TO_STR and _matched(parents.get(id(call)), call, module):
                    kinds.add("pattern")  # EMAIL_RE.match(addr.strip()): a text of the pattern's format
                holder = parents.get(id(call))
                if attribute.attr in _STR_TO_STR and depth < 2 and isinstance(holder, ast.Assign) and holder.value is call \
                        and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name) and holder.targets[0].id != name:
                    _collect(fn, holder.targets[0].id, evidence, depth + 1, module)  # cleaned = code.upper().strip()
                loop = parents.get(id(call))
                if attribute.attr == "splitlines" and isinstance(loop, (ast.For, ast.comprehension)) \
                        and loop.iter is call and depth < 2 and isinstance(loop.target, ast.Name):
                    kinds.add("lines")  # for line in text.splitlines(): what each line meets
                    scope = loop if isinstance(loop, ast.For) else parents.get(id(loop), fn)
                    _collect(scope, loop.target.id, evidence.item(), depth + 1, module)
                if attribute.attr == "split" and isinstance(call, ast.Call):
                    separator = call.args[0] if call.args else None
                    if separator is None or (_constant_kind(separator) == "str" and separator.value.isspace()):
                        kinds.add("words")  # text.split(): a sentence
                    elif _constant_kind(separator) == "str":
                        kinds.add("fields")  # addr.split('.'): the program's fields joined by its separator
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in ("sorted", "min", "max") \
                and len(parent.args) == 1 and parent.args[0] is node and depth < 2:
            sort_key = next((k.value for k in parent.keywords if k.arg == "key"), None)
            if isinstance(sort_key, ast.Name):  # sorted(tasks, key=by_due): the items meet by_due's parameter
                sort_key = next((n for n in ast.walk(fn) if isinstance(n, ast.FunctionDef) and n.name == sort_key.id),
                                module.functions.get(sort_key.id))
            if isinstance(sort_key, (ast.Lambda, ast.FunctionDef)) and sort_key.args.args:
                kinds.add("sequence")
                _collect(sort_key, sort_key.args.args[0].arg, evidence.item(), depth + 1, module)
        zipped, loop = parent, parents.get(id(parent))
        if isinstance(loop, ast.Call) and isinstance(loop.func, ast.Name) and loop.func.id == "enumerate" \
                and isinstance(parents.get(id(loop)), (ast.For, ast.comprehension)):
            zipped, loop = loop, parents.get(id(loop))  # for i, (given, correct) in enumerate(zip(answers, key))
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "zip" and depth < 2 \
                and node in parent.args and isinstance(loop, (ast.For, ast.comprehension)):
            # for s, w in zip(scores, weights): s is an item of scores
            elts = loop.target.elts if isinstance(loop.target, ast.Tuple) else []
            if zipped is not parent and len(elts) == 2 and isinstance(elts[1], ast.Tuple):
                elts = elts[1].elts
            if loop.iter is zipped and len(elts) == len(parent.args) and isinstance(elts[parent.args.index(node)], ast.Name):
                kinds.add("sequence")
                scope = loop if isinstance(loop, ast.For) else parents.get(id(loop), fn)
                _collect(scope, elts[parent.args.index(node)].id, evidence.item(), depth + 1, module)
        if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.slice, ast.Slice):
            method = parents.get(id(parent))
            if isinstance(method, ast.Attribute) and hasattr(str, method.attr) and not hasattr(list, method.attr):
                kinds.add("str")  # text[:n].rstrip(): a text
        loop, over = parent, node
        if (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _ORDER_KEEPING
                and parent.args and parent.args[0] is node) or (isinstance(parent, ast.Subscript) and parent.value is node
                                                                 and isinstance(parent.slice, ast.Slice)):
            loop, over = parents.get(id(parent)), parent  # for a, b in sorted(pairs), in pairs[1:]: the name's items
        if isinstance(loop, (ast.For, ast.comprehension)) and loop.iter is over:
            kinds.add("sequence")
            if isinstance(loop.target, ast.Tuple):  # for start, end in intervals: pairs (of what each name meets)
                evidence.item().kinds.add(f"tuple{len(loop.target.elts)}")
                scope = loop if isinstance(loop, ast.For) else parents.get(id(loop), fn)
                element_types = []
                for element in loop.target.elts:
                    found = _Evidence()
                    if isinstance(element, ast.Name) and depth < 2:
                        _collect(scope, element.id, found, depth + 1, module)
                    element_types.append(next(iter(_from_use(found)), "int"))
                if all(t in ("int", "float", "str") for t in element_types):
                    evidence.item().elements = element_types
            if depth < 2:
                scope = loop if isinstance(loop, ast.For) else parents.get(id(loop), fn)
                for target in _targets(loop.target)[:1]:
                    _collect(scope, target, evidence.item(), depth + 1, module)


def _dict_values(fn: ast.AST, parents: dict, attribute: ast.Attribute, method: str, evidence: _Evidence, depth: int,
                 module: _Module) -> None:
    """What the body does with a dict's values, into ``evidence.value()``: the name a ``.get`` is bound to
    (``scores = categories.get(name)``, then ``sum(scores)``), the value of a ``for`` over ``.values()`` or
    ``.items()``."""
    call = parents.get(id(attribute))
    if not (isinstance(call, ast.Call) and call.func is attribute):
        return
    holder = parents.get(id(call))
    name = None
    if method == "get" and isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
        name, scope = holder.targets[0].id, fn
    elif method in ("values", "items") and isinstance(holder, (ast.For, ast.comprehension)) and holder.iter is call:
        target = holder.target
        if method == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            target = target.elts[1]
        scope = holder if isinstance(holder, ast.For) else parents.get(id(holder), fn)
        if isinstance(target, ast.Name):
            name = target.id
        elif isinstance(target, ast.Tuple):  # for name, (qty, unit) in ingredients.items(): pairs
            evidence.value().kinds.add(f"unpacked{len(target.elts)}")
    if name is not None:
        _collect(scope, name, evidence.value(), depth + 1, module)


def text_copies(fn: ast.AST, params) -> dict[str, str]:
    """Local names bound to a text method's result on one parameter (``src = from_unit.lower()``; ``src, dst =
    a.strip(), b.strip()``), each to that parameter: a check of ``src`` asks the same of ``from_unit``."""
    out: dict[str, str] = {}
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        pairs = list(zip(target.elts, value.elts)) if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) \
            and len(target.elts) == len(value.elts) else [(target, value)]
        for name, expr in pairs:
            used = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and n.id in params}
            calls = [n for n in ast.walk(expr) if isinstance(n, ast.Call)]
            if isinstance(name, ast.Name) and name.id not in params and len(used) == 1 and calls \
                    and all(isinstance(c.func, ast.Attribute) and c.func.attr in _TEXT_COPY_METHODS for c in calls):
                out[name.id] = used.pop()
    return out


#: Text methods whose result is the parameter's text in another case, trimmed or with characters replaced (a check
#: of it is one of the text).
_TEXT_COPY_METHODS = {"lower", "upper", "casefold", "strip", "lstrip", "rstrip", "title", "capitalize", "replace"}


def _field_of(node: ast.AST | None) -> str | None:
    """The string key of ``node`` when it reads a dict's value at one: ``x["title"]``, ``x.get("tags", [])``."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _constant_kind(node.slice) == "str":
        return node.slice.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "setdefault", "pop") \
            and node.args and _constant_kind(node.args[0]) == "str":
        return node.args[0].value
    return None


def _compared_with_text(node: ast.AST, parents: dict) -> bool:
    """Whether ``node`` is compared with a string literal (``==``, ``!=``, ``in`` a tuple of them)."""
    parent = parents.get(id(node))
    if not isinstance(parent, ast.Compare):
        return False
    others = [o for o in [parent.left, *parent.comparators] if o is not node]
    return any(_constant_kind(o) == "str" or isinstance(o, (ast.Tuple, ast.List, ast.Set))
               and any(_constant_kind(e) == "str" for e in o.elts) for o in others)


def _matched(node: ast.AST | None, arg: ast.AST, module: _Module) -> bool:
    """Whether ``node`` is a call of a method of one of the module's compiled patterns on ``arg``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
        and node.func.value.id in module.patterns and node.func.attr in _PATTERN_METHODS and bool(node.args) \
        and node.args[-1 if node.func.attr in ("sub", "subn") else 0] is arg


def _from_use(evidence: _Evidence) -> list[str]:
    """Candidate types, most likely first, for a name the body uses as ``evidence`` says."""
    kinds = evidence.kinds
    items = evidence.items.kinds if evidence.items is not None else set()
    elements = evidence.items.elements if evidence.items is not None else None
    unpacked = next((int(k[8:]) for k in kinds if k.startswith("unpacked")), None)
    if unpacked and 2 <= unpacked <= 4:
        return [f"tuple[{', '.join(['int'] * unpacked)}]", f"tuple[{', '.join(['float'] * unpacked)}]"]
    stdlib = [k for k in ("datetime", "timedelta", "Decimal", "date", "clock") if k in kinds]
    if stdlib and not kinds & {"str", "text", "list", "dict", "sequence", "indexed"}:
        return ["datetime"] if {"date", "clock"} <= kinds else _STDLIB_KINDS[stdlib[0]]
    if "dict" in kinds:
        told = [t for t in _from_use(evidence.values) if t not in ("int", "str")][:2] if evidence.values is not None else []
        return [f"dict[str, {t}]" for t in told] + ["dict[str, int]", "dict[str, str]", "dict[int, int]"]
    if "stringified" in kinds and not kinds & {"str", "text", "sequence", "indexed", "list"}:
        return [t for t in _from_use_plain(kinds - {"stringified"}) if t != "str"] + ["str"]  # str(value) of a text too
    if "list" in kinds:
        return _sequences(items, text=False, elements=elements)
    if "str" in kinds or "text" in kinds:
        return ["str"] if not kinds & {"int", "number", "float"} else ["str", "int"]
    if kinds & {"sequence", "indexed"}:
        return _sequences(items, text=True, elements=elements)
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
    if "comparable" in kinds:  # == another value: a name, a title, a code more often than a number
        return ["str", "int"]
    if "passed" in kinds:  # only handed to something that tells nothing: the probe decides
        return ["int", "str", "list[int]"]
    if kinds == {"truth"}:
        return ["bool"]
    return []


def _from_use_plain(kinds: set[str]) -> list[str]:
    evidence = _Evidence()
    evidence.kinds = set(kinds)
    return _from_use(evidence)


def _sequences(items: set[str], *, text: bool, elements: list[str] | None = None) -> list[str]:
    size = next((int(k[5:]) for k in items if k.startswith("tuple")), None)
    if size is None and "at1" in items and not items & {"at2", "at3"}:
        size = 2  # item[0], item[1]: pairs
    if size in (2, 3, 4, 5):
        shaped = f"list[tuple[{', '.join(elements)}]]" if elements and len(elements) == size else None
        plain = f"list[tuple[{', '.join(['int'] * size)}]]"
        return [t for t in dict.fromkeys((shaped, plain, "list[list[int]]")) if t]
    if items & {"char"} or (items & {"str"} and text):
        return ["str", "list[str]"] if text else ["list[str]"]
    if items & {"str"}:
        return ["list[str]"]
    if items & {"float"}:
        return ["list[float]", "list[int]"]
    if items & {"int", "number"}:
        return ["list[int]", "list[float]"]
    if "textcells" in items:  # board[r][c] == "": rows of texts
        return ["list[list[str]]", "list[list[int]]", "list[str]"]
    if items & {"dict"}:  # for t in tasks: t.get("done"): records
        return ["list[dict[str, int]]", "list[dict[str, str]]"]
    if items & {"sequence", "indexed", "list"}:
        return ["list[list[int]]", "list[str]"]
    return ["list[int]", "str", "list[str]"] if text else ["list[int]", "list[str]"]


def _container(bare: str, used: list[str]) -> list[str]:
    """Candidates for a bare container annotation, items read from the body's use."""
    if bare == "dict":  # dict[str, list[int]] first where the body's use of its values says so
        return [t for t in used if t.startswith("dict[")] or ["dict[str, int]", "dict[str, str]", "dict[int, int]"]
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
    module = _Module(tree)
    defaults = [None] * (len(fn.args.args) - len(fn.args.defaults)) + list(fn.args.defaults)
    out = []
    for i, a in enumerate(fn.args.args):
        values = [args[i] for args in seed_args if i < len(args)]
        default = _constant_kind(defaults[i]) if defaults[i] is not None else None
        if isinstance(defaults[i], ast.Constant) and isinstance(defaults[i].value, bool):
            default = "bool"
        seeded = common_type(values, widen=True)
        declared = annotation(a.annotation)
        if drawable(declared) and all(conforms(v, declared) for v in values):
            out.append([(declared, "annotation")] + _shaped(fn, a.arg, declared, module, bool(values)))
            continue
        if drawable(seeded):
            out.append([(seeded, "seed")])
            continue
        if default is not None and declared is None:  # round_up=False, n=10, suffix='...'
            out.append([(default, "default")])
            continue
        evidence = _Evidence()
        _collect(fn, a.arg, evidence, module=module)
        used = [t for t in _from_use(evidence) if drawable(t)]
        method = _method_owner(tree, fn, a.arg)
        if method is not None and not (evidence.kinds & {"list", "dict"}):
            used = [method] + [t for t in used if t != method]
        bare = _bare(a.annotation)
        if bare is not None:
            used = _container(bare, used)
        if _records(evidence) and used:  # dicts read at string keys: their values of the types the body reads there
            used = _typed_records(used, field_types(tree, entry))
        if "optional" in evidence.kinds and used:  # if rate is None: ... (the None case is drawn too)
            used = [f"{used[0]} | None", *used]
        if len(used) == 1 and method is not None and used[0] == method:
            out.append([(method, "use")])
        elif not used and isinstance(defaults[i], ast.Constant) and defaults[i].value is None and declared is None:
            out.append([("None", "default")])  # price_list=None, read as nothing tells: left at its default
        else:
            out.append([(t, "use") for t in used])
    return out


def _records(evidence: _Evidence) -> bool:
    """Whether the body reads the name, or its items, at string keys (``row["price"]``, ``t.get("done")``)."""
    return "record" in evidence.kinds or evidence.items is not None and "record" in evidence.items.kinds


def _typed_records(used: list[str], fields: dict[str, str]) -> list[str]:
    """``used`` with a record type first: ``dict[str, V]`` (or a list of them) whose value type ``V`` is the
    union of the types the body reads at its keys (:func:`field_types`), where it tells them."""
    kinds = list(dict.fromkeys(part for t in fields.values() for part in t.split(" | ")))
    if not kinds or kinds == ["int"]:
        return used
    if "None" in kinds:  # last: a union's None is drawn now and then, not first
        kinds = [k for k in kinds if k != "None"] + ["None"]
    value = " | ".join(kinds)
    first = next((t for t in used if "dict[str, " in t), None)
    if first is None:
        return used
    start = first.index("dict[str, ")
    depth, end = 0, start
    for end in range(start, len(first)):  # the dict's closing bracket
        depth += {"[": 1, "]": -1}.get(first[end], 0)
        if depth == 0 and first[end] == "]":
            break
    record = first[:start] + f"dict[str, {value}]" + first[end + 1:]
    return [record] + [t for t in used if t != record]


def field_types(code: str | ast.Module, entry: str) -> dict[str, str]:
    """The type of the value at each string key the function reads from a dict (``x["title"]``, ``x.get("k", d)``),
    read from the body's use of what it reads there, else from the ``.get`` default's type; keys it tells nothing
    of are left out.

    >>> field_types("def f(tasks):\\n    return [t['title'].upper() for t in tasks if t.get('done', False)]\\n", "f")
    {'done': 'bool', 'title': 'str'}
    """
    from execverify_data.inputs import drawable

    tree = ast.parse(code) if isinstance(code, str) else code
    fn = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == entry)
    module = _Module(tree)
    defaults: dict[str, str] = {}
    order: list[str] = []
    subscripted: set[str] = set()
    for node in ast.walk(fn):
        key = _field_of(node)
        if key is None:
            continue
        order.append(key)
        if isinstance(node, ast.Subscript):
            subscripted.add(key)
        if isinstance(node, ast.Call) and len(node.args) > 1 and key not in defaults:
            d = node.args[1]
            kind = "bool" if isinstance(d, ast.Constant) and isinstance(d.value, bool) else _constant_kind(d)
            kind = kind or ("list" if isinstance(d, (ast.List, ast.ListComp)) else "dict" if isinstance(d, ast.Dict) else None)
            if kind:
                defaults[key] = kind
    out = {}
    for key in dict.fromkeys(order):
        evidence = _Evidence()
        _collect(fn, "", evidence, module=module, field=key)
        used = [t for t in _from_use(evidence) if drawable(t)]
        default = defaults.get(key)
        if default in ("list", "dict"):
            used = [t for t in used if t.startswith(default)] or [f"{default}[str]" if default == "list" else "dict[str, int]"]
        elif default and default not in used[:1]:
            used = [default] if not used or default != "bool" else used
        if key in subscripted and (not used or evidence.kinds <= {"comparable", "passed"}):
            used = ["str"]  # task["title"], read as is or compared with a parameter: most often a text
        if used:
            out[key] = f"{used[0]} | None" if "optional" in evidence.kinds and "None" not in used[0] else used[0]
    return out


def _shaped(fn: ast.AST, name: str, declared: str, module: _Module, seeded: bool) -> list[tuple[str, str]]:
    """A second candidate for an annotated parameter whose items the body unpacks into a fixed number of
    names (``intervals: List[List[int]]`` read as ``for start, end in intervals``): tuples of that size."""
    if seeded or not declared.startswith("list[list["):
        return []
    evidence = _Evidence()
    _collect(fn, name, evidence, module=module)
    size = next((int(k[5:]) for k in (evidence.items.kinds if evidence.items else ()) if k.startswith("tuple")), None)
    item = declared[len("list[list["):-2]
    return [(f"list[tuple[{', '.join([item] * size)}]]", "use")] if size in (2, 3) else []


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
DOMAIN_VARIANTS = {"str": ("text", "tokens", "literal", "digits", "numstr", "word", "line", "char"), "int": ("number", "count"),
                   "float": ("amount",), "list[str]": ("words", "numstrs"), "list[float]": ("amounts",),
                   "list[list[str]]": ("cells",), "list[list[int]]": ("cells",)}


def variants(types: list[str], *, domains: bool, first: str = "") -> list[tuple[str, str]]:
    """A parameter's ``(type, domain)`` options in the order a probe tries them: each type drawn plainly,
    then (with ``domains``) each type in each of its :data:`DOMAIN_VARIANTS`; the ``first`` domains (what the
    body and the docstring say: sentences for a text it splits into words; ``"example|pattern"``, two of them)
    before all of them."""
    out = [(t, "") for t in types]
    if domains:
        out += [(t, d) for t in types for d in DOMAIN_VARIANTS.get(t, ())]
        ahead: list[tuple[str, str]] = []
        for one in filter(None, first.split("|")):
            found = [o for o in out if o[1] == one] or [(t, one) for t in types if _fits(one, t)][:1] or [(t, one) for t in types[:1]]
            if one == "+record":  # records of every candidate type before the plain draws
                found = [(t, one) for t in types if "dict[" in t] or found
            ahead += [o for o in found if o not in ahead]
        out = ahead + [o for o in out if o not in ahead]
    return out


def _fits(domain: str, type_text: str) -> bool:
    """Whether ``domain`` draws values of ``type_text``'s kind (a ``patterns`` list for ``list[str]``, not ``str``)."""
    from execverify_data.inputs import DOMAIN_TYPES

    kind = type_text.split("[")[0]
    return DOMAIN_TYPES.get(domain, kind) == kind


def preferred_domains(code: str | ast.Module, entry: str) -> list[str]:
    """Per parameter, the input domain its use asks for first (``datefmt``: a date written in the format the
    program reads it in, for a text it gives ``strptime`` or ``fromisoformat``; ``pattern``: texts the program's regular
    expression matches, for a text it matches; ``sentence``: several words, for a text it splits into words;
    ``tokens``: for a text it splits at a separator of its own; ``literal``: the keys of its lookup table;
    ``+record``: dicts with the keys it subscripts with, ``row["price"]``; ``patterns``: lines its regular expression
    matches, for a list whose items it matches; ``lines``: such lines joined, for a text it splits into lines that it
    matches), after ``example`` (the texts its
    docstring quotes) for a text parameter of a function whose docstring quotes some, joined by ``|``; or ``""``."""
    tree = ast.parse(code) if isinstance(code, str) else code
    fn = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == entry)
    out = []
    examples = docstring_examples(fn)
    for a in fn.args.args:
        evidence = _Evidence()
        _collect(fn, a.arg, evidence, module=_Module(tree))
        kinds = evidence.kinds
        items = evidence.items.kinds if evidence.items is not None else set()
        said = "datefmt" if "datefmt" in kinds else "pattern" if "pattern" in kinds else "sentence" if "words" in kinds else "tokens" if "fields" in kinds \
            else "literal" if "lookup" in kinds else "+record" if _records(evidence) else "cells" if "textcells" in items \
            else "lines" if "pattern" in items and "lines" in kinds else "patterns" if "pattern" in items else ""
        text = a.annotation is None and _from_use(evidence)[:1] == ["str"] or annotation(a.annotation) == "str"
        out.append("|".join(filter(None, ("example" if examples and text else "", said))))
    return out


def docstring_examples(fn: ast.FunctionDef) -> list[str]:
    """The texts a function's docstring quotes, as people show what a function takes (``"'3:45' -> 225"``,
    ``"Parse '1 1/2', '3/4' or '2.5'"``): drawn as inputs of a text parameter (the ``example`` domain).

    >>> doc = "'3:45' -> 225, \\"1:02:10\\" -> 3730."
    >>> docstring_examples(ast.parse(f"def f(t):\\n    {doc!r}\\n    return t").body[0])
    ['3:45', '1:02:10']
    """
    doc = ast.get_docstring(fn) or ""
    found = re.findall(r"""(?<![A-Za-z0-9])(?:'([^'\n]{1,40})'|"([^"\n]{1,40})")""", doc)
    return list(dict.fromkeys(a or b for a, b in found if (a or b).strip()))


#: The largest number :func:`hints` draws around.
MAX_NUMBER = 10**6


def hints(code: str | ast.Module, entry: str):
    """The :class:`~execverify_data.inputs.Hints` a function's inputs are drawn with: the program's
    (:meth:`~execverify_data.inputs.Hints.of_source`) and what this function's analysis adds: every number of
    the program (thresholds: ``score >= 90``, ``GRADE_CUTOFFS``' 93, 87...), the type at each key it reads
    from records (:func:`field_types`), the strings it compares the cells of a nested list with
    (``board[r][c] == ""``), and, for the ``pattern`` domain, only the expressions it matches a parameter with
    where it matches one (``TASK_RE.match(line)``, not the ``DUE_RE`` it searches the rest with).

    >>> h = hints("LIMITS = (90, 2.5)\\ndef f(board, score):\\n    return board[0][1] == '' and score >= LIMITS[0]\\n", "f")
    >>> h.numbers, h.cells
    ((90, 2.5, 1, 0), ('',))
    """
    from execverify_data.inputs import Hints

    tree = ast.parse(code) if isinstance(code, str) else code
    fn = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == entry)
    out = Hints.of_source(tree)
    numbers: dict = {}
    cells: dict = {}
    parents = _parents(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float) and abs(node.value) <= MAX_NUMBER:
            numbers.setdefault(node.value)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript) and _compared_with_text(node, parents):
            compare = parents[id(node)]
            for other in [compare.left, *compare.comparators]:
                for e in [other, *getattr(other, "elts", ())]:
                    if _constant_kind(e) == "str" or isinstance(e, ast.Constant) and e.value == "":
                        cells.setdefault(e.value)
    compiled = {t.id: n.value.args[0].value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                and isinstance(n.value.func, ast.Attribute) and n.value.func.attr == "compile" and n.value.args
                and _constant_kind(n.value.args[0]) == "str" for t in n.targets if isinstance(t, ast.Name)}
    params = {a.arg for a in fn.args.args}
    params |= set(text_copies(fn, params))  # cleaned = postcode.upper().replace(' ', ''); UK_POSTCODE.match(cleaned)
    matched: dict = {}
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PATTERN_METHODS
                and isinstance(node.func.value, ast.Name) and node.args):
            continue
        owner = node.func.value.id
        pattern, text = (compiled.get(owner), node.args[-1 if node.func.attr in ("sub", "subn") else 0]) if owner != "re" \
            else (node.args[0].value if _constant_kind(node.args[0]) == "str" else None, node.args[1] if len(node.args) > 1 else None)
        if pattern and text is not None and any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(text)):
            matched.setdefault(pattern)
    out.numbers, out.cells = tuple(numbers), tuple(cells)
    out.field_types = field_types(tree, entry)
    out.examples = tuple(docstring_examples(fn))
    if matched:
        out.patterns = tuple(matched)
    return out


def combinations(options: list[list], limit: int = MAX_COMBINATIONS) -> list[tuple]:
    """The first ``limit`` combinations of the parameters' options (one from each list), those with the
    earlier options first (by the sum of their ranks)."""
    ranked = sorted(itertools.product(*[range(len(o)) for o in options]), key=lambda ranks: (sum(ranks), ranks))
    return [tuple(options[p][r] for p, r in enumerate(ranks)) for ranks in ranked[:limit]]
