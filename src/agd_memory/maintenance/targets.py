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
    """The current project's file, every other project memory file, the global file; once each."""
    settings = Settings.load() if settings is None else settings
    layers = paths.resolve(settings)
    # The current project's file first: with AGD_MEMORY_FILE it lives outside the
    # projects folder and the listing below would miss it.
    files = [layers.project.path] if layers.project.path.is_file() else []
    files += paths.list_project_files(settings)
    if layers.global_.path.is_file():
        files.append(layers.global_.path)
    out: list[Path] = []
    seen: set[str] = set()
    for path in files:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out
