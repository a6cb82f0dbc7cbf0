"""The derived search index of the history: token counts per exchange, verified per file.

`history/.index.json` keeps, for each session file, its size and mtime and the token
counts of its exchanges. A load re-reads only the files whose size or mtime changed
(or that are new) and drops the entries of files that are gone; the AGD files stay
the source of truth, so deleting the index only costs one rebuild. Written atomically,
never under the history lock (a lost race rebuilds the same data).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from agd.atomic import write_atomic

from ..settings import Settings
from . import files
from .exchanges import Exchange

NAME = ".index.json"
VERSION = 1
READ_LIMIT = 1024 * 1024 * 1024
"""Bytes of the index read at most (a larger one is rebuilt from the session files)."""


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
    from ..recall import engine

    analyzer = engine.analyzer_for([], settings)
    return analyzer.tokens(f"{e.text}\n{e.at[:10]}")


def _rows(path: Path, settings: Settings) -> list:
    rows = []
    for e in files.read_file(path):
        toks = doc_tokens(e, settings)
        rows.append([e.n, e.at, len(toks), dict(Counter(toks))])
    return rows


def load(folder: Path, settings: Settings) -> Index:
    """The index of every session file under `folder`, brought up to date (and saved when
    anything changed)."""
    from ..recall import engine

    sig = repr(engine.analyzer_for([], settings).signature)
    cached = _read(folder / NAME)
    known = (
        cached.get("files", {})
        if cached.get("version") == VERSION and cached.get("sig") == sig
        else {}
    )
    fresh: dict[str, list] = {}
    changed = False
    idx = Index(folder)
    for path in files.session_files(folder):
        rel = f"{path.parent.name}/{path.name}"
        try:
            st = path.stat()
        except OSError:
            continue
        entry = known.get(rel)
        if not (
            isinstance(entry, list)
            and len(entry) == 3
            and entry[:2] == [st.st_size, st.st_mtime_ns]
        ):
            entry = [st.st_size, st.st_mtime_ns, _rows(path, settings)]
            changed = True
        fresh[rel] = entry
        idx.add(path.stem, path, entry[2])
    if changed or set(fresh) != set(known):
        try:
            text = json.dumps(
                {"version": VERSION, "sig": sig, "files": fresh}, separators=(",", ":")
            )
            write_atomic(folder / NAME, text, mode=files.MODE)
        except OSError:
            pass  # a read-only folder: search still works, the next one rebuilds
    return idx


def _read(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read(READ_LIMIT))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}
