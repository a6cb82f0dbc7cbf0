"""Recall with any set of the measured changes switched on: the reference algorithm and
every step between it and what the hook runs. Only the evaluation runs this.

`recall(prompt, files, settings, features)` with `features.DEFAULT` gives what
`engine.recall` gives (tests/eval holds them equal on every case of the dev set); `features.REFERENCE`
is the reference algorithm of agd-memory-plugin §5.4. Each step is the engine's own,
called or left out by its switch, so a measured change exists in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import engine, policy
from ..cooccurrence import cooccurrence_matches
from ..engine import RecallResult
from ..front import Front, MemorySource, analyzer_for, select_files
from ..scoring import Match, score_all_bm25, score_bm25
from . import features as feature_set
from . import reference

if TYPE_CHECKING:
    from ...settings import Settings

COVERAGE_MIN = 0.25
"""coverage without coverage-multi: the share of the prompt's IDF mass a block must match."""


def recall(
    prompt: str,
    files: Sequence[MemorySource],
    settings: Settings,
    features: frozenset[str] = feature_set.DEFAULT,
) -> RecallResult:
    """What recall injects with exactly the changes in `features` over the reference."""
    feats = features
    prompt = prompt or ""
    analyzer = analyzer_for(select_files(files, settings), settings, feats)
    front = Front(prompt, files, settings, analyzer)
    gates = engine.gates_of(settings)._replace(
        code_syntax="code-syntax" in feats,
        creative="creative" in feats,
        personal="personal" in feats,
        general="general" in feats,
    )
    if "short-gate" in feats:
        reason = engine.gate(prompt, front, gates)
    else:
        reason = policy.should_skip(prompt, front.words, gates) or engine.nothing_to_recall(front)
    index = front.index if reason is None else None
    if index is None:
        return RecallResult(skipped=reason, words=front.words)
    words = front.words
    if "concept-keys" in feats:
        words = front.concepts(index, words)
    built = front.prompt(words)
    bm25 = "bm25" in feats
    matches = score_all_bm25(index, built) if bm25 else reference.score_all(index, built)
    if "cooc" in feats and bm25:
        matches = cooccurrence_matches(matches, index, built, front.analyzer)
    if "entries-only" in feats:
        matches = [m for m in matches if m.doc.memory]
    if "inherit" in feats and matches:
        score = score_bm25 if bm25 else reference.score
        matches = engine.inherit_superseded(matches, index, built, score=score)
    if "coverage" in feats and matches:
        parts = engine.prompt_parts(prompt, front, index) if "parts" in feats else []
        rules = {"body-coverage": engine.body_anchored, "evidence": engine.evidence_anchored}
        matches = engine.covering(
            matches,
            index,
            words,
            parts=parts,
            task="task-facts" in feats and policy.asks_for_work(prompt),
            need_of=engine.coverage_need if "coverage-multi" in feats else _flat_need,
            anchor_rules=[rule for name, rule in rules.items() if name in feats],
        )
    if "where-reference" in feats:
        matches = engine.where_boosted(matches, prompt)
    if "task-feedback" in feats:
        matches = engine.task_boosted(matches, prompt)
    sizes_of = None if "exact-budget" in feats else _reference_sizes
    return engine.ranked_within_budget(matches, settings, words, sizes_of=sizes_of)


def _flat_need(m: Match, covered: frozenset[str]) -> float:
    return COVERAGE_MIN


def _reference_sizes(ranked: list[Match]) -> list[int]:
    """The reference's budget measure: each block's text as the reference rendered it."""
    return [len(reference.reference_text(m.doc.entry)) for m in ranked]
