"""Parsed memory files, kept in process and on disk, keyed by the file's identity.

A hook is a new process on every prompt: without a disk cache it would parse the
whole memory every time (about 6 ms per 1,000 blocks). The cache file holds the
entry rows as plain tuples in `marshal` format behind a magic/version header and
the source key (path, size, mtime, ctime, inode). Anything wrong with it (foreign,
truncated, stale, written by another Python) is ignored and rebuilt; writing it
never fails a read. In process, the last result per file is memoised.

The key includes the inode and ctime, not only size and mtime: every write is an
atomic rename of a new file, so a rewrite inside one mtime tick with the same size
still changes the key.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import struct
import sys
import zlib
from pathlib import Path

from agd.model import Document

from .. import debuglog

MAGIC = b"AGDMEMC\x00"
VERSION = 2
_LEN = struct.Struct("<I")

Key = tuple[str, int, int, int, int, int]


class Loaded:
    """One file's cached rows, its parsed document when this process parsed it, and its
    entries per layer name (built on first use)."""

    __slots__ = ("key", "rows", "document", "entries")

    def __init__(self, key: Key, rows: list[tuple], document: Document | None = None) -> None:
        self.key = key
        self.rows = rows
        self.document = document
        self.entries: dict[str, list] = {}


_memo: dict[str, Loaded] = {}


def file_key(path: Path) -> Key | None:
    """(real path, size, mtime_ns, ctime_ns, inode, device), or None when missing."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (
        os.path.realpath(path),
        st.st_size,
        st.st_mtime_ns,
        st.st_ctime_ns,
        st.st_ino,
        st.st_dev,
    )


def memo_get(key: Key) -> Loaded | None:
    hit = _memo.get(key[0])
    return hit if hit is not None and hit.key == key else None


def memo_put(loaded: Loaded) -> None:
    _memo[loaded.key[0]] = loaded


def clear() -> None:
    """Drop the in-process memo (tests, benchmarks)."""
    _memo.clear()


def cache_path(cache_dir: Path, key: Key) -> Path:
    """One file per memory file. A checksum is enough for the name (`hashlib` would cost
    every SessionStart ~4 ms to import): the full key is stored inside and compared."""
    raw = key[0].encode("utf-8", "surrogatepass")
    return cache_dir / f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.entries"


def _header(key: Key) -> tuple:
    from agd import __version__ as agd_version

    return (VERSION, agd_version, sys.implementation.cache_tag, key)


def read_rows(cache_dir: Path, key: Key) -> list[tuple] | None:
    """The cached rows for `key`, or None (missing, foreign, stale or corrupt)."""
    try:
        data = cache_path(cache_dir, key).read_bytes()
    except OSError:
        return None
    if not data.startswith(MAGIC):
        return None
    try:
        start = len(MAGIC) + _LEN.size
        (hlen,) = _LEN.unpack_from(data, len(MAGIC))
        header = marshal.loads(data[start : start + hlen])
        if header != _header(key):
            return None
        enabled = gc.isenabled()
        gc.disable()  # tens of thousands of new tuples; no cycles among them
        try:
            rows = marshal.loads(memoryview(data)[start + hlen :])
        finally:
            if enabled:
                gc.enable()
    except (ValueError, EOFError, TypeError, struct.error):
        return None
    if not isinstance(rows, list) or (rows and not isinstance(rows[0], tuple)):
        return None
    return rows


def write_rows(cache_dir: Path, key: Key, rows: list[tuple]) -> None:
    """Best effort: a failure is logged and otherwise ignored."""
    target = cache_path(cache_dir, key)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        header = marshal.dumps(_header(key))
        blob = MAGIC + _LEN.pack(len(header)) + header + marshal.dumps(rows)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(blob)
        os.replace(tmp, target)
    except (OSError, ValueError) as exc:
        debuglog.log(f"store: could not write the cache {target}: {exc}")
        with contextlib.suppress(OSError):
            tmp.unlink()
