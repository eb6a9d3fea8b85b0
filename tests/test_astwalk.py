"""``astwalk.parse_ast``: one thread in :func:`ast.parse` at a time, and the scoring paths parse through it.

CPython 3.11 shares the AST constructor's depth counter between threads; CI once failed a CRUXEval-I agreement
test with "SystemError: AST constructor recursion depth mismatch" while three threads scored answers."""

from __future__ import annotations

import ast
import threading
import time
from pathlib import Path

from execverify_data import astwalk

PACKAGE = Path(astwalk.__file__).parent


def test_threads_parse_one_at_a_time(monkeypatch):
    inside, most = [0], [0]
    real = ast.parse

    def probe(source, mode="exec"):
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        time.sleep(0.01)  # gives the other threads the GIL while this one is "converting"
        inside[0] -= 1
        return real(source, mode=mode)

    monkeypatch.setattr(astwalk.ast, "parse", probe)
    threads = [threading.Thread(target=lambda: [astwalk.parse_ast("x = [1]") for _ in range(5)]) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1


def test_a_finalizer_may_parse_inside_a_parse():
    done = threading.Event()
    with astwalk._PARSING:  # held by this thread, as while a finalizer runs mid-parse
        threading.Thread(target=lambda: (astwalk.parse_ast("y = 2"), done.set()), daemon=True).start()
        assert astwalk.parse_ast("x = 1").body[0].targets[0].id == "x"
        assert not done.wait(0.05)  # the other thread waits its turn
    assert done.wait(5)


def test_scoring_paths_parse_through_the_lock():
    """The modules that score answers from several threads (the sandbox pool is thread-safe) never call
    ast.parse directly."""
    for name in ["verdicts.py", "values.py", "lm_eval_tasks/official.py", "rewards/unit_tests.py"]:
        assert "ast.parse(" not in (PACKAGE / name).read_text().replace("``ast.parse``", ""), name
