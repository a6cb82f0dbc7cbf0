"""Replace a file so that a crash at any instant leaves the old or the new text, never a mix.

The text goes to a temporary file in the same folder (same file system, so the
rename is atomic), is flushed and fsynced, takes the old file's mode, and is
renamed over the target; the folder is fsynced so the rename itself survives a
power cut on POSIX. A writer killed between the two steps leaves its temporary
file behind (`.memory.agd.k2j4x9q1.tmp`, a full copy); `remove_stale_temps` clears
those, and only those, for one target.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

DEFAULT_MODE = 0o644
STALE_TEMP_S = 300.0
"""A temporary file this old was left by a killed writer: a live one lasts milliseconds."""

_TEMP_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")  # tempfile's random names
_TEMP_RANDOM_LEN = 8


def temp_prefix(target: Path) -> str:
    return f".{target.name}."


def write_atomic(path: str | os.PathLike[str], text: str, *, mode: int = DEFAULT_MODE) -> None:
    """Write `text` (UTF-8, newlines untouched) to `path` atomically.

    The file keeps its current permission bits; a new file gets `mode` (0644 by
    default, subject to nothing: the umask does not apply to the rename).
    Raises OSError when the folder is not writable; the target is then untouched.
    """
    import tempfile  # here, not at the top: it costs a hook that only reads ~5 ms to import

    target = Path(path)
    try:
        current = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        current = mode
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(target), suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, current)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


def remove_stale_temps(path: str | os.PathLike[str], *, older_than: float = STALE_TEMP_S) -> int:
    """Delete the temporary files `write_atomic` left beside `path` when killed mid-write.

    Only names of our own pattern for that one file (`.<name>.<8 random>.tmp`), only
    regular files, only those not modified for `older_than` seconds. Call it while holding
    the file's lock, so that no writer that takes the lock is between its two steps.
    Returns the number removed; never raises (a file that cannot be removed stays).
    """
    import time

    target = Path(path)
    prefix = temp_prefix(target)
    cutoff = time.time() - older_than
    removed = 0
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return 0
    for entry in entries:
        name = entry.name
        middle = name[len(prefix) : -len(".tmp")]
        if not (
            name.startswith(prefix)
            and name.endswith(".tmp")
            and len(middle) == _TEMP_RANDOM_LEN
            and set(middle) <= _TEMP_CHARS
        ):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    return removed


def _fsync_dir(folder: Path) -> None:
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
