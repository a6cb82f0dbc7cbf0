"""The recall index: every block analysed once, kept per memory file, in memory and on disk.

A hook is a fresh process per prompt. Analysing 10,000 blocks (tokenize, stem, map
synonyms, cognate keys) takes seconds in Python, so each file's analysis is saved
next to the store's cache as a `marshal` blob keyed by the file's identity (path,
size, mtime, inode, ctime) and the analyzer (features, synonyms file). A prompt then
loads postings, reads only the blocks that share a word or a cognate key with it,
and asks the store for entries only when something is worth rendering.

Anything wrong with a cache file (missing, stale, foreign, truncated) means a rebuild;
writing it never fails recall.
"""

from __future__ import annotations

import heapq
import marshal
import math
import os
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from .analyzer import Analyzer

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
if TYPE_CHECKING:
    from ..store.entry import Entry

_HERE = Path(__file__).parent
_CODE_FILES = ("text.py", "cognates.py", "analyzer.py", "index.py", "lexicon/concepts.txt")
"""The files of the recall package that shape every analysis."""


def code_stamp() -> tuple:
    """Size and mtime of the modules that shape an analysis: editing one invalidates the
    analyses in the disk cache (part of their key)."""
    stamp = []
    for name in _CODE_FILES:
        try:
            st = os.stat(_HERE / name)
            stamp.append((st.st_size, st.st_mtime_ns))
        except OSError:
            stamp.append((0, 0))
    return tuple(stamp)


MAX_CANDIDATES = 200
"""Most blocks scored in full per prompt (see `Index.candidates`)."""
_NONE: frozenset[str] = frozenset()

# A record is one analysed block: plain values so `marshal` can store it.
# (id, kind, status, is_memory, id tokens, desc tokens, kind tokens, body counts,
#  body length in tokens, body length in characters, recency, the store's entry row
#  (`store.entry`, without layer and path), keys as token tuples)
# The entry row rebuilds the entry for rendering without reading the memory file.
Record = tuple
Postings = list[int] | array | bytes
"""A token's blocks: a list while building, bytes in the disk cache, an array once read."""


def is_superseded(entry: Entry) -> bool:
    return entry.status == "superseded"


def is_memory(entry: Entry) -> bool:
    """Memory entries are `x-*` blocks; headings, meta and paragraphs are not."""
    return entry.kind.startswith("x-")


def key_phrases(entry: Entry, analyzer: Analyzer) -> tuple[tuple[str, ...], ...]:
    """The `keys` attribute (`keys="a, b c"`: search terms written with the block), each
    key as its tokens."""
    value = entry.attrs.get("keys")
    if not isinstance(value, str):
        return ()
    phrases = (tuple(dict.fromkeys(analyzer.tokens(key))) for key in value.split(","))
    return tuple(dict.fromkeys(p for p in phrases if p))


def recency_key(updated: object) -> int:
    """The first 8 digits of `updated` as a number (20260131); undated or malformed gives 0."""
    if not isinstance(updated, str):
        return 0
    digits = "".join(ch for ch in updated if ch.isdigit())
    return int(digits[:8]) if len(digits) >= 8 else 0


def analyse(entry: Entry, analyzer: Analyzer) -> Record:
    from ..store.entry import ROW_WIDTH  # the store only on a cache miss: hooks read the cache

    kind = entry.kind or ""
    # the kind is a field of the reference score; "no-kind" drops it (`project`,
    # `feedback` in a prompt then stop lifting every block of that kind)
    kind_tokens = (
        () if analyzer.uses("no-kind") else tuple(analyzer.tokens(kind.replace("x-", " ")))
    )
    body_text = entry.body or ""
    body = analyzer.tokens(body_text)
    keys = key_phrases(entry, analyzer) if analyzer.uses("keys") else ()
    return (
        str(entry.id),
        kind,
        entry.status,
        kind.startswith("x-"),
        tuple(set(analyzer.tokens(str(entry.id).replace("-", " ")))),
        tuple(set(analyzer.tokens(entry.desc or ""))),
        tuple(set(kind_tokens)),
        dict(Counter(body)),
        len(body),
        len(body_text),
        recency_key(entry.updated),
        entry[:ROW_WIDTH],
        keys,
    )


class Part:
    """The analysed blocks of one memory file, with its postings and document frequencies.

    Loaded from disk, records and postings stay encoded (`marshal` bytes, `array`
    bytes) and are decoded one by one when a prompt touches them: a prompt reads a
    few postings and a few dozen blocks, not the whole file.
    """

    def __init__(
        self,
        records: list[Record | bytes],
        postings: dict[str, Postings],
        key_postings: dict[str, Postings],
        df: dict[str, int],
        n: int,
        stats: tuple,
        entries: list[Entry] | None,
    ) -> None:
        self.records = records
        self.postings = postings
        self.key_postings = key_postings
        self.df = df
        self.n = n
        (
            self.body_sum,
            self.desc_sum,
            self.anchor_vocab,
            self.successors,
            self.origin,
            self.key_vocab,
        ) = stats
        """successors: superseded id -> index of the record that supersedes it (in this file);
        origin: (layer, path) of the entries (one memory file); key_vocab: cognate key ->
        the tokens of this file that have it (so a prompt never computes a block's keys)."""
        self._entries = entries

    @classmethod
    def build(
        cls,
        entries: Sequence[Entry],
        analyzer: Analyzer,
        idf_over: Callable[[Entry], bool] | None,
    ) -> Part:
        records = [analyse(e, analyzer) for e in entries]
        postings: dict[str, list[int]] = {}
        key_postings: dict[str, list[int]] = {}
        df: Counter[str] = Counter()
        n = 0
        anchor: set[str] = set()
        key_of = analyzer.key_of
        key_vocab: dict[str, set[str]] = {}
        for i, (rec, entry) in enumerate(zip(records, entries, strict=True)):
            vocab = set(rec[4]).union(rec[5], rec[6], rec[7], *rec[12])
            for t in vocab:
                postings.setdefault(t, []).append(i)
            keys = set()
            for t in vocab:
                k = key_of(t)
                if k is not None:
                    keys.add(k)
                    key_vocab.setdefault(k, set()).add(t)
            for k in keys:
                key_postings.setdefault(k, []).append(i)
            if idf_over is None or idf_over(entry):
                df.update(vocab)
                n += 1
            if rec[3]:
                anchor.update(rec[4])
                anchor.update(rec[5])
        from ..store.entry import Entry

        supersedes = Entry._fields.index("supersedes")
        successors = {}
        for i, rec in enumerate(records):
            if rec[3] and rec[2] != "superseded":
                for old in rec[11][supersedes]:
                    successors.setdefault(str(old).lstrip("#"), i)
        stats = (
            sum(r[8] for r in records),
            sum(len(r[5]) for r in records),
            tuple(anchor),
            successors,
            (entries[0].layer, str(entries[0].path)) if entries else ("", ""),
            {k: tuple(sorted(ts)) for k, ts in key_vocab.items()},
        )
        return cls(records, postings, key_postings, dict(df), n, stats, list(entries))

    def payload(self) -> tuple:
        """The part as plain values for `marshal`, records and postings pre-encoded."""
        records = [r if isinstance(r, bytes) else marshal.dumps(r) for r in self.records]
        return (
            records,
            {t: _encode(v) for t, v in self.postings.items()},
            {k: _encode(v) for k, v in self.key_postings.items()},
            self.df,
            self.n,
            (
                self.body_sum,
                self.desc_sum,
                _encode_vocab(self.anchor_vocab),
                self.successors,
                self.origin,
                self.key_vocab,
            ),
        )

    @classmethod
    def from_payload(cls, payload: object) -> Part | None:
        """The part `payload()` gave, or None when `payload` does not have its shape."""
        if not (isinstance(payload, tuple) and len(payload) == 6):
            return None
        records, postings, key_postings, df, n, stats = payload
        if not (
            isinstance(records, list)
            and isinstance(postings, dict)
            and isinstance(key_postings, dict)
            and isinstance(df, dict)
            and isinstance(n, int)
            and isinstance(stats, tuple)
            and len(stats) == 6
        ):
            return None
        return cls(records, postings, key_postings, df, n, stats, None)

    def record(self, i: int) -> Record:
        rec = self.records[i]
        if isinstance(rec, bytes):
            rec = self.records[i] = marshal.loads(rec)
        return rec

    def posting(self, table: dict[str, Postings], token: str) -> Sequence[int]:
        value = table.get(token)
        if value is None:
            return ()
        if isinstance(value, bytes):
            value = table[token] = array("I", value)
        return value

    def entry(self, i: int) -> Entry:
        """The entry of record `i`: rebuilt from the record when loaded from the disk cache
        (no need to read the memory file), else the store's own entry."""
        if self._entries is not None:
            return self._entries[i]
        layer, path = self.origin
        from ..store.entry import Entry  # imported when a block is rendered, not to score

        return tuple.__new__(Entry, self.record(i)[11] + (layer, Path(path)))


def _encode_vocab(vocab: tuple | bytes) -> bytes:
    return vocab if isinstance(vocab, bytes) else marshal.dumps(vocab)


def _encode(ids: Sequence[int]) -> bytes:
    return ids.tobytes() if isinstance(ids, array) else array("I", ids).tobytes()


class Doc:
    """One block as scoring sees it: token sets and counts, its entry fetched on demand."""

    __slots__ = (
        "part",
        "i",
        "at",
        "id_set",
        "desc_set",
        "keys_set",
        "key_phrases",
        "kind_set",
        "body",
        "body_len",
        "body_chars",
        "recency",
        "kind",
        "status",
        "memory",
        "_keys",
        "_vocab",
        "_key_of",
    )

    def __init__(self, part: Part, i: int, key_of: Callable[[str], str | None], at: int) -> None:
        rec = part.record(i)
        self.part = part
        self.i = i
        self.at = at
        """Position in the index (all parts)."""
        self.kind = rec[1]
        self.status = rec[2]
        self.memory = rec[3]
        self.id_set = frozenset(rec[4])
        self.desc_set = frozenset(rec[5])
        self.key_phrases: tuple[tuple[str, ...], ...] = rec[12]
        self.keys_set = frozenset(t for k in rec[12] for t in k) if rec[12] else _NONE
        self.kind_set = frozenset(rec[6]) if rec[6] else _NONE
        self.body = rec[7]
        self.body_len = rec[8]
        self.body_chars = rec[9]
        self.recency = rec[10]
        self._keys: dict[str, str] | None = None
        self._vocab: frozenset[str] | None = None
        self._key_of = key_of

    @property
    def id(self) -> str:
        return self.part.record(self.i)[0]

    @property
    def entry(self) -> Entry:
        return self.part.entry(self.i)

    @property
    def keys(self) -> dict[str, str]:
        """Cognate key of every token of the block (computed for candidates only)."""
        if self._keys is None:
            key_of = self._key_of
            self._keys = {t: k for t in self.vocabulary() if (k := key_of(t)) is not None}
        return self._keys

    def tokens_with_key(self, key: str) -> list[str]:
        """The block's tokens whose cognate key is `key` (from the file's key vocabulary:
        no cognate key is computed while a prompt is scored)."""
        vocab = self._vocab
        if vocab is None:
            vocab = self._vocab = self.vocabulary()
        return [t for t in self.part.key_vocab.get(key, ()) if t in vocab]

    def vocabulary(self) -> frozenset[str]:
        return self.id_set | self.desc_set | self.kind_set | self.keys_set | self.body.keys()


class Index:
    """The parts of every loaded file, seen as one list of blocks (project first)."""

    def __init__(
        self,
        entries: Iterable[Entry] = (),
        analyzer: Analyzer | None = None,
        *,
        idf_over: Callable[[Entry], bool] | None = None,
        parts: Sequence[Part] | None = None,
    ) -> None:
        if analyzer is None:
            raise TypeError("Index needs an analyzer")
        self.analyzer = analyzer
        if parts is None:
            parts = [Part.build(list(entries), analyzer, idf_over)]
        self.parts = list(parts)
        self.offsets: list[int] = []
        total = 0
        for p in self.parts:
            self.offsets.append(total)
            total += len(p.records)
        self.size = total
        self.n = sum(p.n for p in self.parts)
        self._docs: dict[int, Doc] = {}
        self._weights: dict[str, float] = {}
        body = sum(p.body_sum for p in self.parts)
        desc = sum(p.desc_sum for p in self.parts)
        self.avg_body = body / total if total else 1.0
        self.avg_desc = desc / total if total else 1.0

    def doc(self, i: int) -> Doc:
        d = self._docs.get(i)
        if d is None:
            k = bisect_right(self.offsets, i) - 1
            d = self._docs[i] = Doc(self.parts[k], i - self.offsets[k], self.analyzer.key_of, i)
        return d

    @property
    def docs(self) -> list[Doc]:
        return [self.doc(i) for i in range(self.size)]

    def candidates(
        self, words: Iterable[str], keys: Iterable[str], limit: int = MAX_CANDIDATES
    ) -> list[int]:
        """Blocks sharing a word or a cognate key with the prompt, in file order.

        When more than `limit` blocks qualify, only the `limit` best by a cheap bound
        (the IDF of the prompt words each block contains, cognates at half) are
        returned: on a large memory a common word would otherwise make every prompt
        score thousands of blocks that cannot reach the top three.
        """
        acc: dict[int, float] = {}
        get = acc.get
        for p, off in zip(self.parts, self.offsets, strict=True):
            for t in words:
                w = self.weight(t)
                for i in p.posting(p.postings, t):
                    acc[off + i] = get(off + i, 0.0) + w
            for k in keys:
                for i in p.posting(p.key_postings, k):
                    acc[off + i] = get(off + i, 0.0) + 0.5
        if len(acc) > limit:
            best = heapq.nlargest(limit, acc.items(), key=lambda kv: (kv[1], -kv[0]))
            return sorted(i for i, _ in best)
        return sorted(acc)

    def successor(self, doc: Doc) -> Doc | None:
        """The block that supersedes `doc` in the same file, or None."""
        j = doc.part.successors.get(doc.id)
        return None if j is None else self.doc(doc.at - doc.i + j)

    def df_of(self, token: str) -> int:
        return sum(p.df.get(token, 0) for p in self.parts)

    @property
    def df(self) -> Counter[str]:
        merged: Counter[str] = Counter()
        for p in self.parts:
            merged.update(p.df)
        return merged

    @property
    def idf(self) -> dict[str, float]:
        return {t: self.weight(t) for t in self.df}

    def weight(self, token: str) -> float:
        """Reference IDF, ln((N+1)/(df+1)) + 1 (never below 1); 1.0 for a word no block has."""
        w = self._weights.get(token)
        if w is None:
            df = self.df_of(token)
            w = self._weights[token] = math.log((self.n + 1) / (df + 1)) + 1.0 if df else 1.0
        return w

    def surprise(self, token: str) -> float:
        """Weight for coverage: a word no block has is the most informative of all."""
        df = self.df_of(token)
        return math.log((self.n + 1) / (df + 1)) + 1.0

    def anchor_vocabulary(self) -> frozenset[str]:
        """Every id and desc token of the memory entries (for the short-prompt gate)."""
        vocab: set[str] = set()
        for p in self.parts:
            if isinstance(p.anchor_vocab, bytes):  # loaded from disk: decoded on first use
                p.anchor_vocab = marshal.loads(p.anchor_vocab)
            vocab.update(p.anchor_vocab)
        return frozenset(vocab)
