"""What recall and ranked search share: the files that count, their analyzer, the query's
content words and the index over the files' blocks (`Front`). Standard library only.

Recall (`engine`) adds its gates, coverage rules and budget after it; search (`search`)
its own ranking. Both score with `cooccurrence.scored`. Each file's analysis is cached in
process and on disk (`index.Part`), keyed by the file's identity and the analyzer.
Nothing here spawns a process or reads the environment: `settings` carries it all.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from .. import debuglog, diskcache
from . import lexicon, text
from .analyzer import Analyzer
from .cooccurrence import unknown_to_concepts
from .index import Index, Part, code_stamp, is_memory, is_superseded
from .scoring import Prompt

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
if TYPE_CHECKING:
    from typing import Protocol

    from ..settings import Settings
    from ..store.entry import Entry
else:
    Protocol = object  # a structural type for the type checker only


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


def prompt_words(prompt: str, analyzer: Analyzer, settings: Settings) -> list[str]:
    """Content words of the prompt, in order, duplicates kept (the min-words gate counts
    them): the analyzer's tokens minus the stopwords of the prompt's languages."""
    words = analyzer.tokenizer(prompt, max(int(settings.recall_min_word_len), 1))
    stop = analyzer.prompt_stopwords(words, settings)
    return [analyzer.normalize(w) for w in words if w not in stop]


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


def synonyms_source(files: Sequence[MemorySource], settings: Settings) -> tuple[Path | None, tuple]:
    """The synonyms file for these files and what identifies its version (path, size,
    mtime): None and () when there is none (or it cannot be read)."""
    path = synonyms_file(files, settings)
    if path is not None:
        try:
            st = path.stat()
            return path, (str(path), st.st_size, st.st_mtime_ns)
        except OSError:
            pass
    return None, ()


def analyzer_for(files: Sequence[MemorySource], settings: Settings) -> Analyzer:
    """The analyzer for these files (cached: the synonym map costs a few milliseconds)."""
    path, sig = synonyms_source(files, settings)
    cached = _ANALYZERS.get(sig)
    if cached is None:
        cached = _ANALYZERS[sig] = _load_analyzer(path, sig, cache_dir(settings))
        cached.signature = sig
    return cached


def _load_analyzer(path: Path | None, sig: tuple, folder: Path | None) -> Analyzer:
    """An analyzer whose synonym map comes from the disk cache when it is still valid
    (building it costs more than the rest of a prompt on a small memory). The cache is a
    table read word by word: a prompt reads the concepts of its own words, not the whole
    map of a few thousand (0.7 ms)."""
    key = (code_stamp(), sig)
    table = diskcache.read_table(folder, "synonyms", sig, key)
    if table is not None and isinstance(table.header, tuple) and len(table.header) == 2:
        n_synonyms, n_keys = table.header
        return Analyzer(
            path,
            synonyms_map=diskcache.TableMap(table, "synonyms", n_synonyms),  # type: ignore[arg-type]
            concept_keys=diskcache.TableMap(table, "concept-keys", n_keys),  # type: ignore[arg-type]
        )
    analyzer = Analyzer(path)
    concept_keys = analyzer.concept_keys()
    maps = {"synonyms": analyzer.synonyms, "concept-keys": concept_keys}
    header = (len(analyzer.synonyms), len(concept_keys))
    diskcache.write_table(folder, "synonyms", sig, key, header, maps, {})  # type: ignore[arg-type]
    return analyzer


_ANALYZERS: dict[tuple, Analyzer] = {}
_PARTS: dict[tuple, Part] = {}
"""In-process cache of analysed files (the MCP server and the eval reuse them)."""


def cache_dir(settings: Settings) -> Path | None:
    data_dir = settings.data_dir
    return Path(data_dir) / "cache" if data_dir else None


def _part(mf: MemorySource, settings: Settings, analyzer: Analyzer) -> Part | None:
    skip_superseded = not settings.recall_allow_superseded

    def recallable(entry: Entry) -> bool:
        return is_memory(entry) and not (skip_superseded and is_superseded(entry))

    idf_over = analyzer.idf_over(recallable)
    source = diskcache.file_key(mf.path) if mf.path is not None else None
    key = name = None
    if source is not None:
        sig = (analyzer.signature, skip_superseded, mf.layer)  # entries keep it
        key, name = (code_stamp(), source, sig), (source[0], sig)
        part = _PARTS.get(key)
        if part is not None:
            return part
        part = Part.load(cache_dir(settings), name, key)
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
        part.save(cache_dir(settings), name, key)
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


def warm(files: Sequence[MemorySource], settings: Settings) -> None:
    """Analyse `files` now and keep the analysis in the disk cache, so that the next prompt
    reads it instead of building it (a second or two at 10,000 blocks): the distiller's
    worker calls this once it has written."""
    Front("", files, settings).index  # noqa: B018 (reading it builds and saves it)


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
        analyzer: Analyzer | None = None,
    ) -> None:
        """`analyzer`: one with other analysis steps (the evaluation's variants); None:
        the measured one for these files."""
        self.files = select_files(files, settings)
        self.settings = settings
        text.load_builtin_lists(cache_dir(settings))
        self.analyzer = analyzer or analyzer_for(self.files, settings)
        tokens = self.analyzer.tokenizer(query, max(int(settings.recall_min_word_len), 1))
        self.stop = self.analyzer.prompt_stopwords(tokens, settings)
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


def rebuilding_on_corruption(run, *args):
    """`run(*args)`; when a piece of a cached index (or of the synonym map) does not
    verify, its file is removed, forgotten in this process and rebuilt, and `run` runs
    again (a corrupt cache is never believed, and never silences recall)."""
    try:
        return run(*args)
    except diskcache.Corrupt as exc:
        debuglog.log(f"recall: {exc}; rebuilding the index")
        exc.drop()
        _PARTS.clear()
        _ANALYZERS.clear()  # its synonym map may be the table that failed
        return run(*args)
