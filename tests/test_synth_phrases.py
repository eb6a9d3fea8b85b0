"""The phrases of the vocabulary's forms: one for every form, over the form's own placeholders, in the
wording its role asks for."""

from __future__ import annotations

import string

import pytest

from execverify_data.synth.phrases import ON_GRAIN, PHRASES, Phrase, phrase_of
from execverify_data.synth.vocab import forms

_KEYS = {(f.head, f.text) for f in forms()}


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def _uses() -> list[tuple[object, str | None, Phrase]]:
    """(form, grain or None, phrase) for each form's own phrase and each grain's phrase of ON_GRAIN."""
    out = []
    for f in forms():
        if PHRASES[(f.head, f.text)] is not None:
            out.append((f, None, PHRASES[(f.head, f.text)]))
        for g in f.on:
            if (f.head, f.text, g) in ON_GRAIN:
                out.append((f, g, ON_GRAIN[(f.head, f.text, g)]))
    return out


def test_every_form_has_an_entry_and_no_entry_is_stale():
    assert _KEYS - PHRASES.keys() == set()
    assert PHRASES.keys() - _KEYS == set()


def test_on_grain_entries_name_a_grain_the_template_serves():
    for head, text, grain in ON_GRAIN:
        assert (head, text) in PHRASES
        assert any(grain in f.on for f in forms(head=head) if f.text == text), (head, text, grain)


@pytest.mark.parametrize(("form", "grain", "phrase"), _uses(), ids=lambda v: getattr(v, "text", None))
def test_phrase_fits_its_form(form, grain, phrase):
    allowed = {"x", *form.slots} | ({"y"} if "{y}" in form.text else set())
    for wording in (phrase.plural, phrase.singular):
        assert wording and wording == wording.strip() and "  " not in wording
        assert _fields(wording) <= allowed, (form.text, grain, wording)
        # it formats, with code spans in its placeholders, and leaves no brace behind
        filled = wording.format(**{name: f"`{name}`" for name in allowed})
        assert "{" not in filled and "}" not in filled
    if form.role == "pred":
        assert not phrase.plural[0].isupper() and not phrase.singular[0].isupper()
        assert "x" not in _fields(phrase.plural) | _fields(phrase.singular)
        assert phrase.plural != phrase.singular
    else:
        assert phrase.plural == phrase.singular
        assert "x" in _fields(phrase.plural), (form.text, phrase.plural)


def test_phrase_of_looks_up_the_form():
    for f in forms():
        assert phrase_of(f) is PHRASES[(f.head, f.text)] or (f.head, f.text, f.on[0]) in ON_GRAIN


def test_phrase_of_prefers_the_grains_phrase():
    [word_first] = [f for f in forms(head="op.getitem", on="word") if f.text == "{x}[0]"]
    [list_first] = [f for f in forms(head="op.getitem", on="nums") if f.text == "{x}[0]"]
    assert phrase_of(word_first).plural == "the first character of {x}"
    assert phrase_of(list_first).plural == "the first item of {x}"
    [length] = forms(head="builtin.len", on="table")
    assert phrase_of(length).plural == "the length of {x}"  # the form serves many grains: the phrase of them all
    assert phrase_of(length, "table").plural == "the number of keys in {x}"
    assert phrase_of(length, "nums").plural == "the number of items in {x}"
    [isdigit] = forms(head="str.isdigit")
    assert phrase_of(isdigit, "char") == Phrase("are digits", "is a digit")
    assert phrase_of(isdigit, "word") == Phrase("consist of one or more digits", "consists of one or more digits")


@pytest.mark.parametrize(("head", "text", "plural", "singular"), [
    ("str.startswith", "{x}.startswith({prefix})", "start with {prefix}", "starts with {prefix}"),
    ("op.eq", "{x} == {x}[::-1]", "read the same backwards", "reads the same backwards"),
    ("op.in", "{x} in {y}", "are in {y}", "is in {y}"),
    ("op.gt", "len({x}) > {k}", "are longer than {k} characters", "is longer than {k} characters"),
    ("op.mod", "{x} % 2 == 0", "are even", "is even"),
    ("op.bitand", "{x} & 1", "are odd", "is odd"),
])
def test_pred_phrases(head, text, plural, singular):
    assert PHRASES[(head, text)] == Phrase(plural, singular)


@pytest.mark.parametrize(("head", "text", "noun"), [
    ("builtin.len", "len({x})", "the length of {x}"),
    ("str.count", "{x}.count({char})", "the number of times {char} occurs in {x}"),
    ("str.upper", "{x}.upper()", "{x} in upper case"),
    ("op.slice_reverse", "{x}[::-1]", "{x} reversed"),
    ("builtin.sorted", "sorted({x}, key=len)", "{x} sorted by length (ties keep their order)"),
    ("str.find", "{x}.find({char})", "the position of the first {char} in {x} (-1 if there is none)"),
    ("builtin.divmod", "divmod({x}, {m})", "the quotient and remainder of {x} divided by {m}"),
    ("str.split", "{x}.split()", "the words of {x}"),
    ("str.split", "{x}.split({sep})", "the fields of {x} separated by {sep}"),
    ("str.title", "{x}.title()", "{x} in title case"),
    ("str.strip", "{x}.strip()", "{x} without surrounding whitespace"),
    ("str.strip", "{x}.strip({chars})", "{x} without the characters of {chars} at either end"),
    ("builtin.round", "round({x}, -1)", "{x} rounded to the nearest ten (a tie goes to an even number of tens)"),
    ("op.floordiv", "{x} // 2", "{x} halved, rounded down"),
    ("builtin.max", "max({x}, key=len)", "the longest item of {x} (the first if tied)"),
    ("str.format", "'{{}}-{{}}'.format({x}, len({x}))", "{x} followed by a dash and its length"),
])
def test_noun_phrases(head, text, noun):
    assert PHRASES[(head, text)] == Phrase(noun, noun)


def _run(text: str, x, y=None, **slots):
    code = text.format(x="x", y="y", **{k: repr(v) for k, v in slots.items()})
    return eval(code, {}, {"x": x, "y": y})  # our own template, sample values only


@pytest.mark.parametrize(("head", "text", "says", "cases"), [
    # (subject, slots, result): what each phrase's fine print claims, as Python computes it
    ("builtin.round", "round({x}, -1)", "a tie goes to an even number of tens",
     [(15, {}, 20), (25, {}, 20), (35, {}, 40), (-15, {}, -20)]),
    ("op.floordiv", "{x} // 2", "rounded down", [(-3, {}, -2), (3, {}, 1)]),
    ("op.rshift", "{x} >> 1", "rounded down", [(7, {}, 3)]),
    ("op.bitor", "{x} | 1", "rounded up to the nearest odd number", [(4, {}, 5), (5, {}, 5), (-4, {}, -3)]),
    ("op.mod", "{x} % {m}", "never negative for a positive", [(-7, {"m": 3}, 2)]),
    ("builtin.pow", "pow({x}, 3, {m})", "never negative for a positive", [(-2, {"m": 5}, 2)]),
    ("int.to_bytes", "{x}.to_bytes(2, 'big')", "from 0 to 65535", [(0, {}, b"\0\0"), (65535, {}, b"\xff\xff")]),
    ("int.bit_length", "{x}.bit_length()", "ignoring any sign (0 for 0)", [(-5, {}, 3), (0, {}, 0)]),
    ("int.bit_count", "{x}.bit_count()", "ignoring any sign", [(-5, {}, 2)]),
    ("str.zfill", "{x}.zfill({w})", "after any sign", [("-4", {"w": 4}, "-004"), ("12345", {"w": 3}, "12345")]),
    ("str.partition", "{x}.partition({sep})", "all of {x} before if there is none",
     [("a:b", {"sep": ";"}, ("a:b", "", ""))]),
    ("str.rpartition", "{x}.rpartition({sep})", "all of {x} after if there is none",
     [("a:b", {"sep": ";"}, ("", "", "a:b"))]),
    ("str.find", "{x}.find({char})", "-1 if there is none", [("abc", {"char": "z"}, -1)]),
    ("builtin.max", "max({x}, key=len)", "the first if tied", [(["ab", "cd", "e"], {}, "ab")]),
    ("builtin.sorted", "sorted({x}, key=len)", "ties keep their order", [(["bb", "a", "aa"], {}, ["a", "bb", "aa"])]),
    ("op.getitem", "{x}[len({x}) // 2]", "the later of the two middle items", [([1, 2, 3, 4], {}, 3)]),
    ("builtin.iter", "zip(*[iter({x})] * 2)", "a leftover last item is dropped", [([1, 2, 3], {}, [(1, 2)])]),
    ("builtin.max", "max({x}, 0)", "or 0 if it is negative", [(-3, {}, 0), (3, {}, 3)]),
    ("builtin.chr", "chr(ord('a') + {x} % 26)", "wrapping around after 'z'", [(0, {}, "a"), (27, {}, "b")]),
    ("builtin.int", "int({x})", "its fractional part dropped", [(-2.7, {}, -2)]),
    ("str.isdigit", "{x}.isdigit()", "one or more", [("", {}, False), ("12", {}, True)]),
    ("str.isupper", "{x}.isupper()", "at least one letter and no lower-case letters",
     [("A1", {}, True), ("1", {}, False), ("Ab", {}, False)]),
    ("str.isprintable", "{x}.isprintable()", "no non-printable characters", [("", {}, True), ("a\tb", {}, False)]),
])
def test_fine_print_holds(head, text, says, cases):
    phrases = [PHRASES[(head, text)], *(v for k, v in ON_GRAIN.items() if k[:2] == (head, text))]
    assert any(says in p.plural for p in phrases)
    for x, slots, want in cases:
        got = _run(text, x, **slots)
        assert (list(got) if head == "builtin.iter" else got) == want, (text, x)


def test_dict_from_zip_keeps_the_last_value_of_a_repeated_key():
    assert "the last wins for a repeated item" in PHRASES[("builtin.dict", "dict(zip({x}, {y}))")].plural
    assert _run("dict(zip({x}, {y}))", ["a", "b", "a"], [1, 2, 3]) == {"a": 3, "b": 2}


def test_string_grains_say_characters():
    assert phrase_of(forms(head="op.slice_to", on="word")[0]).plural == "the first {k} characters of {x}"
    assert phrase_of(forms(head="op.slice_to", on="nums")[0]).plural == "the first {k} items of {x}"
    assert phrase_of(forms(head="builtin.enumerate", on="text")[0]).plural == "the positions and characters of {x}"


def test_none_entries_are_few():
    assert sum(p is None for p in PHRASES.values()) <= 5
