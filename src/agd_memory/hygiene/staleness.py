"""Which entries' code citations are gone or changed a lot, and what changed.

A check reads each cited file once and judges every citation on it:

- a path or range whose file is gone: "src/billing/pdf.py: gone";
- a file or range of which fewer than half the sampled lines are left anywhere in the
  file: "src/billing/pdf.py:120-140: those lines changed" (lines that only moved, or a
  small edit, keep the entry fresh);
- a symbol no longer named in its file: "render_invoice(): no longer in src/billing/pdf.py".

The verdicts are cached per memory file in the disk cache (`kind="hygiene"`): a cited
file's verdicts are reused while its identity (size, times, inode: one stat) holds, so a
session start re-reads only the files that changed. The prompt hook never checks the
code: `known_stale` reads the last verdicts, believed only while the memory file is the
one they were computed for.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .. import diskcache

if TYPE_CHECKING:
    from ..store import coderefs as cit
    from ..store.entry import Entry
    from ..store.memoryfile import MemoryFile

from .verdicts import CACHE_KEY, CACHE_KIND, cache_name, known_stale, stale_among

SESSION_BUDGET_S = 0.3
"""How long a session start may spend reading changed cited files; the rest waits for the
next session start (a first check of a large memory is spread over a few sessions)."""

__all__ = ["Stale", "check", "check_all", "known_stale", "stale_among"]


class Stale(NamedTuple):
    """One stale entry: its layer, id, desc, file and what changed (one line each)."""

    layer: str
    id: str
    desc: str
    path: Path
    reasons: tuple[str, ...]


def judge(c: cit.Citation, lines: list[str] | None, exists: bool) -> str:
    """What changed about citation `c` ("" when it still holds)."""
    from ..store import coderefs as cit  # not at the top: the prompt path imports this module

    if not exists:
        return f"{c.symbol}(): {c.path} is gone" if c.symbol else f"{c.label}: gone"
    if lines is None:
        return ""  # unreadable or too big now: not judged
    if c.symbol:
        return "" if cit.has_word(lines, c.symbol) else f"{c.symbol}(): no longer in {c.path}"
    if not c.fingerprint:
        return ""
    kept, n = cit.sample_kept(c.fingerprint, lines)
    if kept * 2 >= n:
        return ""
    if c.start:
        return f"{c.label}: those lines changed"
    return f"{c.label}: changed a lot ({kept} of {n} sampled lines left)"


def _identity(path: str) -> tuple[int, int, int, int, int] | None:
    """A cited file's identity (`diskcache.file_key` without the real path: one stat,
    not one per folder of the path), or None when it is gone."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def check(mf: MemoryFile, root: Path, deadline: float | None = None) -> list[Stale]:
    """The stale entries of `mf` against the repository at `root`; writes the cache.

    Past `deadline` (`time.monotonic()`), changed files are no longer read: their
    citations count as fresh this time and are judged by the next check."""
    from ..store import coderefs as cit

    name = cache_name(mf.path)
    old = diskcache.read(mf.cache_dir, CACHE_KIND, name, CACHE_KEY)
    old_files: dict = {}
    root_s = str(root)
    memory_key = diskcache.file_key(mf.path)
    if isinstance(old, dict) and old.get("root") == root_s:
        old_files = old.get("files") or {}
        if (
            old.get("complete")
            and old.get("memory") == memory_key
            and all(_identity(os.path.join(root_s, p)) == v[0] for p, v in old_files.items())
        ):  # neither the memory nor any cited file changed: the last verdicts stand
            return [_stale(mf, i, r) for i, r in (old.get("stale") or {}).items()]
    entries: list[Entry] = [e for e in mf.entries() if e.is_memory and e.status != "superseded"]
    per_entry: list[tuple[Entry, list[cit.Citation]]] = []
    by_file: dict[str, list[cit.Citation]] = {}
    for e in entries:
        cs = cit.parse_record(e.attrs.get(cit.ATTR))
        if cs:
            per_entry.append((e, cs))
            for c in cs:
                by_file.setdefault(c.path, []).append(c)
    files: dict[str, tuple] = {}
    complete = True
    for path, cs in by_file.items():
        if not cit.within(root, path):  # a link in the checkout leading out: not read
            continue
        key = _identity(os.path.join(root_s, path))
        cached = old_files.get(path)
        verdicts: dict[str, str] = {}
        if cached and cached[0] == key:
            verdicts = dict(cached[1])
        todo = [c for c in cs if c.render() not in verdicts]
        if todo and key and deadline is not None and time.monotonic() > deadline:
            complete = False
            continue
        if todo:
            lines = cit.read_lines(root / path) if key else None
            for c in todo:
                verdicts[c.render()] = judge(c, lines, key is not None)
        files[path] = (key, verdicts)
    stale: list[Stale] = []
    for e, cs in per_entry:
        reasons = tuple(r for c in cs if c.path in files and (r := files[c.path][1][c.render()]))
        if reasons:
            stale.append(Stale(mf.layer, e.id, e.desc or "", mf.path, reasons))
    payload = {
        "root": str(root),
        "memory": memory_key,
        "complete": complete,
        "files": files,
        "stale": {s.id: list(s.reasons) for s in stale},
    }
    diskcache.write(mf.cache_dir, CACHE_KIND, name, CACHE_KEY, payload)
    return stale


def _stale(mf: MemoryFile, block_id: str, reasons: list[str]) -> Stale:
    entry = mf.entry(block_id)
    desc = entry.desc if entry is not None else None
    return Stale(mf.layer, block_id, desc or "", mf.path, tuple(reasons))


def check_all(
    files: Sequence[MemoryFile], root: Path | None, budget_s: float | None = None
) -> list[Stale]:
    """`check` over every file (nothing when there is no repository), reading changed
    cited files for at most `budget_s` seconds."""
    if root is None:
        return []
    deadline = None if budget_s is None else time.monotonic() + budget_s
    return [s for mf in files for s in check(mf, root, deadline)]


def session_check(files: Sequence[MemoryFile], cwd: str) -> None:
    """The session start's check of the project's repository; fails open (debug log)."""
    from .. import debuglog
    from ..paths import repo_root

    try:
        check_all(files, repo_root(Path(os.path.abspath(cwd or os.getcwd()))), SESSION_BUDGET_S)
    except Exception as exc:  # never fail the hook: the TOC goes out unmarked
        debuglog.log(f"hook session-start: code check failed: {type(exc).__name__}: {exc}")
