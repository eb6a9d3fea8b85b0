"""The untrusted runner: results, statuses for bad input, isolation layers (each skipped,
with the reason, where this machine cannot have it), and the doctor command."""

from __future__ import annotations

import dataclasses
import os
import pickle
import shutil
import tempfile
import threading
import time

import pytest
from click.testing import CliRunner

from execverify_data.errors import ExecVerifyError, InvalidArgument
from execverify_data.sandbox import (
    CallResult,
    SandboxResult,
    Status,
    UntrustedPool,
    detect_layers,
    run_untrusted,
)
from sandbox_helpers import stray_processes

LAYERS = {layer.name: layer for layer in detect_layers()}


def needs(name):
    return pytest.mark.skipif(not LAYERS[name].available, reason=f"{name} layer missing here: {LAYERS[name].detail}")


@pytest.fixture(scope="module")
def pool():
    with UntrustedPool(2) as pool:
        yield pool


@pytest.fixture(autouse=True)
def no_stray_processes(request):
    yield
    pools = [request.getfixturevalue("pool")] if "pool" in request.fixturenames else []
    assert stray_processes(pools) == []


# --------------------------------------------------------------------------- results


def test_values_and_exceptions_per_call(pool):
    result = pool.run("def f(x):\n    return {x, -x}\n", ["f(2)", "f('a')", "1/0", "f"])
    assert result.status is Status.OK and result.ok
    assert result.calls[0].value.text == "{-2, 2}" and result.calls[0].value.type == "set"
    assert result.calls[1].error == "TypeError" and not result.calls[1].ok
    assert result.calls[2].error == "ZeroDivisionError"
    assert result.calls[3].ok and not result.calls[3].value.askable


@pytest.mark.parametrize("patch", [
    "builtins.repr = lambda x: 'forged'\nbuiltins.isinstance = lambda *a: False",  # replaced in place
    "del builtins.sorted",  # removed
    "builtins.extra = 1",  # added
    "value = builtins.sorted\ndel builtins.sorted\nbuiltins.sorted = value",  # the same value, moved to the end
])
def test_the_harness_encodes_with_the_builtins_a_completion_changed_put_back(pool, patch):
    result = pool.run(f"import builtins\n{patch}\n", ["[3, 1]", "{2, 1}", "'x'"])
    assert [call.value.text for call in result.calls] == ["[3, 1]", "{1, 2}", "'x'"]


def test_result_is_a_frozen_dataclass_with_an_enum_status(pool):
    result = pool.run("x = 1", ["x"])
    assert isinstance(result, SandboxResult) and isinstance(result.calls[0], CallResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.status = Status.ERROR
    assert Status("ok") is Status.OK and result.duration_s > 0


def test_output_is_captured(pool):
    result = pool.run("import sys\nprint('out')\nprint('err', file=sys.stderr)", [])
    assert (result.stdout, result.stderr) == ("out\n", "err\n")


def test_top_level_exception_is_an_error(pool):
    result = pool.run("def f(): pass\nraise KeyError('k')", ["f()"])
    assert result.status is Status.ERROR and result.calls == ()
    assert result.error.startswith("KeyError")


def test_test_mode_passes_and_fails(pool):
    code = "def add(a, b):\n    return a + b\n"
    assert pool.run(code, test="assert add(1, 2) == 3\nassert add('a', 'b') == 'ab'").test_passed is True
    failed = pool.run(code, test="assert add(1, 2) == 4")
    assert failed.status is Status.OK and failed.test_passed is False and "AssertionError" in failed.detail
    raised = pool.run("def f(x):\n    raise ValueError(x)\n", test="try:\n    f(1)\nexcept ValueError:\n    pass\n")
    assert raised.test_passed is True


def test_test_mode_sees_only_canonical_values(pool):
    liar = "class L:\n    def __eq__(self, o):\n        return True\ndef f():\n    return L()\n"
    result = pool.run(liar, test="assert f() == 3")
    assert result.test_passed is False and "TypeError" in result.detail


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (b"x = '\xff\xfe'", Status.REJECTED),
        ("x = '\udcff'", Status.REJECTED),
        ("x" * (2 << 20), Status.REJECTED),
        ("def f(:\n", Status.ERROR),
        ("\0", Status.ERROR),
        ("while True:\n    print('x' * 1000)\n", Status.OUTPUT_LIMIT),
        ("while True:\n    pass\n", Status.TIMEOUT),
        ("import time\ntime.sleep(60)\n", Status.TIMEOUT),
        ("x = bytearray(10 ** 10)", Status.MEMORY),
        ("import ctypes\nctypes.string_at(0)", Status.CRASHED),
        ("import os\nos._exit(3)", Status.CRASHED),
        ("import sys\nsys.exit(0)", Status.ERROR),
    ],
    ids=["not-utf8", "surrogate", "enormous", "syntax", "nul", "prints-forever", "never-returns", "sleeps",
         "memory", "segfault", "os-exit", "sys-exit"],
)
def test_bad_input_gives_a_status_never_an_exception(pool, code, status):
    start = time.monotonic()
    result = pool.run(code, [], timeout=1.0, memory_mb=256)
    assert result.status is status, result
    assert time.monotonic() - start < 5


@pytest.mark.parametrize(
    "kwargs",
    [{"timeout": 0}, {"timeout": -1}, {"timeout": "1"}, {"memory_mb": 0}, {"memory_mb": 1.5},
     {"output_limit": 0}, {"calls": "f()"}, {"calls": [1]}, {"test": 3}, {"calls": ["x"], "test": "pass"}],
)
def test_bad_arguments_raise_invalid_argument(pool, kwargs):
    kwargs = {"code": "x = 1", **kwargs}
    with pytest.raises(InvalidArgument):
        pool.run(**kwargs)


def test_non_string_code_raises(pool):
    with pytest.raises(InvalidArgument):
        pool.run(None)


# --------------------------------------------------------------------------- isolation


def test_child_environment(pool):
    code = ("import os, resource\n"
            "env = dict(os.environ)\n"
            "fds = sorted(int(f) for f in os.listdir('/proc/self/fd'))\n"
            "cwd_entries = os.listdir('.')\n"
            "session_leader = os.getsid(0) == os.getpid()\n"
            "core = resource.getrlimit(resource.RLIMIT_CORE)\n"
            "fsize = resource.getrlimit(resource.RLIMIT_FSIZE)[0]\n")
    result = pool.run(code, ["env", "fds", "cwd_entries", "session_leader", "core", "fsize"], output_limit=12345)
    texts = [c.value.text for c in result.calls]
    assert texts[0] == "{}"
    assert texts[1] in ("[0, 1, 2, 3, 4]", "[0, 1, 2, 3, 4, 5]")  # 5: the listdir handle itself
    assert texts[2:] == ["[]", "True", "(0, 0)", "12345"]


def test_each_call_is_a_fresh_process(pool):
    first = pool.run("import os\npid = os.getpid()\nimport sys\nsys.modules['json'].dumps = None", ["pid"])
    second = pool.run("import os, json\npid = os.getpid()\nok = json.dumps(1)", ["pid", "ok"])
    assert first.calls[0].value.text != second.calls[0].value.text
    assert second.calls[1].value.text == "'1'"


def test_concurrent_calls_from_threads(pool):
    results = pool.run_many([{"code": f"x = {i} * 2", "calls": ["x"]} for i in range(12)])
    assert [r.calls[0].value.text for r in results] == [str(i * 2) for i in range(12)]
    errors = []

    def worker(i):
        try:
            assert run_untrusted(f"y = {i}", ["y"], pool=pool).calls[0].value.text == str(i)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_pool_is_not_picklable(pool):
    with pytest.raises(TypeError):
        pickle.dumps(pool)


def test_layers_are_reported_with_details():
    assert list(LAYERS) == ["zygote", "privilege_drop", "seccomp", "landlock", "bwrap"]
    assert all(layer.detail for layer in LAYERS.values())
    assert LAYERS["zygote"].available


def test_every_layer_can_be_switched_off():
    with UntrustedPool(1, bwrap=False, seccomp=False, drop_privileges=False, landlock=False) as bare:
        assert bare.active_layers == ("zygote",)
        assert bare.run("x = 5", ["x"]).calls[0].value.text == "5"
        assert bare.run("while True: pass", timeout=0.5).status is Status.TIMEOUT
        assert stray_processes([bare]) == []


def test_requiring_a_missing_layer_fails_with_a_hint():
    missing = [name for name, layer in LAYERS.items() if not layer.available and name != "zygote"]
    if not missing:
        pytest.skip("every layer is available here")
    with pytest.raises(ExecVerifyError, match=missing[0]):
        UntrustedPool(1, **{"drop_privileges" if missing[0] == "privilege_drop" else missing[0]: True})


@needs("privilege_drop")
def test_privilege_drop(pool):
    result = pool.run("import os\nids = (os.getuid(), os.geteuid(), os.getgid(), os.getgroups())", ["ids"])
    uid, euid, gid, groups = eval(result.calls[0].value.text)  # a literal tuple we produced ourselves
    assert uid == euid != 0 and gid != 0 and groups == []
    threads = pool.run("import threading, time\n"
                       "def bomb():\n"
                       "    n = 0\n"
                       "    try:\n"
                       "        while True:\n"
                       "            threading.Thread(target=time.sleep, args=(5,), daemon=True).start()\n"
                       "            n += 1\n"
                       "    except RuntimeError:\n"
                       "        return n\n", ["bomb()"], max_threads=8)
    assert int(threads.calls[0].value.text) <= 8 + 1  # RLIMIT_NPROC also leaves room for the test child


@needs("seccomp")
def test_seccomp_layer(pool):
    code = ("import os, socket, threading\n"
            "def denied(fn):\n"
            "    try:\n"
            "        fn()\n"
            "    except PermissionError:\n"
            "        return True\n"
            "    return False\n"
            "t = threading.Thread(target=lambda: None)\n"
            "t.start(); t.join()\n")
    calls = ["denied(os.fork)", "denied(socket.socket)", "denied(lambda: os.kill(1, 0))",
             "denied(lambda: os.execv('/bin/true', ['true']))", "denied(lambda: os.kill(os.getpid(), 0))"]
    result = pool.run(code, calls)
    assert [c.value.text for c in result.calls] == ["True", "True", "True", "True", "False"]


@needs("bwrap")
def test_bwrap_layer(tmp_path):
    (tmp_path / "host-file").write_text("host")
    code = ("import os, socket\n"
            "hostname = socket.gethostname() if False else os.uname().nodename\n"
            "pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
            f"sees_host_tmp = os.path.exists({str(tmp_path / 'host-file')!r})\n"
            "def writable(path):\n"
            "    try:\n"
            "        open(path, 'w').close()\n"
            "        return True\n"
            "    except OSError:\n"
            "        return False\n")
    with UntrustedPool(1, landlock=False) as bwrap_only:  # Landlock would refuse the listing of /proc itself
        result = bwrap_only.run(code, ["len(pids) < 10", "sees_host_tmp", "writable('/usr/execverify-x')", "writable('x')",
                                       "os.path.exists('/work') and sorted(os.listdir('/work'))"])
        assert [c.value.text for c in result.calls][:4] == ["True", "False", "False", "True"]
        assert "wt-" not in result.calls[4].value.text  # no checkout is in the sandbox's root
        assert stray_processes([bwrap_only]) == []


def test_no_zombie_after_many_calls(pool):
    for _ in range(20):
        pool.run("x = 1", ["x"])
    assert stray_processes([pool]) == []


# --------------------------------------------------------------------------- doctor


def test_doctor_prints_every_layer():
    from execverify_data.cli import main

    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0, result.output
    for name in LAYERS:
        assert name in result.output
    assert "smoke run: ok" in result.output


def test_a_forked_process_gets_its_own_workers(pool):
    assert pool.run("x = 1", ["x"]).ok
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the fork
        code = 1
        try:
            code = 0 if pool.run("x = 2", ["x"]).calls[0].value.text == "2" else 1
            pool.close()
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    os.close(read)
    os.close(write)
    assert os.WEXITSTATUS(status) == 0
    assert pool.run("x = 3", ["x"]).calls[0].value.text == "3"


def test_paths_under_tmp_are_bound_back_over_the_private_tmp():
    # CI clones (and many virtual environments) live under /tmp, which the bwrap tier
    # replaces by a private tmpfs: the interpreter's own paths must be bound after it,
    # and the parents bwrap makes for a bind must be readable by the children (not 0700)
    from execverify_data.sandbox import layers

    venv = tempfile.mkdtemp(prefix="ci-", dir="/tmp")
    os.mkdir(os.path.join(venv, ".venv"))
    try:
        before, after = layers._binds([os.path.join(venv, ".venv"), "/usr"])
        assert after == ["--perms", "0755", "--dir", venv, "--ro-bind", f"{venv}/.venv", f"{venv}/.venv"]
        assert before == ["--ro-bind", "/usr", "/usr"]
        before, _ = layers._binds(["/usr/lib"])
        assert before == ["--perms", "0755", "--dir", "/usr", "--ro-bind", "/usr/lib", "/usr/lib"]
    finally:
        shutil.rmtree(venv)


def test_the_package_and_its_checkout_are_never_in_a_childs_view(monkeypatch, tmp_path):
    from execverify_data.sandbox import layers

    # nothing of the package or the checkout, but an interpreter a user made inside the checkout (make venv: .venv)
    own = layers.interpreter_dirs()
    assert not any(layers._below(path, top) for path in layers.sandbox_paths() for top in layers._holes()
                   if not any(layers._below(path, d) for d in own))
    assert not any(layers._below(path, layers.PACKAGE_DIR) for path in layers.sandbox_paths())
    # a package installed inside a directory a child may read is cut out of it
    site = tmp_path / "site-packages"
    for name in ("execverify_data", "numpy", "six.py"):
        (site / name).mkdir(parents=True) if "." not in name else (site / name).write_text("")
    monkeypatch.setattr(layers, "_holes", lambda: [str(site / "execverify_data")])
    assert layers._punch(str(site), layers._holes()) == [str(site / "numpy"), str(site / "six.py")]


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_VALUES = st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=8), st.booleans(), st.none(),
                    st.lists(st.integers(), max_size=6), st.lists(st.integers(), max_size=6).map(tuple),
                    st.tuples(st.integers()), st.lists(st.text(max_size=3), max_size=3), st.floats())


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_the_testers_shortcuts_read_canonical_text_as_the_restricted_parser_does(value):
    from execverify_data.values import encode, parse, read_canonical

    canonical = encode(value)
    fast, slow = read_canonical(canonical.text, canonical.type), parse(canonical.text)
    assert type(fast) is type(slow) and repr(fast) == repr(slow)


FLOOD = "import os\ndef flood(x):\n    n = 0\n    while True:\n        open(f'f{n}', 'w').close()\n        n += 1\n"


@pytest.mark.parametrize("mode", ["calls", "test"])
def test_a_flood_of_empty_files_is_stopped_at_the_inode_cap(mode):
    """bwrap's tmpfs caps bytes, not inodes: the zygote counts the files a call adds to its private /tmp and
    stops it past INODE_CAP (each empty file holds kernel memory the call's memory limit does not see)."""
    if not LAYERS["bwrap"].available:
        pytest.skip("the inode cap is the bwrap tmpfs's (without bwrap, Landlock confines writes to the call's folder)")
    with UntrustedPool(1) as pool:
        t0 = time.monotonic()
        if mode == "calls":
            result = pool.run(FLOOD, ["flood(1)"], timeout=10.0)
        else:
            result = pool.run(FLOOD, test="assert flood(1) == 2", timeout=10.0)
        took = time.monotonic() - t0
        assert result.status is Status.OUTPUT_LIMIT and "inode cap" in result.detail, result
        assert took < 5.0, took
        assert pool.run("def f(a):\n    return a + 1\n", ["f(1)"]).calls[0].value.text == "2"  # the worker goes on
