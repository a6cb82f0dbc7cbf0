"""Ranked search over the session history: BM25 on recall's analyzer, the date indexed too.

History blocks have no keys or descriptions, so the whole exchange is one field; its
date (`2026-12-05`, which the analyzer also reads as `december`) is indexed with it, so
"what failed in december" finds the month. Stopwords are the prompt side's (recall's
`prompt_words`). Results carry the session, the time, the position and the whole text.
"""

from __future__ import annotations

import math
from collections import Counter
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
    from ..recall import engine

    analyzer = engine.analyzer_for([], settings)
    words = engine.prompt_words(query, analyzer, settings)
    words.extend(analyzer.tokens(query) if not words else [])
    return list(dict.fromkeys(words))


def search(folder: Path, query: str, settings: Settings, *, limit: int = 10) -> list[Hit]:
    """The `limit` best exchanges for `query`, best first (ties: newest first)."""
    words = query_words(query, settings)
    if not words:
        return []
    idx = index.load(folder, settings)
    n_docs = max(idx.docs, 1)
    avg = idx.total_len / n_docs if idx.docs else 1.0
    scores: Counter[tuple[str, int]] = Counter()
    for w in words:
        postings = idx.postings(w)
        if not postings:
            continue
        idf = math.log(1 + (n_docs - len(postings) + 0.5) / (len(postings) + 0.5))
        for key, tf in postings.items():
            dl = idx.length(key)
            scores[key] += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avg))
    best = sorted(scores.items(), key=lambda kv: (-kv[1], idx.at(kv[0])), reverse=False)
    best.sort(key=lambda kv: (-kv[1], _neg(idx.at(kv[0]))))
    hits: list[Hit] = []
    for (session, n), score in best:
        e = idx.exchange(session, n)
        if e is not None:
            hits.append(Hit(e, score, block_id(e.session, e.n)))
        if len(hits) >= limit:
            break
    return hits


def _neg(at: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in at)
