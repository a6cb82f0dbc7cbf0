"""The blocks auto-recall already put in a conversation: a later prompt names them.

The context a prompt hook adds stays in the conversation, and a resumed session sends it
back to the model with every request. So a block injected once costs its tokens again
for nothing when a later prompt of the same session matches it: the hook gives its id
and desc instead (`RecallResult.render(earlier=...)`), with the way to the whole block
should the text no longer be above (`/rewind` takes turns away and runs no hook). A
block whose text changed since is injected again. `AGD_RECALL_REPEAT` turns this off.

Per session, `<data>/recall-sessions/<session id>` holds one line per injected block (its
id, layer and a checksum of the text injected), appended by the prompt hook. SessionStart
after a compaction or `/clear` empties it (the earlier turns are summarized or gone), and
removes the files of sessions untouched for `KEEP_DAYS`. Reads are bounded; any failure
means "nothing held", which only repeats a block.
"""

from __future__ import annotations

import os
import time
import zlib
from pathlib import Path

from agd.errors import AgdError
from agd.files import append, read_bytes

from .. import debuglog

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
if TYPE_CHECKING:
    from ..recall.engine import Scored
    from ..settings import Settings

FOLDER = "recall-sessions"
MAX_BYTES = 64 * 1024
"""The most one session's file holds (about 1,500 injections); past it, it starts over
with the blocks of the prompt that passed it (earlier ones may come once more)."""
KEEP_DAYS = 14
PRUNE_AT_MOST = 2_000
"""Files one SessionStart looks at when pruning (the rest wait for the next)."""
FORGET_SOURCES = ("compact", "clear")
"""SessionStart sources after which the conversation no longer holds earlier injections."""


def _path(settings: Settings, session_id: str) -> Path | None:
    """The session's file; None for an id that is not a plain name (no record is kept)."""
    ok = 0 < len(session_id) <= 128 and all(c.isalnum() or c in "-_" for c in session_id)
    return settings.data_dir / FOLDER / session_id if ok else None


def _line(s: Scored) -> str:
    """A block as recorded: its id, layer and a checksum of the text injected."""
    crc = zlib.crc32(s.text.encode("utf-8", "surrogatepass"))
    return f"{s.entry.id}\t{s.layer}\t{crc:08x}"


def earlier(settings: Settings, session_id: str, chosen: list[Scored]) -> set[int]:
    """The positions in `chosen` of the blocks whose text this session's conversation
    already holds, as `RecallResult.render` takes them."""
    path = _path(settings, session_id)
    if path is None or not chosen or settings.recall_repeat:
        return set()
    try:  # bounded, regular files only
        held = set(read_bytes(path, MAX_BYTES).decode("utf-8", "replace").splitlines())
    except (AgdError, OSError):
        return set()
    return {i for i, s in enumerate(chosen) if _line(s) in held}


def remember(settings: Settings, session_id: str, injected: list[Scored]) -> None:
    """Record that `injected` went into this session's conversation; never fails the hook."""
    path = _path(settings, session_id)
    if path is None or not injected:
        return
    lines = "".join(_line(s) + "\n" for s in injected)
    try:  # a record that would pass MAX_BYTES starts over (the old one moves to `.1`)
        append(path, lines.encode("utf-8", "surrogatepass"), rotate_over=MAX_BYTES)
    except OSError as exc:
        debuglog.log(f"recall sessions: {path}: {exc}")


def session_start(settings: Settings, session_id: str, source: str) -> None:
    """After a compaction or /clear, the session's earlier injections are gone from the
    conversation: forget them. Then remove the files of sessions long untouched."""
    folder = settings.data_dir / FOLDER
    path = _path(settings, session_id)
    try:
        if path is not None and source in FORGET_SOURCES:
            path.unlink(missing_ok=True)
        cutoff = time.time() - KEEP_DAYS * 86400
        with os.scandir(folder) as it:
            for n, item in enumerate(it):
                if n >= PRUNE_AT_MOST:
                    break
                if item.is_file(follow_symlinks=False) and item.stat().st_mtime < cutoff:
                    os.unlink(item.path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        debuglog.log(f"recall sessions: {folder}: {exc}")
