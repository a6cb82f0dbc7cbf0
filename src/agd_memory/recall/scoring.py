"""How well one block matches a prompt, over a prebuilt index: BM25F over id, desc, keys
and body, cognate-only occurrences at half weight. The index keeps every block's token
sets and cognate keys, so a prompt only visits the blocks that share a word or a cognate
key with it. The reference formula the evaluation compares against is in
`recall.eval.reference`.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable

from . import cognates
from .analyzer import BLOCK_MIN_LEN, Analyzer
from .index import Doc, Index, is_memory, is_superseded, recency_key

__all__ = [
    "BLOCK_MIN_LEN",
    "Analyzer",
    "Doc",
    "Index",
    "Match",
    "Prompt",
    "is_memory",
    "is_superseded",
    "recency_key",
    "score_all_bm25",
    "score_bm25",
]


# Prompt and Match are named tuples, not dataclasses or `typing.NamedTuple`: the prompt
# hook imports this module in every process, and `dataclasses` costs ~8 ms to import,
# `typing` 3-5 ms. Change a Match with
# `m._replace(score=...)`.


class Prompt(namedtuple("Prompt", "words cognates keys key_words", defaults=({}, False))):
    """A prompt, analysed: its content-word set and its cognate keys.

    `cognates`: cognate key -> the prompt words that have it (empty when cognates are off).
    `keys`: prompt word -> its cognate key (empty when `cognates` is). `key_words`: each
    word of a block's keys counts by itself (ranked search); recall counts a key only when
    all its words are in the prompt."""

    __slots__ = ()

    words: frozenset[str]
    cognates: dict[str, frozenset[str]]
    keys: dict[str, str | None]
    key_words: bool

    @classmethod
    def build(
        cls, words: Iterable[str], analyzer: Analyzer, *, fuzzy: bool, key_words: bool = False
    ) -> Prompt:
        wordset = frozenset(words)
        keyed: dict[str, set[str]] = {}
        # in a fixed order: a key word that is a cognate of two prompt words takes the first
        # (`Analyzer.key_cognates`), whatever the process's hash seed
        keys = {w: analyzer.key(w) for w in sorted(wordset)} if fuzzy else {}
        for w, k in keys.items():
            if k is not None:
                keyed.setdefault(k, set()).add(w)
        cognate_map = {k: frozenset(v) for k, v in keyed.items()}
        return cls(wordset, cognate_map, keys if keyed else {}, key_words)


class Match(
    namedtuple(
        "Match",
        "doc score anchor_exact anchor_cognates matched covered share",
        defaults=(frozenset(), 1.0),
    )
):
    """A block's score for a prompt and the evidence behind it.

    `anchor_exact`: prompt words found exactly in the id or desc; `anchor_cognates`: found
    only as cognates there; `matched`: every prompt word found exactly anywhere in the
    block; `covered`: every prompt word found anywhere in the block, exactly or as a
    cognate; `share`: the share of the prompt's information it accounts for, once recall's
    coverage rules have measured it (1.0 before)."""

    __slots__ = ()

    @property
    def rank_score(self) -> float:
        """share-rank: what a block ranks by, its score times its share of the prompt."""
        return self.score * self.share

    doc: Doc
    score: float
    anchor_exact: frozenset[str]
    anchor_cognates: frozenset[str]
    matched: frozenset[str]
    covered: frozenset[str]
    share: float


def candidates(index: Index, prompt: Prompt) -> list[int]:
    """Indices of the blocks sharing a word or a cognate key with the prompt, in file order."""
    return index.candidates(prompt.words, prompt.cognates)


# BM25F (the `bm25` feature and ranked search): per prompt word, the field-weighted,
# length-normalised term frequency, saturated, times the word's IDF.
BM25_K1 = 1.2
BM25_ID = 3.0
"""Weight of an id occurrence against a body occurrence (the reference's field boost)."""
BM25_DESC = 3.0
"""Weight of a desc occurrence against a body occurrence (the reference's field boost)."""
BM25_KEYS = 2.0
"""Weight of a `keys` occurrence (search terms written with the block): between body and
desc; 1 to 3 gave the same dev numbers."""
KEYS_ANCHOR_MIN = 2
"""Prompt words of whole keys found in the prompt that anchor a block like desc words; one
word is too weak an anchor (keys are many and broad), three lost dev hits
(benchmarks/README.md). A key of several words counts only when all are in the prompt:
matching words of different keys ("formal address", "customer email") one by one
anchored "a regex for an email address" to a block about the wording of the interface.
With key-cognates a key word may also be met by a cognate (same spelling skeleton prefix)."""


def score_bm25(doc: Doc, prompt: Prompt, index: Index) -> Match:
    """BM25F over id, desc and body; cognate-only occurrences count half."""
    keys = prompt.keys
    score = 0.0
    anchor_exact: set[str] = set()
    anchor_cog: set[str] = set()
    covered: set[str] = set()
    matched: set[str] = set()
    # a key counts only when all its words are in the prompt ("customer email" is not
    # matched by "email" alone); the words of the keys matched are the prompt's key hits
    in_keys: set[str] = set()
    if doc.keys_set:
        cog = index.analyzer.key_cognates(doc, keys) if keys else {}
        if cog or not doc.keys_set.isdisjoint(prompt.words):
            for phrase in doc.key_phrases:
                hits = [t if t in prompt.words else cog.get(t) for t in phrase]
                if all(hits):
                    in_keys.update(hits)  # type: ignore[arg-type]
    body_norm = 1.0 - 0.75 + 0.75 * (doc.body_len / index.avg_body if index.avg_body else 1.0)
    desc_norm = 1.0 - 0.5 + 0.5 * (len(doc.desc_set) / index.avg_desc if index.avg_desc else 1.0)
    for word in prompt.words:
        key = keys.get(word)
        tf = 0.0
        if word in doc.id_set:
            tf += BM25_ID
            anchor_exact.add(word)
        if word in doc.desc_set:
            tf += BM25_DESC / desc_norm
            anchor_exact.add(word)
        if word in in_keys or (prompt.key_words and word in doc.keys_set):
            tf += BM25_KEYS
        body_tf = doc.body.get(word, 0)
        if body_tf:
            tf += body_tf / body_norm
        exact = tf > 0
        if key is not None and prompt.cognates:
            others = doc.part.cognates_of(key, word)
            same_key = [t for t in others if t in doc.body or doc.has_in_fields(t)]
            ctf = cid = cdesc = 0
            if same_key:
                cid = sum(1 for t in same_key if t in doc.id_set)
                cdesc = sum(1 for t in same_key if t in doc.desc_set)
                cbody = sum(doc.body.get(t, 0) for t in same_key)
                ctf = BM25_ID * cid + BM25_DESC * cdesc / desc_norm + cbody / body_norm
            if ctf:
                tf += cognates.WEIGHT * ctf
                if (cid or cdesc) and word not in anchor_exact:
                    anchor_cog.add(word)
        if tf <= 0:
            continue
        covered.add(word)
        if exact:
            matched.add(word)
        k1 = BM25_K1
        score += index.weight(word) * tf * (k1 + 1) / (tf + k1)
    if len(in_keys) >= KEYS_ANCHOR_MIN:
        anchor_exact |= in_keys
    return Match(
        doc=doc,
        score=score,
        anchor_exact=frozenset(anchor_exact),
        anchor_cognates=frozenset(anchor_cog),
        matched=frozenset(matched),
        covered=frozenset(covered),
    )


def score_all_bm25(index: Index, prompt: Prompt) -> list[Match]:
    return [score_bm25(index.doc(i), prompt, index) for i in candidates(index, prompt)]
