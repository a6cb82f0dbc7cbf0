"""Where the history lives, readable without the format library (SessionStart reads it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

MONTH = re.compile(r"^\d{4}-\d{2}$")


def folder_of(memory: Path) -> Path:
    """The history folder of a project memory file: beside it."""
    return Path(memory).parent / "history"


def summary(folder: Path) -> tuple[int, str] | None:
    """(sessions kept, oldest month `YYYY-MM`), from folder listings only; None when empty."""
    try:
        months = sorted(e.name for e in os.scandir(folder) if MONTH.match(e.name) and e.is_dir())
    except OSError:
        return None
    total, oldest = 0, ""
    for month in months:
        try:
            n = sum(1 for e in os.scandir(folder / month) if e.name.endswith(".agd"))
        except OSError:
            continue
        if n and not oldest:
            oldest = month
        total += n
    return (total, oldest) if total else None
