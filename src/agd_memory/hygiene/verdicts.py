"""The last verdicts of the code check, as the TOC and the prompt path read them.

A module of its own so that a prompt pays for one small import and one bounded,
verified cache read (`diskcache`), never for the check itself (`staleness.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .. import diskcache

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
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


def stale_of(memories: Iterable[Path], cache_dir: Path | None) -> dict[tuple[str, str], list[str]]:
    """{(memory file, id): reasons} by the last verdicts of each memory file (`known_stale`)."""
    if cache_dir is None:
        return {}
    out = {}
    for memory in dict.fromkeys(memories):
        for block_id, reasons in known_stale(Path(memory), cache_dir).items():
            out[(str(memory), block_id)] = reasons
    return out


def stale_among(
    entries: Iterable[Entry], cache_dir: Path | None
) -> dict[tuple[str, str], list[str]]:
    """`stale_of` the memory files `entries` come from."""
    return stale_of((e.path for e in entries if e.path is not None), cache_dir)
