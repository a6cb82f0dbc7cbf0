"""The last verdicts of the code check, as the TOC and the prompt path read them.

A module of its own so that a prompt pays for one small import and one bounded,
verified cache read (`diskcache`), never for the check itself (`staleness.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import diskcache

if TYPE_CHECKING:
    from ..store.entry import Entry

CACHE_KIND = "hygiene"
CACHE_KEY = ("verdicts", 1)


def cache_name(memory: Path) -> str:
    return f"hygiene:{memory}"


def known_stale(path: Path, cache_dir: Path) -> dict[str, list[str]]:
    """The last verdicts of the memory file at `path` (id -> reasons), {} unless they were
    computed for that file as it is now. Cheap: one bounded, verified cache read, no code read."""
    data = diskcache.read(cache_dir, CACHE_KIND, cache_name(path), CACHE_KEY)
    if not isinstance(data, dict) or data.get("memory") != diskcache.file_key(path):
        return {}
    stale = data.get("stale")
    return stale if isinstance(stale, dict) else {}


def stale_among(
    entries: Iterable[Entry], cache_dir: Path | None
) -> dict[tuple[str, str], list[str]]:
    """{(memory file, id): reasons} of `entries` by their files' last verdicts (`known_stale`)."""
    if cache_dir is None:
        return {}
    by_file: dict[str, dict[str, list[str]]] = {}
    out = {}
    for e in entries:
        path = str(e.path)
        if path not in by_file:
            by_file[path] = known_stale(Path(path), cache_dir)
        reasons = by_file[path].get(e.id)
        if reasons:
            out[(path, e.id)] = reasons
    return out
