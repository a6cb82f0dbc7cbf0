"""When recall or `get` last used each entry, without writing the memory file.

Each use appends one line to `usage.log` in the data folder (`<seconds>\\t<memory
file>\\t<id> <id>...`): one small append, no lock, on the hot path. When the log grows
past `MAX_BYTES` it is compacted (rewritten atomically with one line per entry, its
latest use, and the time counting started), so it stays bounded by the number of
entries. A use appended while a compaction runs may be lost; that only makes an entry
look a little less used. `last_used` reads at most `MAX_BYTES` plus one compaction.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from agd.files import append

from .. import debuglog

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
if TYPE_CHECKING:
    from ..store.entry import Entry
    from ..store.memoryfile import MemoryFile

LOG_NAME = "usage.log"
MAX_BYTES = 512 * 1024
SINCE = "# since "


def log_path(data_dir: Path) -> Path:
    return data_dir / LOG_NAME


def record(data_dir: Path, memory: Path, ids: Iterable[str], now: float | None = None) -> None:
    """Count one use of `ids` of the memory file `memory`; never fails the caller."""
    ids = [i for i in ids if i and not any(c.isspace() for c in i)]
    if not ids or "\t" in str(memory) or "\n" in str(memory):
        return
    stamp = int(time.time() if now is None else now)
    line = f"{stamp}\t{memory}\t{' '.join(ids)}\n"
    path = log_path(data_dir)
    try:
        if append(path, line.encode("utf-8", "surrogatepass")) > MAX_BYTES:
            compact(data_dir)
    except OSError as exc:
        debuglog.log(f"usage log {path}: {exc}")


def record_entries(data_dir: Path, entries: Iterable[Entry]) -> None:
    """`record` for entries, one line per memory file they come from."""
    by_file: dict[Path, list[str]] = {}
    for e in entries:
        if e.path is not None:
            by_file.setdefault(e.path, []).append(e.id)
    for memory, ids in by_file.items():
        record(data_dir, memory, ids)


def record_got(files: Sequence[MemoryFile], entries: Iterable[Entry], ids: Iterable[str]) -> None:
    """A `get` of `ids` is a use of each requested entry it found, in every layer holding
    it (not of the entries it added by following refs): `agd-memory stale` reads them."""
    from agd.refs import parse_ids

    wanted = set(parse_ids(list(ids)))
    found = [e for e in entries if e.id in wanted]
    if files and found:
        record_entries(files[0].settings.data_dir, found)


def _read(path: Path) -> tuple[float | None, dict[tuple[str, str], int]]:
    from agd.errors import AgdError
    from agd.files import read_text

    try:
        text = read_text(path, 2 * MAX_BYTES)
    except (AgdError, OSError, ValueError):
        return None, {}
    since: float | None = None
    last: dict[tuple[str, str], int] = {}
    for line in text.splitlines():
        if line.startswith(SINCE):
            try:  # noqa: SIM105 (no contextlib: 0.6 ms of every hook's start)
                since = float(line[len(SINCE) :])
            except ValueError:
                pass
            continue
        parts = line.split("\t")
        if len(parts) != 3 or not parts[0].isdigit():
            continue  # a torn or foreign line
        stamp = int(parts[0])
        if since is None:
            since = stamp
        for i in parts[2].split():
            key = (parts[1], i)
            if last.get(key, -1) < stamp:
                last[key] = stamp
    return since, last


def last_used(data_dir: Path) -> tuple[float | None, dict[tuple[str, str], int]]:
    """(when counting started, {(memory file, id): last use in seconds}); (None, {}) when
    nothing was ever counted."""
    return _read(log_path(data_dir))


def compact(data_dir: Path) -> None:
    path = log_path(data_dir)
    since, last = _read(path)
    lines = [f"{SINCE}{int(since or time.time())}"]
    lines += [f"{t}\t{m}\t{i}" for (m, i), t in sorted(last.items())]
    from agd.atomic import write_atomic
    from agd.errors import AgdError

    try:
        write_atomic(path, "\n".join(lines) + "\n")
    except (AgdError, OSError) as exc:
        debuglog.log(f"usage log {path}: compaction failed: {exc}")


def unused(
    entries: Iterable[tuple[Path, str, str | None]],
    data_dir: Path,
    days: float,
    now: float | None = None,
) -> list[tuple[Path, str, int | None]]:
    """Of `(memory file, id, date written)`, those not used for `days`: (file, id, last
    use or None). Nothing is reported before usage has been counted for `days`, and an
    entry written less than `days` ago is not reported either."""
    now = time.time() if now is None else now
    since, last = last_used(data_dir)
    horizon = now - days * 86400
    if since is None or since > horizon:
        return []
    out = []
    for memory, block_id, written in entries:
        if written and _date_seconds(written) > horizon:
            continue
        t = last.get((str(memory), block_id))
        if t is None or t < horizon:
            out.append((memory, block_id, t))
    return out


def _date_seconds(date: str) -> float:
    import datetime as dt

    try:
        day = dt.date.fromisoformat(date[:10])
    except ValueError:
        return 0.0
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc).timestamp()
