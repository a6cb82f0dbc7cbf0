"""The derived search index of the history: postings sharded by word, read per query word.

Kept in the one disk cache (`diskcache`: bounded, CRC-checked, atomic) in the history
folder's `.cache/`:
- the table: every exchange ever indexed (session, position, time, length), a `dead`
  mark for the ones whose file changed or went, and the size and mtime of each file
  it indexed;
- `SHARDS` shard files: for each word whose hash falls in the shard, the exchanges
  holding it (`array('I')` bytes) and its counts (`array('B')`, capped at 255), the
  shard zlib-compressed, as of the table's `base` generation;
- the delta: the same postings for the exchanges appended since (at most `DELTA_DOCS`).
A search reads the table, the delta and only the shards of its words. When the session
files differ from the table (a new or grown session, a forget, retention), the changed
files' exchanges are marked dead and their new text appended to the delta, so an update
after one session costs the session and the delta, not the whole history; when the delta
passes `DELTA_DOCS` it is merged, every shard rewritten once. When dead exchanges pass a quarter of the table, it is rebuilt from the
AGD files, which stay the source of truth: a lost or corrupt cache costs one rebuild.
A long-lived process (the MCP server) keeps what it read while no session file changed.
"""

from __future__ import annotations

import marshal
import zlib
from array import array
from collections import Counter
from pathlib import Path

from .. import diskcache
from ..settings import Settings
from . import files
from .exchanges import Exchange

KIND = "history-index"
VERSION = 5
SHARDS = 32
DELTA_DOCS = 2_000
"""Exchanges (about 100 sessions) kept in the delta before it is merged into the shards."""
DEAD_SHARE = 0.25


def shard_of(word: str) -> int:
    return zlib.crc32(word.encode("utf-8", "surrogatepass")) % SHARDS


def doc_tokens(e: Exchange, settings: Settings) -> list[str]:
    """The index tokens of an exchange: its text and its date (`2026-12-05` also reads as
    `december`)."""
    from ..recall import front

    analyzer = front.analyzer_for([], settings)
    return analyzer.tokens(f"{e.text}\n{e.at[:10]}")


class Index:
    """The table plus the shards read so far; `postings` reads a word's shard on first use."""

    def __init__(self, folder: Path, table: dict, key: tuple) -> None:
        self.folder = folder
        self.key = key
        self.gen = table["gen"]
        self.base = table["base"]
        self.keys: list[tuple[str, int]] = [(d[0], d[1]) for d in table["docs"]]
        self.uuids: list[str] = [d[4] for d in table["docs"]]
        self._at: list[str] = [d[2] for d in table["docs"]]
        self._len: list[int] = [d[3] for d in table["docs"]]
        self.dead: set[int] = set(table["dead"])
        self.paths: dict[str, str] = table["paths"]
        live = [i for i in range(len(self.keys)) if i not in self.dead]
        self.docs = len(live)
        self.total_len = sum(self._len[i] for i in live)
        self._shards: dict[int, dict] = {}
        self._delta: dict | None = None
        self._read: dict[str, dict[int, Exchange]] = {}

    def shard(self, i: int) -> dict:
        if i not in self._shards:
            self._shards[i] = _read_shard(self.folder / ".cache", self.key, i, self.base)
        return self._shards[i]

    def delta(self) -> dict:
        if self._delta is None:
            self._delta = _read_delta(self.folder / ".cache", self.key, self.gen)
        return self._delta

    def postings(self, word: str) -> dict[int, int]:
        ids, tfs = array("I"), array("B")
        for entry in (self.shard(shard_of(word)).get(word), self.delta().get(word)):
            if entry is not None:
                ids.frombytes(entry[0])
                tfs.frombytes(entry[1])
        if not ids:
            return {}
        dead, n = self.dead, len(self.keys)
        return {d: t for d, t in zip(ids, tfs, strict=False) if d < n and d not in dead}

    def length(self, doc: int) -> int:
        return self._len[doc]

    def at(self, doc: int) -> str:
        return self._at[doc]

    def exchange(self, doc: int) -> Exchange | None:
        session, n = self.keys[doc]
        if session not in self._read:
            path = self.paths.get(session)
            self._read[session] = {e.n: e for e in files.read_file(Path(path))} if path else {}
        return self._read[session].get(n)


def _read_delta(cache: Path, key: tuple, gen: int) -> dict:
    got = diskcache.read(cache, KIND, "delta", key)
    if not (isinstance(got, dict) and got.get("gen") == gen):
        raise Stale("the delta does not match the table")
    return _unpack(got["post"])


def _pack(shard: dict) -> bytes:
    """A shard on disk: marshal, then zlib at level 1 (posting arrays of close ids
    compress well; decompressing a shard costs a few ms)."""
    return zlib.compress(marshal.dumps(shard), 1)


def _unpack(data: object) -> dict:
    try:
        got = marshal.loads(zlib.decompress(data))  # type: ignore[arg-type]
    except (TypeError, ValueError, EOFError, zlib.error) as exc:
        raise Stale(f"shard does not read: {exc}") from None
    if not isinstance(got, dict):
        raise Stale("shard is not a mapping")
    return got


def known_uuids(folder: Path, settings: Settings) -> dict[str, str]:
    """uuid -> session of every exchange indexed: a resumed or forked session's transcript
    repeats earlier records with their uuids, and those exchanges are kept once."""
    idx = load(folder, settings)
    return {u: idx.keys[i][0] for i, u in enumerate(idx.uuids) if u and i not in idx.dead}


class Stale(Exception):
    """A shard was written by another generation than the table (a crash between writes)."""


_LOADED: dict[str, tuple[tuple, Index]] = {}


def _stamps(folder: Path) -> dict[str, tuple[str, int, int]]:
    out = {}
    for path in files.session_files(folder):
        try:
            st = path.stat()
        except OSError:
            continue
        out[f"{path.parent.name}/{path.name}"] = (str(path), st.st_size, st.st_mtime_ns)
    return out


def load(folder: Path, settings: Settings, *, rebuild: bool = False) -> Index:
    """The index of every session file under `folder`, brought up to date first."""
    from ..recall import front

    sig = repr(front.analyzer_for([], settings).signature)
    stamps = _stamps(folder)
    seen = {rel: [size, mtime] for rel, (_, size, mtime) in stamps.items()}
    held = _LOADED.get(str(folder))
    if not rebuild and held is not None and held[0] == (sig, seen):
        return held[1]
    key = (VERSION, sig)
    table = None if rebuild else diskcache.read(folder / ".cache", KIND, "table", key)
    if not (_valid(table) and table["files"] == seen):
        table = update(
            folder, settings, stamps, key, table if _valid(table) and not rebuild else None
        )
    idx = Index(folder, table, key)
    _LOADED.clear()  # one project per process in practice: hold one index
    _LOADED[str(folder)] = ((sig, seen), idx)
    return idx


def _valid(table: object) -> bool:
    return isinstance(table, dict) and all(
        k in table for k in ("gen", "base", "base_docs", "docs", "dead", "paths", "files")
    )


def update(folder: Path, settings: Settings, stamps: dict, key: tuple, old: dict | None) -> dict:
    """Bring the table to `stamps` (append what changed to the delta, mark what went) and
    return the new table; the delta is merged into the shards when it passes `DELTA_DOCS`,
    and everything is built from scratch when `old` is None or mostly dead."""
    cache = folder / ".cache"
    delta: dict | None = None
    if old is not None and len(old["dead"]) <= DEAD_SHARE * max(len(old["docs"]), 1):
        try:
            delta = _read_delta(cache, key, old["gen"])
        except Stale:
            delta = None
    if delta is None or old is None:
        old = {"gen": (old or {}).get("gen", 0), "base": -1, "base_docs": 0, "docs": [],
               "dead": [], "paths": {}, "files": {}}  # fmt: skip
        delta = {}
    docs, dead = list(old["docs"]), set(old["dead"])
    paths, seen = dict(old["paths"]), dict(old["files"])
    owner: dict[str, list[int]] = {}
    for i, d in enumerate(docs):
        owner.setdefault(d[0], []).append(i)
    added: dict[str, tuple[array, array]] = {}
    for rel in set(seen) - set(stamps):  # removed files
        dead.update(owner.get(Path(rel).stem, []))
        paths.pop(Path(rel).stem, None)
        del seen[rel]
    for rel, (where, size, mtime) in stamps.items():
        if seen.get(rel) == [size, mtime]:
            continue
        session = Path(rel).stem
        dead.update(owner.get(session, []))
        for e in files.read_file(Path(where)):
            toks = doc_tokens(e, settings)
            doc = len(docs)
            docs.append((session, e.n, e.at, len(toks), files.clean_uuid(e.uuid)))
            for tok, tf in Counter(toks).items():
                ids, tfs = added.setdefault(tok, (array("I"), array("B")))
                ids.append(doc)
                tfs.append(min(tf, 255))
        paths[session] = where
        seen[rel] = [size, mtime]
    gen = int(old["gen"]) + 1
    _merge(delta, added)
    base, base_docs = old["base"], old["base_docs"]
    if base < 0 or len(docs) - base_docs > DELTA_DOCS:
        shards = [{} for _ in range(SHARDS)] if base < 0 else None
        if shards is None:
            try:
                shards = [_read_shard(cache, key, i, base) for i in range(SHARDS)]
            except Stale:  # a shard lost: the whole index again
                return update(folder, settings, stamps, key, None)
        for tok, entry in delta.items():
            shard = shards[shard_of(tok)]
            prev = shard.get(tok)
            shard[tok] = (prev[0] + entry[0], prev[1] + entry[1]) if prev else entry
        for i, shard in enumerate(shards):
            diskcache.write(cache, KIND, f"shard-{i}", key, {"gen": gen, "post": _pack(shard)})
        base, base_docs, delta = gen, len(docs), {}
    diskcache.write(cache, KIND, "delta", key, {"gen": gen, "post": _pack(delta)})
    table = {"gen": gen, "base": base, "base_docs": base_docs, "docs": docs,
             "dead": sorted(dead), "paths": paths, "files": seen}  # fmt: skip
    diskcache.write(cache, KIND, "table", key, table)
    return table


def _read_shard(cache: Path, key: tuple, i: int, gen: int) -> dict:
    got = diskcache.read(cache, KIND, f"shard-{i}", key)
    if not (isinstance(got, dict) and got.get("gen") == gen):
        raise Stale(f"shard {i} does not match the table")
    return _unpack(got["post"])


def _merge(into: dict, added: dict[str, tuple[array, array]]) -> None:
    for tok, (ids, tfs) in added.items():
        prev = into.get(tok)
        new = (ids.tobytes(), tfs.tobytes())
        into[tok] = (prev[0] + new[0], prev[1] + new[1]) if prev else new
