"""Text to tokens: the reference tokenizer and the improved one, plus stopword lists.

The reference (agd-memory-plugin §5.4) lowercases, takes maximal runs of letters or
of digits and drops tokens shorter than a minimum length. That splits `foo_bar2`
into `foo`, `bar`, `2`, drops `v2`, `s3`, `404`, reads `InspectionCard` as one word
and cannot segment Chinese or Japanese at all.

The improved tokenizer (`improved_tokens`, recall's; the reference is the evaluation's baseline):
- splits identifiers: snake_case and kebab on the separator, camelCase and
  PascalCase on the case change, and also keeps the whole identifier, so
  `InspectionCard` gives `inspectioncard`, `inspection`, `card`;
- keeps short technical tokens that mix letters and digits (`v2`, `s3`, `k8s`)
  and numbers of two digits or more, whatever the minimum word length;
- folds accents (`perché` -> `perche`), so a prompt typed without them still matches;
- splits runs of CJK characters into overlapping bigrams (a single character stays
  as it is), on both the prompt and the block side;
- drops URL schemes (`https://`): a link in a block is not about HTTP.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

# The patterns a prompt of ASCII words never needs are strings, compiled on first use by
# `re`'s own cache (each compilation costs the prompt hook 0.05-0.1 ms).
# Reference: maximal runs of Unicode letters, or of digits.
REFERENCE_WORD = r"[^\W\d_]+|\d+"
# Improved: alphanumeric runs (underscore excluded so snake_case splits); CJK handled apart.
ALNUM_RUN = re.compile(r"[^\W_]+")
CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
CJK_CHARS = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af"  # hangul syllables
)
_cjk_run: list[re.Pattern[str]] = []
"""`[CJK_CHARS]+`, compiled on the first text that is not ASCII (its compilation costs
the prompt hook 1.5 ms, and most prompts are ASCII)."""
# A URL's scheme (`https://`) says how to fetch, not what the text is about.
URL_SCHEME = r"\b[A-Za-z][A-Za-z0-9+.-]*://"

STOPWORDS_DIR = Path(__file__).parent / "stopwords"
BUILTIN_LANGS = ("en", "it", "es", "fr", "de", "pt")
DEFAULT_LANGS = ("en",)


def fold(word: str) -> str:
    """Lowercase without accents: `Perché` -> `perche`, `Straße` -> `strasse`."""
    if word.isascii():
        return word.lower()
    for _ in range(2):  # twice: casefolding can produce letters that decompose again
        decomposed = unicodedata.normalize("NFKD", word).casefold()
        word = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    # recompose what is left, so Hangul syllables (which decompose into jamo) come back whole
    return unicodedata.normalize("NFC", word)


def reference_tokens(text: str, min_len: int) -> list[str]:
    """The reference tokenizer: lowercase letter runs or digit runs, at least `min_len` long."""
    return [t for t in re.findall(REFERENCE_WORD, text.lower()) if len(t) >= min_len]


def _cjk_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def improved_tokens(text: str, min_len: int) -> list[str]:
    """The improved tokenizer (see the module docstring). Order follows the text."""
    out: list[str] = []
    # CJK first: take the runs out so the alphanumeric pass does not see them as words.
    # Folded like every other token: compatibility ideographs (U+F900..) become their
    # unified form, and a voiced kana matches its plain form as é matches e.
    if not text.isascii():
        if not _cjk_run:
            _cjk_run.append(re.compile(f"[{CJK_CHARS}]+"))
        cjk = _cjk_run[0]
        if cjk.search(text):
            for run in cjk.findall(text):
                out.extend(_cjk_bigrams(fold(run)))
            text = cjk.sub(" ", text)
    if "://" in text:
        text = re.sub(URL_SCHEME, " ", text)
    cache = _RUN_CACHE.get(min_len)
    if cache is None or len(cache) > RUN_CACHE_MAX:
        cache = _RUN_CACHE[min_len] = {}
    for run in ALNUM_RUN.findall(text):
        tokens = cache.get(run)
        if tokens is None:
            tokens = cache[run] = _run_tokens(run, min_len)
        out.extend(tokens)
    return out


# Words repeat: a memory of 10,000 blocks has a few thousand distinct runs, so the
# per-run work (camelCase split, accent folding) is done once per run, not per use.
RUN_CACHE_MAX = 200_000
_RUN_CACHE: dict[int, dict[str, tuple[str, ...]]] = {}


def _run_tokens(run: str, min_len: int) -> tuple[str, ...]:
    whole = fold(run)
    # camelCase is an ASCII convention; elsewhere split only letters from digits
    parts = CAMEL_PART.findall(run) if run.isascii() else re.findall(REFERENCE_WORD, run)
    out = [whole] if _keep(whole, min_len) else []
    for part in parts:
        token = fold(part)
        if token != whole and _keep(token, min_len):
            out.append(token)
    return tuple(out)


def _keep(token: str, min_len: int) -> bool:
    if len(token) >= min_len:
        return True
    if token.isdigit():
        return len(token) >= 2
    # letters mixed with digits (`v2`, `s3`) are names, not noise; a decimal digit is what
    # the regular expression `\d` matches
    return len(token) >= 2 and any(ch.isdecimal() for ch in token)


WORD_FILE_LIMIT = 4 * 1024 * 1024
"""The most a stopwords or synonyms file may hold (the built-in lists are a few KiB)."""


def read_word_file(path: Path) -> frozenset[str]:
    """Words of a stopword-style file: one a line, stripped, lower-cased; `#` lines and blanks out.

    A missing or unreadable file gives an empty set (logged): a broken optional file must
    not stop recall, and a FIFO or a device there must not hang the prompt hook.
    """
    text = read_user_file(path)
    if text is None:
        return frozenset()
    words = (line.strip().lower() for line in text.splitlines())
    return frozenset(w for w in words if w and not w.startswith("#"))


def read_user_file(path: str | Path) -> str | None:
    """The text of an optional word file (`~` expanded), read bounded and only when it is a
    regular file; None, with a line in the debug log unless it is simply missing, otherwise."""
    from agd.errors import UnreadableFile
    from agd.files import read_text

    name = os.path.expanduser(os.fspath(path))
    try:
        return read_text(name, WORD_FILE_LIMIT)
    except UnreadableFile as exc:
        if os.path.lexists(name):
            from .. import debuglog

            debuglog.log(f"recall: ignoring {name}: {exc.reason}")
        return None


def builtin_stopwords(
    lang: str,
    *,
    request_verbs: bool = False,
    verbs: bool = False,
    frame: bool = False,
    folded: bool = False,
) -> frozenset[str]:
    """The built-in list of one language (empty for an unknown one, as in the reference);
    `folded` adds each word's accent-folded form."""
    if lang not in BUILTIN_LANGS:
        return frozenset()
    lists = _builtin_lists()
    suffix = FOLDED if folded else ""
    words = lists.get(lang + suffix, frozenset())
    for wanted, prefix in ((request_verbs, "request-"), (verbs, "verbs-"), (frame, "frame-")):
        # `verbs-<lang>.txt` and `frame-<lang>.txt` exist for some languages only
        if wanted:
            words |= lists.get(prefix + lang + suffix, frozenset())
    return words


FOLDED = "/folded"
"""Suffix of a built-in list's name for its words with their accent-folded forms."""
_LISTS: dict[str, frozenset[str]] | None = None
"""Every built-in list by file stem (`en`, `request-en`, ... and `en/folded` ...)."""


def _builtin_lists() -> dict[str, frozenset[str]]:
    global _LISTS
    if _LISTS is None:
        _LISTS = _read_builtin_lists()
    return _LISTS


def _read_builtin_lists() -> dict[str, frozenset[str]]:
    lists = {}
    for name in _list_names():
        words = read_word_file(STOPWORDS_DIR / name)
        stem = name.removesuffix(".txt")
        lists[stem] = words
        lists[stem + FOLDED] = words | {fold(w) for w in words}
    return lists


def _list_names() -> list[str]:
    try:
        return sorted(n for n in os.listdir(STOPWORDS_DIR) if n.endswith(".txt"))
    except OSError:
        return []


def load_builtin_lists(cache_dir: Path | None) -> None:
    """Take the built-in lists from the disk cache (one read instead of sixteen files read
    and folded: ~2 ms of a prompt hook), writing them there when missing or stale. Once
    per process; without a cache folder the lists are read from their files on first use."""
    global _LISTS
    if _LISTS is not None or cache_dir is None:
        return
    from .. import diskcache

    key = _lists_stamp()
    cached = diskcache.read(cache_dir, "stopwords", "builtin", key)
    if isinstance(cached, dict) and all(isinstance(v, frozenset) for v in cached.values()):
        _LISTS = cached
        return
    _LISTS = _read_builtin_lists()
    diskcache.write(cache_dir, "stopwords", "builtin", key, _LISTS)


def _lists_stamp() -> tuple:
    """Name, size and mtime of every list file, and of this module (which reads and folds)."""
    stamp = []
    for path in (__file__, *(os.path.join(STOPWORDS_DIR, n) for n in _list_names())):
        try:
            st = os.stat(path)
            stamp.append((os.path.basename(path), st.st_size, st.st_mtime_ns))
        except OSError:
            stamp.append((os.path.basename(path), 0, 0))
    return tuple(stamp)


def stopwords(
    langs: tuple[str, ...],
    extra_file: str | None,
    *,
    request_verbs: bool = False,
    folded: bool = False,
    verbs: bool = False,
    frame: bool = False,
) -> frozenset[str]:
    """The union of the languages' lists and the extra file's words (accent-folded on request)."""
    words = _builtin_union(tuple(langs), request_verbs, folded, verbs, frame)
    if extra_file:
        extra = read_word_file(Path(extra_file))  # the user's file: read on every call
        words = words | extra | ({fold(w) for w in extra} if folded else frozenset())
    return words


@lru_cache(maxsize=64)
def _builtin_union(
    langs: tuple[str, ...], request_verbs: bool, folded: bool, verbs: bool, frame: bool
) -> frozenset[str]:
    """The built-in lists of `langs`, folded on request (built once per process)."""
    words: set[str] = set()
    for lang in langs:
        words |= builtin_stopwords(
            lang, request_verbs=request_verbs, verbs=verbs, frame=frame, folded=folded
        )
    return frozenset(words)


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
