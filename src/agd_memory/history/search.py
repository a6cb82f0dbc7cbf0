"""Ranked search over the session history: BM25 on recall's analyzer, the date indexed too.

History blocks have no keys or descriptions, so the whole exchange is one field; its
date (`2026-12-05`, which the analyzer also reads as `december`) is indexed with it, so
"what failed in december" finds the month. Stopwords are the prompt side's (recall's
`prompt_words`). Results carry the session, the time, the position and the whole text.
"""

from __future__ import annotations

import heapq
import math
from pathlib import Path
from typing import NamedTuple

from ..settings import Settings
from . import index
from .exchanges import Exchange
from .files import block_id

K1 = 1.2
B = 0.75


class Hit(NamedTuple):
    exchange: Exchange
    score: float
    id: str


def query_words(query: str, settings: Settings) -> list[str]:
    from ..recall import front

    analyzer = front.analyzer_for([], settings)
    words = front.prompt_words(query, analyzer, settings)
    words.extend(analyzer.tokens(query) if not words else [])
    return list(dict.fromkeys(words))


def search(folder: Path, query: str, settings: Settings, *, limit: int = 10) -> list[Hit]:
    """The `limit` best exchanges for `query`, best first (ties: newest first)."""
    words = query_words(query, settings)
    if not words:
        return []
    try:
        return _ranked(index.load(folder, settings), words, limit)
    except index.Stale:  # a shard from another generation (a crash mid-write): rebuild once
        return _ranked(index.load(folder, settings, rebuild=True), words, limit)


def _ranked(idx: index.Index, words: list[str], limit: int) -> list[Hit]:
    n_docs = max(idx.docs, 1)
    avg = idx.total_len / n_docs if idx.docs else 1.0
    scores: dict[int, float] = {}
    for w in words:
        postings = idx.postings(w)
        if not postings:
            continue
        idf = math.log(1 + (n_docs - len(postings) + 0.5) / (len(postings) + 0.5))
        norm = K1 * (1 - B)
        per_len = K1 * B / avg
        for doc, tf in postings.items():
            add = idf * tf * (K1 + 1) / (tf + norm + per_len * idx.length(doc))
            scores[doc] = scores.get(doc, 0.0) + add
    best = heapq.nlargest(limit * 2 + 10, scores.items(), key=lambda kv: (kv[1], idx.at(kv[0])))
    hits: list[Hit] = []
    for doc, score in best:
        e = idx.exchange(doc)
        if e is not None:
            hits.append(Hit(e, score, block_id(e.session, e.n)))
        if len(hits) >= limit:
            break
    return hits
