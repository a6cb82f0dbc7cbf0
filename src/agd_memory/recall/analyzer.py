"""The analyzer: text to index tokens, the same way on the prompt and on the blocks.

Per word: the tokenizer (`text`), then the stemmer, then the synonym concept
(`lexicon`); cognate keys (`cognates`) are computed on the result. Every step is
memoised per distinct word, because words repeat across thousands of blocks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from . import cognates, lexicon
from .text import BUILTIN_LANGS, improved_tokens, prompt_langs, stopwords

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
if TYPE_CHECKING:
    from ..settings import Settings
    from ..store.entry import Entry

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
    """Turns text into index tokens and cognate keys, the same way on both sides.

    Pipeline per word: tokenizer -> stem -> synonym concept. The prompt side removes
    its stopwords between the tokenizer and the stemmer (`prompt_stopwords`). Each step
    is an attribute or a method, so the evaluation measures the reference algorithm and
    each change over it with a subclass that replaces some of them
    (`recall/eval/variants.VariantAnalyzer`); the hook and search run this class as it is.
    """

    __slots__ = ("synonyms", "_norm", "_keys", "signature", "_concept_keys")

    tokenizer = staticmethod(improved_tokens)
    stem = staticmethod(cognates.stem)
    key = staticmethod(cognates.improved_key)

    def __init__(
        self,
        synonyms_file: Path | None = None,
        *,
        synonyms_map: dict[str, str] | None = None,
        concept_keys: dict[str, list[tuple[str, str]]] | None = None,
    ) -> None:
        self.signature: tuple = ()
        """What the disk caches key this analyzer by (set by `front.analyzer_for`)."""
        self.synonyms: dict[str, str] = {}
        self._norm: dict[str, str] = {}
        self._keys: dict[str, str | None] = {}
        self._concept_keys = concept_keys
        if synonyms_map is not None:  # built earlier (the engine caches it on disk)
            self.synonyms = synonyms_map
            return
        groups = [list(g) for g in lexicon.builtin_groups()]
        if synonyms_file is not None:
            groups.extend(lexicon.read_groups(synonyms_file))
        self.synonyms = lexicon.build_map(groups, self._words, self.stem)

    def prompt_stopwords(self, words: Sequence[str], settings: Settings) -> frozenset[str]:
        """The stopwords for a prompt of these tokenizer `words`: those of the configured
        languages, else of the languages it is written in (all-langs), with request verbs,
        verb forms and frame words, accent-folded."""
        langs = settings.recall_langs
        langs = prompt_langs(words, BUILTIN_LANGS, folded=True) if langs is None else langs
        return stopwords(
            tuple(langs),
            settings.recall_stopwords_file,
            request_verbs=True,
            folded=True,
            verbs=True,
            frame=True,
        )

    def kind_tokens(self, kind: str) -> tuple[str, ...]:
        """no-kind: the kind is not a scored field (a prompt saying `project` lifts no
        block); the reference scored it."""
        return ()

    def key_phrases(self, entry: Entry) -> tuple[tuple[str, ...], ...]:
        """keys: the `keys` attribute (`keys="a, b c"`: search terms written with the
        block), each key as its tokens."""
        value = entry.attrs.get("keys")
        if not isinstance(value, str):
            return ()
        phrases = (tuple(dict.fromkeys(self.tokens(key))) for key in value.split(","))
        return tuple(dict.fromkeys(p for p in phrases if p))

    def idf_over(self, recallable: Callable[[Entry], bool]) -> Callable[[Entry], bool] | None:
        """idf-recallable: IDF counts the entries recall can return (None: every block)."""
        return recallable

    def key_cognates(self, doc, keys: dict[str, str | None]) -> dict[str, str]:
        """key-cognates: key word -> the prompt word it is a cognate of (`ridimensionare`
        for `ridimensioniamo`): keys are written in dictionary form, prompts inflect.
        `doc`: an `index.Doc` (not imported: the index imports this module); `keys`:
        prompt word -> its cognate key."""
        out: dict[str, str] = {}
        for word, key in keys.items():
            for t in doc.tokens_with_key(key) if key is not None else ():
                if t in doc.keys_set:
                    out.setdefault(t, word)
        return out

    def _words(self, text: str) -> list[str]:
        return self.tokenizer(text, 2)

    def normalize(self, word: str) -> str:
        """One tokenizer word to its index form: its concept when the word or its stem
        has one (the whole word first), else its stem."""
        done = self._norm.get(word)
        if done is None:
            stemmed = self.stem(word)
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
        """`text` as index tokens; an ISO date also gives its month's name (dates)."""
        words = self.tokenizer(text, min_len)
        if "-" in text:
            words.extend(MONTHS[int(m) - 1] for m in re.findall(ISO_MONTH, text))
        norm = self.normalize
        return [norm(w) for w in words]
