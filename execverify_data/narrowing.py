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

__all__ = ["RULES", "proposals", "with_rule"]

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
