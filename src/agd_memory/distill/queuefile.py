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


class QueueDamaged(Exception):
    """The queue file exists but is not a queue: it is left as it is, never overwritten."""


def load(path: Path) -> dict:
    """The queue's data (an empty queue when the file is missing); `QueueDamaged` with the
    reason when the file cannot be read, is not JSON or is not shaped as a queue."""
    from agd.errors import AgdError
    from agd.files import read_text

    if not os.path.lexists(path):
        return {"pending": [], "rejected": {}}
    try:
        data = json.loads(read_text(path, QUEUE_LIMIT))
    except (AgdError, OSError, ValueError) as exc:
        raise QueueDamaged(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    if not isinstance(data, dict):
        raise QueueDamaged("not a JSON object")
    if not isinstance(data.get("pending", []), list):
        raise QueueDamaged('"pending" is not a list')
    if not isinstance(data.get("rejected", {}), dict):
        raise QueueDamaged('"rejected" is not an object')
    return {**data, "pending": data.get("pending", []), "rejected": data.get("rejected", {})}


def read(path: Path) -> dict:
    """The queue's data; an empty queue when the file is missing or damaged (never raises:
    for counting only, every change goes through `load`)."""
    try:
        return load(path)
    except QueueDamaged:
        return {"pending": [], "rejected": {}}


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
