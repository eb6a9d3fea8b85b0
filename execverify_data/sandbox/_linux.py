"""The Linux calls the sandbox needs that :mod:`os` lacks, through one ctypes handle of libc:
``prctl``, Landlock (``landlock_create_ruleset``, ``landlock_add_rule``,
``landlock_restrict_self``) and the removal of SysV IPC objects.
Landlock (Linux >= 5.13) lets an unprivileged process restrict itself (and everything it
starts); it needs neither root nor namespaces, so it also holds where bubblewrap is missing.
"""

from __future__ import annotations

import ctypes
import functools
import os

__all__ = ["all_rights", "failed", "file_rights", "landlock_abi", "libc", "prctl", "read_rights", "remove_ipc_objects",
           "restrict", "restrict_self", "ruleset"]

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NAME = 15
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36

@functools.cache
def libc():
    """libc with typed ``prctl`` and ``syscall`` (cached: a zygote loads it once, its children inherit it)."""
    handle = ctypes.CDLL(None, use_errno=True)
    handle.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    handle.syscall.restype = ctypes.c_long
    return handle


def failed(call: str) -> OSError:
    """The ``OSError`` of a libc call that just failed (from ``errno``)."""
    errno = ctypes.get_errno()
    return OSError(errno, f"{call} failed: {os.strerror(errno)}")


def prctl(option: int, arg=0, arg3=None) -> None:
    """``prctl(option, arg, arg3, 0, 0)``; ``OSError`` when it fails."""
    handle = libc()
    if isinstance(arg, bytes):
        arg = ctypes.cast(ctypes.c_char_p(arg), ctypes.c_void_p).value
    if handle.prctl(option, arg, arg3, 0, 0) != 0:
        raise failed(f"prctl({option})")


_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # the same on every architecture
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
TRUNCATE = 1 << 14
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is missing or disabled."""
    try:
        version = libc().syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(0, int(version))


def all_rights(abi: int) -> int:
    """Every filesystem right of this ABI (what a child has in its working directory)."""
    bits = 13 + (abi >= 2) + (abi >= 3) + (abi >= 5)  # REFER (2), TRUNCATE (3), IOCTL_DEV (5)
    return (1 << bits) - 1


def file_rights(abi: int, *, write: bool = False) -> int:
    """Rights that a rule on a regular file or device may carry: read (and write)."""
    rights = EXECUTE | READ_FILE
    if write:
        rights |= WRITE_FILE | (TRUNCATE if abi >= 3 else 0)
    return rights


def read_rights(abi: int) -> int:
    """Read-only rights on a directory tree: list, read and map files (and run them, if seccomp allows)."""
    return EXECUTE | READ_FILE | READ_DIR


def ruleset(rules: list[tuple[int, int]], abi: int) -> int:
    """A Landlock ruleset (a descriptor) that allows ``rules``, pairs of an open ``O_PATH``
    descriptor and the rights under it, and nothing else on the filesystem; it also
    handles TCP (ABI >= 4: none allowed) and scopes signals and abstract sockets (ABI >= 6)."""
    handle = libc()
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    attr = _RulesetAttr(all_rights(abi), (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0,
                        (_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL) if abi >= 6 else 0)
    fd = handle.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        raise failed("landlock_create_ruleset")
    try:
        for parent, rights in rules:
            rule = _PathBeneath(rights, parent)
            if handle.syscall(_SYS_ADD_RULE, ctypes.c_int(fd), ctypes.c_int(_RULE_PATH_BENEATH),
                              ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                raise failed("landlock_add_rule")
    except BaseException:
        os.close(fd)
        raise
    return fd


def restrict_self(ruleset_fd: int) -> None:
    """Confine the calling process, for good, to a :func:`ruleset` (``no_new_privs`` must be set)."""
    if libc().syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset_fd), ctypes.c_uint32(0)) != 0:
        raise failed("landlock_restrict_self")


def restrict(rules: list[tuple[int, int]], abi: int) -> None:
    """Confine the calling process, for good, to a :func:`ruleset` of ``rules`` (``no_new_privs`` must
    be set); ``OSError`` when the kernel refuses."""
    fd = ruleset(rules, abi)
    try:
        restrict_self(fd)
    finally:
        os.close(fd)


_IPC_RMID = 0


def remove_ipc_objects(uid: int | None) -> int:
    """Remove every SysV message queue, semaphore set and shared-memory segment that ``uid``
    owns or created (run as that uid, or as root), or every one visible when ``uid`` is
    ``None`` (only inside an IPC namespace of the sandbox's own); returns how many were removed."""
    handle = libc()
    removers = {
        "msg": lambda ident: handle.msgctl(ident, _IPC_RMID, None),
        "sem": lambda ident: handle.semctl(ident, 0, _IPC_RMID),
        "shm": lambda ident: handle.shmctl(ident, _IPC_RMID, None),
    }
    removed = 0
    for kind, remove in removers.items():
        try:
            with open(f"/proc/sysvipc/{kind}", encoding="ascii", errors="replace") as table:
                lines = table.read().splitlines()
        except OSError:
            continue
        if not lines:
            continue
        columns = lines[0].split()
        try:
            id_col, uid_col, cuid_col = columns.index(f"{kind}id" if kind != "msg" else "msqid"), \
                columns.index("uid"), columns.index("cuid")
        except ValueError:
            continue
        for line in lines[1:]:
            fields = line.split()
            if len(fields) > max(id_col, uid_col, cuid_col) and (
                    uid is None or uid in (int(fields[uid_col]), int(fields[cuid_col]))):
                removed += remove(int(fields[id_col])) == 0
    return removed
