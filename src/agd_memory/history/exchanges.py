"""A transcript to exchanges: what the user typed, what the assistant answered, its tool calls.

An exchange starts at a user's text and holds everything up to the next one. The
records go through the distiller's hygiene (`claude.transcript.record_turns`:
no injected memory, system reminders, hook output, meta, sidechain or compact
summary records) and tool results are left out. Each part is cut at `PART_CHARS`
with a marker, then the secret detector redacts the whole exchange.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import NamedTuple

from .. import secrets
from ..claude import transcript

PART_CHARS = 20_000
"""Characters of one user message or one answer kept (a 1 MB paste or reply is cut)."""
READ_LIMIT = transcript.READ_LIMIT
LABELS = {"user": "user", "assistant": "assistant", "tool": "tool"}


class Exchange(NamedTuple):
    session: str
    n: int
    """Position in the session, from 1."""
    at: str
    """UTC time of the user's message, `YYYY-MM-DDTHH:MM:SSZ` ('' when the record had none)."""
    text: str
    uuid: str = ""
    """The user record's uuid (a resumed session copies records with their uuids)."""


class Read(NamedTuple):
    session: str
    exchanges: list[Exchange]
    bad_lines: int


def clip(text: str, limit: int = PART_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... truncated: {len(text):,} characters, the first {limit:,} kept]"


def read(path: str | Path, *, limit: int = READ_LIMIT) -> Read:
    """The exchanges of one transcript (its first `limit` bytes). Raises OSError when it
    cannot be read or is not a regular file; malformed lines are counted and skipped."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        data = fh.read(limit)
    data = data[: data.rfind(b"\n") + 1] if len(data) == limit else data
    session = Path(path).stem
    bad = 0
    groups: list[tuple[str, str, list[transcript.Turn]]] = []
    for raw in data.splitlines():
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):
            bad += 1
            continue
        if not isinstance(record, dict):
            bad += 1
            continue
        if isinstance(record.get("sessionId"), str) and record["sessionId"]:
            session = record["sessionId"]
        turns = [t for t in transcript.record_turns(record, whole=True) if t.role != "result"]
        for turn in turns:
            if turn.role == "user" and not (groups and _only_user(groups[-1][2])):
                groups.append((_time(record.get("timestamp")), str(record.get("uuid") or ""), []))
            if groups:  # assistant text before any user text: no exchange to hold it
                groups[-1][2].append(turn)
    out = [
        Exchange(session, i, at, render(turns), uuid)
        for i, (at, uuid, turns) in enumerate(groups, 1)
    ]
    return Read(session, out, bad)


def _only_user(turns: list[transcript.Turn]) -> bool:
    return all(t.role == "user" for t in turns)


def render(turns: list[transcript.Turn]) -> str:
    lines = [f"{LABELS[t.role]}: {clip(t.text) if t.role != 'tool' else t.text}" for t in turns]
    return secrets.redact("\n".join(lines))


def _time(value: object) -> str:
    """`2026-12-05T06:01:02.123Z` -> `2026-12-05T06:01:02Z`; anything else -> ''."""
    if not isinstance(value, str) or len(value) < 19 or value[4] != "-" or value[10] != "T":
        return ""
    return value[:19] + "Z"
