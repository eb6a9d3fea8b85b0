"""Settings of a release build and the column schema of every config."""

from __future__ import annotations

import math
import platform
import re
from dataclasses import asdict, dataclass, field
from typing import TypedDict

from execverify_data.difficulty import FEATURES
from execverify_data.errors import InvalidArgument, check_int

__all__ = ["DESCRIPTION_COLUMN", "CodegenRow", "FEATURE_COLUMNS", "QuestionRow", "ReleaseConfig", "SftRow", "schema_for"]

_VERSION = re.compile(r"^\d+\.\d+\.\d+$")


@dataclass(frozen=True)
class ReleaseConfig:
    """One release build.

    Args:
        version (`str`): the release version, ``MAJOR.MINOR.PATCH`` (the Hub tag is ``v`` + version).
        n_examples (`int`): distinct (program, input) examples wanted in the ``trace`` config; each is also
            a row of ``io``, ``oi`` and ``sft``, and each program a ``codegen`` row. Programs are
            synthesized in row order until the ``trace`` config holds at least ``n_examples`` examples (the
            card states the exact numbers).
        seed (`int`): the global seed (synthesis, question selection, splits).
        k (`int`, defaults to 6): traced inputs per program at least (synthesis keeps ``k`` inputs chosen for
            coverage, a few more when covering every branch needs them). More inputs per program means fewer
            programs to synthesize for ``n_examples`` examples: 6 costs about a fifth less CPU per example than 3
            (``docs/release.md``).
        shard_size (`int`, defaults to 500): programs per work unit (one synthesis shard).
        n_path, n_state (`int`, defaults to 2): step questions per white-box prompt.
        codegen_examples (`int`, defaults to 2): input/output examples shown in a codegen prompt.
        codegen_extra_inputs (`int`, defaults to 4): fresh inputs drawn for hidden codegen tests.
        test_permille (`int`, defaults to 50): share of program structures (normalized-AST
            hashes) put in the ``test`` split, per thousand.
        rows_per_file (`int`, defaults to 20000), row_group_size (`int`, defaults to 1000): parquet layout.
        decontam_n (`int`, defaults to 10), decontam_threshold (`float`, defaults to 0.5): see :mod:`execverify_data.decontam`.
        local_benchmarks (`tuple[tuple[str, str], ...]`): extra benchmarks ``(name, path)`` (REval, LiveCodeBench-Exec copies).
        max_steps (`int`, defaults to 5000): line events allowed per traced call (the budget that decides).
        timeout (`float`, defaults to 30.0): wall-clock guard per traced call, far above what ``max_steps``
            needs, so that the machine's load cannot change which programs are kept (byte reproducibility).
        programs (`str`, optional): a folder of program records (``synthesize`` or ``from-code`` output) to
            build from instead of synthesizing (:mod:`execverify_data.release.programs`).
        decontam_allow (`tuple[str, ...]`): benchmarks not decontaminated against (a from-code input's own).
        view_examples (`int`, defaults to 5): trace rows rendered as offline pages under ``examples/`` (the
            card links them; 0: none).
        naturalness_every (`int`, defaults to 4): the card's naturalness table measures the kept programs
            whose synthesis row is a multiple of this (1: every program).
        license (`str`, defaults to ``"mit"``): the license of the release's data (an SPDX-like id, lower case on
            the Hub); code given to ``from-code`` keeps its own, which the card lists.
        description (`str`), limitations (`str`): the card's opening words on what the release is for, and the
            limitations a user adds to those the card always states.
        chain_style (`str`, defaults to ``"explained"``): how the ``sft`` config's reasoning chains are written
            (:data:`execverify_data.rationale.CHAIN_STYLES`: ``trace``, ``explained``, ``compact``).
    """

    version: str
    n_examples: int
    seed: int = 0
    k: int = 6
    shard_size: int = 500
    n_path: int = 2
    n_state: int = 2
    codegen_examples: int = 2
    codegen_extra_inputs: int = 4
    test_permille: int = 50
    rows_per_file: int = 20000
    row_group_size: int = 1000
    decontam_n: int = 10
    decontam_threshold: float = 0.5
    local_benchmarks: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    max_steps: int = 5000
    timeout: float = 30.0
    programs: str | None = None
    decontam_allow: tuple[str, ...] = ()
    naturalness_every: int = 4
    view_examples: int = 5
    license: str = "mit"
    description: str = ""
    limitations: str = ""
    chain_style: str = "explained"

    def __post_init__(self) -> None:
        if not isinstance(self.version, str) or not _VERSION.match(self.version):
            raise InvalidArgument(f"version must look like 1.0.0, got {self.version!r}")
        for name in ("n_examples", "shard_size", "rows_per_file", "row_group_size", "naturalness_every"):
            value = getattr(self, name)
            check_int(name, value)
        check_int("seed", self.seed, minimum=0)
        check_int("k", self.k, minimum=3)
        if not isinstance(self.test_permille, int) or not 0 <= self.test_permille < 1000:
            raise InvalidArgument(f"test_permille must be an int in [0, 1000), got {self.test_permille!r}")
        from execverify_data.rationale import CHAIN_STYLES

        if self.chain_style not in CHAIN_STYLES:
            raise InvalidArgument(f"chain_style must be one of {', '.join(CHAIN_STYLES)}, got {self.chain_style!r}")
        if not 1 <= self.codegen_examples < self.k:
            raise InvalidArgument(f"codegen_examples must be in [1, k), got {self.codegen_examples!r}")
        object.__setattr__(self, "local_benchmarks", tuple((str(a), str(b)) for a, b in self.local_benchmarks))
        object.__setattr__(self, "decontam_allow", tuple(sorted(set(self.decontam_allow))))
        if self.programs is not None:
            object.__setattr__(self, "programs", str(self.programs))

    @property
    def max_rows(self) -> int:
        """The most synthesis rows a build tries (a generator that keeps failing must not loop for ever);
        with :attr:`programs`, the number of records given."""
        if self.programs is not None:
            from execverify_data.release.programs import program_records

            return len(program_records(self.programs))
        return self.synth_config().max_rows

    def synth_config(self):
        """The settings of the build's synthesis rows (its ``n_programs``: the programs ``n_examples`` examples need at most, each
        program giving ``k`` examples or more; it bounds :attr:`max_rows`, the build stops on examples)."""
        from execverify_data.pipeline import SynthConfig

        return SynthConfig(n_programs=math.ceil(self.n_examples / self.k), seed=self.seed, k=self.k, shard_size=self.shard_size,
                           max_steps=self.max_steps, timeout=self.timeout)

    def identity(self) -> dict:
        """What a resumed build must share with the first run (the version is not part of it: only of the card)."""
        from execverify_data.synth.generator import GENERATOR_VERSION

        # its key stays "n", as in the builds and manifests made before the field was named n_examples
        data = {"n" if k == "n_examples" else k: v for k, v in asdict(self).items()}
        data.pop("version")
        data.pop("view_examples")  # pages rendered at assembly: no shard depends on them
        for name in ("license", "description", "limitations"):  # the card's words: no shard depends on them
            data.pop(name)
        data["local_benchmarks"] = [list(x) for x in self.local_benchmarks]
        for name in ("programs", "decontam_allow"):  # only when set: older builds resume as before
            if not data[name]:
                data.pop(name)
        if "decontam_allow" in data:
            data["decontam_allow"] = list(self.decontam_allow)
        data["generator_version"] = GENERATOR_VERSION
        data["python"] = platform.python_version()
        return data


#: The difficulty features of a row (:data:`execverify_data.difficulty.FEATURES`), one int column each.
Features = TypedDict("Features", {name: int for name in FEATURES})
FEATURE_COLUMNS = FEATURES


class _Head(TypedDict):
    id: str
    program_id: str
    level: int
    target: str


class _Program(TypedDict):
    code: str
    entry_point: str
    description: str
    ast_hash: str
    difficulty: float
    bucket: int
    features: Features
    python: str
    generator_version: str
    seed: int
    release_seed: int


class _Question(TypedDict):
    call: str
    task: str
    prompt: str


class _Reference(TypedDict):
    reference_completion: str


class _Completion(TypedDict):
    completion: str


class _Verified(TypedDict):
    question_kinds: list[str]
    verification: str
    expected_output: str
    expected_type: str


class _Codegen(TypedDict):
    prompt: str
    examples: list[str]
    tests: list[str]
    reference_solution: str


class QuestionRow(_Head, _Question, _Reference, _Verified, _Program):
    """A row of ``io``, ``oi`` and ``trace`` (the columns in the published order)."""


class SftRow(_Head, _Question, _Completion, _Verified, _Program):
    """A row of ``sft``: its reference completion is TRL's ``completion``."""


class CodegenRow(_Head, _Codegen, _Program):
    """A row of ``codegen``."""


ROW_TYPES = {"io": QuestionRow, "oi": QuestionRow, "trace": QuestionRow, "sft": SftRow, "codegen": CodegenRow}


#: The column a release publishes only when some program of it has a description (a release of programs without
#: one keeps the columns, and so the bytes, of the releases made before the field existed).
DESCRIPTION_COLUMN = "description"


def schema_for(config: str, *, described: bool = True):
    """The pyarrow schema of a config's rows (column order is the published order); ``described=False`` leaves
    out :data:`DESCRIPTION_COLUMN`.

    >>> "description" in schema_for("codegen").names, "description" in schema_for("codegen", described=False).names
    (True, False)
    """
    from execverify_data.records import arrow_schema

    return arrow_schema(ROW_TYPES[config], leave_out=() if described else (DESCRIPTION_COLUMN,))
