"""Ranked search over the memory layers: BM25F over id, desc and body.

Behind the MCP `agd_memory_search` tool and `agd-memory search`. It shares recall's
analyzer (tokenizer, stemmer, concept groups, synonyms file, cognates) and index, but
none of recall's gates: an agent that searches has asked, so a short query, a code
snippet or a single common word still gets ranked results. Superseded blocks are
found too (they are history an agent may want), ranked at half their score.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import engine
from . import features as feature_set
from .scoring import Prompt, score_all_bm25
from .text import fold

EXCERPT_RADIUS = 60
SUPERSEDED_FACTOR = 0.5


@dataclass(frozen=True)
class Hit:
    entry: Any
    score: float
    excerpt: str
    """One line of the body around the first match (or the desc, or the body's start)."""

    @property
    def layer(self) -> str:
        return str(getattr(self.entry, "layer", "") or "")


def _kind_matches(block_kind: str, kind: str | None) -> bool:
    if not kind:
        return True
    wanted = kind if kind.startswith("x-") else f"x-{kind}"
    return block_kind == wanted


def _query_words(query: str, analyzer: Any, settings: Any, feats: frozenset[str]) -> list[str]:
    words = engine.prompt_words(query, analyzer, settings, feats)
    if words:
        return words
    # a query of stopwords only ("the when") still searches for what it says
    return [analyzer.normalize(w) for w in analyzer.tokenizer(query, 2)]


def search(
    query: str,
    files: Sequence[Any],
    settings: Any,
    *,
    kind: str | None = None,
    limit: int = 10,
    ignore_case: bool = True,
    features: frozenset[str] | None = None,
) -> list[Hit]:
    """The best `limit` memory entries for `query`, best first (ties: newest, then id)."""
    feats = feature_set.DEFAULT if features is None else features
    files = engine.select_files(files, settings)
    if not files or not query.strip() or limit <= 0:
        return []
    analyzer = engine.analyzer_for(files, settings, feats)
    index = engine.build_index(files, settings, feats, analyzer)
    if index is None:
        return []
    words = _query_words(query, analyzer, settings, feats)
    if "concept-keys" in feats and not settings.recall_no_fuzzy:
        words = engine.unknown_to_concepts(words, index, analyzer)
    # a search query is terse ("deploy steps"): every word of a key counts, as in a BM25
    # over the keys; recall's whole-key rule guards prompts that nobody wrote for search
    prompt = Prompt.build(words, analyzer, fuzzy=not settings.recall_no_fuzzy, key_words=True)
    raw_words = [w for w in re.findall(r"\w+", query) if len(w) >= 2]
    scored = []
    matches = score_all_bm25(index, prompt)
    if "cooc" in feats:  # the same co-occurrence credit as recall (engine.cooccurrence_matches)
        matches = engine.cooccurrence_matches(matches, index, prompt, analyzer)
    for m in matches:
        doc = m.doc
        if m.score <= 0 or not doc.memory or not _kind_matches(doc.kind, kind):
            continue
        if not ignore_case and not _has_exact_case(doc.entry, raw_words):
            continue
        score = m.score * (SUPERSEDED_FACTOR if doc.status == "superseded" else 1.0)
        scored.append((score, m))
    scored.sort(key=lambda sm: (-sm[0], -sm[1].doc.recency, sm[1].doc.id))
    return [
        Hit(entry=m.doc.entry, score=score, excerpt=excerpt(m.doc.entry, raw_words))
        for score, m in scored[:limit]
    ]


def _has_exact_case(entry: Any, raw_words: list[str]) -> bool:
    text = " ".join(
        str(x or "") for x in (entry.id, getattr(entry, "desc", ""), getattr(entry, "body", ""))
    )
    return any(w in text for w in raw_words)


def excerpt(entry: Any, raw_words: Sequence[str], radius: int = EXCERPT_RADIUS) -> str:
    """About `2 * radius` characters of the body around the first query word found in it."""
    body = " ".join(str(getattr(entry, "body", "") or "").split())
    if not body:
        return str(getattr(entry, "desc", "") or "")
    folded = fold(body)
    best = -1
    for w in raw_words:
        pos = folded.find(fold(w))
        if pos >= 0 and (best < 0 or pos < best):
            best = pos
    if best < 0:
        return body[: 2 * radius] + ("…" if len(body) > 2 * radius else "")
    start = max(0, best - radius)
    end = min(len(body), best + radius)
    return ("…" if start else "") + body[start:end] + ("…" if end < len(body) else "")
