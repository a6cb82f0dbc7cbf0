"""The distiller's bookkeeping in the data folder: pending sessions and read offsets.

Layout under `<data_dir>/distill/`:

- `pending/<key>.json`: a session the hook recorded and no worker has finished
  yet (one file per transcript, so a resumed session simply replaces its record);
- `offsets/<key>.json`: how far each transcript has been distilled, so resumed
  or compacted sessions are never distilled twice;
- `locks/`, `distill.log`, `runs.jsonl`: see `lockfile` and `runlog`.

`<key>` is derived from the transcript's absolute path. Every file is replaced
atomically; a record that does not parse is treated as absent.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import NamedTuple

from ..settings import Settings

STATE_LIMIT = 4 * 1024 * 1024
"""The most one bookkeeping file may hold (a keys run's `asked` list of 10,000 ids is ~300 KB)."""


def distill_dir(settings: Settings) -> Path:
    return settings.data_dir / "distill"


def transcript_key(transcript: str | Path) -> str:
    import hashlib  # here: the keys run's SessionStart check reads state without hashing

    path = os.path.abspath(os.path.expanduser(str(transcript)))
    return hashlib.sha1(path.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# NamedTuples, not dataclasses: the SessionEnd hook imports this module, and `dataclasses`
# costs it several ms.


class Pending(NamedTuple):
    """A session waiting to be distilled."""

    transcript: str
    session_id: str
    cwd: str
    reason: str
    queued: float
    """Unix time the hook recorded it."""

    @property
    def key(self) -> str:
        return transcript_key(self.transcript)


def add_pending(settings: Settings, item: Pending) -> Path:
    folder = distill_dir(settings) / "pending"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{item.key}.json"
    write_atomic(path, json.dumps(item._asdict()) + "\n")
    return path


def read_pending(settings: Settings, key: str) -> Pending | None:
    data = read_json(distill_dir(settings) / "pending" / f"{key}.json")
    if data is None:
        return None
    try:
        return Pending(
            transcript=str(data["transcript"]),
            session_id=str(data.get("session_id") or ""),
            cwd=str(data.get("cwd") or ""),
            reason=str(data.get("reason") or ""),
            queued=float(data.get("queued") or 0.0),
        )
    except (KeyError, TypeError, ValueError):
        return None


def list_pending(settings: Settings) -> list[Pending]:
    """Every pending session, oldest first."""
    folder = distill_dir(settings) / "pending"
    try:
        names = sorted(p.stem for p in folder.glob("*.json"))
    except OSError:
        return []
    items = [read_pending(settings, name) for name in names]
    return sorted((i for i in items if i is not None), key=lambda i: i.queued)


def remove_pending(settings: Settings, item: Pending) -> None:
    """Drop the record, unless the hook re-recorded the session since `item` was read."""
    path = distill_dir(settings) / "pending" / f"{item.key}.json"
    current = read_pending(settings, item.key)
    if current is not None and current.queued != item.queued:
        return
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


class Offset(NamedTuple):
    """How far a transcript has been distilled."""

    offset: int
    inode: int
    session_id: str
    distilled: float


def read_offset(
    settings: Settings, transcript: str | Path, folder: str = "offsets"
) -> Offset | None:
    """How far `transcript` was read by the step whose offsets are in `folder` (the
    distiller's `offsets`; learning's `learned`)."""
    data = read_json(distill_dir(settings) / folder / f"{transcript_key(transcript)}.json")
    if data is None:
        return None
    try:
        return Offset(
            int(data["offset"]),
            int(data.get("inode", 0)),
            str(data.get("session_id", "")),
            float(data.get("distilled", 0)),
        )
    except (KeyError, TypeError, ValueError):
        return None


def start_offset(settings: Settings, transcript: str | Path, folder: str = "offsets") -> int:
    """Where the next distillation of `transcript` starts: 0 unless the same file has grown past a recorded offset."""
    recorded = read_offset(settings, transcript, folder)
    if recorded is None:
        return 0
    try:
        st = os.stat(transcript)
    except OSError:
        return 0
    # A shorter or different file (rewritten, replaced) is read from the start again.
    if st.st_size < recorded.offset or (recorded.inode and recorded.inode != st.st_ino):
        return 0
    return recorded.offset


def save_offset(
    settings: Settings,
    transcript: str | Path,
    offset: int,
    session_id: str,
    folder_name: str = "offsets",
) -> None:
    folder = distill_dir(settings) / folder_name
    folder.mkdir(parents=True, exist_ok=True)
    try:
        inode = os.stat(transcript).st_ino
    except OSError:
        inode = 0
    record = {
        "transcript": os.path.abspath(str(transcript)),
        "offset": offset,
        "inode": inode,
        "session_id": session_id,
        "distilled": time.time(),
    }
    write_atomic(folder / f"{transcript_key(transcript)}.json", json.dumps(record) + "\n")


def write_atomic(path: Path, text: str) -> None:
    """Replace a small bookkeeping file atomically (temp file + rename).

    Not `agd.atomic`: importing the format library would cost the SessionEnd hook
    about 10 ms, and these records need no fsync (a lost one is only re-done work).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def read_json(path: Path, limit: int = STATE_LIMIT) -> dict | None:
    """One bookkeeping JSON object in the data folder, or None when it is missing, not a
    regular file, larger than `limit` or not an object. Read bounded (`agd.files`), so a
    FIFO or a runaway file there never hangs a hook or a worker."""
    from agd.errors import UnreadableFile
    from agd.files import read_text

    try:
        data = json.loads(read_text(path, limit))
    except (UnreadableFile, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None
