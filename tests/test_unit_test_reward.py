"""The unit-test reward: TRL contract, code extraction, the equality split decided in the
parent, other test forms, pickling, and every HumanEval canonical solution scoring 1.0."""

from __future__ import annotations

import pickle
import threading

import pytest

from execverify_data.data import humaneval_records
from execverify_data.errors import InvalidArgument
from execverify_data.rewards import (
    REWARDS,
    UnitTestReward,
    extract_code,
    get_reward,
    split_assertion,
    unit_test_reward,
)
from sandbox_helpers import stray_processes

ADD = "def add(a, b):\n    return a + b\n"


@pytest.fixture(autouse=True)
def no_stray_processes():
    yield
    assert stray_processes() == []


@pytest.fixture(scope="module")
def reward():
    return UnitTestReward(timeout=2.0, workers=2)


def fenced(code: str, tag: str = "python") -> str:
    return f"Sure.\n```{tag}\n{code}```\nDone."


def test_fraction_of_tests_passed(reward):
    tests = ["assert add(1, 2) == 3", "assert add(2, 2) == 5", "assert add('a', 'b') == 'ab'",
             "assert add(0.1, 0.25) == 0.35"]
    # add(2, 2) == 5 fails; 0.1 + 0.25 == 0.35 holds in Python, so it passes
    assert reward(prompts=["p"], completions=[fenced(ADD)], tests=[tests]) == [0.75]


def test_chat_completions_and_rows_without_tests(reward):
    chat = [{"role": "assistant", "content": fenced(ADD)}]
    out = reward(prompts=["p"] * 3, completions=[chat, chat, chat], tests=[["assert add(1, 1) == 2"], None, []])
    assert out == [1.0, None, None]


def test_nothing_passes_gives_zero_not_a_crash(reward):
    completions = ["no code here at all", fenced("def add(a, b):\n    return None\n"), fenced("def add(:"), ""]
    tests = [["assert add(1, 2) == 3", "assert add(1, 2) > 2"]] * 4
    assert reward(prompts=[""] * 4, completions=completions, tests=tests) == [0.0] * 4


def test_equality_is_pythons(reward):
    # `assert CALL == LITERAL` passes exactly when it passes in Python: 1.0 == 1 and True == 1 hold, a tuple is no
    # list, floats compare exactly (no tolerance), NaN equals nothing; each test alone, then all of them together
    code = fenced("def f():\n    return 1.0\ndef g():\n    return {3, 1}\ndef h():\n    return True\n"
                  "def t():\n    return (1,)\ndef s():\n    return 0.1 + 0.2\ndef n():\n    return float('nan')\n"
                  "def big():\n    return 123456789.1\n")
    cases = {"assert f() == 1": True, "assert g() == {1, 3}": True, "assert h() == 1": True, "assert f() == 1.0": True,
             "assert t() == [1]": False, "assert t() == (1,)": True, "assert s() == 0.3": False,
             "assert s() == 0.30000000000000004": True, "assert n() == float('nan')": False,
             "assert big() == 123456789.0": False, "assert 150.0 == s() * 500": False}
    for test, passes in cases.items():
        namespace: dict = {}
        exec(code.split("```python\n")[1].split("```")[0], namespace)  # the reference: Python itself
        try:
            exec(test, namespace)
            python = True
        except AssertionError:
            python = False
        assert python is passes, test
        assert reward(prompts=[""], completions=[code], tests=[[test]]) == [float(passes)], test
    expected = sum(cases.values()) / len(cases)
    assert reward(prompts=[""], completions=[code], tests=[list(cases)]) == [expected]


def test_lying_eq_cannot_pass_either_form(reward):
    liar = fenced("class L:\n    def __eq__(self, o):\n        return True\n    def __repr__(self):\n        return '3'\n"
                  "def add(a, b):\n    return L()\n")
    tests = ["assert add(1, 2) == 3", "assert add(1, 2) == 3 or False", "def check(c):\n    assert c(1, 2) == 3\n"]
    assert reward(prompts=[""], completions=[liar], tests=[tests], entry_point=["add"]) == [0.0]


def test_other_forms_and_humaneval_style_check(reward):
    tests = ["assert abs(add(0.5, 0.25) - 0.75) < 1e-9",
             "assert add(1, 2) in (3, 4)",
             "def check(candidate):\n    assert candidate(2, 3) == 5\n",
             "assert add(1, 2) != 3"]
    out = reward(prompts=[""], completions=[fenced(ADD)], tests=[tests], entry_point=["add"])
    assert out == [0.75]


def test_a_check_that_calls_nothing_runs_with_the_tester(reward):
    # decidable in the parent but with no call of the candidate: it used to index a call job that did not exist
    tests = ["def check(c):\n    assert abs(-1) == 1\n", "def check(c):\n    assert abs(-1) == 2\n",
             "def check(c):\n    assert c(1, 2) == 3\n"]
    assert reward(prompts=[""], completions=[fenced(ADD)], tests=[tests], entry_point=["add"]) == [2 / 3]
    assert reward(prompts=[""], completions=[fenced("def add(:")], tests=[tests[:1]], entry_point=["add"]) == [0.0]


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ("assert add(1, 2) == 3", ("add(1, 2)", "3")),
        ("assert 3 == add(1, 2)", ("add(1, 2)", "3")),
        ("assert f(x=[1, 2]) == {'a': (1,)}", ("f(x=[1, 2])", "{'a': (1,)}")),
        ("assert f() == float('nan')", ("f()", "float('nan')")),
        ("assert f() == g()", None),
        ("assert f() == x", None),
        ("assert f() != 3", None),
        ("assert f() == 3 == 3", None),
        ("x = 1\nassert f() == 3", None),
        ("assert f(", None),
    ],
)
def test_split_assertion(test, expected):
    split = split_assertion(test)
    if expected is None:
        assert split is None
    else:
        assert (split[0], split[1].text) == expected


def test_extract_code():
    assert extract_code("```python\na = 1\n```\ntext\n```python\nb = 2\n```") == "b = 2\n"
    assert extract_code("```\nc = 3\n```") == "c = 3\n"
    assert extract_code("```python\nunclosed = 1\n") == "unclosed = 1\n"
    assert extract_code("```bash\nls\n```") == "```bash\nls\n```"
    assert extract_code([{"role": "assistant", "content": [{"type": "text", "text": "d = 4"}]}]) == "d = 4"


def test_pickle_round_trip_and_name():
    fn = pickle.loads(pickle.dumps(unit_test_reward))
    assert fn.__name__ == "unit_test_reward"
    assert fn(prompts=[""], completions=[ADD], tests=[["assert add(2, 2) == 4"]]) == [1.0]
    private = pickle.loads(pickle.dumps(UnitTestReward(timeout=3.0, workers=1)))
    assert (private.timeout, private.workers) == (3.0, 1)


def test_thread_safe(reward):
    results = {}

    def score(i):
        results[i] = reward(prompts=[""], completions=[ADD], tests=[[f"assert add({i}, 1) == {i + 1}"]])

    threads = [threading.Thread(target=score, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(results[i] == [1.0] for i in range(8))


def test_registry_and_bad_arguments():
    assert "unit_test" in REWARDS and isinstance(get_reward("unit_test"), UnitTestReward)
    with pytest.raises(ValueError, match="unit_test"):
        get_reward("nope")
    with pytest.raises(InvalidArgument):
        UnitTestReward(timeout=0)
    with pytest.raises(InvalidArgument):
        unit_test_reward(prompts=[""], completions=["x"], tests=[["a"], ["b"]])
    with pytest.raises(InvalidArgument):
        unit_test_reward(prompts=[""], completions=[3], tests=[["assert True"]])
    with pytest.raises(InvalidArgument):
        unit_test_reward(prompts=[""], completions=["x = 1"], tests=[[1, 2]])


@pytest.mark.slow
def test_every_humaneval_canonical_solution_scores_one():
    problems = humaneval_records()
    out = unit_test_reward(
        prompts=[p["prompt"] for p in problems],
        completions=[p["prompt"] + p["canonical_solution"] for p in problems],
        tests=[[p["test"]] for p in problems],
        entry_point=[p["entry_point"] for p in problems],
    )
    assert [p["task_id"] for p, score in zip(problems, out) if score != 1.0] == []


@pytest.mark.slow
def test_humaneval_prompt_alone_scores_zero():
    problems = humaneval_records()[:40]
    out = unit_test_reward(
        prompts=[p["prompt"] for p in problems],
        completions=[p["prompt"] + "    pass\n" for p in problems],
        tests=[[p["test"]] for p in problems],
        entry_point=[p["entry_point"] for p in problems],
    )
    assert out == [0.0] * len(problems)


# --------------------------------------------------------------------------- stdin/stdout cases

SUM_SCRIPT = "import sys\n\ndef main():\n    a, b = map(int, sys.stdin.read().split())\n    print(a + b)\n\n" \
             "if __name__ == '__main__':\n    main()\n"


def test_the_interface_other_engineers_rely_on():
    import inspect

    parameters = inspect.signature(UnitTestReward.__call__).parameters
    assert [name for name, p in parameters.items() if p.kind is p.KEYWORD_ONLY] == ["tests", "entry_point", "stdio_tests"]
    assert all(parameters[name].default is None for name in ("tests", "entry_point", "stdio_tests"))


def test_stdio_cases_run_the_program_as_a_script_and_compare_stdout_here(reward):
    cases = [{"stdin": "1 2\n", "stdout": "3\n"}, {"stdin": "40 2", "stdout": "42"}, {"stdin": "1 1", "stdout": "3"}]
    assert reward(prompts=[""], completions=[fenced(SUM_SCRIPT)], stdio_tests=[cases]) == [pytest.approx(2 / 3)]
    with_input = "a, b = map(int, input().split())\nprint(a + b, ' ')\nprint()\n"  # trailing spaces and blank lines
    assert reward(prompts=[""], completions=[with_input], stdio_tests=[cases[:2]]) == [1.0]


def test_a_script_passes_only_when_it_ends_without_error(reward):
    cases = [{"stdin": "1 2", "stdout": "3"}]
    programs = ["print(3)\nimport sys\nsys.exit(0)\n", "print(3)\nraise SystemExit\n",
                "print(3)\nraise ValueError('after the answer')\n", "print(3)\nimport sys\nsys.exit(2)\n",
                "import os\nprint(3, flush=True)\nos._exit(0)\n"]
    out = reward(prompts=[""] * len(programs), completions=programs, stdio_tests=[cases] * len(programs))
    assert out == [1.0, 1.0, 0.0, 0.0, 0.0]


def test_tests_and_stdio_cases_mix_in_one_row(reward):
    code = fenced("def add(a, b):\n    return a + b\n\nif __name__ == '__main__':\n    print(add(*map(int, input().split())))\n")
    out = reward(prompts=[""], completions=[code], tests=[["assert add(1, 2) == 3", "assert add(1, 1) == 3"]],
                 stdio_tests=[[{"stdin": "2 2", "stdout": "4"}, {"stdin": "2 2", "stdout": "5"}]])
    assert out == [0.5]


def test_a_long_expected_output_is_not_cut_by_the_output_cap(reward):
    expected = "\n".join(str(i) for i in range(30_000))  # ~170 kB, beyond the default 64 KiB cap
    code = "n = int(input())\nfor i in range(n):\n    print(i)\n"
    assert reward(prompts=[""], completions=[code], stdio_tests=[[{"stdin": "30000", "stdout": expected}]]) == [1.0]


@pytest.mark.parametrize(
    ("actual", "expected", "matches"),
    [("3\n", "3", True), ("  3  \r\n", "3", True), ("\n\n1\n2\n\n", "1\n2", True), ("1.50 2", "1.5 2.0", True),
     ("1e3", "1000", True), ("1 2", "2 1", False), ("1\n\n2", "1\n2", False), ("0.30000001", "0.3", False),
     ("YES", "yes", False), ("1 2 3", "1 2", False), ("", "0", False), ("nan", "nan", True)],
)
def test_stdout_comparison_rule(actual, expected, matches):
    from execverify_data.rewards import stdout_matches

    assert stdout_matches(actual, expected) is matches


@pytest.mark.parametrize(
    ("tests", "stdio_tests", "message"),
    [([""], None, "test 0 .* asserts nothing"), (["x = 1"], None, "asserts nothing"),
     (["assert True"], None, "asserts nothing"), (["assert 1 == 1"], None, "asserts nothing"),
     (["def check(candidate):\n    candidate(1)\n"], None, "asserts nothing"), (["assert f(1) =="], None, "asserts nothing"),
     (["assert f(1) == 2", 3], None, "test 1 is a int"), ("assert f(1) == 2", None, "list of assertion strings"),
     (None, [{"stdin": "1"}], "stdio case 0 has no expected output"), (None, [{"stdin": "1", "stdout": " \n"}], "no expected output"),
     (None, [{"stdout": "1"}], "no 'stdin' string"), (None, {"stdin": "1", "stdout": "2"}, "must be a list")],
)
def test_validate_tests_rejects_tests_that_cannot_fail(tests, stdio_tests, message):
    from execverify_data.rewards import validate_tests

    with pytest.raises(InvalidArgument, match=message) as raised:
        validate_tests(tests, stdio_tests)
    assert "\n" not in str(raised.value)


def test_validate_tests_accepts_real_tests():
    from execverify_data.rewards import validate_tests

    validate_tests(["assert f(1) == 2", "def check(candidate):\n    assert candidate(1)\n",
                    "import math\nassert math.isclose(f(0.1), 0.2)", "self.assertEqual(f(1), 2)",
                    "if f(1) != 2:\n    raise AssertionError"], [{"stdin": "", "stdout": "0"}])
    validate_tests([], [{"stdin": "1", "stdout": "2"}])
    validate_tests(None, None)


def test_the_reward_never_passes_a_program_on_a_test_that_cannot_fail(reward):
    # before: "" and "x = 1" ran as (trivially passing) tests and "" stdout matched a silent program
    reward._warned = False  # the warning comes once per reward object
    with pytest.warns(UserWarning, match="count as failed"):
        out = reward(prompts=[""] * 2, completions=[ADD, "pass"],
                     tests=[["", "x = 1", "assert True", "assert add(1, 2) == 3"], []],
                     stdio_tests=[[], [{"stdin": "", "stdout": ""}, {"stdin": "", "stdout": None}]])
    assert out == [0.25, 0.0]


# --------------------------------------------------------------------------- tests decided here


@pytest.mark.slow
def test_tests_decided_here_agree_with_the_tester_on_humaneval():
    """A test whose outcome follows from its calls' answers is decided in this process; on every
    HumanEval problem and three kinds of programs (right, a stub, a wrong constant) that verdict
    is the tester's."""
    from execverify_data.rewards.unit_tests import _with_check_call
    from execverify_data.sandbox import UntrustedPool
    from execverify_data.verdicts import decidable

    problems = humaneval_records()
    decided = [p for p in problems if decidable(_with_check_call(p["test"], p["entry_point"]), p["entry_point"])]
    assert len(decided) >= 140
    variants = {"right": lambda p: p["prompt"] + p["canonical_solution"], "stub": lambda p: p["prompt"] + "    pass\n",
                "constant": lambda p: p["prompt"] + "    return 0\n"}
    with UntrustedPool(2) as pool:
        here = UnitTestReward(timeout=3.0)
        here._get_pool = lambda: pool
        for name, make in variants.items():
            jobs = [{"code": make(p), "test": _with_check_call(p["test"], p["entry_point"]), "timeout": 3.0} for p in decided]
            tester = [r.test_passed is True and r.ok for r in pool.run_many(jobs)]
            out = here(prompts=[""] * len(decided), completions=[make(p) for p in decided],
                       tests=[[p["test"]] for p in decided], entry_point=[p["entry_point"] for p in decided])
            assert [score == 1.0 for score in out] == tester, name
            if name == "right":
                assert all(tester)


def test_a_test_decided_here_falls_back_to_the_tester_when_an_answer_is_too_large(reward):
    code = "def big(n):\n    return list(range(n))\n"
    test = "def check(candidate):\n    assert len(candidate(20000)) == 20000\n    assert candidate(3) == [0, 1, 2]\n"
    from execverify_data.rewards.unit_tests import _with_check_call
    from execverify_data.verdicts import decidable

    assert decidable(_with_check_call(test, "big"), "big") is not None
    assert reward(prompts=[""], completions=[code], tests=[[test]], entry_point=["big"]) == [1.0]
    wrong = "def big(n):\n    return list(range(n + 1))\n"
    assert reward(prompts=[""], completions=[wrong], tests=[[test]], entry_point=["big"]) == [0.0]


def test_a_test_whose_answers_are_more_text_than_the_limit_is_decided_in_the_sandbox(reward, monkeypatch):
    """Issue #29: a test of many calls of long values made the trainer read them all (300 calls: 10.8 s of its
    CPU). Past HOST_TEXT_LIMIT characters the test runs again with the tester; the trainer reads none of them, and
    the verdict is still Python's."""
    from execverify_data import verdicts
    from execverify_data.rewards.unit_tests import HOST_TEXT_LIMIT, _with_check_call

    read = []
    real = verdicts.read_canonical
    monkeypatch.setattr(verdicts, "read_canonical", lambda text, *a, **k: read.append(len(text)) or real(text, *a, **k))
    code = "def pad(i):\n    return str(i % 10) * 9000\n"
    n = HOST_TEXT_LIMIT // 9000 + 10  # more than the limit together, each well under the call-mode cap
    test = "def check(candidate):\n" + "".join(f"    assert candidate({i}) != ''\n" for i in range(n))
    assert verdicts.decidable(_with_check_call(test, "pad"), "pad") is not None
    assert reward(prompts=[""], completions=[code], tests=[[test]], entry_point=["pad"]) == [1.0]
    assert sum(read) < HOST_TEXT_LIMIT
    wrong = "def pad(i):\n    return '' if i == 7 else str(i % 10) * 9000\n"
    assert reward(prompts=[""], completions=[wrong], tests=[[test]], entry_point=["pad"]) == [0.0]
    small = "def check(candidate):\n    assert candidate(3) != ''\n    assert candidate(4) != ''\n"
    read.clear()
    assert reward(prompts=[""], completions=[code], tests=[[small]], entry_point=["pad"]) == [1.0]
    assert sum(read) == 2 * 9002  # a test under the limit is still decided here, each answer read once


def test_is_is_decided_here_only_against_none_true_false(reward):
    # the one comparison rule (verdicts.compare) holds `is` only between the same None/True/False,
    # which is Python's `is` when one side is such a literal; any other `is` goes to the tester
    from execverify_data.verdicts import decidable

    assert decidable("assert f(1) is True\nassert f(2) is not None\n", "f") is not None
    assert decidable("assert f(1) is 5\n", "f") is None
    code = "def f(x):\n    return x == 1 or x * 2\n"
    tests = ["assert f(1) is True", "assert f(2) is 4", "assert f(2) is not None", "assert f(3) is False"]
    assert reward(prompts=[""], completions=[code], tests=[tests]) == [0.75]


def test_job_durations_are_kept_for_a_bounded_amount_of_test_text(monkeypatch):
    """The reward runs the slowest-seen jobs first, remembering each job's duration by its test text; a trainer
    sees ever new tests (long check functions among them), so what it keeps is bounded by characters (it was 65,536
    entries of any length, then all forgotten at once)."""
    from types import SimpleNamespace

    from execverify_data.rewards import unit_tests

    monkeypatch.setattr(unit_tests, "COST_CACHE_CHARS", 100_000)
    reward = unit_tests.UnitTestReward()

    class Pool:
        def run_many(self, jobs):
            self.order = [job["test"] for job in jobs]
            return [SimpleNamespace(duration_s=float(job["test"][-1])) for job in jobs]

    pool = Pool()
    for batch in range(40):  # 40 x 5 tests of 2,000 characters: ten times what may be kept
        jobs = [{"test": "#" * 2000 + f"{batch}-{k}" + str(k), "calls": ["f(1)"], "stdin": None} for k in range(5)]
        reward._run(pool, jobs)
        assert reward._costs.currsize <= 100_000
    assert len(reward._costs) >= 40  # the most recent ones are kept...
    reward._run(pool, jobs)  # ...and order the next run: the slowest seen (k = 4) first
    assert pool.order[0].endswith("4")
