"""Recall with any set of the measured changes switched on: the reference algorithm and
every step between it and what the hook runs. Only the evaluation runs this.

`recall(prompt, files, settings, features)` with `features.DEFAULT` gives what
`engine.recall` gives (tests/eval holds them equal on every case of the dev set); `features.REFERENCE`
is the reference algorithm of agd-memory-plugin §5.4. Each step is the engine's own,
called or left out by its switch, so a measured change exists in one place. The steps of
the analysis (tokenizer, stemmer, cognate keys, stopwords, the fields indexed) are the
runtime `Analyzer`'s, replaced by `VariantAnalyzer` where a variant leaves one out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .. import cognates, engine, lexicon, policy
from ..analyzer import BLOCK_MIN_LEN, Analyzer
from ..cooccurrence import cooccurrence_matches
from ..engine import RecallResult
from ..front import Front, MemorySource, select_files, synonyms_source
from ..scoring import Match, score_all_bm25, score_bm25
from ..text import BUILTIN_LANGS, DEFAULT_LANGS, prompt_langs, reference_tokens, stopwords
from . import features as feature_set
from . import reference

if TYPE_CHECKING:
    from ...settings import Settings
    from ...store.entry import Entry
    from ..index import Doc

COVERAGE_MIN = 0.25
"""coverage without coverage-multi: the share of the prompt's IDF mass a block must match."""


class VariantAnalyzer(Analyzer):
    """The analyzer with only the steps in `features` (`features.DEFAULT`: all of them,
    the runtime analysis; `features.REFERENCE`: the reference's)."""

    def __init__(self, features: frozenset[str], synonyms_file: Path | None = None) -> None:
        self.features = features
        if "tokens" not in features:
            self.tokenizer = reference_tokens
        if "stem" not in features:
            self.stem = _unchanged
        if "cognates" not in features:
            self.key = cognates.reference_key
        groups = [list(g) for g in lexicon.builtin_groups()] if "concepts" in features else []
        if synonyms_file is not None:
            groups.extend(lexicon.read_groups(synonyms_file))
        stem = self.stem if "stem" in features else None
        synonyms = lexicon.build_map(groups, self._words, stem) if groups else {}
        super().__init__(synonyms_map=synonyms)

    def uses(self, step: str) -> bool:
        return step in self.features

    def tokens(self, text: str, min_len: int = BLOCK_MIN_LEN) -> list[str]:
        if self.uses("dates"):
            return super().tokens(text, min_len)
        norm = self.normalize
        return [norm(w) for w in self.tokenizer(text, min_len)]

    def prompt_stopwords(self, words: Sequence[str], settings: Settings) -> frozenset[str]:
        if settings.recall_langs is not None:
            langs = tuple(settings.recall_langs)
        elif self.uses("all-langs"):
            langs = prompt_langs(words, BUILTIN_LANGS, folded=self.uses("tokens"))
        else:
            langs = DEFAULT_LANGS
        return stopwords(
            langs,
            settings.recall_stopwords_file,
            request_verbs=self.uses("request-verbs"),
            folded=self.uses("tokens"),
            verbs=self.uses("verb-forms"),
            frame=self.uses("frame-words"),
        )

    def kind_tokens(self, kind: str) -> tuple[str, ...]:
        return () if self.uses("no-kind") else tuple(self.tokens(kind.replace("x-", " ")))

    def key_phrases(self, entry: Entry) -> tuple[tuple[str, ...], ...]:
        return super().key_phrases(entry) if self.uses("keys") else ()

    def idf_over(self, recallable: Callable[[Entry], bool]) -> Callable[[Entry], bool] | None:
        return recallable if self.uses("idf-recallable") else None

    def key_cognates(self, doc: Doc, keys: dict[str, str | None]) -> dict[str, str]:
        return super().key_cognates(doc, keys) if self.uses("key-cognates") else {}


def _unchanged(word: str) -> str:
    return word


_VARIANTS: dict[tuple, VariantAnalyzer] = {}


def analyzer_for(
    files: Sequence[MemorySource], settings: Settings, features: frozenset[str]
) -> VariantAnalyzer:
    """The variant analyzer for these files (cached in process, as `front.analyzer_for`).
    Its signature, which keys the analyses in the disk cache, holds this module's size and
    mtime: the steps it replaces are written here, outside `index.code_stamp`'s files."""
    path, source = synonyms_source(files, settings)
    st = os.stat(__file__)
    sig = ("variant", st.st_size, st.st_mtime_ns, tuple(sorted(features)), *source)
    cached = _VARIANTS.get(sig)
    if cached is None:
        cached = _VARIANTS[sig] = VariantAnalyzer(features, path)
        cached.signature = sig
    return cached


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
    scored_matches = matches
    if "coverage" in feats and matches:
        parts = engine.prompt_parts(prompt, front, index) if "parts" in feats else []
        rules = {"body-coverage": engine.body_anchored, "evidence": engine.evidence_anchored}
        matches = engine.covering(
            matches,
            index,
            words,
            parts=parts,
            task="task-facts" in feats and policy.asks_for_work(prompt),
            units=engine.written_words(prompt, front, index) if "units" in feats else (),
            scale=engine.need_scale(prompt, cue="cue" in feats, strict="cue-strict" in feats),
            need_of=engine.coverage_need if "coverage-multi" in feats else _flat_need,
            anchor_rules=[rule for name, rule in rules.items() if name in feats],
            weigh="share-rank" in feats,
            unnamed="unnamed" in feats,
        )
    if "where-reference" in feats:
        matches = engine.where_boosted(matches, prompt)
    if "task-feedback" in feats:
        matches = engine.task_boosted(matches, policy.asks_for_work(prompt))
    sizes_of = None if "exact-budget" in feats else _reference_sizes
    companions = []
    if "companions" in feats:
        companions = engine.holding(
            scored_matches, index, words, engine.COMPANION_SHARE, weigh="share-rank" in feats
        )
    return engine.ranked_within_budget(
        matches, settings, words, sizes_of=sizes_of, companions=companions
    )


def _flat_need(distinct: int) -> float:
    return COVERAGE_MIN


def _reference_sizes(ranked: list[Match]) -> list[int]:
    """The reference's budget measure: each block's text as the reference rendered it."""
    return [len(reference.reference_text(m.doc.entry)) for m in ranked]
