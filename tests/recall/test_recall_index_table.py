"""Recall's on-disk index: a table read piece by piece (issue 26, hook cost).

A prompt reads the slots and blobs of its own words and the records of the blocks it
scores, each verified as it is read; nothing else of the file. So the hook's cost does
not grow with the memory (benchmarks/README.md, "Hook cost").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from recall_helpers import block, write_memory

from agd_memory import diskcache, store
from agd_memory.recall import cooccurrence, front, index, recall

KEY = ("memory", 1)


def test_a_table_gives_back_what_was_written(tmp_path: Path) -> None:
    terms = {f"word{i}": (i, bytes([i % 256]) * 3) for i in range(3000)}
    records = [("block", i, "x" * (i % 50)) for i in range(500)]
    diskcache.write_table(
        tmp_path, "t", "name", KEY, ("head", 7), {"terms": terms, "none": {}}, {"r": records}
    )
    table = diskcache.read_table(tmp_path, "t", "name", KEY)
    assert table is not None and table.header == ("head", 7)
    assert all(table.get("terms", k) == v for k, v in terms.items())
    assert table.get("terms", "word-missing") is None and table.get("none", "x") is None
    assert [table.item("r", i) for i in range(500)] == records
    assert dict(table.items("terms")) == terms
    with pytest.raises(IndexError):
        table.item("r", 500)


def test_a_table_for_another_key_or_of_another_format_is_not_read(tmp_path: Path) -> None:
    diskcache.write_table(tmp_path, "t", "name", KEY, (), {"m": {"a": 1}}, {})
    assert diskcache.read_table(tmp_path, "t", "name", ("memory", 2)) is None
    path = diskcache.cache_path(tmp_path, "t", "name")
    diskcache.write(tmp_path, "t", "name", KEY, {"a": 1})  # a plain cache file there
    assert diskcache.read_table(tmp_path, "t", "name", KEY) is None
    path.write_bytes(b"")
    assert diskcache.read_table(tmp_path, "t", "name", KEY) is None


def test_a_damaged_piece_raises_corrupt_and_drop_removes_the_file(tmp_path: Path) -> None:
    diskcache.write_table(tmp_path, "t", "name", KEY, (), {}, {"r": ["a" * 100, "b" * 100]})
    path = diskcache.cache_path(tmp_path, "t", "name")
    data = bytearray(path.read_bytes())
    data[-50] ^= 0x01  # inside the last blob
    path.write_bytes(bytes(data))
    table = diskcache.read_table(tmp_path, "t", "name", KEY)
    assert table is not None and table.item("r", 0) == "a" * 100
    with pytest.raises(diskcache.Corrupt) as caught:
        table.item("r", 1)
    caught.value.drop()
    assert not path.exists()


def _big_memory(tmp_path: Path, n: int) -> Path:
    blocks = [
        block(
            f"note-{i}",
            f"topic {i % 40} common words",
            f"alpha{i % 97} beta{i % 89} shared words in every block, number {i}",
        )
        for i in range(n)
    ]
    blocks.append(
        block("deploy-vps", "deploy every release on the vps", "Run scripts/deploy.sh, then tail.")
    )
    return write_memory(tmp_path / "memory.agd", blocks)


def _fresh_process() -> None:
    store.clear_cache()
    front._PARTS.clear()
    front._ANALYZERS.clear()


DEPLOY_PROMPT = "how do we deploy to the vps with the shared words?"


def _recalled_cold(tmp_path: Path, make_settings):
    """A 1,500-block memory, DEPLOY_PROMPT recalled once (the table written), then a fresh
    process: (settings, the file, what the cold run recalled)."""
    _fresh_process()  # an earlier test's analyzer would spare this run writing its cache
    s = make_settings()
    mf = store.MemoryFile(_big_memory(tmp_path, 1500), layer="project", settings=s)
    cold = recall(DEPLOY_PROMPT, [mf], s)
    _fresh_process()
    return s, mf, cold


def test_a_prompt_reads_its_words_and_the_blocks_it_scores_not_the_file(
    tmp_path: Path, make_settings
) -> None:
    s, mf, cold = _recalled_cold(tmp_path, make_settings)
    warm = recall(DEPLOY_PROMPT, [mf], s)  # the index read from its table on disk
    assert [c.entry.id for c in warm.chosen] == [c.entry.id for c in cold.chosen]
    assert warm.chosen[0].entry.id == "deploy-vps"
    (part,) = front._PARTS.values()
    assert part._table is not None
    assert len(part._records) <= index.MAX_CANDIDATES + cooccurrence.COOC_MAX_NEW
    assert len(part._records) < part.size / 5
    assert set(part._terms) == set(warm.words)  # the prompt's words, and no other


def test_only_the_blocks_injected_have_their_text_read_from_the_index(
    tmp_path: Path, make_settings, monkeypatch
) -> None:
    s, mf, cold = _recalled_cold(tmp_path, make_settings)
    read: dict[str, set[int]] = {}
    item = diskcache.Table.item

    def spy(table, name, i):
        read.setdefault(name, set()).add(i)
        return item(table, name, i)

    monkeypatch.setattr(diskcache.Table, "item", spy)
    warm = recall(DEPLOY_PROMPT, [mf], s)
    assert [c.entry for c in warm.chosen] == [c.entry for c in cold.chosen]  # whole entries
    assert len(read["records"]) > 10 * len(warm.chosen)  # many blocks scored ...
    assert len(read["entries"]) == len(warm.chosen)  # ... the text of those injected only


def test_a_common_words_postings_are_read_best_first_and_bounded(
    tmp_path: Path, make_settings
) -> None:
    s = make_settings()
    n = index.POSTINGS_READ + 300
    mf = store.MemoryFile(_big_memory(tmp_path, n), layer="project", settings=s)
    recall("shared words", [mf], s)
    _fresh_process()
    recall("shared words", [mf], s)
    (part,) = front._PARTS.values()
    (shared,) = front.Front("shared", [mf], s).words
    assert len(part.posting(shared)) == index.POSTINGS_READ < part.df_of(shared) == n
    # in order of impact: "every" is in every body, and in the desc of the last block only
    word = front.analyzer_for([mf], s).normalize("every")  # a stopword in a prompt
    assert part.record(part.posting(word)[0])[0] == "deploy-vps"


def test_the_whole_file_analysis_of_an_earlier_version_is_removed(
    tmp_path: Path, make_settings
) -> None:
    """Earlier versions kept recall's analysis as one blob (kind `recall`); the table
    replaces it, and the old file, which nothing reads any more, goes."""
    s = make_settings()
    mf = store.MemoryFile(_big_memory(tmp_path, 10), layer="project", settings=s)
    cache_dir = Path(s.data_dir) / "cache"
    found = front.Front("deploy", [mf], s)
    source = diskcache.file_key(mf.path)
    sig = (found.analyzer.signature, True, "project")
    old = diskcache.cache_path(cache_dir, "recall", (source[0], sig))
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_bytes(b"an earlier version's analysis")
    _fresh_process()
    recall("deploy every release", [mf], s)
    assert not old.exists()
    assert list(cache_dir.glob("recall-index-*.cache"))


def test_a_prompt_reads_the_concepts_of_its_own_words_not_the_whole_synonym_map(
    tmp_path: Path, make_settings
) -> None:
    # the synonym map (a few thousand words and concept keys) is a table too: a prompt
    # looks up its own words (and their stems), not the whole map (0.7 ms of a prompt)
    s, mf, cold = _recalled_cold(tmp_path, make_settings)
    warm = recall(DEPLOY_PROMPT, [mf], s)
    assert [c.entry.id for c in warm.chosen] == [c.entry.id for c in cold.chosen]
    (analyzer,) = front._ANALYZERS.values()
    synonyms = analyzer.synonyms
    assert isinstance(synonyms, diskcache.TableMap)
    assert len(synonyms) > 1000
    assert 0 < len(synonyms._memo) <= 2 * len(DEPLOY_PROMPT.split())


def test_a_damaged_synonym_map_is_rebuilt_and_recall_still_answers(
    tmp_path: Path, make_settings, monkeypatch
) -> None:
    s, mf, cold = _recalled_cold(tmp_path, make_settings)
    dropped: list[Path] = []
    drop = diskcache.Corrupt.drop

    def spy(exc: diskcache.Corrupt) -> None:
        dropped.append(Path(exc.path))
        drop(exc)

    monkeypatch.setattr(diskcache.Corrupt, "drop", spy)
    (path,) = (Path(s.data_dir) / "cache").glob("synonyms-*")
    data = bytearray(path.read_bytes())
    for i in range(len(data) // 4, len(data)):  # every slot and blob past the header
        data[i] ^= 0x55
    path.write_bytes(bytes(data))
    warm = recall(DEPLOY_PROMPT, [mf], s)
    assert dropped == [path]  # a word's lookup found the damage
    assert [c.entry.id for c in warm.chosen] == [c.entry.id for c in cold.chosen]
    _fresh_process()  # the file recall wrote again is read as a table
    again = recall(DEPLOY_PROMPT, [mf], s)
    assert [c.entry.id for c in again.chosen] == [c.entry.id for c in cold.chosen]
    assert isinstance(front._ANALYZERS[()].synonyms, diskcache.TableMap)  # rewritten whole
