"""Replace a file so that a crash at any instant leaves the old or the new text, never a mix.

The text goes to a temporary file in the same folder (same file system, so the
rename is atomic), is flushed and fsynced, takes the old file's mode, and is
renamed over the target; the folder is fsynced so the rename itself survives a
power cut on POSIX.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

DEFAULT_MODE = 0o644


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` (UTF-8, newlines untouched) to `path` atomically.

    The file keeps its current permission bits; a new file gets 0644 (`DEFAULT_MODE`,
    subject to nothing: the umask does not apply to the rename).
    Raises OSError when the folder is not writable; the target is then untouched.
    """
    import tempfile  # here, not at the top: it costs a hook that only reads ~5 ms to import

    target = Path(path)
    try:
        current = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        current = DEFAULT_MODE
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
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
