"""Small same-type edits of a program's first input, and the ones on which it completes."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence

from execverify_data.errors import InvalidArgument
from execverify_data.instrument import OVER_BUDGET
from execverify_data.naturalness.execution import _check_budget, _Probe, _Program
from execverify_data.trace import Status
from execverify_data.values import format_arguments, parse_arguments

__all__ = ["edited_inputs", "small_edits"]


def _edit_seed(seed: int, first: str) -> int:
    return int.from_bytes(hashlib.sha256(f"naturalness-edit\0{seed}\0{first}".encode()).digest()[:8], "big")


def small_edits(first: str, types: Sequence[str] | None = None, *, seed: int = 0, tries: int = 20) -> Iterator[str]:
    """Up to ``tries`` candidate small same-type edits of the argument text ``first``, distinct from it and
    from each other.

    A small same-type edit is one :func:`execverify_data.inputs.mutate` of one positional argument,
    chosen uniformly among those whose type is known (``types``, else :func:`~execverify_data.inputs.type_text_of`
    of the value): an int moves by 1 or 2 (clamped to the inputs' range, -3..12) or, one time in five, is
    drawn again from that range; a float moves by 0.5 or 1; a bool flips; a string or bytes value gets one
    character changed, inserted or deleted, or two swapped; a list or tuple gets one element mutated,
    inserted or deleted, or two swapped; a set one element replaced or added; a dict one key or value changed
    or an item added. The random choices come from ``seed`` and ``first`` only.

    >>> edits = list(small_edits("[1, 2, 3], 'ab'", seed=0, tries=3))
    >>> len(edits), edits == list(small_edits("[1, 2, 3], 'ab'", seed=0, tries=3)), "[1, 2, 3], 'ab'" in edits
    (3, True, False)
    """
    from execverify_data.inputs import mutate, type_text_of

    args, kwargs = parse_arguments(first)
    if types is None:
        types = [type_text_of(a) for a in args]
    elif len(types) != len(args):
        raise InvalidArgument(f"{len(types)} types given for the {len(args)} arguments of {first[:80]!r}")
    editable = [i for i, t in enumerate(types) if t is not None]
    rng = random.Random(_edit_seed(seed, first))
    seen = {format_arguments(args, kwargs)}
    for _ in range(tries if editable else 0):
        i = rng.choice(editable)
        fresh, _ = parse_arguments(first)
        try:
            fresh = list(fresh)
            fresh[i] = mutate(fresh[i], types[i], rng)
            text = format_arguments(fresh, kwargs)
        except Exception:  # noqa: BLE001 - a value the type language cannot edit: no candidate
            continue
        if text not in seen:
            seen.add(text)
            yield text


def edited_inputs(source: str, entry_point: str, first: str, *, types: Sequence[str] | None = None, seed: int = 0,
                  k: int = 2, tries: int = 20, max_steps: int = 20_000, timeout: float = 2.0) -> list[str]:
    """The first ``k`` candidates of :func:`small_edits` on which the program completes (does not raise,
    stays within ``max_steps`` statements and ``timeout`` seconds); fewer if ``tries`` candidates
    give fewer, or once two candidates have run past the budget (a program that loops on edits costs
    two budgets, not ``tries``). "First input plus two small same-type edits" is ``[first] + edited_inputs(...)``.

    >>> list(small_edits("2", seed=2))[:3]  # n = 4 divides by zero: that edit is passed over
    ['0', '4', '3']
    >>> edited_inputs("def f(n):\\n    return 10 // (n - 4)\\n", "f", "2", seed=2)
    ['0', '3']
    """
    _check_budget(max_steps, timeout)
    program = _Program(source, entry_point, max_steps=max_steps, timeout=timeout)
    return [text for text, _ in _edited_runs(program, first, types, seed, k, tries)]


def _edited_runs(program: _Program, first: str, types, seed: int, k: int, tries: int) -> list[tuple[str, _Probe]]:
    kept, stalls = [], 0
    for text in small_edits(first, types, seed=seed, tries=tries):
        probe = program.run(text)
        if probe.status is Status.OK:
            kept.append((text, probe))
            if len(kept) >= k:
                break
        elif probe.status in OVER_BUDGET:
            stalls += 1
            if stalls >= _MAX_STALLS:
                break
    return kept


#: Candidate edits past the budget (statements or time) after which a program gets no more candidates.
_MAX_STALLS = 2
