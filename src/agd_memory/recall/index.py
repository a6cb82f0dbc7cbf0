"""The recall index: every block analysed once, kept per memory file, in memory and on disk.

A hook is a fresh process per prompt. Analysing 10,000 blocks (tokenize, stem, map
synonyms, cognate keys) takes seconds in Python, so each file's analysis is saved in
the disk cache as a table (`diskcache.write_table`) keyed by the file's identity (path,
size, mtime, inode, ctime), the analyzer (its synonyms file; an evaluation variant's
steps) and the code that shapes an analysis. A prompt reads, piece by piece and each piece
verified, the postings of its own words and cognate keys and the records of the blocks it
scores; the entries it injects are rebuilt from their rows (an array of their own, read only
for those blocks), without reading the memory file.
Its cost follows the prompt, not the memory (issue 26).

Anything wrong with a cache file (missing, stale, foreign, truncated) means a rebuild;
a damaged piece found while scoring (`diskcache.Corrupt`) drops the file and recall
rebuilds it (`front.rebuilding_on_corruption`); writing it never fails recall.
"""

from __future__ import annotations

import heapq
import math
import os
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from .. import diskcache
from .analyzer import Analyzer

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
if TYPE_CHECKING:
    from ..store.entry import Entry

_HERE = Path(__file__).parent
_CODE_FILES = (
    "text.py", "cognates.py", "analyzer.py", "index.py", "lexicon/__init__.py", "lexicon/concepts.txt"
)  # fmt: skip
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
POSTINGS_READ = 1000
"""Most blocks a prompt word (or cognate key) proposes as candidates: its postings are kept
in order of impact (id, desc and keys before the body, then more occurrences, then newer),
and only their head is stored on disk and read. A word in more blocks than this is common
enough that the blocks it reaches beyond its best thousand cannot make the top three on
its account, and the prompt's cost stops growing with the memory (issue 26)."""
_NONE: frozenset[str] = frozenset()

# A record is one analysed block: plain values so `marshal` can store it.
# (id, kind, status, is_memory, id, desc and kind tokens (frozensets), body counts,
#  body length in tokens, body length in characters, recency, the store's entry row
#  (`store.entry`, without layer and path), keys as token tuples)
# The entry row rebuilds the entry for rendering without reading the memory file.
Record = tuple
ROW = 11
"""Where a record holds its entry's fields (`Entry[:ROW_WIDTH]`); on disk they are a
separate array, read only for the blocks rendered."""


def is_superseded(entry: Entry) -> bool:
    return entry.status == "superseded"


def is_memory(entry: Entry) -> bool:
    """Memory entries are `x-*` blocks; headings, meta and paragraphs are not."""
    return entry.kind.startswith("x-")


def recency_key(updated: object) -> int:
    """The first 8 digits of `updated` as a number (20260131); undated or malformed gives 0."""
    if not isinstance(updated, str):
        return 0
    digits = "".join(ch for ch in updated if ch.isdigit())
    return int(digits[:8]) if len(digits) >= 8 else 0


def analyse(entry: Entry, analyzer: Analyzer) -> Record:
    from ..store.entry import ROW_WIDTH  # the store only on a cache miss: hooks read the cache

    kind = entry.kind or ""
    kind_tokens = analyzer.kind_tokens(kind)
    body_text = entry.body or ""
    body = analyzer.tokens(body_text)
    keys = analyzer.key_phrases(entry)
    return (
        str(entry.id),
        kind,
        entry.status,
        kind.startswith("x-"),
        frozenset(analyzer.tokens(str(entry.id).replace("-", " "))),
        frozenset(analyzer.tokens(entry.desc or "")),
        frozenset(kind_tokens),
        dict(Counter(body)),
        len(body),
        len(body_text),
        recency_key(entry.updated),
        entry[:ROW_WIDTH],
        keys,
    )


class Part:
    """The analysed blocks of one memory file: its records, the postings and document
    frequency of each word, the blocks and words of each cognate key.

    Built from entries, everything is in memory. Loaded from the disk cache (`load`),
    the part reads through a `diskcache.Table`: a word's postings, a cognate key's
    blocks and a block's record are read and verified when a prompt first asks for
    them, so a prompt reads what its words reach, not the whole file.
    """

    __slots__ = (
        "size", "n", "body_sum", "desc_sum", "origin", "_terms", "_keys", "_records",
        "_successors", "_table", "_entries", "_rows", "_others",
    )  # fmt: skip

    def __init__(
        self,
        header: tuple,
        *,
        terms: dict[str, tuple] | None = None,
        keys: dict[str, tuple] | None = None,
        records: list[Record] | None = None,
        successors: dict[str, int] | None = None,
        table: diskcache.Table | None = None,
        entries: list[Entry] | None = None,
    ) -> None:
        self.size, self.n, self.body_sum, self.desc_sum, self.origin = header
        """size: blocks; n: blocks IDF counts; sums of body and desc lengths; origin:
        (layer, path) of the entries (one memory file)."""
        self._terms: dict[str, tuple | None] = {} if terms is None else terms
        """word -> (df, anchor: an id or desc word of a memory entry, postings)."""
        self._keys: dict[str, tuple | None] = {} if keys is None else keys
        """cognate key -> (postings, the words of this file that have it)."""
        self._records: dict[int, Record] = {} if records is None else dict(enumerate(records))
        self._successors = successors
        """superseded id -> index of the record that supersedes it (in this file)."""
        self._table = table
        self._entries = entries
        self._rows: dict[int, tuple] = {}
        self._others: dict[tuple[str, str], tuple[str, ...]] = {}
        """Entry rows read so far (the blocks rendered)."""

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
                for old in rec[ROW][supersedes]:
                    successors.setdefault(str(old).lstrip("#"), i)
        header = (
            len(records),
            n,
            sum(r[8] for r in records),
            sum(len(r[5]) for r in records),
            (entries[0].layer, str(entries[0].path)) if entries else ("", ""),
        )
        terms = {
            t: (df.get(t, 0), t in anchor, array("I", by_impact(t, ids, records)))
            for t, ids in postings.items()
        }
        keys_of = {
            k: (array("I", by_recency(ids, records)), frozenset(key_vocab[k]))
            for k, ids in key_postings.items()
        }
        return cls(
            header,
            terms=terms,
            keys=keys_of,
            records=records,
            successors=successors,
            entries=list(entries),
        )

    def save(self, cache_dir: Path | None, name: object, key: object) -> None:
        """Write this (built) part as a table in the disk cache (and remove the whole-file
        analysis an earlier version kept for the same file, which nothing reads now)."""
        if cache_dir is not None:
            diskcache.remove(diskcache.cache_path(cache_dir, "recall", name))
        diskcache.write_table(
            cache_dir,
            TABLE_KIND,
            name,
            key,
            (self.size, self.n, self.body_sum, self.desc_sum, self.origin),
            {
                "terms": {
                    t: (df, a, ids[:POSTINGS_READ].tobytes())
                    for t, (df, a, ids) in self._terms.items()  # type: ignore[misc]
                },
                "keys": {
                    k: (ids[:POSTINGS_READ].tobytes(), tuple(sorted(ts)))
                    for k, (ids, ts) in self._keys.items()  # type: ignore[misc]
                },
                "successors": dict(self._successors or {}),
            },
            {
                # a record without its entry (index ROW), which only the few blocks
                # rendered need: a prompt decodes 200 records, not 200 bodies
                "records": [_without_row(self._records[i]) for i in range(self.size)],
                "entries": [self._records[i][ROW] for i in range(self.size)],
            },
        )

    @classmethod
    def load(cls, cache_dir: Path | None, name: object, key: object) -> Part | None:
        """The part saved for `key`, reading through its table; None when there is none."""
        table = diskcache.read_table(cache_dir, TABLE_KIND, name, key)
        if table is None:
            return None
        header = table.header
        if not (isinstance(header, tuple) and len(header) == 5):
            return None
        return cls(header, table=table)

    def _term(self, token: str) -> tuple | None:
        return self._lookup(self._terms, "terms", token, _decode_term)

    def _key(self, key: str) -> tuple | None:
        return self._lookup(self._keys, "keys", key, _decode_key)

    def _lookup(self, memo: dict, table_map: str, key: str, decode) -> tuple | None:
        """`memo[key]`, read from the table's map `table_map` on first use (None: absent)."""
        try:
            return memo[key]
        except KeyError:
            pass
        raw = self._table.get(table_map, key) if self._table is not None else None
        value = memo[key] = None if raw is None else decode(raw)
        return value

    def posting(self, token: str) -> Sequence[int]:
        """The blocks holding the word `token` (in id, desc, keys, kind or body), by impact:
        all of them when built, the first POSTINGS_READ when loaded from disk."""
        term = self._term(token)
        return () if term is None else term[2]

    def key_posting(self, key: str) -> Sequence[int]:
        """The blocks holding a word whose cognate key is `key`."""
        value = self._key(key)
        return () if value is None else value[0]

    def df_of(self, token: str) -> int:
        term = self._term(token)
        return 0 if term is None else term[0]

    def is_anchor(self, token: str) -> bool:
        """`token` is an id or desc word of one of this file's memory entries."""
        term = self._term(token)
        return term is not None and term[1]

    def key_tokens(self, key: str) -> frozenset[str]:
        """The words of this file whose cognate key is `key`."""
        value = self._key(key)
        return _NONE if value is None else value[1]

    def cognates_of(self, key: str, word: str) -> tuple[str, ...]:
        """The words of this file with the cognate key `key`, other than `word` (asked for
        each block a prompt scores: worked out once per prompt word)."""
        found = self._others.get((key, word))
        if found is None:
            found = self._others[key, word] = tuple(sorted(self.key_tokens(key) - {word}))
        return found

    def successor(self, block_id: str) -> int | None:
        if self._successors is None:
            table = self._table
            found = table.get("successors", block_id) if table is not None else None
            return found if isinstance(found, int) else None
        return self._successors.get(block_id)

    def record(self, i: int) -> Record:
        rec = self._records.get(i)
        if rec is None:
            if self._table is None:
                raise IndexError(i)
            rec = self._records[i] = self._table.item("records", i)  # type: ignore[assignment]
        return rec

    def document_frequencies(self) -> dict[str, int]:
        """Every word's document frequency (reads the whole part: tests and tools)."""
        if self._table is not None:
            return {t: v[0] for t, v in self._table.items("terms")}  # type: ignore[misc]
        return {t: v[0] for t, v in self._terms.items() if v is not None}

    def entry(self, i: int) -> Entry:
        """The entry of record `i`: rebuilt from the record when loaded from the disk cache
        (no need to read the memory file), else the store's own entry."""
        if self._entries is not None:
            return self._entries[i]
        layer, path = self.origin
        from ..store.entry import Entry  # imported when a block is rendered, not to score

        row = self._rows.get(i)
        if row is None:
            table = self._table
            row = table.item("entries", i) if table is not None else self.record(i)[ROW]
            self._rows[i] = row
        return tuple.__new__(Entry, row + (layer, Path(path)))  # type: ignore[operator]


def _without_row(rec: Record) -> Record:
    return rec[:ROW] + (None,) + rec[ROW + 1 :]


def _decode_term(raw: tuple) -> tuple:
    df, anchor, ids = raw
    return df, anchor, array("I", ids)


def _decode_key(raw: tuple) -> tuple:
    ids, tokens = raw
    return array("I", ids), frozenset(tokens)


def by_impact(token: str, ids: list[int], records: list[Record]) -> list[int]:
    """`ids` (blocks holding `token`) in order of impact: the word in the id, desc and keys
    first, then more body occurrences, then the newer block, then file order."""
    if len(ids) <= POSTINGS_READ:
        return ids

    def impact(i: int) -> tuple:
        rec = records[i]
        weight = 3 * (token in rec[4]) + 3 * (token in rec[5])
        weight += 2 * any(token in k for k in rec[12]) + rec[7].get(token, 0)
        return (-weight, -rec[10], i)

    return sorted(ids, key=impact)


def by_recency(ids: list[int], records: list[Record]) -> list[int]:
    """`ids` newest block first (a cognate key's blocks), when they are more than are read."""
    if len(ids) <= POSTINGS_READ:
        return ids
    return sorted(ids, key=lambda i: (-records[i][10], i))


TABLE_KIND = "recall-index"
"""The disk cache's kind for recall's per-file tables."""


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
        "_key_of",
        "_entry",
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
        self._key_of = key_of
        self._entry: Entry | None = None

    @property
    def id(self) -> str:
        return self.part.record(self.i)[0]

    @property
    def entry(self) -> Entry:
        entry = self._entry
        if entry is None:
            entry = self._entry = self.part.entry(self.i)
        return entry

    @property
    def keys(self) -> dict[str, str]:
        """Cognate key of every token of the block (computed for candidates only)."""
        if self._keys is None:
            key_of = self._key_of
            self._keys = {t: k for t in self.vocabulary() if (k := key_of(t)) is not None}
        return self._keys

    def tokens_with_key(self, key: str) -> frozenset[str]:
        """The block's tokens whose cognate key is `key` (from the file's key vocabulary:
        no cognate key is computed while a prompt is scored)."""
        tokens = self.part.key_tokens(key)  # a handful: test each, build no vocabulary
        return frozenset(t for t in tokens if t in self.body or self.has_in_fields(t))

    def has_in_fields(self, token: str) -> bool:
        """`token` is in the id, desc, kind or keys (anywhere but the body)."""
        return (
            token in self.id_set
            or token in self.desc_set
            or token in self.kind_set
            or token in self.keys_set
        )

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
            total += p.size
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
                for i in p.posting(t)[:POSTINGS_READ]:
                    acc[off + i] = get(off + i, 0.0) + w
            for k in keys:
                for i in p.key_posting(k)[:POSTINGS_READ]:
                    acc[off + i] = get(off + i, 0.0) + 0.5
        if len(acc) > limit:
            # ties broken by file order: the bound of a later block is lowered by a hair
            n = len(acc) + 1.0
            best = heapq.nlargest(limit, acc, key=lambda i: acc[i] - i / n * 1e-9)
            return sorted(best)
        return sorted(acc)

    def successor(self, doc: Doc) -> Doc | None:
        """The block that supersedes `doc` in the same file, or None."""
        j = doc.part.successor(doc.id)
        return None if j is None else self.doc(doc.at - doc.i + j)

    def df_of(self, token: str) -> int:
        return sum(p.df_of(token) for p in self.parts)

    @property
    def df(self) -> Counter[str]:
        merged: Counter[str] = Counter()
        for p in self.parts:
            merged.update(p.document_frequencies())
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

    def names_an_anchor(self, words: Iterable[str]) -> bool:
        """One of `words` is an id or desc word of a memory entry (the short-prompt gate)."""
        return any(p.is_anchor(w) for w in words for p in self.parts)
