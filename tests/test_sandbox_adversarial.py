"""Hostile completions (tests/adversarial/*.py.txt) against the untrusted sandbox and the
unit-test reward: the harness survives, the reward is 0, nothing outside the sandbox changes,
and no process outlives its call."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from execverify_data.rewards import UnitTestReward
from execverify_data.sandbox import Status, UntrustedPool, detect_layers
from execverify_data.sandbox._testing import stray_processes

ADVERSARIAL = sorted((Path(__file__).parent / "adversarial").glob("*.py.txt"))
TESTS = [
    "assert add(1, 2) == 3",
    "assert abs(add(0.5, 0.25) - 0.75) < 1e-9",
    "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert isinstance(candidate(1, 1), int)\n    assert len([candidate(0, 0)]) == 1\n",
]
LAYERS = {layer.name: layer for layer in detect_layers()}
FILESYSTEM_GUARDED = LAYERS["bwrap"].available or LAYERS["privilege_drop"].available


def test_there_are_at_least_30_hostile_completions():
    assert len(ADVERSARIAL) >= 30


@pytest.fixture(scope="module")
def pool():
    with UntrustedPool(2) as pool:
        yield pool


@pytest.fixture(scope="module")
def reward(pool):
    reward = UnitTestReward(timeout=1.0, memory_mb=512)
    reward._get_pool = lambda: pool  # share the module's pool (and its worker uids for the stray check)
    return reward


@pytest.fixture
def world(tmp_path):
    """What an attack could damage: a canary file, a victim process, a loopback listener, a secret."""
    canary = tmp_path / "canary.txt"
    canary.write_text("canary")
    marker = tmp_path / "marker.txt"
    victim = subprocess.Popen(["sleep", "600"])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    planted = secrets.token_hex(16)
    os.environ["EXECVERIFY_PLANTED_SECRET"] = planted
    values = {"CANARY": str(canary), "MARKER": str(marker), "PORT": str(listener.getsockname()[1]),
              "HOST_PID": str(os.getpid()), "VICTIM_PID": str(victim.pid)}
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


@pytest.mark.parametrize("path", ADVERSARIAL, ids=[p.name.split(".")[0] for p in ADVERSARIAL])
def test_hostile_completion(path, pool, reward, world):
    if not FILESYSTEM_GUARDED and any(word in path.name for word in ("rm", "write", "remove")):
        pytest.skip("neither bwrap nor a privilege drop is available: files of this uid are reachable")
    code = _fill(path.read_text(), world["values"])
    completion = [{"role": "assistant", "content": f"Here you go:\n```python\n{code}\n```"}]

    rewards = reward(prompts=["add two numbers"], completions=[completion], tests=[TESTS], entry_point=["add"])
    assert rewards == [0.0]

    direct = pool.run(code, ["add(1, 2)"], timeout=1.0, memory_mb=512)
    assert isinstance(direct.status, Status)
    seen = direct.stdout + direct.stderr + " ".join(c.value.text for c in direct.calls if c.value)
    assert world["secret"] not in seen, "the planted secret leaked into the sandbox"

    # nothing outside the sandbox changed
    assert world["canary"].read_text() == "canary"
    assert not world["marker"].exists()
    assert world["victim"].poll() is None, "the victim process was killed"
    with pytest.raises(BlockingIOError):
        world["listener"].accept()
    for path_outside in ("/etc/execverify-pwned", "/root/execverify-pwned", "/execverify-pwned"):
        assert not os.path.exists(path_outside)
    # the harness survives and nothing outlives the call
    assert pool.run("x = 1", ["x"]).calls[0].value.text == "1"
    assert stray_processes([pool], ignore={world["victim"].pid}) == []


def test_a_call_cannot_read_another_calls_temp_dir(pool):
    secret = secrets.token_hex(8)
    writer = ("import os, time\nopen('secret.txt', 'w').write(%r)\nhere = os.getcwd()\n" 
              "time.sleep(1.5)\n") % secret
    reader = ("import os\nfound = []\n"
              "for top in ('/tmp', os.path.dirname(os.getcwd())):\n"
              "    for d, _, names in os.walk(top):\n"
              "        for n in names:\n"
              "            try:\n"
              "                found.append(open(os.path.join(d, n)).read(100))\n"
              "            except OSError:\n"
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


def test_builtins_patched_by_one_call_do_not_leak_into_the_next(pool):
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


@pytest.mark.skipif(not LAYERS["seccomp"].available, reason=f"seccomp layer missing: {LAYERS['seccomp'].detail}")
def test_killing_the_zygote_is_denied_and_the_pool_recovers(pool):
    result = pool.run("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n", ["1"])
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


CONFIGS = {
    "without-bwrap": {"bwrap": False},
    "without-seccomp": {"seccomp": False},
}


@pytest.mark.slow
@pytest.mark.parametrize("config", list(CONFIGS), ids=list(CONFIGS))
def test_every_hostile_completion_with_one_layer_off(config, world):
    """The remaining layers still hold: all completions at once, in parallel on the pool."""
    kwargs = CONFIGS[config]
    with UntrustedPool(2, **kwargs) as layered:
        if "bwrap" not in layered.active_layers and "privilege_drop" not in layered.active_layers:
            pytest.skip("neither bwrap nor a privilege drop would remain: files of this uid are reachable")
        reward = UnitTestReward(timeout=1.0, memory_mb=512)
        reward._get_pool = lambda: layered
        codes = [_fill(path.read_text(), world["values"]) for path in ADVERSARIAL]
        rewards = reward(prompts=[""] * len(codes), completions=codes, tests=[TESTS] * len(codes),
                         entry_point=["add"] * len(codes))
        assert rewards == [0.0] * len(codes), [p.name for p, r in zip(ADVERSARIAL, rewards) if r]
        assert world["canary"].read_text() == "canary"
        assert not world["marker"].exists()
        assert world["victim"].poll() is None
        if "seccomp" in layered.active_layers or "bwrap" in layered.active_layers:
            with pytest.raises(BlockingIOError):
                world["listener"].accept()
        assert layered.run("x = 1", ["x"]).calls[0].value.text == "1"
        assert stray_processes([layered], ignore={world["victim"].pid}) == []
