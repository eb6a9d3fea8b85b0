"""Release versions and their changelog (the card's "Versions" section; Hub tags are ``v`` + version).

A new release adds an entry here (newest first) in the same commit that changes the data.
"""

from __future__ import annotations

__all__ = ["CHANGELOG", "tag_for", "changelog_until"]

#: version -> what changed, newest first.
CHANGELOG: dict[str, str] = {
    "3.0.0": "Generator 3.0.0: levels 3-6 are built purpose first (issue 28): a task (a fold over a stream: count, "
             "sum, average, product, checksum, collect, join, tally, group, distinct values, common letters, the "
             "letters of any item, first match or a value of it, any) with "
             "the spec's chain as the task's own steps (streams include words, fields, digits, binary digits, "
             "halves and Collatz terms of a number, the numbers 1 to n, word lengths, byte pieces), the spec's "
             "nested call made by the walk, a test or the value, the target doing a step the task needs, every "
             "constant a parameter or a task constant, level-6 helpers as named sub-tasks (is_prime, "
             "is_palindrome, digit_sum, rot13...) or a test worth a name; each such program has a `description` that says what it returns, composed from the "
             "same plan, and its codegen prompt is that description, the signature and two examples (the other "
             "tests hidden). Every kept program of ours has no call without effect on its inputs and no length or "
             "parameter compared with a bare number. Where a chain walks each item's parts, a count, sum, largest "
             "value, string, list or joined text of them may be kept per item (the vowels of each word); 0.3 of "
             "the nested walks are over nested data (the words of each line of a text, the numbers of each row of a "
             "table, drawn in that shape); a byte is tested for what it encodes (ASCII, printable, a digit's code, "
             "whitespace), a character's code is a value only where ord is the target, an item is collected as it "
             "is only once a test narrows it, a parameter is compared with in one test only, and a "
             "classification sorts items into classes people use (digits and letters, negative and zero, blank "
             "lines and comments) where the task leaves it free, and sums each class apart instead of adding one "
             "and taking away the other. A row's "
             "target is drawn with weight (calls + 1) ** 0.35, calls being how often the standard library calls it, and "
             "levels 3-6 draw again half of the targets no task places. Levels 1-2 are built as in 2.2, with preparing steps "
             "people use (trimmed, lower-cased, sorted, a header cut off), and have no description. New field: "
             "description. The `sft` chains are `explained` (issue 32): each "
             "test states its operands' values, each loop the sequence it walks, a line the arguments and slices it "
             "reads and what its helper calls returned, and a shortened stretch which lines and iterations it skips "
             "and the state after them (`--chain-style trace` writes the chains of 2.2).",
    "2.2.0": "Generator 2.2.0: every call whose value a program uses gives at least two values on the program's "
             "own inputs (a 20k run of generator 2.1.1 had such a constant call in 25% of its programs: `ord(ch)` "
             "under `if ch == 'n':`, `part.find(b' ')` after a split on spaces, a `get` that only ever gave its "
             "default); the inputs are chosen for it as for the branches, and a program none of whose candidate "
             "inputs vary such a call is left out. A program may hold one input more than asked where that takes "
             "it. Same configs and fields.",
    "2.1.0": "Generator 2.1: a program calls at most four distinct builtins and methods, 3.44 on average over a "
             "20k run (generator 2.0: 4.57, up to 9; CRUXEval 2.35), every for loop reads its variable, and every "
             "output is of the function's annotated return type (generator 2.0 wrote `-> int` on functions that "
             "return '' or None and `-> list` on ones that return a set or a tuple: 587 of 60,000 outputs of a 20k "
             "run). Same configs and fields.",
    "2.0.0": "Generator 2.0: programs built from the shapes people write (counting, filtering, grouping, searching, "
             "stacks, windows...); each program's inputs are chosen for coverage, so every if and while goes both "
             "ways on the row's own inputs; no finishing wrappers, conversion round trips or literal-operand "
             "patterns; duplicates removed across the whole run. 6 inputs per program (was 3), and `--n` counts "
             "distinct (program, input) examples of the trace config; the card states the programs and examples "
             "of each config and a naturalness table beside CRUXEval and HumanEval. Label fix (issue 12): set and "
             "frozenset arguments were built with set(list), which can order a set differently from the set "
             "display Python compiles from the call text; re-executing every call of release 1.1.0's synthesis "
             "(generator 1.1.0, seed 0, 9,426 programs, 28,278 calls) as source finds 27 recorded outputs in 22 "
             "programs that Python contradicts (synth-0-0000727, synth-0-0001192, synth-0-0001436, synth-0-0001859, synth-0-0002120, synth-0-0002263, synth-0-0002469, synth-0-0003062, synth-0-0003459, synth-0-0003755, synth-0-0004094, synth-0-0004238, synth-0-0005905, synth-0-0006271, synth-0-0006357, synth-0-0006424, synth-0-0007617, synth-0-0007795, synth-0-0008228, synth-0-0008294, synth-0-0008486, synth-0-0008509) and 80 calls in 56 programs whose traced states differ (4,153 "
             "events), all with input sets or frozensets holding negative ints; arguments are now built exactly "
             "as Python compiles the call text.",
    "1.1.0": "Generator 1.1.0: every trace is checked against a rerun in another interpreter with another hash "
             "seed (drops programs whose trace depends on the order of a set of strings, about 2%); inputs drawn "
             "around the program's own literals (conditions go both ways more often); no value-collapsing "
             "wrappers; typed lambdas. Same configs and fields.",
    "1.0.0": "First release: configs io, oi, trace, sft, codegen (and default = trace); generator 1.0.x; "
             "heuristic difficulty with curriculum buckets; decontaminated against CRUXEval and HumanEval.",
}


def tag_for(version: str) -> str:
    """The Hub tag of a release version.

    >>> tag_for("1.0.0")
    'v1.0.0'
    """
    return version if version.startswith("v") else f"v{version}"


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.lstrip("v").split("."))


def changelog_until(version: str) -> list[tuple[str, str]]:
    """Changelog entries up to and including ``version``, newest first (an unlisted version gets a placeholder line).

    >>> changelog_until("1.0.0")[0][0]
    '1.0.0'
    """
    items = [(v, text) for v, text in CHANGELOG.items() if _key(v) <= _key(version)]
    if version not in CHANGELOG:
        items.append((version, "Rebuild with the settings recorded in MANIFEST.json (no changelog entry yet)."))
    return sorted(items, key=lambda item: _key(item[0]), reverse=True)
