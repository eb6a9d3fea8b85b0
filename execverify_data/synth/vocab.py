"""The generator's vocabulary: how each builtin method, function and operator is used in code people write.

A :class:`Form` is one such use, a template over a *subject* ``{x}`` (sometimes a second one ``{y}``):
``{x}.startswith({prefix})`` on a word, ``len({x})`` on a word or a list, ``{x}.split({sep})`` on a line.
It applies to subjects of given *grains*: not only their type but what the value is (a sentence, a word,
a character, a digit string, a count...), so that ``ch.isdigit()`` is asked of characters and
``text.split()`` of sentences.

Literal slots (``{sep}``, ``{char}``, ``{k}``...) are filled from small pools of the values people
write (:data:`SLOTS`); a slot with a parameter name can instead become an entry-point parameter
(``{k}`` -> ``limit: int``). The forms are data: :func:`forms` selects them.

>>> [f.text for f in forms(head="str.startswith")][:1]
['{x}.startswith({prefix})']
>>> {f.role for f in forms(on="char")} >= {"pred", "measure"}
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

__all__ = ["Form", "GRAINS", "SLOTS", "Slot", "annotation", "element_grain", "empty_value", "forms", "grain_type",
           "param_type"]


#: grain -> type text (catalog type language). A grain is what a value is, beyond its type.
GRAINS: dict[str, str] = {
    # strings
    "text": "str",      # a short sentence: words and spaces
    "word": "str",      # one token
    "char": "str",      # one character
    "line": "str",      # fields joined by a separator
    "digits": "str",    # a string of digits
    "numstr": "str",    # a token that may be a number ('12', 'x3', '-4')
    "key": "str",       # a short common word: one an input's items or keys may hold
    # numbers
    "num": "int",       # a small int, any sign
    "count": "int",     # a small non-negative int (loop counts, lengths)
    "number": "int",    # a non-negative int with several digits
    "byte": "int",      # a byte value (an element of bytes)
    "index": "int",     # a position
    "flag": "bool",
    "amount": "float",
    "blob": "bytes",
    # collections
    "nums": "list[int]",
    "amounts": "list[float]",
    "words": "list[str]",
    "numstrs": "list[str]",
    "ids": "set[int]",
    "tags": "set[str]",
    "fids": "frozenset[int]",
    "ftags": "frozenset[str]",
    "table": "dict[str, int]",
    "names": "dict[int, str]",
    "tnums": "tuple[int, ...]",
    "twords": "tuple[str, ...]",
    # nested data (purpose-first tasks walk their parts: the words of each line, the numbers of each row)
    "doc": "str",       # a text of a few lines
    "grid": "list[list[int]]",
}

#: What iterating a value of each grain yields.
_ELEMENTS = {
    "text": "char", "word": "char", "line": "char", "digits": "char", "numstr": "char",
    "nums": "num", "words": "word", "numstrs": "numstr", "ids": "num", "tags": "word", "fids": "num",
    "ftags": "word", "table": "word", "names": "num", "tnums": "num", "twords": "word", "blob": "byte",
    "amounts": "amount",
}


def grain_type(grain: str) -> str:
    """The type text of a grain.

    >>> grain_type("word"), grain_type("table")
    ('str', 'dict[str, int]')
    """
    return GRAINS[grain]


def element_grain(grain: str) -> str | None:
    """The grain of the items a ``for`` loop over a value of ``grain`` yields (None: not iterable).

    >>> element_grain("words"), element_grain("text"), element_grain("num")
    ('word', 'char', None)
    """
    return _ELEMENTS.get(grain)


#: the type of the parameter grains that only a literal slot makes (``{k}`` -> ``limit: int``)
_SLOT_PARAM_TYPES = {"limit": "int", "fragment": "str", "char": "str", "sepchar": "str", "key": "str"}


def param_type(grain: str) -> str:
    """The type text of an entry-point parameter of ``grain`` (a grain, or the grain of a literal slot).

    >>> param_type("limit"), param_type("words")
    ('int', 'list[str]')
    """
    return _SLOT_PARAM_TYPES.get(grain) or grain_type(grain)


#: annotations of the grains of results that no parameter has (what forms give: pairs, groups...)
_ANNOTATIONS = {"pairs": "list[tuple]", "groups": "dict[str, list]", "iter": "list", "keys": "list", "items": "list",
                "triple": "str", "btriple": "bytes", "pairnum": "int", "blobs": "list[bytes]", "bool": "bool",
                "index": "int", "byte": "int", "elem": "int", "none": "None"}


def annotation(grain: str) -> str:
    """The annotation of a value of ``grain`` ("object" for a grain of no known type).

    >>> annotation("pairs"), annotation("word"), annotation("marker")
    ('list[tuple]', 'str', 'object')
    """
    if grain in _ANNOTATIONS:
        return _ANNOTATIONS[grain]
    try:
        return param_type(grain)
    except KeyError:
        return "object"


_EMPTY = {"count": "0", "num": "0", "index": "-1", "byte": "0", "number": "0", "amount": "0.0", "word": "''",
          "char": "''", "text": "''", "line": "''", "numstr": "''", "digits": "''", "blob": "b''", "flag": "False",
          "words": "[]", "nums": "[]", "numstrs": "[]", "blobs": "[]"}


def empty_value(grain: str) -> str:
    """The literal a value of ``grain`` takes when there is nothing to give (``x if guard else 0``).

    >>> empty_value("index"), empty_value("word"), empty_value("table")
    ('-1', "''", 'None')
    """
    return _EMPTY.get(grain, "None")


@dataclass(frozen=True)
class Slot:
    """A literal in a template: its Python type, the values people write there, and, when it can
    become an entry-point parameter instead, that parameter's name and grain."""

    type: str
    pool: tuple
    param: str | None = None
    param_grain: str | None = None


SLOTS: dict[str, Slot] = {
    "sep": Slot("str", (",", ";", "-", ":", "|"), "sep", "sepchar"),
    "char": Slot("str", ("a", "e", "o", "s", "t", "n"), "letter", "char"),
    "prefix": Slot("str", ("a", "b", "c", "s", "t", "pe", "ba", "ma"), "prefix", "fragment"),
    "suffix": Slot("str", ("s", "e", "y", "ed", "a", "n"), "suffix", "fragment"),
    "sub": Slot("str", ("an", "a", "e", "at", "ap", "le", "o"), "part", "fragment"),
    "old": Slot("str", ("a", "e", " ", "-", "o")),
    "new": Slot("str", ("o", "_", "", "*", "4")),
    "chars": Slot("str", (".", "-", "x", "0", "ae")),
    "fill": Slot("str", ("*", "-", ".", "0")),
    "k": Slot("int", (2, 3, 4, 5), "limit", "limit"),
    "w": Slot("int", (6, 8, 10, 12), "width", "count"),
    "i": Slot("int", (1, 2, 3), "start", "count"),
    "m": Slot("int", (3, 5, 7, 10), "mod", "count"),
    "big": Slot("int", (10, 20, 50, 100), "cap", "limit"),
    "bsep": Slot("bytes", (b",", b" ", b"-")),
    "bchar": Slot("bytes", (b"a", b"e", b" ", b"o")),
    "bsub": Slot("bytes", (b"an", b"a", b"ba", b"at")),
    "bdel": Slot("bytes", (b"aeiou", b" ", b"-")),
}


@dataclass(frozen=True)
class Form:
    """One use of a catalog entry (see the module docs).

    Args:
        head (`str`): the catalog id the form is built around.
        on (`tuple[str, ...]`): grains of the subject ``{x}``.
        gives (`str`): grain of the result (``"bool"`` for a test, ``"none"`` for a statement).
        role (`str`): its role in a computation: ``pred`` (a test), ``measure`` (a number to add, compare or
            maximize), ``map`` (a value to collect), ``parts`` (a sequence to loop over), ``agg`` (a
            whole-collection result), ``pair`` (a value to unpack), ``action``.
        text (`str`): the template.
        guard (`str`): a precondition the input may break, as a template over the same slots ("" when none):
            ``{x}.index({char})`` needs ``{char} in {x}``, and the generator puts the use under that test.
        y (`str`): grain of a second subject ``{y}`` ("" when none).
    """

    head: str
    on: tuple[str, ...]
    gives: str
    role: str
    text: str
    guard: str = ""
    y: str = ""

    @cached_property
    def slots(self) -> tuple[str, ...]:
        return _slots(self.text, self.guard)

    def write(self, x: str, y: str = "", **slots) -> tuple[str, str]:
        """The use's text on the subject ``x`` (and ``y``) with its ``slots`` filled, and its guard ("" when none)."""
        return self.text.format(x=x, y=y, **slots), self.guard.format(x=x, y=y, **slots) if self.guard else ""

    def gives_on(self, grain: str) -> str:
        """The grain of what the form gives on a subject of ``grain`` (``gives`` resolved: ``"same"``,
        ``"listof"``, ``"elem"``... say it relative to the subject)."""
        g = self.gives
        if g == "same":
            return grain
        if g in _OF:
            table, default = _OF[g]
            return table.get(grain, default)
        if g == "elem":
            return element_grain(grain) or "num"
        return g


#: the grain of a collection of the items of a grain, by the ``gives`` that asks for one: (table, otherwise)
_OF = {
    "listof": ({"ids": "nums", "tags": "words", "fids": "nums", "ftags": "words", "tnums": "nums", "twords": "words"},
               "words"),
    "tupleof": ({"nums": "tnums", "words": "twords"}, "twords"),
    "setof": ({"nums": "ids", "words": "tags", "numstrs": "tags"}, "tags"),
    "fsetof": ({"nums": "fids", "words": "ftags"}, "ftags"),
}


@lru_cache(maxsize=None)
def _slots(text: str, guard: str) -> tuple[str, ...]:
    import string

    names = [f for _, f, _, _ in string.Formatter().parse(text + " " + guard) if f and f not in ("x", "y")]
    return tuple(dict.fromkeys(names))


# head ;; subject grains ;; gives ;; role ;; template [;; guard [;; grain of {y}]]
_TABLE = r"""
# ---- str: tests
str.isdigit ;; char word numstr digits ;; bool ;; pred ;; {x}.isdigit()
str.isalpha ;; char word numstr ;; bool ;; pred ;; {x}.isalpha()
str.isalnum ;; char word ;; bool ;; pred ;; {x}.isalnum()
str.isupper ;; char word text ;; bool ;; pred ;; {x}.isupper()
str.islower ;; char word text ;; bool ;; pred ;; {x}.islower()
str.isspace ;; char ;; bool ;; pred ;; {x}.isspace()
str.istitle ;; word text ;; bool ;; pred ;; {x}.istitle()
str.isdecimal ;; char word numstr ;; bool ;; pred ;; {x}.isdecimal()
str.isnumeric ;; char word numstr ;; bool ;; pred ;; {x}.isnumeric()
str.isidentifier ;; word ;; bool ;; pred ;; {x}.isidentifier()
str.isprintable ;; text word ;; bool ;; pred ;; {x}.isprintable()
str.isascii ;; text word ;; bool ;; pred ;; {x}.isascii()
str.startswith ;; word text line ;; bool ;; pred ;; {x}.startswith({prefix})
str.endswith ;; word text line ;; bool ;; pred ;; {x}.endswith({suffix})
op.in ;; word text line ;; bool ;; pred ;; {char} in {x}
op.in ;; char ;; bool ;; pred ;; {x} in 'aeiou'
op.in ;; char ;; bool ;; pred ;; {x} in {y} ;; ;; text
op.in ;; word ;; bool ;; pred ;; {x} in {y} ;; ;; tags
op.not_in ;; word ;; bool ;; pred ;; {x} not in {y} ;; ;; ftags
op.not_in ;; word text ;; bool ;; pred ;; {char} not in {x}
op.eq ;; word ;; bool ;; pred ;; {x} == {x}[::-1]
op.eq ;; char ;; bool ;; pred ;; {x} == {char}
op.ne ;; word ;; bool ;; pred ;; {x}[0] != {x}[-1] ;; {x}
op.gt ;; word ;; bool ;; pred ;; len({x}) > {k}
op.lt ;; word ;; bool ;; pred ;; len({x}) < {k}
op.not ;; word ;; bool ;; pred ;; not {x}
str.count ;; word text ;; bool ;; pred ;; {x}.count({char}) > 1
# ---- str: numbers
builtin.len ;; word text line digits numstr ;; count ;; measure ;; len({x})
str.count ;; word text line ;; count ;; measure ;; {x}.count({char})
str.count ;; text word ;; count ;; measure ;; {x}.count({y}) ;; ;; elem
str.find ;; word text line ;; index ;; measure ;; {x}.find({char})
str.rfind ;; word text line ;; index ;; measure ;; {x}.rfind({char})
str.index ;; word text line ;; index ;; measure ;; {x}.index({char}) ;; {char} in {x}
str.rindex ;; word text line ;; index ;; measure ;; {x}.rindex({char}) ;; {char} in {x}
builtin.ord ;; char ;; num ;; measure ;; ord({x})
builtin.int ;; char numstr digits ;; num ;; measure ;; int({x}) ;; {x}.isdigit()
builtin.float ;; numstr digits ;; amount ;; measure ;; float({x}) ;; {x}.isdigit()
str.split ;; text line ;; count ;; measure ;; len({x}.split())
str.split ;; line ;; count ;; measure ;; len({x}.split({sep}))
# ---- str: values
str.upper ;; char word text ;; same ;; map ;; {x}.upper()
str.lower ;; char word text ;; same ;; map ;; {x}.lower()
str.title ;; word text ;; same ;; map ;; {x}.title()
str.capitalize ;; word text ;; same ;; map ;; {x}.capitalize()
str.swapcase ;; word text ;; same ;; map ;; {x}.swapcase()
str.casefold ;; word text ;; same ;; map ;; {x}.casefold()
str.strip ;; word text line ;; same ;; map ;; {x}.strip()
str.strip ;; word line ;; same ;; map ;; {x}.strip({chars})
str.lstrip ;; word line ;; same ;; map ;; {x}.lstrip({chars})
str.rstrip ;; word line ;; same ;; map ;; {x}.rstrip({chars})
str.replace ;; word text line ;; same ;; map ;; {x}.replace({old}, {new})
str.removeprefix ;; word line ;; same ;; map ;; {x}.removeprefix({prefix})
str.removesuffix ;; word line ;; same ;; map ;; {x}.removesuffix({suffix})
str.zfill ;; word numstr digits ;; word ;; map ;; {x}.zfill({w})
str.center ;; word ;; word ;; map ;; {x}.center({w}, {fill})
str.ljust ;; word ;; word ;; map ;; {x}.ljust({w}, {fill})
str.rjust ;; word numstr ;; word ;; map ;; {x}.rjust({w}, {fill})
str.expandtabs ;; text ;; same ;; map ;; {x}.expandtabs(4)
str.translate ;; word text ;; same ;; map ;; {x}.translate({{ord('a'): '4', ord('e'): '3'}})
str.encode ;; word text ;; blob ;; map ;; {x}.encode()
str.format ;; word ;; word ;; map ;; '{{}}-{{}}'.format({x}, len({x}))
op.fstring ;; word ;; word ;; map ;; f'{{{x}}}:{{len({x})}}'
op.slice_reverse ;; word digits ;; word ;; map ;; {x}[::-1]
op.slice_to ;; word text line ;; word ;; map ;; {x}[:{k}]
op.slice_from ;; word text line ;; word ;; map ;; {x}[{i}:]
op.slice ;; word line ;; word ;; map ;; {x}[1:-1]
op.slice_step ;; word text ;; word ;; map ;; {x}[::2]
op.slice_from_step ;; word text ;; word ;; map ;; {x}[1::2]
op.slice_to_step ;; word text ;; word ;; map ;; {x}[:{w}:2]
op.slice_range_step ;; word text ;; word ;; map ;; {x}[{i}:{w}:2]
op.getitem ;; word line ;; char ;; map ;; {x}[0] ;; {x}
op.getitem ;; word line ;; char ;; map ;; {x}[-1] ;; {x}
op.repeat ;; char ;; word ;; map ;; {x} * 2
op.repeat ;; word ;; word ;; map ;; '-' * len({x})
op.add ;; word ;; word ;; map ;; {x} + {suffix}
str.join ;; word ;; word ;; map ;; {sep}.join({x})
# ---- str: parts
str.split ;; text ;; words ;; parts ;; {x}.split()
str.split ;; line ;; words ;; parts ;; {x}.split({sep})
str.rsplit ;; line ;; words ;; parts ;; {x}.rsplit({sep}, 1)
str.split ;; line ;; words ;; parts ;; {x}.split({sep}, 1)
str.splitlines ;; text ;; words ;; parts ;; {x}.splitlines()
builtin.list ;; word ;; words ;; parts ;; list({x})
builtin.sorted ;; word ;; words ;; parts ;; sorted({x})
builtin.reversed ;; word ;; words ;; parts ;; reversed({x})
builtin.enumerate ;; word text ;; pairs ;; parts ;; enumerate({x})
str.partition ;; line word ;; triple ;; pair ;; {x}.partition({sep})
str.rpartition ;; line word ;; triple ;; pair ;; {x}.rpartition({sep})
# ---- numbers: tests
op.mod ;; num count number ;; bool ;; pred ;; {x} % 2 == 0
op.mod ;; num count number ;; bool ;; pred ;; {x} % {m} == 0
op.gt ;; num count ;; bool ;; pred ;; {x} > {k}
op.gt ;; amount ;; bool ;; pred ;; {x} > 1.0
op.lt ;; num ;; bool ;; pred ;; {x} < 0
op.ge ;; num count ;; bool ;; pred ;; {x} >= {k}
op.le ;; num count ;; bool ;; pred ;; {x} <= {k}
op.le ;; word ;; bool ;; pred ;; len({x}) <= {k}
op.bitand ;; num count number ;; bool ;; pred ;; {x} & 1
int.bit_count ;; count number ;; bool ;; pred ;; {x}.bit_count() == 1
op.in ;; num ;; bool ;; pred ;; {x} in {y} ;; ;; ids
op.not_in ;; num ;; bool ;; pred ;; {x} not in {y} ;; ;; ids
# ---- numbers: values
builtin.abs ;; num ;; count ;; measure ;; abs({x})
op.mul ;; num count ;; num ;; measure ;; {x} * {x}
op.pow ;; num count ;; num ;; measure ;; {x} ** 2
builtin.pow ;; num count ;; num ;; measure ;; pow({x}, 2)
builtin.pow ;; num count number ;; num ;; measure ;; pow({x}, 3, {m})
op.mod ;; num count number ;; count ;; measure ;; {x} % {m}
op.floordiv ;; num count number ;; num ;; measure ;; {x} // 2
op.lshift ;; count ;; num ;; measure ;; {x} << 1
op.rshift ;; count number ;; num ;; measure ;; {x} >> 1
op.bitor ;; num count ;; num ;; measure ;; {x} | 1
op.bitxor ;; num count ;; num ;; measure ;; {x} ^ {k}
op.neg ;; num ;; num ;; measure ;; -{x}
op.sub ;; num count ;; num ;; measure ;; {x} - {k}
op.add ;; num count ;; num ;; measure ;; {x} + {k}
op.truediv ;; num count ;; amount ;; measure ;; {x} / 2
int.bit_length ;; num count number ;; count ;; measure ;; {x}.bit_length()
int.bit_count ;; num count number ;; count ;; measure ;; {x}.bit_count()
builtin.round ;; num number ;; num ;; measure ;; round({x}, -1)
builtin.min ;; num ;; num ;; measure ;; min({x}, {k})
builtin.max ;; num ;; num ;; measure ;; max({x}, 0)
builtin.divmod ;; number count ;; pairnum ;; pair ;; divmod({x}, {m})
builtin.str ;; num count number ;; numstr ;; map ;; str({x})
builtin.bin ;; count number ;; word ;; map ;; bin({x})
builtin.bin ;; count number ;; word ;; map ;; bin({x})[2:]
builtin.hex ;; count number ;; word ;; map ;; hex({x})
builtin.oct ;; count number ;; word ;; map ;; oct({x})
builtin.chr ;; count ;; char ;; map ;; chr(ord('a') + {x} % 26)
builtin.chr ;; byte ;; char ;; map ;; chr({x})
op.fstring ;; num count ;; word ;; map ;; f'#{{{x}}}'
int.to_bytes ;; count ;; blob ;; map ;; {x}.to_bytes(2, 'big')
# ---- floats
builtin.round ;; amount ;; amount ;; measure ;; round({x}, 1)
builtin.int ;; amount ;; num ;; measure ;; int({x})
float.is_integer ;; amount ;; bool ;; pred ;; {x}.is_integer()
float.as_integer_ratio ;; amount ;; pairnum ;; pair ;; {x}.as_integer_ratio()
float.hex ;; amount ;; word ;; map ;; {x}.hex()
builtin.abs ;; amount ;; amount ;; measure ;; abs({x})
# ---- bytes
bytes.split ;; blob ;; blobs ;; parts ;; {x}.split({bsep})
bytes.rsplit ;; blob ;; blobs ;; parts ;; {x}.rsplit({bsep}, 1)
bytes.splitlines ;; blob ;; blobs ;; parts ;; {x}.splitlines()
bytes.decode ;; blob ;; text ;; map ;; {x}.decode()
bytes.decode ;; blob ;; text ;; map ;; {x}.decode('ascii')
bytes.hex ;; blob ;; word ;; map ;; {x}.hex()
bytes.hex ;; blob ;; word ;; map ;; {x}.hex('-')
bytes.count ;; blob ;; count ;; measure ;; {x}.count({bchar})
bytes.find ;; blob ;; index ;; measure ;; {x}.find({bchar})
bytes.rfind ;; blob ;; index ;; measure ;; {x}.rfind({bchar})
bytes.index ;; blob ;; index ;; measure ;; {x}.index({bchar}) ;; {bchar} in {x}
bytes.rindex ;; blob ;; index ;; measure ;; {x}.rindex({bchar}) ;; {bchar} in {x}
bytes.startswith ;; blob ;; bool ;; pred ;; {x}.startswith({bsub})
bytes.endswith ;; blob ;; bool ;; pred ;; {x}.endswith({bchar})
bytes.isdigit ;; blob ;; bool ;; pred ;; {x}.isdigit()
bytes.isalpha ;; blob ;; bool ;; pred ;; {x}.isalpha()
bytes.isalnum ;; blob ;; bool ;; pred ;; {x}.isalnum()
bytes.isupper ;; blob ;; bool ;; pred ;; {x}.isupper()
bytes.islower ;; blob ;; bool ;; pred ;; {x}.islower()
bytes.isspace ;; blob ;; bool ;; pred ;; {x}.isspace()
bytes.istitle ;; blob ;; bool ;; pred ;; {x}.istitle()
bytes.isascii ;; blob ;; bool ;; pred ;; {x}.isascii()
bytes.upper ;; blob ;; blob ;; map ;; {x}.upper()
bytes.lower ;; blob ;; blob ;; map ;; {x}.lower()
bytes.title ;; blob ;; blob ;; map ;; {x}.title()
bytes.capitalize ;; blob ;; blob ;; map ;; {x}.capitalize()
bytes.swapcase ;; blob ;; blob ;; map ;; {x}.swapcase()
bytes.strip ;; blob ;; blob ;; map ;; {x}.strip()
bytes.lstrip ;; blob ;; blob ;; map ;; {x}.lstrip({bchar})
bytes.rstrip ;; blob ;; blob ;; map ;; {x}.rstrip({bchar})
bytes.replace ;; blob ;; blob ;; map ;; {x}.replace({bchar}, b'_')
bytes.removeprefix ;; blob ;; blob ;; map ;; {x}.removeprefix({bsub})
bytes.removesuffix ;; blob ;; blob ;; map ;; {x}.removesuffix({bchar})
bytes.zfill ;; blob ;; blob ;; map ;; {x}.zfill({w})
bytes.center ;; blob ;; blob ;; map ;; {x}.center({w}, b'*')
bytes.ljust ;; blob ;; blob ;; map ;; {x}.ljust({w}, b'.')
bytes.rjust ;; blob ;; blob ;; map ;; {x}.rjust({w}, b'.')
bytes.expandtabs ;; blob ;; blob ;; map ;; {x}.expandtabs(2)
bytes.translate ;; blob ;; blob ;; map ;; {x}.translate(None, {bdel})
bytes.join ;; blobs ;; blob ;; agg ;; b'-'.join({x})
bytes.partition ;; blob ;; btriple ;; pair ;; {x}.partition({bsep})
bytes.rpartition ;; blob ;; btriple ;; pair ;; {x}.rpartition({bsep})
builtin.bytes ;; blob ;; blob ;; map ;; bytes(reversed({x}))
builtin.bytes ;; text word ;; blob ;; map ;; bytes({x}, 'utf-8')
builtin.sum ;; blob ;; count ;; measure ;; sum({x})
builtin.max ;; blob ;; byte ;; measure ;; max({x}) ;; {x}
# ---- lists, tuples, sets: whole-collection values
builtin.len ;; nums words numstrs ids tags fids ftags table names tnums twords blob amounts ;; count ;; measure ;; len({x})
builtin.sum ;; nums tnums ids fids ;; num ;; measure ;; sum({x})
builtin.sum ;; amounts ;; amount ;; measure ;; sum({x})
builtin.max ;; nums tnums ids fids ;; num ;; measure ;; max({x}) ;; {x}
builtin.min ;; nums tnums ids fids ;; num ;; measure ;; min({x}) ;; {x}
builtin.max ;; amounts ;; amount ;; measure ;; max({x}) ;; {x}
builtin.sorted ;; amounts ;; same ;; agg ;; sorted({x})
builtin.max ;; words twords ;; word ;; agg ;; max({x}, key=len) ;; {x}
builtin.min ;; words twords ;; word ;; agg ;; min({x}, key=len) ;; {x}
builtin.sorted ;; nums words tnums twords numstrs ;; same ;; agg ;; sorted({x})
builtin.sorted ;; nums tnums ;; same ;; agg ;; sorted({x}, reverse=True)
builtin.sorted ;; words twords ;; same ;; agg ;; sorted({x}, key=len)
builtin.sorted ;; ids tags fids ftags ;; listof ;; agg ;; sorted({x})
builtin.sorted ;; table ;; words ;; agg ;; sorted({x})
builtin.sorted ;; table ;; words ;; agg ;; sorted({x}, key={x}.get)
builtin.max ;; table ;; word ;; agg ;; max({x}, key={x}.get) ;; {x}
builtin.list ;; tnums twords ;; listof ;; agg ;; list({x})
builtin.tuple ;; nums words ;; tupleof ;; agg ;; tuple({x})
builtin.set ;; nums words numstrs ;; setof ;; agg ;; set({x})
builtin.frozenset ;; nums words ;; fsetof ;; agg ;; frozenset({x})
builtin.reversed ;; nums words tnums twords ;; same ;; agg ;; list(reversed({x}))
op.slice_reverse ;; nums words tnums twords ;; same ;; agg ;; {x}[::-1]
op.slice_to ;; nums words tnums twords ;; same ;; agg ;; {x}[:{k}]
op.slice_from ;; nums words tnums ;; same ;; agg ;; {x}[{i}:]
op.slice_copy ;; nums words ;; same ;; agg ;; {x}[:]
op.slice_step ;; nums words tnums ;; same ;; agg ;; {x}[::2]
op.getitem ;; nums words tnums twords ;; elem ;; measure ;; {x}[0] ;; {x}
op.getitem ;; nums tnums ;; elem ;; measure ;; {x}[len({x}) // 2] ;; {x}
list.copy ;; nums words ;; same ;; agg ;; {x}.copy()
list.count ;; nums words ;; count ;; measure ;; {x}.count({y}) ;; ;; elem
list.count ;; nums ;; count ;; measure ;; {x}.count(0)
tuple.count ;; tnums twords ;; count ;; measure ;; {x}.count({y}) ;; ;; elem
tuple.count ;; tnums ;; count ;; measure ;; {x}.count(1)
list.index ;; nums ;; index ;; measure ;; {x}.index(max({x})) ;; {x}
list.index ;; nums words ;; index ;; measure ;; {x}.index({y}) ;; ;; elem
tuple.index ;; tnums ;; index ;; measure ;; {x}.index(min({x})) ;; {x}
tuple.index ;; tnums twords ;; index ;; measure ;; {x}.index({y}) ;; ;; elem
builtin.any ;; nums ;; bool ;; pred ;; any({x})
builtin.all ;; words ;; bool ;; pred ;; all({x})
builtin.any ;; words ;; bool ;; pred ;; any(w.isupper() for w in {x})
builtin.all ;; nums ;; bool ;; pred ;; all(n > 0 for n in {x})
builtin.map ;; numstrs ;; nums ;; agg ;; list(map(int, filter(str.isdigit, {x})))
builtin.map ;; nums ;; words ;; agg ;; list(map(str, {x}))
builtin.map ;; words ;; nums ;; agg ;; list(map(len, {x}))
builtin.filter ;; words nums ;; same ;; agg ;; list(filter(None, {x}))
builtin.enumerate ;; nums words ;; pairs ;; parts ;; enumerate({x})
builtin.enumerate ;; nums words ;; pairs ;; parts ;; enumerate({x}, 1)
builtin.zip ;; nums words ;; pairs ;; parts ;; zip({x}, {x}[1:])
builtin.zip ;; words ;; pairs ;; parts ;; zip({x}, {y}) ;; ;; nums
builtin.dict ;; words ;; table ;; agg ;; dict(zip({x}, {y})) ;; ;; nums
builtin.range ;; nums words ;; nums ;; parts ;; range(len({x}))
builtin.range ;; count ;; nums ;; parts ;; range({x})
builtin.range ;; count ;; nums ;; parts ;; range(1, {x} + 1)
builtin.range ;; nums ;; nums ;; parts ;; range(0, len({x}), 2)
builtin.iter ;; words nums ;; pairs ;; parts ;; zip(*[iter({x})] * 2)
builtin.next ;; words ;; word ;; agg ;; next((w for w in {x} if w.startswith({prefix})), '')
builtin.next ;; nums ;; num ;; agg ;; next((n for n in {x} if n > {k}), -1)
op.unpack_list ;; nums words ;; same ;; agg ;; [*{x}, *{y}] ;; ;; same
op.unpack_tuple ;; tnums twords ;; same ;; agg ;; (*{x}, *{y}) ;; ;; same
op.in ;; words numstrs ;; bool ;; pred ;; {y} in {x} ;; ;; key
op.in ;; nums tnums ;; bool ;; pred ;; {k} in {x}
op.not_in ;; nums ;; bool ;; pred ;; 0 not in {x}
op.add ;; nums words tnums twords ;; same ;; agg ;; {x} + {y} ;; ;; same
op.repeat ;; nums words ;; same ;; agg ;; {x}[:{k}] * 2
# ---- sets and frozensets
set.union ;; ids tags ;; same ;; agg ;; {x}.union({y}) ;; ;; same
set.intersection ;; ids tags ;; same ;; agg ;; {x}.intersection({y}) ;; ;; same
set.difference ;; ids tags ;; same ;; agg ;; {x}.difference({y}) ;; ;; same
set.symmetric_difference ;; ids tags ;; same ;; agg ;; {x}.symmetric_difference({y}) ;; ;; same
set.issubset ;; ids tags ;; bool ;; pred ;; {x}.issubset({y}) ;; ;; same
set.issuperset ;; ids tags ;; bool ;; pred ;; {x}.issuperset({y}) ;; ;; same
set.isdisjoint ;; ids tags ;; bool ;; pred ;; {x}.isdisjoint({y}) ;; ;; same
set.copy ;; ids tags ;; same ;; agg ;; {x}.copy()
frozenset.union ;; fids ftags ;; same ;; agg ;; {x}.union({y}) ;; ;; same
frozenset.intersection ;; fids ftags ;; same ;; agg ;; {x}.intersection({y}) ;; ;; same
frozenset.difference ;; fids ftags ;; same ;; agg ;; {x}.difference({y}) ;; ;; same
frozenset.symmetric_difference ;; fids ftags ;; same ;; agg ;; {x}.symmetric_difference({y}) ;; ;; same
frozenset.issubset ;; fids ftags ;; bool ;; pred ;; {x}.issubset({y}) ;; ;; same
frozenset.issuperset ;; fids ftags ;; bool ;; pred ;; {x}.issuperset({y}) ;; ;; same
frozenset.isdisjoint ;; fids ftags ;; bool ;; pred ;; {x}.isdisjoint({y}) ;; ;; same
frozenset.copy ;; fids ftags ;; same ;; agg ;; {x}.copy()
op.bitor ;; ids tags fids ftags ;; same ;; agg ;; {x} | {y} ;; ;; same
op.bitand ;; ids tags fids ftags ;; same ;; agg ;; {x} & {y} ;; ;; same
op.sub ;; ids tags fids ftags ;; same ;; agg ;; {x} - {y} ;; ;; same
op.bitxor ;; ids tags fids ftags ;; same ;; agg ;; {x} ^ {y} ;; ;; same
op.le ;; ids tags ;; bool ;; pred ;; {x} <= {y} ;; ;; same
op.unpack_set ;; ids tags ;; same ;; agg ;; {{*{x}, *{y}}} ;; ;; same
op.in ;; ids tags fids ftags ;; bool ;; pred ;; {y} in {x} ;; ;; elemof
# ---- dicts
dict.get ;; table ;; num ;; measure ;; {x}.get({y}, 0) ;; ;; key
dict.get ;; names ;; word ;; map ;; {x}.get({y}, '?') ;; ;; num
dict.keys ;; table names ;; keys ;; parts ;; {x}.keys()
dict.keys ;; table names ;; words ;; agg ;; sorted({x}.keys() & {y}) ;; ;; tags
dict.keys ;; table names ;; words ;; agg ;; sorted({x}.keys() - {y}) ;; ;; tags
dict.values ;; table ;; nums ;; parts ;; {x}.values()
dict.values ;; names ;; words ;; parts ;; {x}.values()
dict.items ;; table names ;; items ;; parts ;; {x}.items()
dict.copy ;; table names ;; same ;; agg ;; {x}.copy()
builtin.sum ;; table ;; num ;; measure ;; sum({x}.values())
builtin.max ;; table ;; num ;; measure ;; max({x}.values()) ;; {x}
builtin.dict ;; table names ;; same ;; agg ;; dict(sorted({x}.items()))
op.unpack_dict ;; table ;; same ;; agg ;; {{**{x}, **{y}}} ;; ;; same
op.in ;; table ;; bool ;; pred ;; {y} in {x} ;; ;; key
op.in ;; names ;; bool ;; pred ;; {y} in {x} ;; ;; num
op.getitem ;; table ;; num ;; measure ;; {x}[{y}] ;; {y} in {x} ;; key
op.bitor ;; table ;; same ;; agg ;; {x} | {y} ;; ;; same
"""


@lru_cache(maxsize=None)
def _all() -> tuple[Form, ...]:
    out = []
    for raw in _TABLE.strip().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(";;")]
        head, on, gives, role, text, *rest = parts
        guard = rest[0] if rest else ""
        y = rest[1] if len(rest) > 1 else ""
        out.append(Form(head, tuple(on.split()), gives, role, text, guard, y))
    return tuple(out)


@lru_cache(maxsize=None)
def forms(*, head: str | None = None, on: str | None = None, role: str | None = None) -> tuple[Form, ...]:
    """The forms built around ``head``, applying to subjects of grain ``on``, in role ``role``."""
    return tuple(f for f in _all() if (head is None or f.head == head) and (on is None or on in f.on)
                 and (role is None or f.role == role))
