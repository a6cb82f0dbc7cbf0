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
    # marshal straight from a memory map: a copy into a bytes object first would cost more
    view = _map(cache_path(cache_dir, kind, name), len(MAGIC) + _HEAD.size)
    if view is None:
        return None
    with view:
        return _decode(view, len(view), key)


def _map(path: Path, min_size: int) -> mmap.mmap | None:
    """The file at `path` mapped read-only, or None: missing, not a regular file (a FIFO
    must not hang a hook), smaller than `min_size` or larger than MAX_BYTES."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        size = st.st_size
        if not stat.S_ISREG(st.st_mode) or size > MAX_BYTES or size < min_size:
            return None
        return mmap.mmap(fd, size, access=mmap.ACCESS_READ)
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


def remove(path: Path | str) -> None:
    """Remove a cache file; one already gone, or that cannot be removed, is left as it is
    (the next write replaces it, a stale key is never read)."""
    try:  # noqa: SIM105 (no contextlib: 0.6 ms of every hook's start)
        os.unlink(path)
    except OSError:
        pass


def _private(cache_dir: Path, tmp: Path):
    """A new cache file open for writing, mode 0600 in a 0700 folder whatever the umask: a
    cache holds the text of memory files their owner may have made private."""
    cache_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    return os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb")


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
        with _private(cache_dir, tmp) as fh:
            fh.write(MAGIC + _HEAD.pack(len(head), len(data), crc))
            fh.write(head)
            fh.write(data)
        os.replace(tmp, target)
    except (OSError, ValueError) as exc:
        debuglog.log(f"cache: could not write {target}: {exc}")
        remove(tmp)


# -- tables: a cache read piece by piece, each piece verified as it is read ----------
#
# A recall index at 10,000 blocks is ~10 MB; reading and checking all of it on every
# prompt is the hook's cost growing with the memory. A table file is the same one key
# and one rule, but its header (the caller's small header and a directory) is verified
# on open, and every other piece when it is read: a map entry (an open-addressing hash
# table of string keys) or an array item, each a `marshal` blob with its CRC-32 held in
# a slot that has a CRC-32 of its own. A prompt reads the slots and blobs of its words
# and of the blocks it scores: reads proportional to the prompt, not to the memory.

TABLE_MAGIC = b"AGDTABL\x01"
_SLOT = struct.Struct("<IQIII")
"""A map slot: key hash, blob offset (0: an empty slot), blob length, blob CRC-32, and the
CRC-32 of those four fields."""
_ITEM = struct.Struct("<QIII")
"""An array item: blob offset, blob length, blob CRC-32, and the CRC-32 of those three."""


class Corrupt(Exception):
    """A piece of a table file did not verify: the caller drops the table (`drop`) and
    rebuilds it."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path

    def drop(self) -> None:
        """Remove the table file, so that the next read rebuilds it."""
        remove(self.path)


def _key_hash(key: str) -> int:
    return zlib.crc32(key.encode("utf-8", "surrogatepass"))


class Table:
    """An open table file (`read_table`): `header`, `get(map, key)`, `item(array, i)`,
    `items(map)`. A piece that does not verify raises Corrupt."""

    __slots__ = ("header", "path", "_view", "_size", "_maps", "_arrays")

    def __init__(self, path: Path, view: mmap.mmap, size: int, header: object, directory: tuple):
        self.header = header
        self.path = path
        self._view = view
        self._size = size
        self._maps, self._arrays = directory

    def _blob(self, offset: int, length: int, crc: int) -> object:
        if offset + length > self._size:
            raise Corrupt(self.path, "a piece lies past the end of the file")
        with memoryview(self._view) as data:
            blob = data[offset : offset + length]
            try:
                if zlib.crc32(blob) != crc:
                    raise Corrupt(self.path, "a piece does not match its checksum")
                return marshal.loads(blob)
            except (ValueError, EOFError, TypeError) as exc:
                raise Corrupt(self.path, f"a piece does not decode: {exc}") from None
            finally:
                blob.release()

    def _slot(self, fields: struct.Struct, at: int) -> tuple:
        if at + fields.size > self._size:
            raise Corrupt(self.path, "a slot lies past the end of the file")
        raw = self._view[at : at + fields.size]
        values = fields.unpack(raw)
        if zlib.crc32(raw[:-4]) != values[-1]:
            raise Corrupt(self.path, "a slot does not match its checksum")
        return values

    def get(self, name: str, key: str) -> object | None:
        """The value stored under `key` in the map `name`, or None when it has none."""
        start, count = self._maps[name]
        h = _key_hash(key)
        i = h % count
        for _ in range(count):
            slot_hash, offset, length, crc, _ = self._slot(_SLOT, start + i * _SLOT.size)
            if offset == 0:
                return None
            if slot_hash == h:
                stored_key, value = self._blob(offset, length, crc)  # type: ignore[misc]
                if stored_key == key:
                    return value
            i = (i + 1) % count
        return None

    def items(self, name: str):
        """Every (key, value) of the map `name` (reads the whole map: tests, tools)."""
        start, count = self._maps[name]
        for i in range(count):
            _, offset, length, crc, _ = self._slot(_SLOT, start + i * _SLOT.size)
            if offset:
                yield self._blob(offset, length, crc)

    def item(self, name: str, i: int) -> object:
        """Item `i` of the array `name`."""
        start, count = self._arrays[name]
        if not 0 <= i < count:
            raise IndexError(i)
        offset, length, crc, _ = self._slot(_ITEM, start + i * _ITEM.size)
        return self._blob(offset, length, crc)

    def count(self, name: str) -> int:
        return self._arrays[name][1]


class TableMap:
    """One map of a table as a read-only mapping: `get`, `in`, `len`, truthiness. A key is
    read (and verified) from the file on first use and remembered; `items()` reads the
    whole map. A piece that does not verify raises Corrupt, as the table does."""

    __slots__ = ("_table", "_name", "_size", "_memo")

    def __init__(self, table: Table, name: str, size: int) -> None:
        self._table = table
        self._name = name
        self._size = size
        self._memo: dict[str, object] = {}

    def get(self, key: str, default: object = None) -> object:
        try:
            value = self._memo[key]
        except KeyError:
            value = self._memo[key] = self._table.get(self._name, key)
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __len__(self) -> int:
        return self._size

    def items(self):
        return self._table.items(self._name)


def read_table(cache_dir: Path | None, kind: str, name: object, key: object) -> Table | None:
    """The table stored for `key`, open and its header verified, or None: missing, stale,
    foreign, corrupt or too big (as `read`)."""
    if cache_dir is None:
        return None
    path = cache_path(cache_dir, kind, name)
    start = len(TABLE_MAGIC) + _HEAD.size
    view = _map(path, start)
    if view is None:
        return None
    size = len(view)
    try:
        if view[: len(TABLE_MAGIC)] != TABLE_MAGIC:
            raise ValueError("not a table")
        klen, hlen, crc = _HEAD.unpack_from(view, len(TABLE_MAGIC))
        if start + klen + hlen > size:
            raise ValueError("header past the end")
        head = view[start : start + klen + hlen]
        if zlib.crc32(head) != crc or marshal.loads(head[:klen]) != _full_key(key):
            raise ValueError("stale or corrupt header")
        header, directory = marshal.loads(head[klen:])
        return Table(path, view, size, header, directory)
    except (ValueError, EOFError, TypeError):
        view.close()
        return None


def write_table(
    cache_dir: Path | None,
    kind: str,
    name: object,
    key: object,
    header: object,
    maps: dict[str, dict[str, object]],
    arrays: dict[str, list[object]],
) -> None:
    """Store a table for `key`: the small `header`, each map of `maps` (string keys) and
    each array of `arrays`. Best effort, atomic, as `write`."""
    if cache_dir is None:
        return
    target = cache_path(cache_dir, kind, name)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        blobs: list[bytes] = []
        at = [0]  # offsets are made absolute once the header's length is known

        def add(value: object) -> tuple[int, int, int]:
            data = marshal.dumps(value)
            blobs.append(data)
            offset = at[0]
            at[0] += len(data)
            return offset, len(data), zlib.crc32(data)

        map_slots: dict[str, list[tuple[int, int, int, int]]] = {}
        for map_name, table in maps.items():
            count = 2
            while count < 2 * len(table):
                count *= 2
            slots: list = [None] * count
            for k, value in table.items():
                h = _key_hash(k)
                i = h % count
                while slots[i] is not None:
                    i = (i + 1) % count
                slots[i] = (h, *add((k, value)))
            map_slots[map_name] = slots
        array_items = {n: [add(v) for v in values] for n, values in arrays.items()}
        # layout: magic, head, key, header, slot and item regions, blobs
        head_key = marshal.dumps(_full_key(key))

        def layout(header_len: int) -> tuple[int, dict, dict]:
            pos = len(TABLE_MAGIC) + _HEAD.size + len(head_key) + header_len
            maps_dir, arrays_dir = {}, {}
            for n, s in map_slots.items():
                maps_dir[n] = (pos, len(s))
                pos += len(s) * _SLOT.size
            for n, items in array_items.items():
                arrays_dir[n] = (pos, len(items))
                pos += len(items) * _ITEM.size
            return pos, maps_dir, arrays_dir

        # the header holds absolute offsets, which depend on its own length: fixed point
        header_len = 0
        while True:
            base, maps_dir, arrays_dir = layout(header_len)
            head_data = marshal.dumps((header, (maps_dir, arrays_dir)))
            if len(head_data) == header_len:
                break
            header_len = len(head_data)
        out = [TABLE_MAGIC, b"", head_key, head_data]
        for s in map_slots.values():
            for slot in s:
                fields = (0, 0, 0, 0) if slot is None else (slot[0], base + slot[1], *slot[2:])
                raw = _SLOT.pack(*fields, 0)[:-4]
                out.append(raw + struct.pack("<I", zlib.crc32(raw)))
        for items in array_items.values():
            for offset, length, crc in items:
                raw = _ITEM.pack(base + offset, length, crc, 0)[:-4]
                out.append(raw + struct.pack("<I", zlib.crc32(raw)))
        out.extend(blobs)
        out[1] = _HEAD.pack(
            len(head_key), len(head_data), zlib.crc32(head_data, zlib.crc32(head_key))
        )
        with _private(cache_dir, tmp) as fh:
            fh.writelines(out)
        os.replace(tmp, target)
    except (OSError, ValueError) as exc:
        debuglog.log(f"cache: could not write {target}: {exc}")
        remove(tmp)


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
