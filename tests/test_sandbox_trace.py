"""Traces of untrusted code (``UntrustedPool.trace``, :mod:`execverify_data.sandbox._tracing`): the same
traces as the trusted runner's on honest programs, every stream that breaks the protocol refused, every
refused act refused."""

from __future__ import annotations

import pytest

from execverify_data.data import cruxeval_records
from execverify_data.sandbox import _wire
from execverify_data.sandbox._tracing import _mac, assemble
from execverify_data.sandbox.trusted import TrustedRunner
from execverify_data.sandbox.untrusted import UntrustedPool
from execverify_data.synth.retrace import trace_digest
from execverify_data.trace import Status
from execverify_data.values import parse_call


@pytest.fixture(scope="module")
def pool():
    with UntrustedPool(2, hash_seed=0) as p:
        yield p


def _literal(record) -> bool:
    try:
        parse_call(f"f({record['input']})")
    except Exception:  # noqa: BLE001 - an expression, not a literal: the trusted path only
        return False
    return True


def test_honest_programs_trace_as_in_the_trusted_runner(pool):
    """Every CRUXEval program with literal arguments (about 800) and synthesized programs of every level:
    the sandbox's trace (assembled from the child's stream) has the trusted runner's digest."""
    from execverify_data.pipeline import SynthConfig, synthesize_rows

    jobs = [(r["code"], f"f({r['input']})") for r in cruxeval_records() if _literal(r)]
    records, _ = synthesize_rows(SynthConfig(n_programs=60, seed=29), 0, 60)
    jobs += [(r.code, call) for r in records for call in r.calls]
    assert len(jobs) > 900 and {r.level for r in records} == {1, 2, 3, 4, 5, 6}
    with TrustedRunner(2, max_steps=5000, timeout=5.0) as runner:
        trusted = runner.map(jobs)
    ours = [t for code, call in jobs for t in pool.trace_many(code, [call], max_steps=5000, timeout=5.0)]
    mismatches = [(code, call) for (code, call), a, b in zip(jobs, trusted, ours) if trace_digest(a) != trace_digest(b)]
    assert mismatches == []
    assert sum(t.status is Status.OK for t in ours) > 850
    assert sum(len(t.events) for t in ours) > 10_000


REFUSED = {
    "a traceback's frame": "def f(x):\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        e.__traceback__.tb_frame\n    return x\n",
    "a generator's frame": "def f(x):\n    g = (i for i in range(x))\n    g.gi_frame\n    return x\n",
    "sys._getframe": "import sys\ndef f(x):\n    return sys._getframe(0).f_lineno\n",
    "the garbage collector": "import gc\ndef f(x):\n    return len(gc.get_objects())\n",
    "a file": "def f(x):\n    return open('/etc/hostname').read()\n",
    "a module outside the standard library": "def f(x):\n    return __import__('cl' + 'ick').__name__\n",
    "a file of the interpreter, to write": "import os\ndef f(x):\n    return open(os.__file__, 'a')\n",
    "a process": "import os\ndef f(x):\n    return os.system('true')\n",
    "a socket": "import socket\ndef f(x):\n    return socket.socket()\n",
    "ctypes": "import ctypes\ndef f(x):\n    return ctypes.string_at(id(x), 8)\n",
    "another audit hook": "import sys\ndef f(x):\n    sys.addaudithook(lambda *a: None)\n    return x\n",
}


@pytest.mark.parametrize("what", sorted(REFUSED))
def test_what_a_traced_program_is_refused(pool, what):
    trace = pool.trace(REFUSED[what], "f(3)", timeout=5.0)
    assert trace.status is Status.CRASHED and trace.exception.type == "SandboxRefused", (what, trace)


def test_the_standard_library_is_not_refused(pool):
    """Modules a program imports by name, those Python imports lazily (a codec, ``_strptime``), and the
    dynamic import of one."""
    code = ("from fractions import Fraction\nimport statistics, textwrap\nfrom collections import Counter\n"
            "def f(x):\n    import colorsys\n    return [str(Fraction(x, 3)), statistics.mean([x, 1]), textwrap.shorten('a b c', 5),"
            " Counter('aab')['a'], colorsys.rgb_to_hsv(0, 0, 0), 'ab'.encode('shift_jis'),"
            " __import__('time').strptime('2020', '%Y').tm_year, __import__('x' + 'ml.dom').__name__]\n")
    trace = pool.trace(code, "f(3)")
    assert trace.status is Status.OK, trace.exception
    assert trace.output.text == "['1', 2, 'a b c', 2, (0.0, 0.0, 0), b'ab', 2020, 'xml']"


def test_a_module_of_namedtuple_records_runs_as_it_does_outside(pool):
    """``namedtuple()`` reads its caller's frame for the module it names (refused here): such a module stopped
    before its first call. The class is made as an unsandboxed run makes it (``__main__``), and the real function,
    reached through the one a program sees, still gets no frame."""
    code = ("from collections import namedtuple\nMember = namedtuple('Member', 'name year')\n"
            "def f(x):\n    m = Member('ada', x)\n    return [m.year + 1, repr(m), Member.__module__, m._replace(year=1).year]\n")
    trace = pool.trace(code, "f(3)")
    assert trace.status is Status.OK, trace.exception
    assert trace.output.text == "[4, \"Member(name='ada', year=3)\", '__main__', 1]"
    escape = ("import collections\ndef f(x):\n    real = collections.namedtuple.__closure__[0].cell_contents\n"
              "    return real('P', 'a').__module__\n")
    trace = pool.trace(escape, "f(3)", timeout=5.0)
    assert trace.status is Status.CRASHED and trace.exception.type == "SandboxRefused", trace


def test_a_program_cannot_ask_for_its_recorder(pool):
    code = "import sys\ndef f(x):\n    return sys.gettrace() is None\n"
    assert pool.trace(code, "f(1)").output.text == "True"


# --------------------------------------------------------------------------- the host's checks of a stream

KEY = "k" * 32
SOURCE = "def f(x):\n    y = x + 1\n    return y\n"


def _stream(*records, key=KEY, sign=True) -> bytes:
    out, chain = b"", b""
    for fields in records:
        fields = list(fields)
        if sign:
            chain = _mac(key.encode(), chain, _wire.pack_record(fields))
            fields.append(chain.hex())
        out += _wire.pack_record(fields)
    return out


LINE2 = ("L", "0", "f", "0", "2")
STATE2 = ("S", "0", "x", "1", "int", "1", "", "y", "2", "int", "1", "")
LINE3 = ("L", "0", "f", "0", "3")
END = ("E", "ok", "2", "int", "1", "", "", "", "", "3.11.7")


def test_a_well_formed_stream_is_the_trace():
    trace = assemble(_stream(LINE2, STATE2, LINE3, ("=", "0"), END), KEY, SOURCE, max_steps=10)
    assert trace.status is Status.OK and trace.output.text == "2"
    assert [(e.line, e.occurrence, {k: v.text for k, v in e.locals.items()}) for e in trace.events] == \
        [(2, 1, {"x": "1", "y": "2"}), (3, 1, {"x": "1", "y": "2"})]


@pytest.mark.parametrize("stream, why", [
    (_stream(LINE2, STATE2, LINE3, ("=", "0"), END, key="x" * 32), "MAC"),
    (_stream(LINE2, STATE2, LINE3, ("=", "0"), END, sign=False), "MAC"),
    (_stream(LINE2, STATE2, LINE3, ("=", "0"), END)[:-5], "ends inside"),
    (_stream(STATE2, LINE2, END), "no line waiting"),
    (_stream(LINE2, LINE3, END), "before its last one ended"),
    (_stream(("L", "0", "f", "0", "9"), END), "not a line of the program"),
    (_stream(LINE2, STATE2, LINE3, ("=", "0"), ("L", "0", "f", "0", "2"), ("=", "0"), END), "more than 2"),
    (_stream(LINE2, STATE2), "no end record"),
    (_stream(LINE2, STATE2, END, LINE3), "after the end"),
    (_stream(LINE2, ("S", "0", "x", "1", "int", "7", ""), END), "askable"),
    (_stream(LINE2, STATE2, ("E", "ok", "2", "int", "1", "", "ValueError", "", "", "3.11.7")), "exception"),
])
def test_a_stream_that_breaks_the_protocol_is_a_crashed_trace(stream, why):
    trace = assemble(stream, KEY, SOURCE, max_steps=2)
    assert trace.status is Status.CRASHED and trace.exception.type == "SandboxStream"
    assert why in trace.exception.message, trace.exception.message


def test_an_unsigned_refusal_ends_the_trace_whatever_follows():
    stream = _stream(LINE2) + _wire.pack_record(["X", "open", "open"]) + _stream(STATE2, END)
    trace = assemble(stream, KEY, SOURCE, max_steps=10)
    assert trace.exception.type == "SandboxRefused" and "open" in trace.exception.message
