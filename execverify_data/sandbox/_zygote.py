"""The zygote of the untrusted runner: a small pre-imported process, started by
:class:`~execverify_data.sandbox.UntrustedPool` (inside ``bwrap`` when available), that forks
one child per execution. It is trusted code and never reads a request's content: everything a
job carries arrives as file descriptors (memfds, pipes) that it passes to the children, so none
of it passes through the memory later candidates are forked from (``docs/sandbox.md``,
"Process model").

Host -> zygote: first the configuration, then per job::

    {"mode": "calls" | "trace" | "test", "timeout": float, "memory_mb": int, "output_limit": int, "max_threads": int}
    fds, call and trace modes: request memfd, result pipe (write end), secret pipe (read end), stdout, stderr
    fds, test mode: request memfd, stdout, stderr, test memfd, verdict pipe (write end)

Zygote -> host: ``{"ready": true, ..., "imports": null | why}`` once, then per job::

    {"exit_status": int | null, "killed": bool, "timed_out": bool, "duration_s": float,
     "tester": "ok" | "died" | "stuck" | null}

What the children write is described in :mod:`~execverify_data.sandbox._candidate` and
:mod:`~execverify_data.sandbox._tester`.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import gc
import io
import math
import os
import resource
import select
import signal
import socket
import sys
import time

from execverify_data.sandbox import _fs, _linux, _seccomp, _wire
from execverify_data.sandbox._candidate import describe, probe_imports, run_calls, serve_candidate
from execverify_data.sandbox._tester import serve_tests
from execverify_data.sandbox._tracing import run_trace

# Modules a completion commonly imports; pre-importing them keeps the per-call cost a fork.
# Kept small on purpose: every pre-imported module makes each fork (and each child's exit) a
# little dearer, and some (``threading``, ``random``) add at-fork hooks that run in every child.
# A completion that needs another module imports it itself (a fraction of a millisecond to a few).
PREIMPORTS = (
    "abc", "ast", "bisect", "collections", "collections.abc", "contextlib", "copy", "functools",
    "heapq", "io", "itertools", "json", "math", "operator", "re", "string", "time", "typing",
    "ctypes", "execverify_data.values",
)

_CHILD_NAME = b"ev-child"
JANITOR_NAME = b"ev-janitor"  # the child emptying the trash (``/proc/<pid>/comm``)
_RLIMITS = (resource.RLIMIT_CPU, resource.RLIMIT_AS, resource.RLIMIT_FSIZE, resource.RLIMIT_NOFILE,
            resource.RLIMIT_CORE, resource.RLIMIT_NPROC)
_TESTER_JOBS = 1000  # the persistent test child is replaced after this many tests
#: Files and folders one call may add to the sandbox's private /tmp (inside bwrap), and how often the
#: zygote counts them.
INODE_CAP = 20_000
INODE_POLL = 0.02
_TESTER_GRACE = 0.25  # seconds a tester has to answer once its candidate is gone


# --------------------------------------------------------------------------- child side


def _confine(zygote: Zygote, rlimits: tuple, fd_list: list[int], workdir: str, ids) -> None:
    """Set up a freshly forked child: session, uid, Landlock, fds ``0..n-1`` = ``fd_list``, rlimits, seccomp.

    Everything it needs was made in the zygote (:meth:`Zygote.rlimits`, the bound ``prctl``, the
    loadable seccomp filter, the std streams, an empty environment): each object a child builds
    or touches costs it copy-on-write faults of the zygote's pages."""
    os.setsid()
    if not zygote.cfg.get("bwrap"):  # inside bwrap the pid namespace ends with the zygote
        _prctl(zygote, _linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    os.chdir(workdir)
    if ids is not None:
        _become(ids)
    _prctl(zygote, _linux.PR_SET_DUMPABLE, 0)  # no ptrace, no /proc/<pid>/mem from another process of the same uid
    _prctl(zygote, _linux.PR_SET_NAME, zygote.child_name)  # "ev-child" in ps and /proc/<pid>/comm (the tester renames itself)
    if zygote.landlock_fd is not None:  # no_new_privs: set in the zygote, inherited
        _linux.restrict_self(zygote.landlock_fd)
    elif zygote.landlock_rules is not None:
        abi = zygote.cfg["landlock"]
        here = os.open(".", os.O_PATH | os.O_CLOEXEC)
        own = os.open("/proc/self", os.O_PATH | os.O_CLOEXEC)  # /proc/<this pid>, nothing of other processes
        _linux.restrict([*zygote.landlock_rules, (here, _linux.all_rights(abi)), (own, _linux.read_rights(abi))], abi)
        os.close(here)
        os.close(own)
    high = [_dup_high(fd) for fd in fd_list]
    for target, fd in enumerate(high):
        os.dup2(fd, target)
    os.closerange(len(fd_list), zygote.max_fds)
    for which, soft, hard in rlimits:
        resource.setrlimit(which, (soft, hard))
    if zygote.seccomp is not None:
        zygote.seccomp.install(os.getpid())
    gc.enable()  # off in the zygote only
    sys.stdin, sys.stdout, sys.stderr = zygote.streams  # made before the fork: fds 0-2 are the child's own now


def _prctl(zygote: Zygote, option: int, arg: int) -> None:
    if zygote.prctl(option, arg, None, 0, 0) != 0:
        raise _linux.failed(f"prctl({option})")


def _become(ids: tuple[int, int]) -> None:
    os.setgroups([])
    os.setgid(ids[1])
    os.setuid(ids[0])


def _dup_high(fd: int) -> int:
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 256)


def _open_high(path: str) -> int:
    """An ``O_PATH`` descriptor of ``path``, above the descriptors a child's set-up moves to 0..n."""
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        return _dup_high(fd)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- zygote side


class Zygote:
    def __init__(self, cfg: dict, channel: socket.socket):
        self.cfg = cfg
        self.channel = channel
        self.base = cfg.get("tmpdir") or "/tmp"
        self.null = os.open(os.devnull, os.O_RDWR)
        self.counter = 0
        self.jobs = 0
        self.tester = None
        self.candidate_ids = (cfg["uid"], cfg["gid"]) if cfg.get("uid") is not None else None
        self.tester_ids = (cfg["tester_uid"], cfg["tester_gid"]) if cfg.get("tester_uid") is not None else None
        # owned by the zygote: no child can plant anything in the test child's directory or in the trash
        self.tester_dir = os.path.join(self.base, f"tester-{os.getpid()}")
        os.mkdir(self.tester_dir, 0o711)
        os.chmod(self.tester_dir, 0o711)
        self.trash = os.path.join(self.base, f"trash-{os.getpid()}")
        os.mkdir(self.trash, 0o700)
        self.trash_count = 0
        self.trashed = False  # a tree went to the trash since the last janitor started
        self.janitor: int | None = None  # the child emptying the trash, while it runs
        self.landlock_rules = self._landlock_rules(cfg)
        self.landlock_fd = None
        if self.landlock_rules is not None:
            _linux.prctl(_linux.PR_SET_NO_NEW_PRIVS, 1)  # inherited by every child; Landlock needs it
            if cfg.get("bwrap") and self.candidate_ids is not None:
                # one ruleset for every child: inside bwrap /proc shows only the sandbox's processes, and
                # /tmp is a private tmpfs where the children's uids can write only their own directories
                abi = int(cfg["landlock"])
                extra = [(_open_high("/proc"), _linux.read_rights(abi)),
                         (_open_high(self.base), _linux.all_rights(abi))]
                ruleset = _linux.ruleset([*self.landlock_rules, *extra], abi)
                self.landlock_fd = _dup_high(ruleset)
                os.close(ruleset)
        self.seccomp = None  # a _seccomp.LoadableFilter when the layer is on (see main)
        # bound here, so that a child's prctl calls build nothing
        self.prctl = _linux.libc().prctl
        self._child_name = ctypes.create_string_buffer(_CHILD_NAME)
        self.child_name = ctypes.addressof(self._child_name)
        self.max_fds = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        self.hard_limits = {which: resource.getrlimit(which)[1] for which in _RLIMITS}
        self.streams = (open(0, "r", closefd=False),  # noqa: SIM115 - the children's streams, for their life
                        io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace"),
                        io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace"))

    @staticmethod
    def _landlock_rules(cfg: dict):
        """``(O_PATH fd, rights)`` for every path a child may read, opened once here."""
        abi = int(cfg.get("landlock") or 0)
        if abi < 1:
            return None
        rules = []
        devices = [(path, True) for path in cfg.get("devices", [])]
        for path, device in [*((path, False) for path in cfg.get("read_paths", [])), *devices]:
            try:
                fd = _open_high(path)
            except OSError:
                continue
            if device:
                rules.append((fd, _linux.file_rights(abi, write=path == os.devnull)))
            else:
                rules.append((fd, _linux.read_rights(abi) if os.path.isdir(path) else _linux.file_rights(abi)))
        return rules

    def rlimits(self, limits: dict, ids, *, cpu_limit: bool = True) -> tuple:
        """``(which, soft, hard)`` for a child with these limits, none above the zygote's own hard limits."""
        timeout = float(limits["timeout"])
        cpu = max(1, math.ceil(timeout)) + 1
        wanted = {
            resource.RLIMIT_CPU: (cpu, cpu + 1),
            resource.RLIMIT_AS: (int(limits["memory_mb"]) << 20,) * 2,
            resource.RLIMIT_FSIZE: (int(limits["output_limit"]),) * 2,
            resource.RLIMIT_NOFILE: (64, 64),
            resource.RLIMIT_CORE: (0, 0),
        }
        if not cpu_limit:  # the persistent test child: the zygote's wall-clock limit applies per test
            del wanted[resource.RLIMIT_CPU]
        if ids is not None:  # the main thread and the threads it may start (its uid is its own)
            wanted[resource.RLIMIT_NPROC] = (int(limits["max_threads"]) + 1,) * 2
        capped = []
        for which, (soft, hard) in wanted.items():
            current = self.hard_limits[which]
            if current != resource.RLIM_INFINITY:
                soft, hard = min(soft, current), min(hard, current)
            capped.append((which, soft, hard))
        return tuple(capped)

    def _fork(self, role, limits: dict, fd_list: list[int], workdir: str, ids, *args, cpu_limit: bool = True) -> int:
        rlimits = self.rlimits(limits, ids, cpu_limit=cpu_limit)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            try:
                try:
                    _confine(self, rlimits, fd_list, workdir, ids)
                except BaseException as exc:  # noqa: BLE001 - set-up failed: report and die
                    try:
                        os.write(2, f"sandbox set-up failed: {describe(exc)}\n".encode())
                    finally:
                        os._exit(71)
                role(*args)
            finally:
                os._exit(70)
        return pid

    def probe(self) -> str | None:
        """Why a confined child cannot import what a completion would, or ``None`` when it can."""
        report_r, report_w = os.pipe2(os.O_CLOEXEC)
        workdir = self._workdir()
        limits = {"timeout": 30.0, "memory_mb": 1024, "output_limit": 1 << 20, "max_threads": 4}
        pid = self._fork(probe_imports, limits, [self.null, self.null, self.null, report_w], workdir,
                         self.candidate_ids, list(self.cfg.get("site_dirs", [])))
        os.close(report_w)
        try:
            report = _read_until_eof(report_r, 4096, time.monotonic() + 30.0)
        finally:
            os.close(report_r)
        _kill(pid)
        _, status = os.waitpid(pid, 0)
        self._remove(workdir)
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            return None
        return report.decode("utf-8", "replace") or f"the probe child ended with status {status}"

    def _workdir(self) -> str:
        self.counter += 1
        workdir = os.path.join(self.base, f"call-{os.getpid()}-{self.counter}")
        os.mkdir(workdir, 0o700)
        if self.candidate_ids is not None:
            os.chown(workdir, *self.candidate_ids)
        return workdir

    def handle(self, job: dict, fds: list[int]) -> dict:
        """Run one job; the host's descriptors ``fds`` are closed here, whatever happens."""
        try:
            mode = job.get("mode")
            if mode not in ("calls", "trace", "test") or len(fds) != 5 + (mode == "calls" and bool(job.get("stdin"))):
                raise ValueError(f"a job of mode {mode!r} with {len(fds)} descriptors")
            workdir = self._workdir()
            pids: list[int] = []
            try:
                if mode == "test":
                    return self._handle_test(job, fds, workdir, pids)
                return self._handle_calls(job, fds, workdir, pids, run_trace if mode == "trace" else run_calls)
            finally:
                self._cleanup(pids, workdir)
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)

    # -- call mode: one child runs the code and evaluates the calls; its result goes to the host
    # -- trace mode: one child traces one call, streaming its events to the host (``_tracing``)
    def _handle_calls(self, job: dict, fds: list[int], workdir: str, pids: list[int], role=run_calls) -> dict:
        request, result_w, secret_r, stdout, stderr = fds[:5]
        stdin = fds[5] if len(fds) > 5 else self.null
        start = time.monotonic()
        pid = self._fork(role, job, [stdin, stdout, stderr, result_w, secret_r, request], workdir,
                         self.candidate_ids)
        pids.append(pid)
        for fd in (result_w, secret_r):  # the host sees end of file on them once the child is gone
            os.close(fd)
        fds[1] = fds[2] = -1
        ended = self._wait_exit(pid, start + float(job["timeout"]))
        outcome = self._outcome(pid, start, not ended)
        if ended is None:  # stopped for the files it made, not for its time
            outcome.update(timed_out=False, inodes=True)
        return outcome

    # -- test mode: the candidate child runs the code; the persistent test child runs the test
    def _tester(self, limits: dict):
        """The persistent test child (started on first use and after a failure)."""
        if self.tester is None:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            limits = {**limits, "memory_mb": max(1024, int(limits["memory_mb"])), "output_limit": 1 << 20}
            pid = self._fork(serve_tests, limits, [self.null, self.null, self.null, theirs.fileno()],
                             self.tester_dir, self.tester_ids, cpu_limit=False)
            theirs.close()
            self.tester = {"pid": pid, "socket": ours, "pidfd": os.pidfd_open(pid), "jobs": 0}
        return self.tester

    def _drop_tester(self) -> None:
        tester, self.tester = self.tester, None
        if tester is not None:
            _kill(tester["pid"])
            with contextlib.suppress(ChildProcessError):
                os.waitpid(tester["pid"], 0)
            tester["socket"].close()
            os.close(tester["pidfd"])

    def _handle_test(self, job: dict, fds: list[int], workdir: str, pids: list[int]) -> dict:
        request, stdout, stderr, test, verdict_w = fds
        calls_r, calls_w = os.pipe2(os.O_CLOEXEC)
        replies_r, replies_w = os.pipe2(os.O_CLOEXEC)
        start = time.monotonic()
        deadline = start + float(job["timeout"])
        candidate = self._fork(serve_candidate, job, [self.null, stdout, stderr, calls_r, replies_w, request],
                               workdir, self.candidate_ids)
        pids.append(candidate)
        for fd in (calls_r, replies_w):  # the tester sees end of file on replies once the candidate is gone
            os.close(fd)
        self.jobs += 1
        tester = self._tester(job)
        try:
            _wire.send_message(tester["socket"], _wire.pack_json({"id": self.jobs}), [replies_r, calls_w, test, verdict_w])
            sent = True
        except OSError:
            self._drop_tester()
            sent = False
        finally:
            for fd in (replies_r, calls_w):
                os.close(fd)
        tester_state, timed_out, flooded = "died", False, False
        if sent:
            tester_state, timed_out, flooded = self._await_tester(tester, self.jobs, candidate, deadline)
        outcome = self._outcome(candidate, start, timed_out)
        outcome["tester"] = tester_state
        if flooded:
            outcome["inodes"] = True
        if self.tester is not None and self.tester["jobs"] >= _TESTER_JOBS:
            self._drop_tester()
        return outcome

    def _await_tester(self, tester: dict, job_id: int, candidate: int, deadline: float) -> tuple[str, bool, bool]:
        """Wait for the test child to finish job ``job_id``: its state, whether time ran out, and whether the
        candidate was stopped for the files it made (as :meth:`_wait_exit` counts them).

        On time-out (or such a flood) the candidate is killed first: the test child then sees end of
        file and finishes at once; one that still has not within a grace period is replaced."""
        tester["jobs"] += 1
        poller = select.poll()
        poller.register(tester["socket"], select.POLLIN)
        poller.register(tester["pidfd"], select.POLLIN)
        poller.register(self.channel, select.POLLIN)
        timed_out = flooded = False
        watch = bool(self.cfg.get("bwrap"))
        base = _inodes_used(self.base) if watch else 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if timed_out or flooded:  # the grace period is over too
                    self._drop_tester()
                    return "stuck", timed_out, flooded
                timed_out = True
                _kill(candidate)
                deadline = time.monotonic() + _TESTER_GRACE
                continue
            if watch and not (timed_out or flooded) and _inodes_used(self.base) - base > INODE_CAP:
                flooded = True
                _kill(candidate)
                deadline = time.monotonic() + _TESTER_GRACE
                continue
            for fd, _ in poller.poll((min(remaining, INODE_POLL) if watch else remaining) * 1000):
                if fd == tester["socket"].fileno():
                    try:
                        done, stray = _wire.recv_message(tester["socket"], max_fds=0)
                    except (OSError, _wire.FrameError):
                        done, stray = None, []
                    for extra in stray:
                        os.close(extra)
                    if not isinstance(done, dict):
                        self._drop_tester()
                        return "died", timed_out, flooded
                    if done.get("id") == job_id:
                        return "ok", timed_out, flooded
                elif fd == tester["pidfd"]:
                    self._drop_tester()
                    return "died", timed_out, flooded
                elif fd == self.channel.fileno():
                    _kill(candidate)
                    self._drop_tester()
                    os._exit(0)  # the host is gone (or broke the protocol)

    def _wait_exit(self, pid: int, deadline: float) -> bool | None:
        """Wait until ``pid`` exits (``True``), ``deadline`` passes (``False``) or, inside bwrap, the call has
        added more than :data:`INODE_CAP` files and folders to the private ``/tmp`` (``None``: bwrap's tmpfs
        caps its bytes, not its inodes, and each empty file holds kernel memory the call's limit does not see;
        the count is read every :data:`INODE_POLL` seconds)."""
        pidfd = os.pidfd_open(pid)
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        poller.register(self.channel, select.POLLIN)
        watch = bool(self.cfg.get("bwrap"))
        base = _inodes_used(self.base) if watch else 0
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                events = poller.poll((min(remaining, INODE_POLL) if watch else remaining) * 1000)
                for fd, _ in events:
                    if fd == pidfd:
                        return True
                    _kill(pid)
                    os._exit(0)  # the host is gone (or broke the protocol)
                if watch and _inodes_used(self.base) - base > INODE_CAP:
                    return None
        finally:
            os.close(pidfd)

    def _outcome(self, pid: int, start: float, timed_out: bool) -> dict:
        """Kill ``pid`` if it still runs, reap it, and describe how it ended."""
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, 0
        killed = not done
        if killed:
            _kill(pid)
            _, status = os.waitpid(pid, 0)
        return {"exit_status": status, "killed": killed, "timed_out": timed_out,
                "duration_s": time.monotonic() - start, "tester": None}

    def _cleanup(self, pids: list[int], workdir: str) -> None:
        for pid in pids:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
        ids = self.candidate_ids
        if ids is not None and not self.cfg.get("seccomp"):
            # without seccomp a grandchild may have left the process group, and SysV IPC objects may be
            # left for the next call: a helper running as the candidates' uid kills and removes all of them
            helper = os.fork()
            if helper == 0:  # pragma: no cover - helper
                try:
                    _become(ids)
                    os.kill(-1, signal.SIGKILL)
                    _linux.remove_ipc_objects(ids[0])
                finally:
                    os._exit(0)
            os.waitpid(helper, 0)
        elif ids is None and not self.cfg.get("seccomp") and self.cfg.get("bwrap"):
            _linux.remove_ipc_objects(None)  # bwrap's IPC namespace holds only what the children made
        if self.janitor in _reap_all():
            self.janitor = None
        self._remove(workdir)

    def _remove(self, workdir: str) -> None:
        try:
            os.rmdir(workdir)  # the common case: the code wrote no files
        except OSError:
            # whatever tree it left is moved where no child can reach it, and removed while the zygote is idle
            self.trash_count += 1
            self.trashed = True
            try:
                os.rename(workdir, os.path.join(self.trash, str(self.trash_count)))
            except OSError:
                _fs.remove_tree(workdir)

    def tidy(self) -> bool:
        """Start a janitor child on the trash when it has new trees and none runs; ``True`` while one runs.

        The trash is emptied in a process of its own because one ``unlink`` of a file a killed
        writer left can block for as long as the kernel takes to write its dirty pages back
        (0.2 s on an idle disk, seconds on a busy one): the zygote itself never waits for it, and
        the next job starts at once."""
        if self.janitor is not None:
            try:
                done = os.waitpid(self.janitor, os.WNOHANG)[0] != 0
            except ChildProcessError:
                done = True
            if not done:
                return True
            self.janitor = None
        if not self.trashed:
            return False
        self.trashed = False
        pid = os.fork()
        if pid == 0:  # pragma: no cover - janitor
            try:
                # no descriptor at all: not the channel's (the host sees the zygote's end when it ends)
                os.closerange(0, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
                _linux.prctl(_linux.PR_SET_NAME, JANITOR_NAME)
                for name in os.listdir(self.trash):
                    _fs.remove_tree(os.path.join(self.trash, name))
            finally:
                os._exit(0)
        self.janitor = pid
        return True


def _inodes_used(path: str) -> int:
    try:
        st = os.statvfs(path)
    except OSError:
        return 0
    return st.f_files - st.f_ffree


def _read_until_eof(fd: int, cap: int, deadline: float) -> bytes:
    data = b""
    while len(data) < cap:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, cap - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _kill(pid: int) -> None:
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(OSError):
            kill(pid, signal.SIGKILL)


def _reap_all() -> set[int]:
    """Reap every child that has ended (the zygote is a subreaper: orphans are its own); their pids."""
    reaped = set()
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped.add(pid)


def _forget_package(package_fd: int | None) -> None:
    """Close the descriptor the package was imported through; later imports from it fail cleanly."""
    if package_fd is None:
        return
    entry = f"/proc/self/fd/{package_fd}"
    sys.path[:] = [p for p in sys.path if p != entry]
    sys.path_importer_cache.pop(entry, None)
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] == "execverify_data" and isinstance(getattr(module, "__path__", None), list):
            module.__path__[:] = []
    os.close(package_fd)


def main() -> None:
    """Entry point of the zygote process (its channel to the host is fd 0)."""
    channel = socket.socket(fileno=_wire.take_channel())
    cfg, _ = _wire.recv_message(channel)
    if not isinstance(cfg, dict):
        return
    _linux.prctl(_linux.PR_SET_CHILD_SUBREAPER, 1)
    import importlib

    for name in (*PREIMPORTS, "pickle"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    _forget_package(cfg.get("package_fd"))
    os.environ.clear()  # started with an empty environment; the children inherit this one
    sys.argv = [""]
    zygote = Zygote(cfg, channel)
    if cfg.get("seccomp"):
        try:  # compiled once here; each child only patches in its pid and loads the small child part
            zygote.seccomp = _seccomp.LoadableFilter(_seccomp.compile_filter("child"))
            _seccomp.install_compiled(_seccomp.compile_filter("shared"), os.getpid())  # the zygote's own, inherited
        except OSError:
            cfg["seccomp"] = False
    imports = zygote.probe()
    gc.collect()
    gc.freeze()  # children's collections then skip (and do not copy-on-write) the zygote's objects
    gc.disable()  # the zygote's own loop makes no cycles to speak of; a collection would touch its pages
    _wire.send_message(channel, _wire.pack_json({
        "ready": True, "pid": os.getpid(), "uid": os.getuid(), "seccomp": bool(cfg.get("seccomp")),
        "landlock": int(cfg.get("landlock") or 0) if zygote.landlock_rules is not None else 0, "imports": imports}))
    while True:
        if zygote.tidy() and not select.select([channel], [], [], 0.05)[0]:
            continue  # a janitor runs: look again soon (to reap it, and to start one on newer trash) unless a job comes
        try:
            job, fds = _wire.recv_message(channel)
        except _wire.FrameError as exc:
            for fd in getattr(exc, "fds", []):
                os.close(fd)
            break
        except OSError:
            break
        if job is None:
            break
        try:
            response = zygote.handle(job, fds)
        except Exception as exc:  # noqa: BLE001 - report, keep serving
            response = {"error": f"zygote error: {describe(exc)}"}
        _wire.send_message(channel, _wire.pack_json(response))
    zygote._drop_tester()
    if zygote.janitor is not None:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(zygote.janitor, 0)
    for path in (zygote.tester_dir, zygote.trash):
        with contextlib.suppress(OSError):
            _fs.remove_tree(path)


if __name__ == "__main__":  # pragma: no cover
    main()
