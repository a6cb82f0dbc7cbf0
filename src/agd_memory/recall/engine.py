"""Auto-recall for one prompt: gates, index, ranking, budget. Standard library only.

`recall(prompt, files, settings)` is what the UserPromptSubmit hook, `agd-memory
recall` and the eval all run, so what the eval measures is what the hook injects.
Nothing here spawns a process or reads the environment: `settings` carries it all.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from .. import debuglog, diskcache
from . import features as feature_set
from . import lexicon, policy, render
from .analyzer import Analyzer
from .index import Index, Part, code_stamp, is_memory, is_superseded
from .scoring import Match, Prompt, score_all, score_all_bm25, score_bm25, score_doc
from .text import BUILTIN_LANGS, stopwords

DEFAULT_LANGS = ("en",)
COVERAGE_MIN = 0.25
"""coverage: the share of the prompt's IDF mass a block must match to be injected."""
BODY_ONLY_COVERAGE = 0.6
"""body-coverage: a block matching this share of the prompt in its body alone is anchored."""
COVERAGE_MIN_SINGLE = 0.35
COVERAGE_MIN_MULTI = 0.2
"""coverage-multi: the shares required of a block matching one prompt word, and two or more
distinct ones (a single shared word is the usual coincidence, two rarely are)."""
WHERE_BOOST = 1.5
"""where-reference: a reference entry's score is multiplied by this for a where-question."""
TASK_BOOST = 2.0
"""task-feedback: a feedback entry's score is multiplied by this for a request for work
(1.3 to 3 gave the same hits on the dev set, 2 to 3 on the held-out and fresh sets)."""
KEYED_MIN_MULTI = 0.3
"""keys: a block with keys matching two or more prompt words needs this share (one word:
COVERAGE_MIN_SINGLE). Keys add vocabulary that a prompt on another subject can hit too;
0.3 kept false injections at or below the unkeyed level on the dev set (benchmarks/README.md)."""
EVIDENCE_WORDS = 3
EVIDENCE_COVERAGE = 0.3
"""evidence: a block matching this many distinct prompt words, together this share of the
prompt's IDF mass, is anchored even when none of them is in its id or desc."""


# Scored and RecallResult are not dataclasses: the prompt hook imports this module in
# every process, and `dataclasses` costs ~8 ms to import.


class Scored(NamedTuple):
    """One chosen block: the entry, its score and the layer it came from."""

    entry: Any
    score: float
    layer: str
    text: str = ""
    """The AGD text injected for it."""


class RecallResult:
    """`skipped`: why nothing was injected (a reason of `policy`), or None. `chosen`: the
    blocks injected. `words`: the prompt's content words, after stopwords (for
    `recall --json` and debugging)."""

    __slots__ = ("skipped", "chosen", "words")

    def __init__(
        self,
        skipped: str | None,
        chosen: list[Scored] | None = None,
        words: list[str] | None = None,
    ) -> None:
        self.skipped = skipped
        self.chosen: list[Scored] = [] if chosen is None else chosen
        self.words: list[str] = [] if words is None else words

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return (self.skipped, self.chosen, self.words) == (
            other.skipped,  # type: ignore[attr-defined]
            other.chosen,  # type: ignore[attr-defined]
            other.words,  # type: ignore[attr-defined]
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"RecallResult(skipped={self.skipped!r}, chosen={self.chosen!r}, words={self.words!r})"
        )

    def render(self) -> str:
        """The additionalContext text: a header naming the blocks, then each block as AGD."""
        if self.skipped or not self.chosen:
            return ""
        ids = [str(s.entry.id) for s in self.chosen]
        head = render.header(ids)
        return head + "\n\n" + "\n".join(s.text for s in self.chosen)

    @property
    def injected_chars(self) -> int:
        return len(self.render())


def langs_of(settings: Any, features: frozenset[str]) -> tuple[str, ...]:
    """Stopword languages: the setting when given (even empty), else the default."""
    langs = getattr(settings, "recall_langs", None)
    if langs is not None:
        return tuple(langs)
    return BUILTIN_LANGS if "all-langs" in features else DEFAULT_LANGS


def prompt_words(
    prompt: str, analyzer: Analyzer, settings: Any, features: frozenset[str]
) -> list[str]:
    """Content words of the prompt, in order, duplicates kept (the min-words gate counts them)."""
    improved = "tokens" in features
    words = analyzer.tokenizer(prompt, max(int(settings.recall_min_word_len), 1))
    langs = langs_of(settings, features)
    if getattr(settings, "recall_langs", None) is None and "all-langs" in features:
        langs = prompt_langs(words, langs, folded=improved)
    stop = stopwords(
        langs,
        getattr(settings, "recall_stopwords_file", None),
        request_verbs="request-verbs" in features,
        folded=improved,
        verbs="verb-forms" in features,
    )
    return [analyzer.normalize(w) for w in words if w not in stop]


def prompt_langs(words: Sequence[str], langs: Sequence[str], *, folded: bool) -> tuple[str, ...]:
    """The languages a prompt is written in, judged by its function words.

    With every built-in list applied at once, French `comment` or German `bin`, `war`
    would vanish from English prompts; so only the languages with at least half as many
    function words in the prompt as the best one are used (English when none has any).
    """
    hits = {}
    for lang in langs:
        stop = stopwords((lang,), None, folded=folded)
        hits[lang] = sum(1 for w in words if w in stop)
    best = max(hits.values(), default=0)
    if best == 0:
        return tuple(lang for lang in langs if lang in DEFAULT_LANGS) or tuple(langs[:1])
    return tuple(lang for lang in langs if hits[lang] * 2 >= best)


def synonyms_file(files: Sequence[Any], settings: Any) -> Path | None:
    """The opt-in synonyms file: the setting, else `.agd-synonyms` beside the project memory."""
    configured = getattr(settings, "recall_synonyms_file", None)
    if configured:
        path = Path(configured).expanduser()
        return path if path.is_file() else None
    for mf in files:
        path = getattr(mf, "path", None)
        if path is not None and getattr(mf, "layer", "project") == "project":
            candidate = Path(path).parent / lexicon.PROJECT_FILE_NAME
            return candidate if candidate.is_file() else None
    return None


def analyzer_for(files: Sequence[Any], settings: Any, features: frozenset[str]) -> Analyzer:
    """The analyzer for these files (cached: the synonym map costs a few milliseconds)."""
    path = synonyms_file(files, settings)
    sig: tuple = (tuple(sorted(features)), None)
    if path is not None:
        try:
            st = path.stat()
            sig = (tuple(sorted(features)), str(path), st.st_size, st.st_mtime_ns)
        except OSError:
            path = None
    cached = _ANALYZERS.get(sig)
    if cached is None:
        cached = _ANALYZERS[sig] = _load_analyzer(features, path, sig, _cache_dir(settings))
        cached.signature = sig
    return cached


def _load_analyzer(
    features: frozenset[str], path: Path | None, sig: tuple, cache_dir: Path | None
) -> Analyzer:
    """An analyzer whose synonym map comes from the disk cache when it is still valid
    (building it costs more than the rest of a prompt on a small memory)."""
    if "concepts" not in features and path is None:
        return Analyzer(features)
    key = (code_stamp(), sig)
    cached = diskcache.read(cache_dir, "synonyms", sig, key)
    if isinstance(cached, tuple) and len(cached) == 2:
        synonyms, concept_keys = cached
        if isinstance(synonyms, dict) and isinstance(concept_keys, dict):
            return Analyzer(features, path, synonyms_map=synonyms, concept_keys=concept_keys)
    analyzer = Analyzer(features, path)
    diskcache.write(cache_dir, "synonyms", sig, key, (analyzer.synonyms, analyzer.concept_keys()))
    return analyzer


_ANALYZERS: dict[tuple, Analyzer] = {}
_PARTS: dict[tuple, Part] = {}
"""In-process cache of analysed files (the MCP server and the eval reuse them)."""


def _cache_dir(settings: Any) -> Path | None:
    data_dir = getattr(settings, "data_dir", None)
    return Path(data_dir) / "cache" if data_dir else None


def _part(mf: Any, settings: Any, analyzer: Analyzer) -> Part | None:
    skip_superseded = not settings.recall_allow_superseded

    def recallable(entry: Any) -> bool:
        return is_memory(entry) and not (skip_superseded and is_superseded(entry))

    idf_over = recallable if "idf-recallable" in analyzer.features else None
    path = getattr(mf, "path", None)
    source = diskcache.file_key(path) if path is not None else None
    key = name = None
    if source is not None:
        sig = (analyzer.signature, skip_superseded, getattr(mf, "layer", ""))  # entries keep it
        key, name = (code_stamp(), source, sig), (source[0], sig)
        part = _PARTS.get(key)
        if part is not None:
            return part
        part = Part.from_payload(diskcache.read(_cache_dir(settings), "recall", name, key))
        if part is not None:
            _PARTS[key] = part
            return part
    try:
        entries = mf.entries()
    except Exception as exc:  # one broken file must not silence the others
        debuglog.log(f"recall: skipping {path or mf}: {exc}")
        return None
    part = Part.build(entries, analyzer, idf_over)
    if key is not None:
        if len(_PARTS) > 32:
            _PARTS.clear()
        _PARTS[key] = part
        diskcache.write(_cache_dir(settings), "recall", name, key, part.payload())
    return part


def build_index(
    files: Sequence[Any], settings: Any, features: frozenset[str], analyzer: Analyzer
) -> Index | None:
    """The index over the files' blocks; each file's analysis is cached in process and on
    disk, keyed by the file's identity and the analyzer."""
    parts = [p for mf in files if (p := _part(mf, settings, analyzer)) is not None]
    parts = [p for p in parts if p.records]
    if not parts:
        return None
    return Index(analyzer=analyzer, parts=parts)


def select_files(files: Sequence[Any], settings: Any) -> list[Any]:
    """Existing files, the global layer dropped under AGD_RECALL_NO_GLOBAL, no path twice."""
    out = []
    seen: set[str] = set()
    for mf in files:
        if settings.recall_no_global and getattr(mf, "layer", None) == "global":
            continue
        exists = getattr(mf, "exists", None)
        if callable(exists) and not exists():
            continue
        path = getattr(mf, "path", None)
        if path is not None:
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
        out.append(mf)
    return out


def ranking_of(settings: Any) -> policy.Ranking:
    return policy.Ranking(
        top_k=int(settings.recall_top_k),
        min_score=float(settings.recall_min_score),
        min_score_ratio=float(settings.recall_min_score_ratio),
        require_anchor=not settings.recall_allow_body_only,
        skip_superseded=not settings.recall_allow_superseded,
        fuzzy_anchor_min=int(settings.recall_fuzzy_anchor_min),
    )


def gates_of(settings: Any, features: frozenset[str]) -> policy.Gates:
    return policy.Gates(
        disabled=bool(settings.recall_disabled),
        max_prompt_chars=int(settings.recall_max_prompt_chars),
        code_line_ratio=float(settings.recall_code_line_ratio),
        min_words=int(settings.recall_min_words),
        code_syntax="code-syntax" in features,
        creative="creative" in features,
        personal="personal" in features,
    )


def recall(
    prompt: str,
    files: Sequence[Any],
    settings: Any,
    *,
    features: frozenset[str] | None = None,
) -> RecallResult:
    """What auto-recall injects for `prompt` from `files` (project layer first)."""
    feats = feature_set.DEFAULT if features is None else features
    files = select_files(files, settings)
    analyzer = analyzer_for(files, settings, feats)
    words = prompt_words(prompt or "", analyzer, settings, feats)
    index: Index | None = None

    def exact_hit(ws: Sequence[str]) -> bool:  # short-gate: built only for a short prompt
        nonlocal index
        index = build_index(files, settings, feats, analyzer)
        return index is not None and not index.anchor_vocabulary().isdisjoint(ws)

    reason = policy.should_skip(
        prompt or "",
        words,
        gates_of(settings, feats),
        exact_hit=exact_hit if "short-gate" in feats and files else None,
    )
    if reason:
        return RecallResult(skipped=reason, words=words)
    if not files:
        return RecallResult(skipped=policy.NO_MEMORY, words=words)
    if index is None:
        index = build_index(files, settings, feats, analyzer)
    if index is None:
        return RecallResult(skipped=policy.NO_BLOCKS, words=words)
    fuzzy = not settings.recall_no_fuzzy
    if "concept-keys" in feats and fuzzy:
        words = unknown_to_concepts(words, index, analyzer)
    built = Prompt.build(words, analyzer, fuzzy=fuzzy)
    matches = score_all_bm25(index, built) if "bm25" in feats else score_all(index, built)
    if "cooc" in feats and "bm25" in feats:
        matches = cooccurrence_matches(matches, index, built, analyzer)
    if "entries-only" in feats:
        matches = [m for m in matches if m.doc.memory]
    if "inherit" in feats and matches:
        matches = inherit_superseded(matches, index, built, "bm25" in feats)
    if "coverage" in feats and matches:
        surprise = {w: index.surprise(w) for w in set(words)}
        total = sum(surprise.values()) or 1.0
        scored = []
        for m in matches:
            share = sum(surprise[w] for w in m.covered) / total
            need = COVERAGE_MIN
            if "coverage-multi" in feats:
                strong = len(m.covered) >= 2
                need = COVERAGE_MIN_MULTI if strong else COVERAGE_MIN_SINGLE
                if strong and m.doc.keys_set:
                    need = KEYED_MIN_MULTI
            if share < need:
                continue
            if "body-coverage" in feats and share >= BODY_ONLY_COVERAGE and not m.anchor_exact:
                # a block whose body explains most of the prompt needs no anchor word
                m = m._replace(anchor_exact=m.covered)
            if (
                "evidence" in feats
                and not m.anchor_exact
                and share >= EVIDENCE_COVERAGE
                and len(m.covered) >= EVIDENCE_WORDS
            ):
                # several distinct prompt words in the body are evidence enough: one word
                # can be a coincidence, two that carry a third of the prompt rarely are
                m = m._replace(anchor_exact=m.covered)
            scored.append(m)
        matches = scored
    if "where-reference" in feats and matches and policy.WHERE_QUESTION.search(prompt):
        matches = _boost_kind(matches, "x-reference", WHERE_BOOST)
    if "task-feedback" in feats and matches and policy.asks_for_work(prompt):
        matches = _boost_kind(matches, "x-feedback", TASK_BOOST)
    ranked = policy.rank(matches, ranking_of(settings))
    if not ranked:
        return RecallResult(skipped=policy.NO_MATCH, words=words)
    return _within_budget(ranked, settings, feats, words)


def unknown_to_concepts(words: list[str], index: Index, analyzer: Analyzer) -> list[str]:
    """concept-keys: a prompt word no block has, and no concept claims, takes the concept
    whose words share its cognate key (an inflection the word lists lack)."""
    out = []
    for w in words:
        if not w.startswith("~") and index.df_of(w) == 0:
            w = analyzer.concept_by_key(w) or w
        out.append(w)
    return out


def _boost_kind(matches: list[Match], kind: str, factor: float) -> list[Match]:
    return [m._replace(score=m.score * factor) if m.doc.kind == kind else m for m in matches]


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
            for i in p.posting(p.postings, w):
                for v in index.doc(off + i).vocabulary():
                    joint[v] = joint.get(v, 0) + 1
        scored = []
        for v, c in joint.items():
            if c < COOC_MIN_JOINT or v in words or v in out:
                continue
            pmi = math.log(n * c / (df * max(index.df_of(v), 1)))
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


def inherit_superseded(
    matches: list[Match], index: Index, prompt: Prompt, bm25: bool
) -> list[Match]:
    """A block that supersedes another takes over the old block's evidence when it is
    stronger: a prompt naming the old way (`Dropbox backups`) is about the topic whose
    current answer is the new block, even when the new block shares no word with it.
    The old block itself stays out (superseded)."""
    by_doc = {m.doc.at: k for k, m in enumerate(matches)}
    out = list(matches)
    for m in matches:
        if m.doc.status != "superseded":
            continue
        doc = index.successor(m.doc)
        if doc is None:
            continue
        k = by_doc.get(doc.at)
        if k is None:
            new = score_bm25(doc, prompt, index) if bm25 else score_doc(doc, prompt, index.weight)
            out.append(new)
            k = by_doc[doc.at] = len(out) - 1
        new = out[k]
        out[k] = new._replace(
            score=max(new.score, m.score),
            anchor_exact=new.anchor_exact | m.anchor_exact,
            anchor_cognates=new.anchor_cognates | m.anchor_cognates,
            matched=new.matched | m.matched,
            covered=new.covered | m.covered,
        )
    return out


def _within_budget(
    ranked: list[Match], settings: Any, feats: frozenset[str], words: list[str]
) -> RecallResult:
    budget = int(settings.recall_token_budget) * policy.CHARS_PER_TOKEN
    # keys are for matching: the model reads the fact, not the search terms
    texts = [m.doc.entry.to_agd(drop=("keys",)) for m in ranked]
    if "exact-budget" in feats:
        sizes = [len(t) + 1 for t in texts]
    else:
        sizes = [len(render.reference_text(m.doc.entry)) for m in ranked]
    keep = policy.fit_budget(sizes, budget) if budget > 0 else 0
    if keep == 0:
        return RecallResult(skipped=policy.BUDGET, words=words)
    chosen = [
        Scored(entry=m.doc.entry, score=m.score, layer=_layer(m.doc.entry), text=t)
        for m, t in zip(ranked[:keep], texts[:keep], strict=True)
    ]
    return RecallResult(skipped=None, chosen=chosen, words=words)


def _layer(entry: Any) -> str:
    return str(getattr(entry, "layer", "") or "")


__all__ = ["RecallResult", "Scored", "recall"]
