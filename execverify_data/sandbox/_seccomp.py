"""A minimal ctypes binding of libseccomp, enough to install the untrusted runner's filter.

Only non-variadic libseccomp calls are used (``seccomp_rule_add_array``), so no
compiled extension or third-party package is needed: the layer is active
wherever ``libseccomp.so.2`` can be loaded (Debian package ``libseccomp2``).

The filter allows everything except what untrusted code has no business doing:
creating processes (``fork``, ``vfork``, ``clone`` without ``CLONE_THREAD``;
``clone3`` answers ``ENOSYS`` so that glibc falls back to ``clone`` for threads),
``execve``, sockets, signalling any process but itself, ``ptrace`` and the
namespace, mount, BPF, keyring, io_uring and module calls. Denied calls fail with
``EPERM`` (Python raises ``PermissionError``), so the verdict stays "error"
rather than a crash.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os

__all__ = ["available", "install_filter", "load_library"]

_ACT_ALLOW = 0x7FFF0000
_CMP_NE = 1
_CMP_MASKED_EQ = 7
_CLONE_THREAD = 0x00010000


def _act_errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


# Denied outright (EPERM). Names unknown on this architecture are skipped.
_DENY = (
    "fork", "vfork", "execve", "execveat",
    "socket", "socketpair",
    "tkill", "pidfd_send_signal", "pidfd_open", "pidfd_getfd",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
    "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
    "bpf", "perf_event_open", "userfaultfd",
    "keyctl", "add_key", "request_key",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "reboot", "swapon", "swapoff", "acct", "syslog", "quotactl",
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
    "setfsuid", "setfsgid", "capset",
    "settimeofday", "clock_settime", "adjtimex", "clock_adjtime",
    "sethostname", "setdomainname", "vhangup", "migrate_pages", "move_pages", "mbind",
)

_lib = None
_lib_error: str | None = None


def load_library():
    """The loaded ``libseccomp`` (cached), or ``None`` when it cannot be loaded."""
    global _lib, _lib_error
    if _lib is not None or _lib_error is not None:
        return _lib
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
        lib.seccomp_init.restype = ctypes.c_void_p
        lib.seccomp_init.argtypes = [ctypes.c_uint32]
        lib.seccomp_rule_add_array.restype = ctypes.c_int
        lib.seccomp_rule_add_array.argtypes = [
            ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_ArgCmp)
        ]
        lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_load.restype = ctypes.c_int
        lib.seccomp_load.argtypes = [ctypes.c_void_p]
        lib.seccomp_release.restype = None
        lib.seccomp_release.argtypes = [ctypes.c_void_p]
    except (OSError, AttributeError) as exc:
        _lib_error = f"libseccomp not loadable ({exc}); install the Debian package libseccomp2"
        return None
    _lib = lib
    return lib


def available() -> tuple[bool, str]:
    """Whether a filter can be built here, and a one-line reason."""
    lib = load_library()
    if lib is None:
        return False, _lib_error or "libseccomp not loadable"
    if not os.path.exists("/proc/self/status"):
        return True, f"libseccomp loaded ({ctypes.util.find_library('seccomp')})"
    return True, f"libseccomp loaded ({ctypes.util.find_library('seccomp') or 'libseccomp.so.2'})"


def _rule(lib, ctx, action: int, name: str, *cmps: tuple[int, int, int, int]) -> None:
    number = lib.seccomp_syscall_resolve_name(name.encode())
    if number < 0:  # not a system call on this architecture
        return
    array = (_ArgCmp * max(1, len(cmps)))(*[_ArgCmp(*c) for c in cmps])
    rc = lib.seccomp_rule_add_array(ctx, action, number, len(cmps), array)
    if rc < 0 and rc != -errno.EEXIST:
        raise OSError(-rc, f"seccomp_rule_add_array({name}) failed")


def install_filter() -> None:
    """Install the filter on the calling process (irreversible; also sets no_new_privs).

    Raises ``OSError`` when libseccomp is missing or the kernel refuses the filter.
    """
    lib = load_library()
    if lib is None:
        raise OSError(errno.ENOSYS, _lib_error or "libseccomp not loadable")
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        raise OSError(errno.ENOMEM, "seccomp_init failed")
    try:
        eperm = _act_errno(errno.EPERM)
        for name in _DENY:
            _rule(lib, ctx, eperm, name)
        # new processes: clone without CLONE_THREAD; clone3 cannot be inspected (pointer argument)
        _rule(lib, ctx, eperm, "clone", (0, _CMP_MASKED_EQ, _CLONE_THREAD, 0))
        _rule(lib, ctx, _act_errno(errno.ENOSYS), "clone3")
        # signals only to itself (glibc passes pid sign-extended to a long)
        me = os.getpid()
        _rule(lib, ctx, eperm, "kill", (0, _CMP_NE, me, 0))
        _rule(lib, ctx, eperm, "tgkill", (0, _CMP_NE, me, 0))
        _rule(lib, ctx, eperm, "rt_sigqueueinfo", (0, _CMP_NE, me, 0))
        _rule(lib, ctx, eperm, "rt_tgsigqueueinfo", (0, _CMP_NE, me, 0))
        rc = lib.seccomp_load(ctx)
        if rc < 0:
            raise OSError(-rc, "seccomp_load failed")
    finally:
        lib.seccomp_release(ctx)
