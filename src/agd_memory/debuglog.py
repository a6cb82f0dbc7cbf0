"""The debug log: why a hook stayed silent, why a setting was ignored.

Hooks fail open and print nothing, so the reason has to go somewhere a user can
find it: `$CLAUDE_PLUGIN_DATA/debug.log` (or the data folder's fallback), and
stderr too when `AGD_RECALL_DEBUG` or `AGD_MEMORY_DEBUG` is on. Writing never
raises.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

MAX_BYTES = 256 * 1024


def _log_path() -> Path:
    env = os.environ
    if env.get("CLAUDE_PLUGIN_DATA"):
        base = Path(env["CLAUDE_PLUGIN_DATA"])
    elif env.get("XDG_DATA_HOME"):
        base = Path(env["XDG_DATA_HOME"]) / "agd-memory"
    else:
        base = Path(env.get("HOME") or Path.home()) / ".local" / "share" / "agd-memory"
    return base / "debug.log"


def _on(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def log(message: str) -> None:
    """Append one line to the debug log (rotated at 256 KiB); echo to stderr in debug mode."""
    line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} [{os.getpid()}] {message}\n"
    if _on("AGD_RECALL_DEBUG") or _on("AGD_MEMORY_DEBUG"):
        try:
            sys.stderr.write(f"[agd-memory] {message}\n")
        except Exception:
            pass
    try:
        path = _log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if path.stat().st_size > MAX_BYTES:
                os.replace(path, path.with_suffix(".log.1"))
        except FileNotFoundError:
            pass
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line)
    except Exception:
        pass
