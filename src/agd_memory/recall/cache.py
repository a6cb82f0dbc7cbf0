"""Disk cache files of recall: one per memory file and analyzer, plus the synonym map.

Each file holds `(key, payload)` in `marshal` format; the key (cache version, the code
that shapes an analysis, the memory file's identity, the analyzer) is compared on read,
so a stale, foreign or truncated file is simply rebuilt. Writing is atomic (temporary
file, rename) and never raises: a read-only data folder costs speed, not recall.
"""

from __future__ import annotations

import contextlib
import marshal
import mmap
import os
import zlib
from pathlib import Path

CACHE_VERSION = 5


_HERE = Path(__file__).parent
"""The recall package: the files below shape every analysis."""
_CODE_FILES = ("text.py", "cognates.py", "analyzer.py", "index.py", "lexicon/concepts.txt")


def code_stamp() -> tuple:
    """Size and mtime of the modules that shape an analysis: editing one invalidates caches."""
    stamp = []
    for name in _CODE_FILES:
        try:
            st = os.stat(_HERE / name)
            stamp.append((st.st_size, st.st_mtime_ns))
        except OSError:
            stamp.append((0, 0))
    return tuple(stamp)


def file_key(path: Path, analyzer_sig: tuple) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (
        (CACHE_VERSION, code_stamp()),
        os.path.realpath(path),
        st.st_size,
        st.st_mtime_ns,
        st.st_ino,
        st.st_ctime_ns,
        analyzer_sig,
    )


def cache_path(cache_dir: Path, key: tuple) -> Path:
    """One file per memory file and analyzer (a file's new versions replace the old one)."""
    stable = key[1:2] + key[6:] if len(key) == 7 else key[:1] + key[2:]
    # a checksum is enough for a file name: the full key is stored inside and compared
    raw = repr(stable).encode("utf-8")
    return cache_dir / f"recall-{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.idx"


def read_cached(cache_dir: Path | None, key: tuple) -> tuple | None:
    if cache_dir is None:
        return None
    try:
        # marshal straight from a memory map: at 10,000 blocks the file is ~10 MB, and
        # reading it into a bytes object first costs the prompt hook ~10 ms more.
        # (marshal.load on the file object would read it in small pieces.)
        with (
            open(cache_path(cache_dir, key), "rb") as fh,
            mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view,
        ):
            stored_key, payload = marshal.loads(view)
    except Exception:  # missing, empty, truncated, foreign: rebuild
        return None
    return payload if stored_key == key else None


def write_cached(cache_dir: Path | None, key: tuple, payload: tuple) -> None:
    if cache_dir is None:
        return
    with contextlib.suppress(Exception):
        cache_dir.mkdir(parents=True, exist_ok=True)
        target = cache_path(cache_dir, key)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            marshal.dump((key, payload), fh)
        os.replace(tmp, target)
