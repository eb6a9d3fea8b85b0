"""Run-time detection of the untrusted runner's isolation layers (probed once per process,
reported by ``execverify doctor``; ``docs/sandbox.md``, "Layers"), and the filesystem view they
give a sandboxed child (:func:`sandbox_paths`): the system directories, the interpreter's
prefixes and site directories, a few devices, never this package (whose data holds benchmark
solutions) nor the source checkout it lives in.

>>> report = detect_layers()
>>> [layer.name for layer in report]
['zygote', 'privilege_drop', 'seccomp', 'landlock', 'bwrap']
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass

__all__ = ["LAYER_NAMES", "Layer", "bwrap_command", "detect_layers", "die_with_parent", "interpreter_dirs", "layer", "sandbox_paths",
           "site_dirs", "unreadable_ancestors"]

LAYER_NAMES = ("zygote", "privilege_drop", "seccomp", "landlock", "bwrap")
#: System directories a sandboxed child may read (those that exist here).
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys/devices/system/cpu")
#: Devices a child may open (``/dev/null`` also for writing).
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


@dataclass(frozen=True)
class Layer:
    """One isolation layer and whether it is usable here.

    Args:
        name (`str`): one of :data:`LAYER_NAMES`.
        available (`bool`): whether the layer works on this machine.
        detail (`str`): how it was detected, or why it is missing and how to get it.
    """

    name: str
    available: bool
    detail: str


_cache: dict[str, Layer] = {}
_bwrap_form: tuple[list[str], list[str], list[str]] | None = None  # the working invocation (see _bwrap_forms)
_lock = threading.Lock()


# --------------------------------------------------------------------------- what a child sees


# Run in this process, or by another interpreter (with a print of its result): where an interpreter lives.
_DIRS_QUERY = """
import os, site, sys, sysconfig
_paths = sysconfig.get_paths()
sites = [*site.getsitepackages(), _paths.get("purelib"), _paths.get("platlib")]
dirs = [sys.base_prefix, sys.prefix, sys.exec_prefix, sys.base_exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)), _paths.get("stdlib"), _paths.get("platstdlib"), *sites]
"""


@functools.lru_cache(maxsize=8)
def _interpreter(python: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The directories of interpreter ``python`` (prefixes, binaries, libraries), and its site directories."""
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        namespace: dict = {}
        exec(_DIRS_QUERY, namespace)  # trusted: our own constant query about this interpreter
        found = [namespace["dirs"], namespace["sites"]]
    else:
        try:
            done = subprocess.run([python, "-I", "-c", _DIRS_QUERY + "print(__import__('json').dumps([dirs, sites]))"],
                                  capture_output=True, text=True, timeout=60, env={})
            found = json.loads(done.stdout) if done.returncode == 0 else [[], []]
        except (OSError, ValueError, subprocess.TimeoutExpired):
            found = [[], []]

    def existing(paths) -> tuple[str, ...]:
        real = {p for p in paths if p} | {os.path.realpath(p) for p in paths if p}  # a venv's paths as written, and real
        return tuple(sorted(p for p in real if os.path.isdir(p)))

    return existing(found[0]), existing(found[1])


def interpreter_dirs(python: str | None = None) -> tuple[str, ...]:
    """The directories of interpreter ``python`` (defaults to this one)."""
    return _interpreter(python or sys.executable)[0]


def site_dirs(python: str | None = None) -> tuple[str, ...]:
    """The site directories (installed packages) of interpreter ``python``."""
    return _interpreter(python or sys.executable)[1]


def _holes() -> list[str]:
    """This package and, when it is a source checkout, the checkout: never readable by a child."""
    holes = [PACKAGE_DIR]
    checkout = os.path.dirname(PACKAGE_DIR)
    if os.path.exists(os.path.join(checkout, "pyproject.toml")) or os.path.exists(os.path.join(checkout, ".git")):
        holes.append(checkout)
    return holes


def _below(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def _punch(root: str, holes: list[str]) -> list[str]:
    """``root`` as a list of paths that together cover it except ``holes`` (which lie below it)."""
    inside = [hole for hole in holes if _below(hole, root)]
    if not inside:
        return [root]
    if any(hole == root for hole in inside):
        return []
    covered: list[str] = []
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    for name in names:
        covered += _punch(os.path.join(root, name), inside)
    return covered


@functools.lru_cache(maxsize=8)
def sandbox_paths(python: str | None = None) -> tuple[str, ...]:
    """Directories (and files) a sandboxed child may read: :data:`SYSTEM_PATHS` that exist
    and the interpreter's directories, minus this package and its source checkout.

    >>> any(path.startswith(PACKAGE_DIR) for path in sandbox_paths())
    False
    """
    roots = sorted({*(p for p in SYSTEM_PATHS if os.path.exists(p)), *interpreter_dirs(python)})
    kept: list[str] = []
    for root in roots:
        if not any(_below(root, top) for top in kept):
            kept.append(root)
    holes = _holes()
    return tuple(path for root in kept for path in _punch(root, holes))


def unreadable_ancestors(paths) -> dict[str, list[str]]:
    """For each topmost directory that other users cannot traverse (``/root`` for a pyenv
    interpreter), the paths below it: an unprivileged uid could not import from them."""
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


def _binds(paths) -> tuple[list[str], list[str]]:
    """bwrap arguments that show exactly ``paths`` (read-only) in an otherwise empty root: those
    to put before the private ``/tmp`` and those under ``/tmp``, to put after it. Top-level
    links such as ``/bin -> usr/bin`` stay links."""
    before, after = [], []
    made = {"/", "/tmp"}
    for path in paths:
        target = after if _below(path, "/tmp") else before
        parents = []
        parent = os.path.dirname(path)
        while parent not in made:  # bwrap would make missing parents mode 0700: unreadable for the children
            parents.append(parent)
            made.add(parent)
            parent = os.path.dirname(parent)
        for parent in reversed(parents):
            target += ["--perms", "0755", "--dir", parent]
        if os.path.dirname(path) == "/" and os.path.islink(path):
            target += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            target += ["--ro-bind", path, path]
    return before, after


# --------------------------------------------------------------------------- probes


def _zygote_layer() -> Layer:
    if not sys.platform.startswith("linux"):
        return Layer("zygote", False, f"needs Linux (this is {sys.platform})")
    if not hasattr(os, "pidfd_open"):
        return Layer("zygote", False, "needs os.pidfd_open (Linux >= 5.3, Python >= 3.9)")
    return Layer("zygote", True, "fork per call from a zygote that never sees a request; setsid, closed fds, "
                 "empty env, rlimits")


def _privilege_layer() -> Layer:
    if os.geteuid() != 0:
        return Layer("privilege_drop", False, f"not root (euid {os.geteuid()}): children keep this uid; "
                     "RLIMIT_NPROC still applies to them")
    return Layer("privilege_drop", True, "root: each worker's candidates and its tester run as two unprivileged "
                 "uids of their own")


def _probe_in_child(body) -> int:
    """Run ``body()`` in a throw-away child; its exit status (0: the layer works)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - probe child
        code = 1
        try:
            code = body()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _seccomp_layer() -> Layer:
    from execverify_data.sandbox import _seccomp

    ok, why = _seccomp.available()
    if not ok:
        return Layer("seccomp", False, why)

    def body() -> int:
        _seccomp.install_filter()
        try:
            child = os.fork()
        except PermissionError:
            return 0
        if child == 0:
            os._exit(0)
        return 2

    status = _probe_in_child(body)
    if status == 0:
        return Layer("seccomp", True, f"{why}; filter loads and blocks fork/exec/sockets/signals/IPC/other "
                     "processes' limits")
    return Layer("seccomp", False, f"{why}, but the kernel refused the filter (status {status})")


def _landlock_layer() -> Layer:
    from execverify_data.sandbox import _linux

    abi = _linux.landlock_abi()
    if abi < 1:
        return Layer("landlock", False, "the kernel has no Landlock (Linux >= 5.13 with landlock in its LSM list)")

    def body() -> int:
        _linux.prctl(_linux.PR_SET_NO_NEW_PRIVS, 1)
        _linux.restrict([], abi)
        try:
            os.listdir("/")
        except PermissionError:
            return 0
        return 2

    status = _probe_in_child(body)
    if status != 0:
        return Layer("landlock", False, f"Landlock ABI {abi}, but restricting a process failed (status {status})")
    scoped = "; signals and abstract sockets scoped to the call" if abi >= 6 else ""
    return Layer("landlock", True, f"Landlock ABI {abi}: children read only the interpreter and system "
                 f"directories and write only their working directory; no TCP{scoped}")


def _bwrap_forms(bwrap: str, tmpfs_mb: int) -> list[tuple[str, list[str], list[str], list[str]]]:
    """(description, arguments before the binds, arguments after them, capabilities) per invocation,
    strongest first: with a size cap on the private ``/tmp``, then without (an older bwrap)."""
    head = ["--die-with-parent", "--new-session"]
    devices = ["--proc", "/proc", "--dev", "/dev"]
    size = ["--size", str(tmpfs_mb << 20)]
    if os.geteuid() == 0:
        # As root, --unshare-all maps only uid 0 in a new user namespace: children could not drop to an
        # unprivileged uid, and a mapped root reads host files as root. So: every namespace but the user one.
        caps = ["--cap-drop", "ALL"] + [x for c in ("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_CHOWN",
                                                    "CAP_DAC_OVERRIDE", "CAP_FOWNER") for x in ("--cap-add", c)]
        ns = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        what, uncapped, start = "root: all namespaces but user, capabilities reduced", " (no size cap)", [bwrap, *ns]
    else:
        what, uncapped, start, caps = "--unshare-all", "", [bwrap, "--unshare-all"], []
    start += head
    return [(f"{what}, tmpfs /tmp with a size cap", start, [*devices, *size, "--tmpfs", "/tmp"], caps),
            (f"{what}, tmpfs /tmp{uncapped}", start, [*devices, "--tmpfs", "/tmp"], caps)]


def _bwrap_argv(form: tuple[list[str], list[str], list[str]], paths) -> list[str]:
    start, devices_and_tmp, caps = form
    before, after = _binds(paths)
    hidden = []  # the package and its checkout, where a bound path holds them
    for hole in _holes():
        if any(_below(hole, path) for path in paths):
            hidden += ["--perms", "0755", "--tmpfs", hole]
    return [*start, *before, *hidden, *devices_and_tmp, *after, *caps]


def bwrap_command(python: str | None = None) -> list[str] | None:
    """The working ``bwrap`` invocation (up to, not including, ``--``) for a zygote running
    ``python``: a root holding only :func:`sandbox_paths` read-only, fresh ``/proc``, ``/dev``
    and ``/tmp``; ``None`` when bubblewrap is not usable here."""
    detect_layers()
    return None if _bwrap_form is None else _bwrap_argv(_bwrap_form, sandbox_paths(python))


def _bwrap_layer(tmpfs_mb: int = 256):
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Layer("bwrap", False, "bwrap not installed (Debian package bubblewrap)"), None
    true = shutil.which("true") or "/bin/true"
    errors = []
    for description, *form in _bwrap_forms(bwrap, tmpfs_mb):
        try:
            probe = subprocess.run([*_bwrap_argv(form, sandbox_paths(None)), "--", true], capture_output=True,
                                   timeout=20, env={})
        except (OSError, subprocess.TimeoutExpired) as exc:
            errors.append(str(exc))
            continue
        if probe.returncode == 0:
            detail = f"{bwrap}: {description}; the root holds only the system and interpreter directories"
            return Layer("bwrap", True, detail), tuple(form)
        errors.append(probe.stderr.decode(errors="replace").strip()[:200])
    return Layer("bwrap", False, f"{bwrap} installed but unusable here: {'; '.join(errors)}"), None


def detect_layers(*, refresh: bool = False) -> tuple[Layer, ...]:
    """Probe every layer (cached per process; ``refresh=True`` probes again)."""
    global _bwrap_form
    with _lock:
        if refresh or not _cache:
            _cache.clear()
            for probe in (_zygote_layer, _privilege_layer, _seccomp_layer, _landlock_layer):
                found = probe()
                _cache[found.name] = found
            found, _bwrap_form = _bwrap_layer()
            _cache[found.name] = found
        return tuple(_cache[name] for name in LAYER_NAMES)


def layer(name: str) -> Layer:
    """The detected :class:`Layer` called ``name``; ``ValueError`` lists the valid names."""
    layers = {found.name: found for found in detect_layers()}
    if name not in layers:
        raise ValueError(f"unknown layer {name!r}; valid names: {', '.join(layers)}")
    return layers[name]


def die_with_parent(signum: int) -> None:
    """This process gets ``signum`` when the thread that started it ends (Linux ``PR_SET_PDEATHSIG``;
    nothing elsewhere): a pool's workers die with the run that started them, even one killed with SIGKILL."""
    from execverify_data.sandbox import _linux

    try:
        _linux.prctl(_linux.PR_SET_PDEATHSIG, signum)
    except (OSError, AttributeError):  # not Linux: the process outlives its parent, as Python's do
        pass
