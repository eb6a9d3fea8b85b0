"""Helpers for the sandbox's tests (not part of the package): find processes that outlived an untrusted call."""

from __future__ import annotations

import os

from execverify_data.sandbox._tester import TESTER_NAME
from execverify_data.sandbox._zygote import JANITOR_NAME

__all__ = ["stray_processes"]


def _processes() -> dict[int, tuple[int, int, str]]:
    """pid -> (ppid, real uid, cmdline) of every visible process."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as handle:
                fields = dict(line.split(":", 1) for line in handle if ":" in line)
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
            with open(f"/proc/{entry}/comm", "rb") as handle:
                name = handle.read().strip()
                if name in (TESTER_NAME, JANITOR_NAME):  # a janitor that has ended (a zombie) has no cmdline
                    cmdline = f"[{name.decode()}] {cmdline}"
        except OSError:
            continue
        table[int(entry)] = (int(fields["PPid"]), int(fields["Uid"].split()[0]), cmdline)
    return table


def _is_infrastructure(cmdline: str) -> bool:
    return "sandbox._zygote import main" in cmdline or cmdline.startswith(("bwrap", "/usr/bin/bwrap"))


#: Long-lived helpers that other parts of a test session start as direct children of the test
#: process (multiprocessing's resource tracker, forkserver and spawn workers, the trusted runner's workers,
#: the second interpreter);
#: never started by untrusted code, which only ever runs below a sandbox zygote.
_SESSION_HELPERS = (
    "from multiprocessing.resource_tracker import main",
    "from multiprocessing.forkserver import main",
    "from execverify_data.sandbox.trusted import _worker_main",
    "from execverify_data.synth.retrace import _main",  # the second interpreter (a warm process)
    "from multiprocessing.spawn import spawn_main",  # a spawn pool of our own (shards.spawn_pool)
)


def stray_processes(pools=(), ignore=()) -> list[str]:
    """Descendants of this process that are not sandbox workers, and processes running as a
    worker's sandbox uid; an empty list once every untrusted call has been cleaned up."""
    table = _processes()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    stray = []
    todo = list(children.get(os.getpid(), []))
    testers: set[int] = set()  # one persistent test child per zygote is infrastructure
    while todo:
        pid = todo.pop()
        ppid, uid, cmdline = table[pid]
        if cmdline.startswith(f"[{TESTER_NAME.decode()}]") and _is_infrastructure(table[ppid][2]) \
                and ppid not in testers:
            testers.add(ppid)
            todo.extend(children.get(pid, []))
            continue
        if cmdline.startswith(f"[{JANITOR_NAME.decode()}]") and _is_infrastructure(table[ppid][2]):
            continue  # the zygote's own child, emptying its trash; it runs no untrusted code
        if ppid == os.getpid() and any(helper in cmdline for helper in _SESSION_HELPERS):
            continue  # its own children (trusted jobs) are not the sandbox's business
        if pid not in ignore and not _is_infrastructure(cmdline):
            stray.append(f"{pid} (parent {ppid}, uid {uid}): {cmdline[:120]}")
        todo.extend(children.get(pid, []))
    uids = {uid for pool in pools for worker in list(pool._workers) for uid in worker.uids}
    for pid, (ppid, uid, cmdline) in table.items():
        if uid in uids and not (ppid in testers and cmdline.startswith(f"[{TESTER_NAME.decode()}]")):
            stray.append(f"{pid} (parent {ppid}, sandbox uid {uid}): {cmdline[:120]}")
    return sorted(set(stray))
