"""Which memory files a maintenance command works on when the user names none.

Migrations default to every memory file on the machine — each project's and the
global one — because an upgrade should bring them all up to date at once (the
earlier scripts skipped the global file). Doctor checks the files the current
folder resolves to, the ones hooks and tools will actually read.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import paths
from ..settings import Settings


def all_memory_files(settings: Settings | None = None) -> list[Path]:
    """Every existing project memory file, then the global file, without duplicates."""
    settings = Settings.load() if settings is None else settings
    files = list(paths.list_project_files(settings))
    gpath, _ = paths.global_file(settings)
    if gpath.is_file():
        files.append(gpath)
    out: list[Path] = []
    seen: set[str] = set()
    for path in files:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out
