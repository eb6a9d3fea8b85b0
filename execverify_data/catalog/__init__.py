"""The typed catalog of builtin types, methods, functions and operators.

Data lives in :mod:`.methods`, :mod:`.functions` and :mod:`.operators`; the type
language in :mod:`.typelang`; named preconditions in :mod:`.preconditions`.

>>> get("str.split").kind, get("list.pop").mutates
('method', True)
>>> [str(p) for p in get("list.pop").signatures[0].preconditions]
['nonempty(self)', 'valid_index(self, index)']
>>> sorted(e.id for e in entries(kind="method", receiver="tuple"))
['tuple.count', 'tuple.index']
>>> get("str.splt")
Traceback (most recent call last):
...
execverify_data.errors.InvalidArgument: unknown catalog id 'str.splt'; did you mean one of ['str.split', ...
"""

from __future__ import annotations

import difflib
import sys

from execverify_data.catalog.entry import KINDS, Entry, Param, Signature
from execverify_data.catalog.functions import FUNCTIONS
from execverify_data.catalog.methods import EXCLUDED, METHODS
from execverify_data.catalog.operators import OPERATORS
from execverify_data.catalog.preconditions import Precondition, holds
from execverify_data.catalog.typelang import Type, conforms
from execverify_data.errors import InvalidArgument

__all__ = ["ENTRIES", "EXCLUDED", "KINDS", "TYPES", "Entry", "Param", "Precondition", "Signature", "Type", "conforms",
           "entries", "get", "holds"]

#: The ten builtin types the catalog covers.
TYPES: tuple[str, ...] = ("str", "list", "dict", "set", "frozenset", "tuple", "int", "float", "bool", "bytes")

#: Every entry, methods first, then builtin functions, then operators.
ENTRIES: tuple[Entry, ...] = (*METHODS, *FUNCTIONS, *OPERATORS)

_BY_ID: dict[str, Entry] = {e.id: e for e in ENTRIES}
if len(_BY_ID) != len(ENTRIES):  # pragma: no cover - guards the data modules
    raise RuntimeError("duplicate catalog ids")


def get(entry_id: str) -> Entry:
    """The entry with this id; :class:`InvalidArgument` with close matches otherwise.

    >>> str(get("builtin.sorted").signatures[0])
    '(iterable: Iterable[T], key?: Callable[[T], object], reverse?: bool) -> list[T]'
    """
    try:
        return _BY_ID[entry_id]
    except (KeyError, TypeError):
        close = difflib.get_close_matches(str(entry_id), list(_BY_ID), n=3)
        raise InvalidArgument(f"unknown catalog id {entry_id!r}; did you mean one of {close}? "
                              "Ids look like 'str.split', 'builtin.sorted', 'op.slice_step'.") from None


def entries(
    *,
    kind: str | None = None,
    receiver: str | None = None,
    name: str | None = None,
    version: tuple[int, int] | None = None,
) -> tuple[Entry, ...]:
    """Entries filtered by kind, receiver type name, method/function name, and Python version.

    ``receiver="bool"`` gives ``int``'s methods, which ``bool`` inherits. ``version``
    defaults to the running interpreter's; pass ``(3, 13)`` to plan for another.

    >>> [e.id for e in entries(name="is_integer", version=(3, 11))]
    ['float.is_integer']
    >>> len(entries(name="is_integer", version=(3, 12)))
    2
    >>> [e.id for e in entries(receiver="bool", name="bit_count")]
    ['int.bit_count']
    """
    if kind is not None and kind not in KINDS:
        raise InvalidArgument(f"kind must be one of {KINDS}, got {kind!r}")
    if receiver is not None and receiver not in TYPES:
        raise InvalidArgument(f"receiver must be one of {TYPES}, got {receiver!r}")
    version = tuple(version or sys.version_info[:2])
    owner = "int" if receiver == "bool" else receiver
    return tuple(e for e in ENTRIES if (kind is None or e.kind == kind) and (owner is None or e.receiver == owner)
                 and (name is None or e.name == name) and e.available(version))
