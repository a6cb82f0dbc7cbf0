"""The history on disk (`layout` says where): one AGD file per session, in one folder per month.

`<memory folder>/history/<YYYY-MM>/<session>.agd` holds one `@x-exchange` block per
exchange, its text fenced (so fences and `@` lines round-trip), its attributes the
session, the time and the position. One file per session makes an append one atomic
rewrite of a small file, a forget one unlink, and retention a walk of the oldest
months. Every write holds `history/.lock` and goes through `agd.atomic`; files are
private (0600).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import re
from pathlib import Path
from typing import NamedTuple

from agd.atomic import write_atomic
from agd.errors import AgdError
from agd.lock import exclusive
from agd.model import FENCED, Block, Document
from agd.parser import parse
from agd.serializer import serialize

from .exchanges import Exchange, Read
from .layout import MONTH, folder_of

__all__ = ["folder_of"]  # re-exported: callers find the folder where they find the files

KIND = "x-exchange"
FILE_LIMIT = 64 * 1024 * 1024
"""Bytes of one session file read at most."""
MODE = 0o600
SAFE = re.compile(r"[^A-Za-z0-9_-]")


class Session(NamedTuple):
    session: str
    path: Path
    first: str
    """Time of the first exchange ('' when unknown)."""
    last: str
    exchanges: int
    size: int


def safe_session(session: str) -> str:
    """A session id usable as a file name and block id (a Claude Code id is a UUID)."""
    clean = SAFE.sub("", session)[:80]
    if clean and clean == session:
        return clean
    return (clean[:40] + "-" if clean else "") + hashlib.sha1(session.encode()).hexdigest()[:12]


def block_id(session: str, n: int) -> str:
    """`h-<session>-<n>`: an AGD id starts with a letter, a session id (a UUID) may not."""
    return f"h-{safe_session(session)}-{n}"


def split_id(block: str) -> tuple[str, int] | None:
    head, sep, tail = block.lstrip("#").removeprefix("h-").rpartition("-")
    return (head, int(tail)) if sep and head and tail.isdigit() else None


def normal(text: str) -> str:
    """The text as a file keeps it: line ends are LF (the format reads CR as one)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def clean_uuid(uuid: str) -> str:
    return SAFE.sub("", uuid)[:80] if uuid else ""


def to_block(e: Exchange) -> Block:
    attrs: dict = {"session": safe_session(e.session), "n": e.n}
    if e.at:
        attrs["at"] = e.at
    if clean_uuid(e.uuid):
        attrs["uuid"] = clean_uuid(e.uuid)
    return Block(KIND, FENCED, e.text, attrs, block_id(e.session, e.n))


def from_block(b: Block) -> Exchange | None:
    if b.kind != KIND or b.content_type != FENCED or not isinstance(b.attrs.get("n"), int):
        return None
    at = b.attrs.get("at")
    uuid = b.attrs.get("uuid")
    return Exchange(
        str(b.attrs.get("session") or ""),
        b.attrs["n"],
        at if isinstance(at, str) else "",
        str(b.value or ""),
        uuid if isinstance(uuid, str) else "",
    )


def read_file(path: Path) -> list[Exchange]:
    """The exchanges of one session file, in order (bounded read; a broken file reads as [])."""
    try:
        with open(path, "rb") as fh:
            text = fh.read(FILE_LIMIT).decode("utf-8", "replace")
        blocks = parse(text).blocks
    except (OSError, ValueError, AgdError):
        return []
    found = [e for e in map(from_block, blocks) if e is not None]
    return sorted(found, key=lambda e: e.n)


def session_files(folder: Path) -> list[Path]:
    """Every session file, oldest month first."""
    out: list[Path] = []
    try:
        months = sorted(p for p in folder.iterdir() if MONTH.match(p.name) and p.is_dir())
    except OSError:
        return []
    for month in months:
        try:
            out.extend(sorted(p for p in month.iterdir() if p.suffix == ".agd" and p.is_file()))
        except OSError:
            continue
    return out


def find_session(folder: Path, session: str) -> Path | None:
    name = safe_session(session) + ".agd"
    for month in sorted(folder.glob("[0-9][0-9][0-9][0-9]-[0-9][0-9]"), reverse=True):
        if (month / name).is_file():
            return month / name
    return None


def neighbours(folder: Path, block: str, context: int) -> list[Exchange]:
    """The exchange `block` (`<session>-<n>`) and up to `context` exchanges either side,
    in order; [] when there is no such exchange."""
    parts = split_id(block)
    path = find_session(folder, parts[0]) if parts else None
    if parts is None or path is None:
        return []
    n = parts[1]
    found = [e for e in read_file(path) if abs(e.n - n) <= max(context, 0)]
    return found if any(e.n == n for e in found) else []


def write(folder: Path, read: Read, *, today: dt.date | None = None) -> int:
    """Add what `read` holds that the session's file does not: the number of exchanges
    added or changed (0: nothing written, e.g. a session ended twice or with no exchange)."""
    if not read.exchanges:
        return 0
    with exclusive(folder / ".lock"):
        path = find_session(folder, read.session)
        old = {e.n: e for e in read_file(path)} if path else {}
        merged = dict(old)
        merged.update({e.n: e._replace(text=normal(e.text)) for e in read.exchanges})
        changed = sum(1 for n, e in merged.items() if old.get(n) != e)
        if not changed:
            return 0
        if path is None:
            first = read.exchanges[0].at
            month = (
                first[:7] if MONTH.match(first[:7]) else (today or dt.date.today()).isoformat()[:7]
            )
            path = folder / month / (safe_session(read.session) + ".agd")
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        doc = Document([to_block(merged[n]) for n in sorted(merged)])
        write_atomic(path, serialize(doc), mode=MODE)
        last = max((e.at for e in merged.values() if e.at), default="")
        if last:  # the file's mtime is its last exchange: retention reads stat only
            stamp = dt.datetime.fromisoformat(last.replace("Z", "+00:00")).timestamp()
            os.utime(path, (stamp, stamp))
        return changed


def sessions(folder: Path) -> list[Session]:
    out = []
    for path in session_files(folder):
        ex = read_file(path)
        times = [e.at for e in ex if e.at]
        try:
            size = path.stat().st_size
        except OSError:
            continue
        out.append(
            Session(path.stem, path, min(times, default=""), max(times, default=""), len(ex), size)
        )
    return out


def stats(folder: Path) -> list[Session]:
    """Every session from `stat` alone (no parse): its last time is the file's mtime."""
    out = []
    for path in session_files(folder):
        try:
            st = path.stat()
        except OSError:
            continue
        when = dt.datetime.fromtimestamp(st.st_mtime, dt.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ"
        )
        out.append(Session(path.stem, path, when, when, 0, st.st_size))
    return out


def broken(folder: Path) -> list[Path]:
    """Session files that do not parse as AGD or hold no exchange block (doctor's check)."""
    bad = []
    for path in session_files(folder):
        try:
            with open(path, "rb") as fh:
                blocks = parse(fh.read(FILE_LIMIT).decode("utf-8")).blocks
        except (OSError, ValueError, AgdError):
            bad.append(path)
            continue
        if not any(from_block(b) for b in blocks):
            bad.append(path)
    return bad


def forget(folder: Path, ids: list[str] | None = None, *, before: str | None = None) -> list[str]:
    """Remove sessions (all when `ids` and `before` are None): each one file unlinked
    under the history lock. Returns the sessions removed."""
    removed: list[str] = []
    with exclusive(folder / ".lock"):
        for s in stats(folder):
            if ids is not None and s.session not in {safe_session(i) for i in ids}:
                continue
            if before is not None and not (s.last or s.first) < before:
                continue
            try:
                os.unlink(s.path)
            except FileNotFoundError:
                continue
            removed.append(s.session)
            _drop_empty(s.path.parent)
    return removed


def retain(
    folder: Path, *, max_days: float, max_bytes: int, today: dt.date | None = None
) -> list[str]:
    """Drop sessions older than `max_days` (by their last exchange), then the oldest until
    the total is at most `max_bytes` (0 turns a bound off). Returns the sessions dropped."""
    all_ = stats(folder)
    drop: list[Session] = []
    if max_days > 0:
        cut = ((today or dt.date.today()) - dt.timedelta(days=max_days)).isoformat()
        drop = [s for s in all_ if (s.last or s.first) and (s.last or s.first) < cut]
    left = sorted((s for s in all_ if s not in drop), key=lambda s: (s.last or s.first, s.session))
    total = sum(s.size for s in left)
    while max_bytes > 0 and total > max_bytes and left:
        s = left.pop(0)
        drop.append(s)
        total -= s.size
    if not drop:
        return []
    return forget(folder, [s.session for s in drop])


def _drop_empty(month: Path) -> None:
    with contextlib.suppress(OSError):
        month.rmdir()
