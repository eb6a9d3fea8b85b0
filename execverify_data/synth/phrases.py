"""Plain-English phrases for the vocabulary's forms, to write what a generated function is for.

A purpose-first generator describes each function it writes ("Return the number of words in `words`
that start with `prefix`.") by composing one phrase per :class:`~execverify_data.synth.vocab.Form` it
uses. :data:`PHRASES` holds that phrase for every distinct ``(form.head, form.text)`` of
:func:`~execverify_data.synth.vocab.forms`, as a :class:`Phrase` with a plural and a singular wording;
``None`` marks a use that no person would state as a purpose (there is none at present).

The phrases are templates over the form's own placeholders: ``{x}`` and ``{y}`` (its subjects) and its
literal slots (``{prefix}``, ``{k}``...), into which the generator puts code spans (`` `prefix` ``,
``'a'``). By role:

* ``pred``: a verb phrase said of the subject, which is not named in it: it follows "the words that"
  (plural, "start with {prefix}") or "the word" (singular, "starts with {prefix}").
* ``measure``, ``map``, ``agg``, ``pair``: a noun phrase naming ``{x}``, the same in both wordings
  ("the length of {x}").
* ``parts``: a plural noun phrase for the sequence a loop walks ("the words of {x}").

Positions count from 0, as Python's do. Where one template serves subjects of different grains (``{x}[0]``
of a word and of a list), :data:`PHRASES` holds a wording true of them all and :data:`ON_GRAIN` a better
one for some grains ("the first character of {x}"); :func:`phrase_of` prefers the latter.

>>> from execverify_data.synth.vocab import forms
>>> phrase_of(forms(head="str.startswith")[0])
Phrase(plural='start with {prefix}', singular='starts with {prefix}')
>>> phrase_of(forms(head="op.getitem", on="word")[0]).singular.format(x="`word`")
'the first character of `word`'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from execverify_data.synth.vocab import Form

__all__ = ["ON_GRAIN", "PHRASES", "Phrase", "phrase_of"]


@dataclass(frozen=True)
class Phrase:
    """What a form does, in words: ``plural`` and ``singular`` differ only for a ``pred``'s verb
    ("start with {prefix}" / "starts with {prefix}"); a noun phrase is the same in both."""

    plural: str
    singular: str


def _pred(plural: str, singular: str) -> Phrase:
    return Phrase(plural, singular)


def _noun(text: str) -> Phrase:
    return Phrase(text, text)


#: (form.head, form.text) -> its phrase (None: no use a person would state as a purpose)
PHRASES: dict[tuple[str, str], Phrase | None] = {
    # ---- str: tests
    ("str.isdigit", "{x}.isdigit()"): _pred("consist of one or more digits", "consists of one or more digits"),
    ("str.isalpha", "{x}.isalpha()"): _pred("consist of one or more letters", "consists of one or more letters"),
    ("str.isalnum", "{x}.isalnum()"): _pred("consist of one or more letters or digits",
                                            "consists of one or more letters or digits"),
    ("str.isupper", "{x}.isupper()"): _pred("have at least one letter and no lower-case letters",
                                            "has at least one letter and no lower-case letters"),
    ("str.islower", "{x}.islower()"): _pred("have at least one letter and no upper-case letters",
                                            "has at least one letter and no upper-case letters"),
    ("str.isspace", "{x}.isspace()"): _pred("are whitespace", "is whitespace"),
    ("str.istitle", "{x}.istitle()"): _pred("are in title case", "is in title case"),
    ("str.isdecimal", "{x}.isdecimal()"): _pred("consist of one or more decimal digits",
                                                "consists of one or more decimal digits"),
    ("str.isnumeric", "{x}.isnumeric()"): _pred("consist of one or more numeric characters",
                                                "consists of one or more numeric characters"),
    ("str.isidentifier", "{x}.isidentifier()"): _pred("are valid Python identifiers", "is a valid Python identifier"),
    ("str.isprintable", "{x}.isprintable()"): _pred("have no non-printable characters",
                                                    "has no non-printable characters"),
    ("str.isascii", "{x}.isascii()"): _pred("contain only ASCII characters", "contains only ASCII characters"),
    ("str.startswith", "{x}.startswith({prefix})"): _pred("start with {prefix}", "starts with {prefix}"),
    ("str.endswith", "{x}.endswith({suffix})"): _pred("end with {suffix}", "ends with {suffix}"),
    ("op.in", "{char} in {x}"): _pred("contain {char}", "contains {char}"),
    ("op.in", "{x} in 'aeiou'"): _pred("are lower-case vowels", "is a lower-case vowel"),
    ("op.in", "{x} in {y}"): _pred("are in {y}", "is in {y}"),
    ("op.not_in", "{x} not in {y}"): _pred("are not in {y}", "is not in {y}"),
    ("op.not_in", "{char} not in {x}"): _pred("do not contain {char}", "does not contain {char}"),
    ("op.eq", "{x} == {x}[::-1]"): _pred("read the same backwards", "reads the same backwards"),
    ("op.eq", "{x} == {char}"): _pred("are {char}", "is {char}"),
    ("op.ne", "{x}[0] != {x}[-1]"): _pred("start and end with different characters",
                                          "starts and ends with different characters"),
    ("op.gt", "len({x}) > {k}"): _pred("are longer than {k} characters", "is longer than {k} characters"),
    ("op.lt", "len({x}) < {k}"): _pred("are shorter than {k} characters", "is shorter than {k} characters"),
    ("op.not", "not {x}"): _pred("are empty", "is empty"),
    ("str.count", "{x}.count({char}) > 1"): _pred("contain {char} more than once", "contains {char} more than once"),
    # ---- str: numbers
    ("builtin.len", "len({x})"): _noun("the length of {x}"),
    ("str.count", "{x}.count({char})"): _noun("the number of times {char} occurs in {x}"),
    ("str.count", "{x}.count({y})"): _noun("the number of times {y} occurs in {x}"),
    ("str.find", "{x}.find({char})"): _noun("the position of the first {char} in {x} (-1 if there is none)"),
    ("str.rfind", "{x}.rfind({char})"): _noun("the position of the last {char} in {x} (-1 if there is none)"),
    ("str.index", "{x}.index({char})"): _noun("the position of the first {char} in {x}"),
    ("str.rindex", "{x}.rindex({char})"): _noun("the position of the last {char} in {x}"),
    ("builtin.ord", "ord({x})"): _noun("the Unicode code point of {x}"),
    ("builtin.int", "int({x})"): _noun("{x} as an integer"),
    ("builtin.float", "float({x})"): _noun("{x} as a float"),
    ("str.split", "len({x}.split())"): _noun("the number of words in {x}"),
    ("str.split", "len({x}.split({sep}))"): _noun("the number of fields of {x} separated by {sep}"),
    # ---- str: values
    ("str.upper", "{x}.upper()"): _noun("{x} in upper case"),
    ("str.lower", "{x}.lower()"): _noun("{x} in lower case"),
    ("str.title", "{x}.title()"): _noun("{x} in title case"),
    ("str.capitalize", "{x}.capitalize()"):
        _noun("{x} with its first character in upper case and the rest in lower case"),
    ("str.swapcase", "{x}.swapcase()"): _noun("{x} with upper and lower case swapped"),
    ("str.casefold", "{x}.casefold()"): _noun("{x} case-folded (lower-cased for caseless matching)"),
    ("str.strip", "{x}.strip()"): _noun("{x} without surrounding whitespace"),
    ("str.strip", "{x}.strip({chars})"): _noun("{x} without the characters of {chars} at either end"),
    ("str.lstrip", "{x}.lstrip({chars})"): _noun("{x} without the characters of {chars} at the start"),
    ("str.rstrip", "{x}.rstrip({chars})"): _noun("{x} without the characters of {chars} at the end"),
    ("str.replace", "{x}.replace({old}, {new})"): _noun("{x} with every {old} replaced by {new}"),
    ("str.removeprefix", "{x}.removeprefix({prefix})"): _noun("{x} with the prefix {prefix} removed, if present"),
    ("str.removesuffix", "{x}.removesuffix({suffix})"): _noun("{x} with the suffix {suffix} removed, if present"),
    ("str.zfill", "{x}.zfill({w})"): _noun("{x} padded with zeros on the left to {w} characters, after any sign"),
    ("str.center", "{x}.center({w}, {fill})"): _noun("{x} padded with {fill} on both sides to {w} characters"),
    ("str.ljust", "{x}.ljust({w}, {fill})"): _noun("{x} padded with {fill} on the right to {w} characters"),
    ("str.rjust", "{x}.rjust({w}, {fill})"): _noun("{x} padded with {fill} on the left to {w} characters"),
    ("str.expandtabs", "{x}.expandtabs(4)"): _noun("{x} with tabs expanded to tab stops every 4 columns"),
    ("str.translate", "{x}.translate({{ord('a'): '4', ord('e'): '3'}})"):
        _noun("{x} with every 'a' replaced by '4' and every 'e' by '3'"),
    ("str.encode", "{x}.encode()"): _noun("{x} encoded as UTF-8"),
    ("str.format", "'{{}}-{{}}'.format({x}, len({x}))"): _noun("{x} followed by a dash and its length"),
    ("op.fstring", "f'{{{x}}}:{{len({x})}}'"): _noun("{x} followed by a colon and its length"),
    ("op.slice_reverse", "{x}[::-1]"): _noun("{x} reversed"),
    ("op.slice_to", "{x}[:{k}]"): _noun("the first {k} items of {x}"),
    ("op.slice_from", "{x}[{i}:]"): _noun("{x} without its first {i} items"),
    ("op.slice", "{x}[1:-1]"): _noun("{x} without its first and last characters"),
    ("op.slice_step", "{x}[::2]"): _noun("every other item of {x}, starting with the first"),
    ("op.slice_from_step", "{x}[1::2]"): _noun("every other character of {x}, starting with the second"),
    ("op.slice_to_step", "{x}[:{w}:2]"):
        _noun("every other one of the first {w} characters of {x}, starting with the first"),
    ("op.slice_range_step", "{x}[{i}:{w}:2]"):
        _noun("every other character of {x} from position {i} up to, not including, position {w}"),
    ("op.getitem", "{x}[0]"): _noun("the first item of {x}"),
    ("op.getitem", "{x}[-1]"): _noun("the last character of {x}"),
    ("op.repeat", "{x} * 2"): _noun("{x} twice in a row"),
    ("op.repeat", "'-' * len({x})"): _noun("a row of dashes as long as {x}"),
    ("op.add", "{x} + {suffix}"): _noun("{x} followed by {suffix}"),
    ("str.join", "{sep}.join({x})"): _noun("the characters of {x} joined by {sep}"),
    # ---- str: parts
    ("str.split", "{x}.split()"): _noun("the words of {x}"),
    ("str.split", "{x}.split({sep})"): _noun("the fields of {x} separated by {sep}"),
    ("str.rsplit", "{x}.rsplit({sep}, 1)"): _noun("the parts of {x} split at its last {sep} only"),
    ("str.split", "{x}.split({sep}, 1)"): _noun("the parts of {x} split at its first {sep} only"),
    ("str.splitlines", "{x}.splitlines()"): _noun("the lines of {x}"),
    ("builtin.list", "list({x})"): _noun("{x} as a list"),
    ("builtin.sorted", "sorted({x})"): _noun("{x} in sorted order"),
    ("builtin.reversed", "reversed({x})"): _noun("the characters of {x} in reverse order"),
    ("builtin.enumerate", "enumerate({x})"): _noun("the positions and items of {x}"),
    ("str.partition", "{x}.partition({sep})"):
        _noun("the part of {x} before its first {sep}, the separator and the part after (all of {x} before if "
              "there is none)"),
    ("str.rpartition", "{x}.rpartition({sep})"):
        _noun("the part of {x} before its last {sep}, the separator and the part after (all of {x} after if "
              "there is none)"),
    # ---- numbers: tests
    ("op.mod", "{x} % 2 == 0"): _pred("are even", "is even"),
    ("op.mod", "{x} % {m} == 0"): _pred("are divisible by {m}", "is divisible by {m}"),
    ("op.gt", "{x} > {k}"): _pred("are greater than {k}", "is greater than {k}"),
    ("op.gt", "{x} > 1.0"): _pred("are greater than 1.0", "is greater than 1.0"),
    ("op.lt", "{x} < 0"): _pred("are negative", "is negative"),
    ("op.ge", "{x} >= {k}"): _pred("are at least {k}", "is at least {k}"),
    ("op.le", "{x} <= {k}"): _pred("are at most {k}", "is at most {k}"),
    ("op.le", "len({x}) <= {k}"): _pred("are at most {k} characters long", "is at most {k} characters long"),
    ("op.bitand", "{x} & 1"): _pred("are odd", "is odd"),
    ("int.bit_count", "{x}.bit_count() == 1"): _pred("are powers of two", "is a power of two"),
    # ---- numbers: values
    ("builtin.abs", "abs({x})"): _noun("the absolute value of {x}"),
    ("op.mul", "{x} * {x}"): _noun("{x} squared"),
    ("op.pow", "{x} ** 2"): _noun("{x} squared"),
    ("builtin.pow", "pow({x}, 2)"): _noun("{x} squared"),
    ("builtin.pow", "pow({x}, 3, {m})"): _noun("the remainder of {x} cubed divided by {m} (never negative for a "
                                               "positive {m})"),
    ("op.mod", "{x} % {m}"): _noun("the remainder of {x} divided by {m} (never negative for a positive {m})"),
    ("op.floordiv", "{x} // 2"): _noun("{x} halved, rounded down"),
    ("op.lshift", "{x} << 1"): _noun("{x} doubled"),
    ("op.rshift", "{x} >> 1"): _noun("{x} halved, rounded down"),
    ("op.bitor", "{x} | 1"): _noun("{x} rounded up to the nearest odd number"),
    ("op.bitxor", "{x} ^ {k}"): _noun("the bitwise XOR of {x} and {k}"),
    ("op.neg", "-{x}"): _noun("{x} negated"),
    ("op.sub", "{x} - {k}"): _noun("{x} minus {k}"),
    ("op.add", "{x} + {k}"): _noun("{x} plus {k}"),
    ("op.truediv", "{x} / 2"): _noun("half of {x}, as a float"),
    ("int.bit_length", "{x}.bit_length()"): _noun("the number of binary digits of {x}, ignoring any sign (0 for 0)"),
    ("int.bit_count", "{x}.bit_count()"): _noun("the number of 1 bits in {x} written in binary, ignoring any sign"),
    ("builtin.round", "round({x}, -1)"): _noun("{x} rounded to the nearest ten (a tie goes to an even number of tens)"),
    ("builtin.min", "min({x}, {k})"): _noun("the smaller of {x} and {k}"),
    ("builtin.max", "max({x}, 0)"): _noun("{x}, or 0 if it is negative"),
    ("builtin.divmod", "divmod({x}, {m})"): _noun("the quotient and remainder of {x} divided by {m}"),
    ("builtin.str", "str({x})"): _noun("{x} as a string"),
    ("builtin.bin", "bin({x})"): _noun("{x} in binary, with a 0b prefix"),
    ("builtin.bin", "bin({x})[2:]"): _noun("{x} in binary"),
    ("builtin.hex", "hex({x})"): _noun("{x} in lower-case hexadecimal, with a 0x prefix"),
    ("builtin.oct", "oct({x})"): _noun("{x} in octal, with a 0o prefix"),
    ("builtin.chr", "chr(ord('a') + {x} % 26)"):
        _noun("the lower-case letter {x} places after 'a', wrapping around after 'z'"),
    ("builtin.chr", "chr({x})"): _noun("the character with code point {x}"),
    ("op.fstring", "f'#{{{x}}}'"): _noun("{x} with a '#' in front"),
    ("int.to_bytes", "{x}.to_bytes(2, 'big')"): _noun("{x} as two bytes, most significant first (for {x} from 0 to "
                                                      "65535)"),
    # ---- floats
    ("builtin.round", "round({x}, 1)"): _noun("{x} rounded to one decimal place"),
    ("float.is_integer", "{x}.is_integer()"): _pred("are whole numbers", "is a whole number"),
    ("float.as_integer_ratio", "{x}.as_integer_ratio()"):
        _noun("the numerator and denominator of {x} as a fraction in lowest terms"),
    ("float.hex", "{x}.hex()"): _noun("{x} in hexadecimal floating-point notation"),
    # ---- bytes
    ("bytes.split", "{x}.split({bsep})"): _noun("the fields of {x} separated by {bsep}"),
    ("bytes.rsplit", "{x}.rsplit({bsep}, 1)"): _noun("the parts of {x} split at its last {bsep} only"),
    ("bytes.splitlines", "{x}.splitlines()"): _noun("the lines of {x}"),
    ("bytes.decode", "{x}.decode()"): _noun("{x} decoded as UTF-8"),
    ("bytes.decode", "{x}.decode('ascii')"): _noun("{x} decoded as ASCII"),
    ("bytes.hex", "{x}.hex()"): _noun("{x} in hexadecimal, two digits per byte"),
    ("bytes.hex", "{x}.hex('-')"): _noun("{x} in hexadecimal, two digits per byte, with a dash between bytes"),
    ("bytes.count", "{x}.count({bchar})"): _noun("the number of times {bchar} occurs in {x}"),
    ("bytes.find", "{x}.find({bchar})"): _noun("the position of the first {bchar} in {x} (-1 if there is none)"),
    ("bytes.rfind", "{x}.rfind({bchar})"): _noun("the position of the last {bchar} in {x} (-1 if there is none)"),
    ("bytes.index", "{x}.index({bchar})"): _noun("the position of the first {bchar} in {x}"),
    ("bytes.rindex", "{x}.rindex({bchar})"): _noun("the position of the last {bchar} in {x}"),
    ("bytes.startswith", "{x}.startswith({bsub})"): _pred("start with {bsub}", "starts with {bsub}"),
    ("bytes.endswith", "{x}.endswith({bchar})"): _pred("end with {bchar}", "ends with {bchar}"),
    ("bytes.isdigit", "{x}.isdigit()"):
        _pred("consist of one or more ASCII digits", "consists of one or more ASCII digits"),
    ("bytes.isalpha", "{x}.isalpha()"): _pred("consist of one or more ASCII letters",
                                              "consists of one or more ASCII letters"),
    ("bytes.isalnum", "{x}.isalnum()"): _pred("consist of one or more ASCII letters or digits",
                                              "consists of one or more ASCII letters or digits"),
    ("bytes.isupper", "{x}.isupper()"): _pred("have at least one letter and no lower-case letters",
                                              "has at least one letter and no lower-case letters"),
    ("bytes.islower", "{x}.islower()"): _pred("have at least one letter and no upper-case letters",
                                              "has at least one letter and no upper-case letters"),
    ("bytes.isspace", "{x}.isspace()"): _pred("consist of one or more whitespace characters",
                                              "consists of one or more whitespace characters"),
    ("bytes.istitle", "{x}.istitle()"): _pred("are in title case", "is in title case"),
    ("bytes.isascii", "{x}.isascii()"): _pred("contain only ASCII bytes", "contains only ASCII bytes"),
    ("bytes.upper", "{x}.upper()"): _noun("{x} in upper case"),
    ("bytes.lower", "{x}.lower()"): _noun("{x} in lower case"),
    ("bytes.title", "{x}.title()"): _noun("{x} in title case"),
    ("bytes.capitalize", "{x}.capitalize()"): _noun("{x} with its first byte in upper case and the rest in lower case"),
    ("bytes.swapcase", "{x}.swapcase()"): _noun("{x} with upper and lower case swapped"),
    ("bytes.strip", "{x}.strip()"): _noun("{x} without surrounding whitespace"),
    ("bytes.lstrip", "{x}.lstrip({bchar})"): _noun("{x} without the bytes of {bchar} at the start"),
    ("bytes.rstrip", "{x}.rstrip({bchar})"): _noun("{x} without the bytes of {bchar} at the end"),
    ("bytes.replace", "{x}.replace({bchar}, b'_')"): _noun("{x} with every {bchar} replaced by an underscore"),
    ("bytes.removeprefix", "{x}.removeprefix({bsub})"): _noun("{x} with the prefix {bsub} removed, if present"),
    ("bytes.removesuffix", "{x}.removesuffix({bchar})"): _noun("{x} with the suffix {bchar} removed, if present"),
    ("bytes.zfill", "{x}.zfill({w})"): _noun("{x} padded with zeros on the left to {w} bytes, after any sign"),
    ("bytes.center", "{x}.center({w}, b'*')"): _noun("{x} padded with '*' on both sides to {w} bytes"),
    ("bytes.ljust", "{x}.ljust({w}, b'.')"): _noun("{x} padded with '.' on the right to {w} bytes"),
    ("bytes.rjust", "{x}.rjust({w}, b'.')"): _noun("{x} padded with '.' on the left to {w} bytes"),
    ("bytes.expandtabs", "{x}.expandtabs(2)"): _noun("{x} with tabs expanded to tab stops every 2 columns"),
    ("bytes.translate", "{x}.translate(None, {bdel})"): _noun("{x} without any of the bytes in {bdel}"),
    ("bytes.join", "b'-'.join({x})"): _noun("the items of {x} joined by dashes"),
    ("bytes.partition", "{x}.partition({bsep})"):
        _noun("the part of {x} before its first {bsep}, the separator and the part after (all of {x} before if "
              "there is none)"),
    ("bytes.rpartition", "{x}.rpartition({bsep})"):
        _noun("the part of {x} before its last {bsep}, the separator and the part after (all of {x} after if "
              "there is none)"),
    ("builtin.bytes", "bytes(reversed({x}))"): _noun("{x} reversed"),
    ("builtin.bytes", "bytes({x}, 'utf-8')"): _noun("{x} encoded as UTF-8"),
    ("builtin.sum", "sum({x})"): _noun("the sum of {x}"),
    ("builtin.max", "max({x})"): _noun("the largest value in {x}"),
    # ---- lists, tuples, sets: whole-collection values
    ("builtin.min", "min({x})"): _noun("the smallest value in {x}"),
    ("builtin.max", "max({x}, key=len)"): _noun("the longest item of {x} (the first if tied)"),
    ("builtin.min", "min({x}, key=len)"): _noun("the shortest item of {x} (the first if tied)"),
    ("builtin.sorted", "sorted({x}, reverse=True)"): _noun("{x} sorted from largest to smallest"),
    ("builtin.sorted", "sorted({x}, key=len)"): _noun("{x} sorted by length (ties keep their order)"),
    ("builtin.sorted", "sorted({x}, key={x}.get)"):
        _noun("the keys of {x} sorted by their values, smallest first (ties keep their order)"),
    ("builtin.max", "max({x}, key={x}.get)"): _noun("the key of {x} with the largest value (the first if tied)"),
    ("builtin.tuple", "tuple({x})"): _noun("{x} as a tuple"),
    ("builtin.set", "set({x})"): _noun("the distinct items of {x}, as a set"),
    ("builtin.frozenset", "frozenset({x})"): _noun("the distinct items of {x}, as a frozen set"),
    ("builtin.reversed", "list(reversed({x}))"): _noun("{x} reversed, as a list"),
    ("op.slice_copy", "{x}[:]"): _noun("a copy of {x}"),
    ("op.getitem", "{x}[len({x}) // 2]"):
        _noun("the middle item of {x} (the later of the two middle items if its length is even)"),
    ("list.copy", "{x}.copy()"): _noun("a copy of {x}"),
    ("list.count", "{x}.count({y})"): _noun("the number of times {y} occurs in {x}"),
    ("list.count", "{x}.count(0)"): _noun("the number of zeros in {x}"),
    ("tuple.count", "{x}.count({y})"): _noun("the number of times {y} occurs in {x}"),
    ("tuple.count", "{x}.count(1)"): _noun("the number of ones in {x}"),
    ("list.index", "{x}.index(max({x}))"): _noun("the position of the largest item of {x} (the first if tied)"),
    ("list.index", "{x}.index({y})"): _noun("the position of the first {y} in {x}"),
    ("tuple.index", "{x}.index(min({x}))"): _noun("the position of the smallest item of {x} (the first if tied)"),
    ("tuple.index", "{x}.index({y})"): _noun("the position of the first {y} in {x}"),
    ("builtin.any", "any({x})"): _pred("contain a non-zero number", "contains a non-zero number"),
    ("builtin.all", "all({x})"): _pred("contain no empty strings", "contains no empty strings"),
    ("builtin.any", "any(w.isupper() for w in {x})"):
        _pred("contain an upper-case word", "contains an upper-case word"),
    ("builtin.all", "all(n > 0 for n in {x})"):
        _pred("contain only positive numbers", "contains only positive numbers"),
    ("builtin.map", "list(map(int, filter(str.isdigit, {x})))"): _noun("the all-digit items of {x}, as integers"),
    ("builtin.map", "list(map(str, {x}))"): _noun("the numbers of {x} as strings"),
    ("builtin.map", "list(map(len, {x}))"): _noun("the lengths of the strings in {x}"),
    ("builtin.filter", "list(filter(None, {x}))"): _noun("the items of {x} that are not empty or zero"),
    ("builtin.enumerate", "enumerate({x}, 1)"): _noun("the positions (counting from 1) and items of {x}"),
    ("builtin.zip", "zip({x}, {x}[1:])"): _noun("the pairs of consecutive items of {x}"),
    ("builtin.zip", "zip({x}, {y})"): _noun("the items of {x} paired with those of {y}, up to the shorter"),
    ("builtin.dict", "dict(zip({x}, {y}))"):
        _noun("a dictionary mapping the items of {x} to those of {y} by position (the last wins for a repeated item)"),
    ("builtin.range", "range(len({x}))"): _noun("the positions in {x}"),
    ("builtin.range", "range({x})"): _noun("the numbers from 0 up to, not including, {x}"),
    ("builtin.range", "range(1, {x} + 1)"): _noun("the numbers from 1 to {x}"),
    ("builtin.range", "range(0, len({x}), 2)"): _noun("the positions 0, 2, 4, ... in {x}"),
    ("builtin.iter", "zip(*[iter({x})] * 2)"):
        _noun("the items of {x} taken two at a time (a leftover last item is dropped)"),
    ("builtin.next", "next((w for w in {x} if w.startswith({prefix})), '')"):
        _noun("the first item of {x} that starts with {prefix}, or '' if there is none"),
    ("builtin.next", "next((n for n in {x} if n > {k}), -1)"):
        _noun("the first item of {x} greater than {k}, or -1 if there is none"),
    ("op.unpack_list", "[*{x}, *{y}]"): _noun("the items of {x} followed by those of {y}"),
    ("op.unpack_tuple", "(*{x}, *{y})"): _noun("the items of {x} followed by those of {y}"),
    ("op.in", "{y} in {x}"): _pred("contain {y}", "contains {y}"),
    ("op.in", "{k} in {x}"): _pred("contain {k}", "contains {k}"),
    ("op.not_in", "0 not in {x}"): _pred("contain no zeros", "contains no zeros"),
    ("op.add", "{x} + {y}"): _noun("the items of {x} followed by those of {y}"),
    ("op.repeat", "{x}[:{k}] * 2"): _noun("the first {k} items of {x}, twice in a row"),
    # ---- sets and frozensets
    ("set.union", "{x}.union({y})"): _noun("the items of {x} together with those of {y}"),
    ("set.intersection", "{x}.intersection({y})"): _noun("the items in both {x} and {y}"),
    ("set.difference", "{x}.difference({y})"): _noun("the items of {x} that are not in {y}"),
    ("set.symmetric_difference", "{x}.symmetric_difference({y})"): _noun("the items in exactly one of {x} and {y}"),
    ("set.issubset", "{x}.issubset({y})"): _pred("are subsets of {y}", "is a subset of {y}"),
    ("set.issuperset", "{x}.issuperset({y})"): _pred("contain every item of {y}", "contains every item of {y}"),
    ("set.isdisjoint", "{x}.isdisjoint({y})"): _pred("share no items with {y}", "shares no items with {y}"),
    ("set.copy", "{x}.copy()"): _noun("a copy of {x}"),
    ("frozenset.union", "{x}.union({y})"): _noun("the items of {x} together with those of {y}"),
    ("frozenset.intersection", "{x}.intersection({y})"): _noun("the items in both {x} and {y}"),
    ("frozenset.difference", "{x}.difference({y})"): _noun("the items of {x} that are not in {y}"),
    ("frozenset.symmetric_difference", "{x}.symmetric_difference({y})"):
        _noun("the items in exactly one of {x} and {y}"),
    ("frozenset.issubset", "{x}.issubset({y})"): _pred("are subsets of {y}", "is a subset of {y}"),
    ("frozenset.issuperset", "{x}.issuperset({y})"): _pred("contain every item of {y}", "contains every item of {y}"),
    ("frozenset.isdisjoint", "{x}.isdisjoint({y})"): _pred("share no items with {y}", "shares no items with {y}"),
    ("frozenset.copy", "{x}.copy()"): _noun("a copy of {x}"),
    ("op.bitor", "{x} | {y}"): _noun("the items of {x} together with those of {y}"),
    ("op.bitand", "{x} & {y}"): _noun("the items in both {x} and {y}"),
    ("op.sub", "{x} - {y}"): _noun("the items of {x} that are not in {y}"),
    ("op.bitxor", "{x} ^ {y}"): _noun("the items in exactly one of {x} and {y}"),
    ("op.le", "{x} <= {y}"): _pred("are subsets of {y}", "is a subset of {y}"),
    ("op.unpack_set", "{{*{x}, *{y}}}"): _noun("the items of {x} together with those of {y}"),
    # ---- dicts
    ("dict.get", "{x}.get({y}, 0)"): _noun("the value for {y} in {x}, or 0 if it is missing"),
    ("dict.get", "{x}.get({y}, '?')"): _noun("the value for {y} in {x}, or '?' if it is missing"),
    ("dict.keys", "{x}.keys()"): _noun("the keys of {x}"),
    ("dict.keys", "sorted({x}.keys() & {y})"): _noun("the keys of {x} that are also in {y}, in sorted order"),
    ("dict.keys", "sorted({x}.keys() - {y})"): _noun("the keys of {x} that are not in {y}, in sorted order"),
    ("dict.values", "{x}.values()"): _noun("the values of {x}"),
    ("dict.items", "{x}.items()"): _noun("the key-value pairs of {x}"),
    ("dict.copy", "{x}.copy()"): _noun("a copy of {x}"),
    ("builtin.sum", "sum({x}.values())"): _noun("the sum of the values of {x}"),
    ("builtin.max", "max({x}.values())"): _noun("the largest of the values of {x}"),
    ("builtin.dict", "dict(sorted({x}.items()))"): _noun("{x} with its keys in sorted order"),
    ("op.unpack_dict", "{{**{x}, **{y}}}"): _noun("{x} merged with {y} (on a shared key, the value in {y} wins)"),
    ("op.getitem", "{x}[{y}]"): _noun("the value for {y} in {x}"),
}

_COLLECTIONS = ("nums", "words", "numstrs", "ids", "tags", "fids", "ftags", "tnums", "twords", "amounts")


def _each(head: str, text: str, grains: tuple[str, ...], phrase: Phrase) -> dict[tuple[str, str, str], Phrase]:
    return {(head, text, g): phrase for g in grains}


#: (form.head, form.text, grain of the subject) -> the phrase for that grain, where it is better than the one in
#: :data:`PHRASES` (which is true of every grain the template serves)
ON_GRAIN: dict[tuple[str, str, str], Phrase] = {
    # a character is tested as one
    ("str.isdigit", "{x}.isdigit()", "char"): _pred("are digits", "is a digit"),
    ("str.isalpha", "{x}.isalpha()", "char"): _pred("are letters", "is a letter"),
    ("str.isalnum", "{x}.isalnum()", "char"): _pred("are letters or digits", "is a letter or a digit"),
    ("str.isupper", "{x}.isupper()", "char"): _pred("are upper-case letters", "is an upper-case letter"),
    ("str.islower", "{x}.islower()", "char"): _pred("are lower-case letters", "is a lower-case letter"),
    ("str.isdecimal", "{x}.isdecimal()", "char"): _pred("are decimal digits", "is a decimal digit"),
    ("str.isnumeric", "{x}.isnumeric()", "char"): _pred("are numeric characters", "is a numeric character"),
    # a string's items are its characters
    **_each("op.slice_to", "{x}[:{k}]", ("word", "text", "line"), _noun("the first {k} characters of {x}")),
    **_each("op.slice_from", "{x}[{i}:]", ("word", "text", "line"), _noun("{x} without its first {i} characters")),
    **_each("op.slice_step", "{x}[::2]", ("word", "text"),
            _noun("every other character of {x}, starting with the first")),
    **_each("op.getitem", "{x}[0]", ("word", "line"), _noun("the first character of {x}")),
    **_each("builtin.enumerate", "enumerate({x})", ("word", "text"), _noun("the positions and characters of {x}")),
    ("builtin.list", "list({x})", "word"): _noun("the characters of {x}"),
    ("builtin.sorted", "sorted({x})", "word"): _noun("the characters of {x} in sorted order"),
    # what the length of a collection counts
    **_each("builtin.len", "len({x})", _COLLECTIONS, _noun("the number of items in {x}")),
    **_each("builtin.len", "len({x})", ("table", "names"), _noun("the number of keys in {x}")),
    ("builtin.len", "len({x})", "blob"): _noun("the number of bytes in {x}"),
    # bytes hold numbers
    ("builtin.sum", "sum({x})", "blob"): _noun("the sum of the byte values of {x}"),
    ("builtin.max", "max({x})", "blob"): _noun("the largest byte value in {x}"),
    # a float is truncated
    ("builtin.int", "int({x})", "amount"): _noun("{x} with its fractional part dropped"),
    # dicts: what `in`, sorted and | see
    ("op.in", "{y} in {x}", "table"): _pred("have the key {y}", "has the key {y}"),
    ("op.in", "{y} in {x}", "names"): _pred("have the key {y}", "has the key {y}"),
    ("builtin.sorted", "sorted({x})", "table"): _noun("the keys of {x} in sorted order"),
    ("op.bitor", "{x} | {y}", "table"): _noun("{x} merged with {y} (on a shared key, the value in {y} wins)"),
    # one kind of item
    ("builtin.filter", "list(filter(None, {x}))", "words"): _noun("the non-empty strings of {x}"),
    ("builtin.filter", "list(filter(None, {x}))", "nums"): _noun("the non-zero numbers of {x}"),
}


@cache
def phrase_of(form: Form, on: str | None = None) -> Phrase | None:
    """The phrase of ``form`` (None: it has none): for a subject of grain ``on`` when given, else for all the
    grains the form applies to (the one of :data:`ON_GRAIN` where they share it).

    >>> from execverify_data.synth.vocab import forms
    >>> [f] = forms(head="builtin.int", on="amount")
    >>> phrase_of(f).plural
    '{x} with its fractional part dropped'
    >>> [f] = forms(head="builtin.len", on="blob")
    >>> phrase_of(f).plural, phrase_of(f, "blob").plural
    ('the length of {x}', 'the number of bytes in {x}')
    """
    key = (form.head, form.text)
    grains = (on,) if on is not None else form.on
    special = {ON_GRAIN.get((*key, g)) for g in grains}
    if len(special) == 1 and None not in special:
        return special.pop()
    return PHRASES[key]
