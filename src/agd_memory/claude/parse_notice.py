"""The prompt hook's notice for a memory file that stopped parsing mid-session.

SessionStart tells the user about a broken memory file at every session start; a file
that breaks later (a hand edit, a `git pull` with conflict markers) would otherwise make
recall go quiet without a word. The prompt hook tells the user once per version of the
broken file: the version (size, mtime, inode) it was told about is remembered in the data
folder, one small file per memory file. This runs only when a file failed to load, so a
prompt on a healthy memory pays nothing for it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from agd.atomic import write_atomic
from agd.errors import UnreadableFile
from agd.files import read_bytes

from ..settings import Settings

NOTICE_DIR = "notices"


def _marker(settings: Settings, memory_path: str | os.PathLike[str]) -> Path:
    digest = hashlib.sha256(os.fsencode(os.path.abspath(memory_path))).hexdigest()[:16]
    return Path(settings.data_dir) / NOTICE_DIR / f"broken-{digest}"


def _version(memory_path: str | os.PathLike[str]) -> str | None:
    try:
        st = os.stat(memory_path)
    except OSError:
        return None
    return f"{st.st_size} {st.st_mtime_ns} {st.st_ino}"


def remember(
    settings: Settings, memory_path: str | os.PathLike[str], version: str | None = None
) -> None:
    """Record that the user was told about this version of the broken file."""
    version = version or _version(memory_path)
    if version is None:
        return
    marker = _marker(settings, memory_path)
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(marker, version + "\n")
    except OSError:
        pass  # without the record the user may hear it again: better than never


def first_time(settings: Settings, memory_path: str | os.PathLike[str]) -> bool:
    """True, and remembered, when the user has not been told about this version yet."""
    version = _version(memory_path)
    if version is None:
        return False
    try:  # a regular file only: a FIFO there must not hang the prompt hook
        told = read_bytes(_marker(settings, memory_path), 200).decode("ascii", "replace").strip()
    except UnreadableFile:
        told = ""
    if told == version:
        return False
    remember(settings, memory_path, version)
    return True
