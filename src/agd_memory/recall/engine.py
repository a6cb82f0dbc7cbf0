"""Auto-recall for one prompt: gates, index, ranking, budget. Standard library only.

`recall(prompt, files, settings)` is what the UserPromptSubmit hook, `agd-memory
recall` and the eval all run, so what the eval measures is what the hook injects.
It is the measured algorithm, frozen: the reference algorithm and the switches that
measured each change over it live with the evaluation (`recall.eval.variants`), which
reuses the steps below. `front` is what recall and ranked search share (the files,
the analyzer, the index, the query words); they differ only after it.
Nothing here spawns a process or reads the environment: `settings` carries it all.
"""

from __future__ import annotations

import math
import os
from collections import namedtuple
from collections.abc import Iterable, Sequence
from pathlib import Path

from .. import debuglog, diskcache
from . import lexicon, policy, text
from .analyzer import Analyzer
from .index import Index, Part, code_stamp, is_memory, is_superseded
from .scoring import Match, Prompt, score_all_bm25, score_bm25, score_doc
from .text import BUILTIN_LANGS, stopwords

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
if TYPE_CHECKING:
    from typing import Protocol

    from ..settings import Settings
    from ..store.entry import Entry
else:
    Protocol = object  # a structural type for the type checker only

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
PART_MIN_WORDS = 2
"""parts: a part of the prompt (a clause) counts on its own when it has this many content
words, and a block must match this many of its distinctive words to be judged on it."""
PART_DEMOTE = 0.6
"""parts: a block accepted for one part of the prompt ranks with this share of its score:
below a block that accounts for the whole prompt (0.8 lost a first place on the real-use
sets, 0.4 a block in the first three)."""
COMMON_DF_SHARE = 0.2
"""parts: a word found in more than this share of the memory's blocks (the project's name,
`file`) is not distinctive: it cannot single out the block a part asks about."""
TASK_FACT_SHARE = 0.5
"""task-facts: for a request for work, a block that is not a rule of work (feedback) must
match this share of the prompt: a task shares the project's words with many facts, and
the facts it needs are the ones it names (benchmarks/README.md, issue 26)."""


# Scored and RecallResult are not dataclasses (nor `typing.NamedTuple`): the prompt hook
# imports this module in every process, and `dataclasses` costs ~8 ms to import.


class MemorySource(Protocol):
    """What recall, search and the TOC read from a memory layer: `store.MemoryFile`, or
    entries held in memory (tests). `path` is None for the latter (nothing on disk to
    key a cache by)."""

    @property
    def path(self) -> Path | None: ...

    @property
    def layer(self) -> str: ...

    def exists(self) -> bool: ...

    def entries(self) -> list[Entry]: ...


class Scored(namedtuple("Scored", "entry score layer text stale", defaults=("", False))):
    """One chosen block: the entry, its score and the layer it came from; `text`: the AGD
    text injected for it; `stale`: it cites code that changed since it was written
    (`hygiene.staleness`)."""

    __slots__ = ()

    entry: Entry
    score: float
    layer: str
    text: str
    stale: bool


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
        assert isinstance(other, RecallResult)
        return (self.skipped, self.chosen, self.words) == (other.skipped, other.chosen, other.words)

    def __hash__(self) -> int:
        raise TypeError("RecallResult is not hashable")

    def __repr__(self) -> str:
        return (
            f"RecallResult(skipped={self.skipped!r}, chosen={self.chosen!r}, words={self.words!r})"
        )

    def render(self) -> str:
        """The additionalContext text: a header naming the blocks, then each block as AGD."""
        if self.skipped or not self.chosen:
            return ""
        from . import render  # only a prompt that injects pays for the renderer

        ids = [str(s.entry.id) for s in self.chosen]
        stale = [str(s.entry.id) for s in self.chosen if s.stale]
        head = render.header(ids, stale, [s.layer for s in self.chosen])
        return head + "\n\n" + "\n".join(s.text for s in self.chosen)

    @property
    def injected_chars(self) -> int:
        return len(self.render())


def langs_of(settings: Settings) -> tuple[str, ...]:
    """The stopword languages: the setting when given (even empty), else every built-in
    one (each prompt then uses those it is written in, `prompt_langs`)."""
    return BUILTIN_LANGS if settings.recall_langs is None else tuple(settings.recall_langs)


def prompt_words(prompt: str, analyzer: Analyzer, settings: Settings) -> list[str]:
    """Content words of the prompt, in order, duplicates kept (the min-words gate counts
    them): the analyzer's tokens minus the stopwords of the prompt's languages."""
    words = analyzer.tokenizer(prompt, max(int(settings.recall_min_word_len), 1))
    stop = prompt_stopwords(words, analyzer, settings)
    return [analyzer.normalize(w) for w in words if w not in stop]


def prompt_stopwords(
    words: Sequence[str], analyzer: Analyzer, settings: Settings
) -> frozenset[str]:
    """The stopwords for a prompt of these tokenizer `words`: those of the configured
    languages, else of the languages it is written in (all-langs), else English."""
    langs: tuple[str, ...]
    if settings.recall_langs is not None:  # configured, even empty
        langs = tuple(settings.recall_langs)
    elif analyzer.uses("all-langs"):
        langs = prompt_langs(words, BUILTIN_LANGS, folded=analyzer.uses("tokens"))
    else:
        langs = DEFAULT_LANGS
    return stopwords(
        langs,
        settings.recall_stopwords_file,
        request_verbs=analyzer.uses("request-verbs"),
        folded=analyzer.uses("tokens"),
        verbs=analyzer.uses("verb-forms"),
        frame=analyzer.uses("frame-words"),
    )


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


def synonyms_file(files: Sequence[MemorySource], settings: Settings) -> Path | None:
    """The opt-in synonyms file: the setting, else `.agd-synonyms` beside the project memory."""
    configured = settings.recall_synonyms_file
    if configured:
        path = Path(configured).expanduser()
        return path if path.is_file() else None
    for mf in files:
        if mf.path is not None and mf.layer == "project":
            candidate = Path(mf.path).parent / lexicon.PROJECT_FILE_NAME
            return candidate if candidate.is_file() else None
    return None


def analyzer_for(
    files: Sequence[MemorySource], settings: Settings, features: frozenset[str] | None = None
) -> Analyzer:
    """The analyzer for these files (cached: the synonym map costs a few milliseconds).
    `features` is for the evaluation's variants; None is the measured analysis."""
    path = synonyms_file(files, settings)
    switches = None if features is None else tuple(sorted(features))
    sig: tuple = (switches, None)
    if path is not None:
        try:
            st = path.stat()
            sig = (switches, str(path), st.st_size, st.st_mtime_ns)
        except OSError:
            path = None
    cached = _ANALYZERS.get(sig)
    if cached is None:
        cached = _ANALYZERS[sig] = _load_analyzer(features, path, sig, _cache_dir(settings))
        cached.signature = sig
    return cached


def _load_analyzer(
    features: frozenset[str] | None, path: Path | None, sig: tuple, cache_dir: Path | None
) -> Analyzer:
    """An analyzer whose synonym map comes from the disk cache when it is still valid
    (building it costs more than the rest of a prompt on a small memory)."""
    if features is not None and "concepts" not in features and path is None:
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


def _cache_dir(settings: Settings) -> Path | None:
    data_dir = settings.data_dir
    return Path(data_dir) / "cache" if data_dir else None


def _part(mf: MemorySource, settings: Settings, analyzer: Analyzer) -> Part | None:
    skip_superseded = not settings.recall_allow_superseded

    def recallable(entry: Entry) -> bool:
        return is_memory(entry) and not (skip_superseded and is_superseded(entry))

    idf_over = recallable if analyzer.uses("idf-recallable") else None
    source = diskcache.file_key(mf.path) if mf.path is not None else None
    key = name = None
    if source is not None:
        sig = (analyzer.signature, skip_superseded, mf.layer)  # entries keep it
        key, name = (code_stamp(), source, sig), (source[0], sig)
        part = _PARTS.get(key)
        if part is not None:
            return part
        part = Part.load(_cache_dir(settings), name, key)
        if part is not None:
            _PARTS[key] = part
            return part
    try:
        entries = mf.entries()
    except Exception as exc:  # one broken file must not silence the others
        debuglog.log(f"recall: skipping {mf.path or mf}: {exc}")
        return None
    part = Part.build(entries, analyzer, idf_over)
    if key is not None:
        if len(_PARTS) > 32:
            _PARTS.clear()
        _PARTS[key] = part
        part.save(_cache_dir(settings), name, key)
    return part


def build_index(
    files: Sequence[MemorySource], settings: Settings, analyzer: Analyzer
) -> Index | None:
    """The index over the files' blocks; each file's analysis is cached in process and on
    disk, keyed by the file's identity and the analyzer."""
    parts = [p for mf in files if (p := _part(mf, settings, analyzer)) is not None]
    parts = [p for p in parts if p.size]
    if not parts:
        return None
    return Index(analyzer=analyzer, parts=parts)


def select_files(files: Sequence[MemorySource], settings: Settings) -> list[MemorySource]:
    """Existing files, the global layer dropped under AGD_RECALL_NO_GLOBAL, no path twice."""
    out = []
    seen: set[str] = set()
    for mf in files:
        if settings.recall_no_global and mf.layer == "global":
            continue
        if not mf.exists():
            continue
        if mf.path is not None:
            real = os.path.realpath(mf.path)
            if real in seen:
                continue
            seen.add(real)
        out.append(mf)
    return out


class Front:
    """What recall and ranked search share: the files that count, their analyzer, the
    query's content words and (built on first use) the index over the files' blocks."""

    __slots__ = ("files", "settings", "analyzer", "stop", "words", "_index", "_built")

    def __init__(
        self,
        query: str,
        files: Sequence[MemorySource],
        settings: Settings,
        features: frozenset[str] | None = None,
    ) -> None:
        self.files = select_files(files, settings)
        self.settings = settings
        text.load_builtin_lists(_cache_dir(settings))
        self.analyzer = analyzer_for(self.files, settings, features)
        tokens = self.analyzer.tokenizer(query, max(int(settings.recall_min_word_len), 1))
        self.stop = prompt_stopwords(tokens, self.analyzer, settings)
        """The stopwords of the query's languages (its clauses use the same, `words_of`)."""
        self.words = [self.analyzer.normalize(w) for w in tokens if w not in self.stop]
        self._index: Index | None = None
        self._built = False

    @property
    def index(self) -> Index | None:
        if not self._built:
            self._index = build_index(self.files, self.settings, self.analyzer)
            self._built = True
        return self._index

    def words_of(self, text: str) -> list[str]:
        """The content words of a part of the query, with the query's stopwords."""
        tokens = self.analyzer.tokenizer(text, max(int(self.settings.recall_min_word_len), 1))
        return [self.analyzer.normalize(w) for w in tokens if w not in self.stop]

    def names_a_block(self) -> bool:
        """short-gate: one of the words is a whole id or desc word of some block."""
        index = self.index
        return index is not None and index.names_an_anchor(self.words)

    def concepts(self, index: Index, words: list[str]) -> list[str]:
        """concept-keys: a word no block has takes its concept by cognate key (unless
        fuzzy matching is off)."""
        if self.settings.recall_no_fuzzy:
            return words
        return unknown_to_concepts(words, index, self.analyzer)

    def prompt(self, words: Iterable[str], *, key_words: bool = False) -> Prompt:
        """`words` as a scored query (with cognate keys unless fuzzy matching is off)."""
        fuzzy = not self.settings.recall_no_fuzzy
        return Prompt.build(words, self.analyzer, fuzzy=fuzzy, key_words=key_words)


def scored(index: Index, prompt: Prompt) -> list[Match]:
    """BM25F over every candidate block, plus the co-occurrence credit."""
    matches = score_all_bm25(index, prompt)
    return cooccurrence_matches(matches, index, prompt, index.analyzer)


def ranking_of(settings: Settings) -> policy.Ranking:
    return policy.Ranking(
        top_k=int(settings.recall_top_k),
        min_score=float(settings.recall_min_score),
        min_score_ratio=float(settings.recall_min_score_ratio),
        require_anchor=not settings.recall_allow_body_only,
        skip_superseded=not settings.recall_allow_superseded,
        fuzzy_anchor_min=int(settings.recall_fuzzy_anchor_min),
    )


def gates_of(settings: Settings, *, reference: bool = False) -> policy.Gates:
    """The prompt gates; `reference` leaves out the four measured ones (code syntax,
    creative, personal and general-knowledge requests)."""
    return policy.Gates(
        disabled=bool(settings.recall_disabled),
        max_prompt_chars=int(settings.recall_max_prompt_chars),
        code_line_ratio=float(settings.recall_code_line_ratio),
        min_words=int(settings.recall_min_words),
        code_syntax=not reference,
        creative=not reference,
        personal=not reference,
        general=not reference,
    )


def gate(prompt: str, front: Front, gates: policy.Gates, *, short_gate: bool = True) -> str | None:
    """Why the prompt gets no memory before any scoring, or None. A prompt under the word
    minimum still passes when one of its words names a block (short-gate)."""
    reason = policy.should_skip(prompt, front.words, gates)
    short = reason == policy.BELOW_MIN_WORDS and short_gate and front.files and front.words
    if short and front.names_a_block():
        reason = None
    if reason is None and not front.files:
        reason = policy.NO_MEMORY
    if reason is None and front.index is None:
        reason = policy.NO_BLOCKS
    return reason


def recall(prompt: str, files: Sequence[MemorySource], settings: Settings) -> RecallResult:
    """What auto-recall injects for `prompt` from `files` (project layer first)."""
    return rebuilding_on_corruption(_recall, prompt, files, settings)


def rebuilding_on_corruption(run, *args):
    """`run(*args)`; when a piece of a cached index does not verify, the index file is
    removed, forgotten in this process and rebuilt from the memory file, and `run` runs
    again (a corrupt cache is never believed, and never silences recall)."""
    try:
        return run(*args)
    except diskcache.Corrupt as exc:
        debuglog.log(f"recall: {exc}; rebuilding the index")
        exc.drop()
        _PARTS.clear()
        return run(*args)


def _recall(prompt: str, files: Sequence[MemorySource], settings: Settings) -> RecallResult:
    prompt = prompt or ""
    front = Front(prompt, files, settings)
    reason = gate(prompt, front, gates_of(settings))
    index = front.index if reason is None else None
    if index is None:
        return RecallResult(skipped=reason, words=front.words)
    words = front.concepts(index, front.words)
    built = front.prompt(words)
    matches = [m for m in scored(index, built) if m.doc.memory]
    if matches:
        matches = inherit_superseded(matches, index, built)
        parts = prompt_parts(prompt, front, index)
        matches = covering(matches, index, words, parts=parts, task=policy.asks_for_work(prompt))
    matches = boosted(matches, prompt)
    return ranked_within_budget(matches, settings, words)


def prompt_parts(prompt: str, front: Front, index: Index) -> list[frozenset[str]]:
    """parts: the content words of each clause of a prompt that has several (`what was
    the error, which function, what was the fix?`), each clause with at least
    PART_MIN_WORDS of them; empty for a prompt of one clause. A clause has the stopwords
    of the whole prompt's languages (too short to tell its own)."""
    parts = []
    for clause in policy.clauses(prompt):
        words = frozenset(front.concepts(index, front.words_of(clause)))
        if len(words) >= PART_MIN_WORDS:
            parts.append(words)
    return parts if len(parts) > 1 else []


def covering(
    matches: list[Match],
    index: Index,
    words: Sequence[str],
    *,
    parts: Sequence[frozenset[str]] = (),
    task: bool = False,
    multi: bool = True,
    body_only: bool = True,
    evidence: bool = True,
) -> list[Match]:
    """The blocks that account for enough of the prompt's information (its IDF mass), or
    of one of its `parts` (clauses); with `task` (a request for work), blocks other than
    rules of work need TASK_FACT_SHARE of the whole prompt. The switches are the
    evaluation's (each one measured on its own)."""
    surprise = {w: index.surprise(w) for w in set(words)}
    total = sum(surprise.values()) or 1.0
    common = {w for w in surprise if index.df_of(w) > COMMON_DF_SHARE * index.n}

    def need_of(m: Match, covered: frozenset[str]) -> float:
        if not multi:
            return COVERAGE_MIN
        if len(covered) < 2:
            return COVERAGE_MIN_SINGLE
        return KEYED_MIN_MULTI if m.doc.keys_set else COVERAGE_MIN_MULTI

    out = []
    for m in matches:
        share = sum(surprise[w] for w in m.covered) / total
        if task and m.doc.kind != "x-feedback" and share < TASK_FACT_SHARE:
            continue
        if share < need_of(m, m.covered):
            share = _part_share(m, parts, surprise, need_of, common)
            if share is None:
                continue
            m = m._replace(score=m.score * PART_DEMOTE)
        if body_only and share >= BODY_ONLY_COVERAGE and not m.anchor_exact:
            # a block whose body explains most of the prompt needs no anchor word
            m = m._replace(anchor_exact=m.covered)
        if (
            evidence
            and not m.anchor_exact
            and share >= EVIDENCE_COVERAGE
            and len(m.covered) >= EVIDENCE_WORDS
        ):
            # several distinct prompt words in the body are evidence enough: one word
            # can be a coincidence, two that carry a third of the prompt rarely are
            m = m._replace(anchor_exact=m.covered)
        out.append(m)
    return out


def _part_share(
    m: Match,
    parts: Sequence[frozenset[str]],
    surprise: dict[str, float],
    need_of,
    common: set[str],
) -> float | None:
    """parts: the best share the block has of one part of the prompt that it matches
    with PART_MIN_WORDS distinctive words or more, one of them an anchor (id, desc or
    keys), and enough of that part's mass; None when none."""
    best = None
    for part in parts:
        covered = m.covered & part
        if len(whole_words(covered - common)) < PART_MIN_WORDS or not covered & m.anchor_exact:
            continue
        share = sum(surprise[w] for w in covered) / (sum(surprise[w] for w in part) or 1.0)
        if share >= need_of(m, covered) and (best is None or share > best):
            best = share
    return best


def whole_words(words: frozenset[str]) -> set[str]:
    """`words` less those that are a part of another one of them: `iPhone` gives the tokens
    `iphone` and `phone`, `LazyLock` gives `lazylock`, `lazy` and `lock`: one word each."""
    bare = {w: w.lstrip("~") for w in words}
    return {w for w in words if not any(v != w and bare[w] in bare[v] for v in words)}


def boosted(
    matches: list[Match], prompt: str, *, where: bool = True, task: bool = True
) -> list[Match]:
    """A where-question lifts reference entries, a request for work feedback entries."""
    if where and matches and policy.WHERE_QUESTION.search(prompt):
        matches = _boost_kind(matches, "x-reference", WHERE_BOOST)
    if task and matches and policy.asks_for_work(prompt):
        matches = _boost_kind(matches, "x-feedback", TASK_BOOST)
    return matches


def ranked_within_budget(
    matches: list[Match], settings: Settings, words: list[str], *, exact_budget: bool = True
) -> RecallResult:
    ranked = policy.rank(matches, ranking_of(settings))
    if not ranked:
        return RecallResult(skipped=policy.NO_MATCH, words=words)
    return _within_budget(ranked, settings, words, exact_budget)


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
            for i in p.posting(w):
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
    matches: list[Match], index: Index, prompt: Prompt, *, bm25: bool = True
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
    ranked: list[Match], settings: Settings, words: list[str], exact: bool
) -> RecallResult:
    budget = int(settings.recall_token_budget) * policy.CHARS_PER_TOKEN
    from ..hygiene.verdicts import stale_among  # the last code check's verdicts, no code read

    stale = stale_among((m.doc.entry for m in ranked), _cache_dir(settings))
    if stale:  # entries citing changed code go below the fresh ones
        ranked = sorted(ranked, key=lambda m: (str(m.doc.entry.path), m.doc.entry.id) in stale)
    # keys are for matching, code= for `stale`: the model reads the fact
    texts = [m.doc.entry.to_agd(drop=("keys", "code")) for m in ranked]
    if exact:  # exact-budget: measured on the text actually injected
        sizes = [len(t) + 1 for t in texts]
    else:
        from . import render

        sizes = [len(render.reference_text(m.doc.entry)) for m in ranked]
    keep = policy.fit_budget(sizes, budget) if budget > 0 else 0
    if keep == 0:
        return RecallResult(skipped=policy.BUDGET, words=words)
    chosen = [
        Scored(
            m.doc.entry,
            m.score,
            m.doc.entry.layer or "",
            t,
            (str(m.doc.entry.path), m.doc.entry.id) in stale,
        )
        for m, t in zip(ranked[:keep], texts[:keep], strict=True)
    ]
    return RecallResult(skipped=None, chosen=chosen, words=words)


__all__ = ["RecallResult", "Scored", "recall"]
