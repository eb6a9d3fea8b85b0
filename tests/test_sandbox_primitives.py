"""The sandbox's building blocks: the framing codec, the warm-process primitive, the remover of
trees, and the results a large value and a flood give."""

from __future__ import annotations

import json
import os
import pickle
import struct

import pytest

from execverify_data.errors import ExecVerifyError
from execverify_data.sandbox import Status, UntrustedPool, _wire
from execverify_data.sandbox._fs import remove_tree
from execverify_data.sandbox.warm import Boot, WarmProcess, minimal_env
from execverify_data.trace import trace_call

# --------------------------------------------------------------------------- the codec


def _frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def test_frames_round_trip_and_are_parsed_at_offset_zero_only():
    assert _wire.decode(_wire.pack_json({"a": [1, "é"]})) == {"a": [1, "é"]}
    assert _wire.decode(_wire.pack_record(["x", "", "ü" * 3]), kinds=(_wire.RECORD,)) == ["x", "", "üüü"]
    good = _wire.pack_record(["3"])
    with pytest.raises(_wire.FrameError, match="announces"):  # garbage first: no scan for a frame further on
        _wire.decode(b"\x00\x00\x00\x05Rjunk" + good, kinds=(_wire.RECORD,))
    with pytest.raises(_wire.FrameError, match="announces"):  # anything after the frame
        _wire.decode(good + b"x", kinds=(_wire.RECORD,))


@pytest.mark.parametrize(
    ("data", "kinds", "message"),
    [(_frame(b"J" + b"[" * 50_000), (_wire.JSON,), "does not parse"),
     (_frame(b'J{"a": "\xed\xa0\x80"}'), (_wire.JSON,), "does not parse"),  # an encoded surrogate: invalid UTF-8
     (_frame(b"R" + struct.pack(">I", 3) + b"\xed\xa0\x80"), (_wire.RECORD,), "not valid UTF-8"),
     (_frame(b"R" + (struct.pack(">I", 1) + b"1") * 100), (_wire.RECORD,), "more than 10 fields"),
     (_frame(b"R" + struct.pack(">I", 99) + b"1"), (_wire.RECORD,), "longer than its frame"),
     (_frame(b"J{}"), (_wire.RECORD,), "of kind"),
     (_frame(b"P" + pickle.dumps(os.system)), (_wire.PICKLE,), "may not build posix.system"),
     (struct.pack(">I", 2**31) + b"J", (_wire.JSON,), "exceeds"),
     (b"\x00\x00", (_wire.JSON,), "shorter than its header")],
    ids=["deep-json", "surrogate-json", "surrogate-record", "too-many-fields", "field-too-long", "wrong-kind",
         "pickle-outside-allowlist", "huge-length", "short"],
)
def test_malformed_frames_are_errors_never_crashes(data, kinds, message):
    with pytest.raises(_wire.FrameError, match=message):
        _wire.decode(data, kinds=kinds, max_fields=10, max_bytes=1 << 20)


def test_strings_are_written_as_valid_utf8():
    record = _wire.decode(_wire.pack_record(["\udcff"]), kinds=(_wire.RECORD,))
    assert record == ["\\udcff"] and record[0].encode("utf-8")
    assert _wire.decode(_wire.pack_json({"m": "a\ud800b"})) == {"m": "a?b"}


def test_traces_cross_as_pickles_of_their_own_classes_only():
    trace = trace_call("def f(x):\n    return {x: [x, 1.5]}\n", "f(2)")
    assert _wire.decode(_wire.pack_pickle(("trace", trace)), kinds=(_wire.PICKLE,)) == ("trace", trace)


def test_the_reader_takes_frames_written_together_with_one_read():
    read_end, write_end = os.pipe()
    frames = [_wire.pack_record([str(i)]) for i in range(50)]
    os.write(write_end, b"".join(frames))
    os.close(write_end)
    reader = _wire.Reader(read_end)
    assert [reader.frame(kinds=(_wire.RECORD,)) for _ in range(50)] == [[str(i)] for i in range(50)]
    assert reader.frame(kinds=(_wire.RECORD,)) is None
    os.close(read_end)


# --------------------------------------------------------------------------- warm processes


def test_a_helper_gets_only_the_environment_it_is_given(monkeypatch, tmp_path):
    monkeypatch.setenv("EXECVERIFY_PLANTED_SECRET", "s3cret")
    helper = tmp_path / "echo_env.py"
    helper.write_text(
        "import json, os\nfrom execverify_data.sandbox import _wire\n"
        "def main():\n"
        "    channel = _wire.take_channel()\n"
        "    config = _wire.read_frame(channel)\n"
        "    _wire.write_all(channel, _wire.pack_json({'ready': True, 'env': dict(os.environ), 'config': config}))\n")
    process = WarmProcess(Boot(name="a test helper", target="echo_env:main",
                               path=(str(tmp_path), os.path.dirname(os.path.dirname(_wire.__file__)) + "/.."),
                               env=minimal_env(PYTHONHASHSEED="7"), config={"x": 1}))
    try:
        ready = process.wait_ready()
    finally:
        process.close()
    assert "EXECVERIFY_PLANTED_SECRET" not in ready["env"] and ready["env"]["PYTHONHASHSEED"] == "7"
    assert ready["config"] == {"x": 1}


def test_a_helper_that_cannot_start_says_why_in_one_line(tmp_path):
    process = WarmProcess(Boot(name="a test helper", target="execverify_data_not_installed:main", path=(str(tmp_path),),
                               hint="install it"))
    with pytest.raises(ExecVerifyError, match="a test helper .* could not start: .*ModuleNotFoundError.*install it") as raised:
        process.wait_ready()
    assert "\n" not in str(raised.value)


# --------------------------------------------------------------------------- cleanup


def test_remove_tree_takes_any_tree_a_candidate_can_build(tmp_path):
    top = tmp_path / "tree"
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    for depth in range(1500):  # deeper than the recursion limit, and paths longer than PATH_MAX
        os.mkdir("d" * 40, dir_fd=fd)
        child = os.open("d" * 40, os.O_RDONLY, dir_fd=fd)
        if depth % 300 == 0:
            with open(os.open("f", os.O_WRONLY | os.O_CREAT, dir_fd=child), "w") as handle:
                handle.write("x")
            os.symlink("/etc", "link", dir_fd=child)
            os.chmod(child, 0)
        os.close(fd)
        fd = child
    os.close(fd)
    assert remove_tree(top, deadline=0.0) is False  # no time: nothing is lost, a later call goes on
    assert remove_tree(top) is True and not top.exists()
    assert remove_tree(top) is True  # already gone


def test_a_large_result_is_read_while_the_child_writes_it_and_a_flood_is_cut():
    with UntrustedPool(1) as pool:
        big = pool.run("x = 'a' * 9_000", ["x"] * 30)  # 270 kB of results: more than a pipe holds
        assert big.status is Status.OK and [len(c.value.text) for c in big.calls] == [9_002] * 30
        flood = pool.run("import os\nos.write(3, b'x' * (20 << 20))\nos._exit(0)", ["1"])  # past the 16 MiB cap
        assert flood.status is Status.OUTPUT_LIMIT and flood.calls == ()
        assert json.dumps(pool.run("y = 1", ["y"]).calls[0].value.text) == '"1"'
