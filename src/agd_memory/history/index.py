"""The derived search index of the history: token counts per exchange, verified per file.

The one disk cache (`diskcache`: bounded, CRC-checked, atomic; in the history folder's
`.cache/`) holds, for each session file, its size and mtime and the token counts of its
exchanges. A load re-reads only the files whose size or mtime changed (or that are new)
and drops the files that are gone; the AGD files stay the source of truth, so a lost
or corrupt cache only costs a rebuild. A long-lived process (the MCP server, the
viewer) keeps the loaded index while no session file changed.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from .. import diskcache
from ..settings import Settings
from . import files
from .exchanges import Exchange

KIND = "history-index"
VERSION = 2


class Index:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.docs = 0
        self.total_len = 0
        self._post: dict[str, dict[tuple[str, int], int]] = {}
        self._len: dict[tuple[str, int], int] = {}
        self._at: dict[tuple[str, int], str] = {}
        self._path: dict[str, Path] = {}
        self._read: dict[str, dict[int, Exchange]] = {}

    def add(self, session: str, path: Path, rows: list) -> None:
        self._path[session] = path
        for n, at, length, counts in rows:
            key = (session, n)
            self.docs += 1
            self.total_len += length
            self._len[key] = length
            self._at[key] = at
            for tok, tf in counts.items():
                self._post.setdefault(tok, {})[key] = tf

    def postings(self, word: str) -> dict[tuple[str, int], int]:
        return self._post.get(word, {})

    def length(self, key: tuple[str, int]) -> int:
        return self._len.get(key, 0)

    def at(self, key: tuple[str, int]) -> str:
        return self._at.get(key, "")

    def exchange(self, session: str, n: int) -> Exchange | None:
        if session not in self._read:
            path = self._path.get(session)
            self._read[session] = {e.n: e for e in files.read_file(path)} if path else {}
        return self._read[session].get(n)


def doc_tokens(e: Exchange, settings: Settings) -> list[str]:
    """The index tokens of an exchange: its text and its date (`2026-12-05` also reads as
    `december`)."""
    from ..recall import engine

    analyzer = engine.analyzer_for([], settings)
    return analyzer.tokens(f"{e.text}\n{e.at[:10]}")


def _rows(path: Path, settings: Settings) -> list:
    rows = []
    for e in files.read_file(path):
        toks = doc_tokens(e, settings)
        rows.append([e.n, e.at, len(toks), dict(Counter(toks))])
    return rows


_LOADED: dict[str, tuple[tuple, Index]] = {}


def _stamps(folder: Path) -> tuple:
    out = []
    for path in files.session_files(folder):
        try:
            st = path.stat()
        except OSError:
            continue
        out.append((f"{path.parent.name}/{path.name}", str(path), st.st_size, st.st_mtime_ns))
    return tuple(out)


def load(folder: Path, settings: Settings) -> Index:
    """The index of every session file under `folder`, brought up to date (and saved when
    anything changed)."""
    from ..recall import engine

    sig = repr(engine.analyzer_for([], settings).signature)
    stamps = _stamps(folder)
    held = _LOADED.get(str(folder))
    if held is not None and held[0] == (sig, stamps):
        return held[1]
    cache = folder / ".cache"
    cached = diskcache.read(cache, KIND, "index", (VERSION, sig))
    known = cached if isinstance(cached, dict) else {}
    fresh: dict[str, list] = {}
    changed = False
    idx = Index(folder)
    for rel, where, size, mtime in stamps:
        path = Path(where)
        entry = known.get(rel)
        if not (isinstance(entry, list) and len(entry) == 3 and entry[:2] == [size, mtime]):
            entry = [size, mtime, _rows(path, settings)]
            changed = True
        fresh[rel] = entry
        idx.add(path.stem, path, entry[2])
    if changed or set(fresh) != set(known):
        diskcache.write(cache, KIND, "index", (VERSION, sig), fresh)
    _LOADED.clear()  # one project per process in practice: hold one index
    _LOADED[str(folder)] = ((sig, stamps), idx)
    return idx
