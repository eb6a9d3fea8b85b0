"""The typed records that pass between the layers, and the parquet schemas derived from them.

* :class:`ProgramRecord`: one program with its inputs and their outputs, a row of a record shard
  (``execverify synthesize``, ``execverify from-code``, a release's work folder).
* :class:`RowOutcome`: what one row of a run gave (the attempts' counts, the record kept or None).
* :class:`Tally`: the counts of a run of rows, in the form of a shard's statistics file.

A schema is derived from a record class's annotations (:func:`arrow_schema`), so a field is named
once: ``str`` is a string column, ``int`` an int64, ``float`` a float64, ``bool`` a bool,
``list[X]`` a list of ``X``, ``X | None`` a nullable ``X`` and a ``TypedDict`` a struct.

>>> [f.name for f in arrow_schema(ProgramRecord)][:4], str(arrow_schema(ProgramRecord).field("trace_lengths").type)
(['id', 'row', 'seed', 'level'], 'list<item: int64>')
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping, TypedDict

__all__ = ["PROVENANCE_FIELDS", "ProgramRecord", "RowOutcome", "SpecFields", "Tally", "arrow_schema", "record_schema"]


class SpecFields(TypedDict):
    """The constraint spec a program was built for (:meth:`ConstraintSpec.to_dict
    <execverify_data.synth.spec.ConstraintSpec.to_dict>`)."""

    target: str
    nested_depth: int
    other_methods: bool
    control_flow: list[str]
    helper_depth: int
    n_params: int
    min_size: int
    max_size: int


@dataclass(frozen=True)
class ProgramRecord:
    """One program, its inputs and what they give.

    The first fields are every record's. ``description`` says in one or two sentences what the entry
    point returns for its inputs, parameter names in backticks (:attr:`Program.description
    <execverify_data.synth.generator.Program.description>`, or the ``"description"`` of a ``from-code``
    input); ``""`` when there is none, as in shards written before the field existed. The last four are
    provenance, set for programs not synthesized here (``from-code``): where each came from, whether each
    input is a seed (from the source's tests) or generated, and the branch coverage of the kept inputs
    (``branch_coverage``: of every decision outcome; ``branch_coverage_returning``: of the outcomes an input
    that returns can take, the sides whose block ends in ``raise`` left out,
    :func:`execverify_data.synth.coverage.raising_sides`; None in shards written before the field existed).
    """

    id: str
    row: int
    seed: int
    level: int
    spec: SpecFields
    target: str
    code: str
    entry_point: str
    param_types: list[str]
    param_domains: list[str]
    inputs: list[str]
    outputs: list[str]
    output_types: list[str]
    trace_lengths: list[int]
    ast_hash: str
    catalog_ids: list[str]
    python: str
    generator_version: str
    generator: str
    description: str = ""
    source: str | None = None
    source_id: str | None = None
    input_origins: list[str] | None = None
    branch_coverage: float | None = None
    type_origins: list[str] | None = None
    license: str | None = None
    branch_coverage_returning: float | None = None

    @property
    def calls(self) -> list[str]:
        """The call of each input: ``entry_point(input)``."""
        return [f"{self.entry_point}({x})" for x in self.inputs]

    @property
    def has_provenance(self) -> bool:
        return self.source is not None

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> ProgramRecord:
        """A record from a shard's row, by column name: a column the shard lacks (``description``, the
        provenance columns) leaves its field's default (``""``, None)."""
        return cls(**{name: row[name] for name in _FIELDS if name in row})


_FIELDS = tuple(f.name for f in dataclasses.fields(ProgramRecord))
#: The provenance columns, written only in shards whose records have them.
PROVENANCE_FIELDS = _FIELDS[-7:]


def arrow_type(hint) -> Any:
    """The pyarrow type of an annotation (see the module's docstring)."""
    import pyarrow as pa

    scalars = {str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_()}
    if hint in scalars:
        return scalars[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in args if a is not type(None)]
        return arrow_type(inner)
    if origin is list:
        return pa.list_(arrow_type(args[0]))
    if typing.is_typeddict(hint):
        return pa.struct([(name, arrow_type(t)) for name, t in typing.get_type_hints(hint).items()])
    raise TypeError(f"no parquet type for {hint!r}")


def arrow_schema(cls: type, *, leave_out: tuple[str, ...] = ()):
    """The pyarrow schema of a record class (a dataclass or a ``TypedDict``), fields in their order."""
    import pyarrow as pa

    return pa.schema([(name, arrow_type(t)) for name, t in typing.get_type_hints(cls).items() if name not in leave_out])


def record_schema(provenance: bool = False):
    """The schema of a record shard, with or without the :data:`PROVENANCE_FIELDS`."""
    return arrow_schema(ProgramRecord, leave_out=() if provenance else PROVENANCE_FIELDS)


@dataclass(frozen=True)
class RowOutcome:
    """Row ``row`` of a run: its level and generator, what its attempts met (``counts``: ``attempts``,
    ``generated``, a rejection reason per failed attempt...), the program it kept (``record``, None when
    every attempt failed) and, in the worker that made it, the kept program's traces (not sent back)."""

    row: int
    level: int
    generator: str
    counts: Mapping[str, int]
    record: ProgramRecord | None = None
    traces: tuple | None = dataclasses.field(default=None, compare=False)


class Tally:
    """Counts of a run of rows, in the form of a shard's statistics file."""

    def __init__(self) -> None:
        self.rejected: Counter = Counter()
        self.by_level: dict[str, Counter] = {}
        self.by_generator: dict[str, Counter] = {}
        self.rows = self.accepted = 0

    def add(self, outcome: RowOutcome, seen: set[str]) -> bool:
        """Count ``outcome``; True when its program is kept (new to ``seen``, which it joins)."""
        groups = (self.by_level.setdefault(str(outcome.level), Counter()),
                  self.by_generator.setdefault(outcome.generator, Counter()))
        self.rows += 1
        for stats in groups:
            stats["rows"] += 1
        for name, value in outcome.counts.items():
            for stats in groups:
                stats[name] += value
            if name not in ("attempts", "generated"):
                self.rejected[name] += value
        if outcome.record is None:
            return False
        kept = outcome.record.ast_hash not in seen
        for stats in groups:
            stats["accepted" if kept else "duplicate"] += 1
        if kept:
            seen.add(outcome.record.ast_hash)
            self.accepted += 1
        else:
            self.rejected["duplicate"] += 1
        return kept

    def stats(self) -> dict:
        return {"rejected": dict(sorted(self.rejected.items())),
                "by_level": {k: dict(sorted(v.items())) for k, v in sorted(self.by_level.items())},
                "by_generator": {k: dict(sorted(v.items())) for k, v in sorted(self.by_generator.items())},
                "rows": self.rows, "accepted": self.accepted}
