"""Where a memory file's review queue lives, and how many items wait in it.

Kept apart from `review` (which builds dataclasses and diffs) so that SessionStart can
tell the user that proposals are waiting for the cost of a stat and, only when a queue
exists, one small JSON read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from agd import lock

from ..settings import Settings

QUEUE_DIR = "review"
QUEUE_LIMIT = 16 * 1024 * 1024


def queue_path(settings: Settings, memory_path: str | os.PathLike[str]) -> Path:
    """The queue file of one memory file, named after the real file, beside the config file
    (`<Claude config dir>/agd-memory/review/`): the same folder for the hooks, the MCP
    server and a shell (the plugin data folder is not: Claude Code sets it for its own
    children only), and kept when the plugin is uninstalled."""
    real = lock.real_path(memory_path)
    digest = f"{_fnv1a(str(real).encode('utf-8', 'surrogateescape')):016x}"
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in real.parent.name)[:40]
    return settings.config_file.parent / QUEUE_DIR / f"{stem or 'memory'}-{real.stem}-{digest}.json"


def _fnv1a(data: bytes) -> int:
    """A 64-bit FNV-1a hash: tells two memory files' queues apart without importing hashlib
    (about 3 ms of every SessionStart hook)."""
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def read(path: Path) -> dict:
    """The queue's data; an empty queue when the file is missing or not ours (never raises)."""
    from agd.errors import AgdError
    from agd.files import read_text

    try:
        data = json.loads(read_text(path, QUEUE_LIMIT))
    except (AgdError, OSError, ValueError):
        return {"pending": [], "rejected": {}}
    if not isinstance(data, dict):
        return {"pending": [], "rejected": {}}
    pending = data.get("pending") if isinstance(data.get("pending"), list) else []
    rejected = data.get("rejected") if isinstance(data.get("rejected"), dict) else {}
    return {**data, "pending": pending, "rejected": rejected}


def count(settings: Settings, memory_paths: Iterable[str | os.PathLike[str]]) -> int:
    """How many items wait for these memory files (each counted once); never raises."""
    total, seen = 0, set()
    for path in memory_paths:
        queue = queue_path(settings, path)
        if queue in seen:
            continue
        seen.add(queue)
        if queue.is_file():
            total += sum(1 for d in read(queue)["pending"] if isinstance(d, dict))
    return total
