"""The measured changes over the reference recall, each one named so the eval can switch it.

`REFERENCE` (the empty set) is the reference algorithm of agd-memory-plugin §5.4 as
faithfully as the description allows; `DEFAULT` is what the hook runs. A change is
in `DEFAULT` only when `agd-memory eval` on the development set showed it helps
(see benchmarks/README.md, "Recall quality and latency", for the step-by-step table);
the changes measured and not kept there were removed from the code (prf, coord, stem-multi,
everyday, more-stopwords, unique-anchor: in git history up to commit 5d31bd3).
These are engineering switches for the evaluation, not user settings: a user tunes
recall with the `AGD_RECALL_*` variables.
"""

from __future__ import annotations

FEATURES: dict[str, str] = {
    "tokens": "identifier splitting, short technical tokens, accent folding, CJK bigrams",
    "idf-recallable": "IDF over the entries recall can return (not headings, meta, superseded)",
    "entries-only": "only memory entries are candidates (headings and meta never injected)",
    "no-kind": "the kind is not a scored field (a prompt saying `project` lifts no block)",
    "bm25": "BM25F ranking (field weights, saturation, length normalisation) instead of the reference sum",
    "coverage": "a block must account for a share of the prompt's information (IDF-weighted)",
    "coverage-multi": "a block matching two or more distinct prompt words needs a smaller share than one matching a single word",
    "inherit": "a block that supersedes another takes over the old block's match when it is stronger",
    "body-coverage": "a block whose body alone accounts for most of the prompt needs no anchor",
    "evidence": "a block whose body matches several distinct prompt words (enough of its IDF mass) needs no anchor",
    "parts": "a block may account for one clause of a prompt of several (a multi-part question) instead of the whole prompt",
    "task-facts": "for a request for work (add ..., how do I ...), a block other than a rule of work (feedback) must account for 60% of the prompt, and a rule it names by at most one word of the rule's id, desc or keys (none the rule's alone) for 50%",
    "request-verbs": "request verbs and politeness words are stopwords (make, use, please, ...)",
    "all-langs": "with no language configured, each prompt uses the built-in lists of the languages it is written in",
    "concepts": "built-in cross-language word groups (invoice = fattura = factura = Rechnung ...)",
    "concept-keys": "a prompt word no block has takes the concept whose words share its cognate key (despliego -> deploy)",
    "stem": "a light suffix-stripping stemmer on both sides",
    "cognates": "cognate keys that survive spelling shifts between languages (ph/f, ct/tt, double letters)",
    "verb-forms": "every form of the common verbs is a stopword (en do/have/be/make/get/go/want/need, it fare/avere/essere/potere/dovere/volere/andare/stare)",
    "frame-words": "function words the reference lists lack and a question's frame words (remind, happened, evolve, trace, initial) are stopwords (en, it)",
    "cooc": "a block lacking a rare prompt word is credited with it when it has the words that co-occur with it in the memory (PMI)",
    "short-gate": "a prompt under the word minimum passes when its words hit an id or desc exactly",
    "keys": "the `keys` attribute (search terms written with the block) is a field: whole keys match, two key words anchor, keyed blocks need more coverage",
    "key-cognates": "a word of a key is also met by its cognate in the prompt (ridimensionare foto ~ ridimensioniamo le foto)",
    "code-syntax": "the code-paste gate also counts lines that read as code (a short snippet above a question)",
    "creative": "a prompt asking for a poem, song, rhyme or joke gets no memory, whatever its subject",
    "personal": "a prompt about the user's family, friends, pets or doctor gets no memory, whatever its words",
    "general": "a question of general knowledge (explain ..., what's the difference between X and Y, is it better to ...) gets no memory",
    "where-reference": "a where-question ranks reference entries (links, manuals, places) higher",
    "task-feedback": "a request for work (add, write, fix, ...) ranks feedback entries (the project's rules of work) higher",
    "dates": "an ISO date in a block also reads as its month's name (2026-02-18 -> february, febbraio)",
    "exact-budget": "the budget is measured on the text actually injected",
    "share-rank": "blocks rank by their score times their share of the prompt's information (how much of it they account for)",
    "units": "distinct prompt words are counted as the user wrote them: `packages/shared` or `iPhone` is one piece of evidence",
    "cue": "a prompt that refers to the team's own past (did, last, abbiamo, ...) needs 0.6 of the coverage share, one whose only cue words are the team's own (we, our, ...) 1.0",
    "cue-strict": "a prompt that does not refer to the team's own past needs 1.2 of the coverage share (never more than a single word's)",
    "unnamed": "a block matching two or three written words of the prompt, none of them in its id or desc, needs the share of a one-word match",
    "companions": "once a block passes every gate, blocks the prompt names holding 15% of it fill the places left, within 400 tokens",
}

REFERENCE: frozenset[str] = frozenset()
DEFAULT: frozenset[str] = frozenset(FEATURES)


def parse(spec: str) -> frozenset[str]:
    """`reference`, `default`, a comma list of names (exactly those), or changes to the
    default: `-stem,-cognates` removes, `+stem` adds back. Unknown names raise ValueError."""
    spec = spec.strip()
    if spec in ("", "reference", "none"):
        return REFERENCE
    if spec in ("default", "all"):
        return DEFAULT
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if all(n[0] in "+-" for n in names):
        result = set(DEFAULT)
        for n in names:
            _check(n[1:])
            (result.add if n[0] == "+" else result.discard)(n[1:])
        return frozenset(result)
    result = set()
    for n in names:
        _check(n)
        result.add(n)
    return frozenset(result)


def _check(name: str) -> None:
    if name not in FEATURES:
        known = ", ".join(FEATURES)
        raise ValueError(f"unknown recall feature {name!r} (known: {known})")
