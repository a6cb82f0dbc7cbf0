"""Bounded reads of files named by a user: regular files only, never more than a limit.

A path given on a command line or in a setting may be a FIFO (a read would block
forever), a device (`/dev/zero` never ends) or a file far larger than any memory.
`read_bytes` opens without blocking, checks on the open descriptor that it is a
regular file, and reads at most `limit` bytes, so a bad path is one clear error
instead of a hang or an out-of-memory kill.
"""

from __future__ import annotations

import os
import stat

from .errors import UnreadableFile

MIB = 1024 * 1024
DEFAULT_LIMIT = 64 * MIB
"""The most any single input file may hold; a memory file of 10,000 blocks is about 1 MiB."""


def read_bytes(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT) -> bytes:
    """The bytes of the regular file at `path`; `UnreadableFile` when it is not one or is too big."""
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as err:
        raise UnreadableFile(name, os_reason(err)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(name, "not a regular file (a folder, FIFO or device); give a file")
        if info.st_size > limit:
            raise UnreadableFile(name, f"larger than {_size(limit)}; give a smaller file")
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, MIB))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:  # grew while being read
            raise UnreadableFile(name, f"larger than {_size(limit)}; give a smaller file")
        return data
    except OSError as err:
        raise UnreadableFile(name, os_reason(err)) from None
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT) -> str:
    """`read_bytes` decoded as UTF-8; invalid UTF-8 is an `UnreadableFile` naming the offset."""
    raw = read_bytes(path, limit)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UnreadableFile(
            os.fspath(path), f"not valid UTF-8 (byte {raw[err.start]:#04x} at offset {err.start})"
        ) from None


def os_reason(err: OSError) -> str:
    """An OSError as a short reason without the path (the caller names the file)."""
    return err.strerror or str(err)


def _size(limit: int) -> str:
    return f"{limit // MIB} MiB" if limit >= MIB else f"{limit:,} bytes"


def append(path: str | os.PathLike[str], data: bytes, *, rotate_over: int | None = None) -> int:
    """Append `data` to the log file at `path` in one write; the file's size after it.

    One `write` on an `O_APPEND` descriptor, so concurrent writers never interleave inside
    one call. The file is created private (0600: logs can quote prompts), its folder too,
    and it is opened without blocking, so a FIFO planted at the path is an `OSError`
    (ENXIO), never a hang. With `rotate_over`, a file that would grow past that many bytes
    is first moved to `<path>.1`. Raises `OSError`; a logger decides whether to care.
    """
    name = os.fspath(path)
    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
    if rotate_over is not None:
        try:
            if os.stat(name).st_size + len(data) > rotate_over:
                os.replace(name, name + ".1")
        except FileNotFoundError:
            pass
    fd = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0), 0o600)
    try:
        os.write(fd, data)
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def read_only(path: str | os.PathLike[str]) -> bool:
    """The file is read-only: no write bit, or no write access. The mode bits count, not
    just access(): root may write anything, but a file made read-only is a clear request
    to leave it alone. False when it cannot be examined (the write reports that)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return mode & 0o222 == 0 or not os.access(path, os.W_OK)
