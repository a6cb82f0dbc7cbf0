"""Synonyms: words recall treats as one, across languages and per project.

A synonyms file has one group a line, words separated by commas (`#` starts a comment):

    invoice, fattura, factura, facture, rechnung
    pos, cassa, till, checkout

Every word of a group, and its stem, is mapped to one concept token (`~` plus the
first word's stem), on the prompt and on the blocks alike, so `fattura` in a prompt
matches `invoice` in a block exactly. A line sharing a whole word with an earlier
line joins that group; a stem two groups share maps to neither, and a four-letter stem
only one word has maps nothing else (`build_map`). Words that tokenize
into more than one token (phrases) are ignored: matching is word by word.

`concepts.txt` beside this file is the built-in list (the `concepts` feature); a
project adds or extends groups with its own file (`AGD_RECALL_SYNONYMS_FILE`, or
`.agd-synonyms` beside the project memory file), which is opt-in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

BUILTIN = Path(__file__).parent / "concepts.txt"
CONCEPT_MARK = "~"
PROJECT_FILE_NAME = ".agd-synonyms"
SHORT_STEM = 4
"""A stem this short maps other words only when two words of its group have it (`build_map`)."""


def read_groups(path: Path) -> list[list[str]]:
    """The groups of a synonyms file; a missing or unreadable file has none."""
    from ..text import read_user_file

    text = read_user_file(path)
    if text is None:
        return []
    groups = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        words = [w.strip() for w in line.split(",") if w.strip()]
        if len(words) >= 2:
            groups.append(words)
    return groups


def build_map(
    groups: Iterable[list[str]],
    normalize: Callable[[str], list[str]],
    stem: Callable[[str], str] | None = None,
) -> dict[str, str]:
    """word -> concept token. `normalize` tokenizes a group word; `stem` (optional) adds
    the stemmed form of every word as a key too.

    Whole words come first: a line sharing a whole word with an earlier line joins that
    group (how a project file extends a built-in group). A stem only maps when one
    group claims it: `testo` (text) and `test` share the stem `test`, `importo`
    (amount) and `import` share `import`; such a stem belongs to neither group, and
    the whole words keep their own meaning. A stem of SHORT_STEM letters maps only when
    two words of its group have it (`merge`, `merges` -> `merg` vouch for `merging`):
    four letters of one word are shared by unrelated words of the other languages
    (`cargo` is not Spanish `carga`, upload; `paste` not Portuguese `pasta`, folder).
    """
    mapping: dict[str, str] = {}
    stems: dict[str, set[str]] = {}
    forms: dict[str, set[str]] = {}  # stem -> the list words that have it
    for words in groups:
        normalized = []
        for w in words:
            toks = normalize(w)
            if len(toks) == 1:
                normalized.append(toks[0])
        if not normalized:
            continue
        concept = next((mapping[t] for t in normalized if t in mapping), None)
        if concept is None:
            concept = CONCEPT_MARK + (stem(normalized[0]) if stem else normalized[0])
        for t in normalized:
            mapping.setdefault(t, concept)
            if stem is not None:
                stems.setdefault(stem(t), set()).add(mapping[t])
                forms.setdefault(stem(t), set()).add(t)
    for s, concepts in stems.items():
        if s in mapping or len(concepts) != 1:
            continue
        if len(s) <= SHORT_STEM and len(forms[s]) < 2:
            continue  # four letters of one word: `cargo` is not `carga`
        mapping[s] = next(iter(concepts))
    return mapping


@lru_cache(maxsize=8)
def builtin_groups() -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(g) for g in read_groups(BUILTIN))
