"""Writing the history: one transcript at session end, or many on import."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from pathlib import Path

from ..settings import Settings
from . import exchanges, files


def ingest(
    settings: Settings,
    transcript: str | Path,
    memory: Path,
    *,
    keep: bool = True,
    known: dict[str, str] | None = None,
) -> tuple[int, int]:
    """Add one transcript's exchanges to the history beside `memory`, then apply retention.
    Returns (exchanges added or changed, malformed lines skipped). Raises OSError when
    the transcript cannot be read."""
    read = exchanges.read(transcript)
    folder = files.folder_of(memory)
    if known is None:
        from . import index

        known = index.known_uuids(folder, settings) if read.exchanges else {}
    mine = files.safe_session(read.session)
    kept = [
        e
        for e in read.exchanges
        if known.get(files.clean_uuid(e.uuid), mine) == mine  # not already another session's
    ]
    read = read._replace(exchanges=kept)
    for e in kept:
        if files.clean_uuid(e.uuid):
            known[files.clean_uuid(e.uuid)] = mine
    added = files.write(folder, read, today=_today(settings))
    if added and keep:
        retain(settings, folder)
        refresh(settings, folder)
    return added, read.bad_lines


def refresh(settings: Settings, folder: Path) -> None:
    """Bring the search index up to date now (the worker and import pay it, not a search)."""
    from . import index

    index.load(folder, settings)


def retain(settings: Settings, folder: Path) -> list[str]:
    return files.retain(
        folder,
        max_days=settings.history_max_days,
        max_bytes=int(settings.history_max_mb * 1024 * 1024),
        today=_today(settings),
    )


def transcripts(targets: Iterable[Path]) -> list[Path]:
    """The `.jsonl` files named, or found (not recursively into subagent folders) in folders."""
    out: list[Path] = []
    for t in targets:
        if t.is_dir():
            out.extend(sorted(p for p in t.glob("*.jsonl") if p.is_file()))
        else:
            out.append(t)
    return out


def import_all(
    settings: Settings,
    targets: Iterable[Path],
    memory: Path,
    *,
    say: Callable[[str], None],
    progress: Callable[[int, int], None] | None = None,
) -> tuple[int, int, int]:
    """Import every transcript: (sessions changed, exchanges added, files skipped)."""
    from . import index

    found = transcripts(targets)
    known = index.known_uuids(files.folder_of(memory), settings) if found else {}
    sessions = added = skipped = 0
    for i, path in enumerate(found, 1):
        try:
            n, bad = ingest(settings, path, memory, keep=False, known=known)
        except OSError as exc:
            say(f"skipped {path}: {exc.strerror or exc}")
            skipped += 1
            continue
        if bad:
            say(f"{path}: {bad} malformed line(s) skipped")
        sessions += bool(n)
        added += n
        if progress is not None:
            progress(i, len(found))
    if added:
        retain(settings, files.folder_of(memory))
        refresh(settings, files.folder_of(memory))
    return sessions, added, skipped


def _today(settings: Settings) -> dt.date:
    if settings.today:
        try:
            return dt.date.fromisoformat(settings.today)
        except ValueError:
            pass
    return dt.date.today()
