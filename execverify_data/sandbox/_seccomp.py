"""A minimal ctypes binding of libseccomp, enough to install the untrusted runner's filter.

Only non-variadic libseccomp calls are used (``seccomp_rule_add_array``), so no
compiled extension or third-party package is needed: the layer is active
wherever ``libseccomp.so.2`` can be loaded (Debian package ``libseccomp2``).

The filter allows everything except what untrusted code has no business doing (the lists
below; ``docs/sandbox.md``, "Layers"). Denied calls fail with ``EPERM`` (Python raises
``PermissionError``), so the verdict stays "error" rather than a crash.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os

from execverify_data.sandbox import _linux

__all__ = ["LoadableFilter", "available", "compile_filter", "install_compiled", "install_filter", "placeholder_offsets"]

_ACT_ALLOW = 0x7FFF0000
_CMP_NE = 1
_CMP_MASKED_EQ = 7
_CLONE_THREAD = 0x00010000


def _act_errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


# Denied outright (EPERM). Names unknown on this architecture are skipped. The *shared* part
# is installed once in the zygote itself (its children inherit it without a new compilation);
# the *child* part, which a zygote needs for itself (processes, uids, its tester's socket
# pair), is loaded by each child on top of it, with its own pid in the signal rules.
_DENY_SHARED = (
    "execve", "execveat", "socket",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
    "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
    "bpf", "perf_event_open", "userfaultfd",
    "keyctl", "add_key", "request_key",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "reboot", "swapon", "swapoff", "acct", "syslog", "quotactl",
    "settimeofday", "clock_settime", "adjtimex", "clock_adjtime",
    "sethostname", "setdomainname", "vhangup", "migrate_pages", "move_pages", "mbind",
    # IPC objects outlive the call (SysV) or cross between calls of a worker
    "ipc", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl",
    "shmget", "shmat", "shmdt", "shmctl",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    "ioprio_set", "name_to_handle_at", "open_by_handle_at", "process_madvise", "process_mrelease",
)
_DENY_CHILD = (
    "fork", "vfork", "socketpair",
    "tkill", "pidfd_send_signal", "pidfd_open", "pidfd_getfd",
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
    "setfsuid", "setfsgid", "capset",
)
PARTS = ("all", "shared", "child")
# Calls that act on another process when their ``pid`` argument (index) is not 0 (the caller).
_OTHERS_BY_ARG = (("prlimit64", 0), ("setpriority", 1), ("sched_setaffinity", 0), ("sched_setparam", 0),
                  ("sched_setscheduler", 0), ("sched_setattr", 0))
# fcntl / ioctl commands that name a process to be signalled (signal ownership).
_F_SETOWN, _F_SETSIG, _F_SETOWN_EX = 8, 10, 15
_FIOSETOWN, _SIOCSPGRP = 0x8901, 0x8902
_CMP_EQ = 4

@functools.cache
def _loaded() -> tuple[ctypes.CDLL | None, str]:
    """``(libseccomp, where it was found)``, or ``(None, why it cannot be loaded)``; tried once per process."""
    try:
        try:
            lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
        except OSError:
            # ctypes.util runs ldconfig: imported only when the usual soname is missing
            from ctypes import util

            lib = ctypes.CDLL(util.find_library("seccomp") or "libseccomp.so", use_errno=True)
        for name, restype, argtypes in (
                ("seccomp_init", ctypes.c_void_p, [ctypes.c_uint32]),
                ("seccomp_rule_add_array", ctypes.c_int,
                 [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_ArgCmp)]),
                ("seccomp_syscall_resolve_name", ctypes.c_int, [ctypes.c_char_p]),
                ("seccomp_load", ctypes.c_int, [ctypes.c_void_p]),
                ("seccomp_export_bpf", ctypes.c_int, [ctypes.c_void_p, ctypes.c_int]),
                ("seccomp_release", None, [ctypes.c_void_p])):
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
    except (OSError, AttributeError) as exc:
        return None, f"libseccomp not loadable ({exc}); install the Debian package libseccomp2"
    return lib, f"libseccomp loaded ({lib._name})"


def available() -> tuple[bool, str]:
    """Whether a filter can be built here, and a one-line reason."""
    lib, why = _loaded()
    return lib is not None, why


def _library():
    """The loaded libseccomp; ``OSError`` when it cannot be loaded."""
    lib, why = _loaded()
    if lib is None:
        raise OSError(errno.ENOSYS, why)
    return lib


def _rule(lib, ctx, action: int, name: str, *cmps: tuple[int, int, int, int]) -> None:
    number = lib.seccomp_syscall_resolve_name(name.encode())
    if number < 0:  # not a system call on this architecture
        return
    array = (_ArgCmp * max(1, len(cmps)))(*[_ArgCmp(*c) for c in cmps])
    rc = lib.seccomp_rule_add_array(ctx, action, number, len(cmps), array)
    if rc < 0 and rc != -errno.EEXIST:
        raise OSError(-rc, f"seccomp_rule_add_array({name}) failed")


# Placeholder for the child's pid in a compiled filter: patched into the BPF at install time,
# so the filter is compiled once per zygote and each child only copies and loads it.
PID_PLACEHOLDER = 0x3EC0C0DE
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


def _build(lib, pid: int, part: str = "all"):
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        raise OSError(errno.ENOMEM, "seccomp_init failed")
    try:
        eperm = _act_errno(errno.EPERM)
        if part in ("all", "shared"):
            for name in _DENY_SHARED:
                _rule(lib, ctx, eperm, name)
            for name, index in _OTHERS_BY_ARG:
                _rule(lib, ctx, eperm, name, (index, _CMP_NE, 0, 0))
            for name in ("fcntl", "fcntl64"):
                for command in (_F_SETOWN, _F_SETSIG, _F_SETOWN_EX):
                    _rule(lib, ctx, eperm, name, (1, _CMP_EQ, command, 0))
            for command in (_FIOSETOWN, _SIOCSPGRP):
                _rule(lib, ctx, eperm, "ioctl", (1, _CMP_EQ, command, 0))
        if part in ("all", "child"):
            for name in _DENY_CHILD:
                _rule(lib, ctx, eperm, name)
            # new processes: clone without CLONE_THREAD; clone3 cannot be inspected (pointer argument)
            _rule(lib, ctx, eperm, "clone", (0, _CMP_MASKED_EQ, _CLONE_THREAD, 0))
            _rule(lib, ctx, _act_errno(errno.ENOSYS), "clone3")
            # signals only to itself (glibc passes pid sign-extended to a long)
            for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
                _rule(lib, ctx, eperm, name, (0, _CMP_NE, pid, 0))
    except BaseException:
        lib.seccomp_release(ctx)
        raise
    return ctx


def install_filter() -> None:
    """Build and install the filter on the calling process (irreversible; sets no_new_privs).

    Raises ``OSError`` when libseccomp is missing or the kernel refuses the filter.
    """
    lib = _library()
    ctx = _build(lib, os.getpid())
    try:
        rc = lib.seccomp_load(ctx)
        if rc < 0:
            raise OSError(-rc, "seccomp_load failed")
    finally:
        lib.seccomp_release(ctx)


def compile_filter(part: str = "all") -> bytes:
    """The filter (or its ``"shared"`` or ``"child"`` part) as classic BPF, with
    :data:`PID_PLACEHOLDER` where the pid goes."""
    if part not in PARTS:
        raise ValueError(f"unknown filter part {part!r}; valid names: {', '.join(PARTS)}")
    lib = _library()
    ctx = _build(lib, PID_PLACEHOLDER, part)
    fd = os.memfd_create("execverify-seccomp", os.MFD_CLOEXEC)
    try:
        rc = lib.seccomp_export_bpf(ctx, fd)
        if rc < 0:
            raise OSError(-rc, "seccomp_export_bpf failed")
        os.lseek(fd, 0, os.SEEK_SET)
        program = b""
        while chunk := os.read(fd, 1 << 16):
            program += chunk
    finally:
        os.close(fd)
        lib.seccomp_release(ctx)
    if not program or len(program) % 8:
        raise OSError(errno.EINVAL, "libseccomp exported an empty or malformed filter")
    return program


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def placeholder_offsets(program: bytes) -> tuple[int, ...]:
    """Where the pid goes in a program from :func:`compile_filter` (computed once per zygote)."""
    import struct

    return tuple(offset + 4 for offset in range(0, len(program), 8)
                 if struct.unpack_from("<I", program, offset + 4)[0] == PID_PLACEHOLDER)


def install_compiled(program: bytes, pid: int) -> None:
    """Install a program from :func:`compile_filter` for process ``pid`` (the caller)."""
    LoadableFilter(program).install(pid)


class LoadableFilter:
    """A program from :func:`compile_filter` made ready, once, for many children to load.

    The zygote builds it: the program copied into C memory, its ``sock_fprog`` and the words
    where the pid goes. A forked child then writes its pid into its own copy of those words and
    makes the two ``prctl`` calls; it builds nothing (each object a child creates or touches costs
    it copy-on-write faults of the zygote's pages, the larger part of a fork's price).
    """

    def __init__(self, program: bytes):
        if not program or len(program) % 8:
            raise ValueError("a seccomp program is a non-empty sequence of 8-byte instructions")
        self._words = (ctypes.c_uint32 * (len(program) // 4)).from_buffer_copy(program)
        self._slots = tuple(offset // 4 for offset in placeholder_offsets(program))
        self._prog = _SockFprog(len(program) // 8, ctypes.addressof(self._words))
        self._address = ctypes.addressof(self._prog)
        self._prctl = _linux.libc().prctl

    def install(self, pid: int) -> None:
        """Load the filter, with ``pid`` as the process it may signal, on the calling process (irreversible)."""
        words = self._words
        for slot in self._slots:
            words[slot] = pid
        if self._prctl(_linux.PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if self._prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, self._address, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
