"""Cognates and a light stemmer: how a word in one language finds its sibling in another.

Reference (§5.4): two tokens are cognates when both have at least 5 characters and
share their first 5 (`catalogue` ~ `catalogo`); a cognate hit counts half.

Improved keys first rewrite a word into a spelling skeleton so the usual shifts
between Romance languages and English do not hide a shared root: accents dropped,
doubled letters collapsed, `ph`->`f`, `th`->`t`, `ct`/`pt`->`t`, `x`->`s`, `y`->`i`,
`k`->`c`, `z`->`s`, `w`->`v`. `fattura` and `factura` both become `fatura`;
`esportazione` and `export` share `espor`. The stemmer strips one common plural or
verb ending, so `backups`/`backup` and `fatture`/`fattura` meet exactly.
"""

from __future__ import annotations

import re

PREFIX_LEN = 5
"""Characters two words must share to be cognates (the reference's constant)."""
WEIGHT = 0.5
"""A cognate hit counts this fraction of an exact hit (the reference's constant)."""

_DOUBLE = re.compile(r"(.)\1+")
_SHIFTS = (
    ("ph", "f"),
    ("th", "t"),
    ("ct", "t"),
    ("pt", "t"),
    ("qu", "c"),
    ("ck", "c"),
    ("x", "s"),
    ("y", "i"),
    ("k", "c"),
    ("z", "s"),
    ("w", "v"),
)


def reference_key(token: str) -> str | None:
    """The first 5 characters of a word of 5 or more, else None (no cognates)."""
    return token[:PREFIX_LEN] if len(token) >= PREFIX_LEN else None


def skeleton(token: str) -> str:
    """The spelling skeleton used for cognate keys (input is already lower-case and folded)."""
    for old, new in _SHIFTS:
        if old in token:
            token = token.replace(old, new)
    return _DOUBLE.sub(r"\1", token)


def improved_key(token: str) -> str | None:
    """Cognate key on the skeleton; words shorter than 5 letters, or not all letters, have none."""
    if len(token) < PREFIX_LEN or not token.isalpha():
        return None
    skel = skeleton(token)
    return skel[:PREFIX_LEN] if len(skel) >= PREFIX_LEN else None


_ENDINGS = ("ings", "ing", "ed", "es", "s")
_VOWELS = frozenset("aeiou")
MIN_STEM = 4


def stem(token: str) -> str:
    """Strip one common ending, keeping at least 4 characters; non-words are left alone.

    Language-neutral on purpose: prompts mix languages, so the same rule must map
    `releases`, `release`, `rilasci` or `fatture`, `fattura` to shared stems. A final
    `y` after a consonant and the `ies`, `ied` that replace it become `i`, so `entry`,
    `entries`, `retried` meet each other and `serie`, `category` meet `series`,
    `categories`.
    """
    if len(token) <= MIN_STEM or not token.isalpha():
        return token
    if token.endswith(("ies", "ied")) and len(token) > MIN_STEM + 1:
        return token[:-2]
    short = _short_root(token)
    if short is not None:
        return short
    for ending in _ENDINGS:
        if ending == "s" and token.endswith("ss"):
            break  # not a plural: `process` is the stem of `processes`, `address` of `addresses`
        if token.endswith(ending) and len(token) - len(ending) >= MIN_STEM:
            token = token[: -len(ending)]
            break
    if token[-1] == "y" and token[-2] not in _VOWELS:  # `entry`, `applying` -> `apply`
        return token[:-1] + "i"
    if len(token) > MIN_STEM and token[-1] in _VOWELS:
        token = token[:-1]
    return token


_VOWELS_Y = frozenset("aeiouy")


def _short_root(token: str) -> str | None:
    """The three-letter root of `named`, `coding`, `added`, `fixing` (`name`, `code`,
    `add`, `fix`): a root of consonant, vowel, consonant takes back its `e` (not after w,
    x, y), a doubled consonant stays; None for anything else (`speed`, `string`, `embed`)."""
    for ending in ("ed", "ing"):
        if token.endswith(ending) and len(token) - len(ending) == 3:
            root = token[:3]
            if root[0] not in _VOWELS_Y and root[1] in _VOWELS_Y and root[2] not in _VOWELS_Y:
                return root if root[2] in "wxy" else root + "e"
            if root[1] == root[2] and root[2] not in _VOWELS_Y:
                return root
    return None
