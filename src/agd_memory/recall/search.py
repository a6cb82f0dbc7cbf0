"""Ranked search over the memory layers: BM25F over id, desc and body.

Behind the MCP `agd_memory_search` tool and `agd-memory search`. It shares recall's
front end (`front.Front`: the files, the analyzer, the index, the query words) and
its scoring (`cooccurrence.scored`: BM25F plus co-occurrence credit), but none of recall's gates: an agent that searches has asked, so a short query, a code
snippet or a single common word still gets ranked results. Superseded blocks are
found too (they are history an agent may want), ranked at half their score.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import UserError
from .cooccurrence import scored
from .front import Front, MemorySource, rebuilding_on_corruption
from .text import fold

if TYPE_CHECKING:
    from ..settings import Settings
    from ..store.entry import Entry

EXCERPT_RADIUS = 60
SUPERSEDED_FACTOR = 0.5


@dataclass(frozen=True)
class Hit:
    entry: Entry
    score: float
    excerpt: str
    """One line of the body around the first match (or the desc, or the body's start)."""

    @property
    def layer(self) -> str:
        return self.entry.layer or ""


def _kind_matches(block_kind: str, kind: str | None) -> bool:
    if not kind:
        return True
    wanted = kind if kind.startswith("x-") else f"x-{kind}"
    return block_kind == wanted


def search(
    query: str,
    files: Sequence[MemorySource],
    settings: Settings,
    *,
    kind: str | None = None,
    limit: int = 10,
    ignore_case: bool = True,
) -> list[Hit]:
    """The best `limit` memory entries for `query`, best first (ties: newest, then id)."""
    return rebuilding_on_corruption(_search, query, files, settings, kind, limit, ignore_case)


def _search(
    query: str,
    files: Sequence[MemorySource],
    settings: Settings,
    kind: str | None,
    limit: int,
    ignore_case: bool,
) -> list[Hit]:
    front = Front(query, files, settings)
    if not front.files or not query.strip() or limit <= 0:
        return []
    index = front.index
    if index is None:
        return []
    words = front.words
    if not words:
        # "the a of" would rank every block that has a "the": ten arbitrary hits
        raise UserError(
            f"the query {query.strip()!r} has no searchable words (only words too common to "
            'rank by, or single letters); search for a name or a term, e.g. "deploy staging"',
            field="query",
            reason="stopwords",
        )
    # a search query is terse ("deploy steps"): every word of a key counts, as in a BM25
    # over the keys; recall's whole-key rule guards prompts that nobody wrote for search
    prompt = front.prompt(front.concepts(index, words), key_words=True)
    raw_words = [w for w in re.findall(r"\w+", query) if len(w) >= 2]
    ranked = []
    for m in scored(index, prompt):
        doc = m.doc
        if m.score <= 0 or not doc.memory or not _kind_matches(doc.kind, kind):
            continue
        if not ignore_case and not _has_exact_case(doc.entry, raw_words):
            continue
        score = m.score * (SUPERSEDED_FACTOR if doc.status == "superseded" else 1.0)
        ranked.append((score, m))
    ranked.sort(key=lambda sm: (-sm[0], -sm[1].doc.recency, sm[1].doc.id))
    return [
        Hit(entry=m.doc.entry, score=score, excerpt=excerpt(m.doc.entry, raw_words))
        for score, m in ranked[:limit]
    ]


def _has_exact_case(entry: Entry, raw_words: list[str]) -> bool:
    text = " ".join((entry.id, entry.desc or "", entry.body or ""))
    return any(w in text for w in raw_words)


def excerpt(entry: Entry, raw_words: Sequence[str], radius: int = EXCERPT_RADIUS) -> str:
    """About `2 * radius` characters of the body around the first query word found in it."""
    body = " ".join((entry.body or "").split())
    if not body:
        return entry.desc or ""
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
