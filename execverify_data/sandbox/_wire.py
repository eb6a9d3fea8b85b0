"""The one framing codec of every warm process in this package (``docs/sandbox.md``, "The framing codec").

A frame is a 4-byte big-endian length, then one *kind* byte and the body: ``J`` UTF-8 JSON,
written by trusted code only; ``R`` a *record*, a flat sequence of length-prefixed UTF-8
strings, the only kind read from a process that ran untrusted code (no nesting, so no
recursion, and the reader caps the fields before it builds anything); ``P`` a pickle between
two trusted processes, loaded with an allowlist of the classes a trace is made of. A reader
names the kinds, the largest frame and the most fields it accepts and parses one frame at
offset 0: anything else is a :class:`FrameError`, never a reason to scan on. Writers emit
valid UTF-8 only. The module imports only the standard library, so the zygote and the tester
stay small.
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import time
from typing import Iterable, Sequence

__all__ = ["FrameError", "HEADER", "Reader", "decode", "pack_json", "pack_pickle", "pack_record", "read_frame", "records",
           "recv_message", "send_message", "take_channel", "write_all"]

HEADER = struct.Struct(">I")
_FIELD = struct.Struct(">I")
JSON, RECORD, PICKLE = b"J", b"R", b"P"
#: Default cap on a frame from a trusted peer (control frames, configuration).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024

# bound at import: code that patches ``json`` or ``os`` in a sandboxed child cannot reroute the harness
_dumps = json.dumps
_loads = json.loads
_os_write = os.write
_os_read = os.read


class FrameError(ValueError):
    """A frame that is not well formed (its length, kind, encoding or content)."""


def pack_json(obj) -> bytes:
    body = _dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace")
    return HEADER.pack(len(body) + 1) + JSON + body


def pack_record(fields: Iterable[str]) -> bytes:
    parts = [RECORD]
    for field in fields:
        data = field.encode("utf-8", "backslashreplace")
        parts.append(_FIELD.pack(len(data)))
        parts.append(data)
    body = b"".join(parts)
    return HEADER.pack(len(body)) + body


def pack_pickle(obj) -> bytes:
    import pickle

    body = PICKLE + pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(body)) + body


_TRUSTED_CLASSES = {
    ("execverify_data.trace", "Trace"),
    ("execverify_data.trace", "Event"),
    ("execverify_data.trace", "ExceptionInfo"),
    ("execverify_data.trace", "Status"),
    ("execverify_data.values", "CanonicalValue"),
    ("execverify_data.decisions", "Note"),  # what decided a step (TrustedRunner.map(notes=True))
}


def _load_pickle(body: memoryview):
    """Load a pickle from a trusted peer, building only the classes a trace is made of."""
    import io
    import pickle

    class _Unpickler(pickle.Unpickler):
        def find_class(self, module: str, name: str):
            if (module, name) not in _TRUSTED_CLASSES:
                raise FrameError(f"a pickled frame may not build {module}.{name}")
            return super().find_class(module, name)

    try:
        return _Unpickler(io.BytesIO(body)).load()
    except FrameError:
        raise
    except Exception as exc:  # noqa: BLE001 - any unpickling failure is a bad frame
        raise FrameError(f"a pickled frame does not load: {type(exc).__name__}") from None


def _load_record(body: memoryview, max_fields: int) -> list[str]:
    fields: list[str] = []
    pos, end = 0, len(body)
    while pos < end:
        if len(fields) >= max_fields:
            raise FrameError(f"a record has more than {max_fields} fields")
        if pos + _FIELD.size > end:
            raise FrameError("a record ends inside a field length")
        (size,) = _FIELD.unpack_from(body, pos)
        pos += _FIELD.size
        if size > end - pos:
            raise FrameError("a record field is longer than its frame")
        try:
            fields.append(str(body[pos:pos + size], "utf-8"))
        except UnicodeDecodeError:
            raise FrameError("a record field is not valid UTF-8") from None
        pos += size
    return fields


def decode(data, *, kinds: Sequence[bytes] = (JSON,), max_bytes: int = DEFAULT_MAX_BYTES,
           max_fields: int = 1 << 16):
    """The frame at offset 0 of ``data``, which must hold exactly one frame.

    Raises:
        FrameError: ``data`` is not exactly one well-formed frame of an accepted kind.
    """
    view = memoryview(data)
    if len(view) < HEADER.size + 1:
        raise FrameError("a frame is shorter than its header")
    (size,) = HEADER.unpack_from(view, 0)
    if size > max_bytes:
        raise FrameError(f"a frame of {size} bytes exceeds the {max_bytes}-byte cap")
    if size != len(view) - HEADER.size:
        raise FrameError(f"a frame announces {size} bytes but {len(view) - HEADER.size} follow")
    return _decode_body(view[HEADER.size:], kinds, max_fields)


def records(data, *, max_bytes: int, max_fields: int = 1 << 16):
    """Each record frame of ``data``, a stream of them written back to back (as a traced child's
    events), in order; the same checks as :func:`decode` for each.

    Raises:
        FrameError: a frame is not a well-formed record, or ``data`` ends inside one.
    """
    view = memoryview(data)
    pos, end = 0, len(view)
    while pos < end:
        if end - pos < HEADER.size + 1:
            raise FrameError("the stream ends inside a frame header")
        (size,) = HEADER.unpack_from(view, pos)
        if size > max_bytes:
            raise FrameError(f"a frame of {size} bytes exceeds the {max_bytes}-byte cap")
        if size > end - pos - HEADER.size:
            raise FrameError(f"the stream ends inside a frame of {size} bytes")
        yield _decode_body(view[pos + HEADER.size:pos + HEADER.size + size], (RECORD,), max_fields)
        pos += HEADER.size + size


def _decode_body(body: memoryview, kinds: Sequence[bytes], max_fields: int, pickle_loads=None):
    if not body:
        raise FrameError("a frame has no kind byte")
    kind = bytes(body[:1])
    if kind not in kinds:
        raise FrameError(f"a frame of kind {kind!r} where {b'/'.join(kinds)!r} was expected")
    rest = body[1:]
    if kind == RECORD:
        return _load_record(rest, max_fields)
    if kind == PICKLE:
        if pickle_loads is None:
            return _load_pickle(rest)
        try:
            return pickle_loads(rest)
        except Exception:  # noqa: BLE001
            raise FrameError("a pickled frame does not load") from None
    try:
        return _loads(str(rest, "utf-8"))
    except (ValueError, RecursionError, MemoryError):  # UnicodeDecodeError is a ValueError
        raise FrameError("a JSON frame does not parse") from None


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[_os_write(fd, view):]


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes | None:
    chunks = []
    while n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        chunk = _os_read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, *, kinds: Sequence[bytes] = (JSON,), max_bytes: int = DEFAULT_MAX_BYTES,
               max_fields: int = 1 << 16, deadline: float | None = None):
    """Read one frame from a stream; ``None`` at end of file before its first byte.

    Raises:
        FrameError: the frame is malformed, too large, of another kind, or cut short.
        TimeoutError: ``deadline`` (a ``time.monotonic()`` value) passed first.
    """
    header = _read_exact(fd, HEADER.size, deadline)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    if size > max_bytes:
        raise FrameError(f"a frame of {size} bytes exceeds the {max_bytes}-byte cap")
    body = _read_exact(fd, size, deadline)
    if body is None:
        raise FrameError("the stream ended inside a frame")
    return _decode_body(memoryview(body), kinds, max_fields)


class Reader:
    """Frames from a stream read in large chunks: the frames a peer wrote together cost one
    system call, not two each (header, body). Same checks and errors as :func:`read_frame`.

    ``pickle_loads`` replaces the allowlist loader of pickled frames: only a process that runs
    untrusted code anyway (a candidate reading its arguments from the tester) passes ``pickle.loads``."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = bytearray()

    def frame(self, *, kinds: Sequence[bytes] = (JSON,), max_bytes: int = DEFAULT_MAX_BYTES,
              max_fields: int = 1 << 16, pickle_loads=None):
        buffer = self.buffer
        while True:
            if len(buffer) >= HEADER.size:
                (size,) = HEADER.unpack_from(buffer)
                if size > max_bytes:
                    raise FrameError(f"a frame of {size} bytes exceeds the {max_bytes}-byte cap")
                end = HEADER.size + size
                if len(buffer) >= end:
                    body = bytes(buffer[HEADER.size:end])
                    del buffer[:end]
                    return _decode_body(memoryview(body), kinds, max_fields, pickle_loads)
                want = end - len(buffer)
            else:
                want = HEADER.size - len(buffer)
            chunk = _os_read(self.fd, max(want, 1 << 16))
            if not chunk:
                if buffer:
                    raise FrameError("the stream ended inside a frame")
                return None
            buffer += chunk


def read_file(fd: int, max_bytes: int) -> bytes:
    """The first ``max_bytes`` bytes of the file behind ``fd`` (a memfd), read from offset 0."""
    size = min(os.fstat(fd).st_size, max_bytes)
    chunks, pos = [], 0
    while pos < size:
        chunk = os.pread(fd, min(size - pos, 1 << 20), pos)
        if not chunk:
            break
        chunks.append(chunk)
        pos += len(chunk)
    return b"".join(chunks)


#: Largest message on a ``SOCK_SEQPACKET`` control channel (frames there are small).
MAX_MESSAGE = 1 << 16
_MAX_FDS = 16


def send_message(sock: socket.socket, data: bytes, fds: Sequence[int] = ()) -> None:
    """Send one frame as one message, with ``fds`` attached (``SCM_RIGHTS``)."""
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.sendall(data)


def recv_message(sock: socket.socket, *, kinds: Sequence[bytes] = (JSON,), max_fds: int = _MAX_FDS):
    """One message of a ``SOCK_SEQPACKET`` socket: ``(frame, fds)``, or ``(None, [])`` at end of file.

    The received descriptors are the caller's to close, also when the frame is bad
    (then ``FrameError`` carries them in ``exc.fds``).
    """
    data, fds, flags, _ = socket.recv_fds(sock, MAX_MESSAGE, max_fds)
    if not data and not fds:
        return None, []
    try:
        if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
            raise FrameError("a control message was truncated")
        return decode(data, kinds=kinds, max_bytes=MAX_MESSAGE), fds
    except FrameError as exc:
        exc.fds = fds
        raise


def take_channel() -> int:
    """In a warm helper process: the channel to the parent (it arrives as fd 0), moved to a
    descriptor of its own; fds 0 and 1 then point at ``/dev/null`` (stderr is kept for errors)."""
    channel = os.dup(0)
    os.set_inheritable(channel, False)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    return channel
