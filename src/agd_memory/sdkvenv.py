"""Where the MCP SDK's private environment is and what state its install is in: `<data>/venv`,
the ready marker, the install's lock, log and one-line failure. Read by `mcp/sdk.py` (which
installs it), `bin/agd-memory-mcp`, the SessionStart hook and `doctor`; standard library only.
<data> is $CLAUDE_PLUGIN_DATA, else $XDG_DATA_HOME/agd-memory, else ~/.local/share/agd-memory:
the launcher decides it before any settings exist, so every reader asks this module."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

REQUIREMENT = "mcp>=2,<3"
"""The SDK the server is written for; the same pin as pyproject.toml and bin/agd-memory-mcp."""
MAX_MARKER_CHARS = 4096


def data_dir() -> Path:
    env = os.environ
    if env.get("CLAUDE_PLUGIN_DATA"):
        return Path(os.path.expanduser(env["CLAUDE_PLUGIN_DATA"]))
    if env.get("XDG_DATA_HOME"):
        return Path(os.path.expanduser(env["XDG_DATA_HOME"])) / "agd-memory"
    return Path(os.path.expanduser("~")) / ".local" / "share" / "agd-memory"


def venv_dir() -> Path:
    return data_dir() / "venv"


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _ready_file(venv: Path) -> Path:
    return venv / ".agd-memory-ready"


def failed_file(data: Path | None = None) -> Path:
    return (data or data_dir()) / "venv-install.failed"


def log_file(data: Path | None = None) -> Path:
    return (data or data_dir()) / "venv-install.log"


def system_file() -> Path:
    return data_dir() / "venv-not-needed"


def _read_small(path: Path) -> str:
    """The start of one of our marker files (bounded: the data folder is not ours alone)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read(MAX_MARKER_CHARS)


def is_ready(venv: Path | None = None) -> bool:
    venv = venv or venv_dir()
    try:
        marker = _read_small(_ready_file(venv)).strip()
    except OSError:
        return False
    return marker == REQUIREMENT and venv_python(venv).exists()


def failure(data: Path | None = None) -> str | None:
    """The last install's one-line failure in `data` (default: `data_dir()`), or None."""
    try:
        text = _read_small(failed_file(data)).strip()
    except OSError:
        return None
    return text.splitlines()[0][:500] if text else None


def _try_lock(path: Path) -> TextIO | None:
    """The install lock, taken without waiting: None when another installer holds it."""
    fh = open(path, "a+")  # noqa: SIM115 - the caller keeps it open while it installs
    try:
        if os.name == "nt":
            import msvcrt

            fh.seek(0)
            msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        return None
    return fh


def installing(data: Path | None = None) -> bool:
    """An installer for `data` (default: `data_dir()`) is running now (it holds the lock)."""
    lock = (data or data_dir()) / "venv.lock"
    if not lock.exists():
        return False
    try:
        fh = _try_lock(lock)
    except OSError:
        return False
    if fh is None:
        return True
    fh.close()
    return False
