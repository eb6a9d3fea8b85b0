"""Narrowing a function's input domain from what its draws raised (``execverify from-code``).

A function written by someone else has preconditions it does not state: ``xs[0]`` wants a non-empty list,
``int(s)`` a digit string, ``RATES[tax_class]`` one of the table's keys, ``math.sqrt(x)`` a non-negative
number, ``h, m = t.split(':')`` two fields. When draws raise, :func:`proposals` reads the exceptions
(``"Type: message"``, as the sandbox reports them) and proposes narrowings of the parameters
(:data:`execverify_data.inputs.NARROWINGS`, written after a parameter's domain: ``"digits+min1"``) that
could have prevented them; :func:`execverify_data.fromcode.probe_types` draws again under each and keeps
the one under which the most draws return, with the most distinct outputs.

>>> proposals(["IndexError: list index out of range"], ("list[int]", "int"))
[(0, 'min1'), (0, 'min3'), (0, 'long')]
>>> proposals(["ValueError: invalid literal for int() with base 10: 'ab'"], ("str",))
[(0, 'digits'), (0, 'numfields')]
"""

from __future__ import annotations

import re

__all__ = ["RULES", "agreement_proposals", "guard_proposals", "proposals", "with_rule"]

#: What each kind of failure asks of the inputs, in the order tried: ``(pattern of "Type: message", narrowings)``.
#: A narrowing is proposed for each parameter whose type it changes (sizes for strings and containers, numbers
#: for numbers at any depth, texts for strings at any depth, ``record`` for dicts, ``sorted`` for lists).
RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"^ValueError: (not enough|too many) values to unpack \(expected (\d)", ("size{1}", "numfields")),
    (r"^IndexError", ("min1", "min3", "long")),
    (r"empty|at least (one|two|2|1)|no (data|elements|items)", ("min1", "min3")),
    (r"^ZeroDivisionError", ("nonzero", "pos", "min1")),
    (r"math domain error|^ValueError: negative|square root", ("nonneg", "pos")),
    (r"^ValueError: (invalid literal for int|could not convert string to float)", ("digits", "numfields")),
    (r"^KeyError", ("keys", "record")),
    (r"^(ValueError|AssertionError)", ("pos", "nonneg", "min1", "sorted", "keys")),
)
_APPLIES = {"min1": "sized", "min3": "sized", "long": "sized", "size2": "sized", "size3": "sized", "size4": "sized",
            "size5": "sized", "nonneg": "number", "pos": "number", "nonzero": "number", "sorted": "list", "keys": "str",
            "digits": "str", "numfields": "str", "record": "dict"}


def _changes(rule: str, type_text: str) -> bool:
    """Whether ``rule`` changes values of ``type_text`` (a top-level size, or a leaf of its kind at any depth)."""
    kind = _APPLIES.get(rule)
    if kind == "sized":  # an exact size is for a container unpacked into names, not for a text
        texts = ("str", "bytes") if not rule.startswith("size") else ()
        return type_text.startswith((*texts, "list", "set", "frozenset", "dict")) or type_text.endswith(", ...]")
    if kind == "number":
        return bool(re.search(r"\b(int|float)\b", type_text))
    if kind == "list":
        return type_text.startswith("list[")
    if rule.startswith("in:"):  # one of a table's keys
        return type_text in ("str", "int")
    if rule.startswith("from"):  # a scalar found in another parameter's value
        return type_text in ("str", "int", "float")
    if rule.startswith("len"):  # as long as another parameter
        return type_text.startswith(("str", "list", "tuple"))
    if re.fullmatch(r"le\d", rule):  # at most another parameter: two values of one ordered type
        return type_text in ("int", "float", "str", "date", "datetime", "time", "timedelta", "Decimal")
    if kind == "dict":
        return type_text.startswith("dict[str,") or "dict[str," in type_text
    return kind == "str" and bool(re.search(r"\bstr\b", type_text))


def proposals(errors: list[str], types: tuple[str, ...]) -> list[tuple[int, str]]:
    """``(parameter index, narrowing)`` pairs worth a try for draws that raised ``errors`` (``"Type: message"``),
    for parameters of ``types``, most telling first, without repeats."""
    out: list[tuple[int, str]] = []
    for error in dict.fromkeys(errors):
        for pattern, rules in RULES:
            found = re.search(pattern, error)
            if found is None:
                continue
            for template in rules:
                rule = template.format(*found.groups()) if "{" in template else template
                out.extend((i, rule) for i, t in enumerate(types) if _changes(rule, t) and (i, rule) not in out)
            break
    return out


def with_rule(domain: str, rule: str) -> str:
    """Domain text ``domain`` with narrowing ``rule`` added (a size replaces a size).

    >>> with_rule("digits+min1", "min3"), with_rule("", "nonneg"), with_rule("digits", "digits")
    ('digits+min3', '+nonneg', 'digits+min1')
    """
    base, *rules = domain.split("+")
    if rule == base:  # digit strings already: what raised was the empty one
        rule = "min1"
    sizes = ("min1", "min3", "long", "size")
    if rule.startswith(sizes):
        rules = [r for r in rules if not r.startswith(sizes)]
    return "+".join([base, *sorted({*rules, rule})])


def guard_proposals(code: str, entry: str, types: tuple[str, ...]) -> list[tuple[int, str]]:
    """``(parameter index, narrowing)`` pairs read from the checks that make ``entry`` raise: an ``if`` whose body
    raises (``if len(dims) != 3: raise ValueError``, ``if renewals < 0: raise``, ``if kind not in RATES: raise``)
    and an ``assert``. Each says what an input must be for the call to go on, which an error message often does
    not (``ValueError: need three dimensions``).

    >>> guard_proposals("def f(a, b, k):\\n    if len(a) != 3 or len(b) != 3:\\n        raise ValueError('3')\\n"
    ...                 "    assert k >= 0\\n    return a", "f", ("tuple[int, ...]", "tuple[int, ...]", "int"))
    [(0, 'size3'), (1, 'size3'), (2, 'nonneg')]
    """
    import ast

    from execverify_data.param_types import text_copies

    tree = ast.parse(code)
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry), None)
    if fn is None:
        return []
    params = [a.arg for a in fn.args.args]
    out: list[tuple[int, str]] = []
    derived = text_copies(fn, params)

    def add(name: str | None, rule: str | None) -> None:
        name = derived.get(name, name)
        if name in params and rule is not None:
            i = params.index(name)
            if i < len(types) and _changes(rule, types[i]) and (i, rule) not in out:
                out.append((i, rule))

    for node in ast.walk(fn):
        raising = isinstance(node, ast.If) and any(isinstance(s, ast.Raise) for s in node.body)
        if not (raising or isinstance(node, ast.Assert)):
            continue
        test = node.test
        pair = _lengths(test.left, test.comparators[0], params) if isinstance(test, ast.Compare) and len(test.ops) == 1 \
            else None
        if pair is not None and isinstance(test.ops[0], ast.NotEq if raising else ast.Eq):  # len(answers) != len(key)
            add(params[pair[1]], f"len{pair[0]}")
        joined = ast.Or if raising else ast.And  # any part of a raising test, every part of an assert
        atoms = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, joined) else [test]
        for atom in atoms:
            add(*_rule_against(atom, bad=raising))
            order = _order(atom, params, bad=raising)
            if order is not None and types[order[0]] == types[order[1]]:  # if on > current_due: raise
                add(params[order[0]], f"le{order[1]}")
    return out


def _order(test, params: list[str], *, bad: bool) -> tuple[int, int] | None:
    """``(i, j)`` when the check ``test`` holds (``bad`` False) or fails (``bad`` True) only for ``params[i] <=
    params[j]`` (``if start > end: raise``: ``start`` at most ``end``), else None."""
    import ast

    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
            and isinstance(test.comparators[0], ast.Name) and {test.left.id, test.comparators[0].id} <= set(params)
            and test.left.id != test.comparators[0].id):
        return None
    a, b = params.index(test.left.id), params.index(test.comparators[0].id)
    op = type(test.ops[0])
    if (op in (ast.Gt, ast.GtE)) == bad and op in (ast.Gt, ast.GtE, ast.Lt, ast.LtE):  # a > b bad, a <= b good
        return a, b
    if op in (ast.Gt, ast.GtE, ast.Lt, ast.LtE):
        return b, a
    return None


def _lengths(left, right, params: list[str]) -> tuple[int, int] | None:
    """``(i, j)`` for ``len(params[i])`` compared with ``len(params[j])``, else None."""
    import ast

    names = [n.args[0].id for n in (left, right) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == "len" and len(n.args) == 1 and isinstance(n.args[0], ast.Name) and n.args[0].id in params]
    return (params.index(names[0]), params.index(names[1])) if len(names) == 2 and names[0] != names[1] else None


def _rule_against(test, *, bad: bool) -> tuple[str | None, str | None]:
    """``(parameter name, narrowing)`` that keeps the check ``test`` from failing: true when ``bad`` is False
    (an assert), false when True (the test of an ``if`` that raises); ``(None, None)`` when it says nothing."""
    import ast

    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _rule_against(test.operand, bad=not bad)
    if isinstance(test, ast.Name):  # `if not items: raise` / `assert items`
        return (test.id, "min1") if not bad else (None, None)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and isinstance(test.func.value, ast.Name) \
            and test.func.attr in ("isdigit", "isdecimal", "isnumeric") and not bad:
        return test.func.value.id, "digits"
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None, None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if bad:  # the condition that must not hold: its negation must
        negated = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt, ast.Eq: ast.NotEq,
                   ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In}.get(type(op))
        if negated is None:
            return None, None
        op = negated()
    if isinstance(op, ast.In) and isinstance(left, ast.Name) and isinstance(right, ast.Name) and right.id.isupper():
        return left.id, f"in:{right.id}"  # kind in RATES: one of that table's keys
    if not (isinstance(right, ast.Constant) and type(right.value) in (int, float)):
        return None, None
    n = right.value
    sized = isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len" \
        and len(left.args) == 1 and isinstance(left.args[0], ast.Name)
    if sized:
        name = left.args[0].id
        if isinstance(op, ast.Eq) and 2 <= n <= 5:
            return name, f"size{n}"
        least = n + 1 if isinstance(op, ast.Gt) else n if isinstance(op, ast.GtE) else 1 if isinstance(op, ast.NotEq) \
            and n == 0 else None
        if least is None or least < 1:
            return None, None
        return name, "min1" if least <= 1 else "min3" if least <= 3 else "long"
    if not isinstance(left, ast.Name):
        return None, None
    if isinstance(op, ast.GtE) and n == 0 or isinstance(op, ast.Gt) and n == -1:
        return left.id, "nonneg"
    if isinstance(op, ast.Gt) and n == 0 or isinstance(op, ast.GtE) and n == 1:
        return left.id, "pos"
    if isinstance(op, ast.NotEq) and n == 0:
        return left.id, "nonzero"
    return None, None


def agreement_proposals(code: str, entry: str, types: tuple[str, ...]) -> list[tuple[int, str]]:
    """``(j, "from<i>")`` for a parameter ``j`` the body compares with what parameter ``i`` holds (``t["title"] ==
    title`` for ``t`` in ``tasks``; ``tag in t["tags"]``): a call finds what it looks for only when ``j`` is one of
    ``i``'s values, which independent draws almost never give (``mark_done(tasks, title)`` raised ``KeyError`` on
    every draw). Drawn that way (:data:`execverify_data.inputs.NARROWINGS`), ``j`` is a value found in ``i`` most of
    the time.

    >>> agreement_proposals("def f(tasks, title):\\n    return [t for t in tasks if t['title'] == title]", "f",
    ...                     ("list[dict[str, str]]", "str"))
    [(1, 'from0')]
    """
    import ast

    tree = ast.parse(code)
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry), None)
    if fn is None:
        return []
    params = [a.arg for a in fn.args.args]
    holds = {p: i for i, p in enumerate(params)}  # a name -> the parameter whose values it holds

    def source(node) -> int | None:
        found = {holds[n.id] for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in holds}
        return found.pop() if len(found) == 1 else None

    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.comprehension)):
            i = source(node.iter)
            if i is not None:
                for target in ast.walk(node.target):
                    if isinstance(target, ast.Name) and target.id not in params:
                        holds[target.id] = i
    out: list[tuple[int, str]] = []
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1
                and isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn))):
            continue
        for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
            if isinstance(side, ast.Name) and side.id in params:
                j, i = params.index(side.id), source(other)
                if i is not None and i != j and j < len(types) and _changes(f"from{i}", types[j]) \
                        and (j, f"from{i}") not in out:
                    out.append((j, f"from{i}"))
    return out
