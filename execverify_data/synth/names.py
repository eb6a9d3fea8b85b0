"""Names for generated code: from the role a value plays, never shadowing a builtin or a keyword.

>>> n = Names(random_=__import__("random").Random(0))
>>> n.param("words"), n.element("words", "words"), n.element("text", "text"), n.fresh("count")
('items', 'word', 'c', 'count')
>>> n.fresh("count")
'count2'
>>> n.fresh("list")  # a builtin is never shadowed ('items' is taken)
'items2'
"""

from __future__ import annotations

import builtins
import keyword
import random

__all__ = ["Names", "RESERVED"]

#: Names a generated program never binds: builtins, keywords, and module names it may import.
RESERVED = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset(
    {"math", "re", "string", "itertools", "functools", "collections", "heapq", "bisect", "typing", "self"})

_PARAMS: dict[str, tuple[str, ...]] = {
    "text": ("text", "sentence", "phrase", "message"),
    "word": ("word", "name", "token", "label"),
    "line": ("line", "record", "row", "entry"),
    "digits": ("digits", "code", "serial"),
    "numstr": ("token", "value"),
    "num": ("x", "delta", "value", "offset"),
    "count": ("n", "count", "times", "size"),
    "number": ("n", "number", "num"),
    "amount": ("price", "amount", "rate"),
    "flag": ("reverse", "strict", "unique"),
    "blob": ("data", "payload", "raw"),
    "amounts": ("prices", "amounts", "weights", "readings"),
    "nums": ("nums", "values", "numbers", "scores", "readings"),
    "words": ("words", "names", "tokens", "items", "labels"),
    "numstrs": ("tokens", "fields", "entries"),
    "ids": ("ids", "codes", "marks"),
    "tags": ("tags", "labels", "keywords"),
    "fids": ("allowed", "blocked", "reserved_ids"),
    "ftags": ("stopwords", "allowed", "banned"),
    "table": ("counts", "stock", "scores", "prices", "ages"),
    "names": ("names", "lookup", "labels_by_id"),
    "tnums": ("point", "sizes", "dims"),
    "twords": ("fields", "options", "parts"),
    "limit": ("limit", "threshold", "k"),
    "fragment": ("prefix", "part", "key"),
    "char": ("letter", "target", "mark"),
    "sepchar": ("sep", "delim"),
    "key": ("key", "name", "target"),
}

#: plural collection name -> the name of one of its items.
_SINGULAR = {
    "words": "word", "names": "name", "tokens": "token", "items": "item", "labels": "label", "tags": "tag",
    "keywords": "keyword", "nums": "num", "values": "value", "numbers": "number", "scores": "score",
    "readings": "reading", "weights": "weight", "amounts": "amount", "fields": "field", "entries": "entry", "ids": "id_", "codes": "code", "marks": "mark",
    "allowed": "item", "blocked": "item", "reserved_ids": "ident", "stopwords": "word", "banned": "word",
    "counts": "word", "stock": "item", "prices": "item", "ages": "name", "lookup": "key",
    "labels_by_id": "key", "sizes": "size", "dims": "dim", "options": "option", "parts": "part", "point": "coord",
    "lines": "line", "pieces": "piece", "groups": "group", "chunks": "chunk", "pairs": "pair", "rows": "row",
    "digits": "digit", "results": "result", "blobs": "blob",
}
_ELEMENT_OF_STRING = {"text": ("ch", "c"), "word": ("ch", "letter"), "line": ("ch",), "digits": ("d", "ch"),
                      "numstr": ("ch",), "blob": ("b", "byte")}


class Names:
    """Fresh names for one program (unique, never reserved)."""

    def __init__(self, random_: random.Random):
        self.rng = random_
        self.used: set[str] = set()

    def fresh(self, base: str) -> str:
        """``base``, or ``base2``, ``base3``... the first not yet used; a reserved base becomes a plain noun."""
        if base in RESERVED or not base.isidentifier():
            base = {"list": "items", "str": "text", "int": "number", "sum": "total", "max": "largest", "min": "smallest",
                    "set": "group", "dict": "table", "len": "size", "id": "ident", "type": "kind", "filter": "kept",
                    "map": "mapped", "next": "following", "iter": "it", "range": "span", "hash": "digest",
                    "input": "value", "format": "text", "ascii": "text", "bin": "bits", "hex": "digits",
                    "oct": "digits", "chr": "char", "ord": "code", "round": "rounded", "pow": "power",
                    "bytes": "data", "tuple": "pair", "zip": "pairs", "any": "found", "all": "every"}.get(base, "value")
        name, i = base, 2
        while name in self.used or name in RESERVED:
            name, i = f"{base}{i}", i + 1
        self.used.add(name)
        return name

    def param(self, grain: str) -> str:
        """A parameter name for a value of ``grain``."""
        return self.fresh(self.rng.choice(_PARAMS.get(grain, ("value",))))

    def element(self, collection: str, grain: str) -> str:
        """A loop variable name for the items of ``collection`` (a name) of grain ``grain`` (the collection's)."""
        if grain in _ELEMENT_OF_STRING:
            return self.fresh(self.rng.choice(_ELEMENT_OF_STRING[grain]))
        if grain == "table":  # the keys of a dict: what the dict is about
            return self.fresh({"counts": "word", "stock": "item", "scores": "player", "prices": "item",
                               "ages": "name"}.get(collection.rstrip("0123456789"), "key"))
        base = collection.rstrip("0123456789")
        if base in _SINGULAR:
            return self.fresh(_SINGULAR[base])
        if base.endswith("ies"):
            return self.fresh(base[:-3] + "y")
        if base.endswith("s") and len(base) > 3 and not base.endswith("ss"):
            return self.fresh(base[:-1])
        return self.fresh({"nums": "num", "words": "word", "ids": "num", "tags": "tag", "tnums": "num", "twords": "word",
                           "fids": "num", "ftags": "word", "numstrs": "token"}.get(grain, "item"))
