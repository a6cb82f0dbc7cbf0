"""Scoring that recall and ranked search share: BM25F over the candidate blocks, plus the
credit a block gets for the words that usually come with a rare prompt word it lacks
(co-occurrence), and the concept a prompt word no block has stands for. Standard
library only.
"""

from __future__ import annotations

import math

from .analyzer import Analyzer
from .index import Index
from .scoring import Match, Prompt, score_all_bm25, score_bm25


def scored(index: Index, prompt: Prompt) -> list[Match]:
    """BM25F over every candidate block, plus the co-occurrence credit."""
    matches = score_all_bm25(index, prompt)
    return cooccurrence_matches(matches, index, prompt, index.analyzer)


def unknown_to_concepts(words: list[str], index: Index, analyzer: Analyzer) -> list[str]:
    """concept-keys: a prompt word no block has, and no concept claims, takes the concept
    whose words share its cognate key (an inflection the word lists lack)."""
    out = []
    for w in words:
        if not w.startswith("~") and index.df_of(w) == 0:
            w = analyzer.concept_by_key(w) or w
        out.append(w)
    return out


COOC_MAX_DF = 30
"""cooc: only words this rare are expanded (their blocks are decoded to count neighbours)."""
COOC_MIN_JOINT = 2
"""cooc: a neighbour must share at least this many blocks with the word (one is chance)."""
COOC_MIN_PMI = 1.0
COOC_TERMS = 1
COOC_WEIGHT = 0.5
"""cooc: neighbours per prompt word (PMI >= COOC_MIN_PMI, ranked by PMI x shared blocks)
and the share of their BM25F score a block gets."""
COOC_MAX_NEW = 50
"""cooc: at most this many blocks the prompt did not reach are added through neighbours."""


def cooccurrence_terms(words: frozenset[str], index: Index) -> dict[str, str]:
    """Neighbour word -> the prompt word it stands for: words that share blocks with a
    rare prompt word far more often than chance (pointwise mutual information over the
    memory's own blocks, id, desc and body together)."""
    out: dict[str, str] = {}
    n = index.n or 1
    for w in sorted(words):
        df = index.df_of(w)
        if df < COOC_MIN_JOINT or df > COOC_MAX_DF:
            continue
        joint: dict[str, int] = {}
        for p, off in zip(index.parts, index.offsets, strict=True):
            for i in p.posting(w):
                for v in index.doc(off + i).vocabulary():
                    joint[v] = joint.get(v, 0) + 1
        scored = []
        for v, c in joint.items():
            if c < COOC_MIN_JOINT or v in words or v in out:
                continue
            df_v = index.df_of(v)
            if df_v > COOC_MAX_DF:
                continue  # a common word stands for no rare one (and would reach many blocks)
            pmi = math.log(n * c / (df * max(df_v, 1)))
            if pmi >= COOC_MIN_PMI:
                scored.append((pmi * c, v))
        for _, v in sorted(scored, reverse=True)[:COOC_TERMS]:
            out[v] = w
    return out


def cooccurrence_matches(
    matches: list[Match], index: Index, prompt: Prompt, analyzer: Analyzer
) -> list[Match]:
    """A block that lacks a rare prompt word but has the words that usually come with
    it is credited with that word, at COOC_WEIGHT of the score: for the gates the prompt
    word counts as covered (coverage share, `evidence`), never as an id/desc anchor."""
    terms = cooccurrence_terms(prompt.words, index)
    if not terms:
        return matches
    extra = Prompt.build(terms, analyzer, fuzzy=False)
    by_doc = {m.doc.at: k for k, m in enumerate(matches)}
    out = list(matches)
    fresh: list[tuple[float, int, Match]] = []
    for i in index.candidates(extra.words, ()):
        doc = index.doc(i)
        e = score_bm25(doc, extra, index)  # no cognates: cheap
        if e.score <= 0:
            continue
        k = by_doc.get(doc.at)
        if k is None:
            fresh.append((-e.score, i, e))
        else:
            out[k] = _credit(out[k], e, terms)
    # blocks the prompt itself did not reach: only the best few are scored in full (the
    # prompt's cognate keys make that the costly part on a large memory)
    for _, _, e in sorted(fresh)[:COOC_MAX_NEW]:
        out.append(_credit(score_bm25(e.doc, prompt, index), e, terms))
    return out


def _credit(m: Match, e: Match, terms: dict[str, str]) -> Match:
    new = frozenset(terms[v] for v in e.covered) - m.covered
    if not new:
        return m
    return m._replace(score=m.score + COOC_WEIGHT * e.score, covered=m.covered | new)
