"""The distiller's logs: a human-readable `distill.log` and one JSON line per run in `runs.jsonl`.

The worker is detached with no stdio, so these files are the only place its
story is told. Both are rotated (one `.1` generation kept) so they never grow
without bound. Writing a log line never raises: a log failure must not stop a
distillation.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from agd.files import append

from ..settings import Settings
from .state import distill_dir

LOG_MAX_BYTES = 1024 * 1024
RUNS_MAX_BYTES = 512 * 1024


def log_path(settings: Settings) -> Path:
    return distill_dir(settings) / "distill.log"


def runs_path(settings: Settings) -> Path:
    return distill_dir(settings) / "runs.jsonl"


def log(settings: Settings, message: str) -> None:
    """Append one timestamped line (UTC) with the writer's pid."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    text = "".join(f"{stamp} [{os.getpid()}] {line}\n" for line in message.splitlines() or [""])
    _append(log_path(settings), text, LOG_MAX_BYTES)


def record_run(settings: Settings, run: dict[str, object]) -> None:
    """Append one run: session, transcript, memory file, outcome, saved ids, detail."""
    run = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "pid": os.getpid(), **run}
    _append(runs_path(settings), json.dumps(run, ensure_ascii=False) + "\n", RUNS_MAX_BYTES)


def recent_runs(settings: Settings, limit: int = 10) -> list[dict[str, object]]:
    """The last `limit` runs, oldest first (the rotated generation is read too)."""
    path = runs_path(settings)
    runs: list[dict[str, object]] = []
    from agd.errors import UnreadableFile
    from agd.files import read_bytes

    for candidate in (path.with_name(path.name + ".1"), path):
        try:  # bounded: `_append` rotates at RUNS_MAX_BYTES, a larger file is not ours
            raw = read_bytes(candidate, 2 * RUNS_MAX_BYTES)
        except UnreadableFile:
            continue
        lines = raw.decode("utf-8", "replace").splitlines()
        for line in lines:
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict):
                runs.append(item)
    return runs[-limit:] if limit > 0 else runs


def _append(path: Path, text: str, max_bytes: int) -> None:
    with contextlib.suppress(OSError):  # concurrent workers never interleave inside a line
        append(path, text.encode("utf-8", "replace"), rotate_over=max_bytes)
