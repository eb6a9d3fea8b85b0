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
from execverify_data.sandbox._testing import stray_processes

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
             "assert add(0.1, 0.2) == 0.3"]
    # 0.1 + 0.2 matches 0.3 under the float tolerance of values.same; add(2, 2) == 5 fails
    assert reward(prompts=["p"], completions=[fenced(ADD)], tests=[tests]) == [0.75]


def test_chat_completions_and_rows_without_tests(reward):
    chat = [{"role": "assistant", "content": fenced(ADD)}]
    out = reward(prompts=["p"] * 3, completions=[chat, chat, chat], tests=[["assert add(1, 1) == 2"], None, []])
    assert out == [1.0, None, None]


def test_nothing_passes_gives_zero_not_a_crash(reward):
    completions = ["no code here at all", fenced("def add(a, b):\n    return None\n"), fenced("def add(:"), ""]
    tests = [["assert add(1, 2) == 3", "assert add(1, 2) > 2"]] * 4
    assert reward(prompts=[""] * 4, completions=completions, tests=tests) == [0.0] * 4


def test_equality_is_strict_on_types(reward):
    code = fenced("def f():\n    return 1.0\ndef g():\n    return {3, 1}\ndef h():\n    return True\n")
    tests = ["assert f() == 1", "assert g() == {1, 3}", "assert h() == 1", "assert f() == 1.0"]
    assert reward(prompts=[""], completions=[code], tests=[tests]) == [0.5]


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
