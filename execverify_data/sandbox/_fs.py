"""Removing what untrusted code left on disk, whatever shape it has.

:func:`remove_tree` never recurses and never holds more than two directory descriptors:
each pass moves the entries of every subdirectory of the root up into the root (under
fresh names) and removes the emptied subdirectory, so a tree of any depth, any path
length, and any permissions its owner could set (``chmod 0``) is removed in work linear
in its size, where ``shutil.rmtree`` raises ``RecursionError`` on a 1,100-deep tree or
gives up on a name longer than ``PATH_MAX``.

>>> import tempfile
>>> top = tempfile.mkdtemp()
>>> here = top
>>> for _ in range(1100):
...     here = os.path.join(here, "d")
...     _ = os.mkdir(here) if len(here) < 4000 else None
>>> remove_tree(top), os.path.exists(top)
(True, False)
"""

from __future__ import annotations

import os
import time

__all__ = ["remove_tree"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _open_dir(name: str, dir_fd: int | None) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except PermissionError:  # its owner made it unreadable: make it ours again
        os.chmod(name, 0o700, dir_fd=dir_fd)
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)


def remove_tree(path: str | os.PathLike, *, deadline: float | None = None) -> bool:
    """Remove ``path`` and everything below it; ``True`` once it is gone.

    Args:
        path: a directory (or a file or link, which is simply unlinked).
        deadline (`float`, optional): a ``time.monotonic()`` value; the work stops there and
            ``False`` is returned (call again to go on: the state is all on disk).

    Never raises for what is below ``path``; an ``OSError`` about ``path`` itself (its parent
    is not writable) propagates.
    """
    path = os.fspath(path)
    try:
        root = _open_dir(path, None)
    except FileNotFoundError:
        return True
    except OSError:
        if os.path.islink(path) or not os.path.isdir(path):  # a file or a link: unlink it
            os.unlink(path)
            return True
        raise
    fresh = 0
    try:
        progress = True
        while progress:  # a pass that changes nothing ends the loop (then rmdir below says why)
            if deadline is not None and time.monotonic() > deadline:
                return False
            with os.scandir(root) as listing:
                entries = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in listing]
            if not entries:
                break
            progress = False
            for name, is_dir in entries:
                if not is_dir:
                    progress |= _quietly(os.unlink, name, dir_fd=root)
                    continue
                if _quietly(os.rmdir, name, dir_fd=root):
                    progress = True
                    continue
                try:
                    child = _open_dir(name, root)
                except OSError:
                    continue
                try:
                    with os.scandir(child) as listing:
                        inner = [entry.name for entry in listing]
                    for entry in inner:
                        fresh += 1
                        while _exists(f"\x01{fresh}", root):
                            fresh += 1
                        progress |= _quietly(os.rename, entry, f"\x01{fresh}", src_dir_fd=child, dst_dir_fd=root)
                finally:
                    os.close(child)
                progress |= _quietly(os.rmdir, name, dir_fd=root)
    finally:
        os.close(root)
    os.rmdir(path)
    return True


def _exists(name: str, dir_fd: int) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _quietly(fn, *args, **kwargs) -> bool:
    """Whether ``fn(*args, **kwargs)`` succeeded."""
    try:
        fn(*args, **kwargs)
    except OSError:
        return False
    return True
