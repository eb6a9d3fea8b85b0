"""Batches of the trusted runner: several calls, of one program or of several, in one forked process
give, call for call, the results that one fork per call gives (``TrustedRunner.map(..., batch=N)``)."""

from __future__ import annotations

import random

import pytest

from execverify_data.errors import ProgramError
from execverify_data.sandbox.trusted import TrustedRunner, _shares_nothing, _units
from execverify_data.trace import Status

COUNTER = (
    "seen = []\n"
    "total = 0\n"
    "def f(x):\n"
    "    global total\n"
    "    seen.append(x)\n"
    "    total += x\n"
    "    return total, len(seen)\n"
)
RANDOM = "import random\ndef f(x):\n    random.seed(x) if x < 0 else None\n    return random.random()\n"
FAILS = "def f(x):\n    return 10 // x\n"
LOOPS = "def f(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n"
SPIN = "def f(x):\n    while x:\n        pass\n    return x\n"
STUCK = "def f(x):\n    return sum(range(10 ** 15)) if x else 0\n"
GREEDY = "def f(n):\n    block = bytearray(n)\n    return len(block)\n"
RECURSES = "def f(n):\n    return n if n == 0 else 1 + f(n - 1)\n"
PATCHES = "import math\ndef f(x):\n    if x:\n        math.pi = 3\n    return math.pi\n"
NO_ENTRY = "def g(x):\n    return x\n"
BROKEN = "def f(x:\n"
DIES_AT_DEFINITION = "raise ValueError('no')\ndef f(x):\n    return x\n"


#: What a call that runs out of time gets: the events of a timeout depend on the clock, and
#: ``trace_call`` sometimes fails with an ``UnboundLocalError`` when its repeated alarm lands in
#: the ``finally`` clause that ends the call (the job's process then exits with code 1), one fork
#: per call or not.
_OUT_OF_TIME = (Status.TIMEOUT, Status.CRASHED)


def _out_of_time(result) -> bool:
    return result.status is Status.TIMEOUT or (
        result.status is Status.CRASHED and result.exception.message.endswith("exited with code 1 without a result"))


def _same(a, b) -> bool:
    """Equal results; calls out of time compare by that alone."""
    if isinstance(a, ProgramError) or isinstance(b, ProgramError):
        return type(a) is type(b) and str(a) == str(b)
    if a.status is Status.TIMEOUT or b.status is Status.TIMEOUT:
        return _out_of_time(a) and _out_of_time(b)
    return (a.status, a.events, a.output, a.exception, a.stdout, a.python) == (b.status, b.events, b.output, b.exception, b.stdout, b.python)


def _compare(runner: TrustedRunner, jobs: list[tuple[str, str]], batch: int = 16) -> list:
    alone = runner.map(jobs, return_exceptions=True)
    together = runner.map(jobs, return_exceptions=True, batch=batch)
    differ = [(job, a, b) for job, a, b in zip(jobs, alone, together) if not _same(a, b)]
    assert not differ, differ[:3]
    return together


@pytest.fixture(scope="module")
def runner():
    with TrustedRunner(2, timeout=0.5, grace=0.5, max_steps=2000, memory_mb=512) as pool:
        yield pool


def test_units_keep_each_programs_jobs_together_in_order():
    from execverify_data.sandbox.trusted import Job

    work = [Job("a", "f(1)"), Job("b", "f(1)"), Job("a", "f(2)"), Job("a", "f(3)"), Job("b", "f(2)")]
    assert _units(work, 2) == [[0, 2], [3, 1], [4]]  # a unit that has room takes the next program's jobs
    assert _units(work, 16) == [[0, 2, 3, 1, 4]]
    assert _units(work, 1) == [[0], [1], [2], [3], [4]]


def test_few_jobs_still_use_every_worker(runner):
    # 4 jobs, 2 workers: two batches of 2, not one of 4
    jobs = [(LOOPS, f"f({i})") for i in range(4)]
    assert [r.output.text for r in runner.map(jobs, batch=16)] == ["0", "1", "2", "3"]


def test_module_level_state_starts_afresh_in_every_call(runner):
    results = _compare(runner, [(COUNTER, f"f({i})") for i in (1, 2, 3, 4)])
    assert [r.output.text for r in results] == ["(1, 1)", "(2, 1)", "(3, 1)", "(4, 1)"]


def test_randomness_starts_from_the_same_seed_in_every_call(runner):
    results = _compare(runner, [(RANDOM, f"f({x})") for x in (1, -5, 1, 2)])
    assert results[0].output == results[2].output == results[3].output != results[1].output


def test_exceptions_step_limits_and_program_errors(runner):
    jobs = ([(FAILS, f"f({x})") for x in (1, 0, 2, 0, 5)] + [(LOOPS, f"f({n})") for n in (5, 5000, 7, 10**6, 3)]
            + [(NO_ENTRY, "f(1)"), (NO_ENTRY, "f(2)"), (BROKEN, "f(1)"), (BROKEN, "f(2)")]
            + [(DIES_AT_DEFINITION, "f(1)"), (DIES_AT_DEFINITION, "f(2)")])
    results = _compare(runner, jobs)
    assert [r.status for r in results[:10]] == [Status.OK, Status.EXCEPTION, Status.OK, Status.EXCEPTION, Status.OK,
                                                Status.OK, Status.STEP_LIMIT, Status.OK, Status.STEP_LIMIT, Status.OK]
    assert all(isinstance(r, ProgramError) for r in results[10:])


@pytest.fixture(scope="module")
def patient():
    # a step budget large enough that SPIN ends by timeout on every version
    with TrustedRunner(2, timeout=0.5, grace=0.5, max_steps=10**9) as pool:
        yield pool


def test_a_timeout_in_a_batch_leaves_the_other_calls_their_results(patient):
    results = _compare(patient, [(SPIN, "f(0)"), (SPIN, "f(1)"), (SPIN, "f(0)"), (SPIN, "f(1)"), (SPIN, "f(0)")])
    assert [r.status for r in results[::2]] == [Status.OK] * 3
    assert all(r.status in _OUT_OF_TIME for r in results[1::2])


def test_a_killed_call_in_a_batch_leaves_the_other_calls_their_results(patient):
    # f(1) is stuck in one C call: the worker kills the batch's process; f(0) after it runs in a new one
    results = patient.map([(STUCK, "f(0)"), (STUCK, "f(1)"), (STUCK, "f(0)")], batch=16)
    assert [r.status for r in results] == [Status.OK, Status.TIMEOUT, Status.OK]
    assert results[1].events == ()


def test_memory_errors_and_crashes_are_the_ones_a_call_gets_alone(runner):
    # a MemoryError or a crash after other calls ran in the process is run again in a fresh one
    big = 2 * 1024 ** 3
    results = _compare(runner, [(GREEDY, "f(10)"), (GREEDY, f"f({big})"), (GREEDY, "f(20)"), (GREEDY, f"f({big})")]
                       + [(RECURSES, "f(3)"), (RECURSES, "f(100000)"), (RECURSES, "f(4)")])
    assert [r.status for r in results[:4]] == [Status.OK, Status.EXCEPTION, Status.OK, Status.EXCEPTION]
    assert results[1].exception.type == "MemoryError"
    assert results[6].output.text == "4"


def test_a_set_of_strings_iterates_as_in_a_process_of_its_own(runner):
    # '7755' interned by the first call's text would reorder the frozenset constant of the second
    source = "def f(xs):\n    return list(xs)\n"
    strings = "frozenset({'463', '7755', 'a s', 'banana', 'mango', 'tree ', 'yo'})"
    results = _compare(runner, [(source, "f(('7755',))"), (source, f"f({strings})"), (source, f"f({strings[10:-1]})")])
    assert results[1].output.text.startswith("['a s', '463', '7755'")


def test_a_program_that_patches_a_module_gets_a_process_per_call(runner):
    assert not _shares_nothing(PATCHES)
    results = _compare(runner, [(PATCHES, "f(1)"), (PATCHES, "f(0)"), (PATCHES, "f(1)"), (PATCHES, "f(0)")])
    assert [r.output.text for r in results] == ["3", "3.141592653589793", "3", "3.141592653589793"]


READS_PI = "import math\ndef f(x):\n    return math.pi, x\n"


def test_a_program_after_one_that_patches_a_module_sees_it_unpatched(runner):
    jobs = [(PATCHES, "f(1)"), (READS_PI, "f(0)"), (COUNTER, "f(2)"), (PATCHES, "f(1)"), (READS_PI, "f(1)")]
    results = _compare(runner, jobs)
    assert [r.output.text for r in results[:2]] == ["3", "(3.141592653589793, 0)"]


def test_a_program_whose_set_of_strings_another_program_would_reorder_runs_first_in_a_process():
    # the first program's text interns '7755', which would reorder the second one's frozenset constant
    first = "def f(x):\n    return x == '7755'\n"
    second = "def f(x):\n    return list({'463', '7755', 'a s', 'banana', 'mango', 'tree ', 'yo'}), x\n"
    with TrustedRunner(1, timeout=2.0) as one:
        results = _compare(one, [(first, "f('a')"), (second, "f(1)"), (first, "f('b')"), (second, "f(2)")])
    assert results[1].output.text.startswith("(['a s', '463', '7755'")


def test_calls_of_many_programs_in_one_batch_get_their_own_results(runner):
    jobs = [(source, f"f({i})") for i in range(3) for source in (LOOPS, COUNTER, FAILS, RECURSES)]
    results = _compare(runner, jobs)
    assert [r.status for r in results[:4]] == [Status.OK, Status.OK, Status.EXCEPTION, Status.OK]


#: programs that change what another program would see without an attribute store, a refused name or a dunder
#: name (``_shares_nothing`` approves each): a module's private table, a class's registry, the builtins reached
#: through a string; each changes the result of the program after it in the same process
_POISONERS = (
    "import copy\ndef f(x):\n    copy._deepcopy_dispatch[list] = lambda v, memo: 'forged'\n    return x\n",
    "import collections\ndef f(x):\n    collections.abc.Sequence.register(dict)\n    return x\n",
    "import operator\ndef f(x):\n    b = operator.attrgetter('__self__')(print)\n"
    "    operator.attrgetter('__dict__')(b)['sorted'] = lambda v: ['forged']\n    return x\n",
)
_VICTIM = ("import copy\nimport collections\ndef f(x):\n"
           "    return copy.deepcopy(x), isinstance({}, collections.abc.Sequence), sorted(x)\n")


@pytest.mark.parametrize("poisoner", _POISONERS)
def test_a_program_never_shares_a_process_with_another_program(poisoner):
    """Issue 29, item 3: one program per forked child. A bytecode check cannot prove that a program leaves the
    interpreter as it found it, so the next program starts in a fresh fork whatever the check says (on 09a4aa7
    the victim's calls, batched after the poisoner's, got 'forged' and True)."""
    assert _shares_nothing(poisoner)  # the check approves it: the fork is what protects the next program
    jobs = [(poisoner, "f(1)"), (_VICTIM, "f([2, 1])"), (poisoner, "f(2)"), (_VICTIM, "f([3])")]
    with TrustedRunner(1, timeout=2.0) as one:  # one worker: the four calls are one unit
        results = _compare(one, jobs)
    assert [r.output.text for r in results[1::2]] == ["([2, 1], False, [1, 2])", "([3], False, [3])"]


@pytest.mark.parametrize("source", [
    "import os\ndef f():\n    return 1\n",
    "def f():\n    setattr(f, 'x', 1)\n",
    "def f():\n    return globals()\n",
    "def f():\n    return f.__globals__\n",
    "class A:\n    pass\ndef f():\n    a = A()\n    a.x = 1\n",
    "def f():\n    return open('/dev/null').read()\n",
    "def f():\n    g = (i for i in ())\n    return g.gi_frame.f_back\n",
    "def f():\n    def g():\n        import sys\n        return sys\n    return g()\n",
])
def test_what_may_reach_the_shared_state_is_refused(source):
    assert not _shares_nothing(source)


@pytest.mark.parametrize("source", [
    "import math\nfrom collections import Counter\ndef f(x):\n    return math.floor(x), Counter('ab')\n",
    "def f(x):\n    return [y * 2 for y in x if y]\n",
    "if __name__ == '__main__':\n    pass\ndef f():\n    return 1\n",
    BROKEN,
])
def test_plain_programs_share_a_process(source):
    assert _shares_nothing(source)


def _synthesized_jobs(n: int, seed: int) -> list[tuple[str, str]]:
    """Each program's calls on its own inputs, and calls that raise (no arguments, another
    program's arguments, the arguments reversed), in a shuffled order."""
    from execverify_data.pipeline import SynthConfig, synthesize_rows

    records, _ = synthesize_rows(SynthConfig(n_programs=n, seed=seed, k=6), 0, n)
    jobs = []
    for number, record in enumerate(records):
        name, inputs = record.entry_point, record.inputs
        jobs += [(record.code, f"{name}({args})") for args in inputs]
        other = records[(number + 1) % len(records)].inputs[0]
        jobs += [(record.code, f"{name}()"), (record.code, f"{name}({other})")]
        jobs += [(record.code, f"{name}({', '.join(reversed(args.split(', ')))})") for args in inputs[:1]]
    random.Random(seed).shuffle(jobs)
    return jobs


def test_batches_of_synthesized_programs_give_the_results_of_one_fork_per_call():
    jobs = _synthesized_jobs(25, seed=5)
    with TrustedRunner(2, timeout=2.0, max_steps=40) as pool:  # a small step budget: some calls exhaust it
        results = _compare(pool, jobs, batch=4)
    statuses = {r.status for r in results if not isinstance(r, ProgramError)}
    assert {Status.OK, Status.EXCEPTION, Status.STEP_LIMIT} <= statuses


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_thousands_of_synthesized_calls_give_the_results_of_one_fork_per_call(seed):
    jobs = _synthesized_jobs(300, seed=seed)
    jobs += [(SPIN, "f(1)"), (SPIN, "f(0)"), (COUNTER, "f(1)"), (COUNTER, "f(2)"), (FAILS, "f(0)"), (FAILS, "f(1)")]
    assert len(jobs) > 2000
    with TrustedRunner(2, timeout=0.5, max_steps=100 if seed else 10**9) as pool:
        results = _compare(pool, jobs)
    statuses = {r.status for r in results if not isinstance(r, ProgramError)}
    assert {Status.OK, Status.EXCEPTION, Status.STEP_LIMIT if seed else Status.TIMEOUT} <= statuses


def test_traces_without_events_have_the_outcome_of_traces_with_them(runner):
    """``map(..., events=False)`` (the oi scorer's): the same status, output, exception and stdout, no events."""
    jobs = _synthesized_jobs(12, seed=7) + [(FAILS, "f(0)"), (LOOPS, "f(10**6)"), (NO_ENTRY, "f(1)"), (SPIN, "f(1)")]
    full = runner.map(jobs, return_exceptions=True, batch=16)
    bare = runner.map(jobs, return_exceptions=True, batch=16, events=False)
    assert any(not isinstance(r, ProgramError) and r.events for r in full)
    for job, a, b in zip(jobs, full, bare):
        if isinstance(a, ProgramError) or isinstance(b, ProgramError):
            assert type(a) is type(b) and str(a) == str(b), job
            continue
        assert b.events == (), job
        if a.status is Status.TIMEOUT or b.status is Status.TIMEOUT:
            assert _out_of_time(a) and _out_of_time(b), job
            continue
        assert (a.status, a.output, a.exception, a.stdout, a.python) == (b.status, b.output, b.exception, b.stdout, b.python), job
