"""Auto-recall for one prompt: gates, index, ranking, budget. Standard library only.

`recall(prompt, files, settings)` is what the UserPromptSubmit hook, `agd-memory
recall` and the eval all run, so what the eval measures is what the hook injects.
It is the measured algorithm, frozen, with no switches: the reference algorithm and the
switches that measured each change over it live with the evaluation
(`recall.eval.variants`), which composes the steps below. `front` is what recall and
ranked search share (the files, the analyzer, the index, the query words) and
`cooccurrence.scored` how both score; they differ only after it.
Nothing here spawns a process or reads the environment: `settings` carries it all.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Collection, Sequence

from . import policy
from .cooccurrence import scored
from .front import Front, MemorySource, cache_dir, rebuilding_on_corruption
from .index import Index
from .scoring import Match, Prompt, score_bm25

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..settings import Settings
    from ..store.entry import Entry

BODY_ONLY_COVERAGE = 0.6
"""body-coverage: a block matching this share of the prompt in its body alone is anchored."""
COVERAGE_MIN_SINGLE = 0.35
COVERAGE_MIN_MULTI = 0.25
"""coverage-multi: the shares required of a block matching one prompt word, and two or more
distinct ones (a single shared word is the usual coincidence, two rarely are). With keys or
without: since keys are written in each of the user's languages, one share of 0.25 (it was
0.2, and 0.3 for a match through keys) gained on the sets written by strangers, and on two
run once to decide it (benchmarks/README.md, issue 26's fifth pass)."""
WHERE_BOOST = 2.0
"""where-reference: a reference entry's score is multiplied by this for a where-question
(1.5 until blocks ranked by their share of the prompt, which outweighed it; 2 is within 3
of 1.5 on every set and keeps the manual first for `where are the scanner's codes?`)."""
TASK_BOOST = 2.0
"""task-feedback: a feedback entry's score is multiplied by this for a request for work
(1.3 to 3 gave the same hits on the dev set, 2 to 3 on the held-out and fresh sets)."""
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
`file`) is not distinctive: it cannot single out the block a part asks about. A word of
one block always singles it out, in a memory of two blocks too."""
TASK_FACT_SHARE = 0.6
"""task-facts: for a request for work, a block that is not a rule of work (feedback) must
match this share of the prompt: a task shares the project's words with many facts, and
the facts it needs are the ones it names (0.5 until issue 26's sixth pass: 0.6 was level
or better on every set, and ahead on four run once to decide it; benchmarks/README.md)."""
TASK_RULE_SHARE = 0.5
"""task-rules: for a request for work, a rule of work matched by at most one word the user
wrote of its id, desc or keys (the rest in its body) must match this share of the prompt: a
rule is about the work when the prompt names it in the rule's own words; a few body words
are the project's words by coincidence (`add a health endpoint ...` and the rule on money
as Decimal). Chosen among 0.4 and 0.5 on four sets run once to decide it (in-project false
injections 33 -> 23, no answer lost there); a short request that names a rule in one word
keeps it by its share (benchmarks/README.md, issue 26's eighth pass)."""
UNNAMED_WORDS = 3
"""unnamed: a block matching at most this many written words of the prompt, none of them in
its id or desc (only in its body or keys), needs the share of a one-word match: the words
that name a fact are the evidence that a prompt is about it; two or three of the words it
mentions, or that a model guessed it might be asked with, are often the project's words by
coincidence. Chosen against a block named by no anchor at all (keys included) on four sets
run once to decide it (in-project false injections 43 -> 41, no answer lost there;
benchmarks/README.md, issue 26's ninth pass)."""
CUE_NEED = 0.6
PLAIN_NEED = 1.2
OWN_NEED = 1.0
"""cue: a prompt that refers to the team's own past (`policy.cue_of`: `what did we decide`,
`l'ultima volta`) asks for what a memory holds, and a block needs CUE_NEED of the usual
share; cue-own: one that only speaks of the team's own (`our deploy`, `we need`) is about
the project, not always its past, and a block needs OWN_NEED of it; cue-strict: any other
prompt (a task, a how-to) shares the project's words with many blocks, and a block needs
PLAIN_NEED of it, never more than COVERAGE_MIN_SINGLE.
Chosen among four candidates on four sets run once to decide it: in-project false
injections 98 -> 75, hit@1 and recall@3 one and two higher; the words of time (before,
ieri, ...) joined the cue words on four more (benchmarks/README.md, issue 26's seventh
pass); CUE_NEED 0.7 instead of 0.8, OWN_NEED (1.0 against 0.9 and the cue's 0.7), then
CUE_NEED 0.6, each on four more again (issue 26's eighth pass). PLAIN_NEED 1.1 lost by a
point on four more (issue 26's ninth pass)."""
COMPANION_SHARE = 0.15
COMPANION_TOKENS = 400
"""companions: once a block passes every gate, the blocks the prompt names (an anchor
word) that hold this share of its information fill the places left below top_k, after
it, while the whole injection stays within this many tokens (the median the issue allows).
They cannot add a false injection (they join one that happens anyway) nor move the first
place; they raised recall@3 on four sets run once to decide it, for about 100 tokens more
per answer then (share-rank took most of it back; benchmarks/README.md, issue 26's sixth
pass)."""


# Scored and RecallResult are not dataclasses (nor `typing.NamedTuple`): the prompt hook
# imports this module in every process, and `dataclasses` costs ~8 ms to import.


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

    def render(self, earlier: Collection[int] = ()) -> str:
        """The additionalContext text: a header naming the blocks, then each block as AGD,
        but for those at the positions `earlier` in `chosen` (their text is already in the
        conversation) only a line with the id and desc (`render.named`)."""
        if self.skipped or not self.chosen:
            return ""
        from . import render  # only a prompt that injects pays for the renderer

        ids = [str(s.entry.id) for s in self.chosen]
        stale = [str(s.entry.id) for s in self.chosen if s.stale]
        held = [ids[i] for i in sorted(earlier)]
        head = render.header(ids, stale, [s.layer for s in self.chosen], held)
        texts = [
            render.named(s.entry) if i in earlier else s.text for i, s in enumerate(self.chosen)
        ]
        return head + "\n" + "".join("\n" + t for t in texts)

    @property
    def injected_chars(self) -> int:
        return len(self.render())


def ranking_of(settings: Settings) -> policy.Ranking:
    return policy.Ranking(
        top_k=int(settings.recall_top_k),
        min_score=float(settings.recall_min_score),
        min_score_ratio=float(settings.recall_min_score_ratio),
        require_anchor=not settings.recall_allow_body_only,
        skip_superseded=not settings.recall_allow_superseded,
        fuzzy_anchor_min=int(settings.recall_fuzzy_anchor_min),
    )


def gates_of(settings: Settings) -> policy.Gates:
    """The prompt gates, every measured one on."""
    return policy.Gates(
        disabled=bool(settings.recall_disabled),
        max_prompt_chars=int(settings.recall_max_prompt_chars),
        code_line_ratio=float(settings.recall_code_line_ratio),
        min_words=int(settings.recall_min_words),
        code_syntax=True,
        creative=True,
        personal=True,
        general=True,
    )


def gate(prompt: str, front: Front, gates: policy.Gates) -> str | None:
    """Why the prompt gets no memory before any scoring, or None. A prompt under the word
    minimum still passes when one of its words names a block (short-gate)."""
    reason = policy.should_skip(prompt, front.words, gates)
    short = reason == policy.BELOW_MIN_WORDS and front.files and front.words
    if short and front.names_a_block():
        reason = None
    return reason or nothing_to_recall(front)


def nothing_to_recall(front: Front) -> str | None:
    """no-memory when no file counts, no-blocks when they hold no block; else None."""
    if not front.files:
        return policy.NO_MEMORY
    if front.index is None:
        return policy.NO_BLOCKS
    return None


def recall(prompt: str, files: Sequence[MemorySource], settings: Settings) -> RecallResult:
    """What auto-recall injects for `prompt` from `files` (project layer first)."""
    return rebuilding_on_corruption(_recall, prompt, files, settings)


def _recall(prompt: str, files: Sequence[MemorySource], settings: Settings) -> RecallResult:
    prompt = prompt or ""
    front = Front(prompt, files, settings)
    reason = gate(prompt, front, gates_of(settings))
    index = front.index if reason is None else None
    if index is None:
        return RecallResult(skipped=reason, words=front.words)
    words, built, matches = _entries_matching(front, index)
    if not matches:
        return ranked_within_budget(matches, settings, words)
    task = policy.asks_for_work(prompt)  # once: it reads every clause of the prompt
    matches = inherit_superseded(matches, index, built)
    parts = prompt_parts(prompt, front, index)
    units = written_words(prompt, front, index)
    scale = need_scale(prompt)
    passed = covering(matches, index, words, parts=parts, task=task, units=units, scale=scale)
    passed = task_boosted(where_boosted(passed, prompt), task)
    others = holding(matches, index, words, COMPANION_SHARE)
    return ranked_within_budget(passed, settings, words, companions=others)


class NearMiss(namedtuple("NearMiss", "entry share need")):
    """A block auto-recall did not inject for a prompt: the share of the prompt's
    information it holds and the share it needed (`near_misses`)."""

    __slots__ = ()

    entry: Entry
    share: float
    need: float


def near_misses(
    prompt: str, files: Sequence[MemorySource], settings: Settings, limit: int = 3
) -> list[NearMiss]:
    """The best-scored blocks for a prompt that passed the gates, with the share of its
    information each holds and the share it needs (a request for work asks more of a
    fact): what `agd-memory recall` shows when it stays silent, so the user sees why."""
    front = Front(prompt or "", files, settings)
    index = front.index if gate(prompt or "", front, gates_of(settings)) is None else None
    if index is None:
        return []
    words, _, matches = _entries_matching(front, index)
    matches.sort(key=policy.sort_key)
    surprise = {w: index.surprise(w) for w in set(words)}
    units, scale = written_words(prompt, front, index), need_scale(prompt)
    task = policy.asks_for_work(prompt)
    out = []
    for m in matches[:limit]:
        need = needed_share(named_evidence(m, evidence(m.covered, units)), scale)
        need = max(need, task_need(m, task, units, index))
        out.append(NearMiss(m.doc.entry, share_of(m, surprise), need))
    return out


def _entries_matching(front: Front, index: Index) -> tuple[list[str], Prompt, list[Match]]:
    """The prompt's words (with their concepts), the query they make, and the memory
    entries it scores (not headings or meta)."""
    words = front.concepts(index, front.words)
    built = front.prompt(words)
    return words, built, [m for m in scored(index, built) if m.doc.memory]


def need_scale(prompt: str, *, cue: bool = True, strict: bool = True) -> float:
    """cue, cue-own, cue-strict: what the share a block needs is multiplied by for this
    prompt; the evaluation turns `cue` (a prompt with cue words) or `strict` (one without)
    off, to 1."""
    kind = policy.cue_of(prompt)
    if kind is None:
        return PLAIN_NEED if strict else 1.0
    if not cue:
        return 1.0
    return CUE_NEED if kind == "past" else OWN_NEED


def task_need(m: Match, task: bool, units: Sequence[frozenset[str]], index: Index) -> float:
    """task-facts, task-rules: the share of a request for work the block must match, whatever
    else holds: TASK_FACT_SHARE for a fact; TASK_RULE_SHARE for a rule of work that the prompt
    names by at most one written word of its id, desc or keys, unless that word is the rule's
    alone (`backfill` for the rule on backfills); 0 otherwise."""
    if not task:
        return 0.0
    if m.doc.kind != "x-feedback":
        return TASK_FACT_SHARE
    named = m.covered & m.anchor_exact
    if evidence(named, units) >= 2 or any(index.df_of(w) <= 1 for w in named):
        return 0.0
    return TASK_RULE_SHARE


def named_evidence(m: Match, distinct: int) -> int:
    """unnamed: the written words of the prompt the block `m` matches (`distinct`) as they
    count for the share it needs: one when they are at most UNNAMED_WORDS and none of them
    is in its id or desc."""
    if 1 < distinct <= UNNAMED_WORDS and not m.covered & (m.doc.id_set | m.doc.desc_set):
        return 1
    return distinct


def needed_share(
    distinct: int, scale: float, need_of: Callable[[int], float] | None = None
) -> float:
    """The share of the prompt a block matching `distinct` of its written words needs:
    `need_of`'s (coverage-multi unless the evaluation passes another) times `scale`, never
    above COVERAGE_MIN_SINGLE: in a memory of a few blocks, whose words weigh little
    against the words it lacks, a higher bar would silence a prompt that names a block."""
    return min((need_of or coverage_need)(distinct) * scale, COVERAGE_MIN_SINGLE)


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


def written_words(prompt: str, front: Front, index: Index) -> list[frozenset[str]]:
    """units: the words the user wrote (split at white space) that give several content
    words: `packages/shared` gives `packag` and `shar`, `iPhone` gives `iphone` and
    `phone`. Each written word is one piece of evidence however many it gives (a word
    that gives one needs no entry here)."""
    several = (words for words in map(front.words_of, prompt.split()) if len(words) > 1)
    return [u for u in (frozenset(front.concepts(index, w)) for w in several) if len(u) > 1]


def evidence(covered: frozenset[str], units: Sequence[frozenset[str]]) -> int:
    """units: how many written words of the prompt the words `covered` come from, each of
    `units` (`written_words`) counting once; without `units`, how many words they are."""
    if len(covered) < 2:
        return len(covered)
    groups = {g for g in (u & covered for u in units) if len(g) > 1}  # one word counts as one
    if not groups:
        return len(covered)
    groups = {g for g in groups if not any(g < h for h in groups)}
    return len(groups) + len(covered.difference(*groups))


def covering(
    matches: list[Match],
    index: Index,
    words: Sequence[str],
    *,
    parts: Sequence[frozenset[str]] = (),
    task: bool = False,
    units: Sequence[frozenset[str]] = (),
    scale: float = 1.0,
    need_of: Callable[[int], float] | None = None,
    anchor_rules: Sequence[Callable[[Match, float, int], Match]] | None = None,
    weigh: bool = True,
    unnamed: bool = True,
) -> list[Match]:
    """The blocks that account for enough of the prompt's information (its IDF mass), or
    of one of its `parts` (clauses); with `task` (a request for work), blocks other than
    rules of work need TASK_FACT_SHARE of the whole prompt, and rules it names by at most
    one of their own words TASK_RULE_SHARE (`task_need`). `need_of` (the share a block
    needs, given the prompt words it matches) and `anchor_rules` (a share that anchors a
    block) are the measured rules unless the evaluation passes others. With `weigh`
    (share-rank), each block carries its share of the whole prompt, which it ranks by.
    Distinct words are counted as written (`units`, `evidence`); `scale` multiplies the
    share a block needs (cue, `needed_share`). An anchor rule takes the block, its share
    and the number of distinct prompt words it matches."""
    need_of = coverage_need if need_of is None else need_of
    anchor_rules = (body_anchored, evidence_anchored) if anchor_rules is None else anchor_rules
    surprise = {w: index.surprise(w) for w in set(words)}
    common = {w for w in surprise if index.df_of(w) > max(1, COMMON_DF_SHARE * index.n)}

    def need(distinct: int) -> float:
        return needed_share(distinct, scale, need_of)

    out = []
    for m in matches:
        share = whole = share_of(m, surprise)
        if share < task_need(m, task, units, index):
            continue
        distinct = evidence(m.covered, units)
        if share < need(named_evidence(m, distinct) if unnamed else distinct):
            share = _part_share(m, parts, surprise, need, common, units)
            if share is None:
                continue
            m = m._replace(score=m.score * PART_DEMOTE)
        for rule in anchor_rules:
            m = rule(m, share, distinct)
        out.append(m._replace(share=whole) if weigh else m)
    return out


def share_of(m: Match, surprise: dict[str, float]) -> float:
    """The share of the prompt's information (`surprise`: each prompt word's weight) that
    the block matches."""
    return sum(surprise[w] for w in m.covered) / (sum(surprise.values()) or 1.0)


def holding(
    matches: list[Match], index: Index, words: Sequence[str], share: float, *, weigh: bool = True
) -> list[Match]:
    """The blocks of `matches` that match at least `share` of the prompt's information,
    each with its share for ranking with `weigh` (share-rank), as `covering` does."""
    surprise = {w: index.surprise(w) for w in set(words)}
    shares = ((m, share_of(m, surprise)) for m in matches)
    return [m._replace(share=s) if weigh else m for m, s in shares if s >= share]


def coverage_need(distinct: int) -> float:
    """coverage-multi: the share a block matching `distinct` prompt words needs."""
    return COVERAGE_MIN_SINGLE if distinct < 2 else COVERAGE_MIN_MULTI


def body_anchored(m: Match, share: float, distinct: int) -> Match:
    """body-coverage: a block whose body explains most of the prompt needs no anchor word."""
    if share >= BODY_ONLY_COVERAGE and not m.anchor_exact:
        return m._replace(anchor_exact=m.covered)
    return m


def evidence_anchored(m: Match, share: float, distinct: int) -> Match:
    """evidence: several distinct prompt words in the body are evidence enough: one word
    can be a coincidence, two that carry a third of the prompt rarely are."""
    if not m.anchor_exact and share >= EVIDENCE_COVERAGE and distinct >= EVIDENCE_WORDS:
        return m._replace(anchor_exact=m.covered)
    return m


def _part_share(
    m: Match,
    parts: Sequence[frozenset[str]],
    surprise: dict[str, float],
    need: Callable[[int], float],
    common: set[str],
    units: Sequence[frozenset[str]],
) -> float | None:
    """parts: the best share the block has of one part of the prompt that it matches
    with PART_MIN_WORDS distinctive words or more, one of them an anchor (id, desc or
    keys), and enough of that part's mass; None when none."""
    best = None
    for part in parts:
        covered = m.covered & part
        distinct = evidence(frozenset(whole_words(covered - common)), units)
        if distinct < PART_MIN_WORDS or not covered & m.anchor_exact:
            continue
        share = sum(surprise[w] for w in covered) / (sum(surprise[w] for w in part) or 1.0)
        if share >= need(evidence(covered, units)) and (best is None or share > best):
            best = share
    return best


def whole_words(words: frozenset[str]) -> set[str]:
    """`words` less those that are a part of another one of them: `iPhone` gives the tokens
    `iphone` and `phone`, `LazyLock` gives `lazylock`, `lazy` and `lock`: one word each."""
    bare = {w: w.lstrip("~") for w in words}
    return {w for w in words if not any(v != w and bare[w] in bare[v] for v in words)}


def where_boosted(matches: list[Match], prompt: str) -> list[Match]:
    """where-reference: a where-question lifts reference entries (links, manuals, places)."""
    if matches and policy.WHERE_QUESTION.search(prompt):
        matches = _boost_kind(matches, "x-reference", WHERE_BOOST)
    return matches


def task_boosted(matches: list[Match], task: bool) -> list[Match]:
    """task-feedback: a request for work (`task`: `policy.asks_for_work`) lifts feedback
    entries (rules of work)."""
    if matches and task:
        matches = _boost_kind(matches, "x-feedback", TASK_BOOST)
    return matches


def ranked_within_budget(
    matches: list[Match],
    settings: Settings,
    words: list[str],
    *,
    sizes_of: Callable[[list[Match]], list[int]] | None = None,
    companions: Sequence[Match] = (),
) -> RecallResult:
    """The ranked blocks, then those of `companions` that may join them, that fit the
    token budget, measured on the text injected (exact-budget) unless the evaluation
    passes another measure, `sizes_of`."""
    ranking = ranking_of(settings)
    ranked = policy.rank(matches, ranking)
    if not ranked:
        return RecallResult(skipped=policy.NO_MATCH, words=words)
    ranked += joining(ranked, companions, ranking)
    return _within_budget(ranked, settings, words, sizes_of)


def joining(ranked: list[Match], companions: Sequence[Match], ranking: policy.Ranking) -> list[Match]:
    """companions: the blocks of `companions` that join the `ranked` ones, best first:
    not already there, above the ranking's floor, anchored and not superseded as the
    ranking requires, while there are places below top_k and the injection stays within
    COMPANION_TOKENS."""
    taken = {id(m.doc) for m in ranked}
    room = COMPANION_TOKENS * policy.CHARS_PER_TOKEN - sum(_size(m) for m in ranked)
    out: list[Match] = []
    for m in sorted(companions, key=policy.sort_key):
        if len(ranked) + len(out) >= ranking.top_k:
            break
        if id(m.doc) in taken or not policy.above_floors(m, ranked[0], ranking):
            continue
        if ranking.skip_superseded and m.doc.status == "superseded":
            continue
        if ranking.require_anchor and not policy.anchored(m, ranking.fuzzy_anchor_min):
            continue
        size = _size(m)
        if size <= room:
            out.append(m)
            room -= size
    return out


def _injected(m: Match) -> str:
    """The text injected for a block: keys are for matching, code= for `stale`; the model
    reads the fact."""
    return m.doc.entry.to_agd(drop=("keys", "code"))


def _size(m: Match) -> int:
    return len(_injected(m)) + 1


def _boost_kind(matches: list[Match], kind: str, factor: float) -> list[Match]:
    return [m._replace(score=m.score * factor) if m.doc.kind == kind else m for m in matches]


def inherit_superseded(
    matches: list[Match],
    index: Index,
    prompt: Prompt,
    *,
    score: Callable[..., Match] = score_bm25,
) -> list[Match]:
    """A block that supersedes another takes over the old block's evidence when it is
    stronger: a prompt naming the old way (`Dropbox backups`) is about the topic whose
    current answer is the new block, even when the new block shares no word with it.
    The old block itself stays out (superseded). `score(doc, prompt, index)` scores the
    new block (the evaluation's reference passes its own)."""
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
            new = score(doc, prompt, index)
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
    ranked: list[Match],
    settings: Settings,
    words: list[str],
    sizes_of: Callable[[list[Match]], list[int]] | None,
) -> RecallResult:
    budget = int(settings.recall_token_budget) * policy.CHARS_PER_TOKEN
    from ..hygiene.verdicts import stale_among  # the last code check's verdicts, no code read

    stale = stale_among((m.doc.entry for m in ranked), cache_dir(settings))
    if stale:  # entries citing changed code go below the fresh ones
        ranked = sorted(ranked, key=lambda m: (str(m.doc.entry.path), m.doc.entry.id) in stale)
    texts = [_injected(m) for m in ranked]
    # exact-budget: measured on the text actually injected
    sizes = [len(t) + 1 for t in texts] if sizes_of is None else sizes_of(ranked)
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
