"""The parameter types of generated entry points, and the catalog entries this interpreter has."""

from __future__ import annotations

from functools import lru_cache

from execverify_data import catalog

__all__ = ["PARAM_TYPES", "usable_entries"]

#: Param types entry points may take.
PARAM_TYPES = ("str", "int", "float", "bytes", "list[int]", "list[str]", "set[int]", "set[str]",
               "frozenset[int]", "frozenset[str]", "dict[str, int]", "dict[int, str]", "tuple[int, ...]", "tuple[str, ...]", "bool")


@lru_cache(maxsize=None)
def usable_entries() -> tuple[str, ...]:
    """Catalog ids available in the running interpreter, in catalog order."""
    import sys

    return tuple(e.id for e in catalog.ENTRIES if e.available(sys.version_info[:2]))
