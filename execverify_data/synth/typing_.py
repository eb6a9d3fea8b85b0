"""Type plumbing for the generator: the catalog's signatures instantiated at concrete types.

The generator only builds values of a few *concrete value types* (:data:`VALUE_TYPES`);
catalog signatures are written with type variables and abstract types
(``Iterable[T]``). :func:`instances` binds the variables to small element types;
:func:`accepts` says whether a concrete type can be passed where a parameter type
is expected.

>>> accepts(T("Iterable[str]"), T("list[str]")), accepts(T("Iterable[str]"), T("str"))
(True, True)
>>> accepts(T("Sequence[int]"), T("set[int]"))
False
>>> bind(T("list[T]"), T("list[int]"), {})
{'T': Type(name='int', args=())}
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

from execverify_data import catalog
from execverify_data.catalog.entry import Entry, Signature
from execverify_data.catalog.typelang import Type, parse, substitute, type_vars

__all__ = ["VALUE_TYPES", "ELEMENTS", "Instance", "instances", "accepts", "bind", "is_value_type", "element_type"]



@lru_cache(maxsize=None)
def T(text: str) -> Type:
    """A type text parsed once (cached)."""
    return parse(text)


#: Element types type variables are bound to.
ELEMENTS = ("int", "str")
#: Types of parameters and locals the generator creates.
VALUE_TYPES = (
    "str", "int", "float", "bool", "bytes",
    "list[int]", "list[str]", "set[int]", "set[str]", "frozenset[int]", "frozenset[str]",
    "dict[str, int]", "dict[int, str]", "tuple[int, ...]", "tuple[str, ...]",
)
#: Param types entry points may take.
PARAM_TYPES = ("str", "int", "float", "bytes", "list[int]", "list[str]", "set[int]", "set[str]",
               "frozenset[int]", "frozenset[str]", "dict[str, int]", "dict[int, str]", "tuple[int, ...]", "tuple[str, ...]", "bool")

_HASHABLE_ELEMENTS = {"int", "str", "bool", "float", "bytes"}


def is_value_type(t: Type) -> bool:
    """Whether values of ``t`` have a canonical literal (can be an output or an input)."""
    if t.name in ("str", "int", "float", "bool", "bytes", "None", "range"):
        return True
    if t.name in ("list", "set", "frozenset", "tuple", "dict"):
        return all(a.name == "..." or is_value_type(a) for a in t.args)
    return False


def element_type(t: Type) -> Type | None:
    """Type of the items a ``for`` loop over ``t`` yields, or None if not iterable."""
    if t.name in ("str",):
        return T("str")
    if t.name == "bytes":
        return T("int")
    if t.name == "range":
        return T("int")
    if t.name in ("list", "set", "frozenset", "dict_keys", "dict_values", "Iterator", "Iterable"):
        return t.args[0]
    if t.name == "tuple":
        if len(t.args) == 2 and t.args[1].name == "...":
            return t.args[0]
        if t.args and all(a == t.args[0] for a in t.args):
            return t.args[0]
        return None
    if t.name == "dict":
        return t.args[0]
    if t.name == "dict_items":
        return Type("tuple", t.args)
    return None


def bind(pattern: Type, concrete: Type, bindings: dict[str, Type]) -> dict[str, Type] | None:
    """Extend ``bindings`` so that ``pattern`` (with type variables) equals ``concrete``; None if impossible."""
    if pattern.is_var:
        bound = bindings.get(pattern.name)
        if bound is None:
            out = dict(bindings)
            out[pattern.name] = concrete
            return out
        return bindings if bound == concrete else None
    if pattern.name == "object":
        return bindings
    if pattern.name == "|":
        for member in pattern.args:
            got = bind(member, concrete, bindings)
            if got is not None:
                return got
        return None
    if pattern.name in ("Iterable", "Collection") or (pattern.name == "Sequence"):
        elem = element_type(concrete)
        if elem is None or concrete.name in ("dict_items",) and pattern.name != "Iterable":
            return None
        if pattern.name == "Sequence" and concrete.name not in ("list", "tuple", "str", "bytes", "range"):
            return None
        if pattern.name == "Collection" and concrete.name in ("Iterator",):
            return None
        return bind(pattern.args[0], elem, bindings)
    if pattern.name == "int" and concrete.name == "bool":
        return bindings
    if pattern.name != concrete.name or len(pattern.args) != len(concrete.args):
        return None
    for p, c in zip(pattern.args, concrete.args):
        bindings = bind(p, c, bindings)
        if bindings is None:
            return None
    return bindings


def accepts(param: Type, concrete: Type) -> bool:
    """Whether a value of ``concrete`` type may be passed for a parameter of type ``param``."""
    return bind(param, concrete, {}) is not None


@dataclass(frozen=True)
class Instance:
    """A catalog signature with its type variables bound to element types."""

    entry: Entry
    sig: Signature
    bindings: tuple[tuple[str, Type], ...]

    @property
    def env(self) -> dict[str, Type]:
        return dict(self.bindings)

    def ptype(self, name: str) -> Type:
        """The type of parameter ``name`` (``"self"``: the receiver) with the variables bound (cached: types are immutable)."""
        cache = self.__dict__.get("_ptypes")
        if cache is None:
            cache = {}
            object.__setattr__(self, "_ptypes", cache)  # a per-instance memo; not a field, so not compared or hashed
        found = cache.get(name)
        if found is None:
            found = cache[name] = self._ptype(name)
        return found

    def _ptype(self, name: str) -> Type:
        if name == "self":
            return substitute(T(self.sig.receiver), self.env)
        for p in self.sig.params:
            if p.name == name:
                return substitute(T(p.type), self.env)
        raise KeyError(name)

    @property
    def returns(self) -> Type:
        if self.sig.returns == "None":
            return T("None")
        return substitute(T(self.sig.returns), self.env)


def _vars_of_sig(sig: Signature) -> list[str]:
    names: set[str] = set()
    for text in [sig.receiver or "None", sig.returns, *(p.type for p in sig.params)]:
        if text != "None":
            names |= type_vars(T(text))
    return sorted(names)


@lru_cache(maxsize=None)
def instances(entry_id: str) -> tuple[Instance, ...]:
    """All instantiations of an entry's signatures with variables bound to :data:`ELEMENTS`."""
    entry = catalog.get(entry_id)
    out = []
    for sig in entry.signatures:
        names = _vars_of_sig(sig)
        for combo in itertools.product(ELEMENTS, repeat=len(names)):
            out.append(Instance(entry, sig, tuple((n, T(c)) for n, c in zip(names, combo))))
    return tuple(out)


@lru_cache(maxsize=None)
def usable_entries() -> tuple[str, ...]:
    """Catalog ids available in the running interpreter, in catalog order."""
    import sys

    return tuple(e.id for e in catalog.ENTRIES if e.available(sys.version_info[:2]))
