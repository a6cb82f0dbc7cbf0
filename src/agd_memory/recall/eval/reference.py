"""The earlier plugin's score formula (agd-memory-plugin §5.4), the baseline's scorer.

Only the evaluation runs this (`variants`, with the `bm25` feature off). For prompt token
set P and a block with id tokens I, desc tokens D, kind tokens K and body token list B:

    field(F, boost) = boost * (sum w(p) for p in P&F  +  0.5 * sum w(p) for cognate-only p)
    raw   = field(I, 3) + field(D, 3) + field(K, 2) + body part
    score = raw / (1 + ln(1 + |B|))

with w(t) = ln((N+1)/(df(t)+1)) + 1 for a word of the corpus, else 1.0. The body part
adds w(t) per occurrence of a prompt word and, when some prompt word is a cognate
of a body word, 0.5 * w(t) per occurrence of a body word whose cognate key is in the
prompt.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .. import cognates
from ..index import Doc, Index
from ..scoring import Match, Prompt, candidates

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ...store.entry import Entry

FENCE = "~~~"
"""The fence of the reference's rendering (`reference_text`)."""
FIELD_BOOST_ID = 3.0
FIELD_BOOST_DESC = 3.0
FIELD_BOOST_KIND = 2.0


def _field(
    tokens: frozenset[str], doc: Doc, prompt: Prompt, w: Callable[[str], float]
) -> tuple[float, frozenset[str], frozenset[str]]:
    exact = prompt.words & tokens
    fuzzy: set[str] = set()
    if prompt.cognates:
        for t in tokens:
            k = doc.keys.get(t)
            if k is not None and k in prompt.cognates:
                fuzzy |= prompt.cognates[k]
        fuzzy -= exact
    value = sum(w(p) for p in exact) + cognates.WEIGHT * sum(w(p) for p in fuzzy)
    return value, exact, frozenset(fuzzy)


_NONE: frozenset[str] = frozenset()


def score_doc(doc: Doc, prompt: Prompt, w: Callable[[str], float]) -> Match:
    """The reference score of one block (see the module docstring)."""
    id_v, id_e, id_z = _field(doc.id_set, doc, prompt, w)
    desc_v, desc_e, desc_z = _field(doc.desc_set, doc, prompt, w)
    kind_v, kind_e, _ = (
        _field(doc.kind_set, doc, prompt, w) if doc.kind_set else (0.0, _NONE, _NONE)
    )
    raw = FIELD_BOOST_ID * id_v + FIELD_BOOST_DESC * desc_v + FIELD_BOOST_KIND * kind_v
    body_exact = prompt.words & doc.body.keys()
    for t in body_exact:
        raw += doc.body[t] * w(t)
    body_cognates: set[str] = set()
    if prompt.cognates:
        # the reference adds body cognates only when some prompt word is a cognate-only
        # match of the body, and then weights each body occurrence by the *body* word
        has_fuzzy = False
        fuzzy_sum = 0.0
        for t, count in doc.body.items():
            k = doc.keys.get(t)
            if k is None or k not in prompt.cognates:
                continue
            if prompt.cognates[k] - body_exact:
                has_fuzzy = True
                body_cognates |= prompt.cognates[k]
            if t not in prompt.words:
                fuzzy_sum += count * w(t)
        if has_fuzzy:
            raw += cognates.WEIGHT * fuzzy_sum
    score = raw / (1.0 + math.log(1.0 + doc.body_len)) if raw > 0 else 0.0
    anchor_exact = id_e | desc_e
    return Match(
        doc=doc,
        score=score,
        anchor_exact=anchor_exact,
        anchor_cognates=(id_z | desc_z) - anchor_exact,
        matched=anchor_exact | kind_e | body_exact,
        covered=anchor_exact | kind_e | body_exact | id_z | desc_z | body_cognates,
    )


def score_all(index: Index, prompt: Prompt) -> list[Match]:
    """Matches for every candidate block, in file order (zero scores included)."""
    return [score_doc(index.doc(i), prompt, index.weight) for i in candidates(index, prompt)]


def reference_text(entry: Entry) -> str:
    """The reference's internal rendering, which its budget measures: kind, desc, refs, id."""
    head = "@" + str(entry.kind)
    desc = entry.desc
    if desc:
        head += ' desc="' + str(desc).replace("\\", "\\\\").replace('"', '\\"') + '"'
    refs = entry.refs or ()
    if refs:
        head += ' refs="' + ",".join(f"#{r}" for r in refs) + '"'
    body = entry.body or ""
    return f"{head} [#{entry.id}]\n{FENCE}\n{body}\n{FENCE}\n"


def score(doc: Doc, prompt: Prompt, index: Index) -> Match:
    """`score_doc` with the index's IDF weights (the signature the engine's steps take)."""
    return score_doc(doc, prompt, index.weight)
