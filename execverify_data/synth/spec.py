"""``ConstraintSpec``: the structural constraints one synthesized program must meet.

It mirrors the ExecVerify prompt ("write Python code that tests the ``{method}``
method of the ``{type}`` type" with nested calls, other methods, a control-flow
chain and a helper-A / entry-B call chain) and its six difficulty levels:

====== ==========================================================
level  constraints
====== ==========================================================
1      nested calls
2      + other catalog methods/functions
3      + control-flow chain of depth 1
4      + control-flow chain of depth 2
5      + control-flow chain of depth 3
6      + helper chain (the entry point calls a helper function)
====== ==========================================================

>>> import random
>>> spec = level_spec(3, "str.split", random.Random(0))
>>> spec.target, spec.other_methods, len(spec.control_flow)
('str.split', True, 1)
>>> ConstraintSpec.from_dict(spec.to_dict()) == spec
True
>>> ConstraintSpec("list.pop", control_flow=("for", "loop"))
Traceback (most recent call last):
...
execverify_data.errors.InvalidArgument: control_flow[1] is 'loop'; each step must be one of ('if', 'for', 'while', 'if-elif')
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import KW_ONLY, asdict, dataclass, fields

from execverify_data import catalog
from execverify_data.errors import InvalidArgument

__all__ = ["CONTROL_FLOW", "LEVELS", "ConstraintSpec", "level_of", "level_spec"]

#: The statements a control-flow chain is made of; ``if-elif`` is an ``if`` with an ``elif``.
CONTROL_FLOW: tuple[str, ...] = ("if", "for", "while", "if-elif")
MAX_CHAIN = 3
MAX_NESTED_DEPTH = 3
MAX_HELPER_DEPTH = 3
MAX_PARAMS = 5
MAX_SIZE = 1000

#: One line per level, for help texts and dataset cards.
LEVELS: dict[int, str] = {
    1: "nested calls",
    2: "nested calls + other methods",
    3: "nested calls + other methods + control flow depth 1",
    4: "nested calls + other methods + control flow depth 2",
    5: "nested calls + other methods + control flow depth 3",
    6: "nested calls + other methods + control flow depth 3 + helper chain",
}


def _int(name: str, value: object, lo: int, hi: int, meaning: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name} must be an int from {lo} to {hi} ({meaning}), got {value!r}")
    if not lo <= value <= hi:
        raise InvalidArgument(f"{name} must be from {lo} to {hi} ({meaning}), got {value}")


@dataclass(frozen=True)
class ConstraintSpec:
    """Constraints for one program; every argument is checked at construction.

    Args:
        target (`str`): catalog id of the method or builtin function under test,
            e.g. ``"str.split"`` or ``"builtin.sorted"``.
        nested_depth (`int`, defaults to 0): a call must have a call as argument, this
            many levels deep (``f(g(x))`` is 1, ``f(g(h(x)))`` is 2); 0 asks for none.
        other_methods (`bool`, defaults to False): use at least one other catalog
            method or builtin function.
        control_flow (`tuple[str, ...]`, defaults to ``()``): up to three of ``if``,
            ``for``, ``while``, ``if-elif``, each nested in the previous one.
        helper_depth (`int`, defaults to 0): the entry point calls a helper defined
            in the module, which calls the next... this many levels; 0 asks for none.
        n_params (`int`, defaults to 1): the entry point's number of parameters.
        min_size, max_size (`int`, defaults to 0 and 10): length bounds for container
            and string inputs (ExecVerify asks for lengths greater than five: ``min_size=6``).
            They bind the input generator; the checker cannot see inputs.

    >>> ConstraintSpec("builtin.sorted", nested_depth=1).control_flow
    ()
    """

    target: str
    _: KW_ONLY
    nested_depth: int = 0
    other_methods: bool = False
    control_flow: tuple[str, ...] = ()
    helper_depth: int = 0
    n_params: int = 1
    min_size: int = 0
    max_size: int = 10

    def __post_init__(self) -> None:
        if not isinstance(self.target, str):
            raise InvalidArgument(f"target must be a catalog id string like 'str.split', got {self.target!r}")
        entry = catalog.get(self.target)
        if entry.kind not in ("method", "function"):
            raise InvalidArgument(f"target {self.target!r} is an operator; a target must be a method ('list.pop') or "
                                  "builtin function ('builtin.sorted')")
        _int("nested_depth", self.nested_depth, 0, MAX_NESTED_DEPTH, "levels of calls as arguments of calls")
        if not isinstance(self.other_methods, bool):
            raise InvalidArgument(f"other_methods must be True or False, got {self.other_methods!r}")
        flow = self.control_flow
        if isinstance(flow, str) or not isinstance(flow, (tuple, list)):
            raise InvalidArgument(
                f"control_flow must be a tuple of steps from {CONTROL_FLOW}, e.g. ('for', 'if'), got {flow!r}")
        if len(flow) > MAX_CHAIN:
            raise InvalidArgument(
                f"control_flow has {len(flow)} steps; at most {MAX_CHAIN} are allowed, got {tuple(flow)!r}")
        for i, step in enumerate(flow):
            if step not in CONTROL_FLOW:
                raise InvalidArgument(f"control_flow[{i}] is {step!r}; each step must be one of {CONTROL_FLOW}")
        object.__setattr__(self, "control_flow", tuple(flow))
        _int("helper_depth", self.helper_depth, 0, MAX_HELPER_DEPTH, "0: no helper; 1: the entry point calls a helper")
        _int("n_params", self.n_params, 1, MAX_PARAMS, "parameters of the entry point")
        _int("min_size", self.min_size, 0, MAX_SIZE, "shortest container/string input")
        _int("max_size", self.max_size, 0, MAX_SIZE, "longest container/string input")
        if self.min_size > self.max_size:
            raise InvalidArgument(f"min_size ({self.min_size}) must not exceed max_size ({self.max_size})")

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict (``control_flow`` as a list).

        >>> ConstraintSpec("list.pop", control_flow=("for",)).to_dict()["control_flow"]
        ['for']
        """
        data = asdict(self)
        data["control_flow"] = list(self.control_flow)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> ConstraintSpec:
        """Rebuild a spec from :meth:`to_dict` output; unknown keys are an error.

        >>> ConstraintSpec.from_dict({"target": "list.pop", "depth": 1})
        Traceback (most recent call last):
        ...
        execverify_data.errors.InvalidArgument: unknown ConstraintSpec key(s) ['depth']; valid keys are [...]
        """
        if not isinstance(data, Mapping):
            raise InvalidArgument(f"from_dict needs a mapping such as spec.to_dict(), got {type(data).__name__}")
        valid = [f.name for f in fields(cls) if f.name != "_"]
        unknown = sorted(set(data) - set(valid))
        if unknown:
            raise InvalidArgument(f"unknown ConstraintSpec key(s) {unknown}; valid keys are {valid}")
        if "target" not in data:
            raise InvalidArgument("a ConstraintSpec dict needs a 'target' (a catalog id like 'str.split')")
        options = {k: v for k, v in data.items() if k != "target"}
        if isinstance(options.get("control_flow"), list):
            options["control_flow"] = tuple(options["control_flow"])
        return cls(data["target"], **options)


def level_spec(level: int, target: str, rng: random.Random, *, min_size: int = 6, max_size: int = 10) -> ConstraintSpec:
    """The spec of ExecVerify level ``level`` (1-6) for ``target``.

    Random choices (nesting depth 1-2, which control-flow steps, 1-2 parameters) are
    drawn from ``rng`` only, so a seed replays the same spec.

    Args:
        level (`int`): 1 to 6, see :data:`LEVELS`.
        target (`str`): catalog id of a method or builtin function.
        rng (`random.Random`): the source of every random choice.
        min_size, max_size (`int`, defaults to 6 and 10): input length bounds.

    >>> s = level_spec(6, "dict.get", random.Random(1))
    >>> len(s.control_flow), s.helper_depth, s.min_size
    (3, 1, 6)
    """
    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
        raise InvalidArgument(f"level must be an int from 1 to 6 ({LEVELS}), got {level!r}")
    if not isinstance(rng, random.Random):
        raise InvalidArgument(f"rng must be a random.Random (e.g. random.Random(seed)), got {type(rng).__name__}")
    depth = _CHAIN_DEPTH[level]
    chain: list[str] = []
    for _ in range(depth):
        weights = _NEXT_STEP[chain[-1] if chain else None]
        chain.append(rng.choices(CONTROL_FLOW, weights=[weights[k] for k in CONTROL_FLOW])[0])
    return ConstraintSpec(target, nested_depth=1 if rng.random() < 0.8 else 2, other_methods=level >= 2,
                          control_flow=tuple(chain), helper_depth=1 if level == 6 else 0, n_params=rng.randint(1, 2),
                          min_size=min_size, max_size=max_size)


#: control-flow steps per level (levels 1-2: none; 3-5: one to three; 6: three and a helper)
_CHAIN_DEPTH = {1: 0, 2: 0, 3: 1, 4: 2, 5: 3, 6: 3}
#: how often each step follows the previous one in a drawn chain: every chain can be drawn, the ones
#: people write (a test inside a loop, nested loops over two inputs) most often
_NEXT_STEP: dict[str | None, dict[str, int]] = {
    None: {"for": 40, "while": 20, "if": 25, "if-elif": 15},
    "for": {"for": 15, "while": 10, "if": 45, "if-elif": 30},
    "while": {"for": 15, "while": 5, "if": 50, "if-elif": 30},
    "if": {"for": 40, "while": 20, "if": 25, "if-elif": 15},
    "if-elif": {"for": 40, "while": 20, "if": 30, "if-elif": 10},
}


def level_of(spec: ConstraintSpec) -> int:
    """The ExecVerify level a spec corresponds to (1-6): the one place levels are defined from specs.

    >>> level_of(ConstraintSpec("str.split", control_flow=("for", "if")))
    4
    """
    if spec.helper_depth:
        return 6
    if spec.control_flow:
        return 2 + len(spec.control_flow)
    return 2 if spec.other_methods else 1
