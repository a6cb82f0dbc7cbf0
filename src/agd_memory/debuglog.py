"""The debug log: why a hook stayed silent, why a setting was ignored.

Hooks fail open and print nothing, so the reason has to go somewhere a user can
find it: `$CLAUDE_PLUGIN_DATA/debug.log` (or the data folder's fallback), and
stderr too when `AGD_RECALL_DEBUG` or `AGD_MEMORY_DEBUG` is on. Writing never
raises.

This is the one module below the entry points that reads the environment itself: the
log must work where no `Settings` exists yet (inside `Settings.load()`, in a hook that
failed before building one), so it reads its own two switches and the data folder
from `os.environ` at each call. The data folder's rule lives here (`data_dir_from`) and
`Settings.load()` uses it, so that the settings import the log and not the reverse.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path

MAX_BYTES = 256 * 1024


def data_dir_from(env: Mapping[str, str]) -> Path:
    """The plugin data folder `env` names: `Settings.data_dir`, and where this log lives."""
    if env.get("CLAUDE_PLUGIN_DATA"):
        return Path(env["CLAUDE_PLUGIN_DATA"]).expanduser()
    if env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"]).expanduser() / "agd-memory"
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".local" / "share" / "agd-memory"


def _log_path() -> Path:
    return data_dir_from(os.environ) / "debug.log"


def _on(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def log(message: str) -> None:
    """Append one line to the debug log (rotated at 256 KiB); echo to stderr in debug mode."""
    line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} [{os.getpid()}] {message}\n"
    if _on("AGD_RECALL_DEBUG") or _on("AGD_MEMORY_DEBUG"):
        try:  # noqa: SIM105 (no contextlib: 0.6 ms of every hook's start)
            sys.stderr.write(f"[agd-memory] {message}\n")
        except Exception:
            pass
    try:
        from agd.files import append

        append(_log_path(), line.encode("utf-8", "backslashreplace"), rotate_over=MAX_BYTES)
    except Exception:
        pass
