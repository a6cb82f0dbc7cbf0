"""The disk cache: what was derived from a memory file, kept between processes, verified on read.

A hook is a new process on every prompt: without a disk cache it would parse the
whole memory (about 6 ms per 1,000 blocks) and analyse it for recall (seconds at
10,000 blocks) every time. Two things are cached per memory file, each in one file
of the cache folder: the store's entry rows (`kind="entries"`) and recall's analysis
(`kind="recall"`, one per analyzer); recall's synonym map has no source file.

One key, one rule: a cache file is believed only when its stored key equals the key
expected now, and the key holds the source file's identity (`file_key`: real path,
size, mtime, ctime, inode, device; every write is an atomic rename, so a rewrite
within one mtime tick still changes the inode and ctime), this module's format
version, the Python that wrote it, and what the caller adds (the agd version, the
analyzer, the code that shapes an analysis).

Every read is bounded and verified before anything is decoded: the file must be a
regular file under `MAX_BYTES`, its lengths must add up to its size, and a CRC-32
over key and payload must match, so flipped bytes, a truncated or fuzzed file never
reach `marshal` (whose length fields would otherwise allocate gigabytes). Anything
wrong means "no cache": the caller rebuilds from the memory file and writes a new
one. Writing is atomic (temporary file, rename) and never fails the caller.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import mmap
import os
import stat
import struct
import sys
import zlib
from pathlib import Path

from . import debuglog

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
if TYPE_CHECKING:
    from agd.model import Document

MAGIC = b"AGDCACH\x01"
VERSION = 1
_HEAD = struct.Struct("<IQI")
"""After MAGIC: key length, payload length, CRC-32 of key and payload bytes."""
MAX_BYTES = 1 << 30
"""A cache file larger than this is not read (10,000 blocks make about 10 MB)."""

Key = tuple[str, int, int, int, int, int]
"""A source file's identity: (real path, size, mtime_ns, ctime_ns, inode, device)."""


def file_key(path: Path | str) -> Key | None:
    """The identity of the file at `path`, or None when it does not exist."""
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


def cache_path(cache_dir: Path, kind: str, name: object) -> Path:
    """One file per `kind` and `name` (a file's new versions replace the old one). A
    checksum is enough for a file name (`hashlib` costs a hook ~4 ms to import): the
    full key is stored inside and compared."""
    raw = repr(name).encode("utf-8", "surrogatepass")
    return cache_dir / f"{kind}-{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.cache"


def _full_key(key: object) -> tuple:
    return (VERSION, sys.implementation.cache_tag, key)


def read(cache_dir: Path | None, kind: str, name: object, key: object) -> object | None:
    """The payload stored for `key`, or None: missing, stale, foreign, corrupt or too big."""
    if cache_dir is None:
        return None
    path = cache_path(cache_dir, kind, name)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        size = st.st_size
        if not stat.S_ISREG(st.st_mode) or size > MAX_BYTES or size < len(MAGIC) + _HEAD.size:
            return None
        # marshal straight from a memory map: at 10,000 blocks the recall file is ~10 MB,
        # and copying it into a bytes object first would cost the prompt hook more.
        with mmap.mmap(fd, size, access=mmap.ACCESS_READ) as view:
            return _decode(view, size, key)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


def _decode(view: mmap.mmap, size: int, key: object) -> object | None:
    if view[: len(MAGIC)] != MAGIC:
        return None
    klen, plen, crc = _HEAD.unpack_from(view, len(MAGIC))
    start = len(MAGIC) + _HEAD.size
    if start + klen + plen != size:
        return None
    with memoryview(view) as data:
        body = data[start:]
        try:
            if zlib.crc32(body) != crc:
                return None
            if marshal.loads(body[:klen]) != _full_key(key):
                return None
            enabled = gc.isenabled()
            gc.disable()  # tens of thousands of new tuples; no cycles among them
            try:
                return marshal.loads(body[klen:])
            finally:
                if enabled:
                    gc.enable()
        except (ValueError, EOFError, TypeError):
            return None
        finally:
            body.release()


def write(cache_dir: Path | None, kind: str, name: object, key: object, payload: object) -> None:
    """Store `payload` for `key`. Best effort: a failure is logged and otherwise ignored."""
    if cache_dir is None:
        return
    target = cache_path(cache_dir, kind, name)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        head = marshal.dumps(_full_key(key))
        data = marshal.dumps(payload)
        crc = zlib.crc32(data, zlib.crc32(head))
        cache_dir.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(MAGIC + _HEAD.pack(len(head), len(data), crc))
            fh.write(head)
            fh.write(data)
        os.replace(tmp, target)
    except (OSError, ValueError) as exc:
        debuglog.log(f"cache: could not write {target}: {exc}")
        with contextlib.suppress(OSError):
            tmp.unlink()


# -- the store's entry rows: one file per memory file, memoised in process ------------


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

ROWS_VERSION = 2
"""The shape of the store's rows (`store.entry`); raise it when that shape changes."""


def memo_get(key: Key) -> Loaded | None:
    hit = _memo.get(key[0])
    return hit if hit is not None and hit.key == key else None


def memo_put(loaded: Loaded) -> None:
    _memo[loaded.key[0]] = loaded


def clear() -> None:
    """Drop the in-process memo (tests, benchmarks)."""
    _memo.clear()


def _rows_key(key: Key) -> tuple:
    from agd import __version__ as agd_version

    return (ROWS_VERSION, agd_version, key)


def read_rows(cache_dir: Path, key: Key) -> list[tuple] | None:
    """The cached entry rows of the file `key` names, or None."""
    rows = read(cache_dir, "entries", key[0], _rows_key(key))
    if not isinstance(rows, list) or not all(type(r) is tuple for r in rows):
        return None
    return rows


def write_rows(cache_dir: Path, key: Key, rows: list[tuple]) -> None:
    write(cache_dir, "entries", key[0], _rows_key(key), rows)


def entries_path(cache_dir: Path, key: Key) -> Path:
    """The file holding the entry rows of the memory file `key` names."""
    return cache_path(cache_dir, "entries", key[0])
