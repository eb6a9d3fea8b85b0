"""Hostile completions (tests/adversarial/*.py.txt) against the untrusted sandbox and the
unit-test reward, with every layer and with each layer off.

For each completion: the reward is 0 (no forged verdict), nothing outside the sandbox changed,
no exception reaches the caller, every call returns within its timeout + 1 s, the caller's
memory and descriptors do not grow, and no process outlives the call. Each file says on its
``# needs:`` line which layers it takes (any one of them); where all of those are off, only
the caller's safety is checked (and the attack may succeed: docs/sandbox.md lists them).
"""

from __future__ import annotations

import os
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from execverify_data.errors import ExecVerifyError
from execverify_data.rewards import UnitTestReward
from execverify_data.sandbox import Status, UntrustedPool, detect_layers
from sandbox_helpers import stray_processes
from execverify_data.sandbox.layers import PACKAGE_DIR, interpreter_dirs, unreadable_ancestors

ADVERSARIAL = sorted((Path(__file__).parent / "adversarial").glob("*.py.txt"))
LAYERS = {layer.name: layer for layer in detect_layers()}
TIMEOUT = 1.0
A, B = random.Random().randrange(10**5, 10**6), random.Random().randrange(10**5, 10**6)
TESTS = [
    f"assert add({A}, {B}) == {A + B}",
    "assert abs(add(0.5, 0.25) - 0.75) < 1e-9",
    f"def check(candidate):\n    assert candidate({A}, {B}) == {A + B}\n    assert isinstance(candidate(1, 1), int)\n"
    "    assert len([candidate(0, 0)]) == 1\n",
]
HONEST = "def add(a, b):\n    return a + b\n"


def needs(path: Path) -> set[str]:
    """The layers a hostile completion needs (any one of them), from its ``# needs:`` line."""
    match = re.search(r"^# needs: (.+)$", path.read_text(), re.M)
    assert match, f"{path.name} does not say which layer it needs"
    return set(match.group(1).strip().split("|"))


def readable_python() -> str | None:
    """An interpreter the sandbox's unprivileged uid can read without bubblewrap, if any."""
    for python in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(python) and not unreadable_ancestors(interpreter_dirs(python)):
            return python
    return None


def config_kwargs(config: str) -> dict:
    if config == "all":
        return {}
    layer = config.removeprefix("no-")
    if not LAYERS[layer].available:
        pytest.skip(f"the {layer} layer is missing here anyway: {LAYERS[layer].detail}")
    if layer == "bwrap":
        python = readable_python()
        if python is None and LAYERS["privilege_drop"].available:
            pytest.skip("without bwrap no interpreter here is readable by the sandbox's uid (see test_silent_zeros)")
        return {"bwrap": False, "python": python}
    return {"drop_privileges" if layer == "privilege_drop" else layer: False}


def test_there_are_hostile_completions_for_every_class():
    assert len(ADVERSARIAL) >= 50
    assert all(needs(path) <= {*LAYERS} for path in ADVERSARIAL)


# --------------------------------------------------------------------------- what an attack could damage


@pytest.fixture
def world(tmp_path):
    """A canary file, a victim process (the secret in its command line), a loopback listener,
    the secret in this process's environment, and the placeholders the attacks use."""
    canary = tmp_path / "canary.txt"
    canary.write_text("canary")
    marker = tmp_path / "marker.txt"
    planted = secrets.token_hex(16)
    victim = subprocess.Popen(["bash", "-c", f"exec -a ev-victim-{planted} sleep 600"])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    os.environ["EXECVERIFY_PLANTED_SECRET"] = planted
    values = {"CANARY": str(canary), "MARKER": str(marker), "PORT": str(listener.getsockname()[1]),
              "HOST_PID": str(os.getpid()), "VICTIM_PID": str(victim.pid), "A": str(A), "B": str(B),
              "MARKER_ID": secrets.token_hex(6), "IPC_KEY": str(random.Random().randrange(1 << 20, 1 << 30)),
              "PACKAGE_DIR": PACKAGE_DIR, "CHECKOUT": os.path.dirname(PACKAGE_DIR)}
    try:
        yield {"values": values, "canary": canary, "marker": marker, "victim": victim, "listener": listener,
               "secret": planted}
    finally:
        os.environ.pop("EXECVERIFY_PLANTED_SECRET", None)
        listener.close()
        victim.kill()
        victim.wait()


def _fill(template: str, values: dict) -> str:
    for key, value in values.items():
        template = template.replace("{{%s}}" % key, value)
    return template


def _untouched(world, pool) -> None:
    assert world["canary"].read_text() == "canary"
    assert not world["marker"].exists()
    assert world["victim"].poll() is None, "the victim process was killed"
    with pytest.raises(BlockingIOError):
        world["listener"].accept()
    for path_outside in ("/etc/execverify-pwned", "/root/execverify-pwned", "/execverify-pwned"):
        assert not os.path.exists(path_outside)


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def _warm(pool) -> None:
    """Start every worker of the pool (and its tester), so that later calls open nothing new."""
    pool.run_many([{"code": "import time\ntime.sleep(0.2)\ndef f():\n    return 1\n", "test": "assert f() == 1"}] * pool.size)


def _reward_for(pool) -> UnitTestReward:
    reward = UnitTestReward(timeout=TIMEOUT, memory_mb=512)
    reward._get_pool = lambda: pool  # share the pool (and its worker uids for the stray check)
    return reward


def _attack(path: Path, pool, world, *, covered: bool) -> dict:
    """Run one hostile completion through the reward and directly; check what must hold."""
    code = _fill(path.read_text(), world["values"])
    completion = [{"role": "assistant", "content": f"Here you go:\n```python\n{code}\n```"}]
    reward = _reward_for(pool)
    rewards = reward(prompts=["add two numbers"], completions=[completion], tests=[TESTS], entry_point=["add"])
    timings = []
    for kwargs in ({"calls": [f"add({A}, {B})"]}, {"test": TESTS[2] + "\ncheck(add)\n"}):
        start = time.monotonic()
        result = pool.run(code, timeout=TIMEOUT, memory_mb=512, **kwargs)  # never raises
        timings.append(time.monotonic() - start)
        assert isinstance(result.status, Status)
        seen = result.stdout + result.stderr + result.detail + " ".join(c.value.text for c in result.calls if c.value)
        seen.encode("utf-8")  # printable: no lone surrogate reaches the caller
        if covered:
            assert result.test_passed is not True, result
            assert not any(c.ok and c.value.text == str(A + B) for c in result.calls), result
            assert world["secret"] not in seen, "the planted secret leaked into the sandbox"
    if covered:
        assert rewards == [0.0], f"{path.name} forged a verdict"
        _untouched(world, pool)
    assert pool.run("x = 1", ["x"]).calls[0].value.text == "1"  # the harness survives
    return {"timings": timings}


# --------------------------------------------------------------------------- every layer


@pytest.fixture(scope="module")
def pool():
    with UntrustedPool(2) as pool:
        yield pool


@pytest.mark.parametrize("path", ADVERSARIAL, ids=[p.name.split(".")[0] for p in ADVERSARIAL])
def test_hostile_completion(path, pool, world):
    _warm(pool)
    fds, rss = _descriptors(), _rss_mb()
    covered = bool(needs(path) & set(pool.active_layers))
    outcome = _attack(path, pool, world, covered=covered)
    assert max(outcome["timings"]) <= TIMEOUT + 1.0, outcome["timings"]
    assert _rss_mb() - rss < 50
    assert _descriptors() == fds, "descriptors leaked"
    assert stray_processes([pool], ignore={world["victim"].pid}) == []


# --------------------------------------------------------------------------- each layer off


@pytest.mark.slow
@pytest.mark.parametrize("config", ["no-privilege_drop", "no-seccomp", "no-landlock", "no-bwrap"])
def test_every_hostile_completion_with_one_layer_off(config, world):
    """Each completion again with one layer off: where a layer it needs remains, the verdict
    and the world hold; whatever the layers, the caller does."""
    with UntrustedPool(2, **config_kwargs(config)) as layered:
        _warm(layered)
        fds, rss = _descriptors(), _rss_mb()
        uncovered, slow = [], []
        for path in ADVERSARIAL:
            covered = bool(needs(path) & set(layered.active_layers))
            if not covered:
                uncovered.append(path.name)
            outcome = _attack(path, layered, world, covered=covered)
            if max(outcome["timings"]) > TIMEOUT + 1.0:
                slow.append((path.name, outcome["timings"]))
        assert slow == []
        assert _rss_mb() - rss < 50
        assert _descriptors() == fds
        assert stray_processes([layered], ignore={world["victim"].pid}) == []
    print(f"{config}: not covered (they need a layer that is off): {uncovered}")


# --------------------------------------------------------------------------- classes, one by one


def test_siblings_of_one_group_cannot_read_each_others_code(world):
    # a GRPO group: one honest completion and three that search the memory they were forked with
    # for it (before: the zygote read every completion, so the later ones found it: [1, 1, 1, 1] or so)
    honest = f"def add(a, b):  # sibling-{world['values']['MARKER_ID']}\n    return a + b\n"
    scanner = _fill((Path(__file__).parent / "adversarial" / "39_scan_memory_for_siblings.py.txt").read_text(),
                    world["values"])
    with UntrustedPool(1) as single:
        reward = _reward_for(single)
        group = [honest, scanner, scanner, scanner]
        assert reward(prompts=[""] * 4, completions=group, tests=[TESTS] * 4, entry_point=["add"] * 4) == [1, 0, 0, 0]
        assert reward(prompts=[""] * 4, completions=group[::-1], tests=[TESTS] * 4, entry_point=["add"] * 4) == [0, 0, 0, 1]


def test_a_candidate_finds_no_test_in_the_memory_it_inherits(world):
    scanner = _fill((Path(__file__).parent / "adversarial" / "38_scan_memory_for_tests.py.txt").read_text(),
                    world["values"])
    with UntrustedPool(1) as single:
        reward = _reward_for(single)
        # the tests (and their expected values) pass through the worker many times first
        assert reward(prompts=[""] * 3, completions=[HONEST] * 3, tests=[TESTS] * 3, entry_point=["add"] * 3) == [1.0] * 3
        assert reward(prompts=[""] * 3, completions=[scanner] * 3, tests=[TESTS] * 3, entry_point=["add"] * 3) == [0.0] * 3


@pytest.mark.skipif(not (LAYERS["bwrap"].available or LAYERS["landlock"].available),
                    reason="reading package data needs bwrap or landlock, and both are missing here")
def test_humaneval_solutions_shipped_with_the_package_are_out_of_reach():
    from execverify_data.data import humaneval_records

    problems = humaneval_records()[:6]
    thief = ("import gzip, json, os, sys\n"
             "rows = []\n"
             f"for base in list(getattr(sys.modules.get('execverify_data'), '__path__', [])) + [{PACKAGE_DIR!r}]:\n"
             "    try:\n"
             "        with gzip.open(os.path.join(base, 'data', 'humaneval', 'HumanEval.jsonl.gz'), 'rt') as handle:\n"
             "            rows = [json.loads(line) for line in handle]\n"
             "        break\n"
             "    except Exception:\n"
             "        pass\n"
             "for row in rows:\n"
             "    if row['task_id'] == TASK:\n"
             "        exec(row['prompt'] + row['canonical_solution'])\n")
    completions = [p["prompt"] + "    pass\n\n" + f"TASK = {p['task_id']!r}\n" + thief for p in problems]
    with UntrustedPool(2) as both:
        reward = _reward_for(both)
        reward.timeout = 3.0
        out = reward(prompts=[p["prompt"] for p in problems], completions=completions, tests=[[p["test"]] for p in problems],
                     entry_point=[p["entry_point"] for p in problems])
        assert out == [0.0] * len(problems)
        # the same completions do score where the file is readable: the attack itself works
        with UntrustedPool(1, bwrap=False, landlock=False, drop_privileges=False) as open_pool:
            exposed = _reward_for(open_pool)
            exposed.timeout = 3.0
            assert exposed(prompts=[""], completions=completions[:1], tests=[[problems[0]["test"]]],
                           entry_point=[problems[0]["entry_point"]]) == [1.0]


def test_a_deep_tree_neither_survives_into_the_next_sample_nor_breaks_close(world):
    attack = _fill((Path(__file__).parent / "adversarial" / "47_deep_directory_tree.py.txt").read_text(), world["values"])
    configs = [{}]
    if LAYERS["bwrap"].available and readable_python():
        configs.append({"bwrap": False, "python": readable_python()})  # the host's /tmp: the case that failed
    for kwargs in configs:
        single = UntrustedPool(1, **kwargs)
        reward = _reward_for(single)
        assert reward(prompts=[""] * 3, completions=[attack] * 3, tests=[TESTS[:1]] * 3) == [0.0] * 3
        tmpdirs = [worker.tmpdir for worker in single._workers if worker.tmpdir]
        for tmpdir in tmpdirs:  # on the host's disk (no bwrap): the trees left go, while the worker is idle
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and any(
                    os.listdir(os.path.join(tmpdir, d)) for d in os.listdir(tmpdir) if d.startswith("trash-")):
                time.sleep(0.1)
            assert sorted(d.split("-")[0] for d in os.listdir(tmpdir)) == ["tester", "trash"]
            assert not any(os.listdir(os.path.join(tmpdir, d)) for d in os.listdir(tmpdir) if d.startswith("trash-"))
        single.close()  # before: RecursionError from shutil.rmtree on 3.11
        assert not any(os.path.exists(path) for path in tmpdirs)


def test_the_trash_is_emptied_beside_the_zygote_so_the_next_call_never_waits_for_it():
    # before: the zygote unlinked the trash itself between jobs, and one unlink of a file a killed
    # writer left waits for its dirty pages to be written back (0.2 s idle, past the host's deadline
    # under load: the CI failure of 36_fill_temp_disk without bwrap); now a child of its own does it
    from sandbox_helpers import _processes
    from execverify_data.sandbox._zygote import JANITOR_NAME

    def janitors_below(ancestor: int) -> set[int]:
        table = _processes()
        found = set()
        for pid, (_, _, cmdline) in table.items():
            if cmdline.startswith(f"[{JANITOR_NAME.decode()}]"):
                up = pid
                while up in table and up != ancestor:
                    up = table[up][0]
                if up == ancestor:
                    found.add(pid)
        return found

    many_files = "for i in range(4000):\n    open('f%d' % i, 'w').close()\n"
    with UntrustedPool(1) as single:
        single.run("x = 1", ["x"])
        worker = next(iter(single._workers)).proc.process.pid  # bwrap's pid, or the zygote's
        seen = set()
        for _ in range(3):
            assert single.run(many_files, ["1"], timeout=5.0).calls[0].ok
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and not seen:
                seen |= janitors_below(worker)
            assert single.run("x = 2", ["x"]).calls[0].value.text == "2"  # and the zygote serves on
        assert seen, "no janitor child emptied the trash"
        assert stray_processes([single]) == []


def test_a_candidate_cannot_sabotage_the_tester_of_the_next_sibling(world):
    attack = _fill((Path(__file__).parent / "adversarial" / "48_sabotage_the_tester.py.txt").read_text(), world["values"])
    with UntrustedPool(1) as single:
        reward = _reward_for(single)
        assert reward(prompts=[""] * 2, completions=[attack, HONEST], tests=[TESTS[1:]] * 2,
                      entry_point=["add"] * 2) == [0.0, 1.0]


def test_sysv_queues_outlive_neither_the_call_nor_the_pool(world):
    if not (LAYERS["privilege_drop"].available or LAYERS["bwrap"].available):
        pytest.skip("without the privilege drop and bwrap a queue of the caller's uid cannot be told from others")
    key = int(world["values"]["IPC_KEY"])
    attack = _fill((Path(__file__).parent / "adversarial" / "49_sysv_ipc.py.txt").read_text(), world["values"])
    kwargs = {"seccomp": False}
    if LAYERS["bwrap"].available and readable_python():
        kwargs.update(bwrap=False, python=readable_python())  # the host's IPC namespace: the case that leaked
    with UntrustedPool(1, **kwargs) as single:
        reward = _reward_for(single)
        assert reward(prompts=[""] * 2, completions=[attack] * 2, tests=[TESTS[:1]] * 2) == [0.0, 0.0]
    with open("/proc/sysvipc/msg") as queues:
        assert all(line.split()[0] != str(key) for line in queues.read().splitlines()[1:])


def test_an_oi_answer_cannot_read_the_callers_environment(monkeypatch):
    # the oi reward re-executes a program on the model's input in the trusted runner: a format
    # template reaching __globals__ used to read the trainer's environment (and, by erroring or
    # not, tell whether a variable exists)
    from execverify_data.sandbox.trusted import TrustedRunner

    monkeypatch.setenv("EXECVERIFY_PLANTED_SECRET", "s3cret-value")
    program = "import typing\n\ndef f(s: str) -> str:\n    return s.format(f)\n"
    reach = "{0.__globals__[typing].sys.modules[os].environ[%s]}"
    with TrustedRunner(1, timeout=2.0) as runner:
        present, absent = runner.map([(program, f"f({reach % 'EXECVERIFY_PLANTED_SECRET'!r})"),
                                      (program, f"f({reach % 'EXECVERIFY_NOT_SET_ANYWHERE'!r})")])
    import json

    assert "s3cret-value" not in json.dumps(present.to_json())
    assert present.status is absent.status  # no 1-bit oracle on the variable's existence either
    assert (present.exception and present.exception.type) == (absent.exception and absent.exception.type)


def test_silent_zeros_a_pool_that_children_cannot_import_in_raises_at_start():
    hidden = unreadable_ancestors(interpreter_dirs(sys.executable))
    if not (hidden and LAYERS["privilege_drop"].available):
        pytest.skip("the interpreter here is readable by the sandbox's uid: nothing to refuse")
    with pytest.raises(ExecVerifyError, match="install bubblewrap") as raised:
        with UntrustedPool(1, bwrap=False) as pool:
            pool.run("import random", [])
    assert "\n" not in str(raised.value) and next(iter(hidden)) in str(raised.value)


def test_silent_zeros_doctor_says_the_same(monkeypatch):
    from click.testing import CliRunner

    from execverify_data.cli import main
    from execverify_data.sandbox import layers

    hidden = unreadable_ancestors(interpreter_dirs(sys.executable))
    if not (hidden and LAYERS["privilege_drop"].available):
        pytest.skip("the interpreter here is readable by the sandbox's uid: nothing to warn about")
    monkeypatch.setattr(layers, "_bwrap_layer", lambda: (layers.Layer("bwrap", False, "bwrap not installed"), None))
    layers.detect_layers(refresh=True)
    try:
        result = CliRunner().invoke(main, ["doctor"])
    finally:
        monkeypatch.undo()
        layers.detect_layers(refresh=True)
    assert result.exit_code == 1, result.output
    assert "install bubblewrap" in result.output and "Traceback" not in result.output


def test_killing_the_zygote_is_denied_and_the_pool_recovers(pool):
    result = pool.run("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n", ["1"])
    if "seccomp" in pool.active_layers or "landlock" in pool.active_layers:
        assert result.status is Status.ERROR and "PermissionError" in result.error
    assert pool.run("y = 2", ["y"]).calls[0].value.text == "2"


def test_a_dead_worker_is_replaced():
    with UntrustedPool(1) as single:
        assert single.run("x = 1", ["x"]).ok
        (worker,) = list(single._workers)
        os.killpg(worker.proc.pid, signal.SIGKILL)
        # SIGKILL is asynchronous: the pool either sees the worker dead before sending and
        # replaces it (ok), or loses the call in flight (killed); never a wrong value or a raise.
        first = single.run("x = 1", ["x"])
        assert first.status in (Status.KILLED, Status.OK)
        if first.status is Status.OK:
            assert first.calls[0].value.text == "1"
        assert single.run("x = 2", ["x"]).calls[0].value.text == "2"
        assert worker not in list(single._workers)


def test_a_call_cannot_read_another_calls_temp_dir(pool):
    secret = secrets.token_hex(8)
    writer = ("import os, time\nopen('secret.txt', 'w').write(%r)\nhere = os.getcwd()\ntime.sleep(1.5)\n") % secret
    reader = ("import os\nfound = []\n"
              "for top in ('/tmp', os.path.dirname(os.getcwd())):\n"
              "    for d, _, names in os.walk(top):\n"
              "        for n in names:\n"
              "            if n != 'secret.txt':\n"  # the name the writer uses (walking every file of a busy /tmp takes seconds)
              "                continue\n"
              "            try:\n"
              "                found.append(open(os.path.join(d, n)).read(100))\n"
              "            except (OSError, ValueError):\n"  # a binary file (an interpreter in view) does not decode
              "                pass\n"
              "found = ' '.join(found)\n")
    results = {}

    def run(name, code):
        results[name] = pool.run(code, ["here"] if name == "writer" else ["found"], timeout=5)

    first = threading.Thread(target=run, args=("writer", writer))
    first.start()
    time.sleep(0.5)
    run("reader", reader)
    first.join()
    assert results["writer"].status is Status.OK
    assert results["reader"].status is Status.OK
    assert secret not in results["reader"].calls[0].value.text


def test_builtins_patched_by_one_call_do_not_leak_into_the_next():
    with UntrustedPool(1) as single:
        patched = single.run("import builtins\nbuiltins.len = lambda x: 42\nbuiltins.sum = None", ["len([])"])
        assert patched.calls[0].value.text == "42"
        clean = single.run("x = 1", ["len([1, 2])", "sum([1, 2])"])
        assert [c.value.text for c in clean.calls] == ["2", "3"]
        assert stray_processes([single]) == []


def test_the_test_text_never_reaches_the_candidate(pool):
    hunter = ("import gc\nfound = any(isinstance(o, str) and 'needle_7f3a' in o for o in gc.get_objects())\n"
              "def add(a, b):\n    return found\n")
    result = pool.run(hunter, test="assert add(1, 2) is False  # needle_7f3a\n")
    assert result.status is Status.OK
    assert result.test_passed is True
