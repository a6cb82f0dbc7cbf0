"""The analyzer: text to index tokens, the same way on the prompt and on the blocks.

Per word: the tokenizer (`text`), then the stemmer, then the synonym concept
(`lexicon`); cognate keys (`cognates`) are computed on the result. Every step is
memoised per distinct word, because words repeat across thousands of blocks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from . import cognates, lexicon
from .text import Tokenizer

BLOCK_MIN_LEN = 3
"""Block text always uses 3 as the minimum word length (reference)."""

ISO_MONTH = r"\b(?:19|20)\d\d-(0[1-9]|1[0-2])\b"
"""A year and month (`2026-03`); compiled on first use by `re`'s cache."""
MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
"""dates: an ISO date (`2026-02-18`, `2026-04`) also gives its month's English name,
which the concept groups carry into the other languages (`febbraio`, `Februar`)."""


CONCEPT_PREFIX = 6
"""concept-keys: letters a word must share with a concept's word, beyond the cognate key."""


ENDING = 3
"""concept-keys: the most letters a word of the lists may have beyond the start it shares
with the prompt word (an inflection's ending; a longer tail builds another word)."""


def _inflects(token: str, listed: str) -> bool:
    """Whether `listed` is `token`'s start plus an ending of at most ENDING letters
    (`aggiornare` for `aggiorn`, not `actualizar` for `actual`)."""
    n = 0
    while n < len(token) and n < len(listed) and token[n] == listed[n]:
        n += 1
    return len(listed) - n <= ENDING


class Analyzer:
    """Turns text into the tokens and cognate keys one feature set uses, on both sides.

    Pipeline per word: tokenizer -> (stem) -> (synonym concept). The prompt side
    removes stopwords between the tokenizer and the stemmer (`front.prompt_words`).
    """

    __slots__ = (
        "features", "tokenizer", "stemming", "dates", "key", "synonyms", "_norm", "_keys",
        "signature", "_concept_keys",
    )  # fmt: skip

    def __init__(
        self,
        features: frozenset[str] | None = None,
        synonyms_file: Path | None = None,
        *,
        synonyms_map: dict[str, str] | None = None,
        concept_keys: dict[str, list[tuple[str, str]]] | None = None,
    ) -> None:
        self.features = features
        """None: the measured analysis (every step on); a set: an evaluation variant
        (`recall.eval.features`) with only those steps."""
        self.signature: tuple = ()
        """What the disk caches key this analyzer by (set by `front.analyzer_for`)."""
        self.tokenizer = Tokenizer(improved=self.uses("tokens"))
        self.stemming = self.uses("stem")
        self.dates = self.uses("dates")
        self.key: Callable[[str], str | None] = (
            cognates.improved_key if self.uses("cognates") else cognates.reference_key
        )
        self.synonyms: dict[str, str] = {}
        self._norm: dict[str, str] = {}
        self._keys: dict[str, str | None] = {}
        self._concept_keys = concept_keys
        if synonyms_map is not None:  # built earlier (the engine caches it on disk)
            self.synonyms = synonyms_map
            return
        groups: list[list[str]] = []
        if self.uses("concepts"):
            groups.extend(list(g) for g in lexicon.builtin_groups())
        if synonyms_file is not None:
            groups.extend(lexicon.read_groups(synonyms_file))
        if groups:
            stem = cognates.stem if self.stemming else None
            self.synonyms = lexicon.build_map(groups, self._words, stem)

    def uses(self, step: str) -> bool:
        """Whether this analysis has the measured step `step` (every one, unless a variant)."""
        return self.features is None or step in self.features

    def _words(self, text: str) -> list[str]:
        return self.tokenizer(text, 2)

    def normalize(self, word: str) -> str:
        """One tokenizer word to its index form: its concept when the word or its stem
        has one (the whole word first), else its stem."""
        done = self._norm.get(word)
        if done is None:
            stemmed = cognates.stem(word) if self.stemming else word
            if self.synonyms:
                done = self.synonyms.get(word) or self.synonyms.get(stemmed) or stemmed
            else:
                done = stemmed
            if len(self._norm) > 200_000:
                self._norm.clear()
            self._norm[word] = done
        return done

    def concept_keys(self) -> dict[str, list[tuple[str, str]]]:
        """concept-keys: cognate key -> the (word, concept) pairs of the word lists."""
        if self._concept_keys is None:
            owners: dict[str, list[tuple[str, str]]] = {}
            for word, concept in self.synonyms.items():
                k = self.key(word) if not word.startswith("~") else None
                if k is not None:
                    owners.setdefault(k, []).append((word, concept))
            self._concept_keys = owners
        return self._concept_keys

    def concept_by_key(self, token: str) -> str | None:
        """concept-keys: the concept of the words sharing `token`'s cognate key and its
        first CONCEPT_PREFIX letters, when they all belong to one (`despliego` -> deploy
        through `despliegue`; `special` shares only `speci` with `specifica`), and the list's
        word adds no more than an ending to the start they share: another word built on
        the prompt word is not its inflection (`actual` is not `actualizar`, `public` not
        `publication`)."""
        k = self.key(token) if len(token) >= CONCEPT_PREFIX else None
        if k is None:
            return None
        head = token[:CONCEPT_PREFIX]
        found = {
            c
            for w, c in self.concept_keys().get(k, ())
            if w[:CONCEPT_PREFIX] == head and _inflects(token, w)
        }
        return found.pop() if len(found) == 1 else None

    def key_of(self, token: str) -> str | None:
        """The cognate key of an index token (memoised: tokens repeat across blocks)."""
        try:
            return self._keys[token]
        except KeyError:
            if len(self._keys) > 200_000:
                self._keys.clear()
            k = self._keys[token] = self.key(token)
            return k

    def tokens(self, text: str, min_len: int = BLOCK_MIN_LEN) -> list[str]:
        words = self.tokenizer(text, min_len)
        if self.dates and "-" in text:
            words.extend(MONTHS[int(m) - 1] for m in re.findall(ISO_MONTH, text))
        if not self.stemming and not self.synonyms:
            return words
        norm = self.normalize
        return [norm(w) for w in words]
