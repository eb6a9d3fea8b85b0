"""Every derived seed: each random choice of the library flows from a global seed through one of these.

Each is a SHA-256 of a labelled text, so it is stable across processes, machines and Python versions
(``hash()`` is not).

>>> row_seed(0, 5) == row_seed(0, 5), row_seed(0, 5) != row_seed(1, 5), derive_seed(0, 1, 2) != derive_seed(0, 2, 1)
(True, True, True)
>>> split_draw(0, "ab12") < 1000
True
"""

from __future__ import annotations

import hashlib

__all__ = ["derive_seed", "edit_seed", "generator_offset", "row_seed", "split_draw"]


def _bits(text: str, n_bytes: int = 8) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:n_bytes], "big")


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed from ``seed`` and ``parts`` (their ``repr``): a release row's questions, codegen draws, restyling."""
    return _bits(repr((seed, *parts))) >> 1


def row_seed(seed: int, i: int, attempt: int = 0) -> int:
    """The seed of attempt ``attempt`` at row ``i`` of a synthesis run with global ``seed`` (63 bits)."""
    return _bits(f"execverify-synth:{seed}:{i}:{attempt}") >> 1


def generator_offset(seed: int) -> int:
    """Where a run's golden-ratio walk over the generators' shares starts (64 bits)."""
    return _bits(f"execverify-generator:{seed}")


def split_draw(seed: int, ast_hash: str) -> int:
    """A program structure's draw in ``[0, 1000)`` for the train/test split."""
    return _bits(f"execverify-split:{seed}:{ast_hash}", 4) % 1000


def edit_seed(seed: int, first: str) -> int:
    """The seed of the small same-type edits of the argument text ``first`` (naturalness measures)."""
    return _bits(f"naturalness-edit\0{seed}\0{first}")
