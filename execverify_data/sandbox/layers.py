"""Run-time detection of the untrusted runner's isolation layers.

Each layer is probed on this machine, once per process (results are cached), and
reported by ``execverify doctor``:

1. ``zygote``: fork from a pre-imported zygote, ``setsid``, closed fds, empty
   environment, private working directory, rlimits. Needs Linux ``fork`` and
   ``pidfd_open``.
2. ``privilege_drop``: children switch to an unprivileged uid/gid of their own
   (one per worker). Only possible when running as root.
3. ``seccomp``: a libseccomp filter (see :mod:`execverify_data.sandbox._seccomp`),
   probed by loading it into a throw-away child and checking that ``fork`` fails.
4. ``bwrap``: the zygote runs inside one bubblewrap sandbox; probed by running the
   exact invocation on ``/bin/true``. The strongest invocation that works is used.

>>> report = detect_layers()
>>> [layer.name for layer in report]
['zygote', 'privilege_drop', 'seccomp', 'bwrap']
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass

__all__ = ["Layer", "bwrap_command", "detect_layers", "layer"]


@dataclass(frozen=True)
class Layer:
    """One isolation layer and whether it is usable here.

    Args:
        name (`str`): ``zygote``, ``privilege_drop``, ``seccomp`` or ``bwrap``.
        available (`bool`): whether the layer works on this machine.
        detail (`str`): how it was detected, or why it is missing and how to get it.
    """

    name: str
    available: bool
    detail: str


_cache: dict[str, Layer] = {}
_bwrap_argv: list[str] | None = None
_lock = threading.Lock()


def _zygote_layer() -> Layer:
    if not sys.platform.startswith("linux"):
        return Layer("zygote", False, f"needs Linux (this is {sys.platform})")
    if not hasattr(os, "pidfd_open"):
        return Layer("zygote", False, "needs os.pidfd_open (Linux >= 5.3, Python >= 3.9)")
    return Layer("zygote", True, "fork per call from a pre-imported zygote; setsid, closed fds, empty env, rlimits")


def _privilege_layer() -> Layer:
    if os.geteuid() != 0:
        return Layer("privilege_drop", False, f"not root (euid {os.geteuid()}): children keep this uid; "
                     "RLIMIT_NPROC still applies to them")
    return Layer("privilege_drop", True, "root: each worker's children run as their own unprivileged uid/gid")


def _seccomp_layer() -> Layer:
    from execverify_data.sandbox import _seccomp

    ok, why = _seccomp.available()
    if not ok:
        return Layer("seccomp", False, why)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - probe child
        code = 1
        try:
            _seccomp.install_filter()
            try:
                child = os.fork()
            except PermissionError:
                code = 0
            else:
                if child == 0:
                    os._exit(0)
                code = 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return Layer("seccomp", True, f"{why}; filter loads and blocks fork/exec/sockets/kill")
    return Layer("seccomp", False, f"{why}, but the kernel refused the filter (status {status})")


def interpreter_paths() -> list[str]:
    """Directories the zygote must read: the interpreter, its prefixes, this package."""
    import sysconfig
    from pathlib import Path

    paths = {sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable)),
             str(Path(__file__).resolve().parents[1])}  # the execverify_data package itself
    paths.update(p for p in (sysconfig.get_paths().get("purelib"), sysconfig.get_paths().get("platlib")) if p)
    return sorted(p for p in paths if os.path.isdir(p))


def unreadable_ancestors(paths: list[str]) -> dict[str, list[str]]:
    """For each topmost directory that other users cannot traverse (``/root`` for a pyenv
    interpreter), the interpreter paths below it: an unprivileged uid could not import from them."""
    hidden: dict[str, list[str]] = {}
    for path in paths:
        parts = os.path.realpath(path).split(os.sep)[1:]
        for i in range(1, len(parts) + 1):
            ancestor = os.sep + os.sep.join(parts[:i])
            try:
                mode = os.stat(ancestor).st_mode
            except OSError:
                break
            if not mode & 0o001:
                hidden.setdefault(ancestor, []).append(os.path.realpath(path))
                break
    return hidden


def _expose_interpreter() -> list[str]:
    """bwrap arguments that hide each untraversable ancestor behind a tmpfs and bind the
    interpreter paths below it read-only, so the dropped uid can import any module."""
    args: list[str] = []
    for ancestor, paths in sorted(unreadable_ancestors(interpreter_paths()).items()):
        args += ["--perms", "0755", "--tmpfs", ancestor]
        made = {ancestor}
        kept: list[str] = []
        for path in sorted(set(paths)):
            if path != ancestor and not any(path.startswith(k + os.sep) for k in kept):
                kept.append(path)
                parts = path[len(ancestor) + 1:].split(os.sep)[:-1]
                for i in range(1, len(parts) + 1):
                    between = os.path.join(ancestor, *parts[:i])
                    if between not in made:
                        made.add(between)
                        args += ["--perms", "0755", "--dir", between]
                args += ["--ro-bind", path, path]
    return args


def _rebind_under_tmp() -> list[str]:
    """bwrap arguments that bind, read-only, the interpreter paths that the private ``/tmp``
    tmpfs would hide (a virtual environment or a checkout under ``/tmp``, as in CI clones)."""
    args: list[str] = []
    bound: list[str] = []
    for path in sorted({os.path.realpath(p) for p in interpreter_paths()}):
        if path.startswith("/tmp/") and not any(path.startswith(b + os.sep) for b in bound):
            bound.append(path)
            args += ["--ro-bind", path, path]
    return args


def _bwrap_candidates(bwrap: str, tmpfs_mb: int) -> list[tuple[str, list[str]]]:
    common_tail = ["--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    size = ["--size", str(tmpfs_mb << 20)]
    rebind = _rebind_under_tmp()
    if os.geteuid() == 0:
        # As root, --unshare-all maps only uid 0 in a new user namespace: children could not drop to an
        # unprivileged uid, and a mapped root reads host files as root. So: every namespace but the user one.
        caps = ["--cap-drop", "ALL"] + [x for c in ("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_CHOWN",
                                                    "CAP_DAC_OVERRIDE", "CAP_FOWNER") for x in ("--cap-add", c)]
        ns = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        expose = _expose_interpreter()
        hidden = ", ".join(unreadable_ancestors(interpreter_paths()))
        note = f"; {hidden} replaced by a tmpfs holding only the interpreter's directories" if expose else ""
        return [
            ("root: all namespaces but user, capabilities reduced, tmpfs /tmp with a size cap" + note,
             [bwrap, *ns, *common_tail, *expose, *size, "--tmpfs", "/tmp", *rebind, *caps]),
            ("root: all namespaces but user, capabilities reduced, tmpfs /tmp (no size cap)" + note,
             [bwrap, *ns, *common_tail, *expose, "--tmpfs", "/tmp", *rebind, *caps]),
        ]
    return [
        ("--unshare-all, tmpfs /tmp with a size cap",
         [bwrap, "--unshare-all", *common_tail, *size, "--tmpfs", "/tmp", *rebind]),
        ("--unshare-all, tmpfs /tmp", [bwrap, "--unshare-all", *common_tail, "--tmpfs", "/tmp", *rebind]),
    ]


def _bwrap_layer(tmpfs_mb: int = 256) -> tuple[Layer, list[str] | None]:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Layer("bwrap", False, "bwrap not installed (Debian package bubblewrap)"), None
    true = shutil.which("true") or "/bin/true"
    errors = []
    for description, argv in _bwrap_candidates(bwrap, tmpfs_mb):
        try:
            probe = subprocess.run([*argv, "--", true], capture_output=True, timeout=20, env={})
        except (OSError, subprocess.TimeoutExpired) as exc:
            errors.append(str(exc))
            continue
        if probe.returncode == 0:
            return Layer("bwrap", True, f"{bwrap}: {description}"), argv
        errors.append(probe.stderr.decode(errors="replace").strip()[:200])
    return Layer("bwrap", False, f"{bwrap} installed but unusable here: {'; '.join(errors)}"), None


def detect_layers(*, refresh: bool = False) -> tuple[Layer, ...]:
    """Probe every layer (cached per process; ``refresh=True`` probes again)."""
    global _bwrap_argv
    with _lock:
        if refresh or not _cache:
            _cache.clear()
            for probe in (_zygote_layer, _privilege_layer, _seccomp_layer):
                found = probe()
                _cache[found.name] = found
            found, _bwrap_argv = _bwrap_layer()
            _cache[found.name] = found
        return tuple(_cache[name] for name in ("zygote", "privilege_drop", "seccomp", "bwrap"))


def layer(name: str) -> Layer:
    """The detected :class:`Layer` called ``name``; ``ValueError`` lists the valid names."""
    layers = {found.name: found for found in detect_layers()}
    if name not in layers:
        raise ValueError(f"unknown layer {name!r}; valid names: {', '.join(layers)}")
    return layers[name]


def bwrap_command() -> list[str] | None:
    """The working ``bwrap`` argument list (without the command), or ``None``."""
    detect_layers()
    return list(_bwrap_argv) if _bwrap_argv else None
