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
from ..engine import Front, MemorySource, RecallResult
from ..scoring import score_all, score_all_bm25
from . import features as feature_set

if TYPE_CHECKING:
    from ...settings import Settings


def recall(
    prompt: str,
    files: Sequence[MemorySource],
    settings: Settings,
    features: frozenset[str] = feature_set.DEFAULT,
) -> RecallResult:
    """What recall injects with exactly the changes in `features` over the reference."""
    feats = features
    prompt = prompt or ""
    front = Front(prompt, files, settings, feats)
    gates = engine.gates_of(settings, reference=True)._replace(
        code_syntax="code-syntax" in feats,
        creative="creative" in feats,
        personal="personal" in feats,
        general="general" in feats,
    )
    reason = engine.gate(prompt, front, gates, short_gate="short-gate" in feats)
    index = front.index if reason is None else None
    if index is None:
        return RecallResult(skipped=reason, words=front.words)
    words = front.words
    if "concept-keys" in feats:
        words = front.concepts(index, words)
    built = front.prompt(words)
    bm25 = "bm25" in feats
    matches = score_all_bm25(index, built) if bm25 else score_all(index, built)
    if "cooc" in feats and bm25:
        matches = engine.cooccurrence_matches(matches, index, built, front.analyzer)
    if "entries-only" in feats:
        matches = [m for m in matches if m.doc.memory]
    if "inherit" in feats and matches:
        matches = engine.inherit_superseded(matches, index, built, bm25=bm25)
    if "coverage" in feats and matches:
        parts = engine.prompt_parts(prompt, front, index) if "parts" in feats else []
        matches = engine.covering(
            matches,
            index,
            words,
            parts=parts,
            task="task-facts" in feats and policy.asks_for_work(prompt),
            multi="coverage-multi" in feats,
            body_only="body-coverage" in feats,
            evidence="evidence" in feats,
        )
    matches = engine.boosted(
        matches, prompt, where="where-reference" in feats, task="task-feedback" in feats
    )
    return engine.ranked_within_budget(
        matches, settings, words, exact_budget="exact-budget" in feats
    )
