"""Reading: entries, the in-process memo and the on-disk cache."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

import agd
from agd_memory import diskcache as cache
from agd_memory import store
from agd_memory.errors import MemoryFileError
from agd_memory.store import memoryfile

SAMPLE = """@meta format=agd version=1 [#meta]

@h1 Memoria di sessione [#root]

@h2 Project [#h-project]

@x-project desc="database choice" created=2026-01-02 updated="2026-02-03" status=open refs="#cache #h-project" supersedes="#old" [#db]
~~~
Postgres 16, see #cache.
~~~

@x-project desc=cache [#cache]
~~~
Redis.
~~~

@p no id here

@x-user [#bare]
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_entries_carry_every_field(mf: store.MemoryFile):
    _write(mf.path, SAMPLE)
    entries = mf.entries()
    assert [e.id for e in entries] == ["meta", "root", "h-project", "db", "cache", "bare"]
    db = entries[3]
    assert (db.kind, db.desc, db.status, db.created, db.updated) == (
        "x-project",
        "database choice",
        "open",
        "2026-01-02",
        "2026-02-03",
    )
    assert db.body == "Postgres 16, see #cache."
    assert db.refs == ("cache", "h-project")  # space-separated refs of old corpora are read
    assert db.supersedes == ("old",)
    assert (db.layer, db.path, db.line) == ("project", mf.path, 7)
    assert db.attrs["desc"] == "database choice"
    assert db.is_memory and not entries[1].is_memory
    assert entries[1].body == "Memoria di sessione"
    assert entries[-1].body == "" and entries[-1].desc is None


def test_entry_behaves_as_a_frozen_dataclass(mf: store.MemoryFile):
    _write(mf.path, SAMPLE)
    db = mf.entry("db")
    assert dataclasses.is_dataclass(db)
    assert dataclasses.asdict(db)["refs"] == ("cache", "h-project")
    changed = dataclasses.replace(db, desc="other")
    assert changed.desc == "other" and changed.id == "db" and changed.attrs == db.attrs
    with pytest.raises(AttributeError):
        db.desc = "x"  # type: ignore[misc]
    assert {db, changed}  # hashable
    assert db.to_dict()["path"] == str(mf.path)
    assert agd.parse(db.to_agd()).blocks[0].id == "db"


def test_missing_file_reads_as_empty(mf: store.MemoryFile):
    assert not mf.exists()
    assert mf.entries() == []
    assert mf.document().blocks == []
    assert not mf.path.parent.exists()


def test_unparseable_file_raises_memory_file_error(mf: store.MemoryFile):
    _write(mf.path, "@x-note [#a]\n~~~\nno closing fence\n")
    with pytest.raises(MemoryFileError, match="does not parse"):
        mf.entries()


def test_not_utf8_is_a_clear_error(mf: store.MemoryFile):
    mf.path.parent.mkdir(parents=True)
    mf.path.write_bytes(b"@meta [#meta]\n@p caf\xe9\n")
    with pytest.raises(MemoryFileError, match="not UTF-8"):
        mf.entries()


def _forbid_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_a, **_k):
        raise AssertionError("parsed although the cache was valid")

    monkeypatch.setattr(memoryfile.MemoryFile, "_parse_file", boom)


def test_a_fresh_process_reads_the_disk_cache(mf: store.MemoryFile, monkeypatch):
    _write(mf.path, SAMPLE)
    first = mf.entries()
    store.clear_cache()  # what a new hook process starts with
    _forbid_parsing(monkeypatch)
    again = store.MemoryFile(mf.path, layer="project", settings=mf.settings).entries()
    assert again == first


def test_the_writer_leaves_a_warm_cache(mf: store.MemoryFile, monkeypatch):
    mf.save("x-project", "a", "x")
    store.clear_cache()
    _forbid_parsing(monkeypatch)
    assert [e.id for e in mf.entries()][-2:] == ["a", "h-reference"]


def test_a_changed_file_is_reparsed(mf: store.MemoryFile):
    _write(mf.path, SAMPLE)
    assert len(mf.entries()) == 6
    _write(mf.path, SAMPLE + "\n@x-user [#new]\n")
    assert mf.entries()[-1].id == "new"
    store.clear_cache()
    assert mf.entries()[-1].id == "new"


@pytest.mark.parametrize(
    "garbage",
    [b"", b"junk", cache.MAGIC, cache.MAGIC + b"\xff\xff\xff\xff", cache.MAGIC + b"\x00" * 40],
)
def test_corrupt_or_foreign_cache_is_ignored_and_rebuilt(mf: store.MemoryFile, garbage: bytes):
    _write(mf.path, SAMPLE)
    expected = mf.entries()
    cache_file = cache.entries_path(mf.cache_dir, cache.file_key(mf.path))
    assert cache_file.exists()
    cache_file.write_bytes(garbage)
    store.clear_cache()
    assert mf.entries() == expected
    store.clear_cache()
    assert cache.read_rows(mf.cache_dir, cache.file_key(mf.path)) is not None, "rebuilt"


def test_cache_of_another_file_version_is_not_used(mf: store.MemoryFile):
    _write(mf.path, SAMPLE)
    mf.entries()
    old_key = cache.file_key(mf.path)
    old_cache = cache.entries_path(mf.cache_dir, old_key).read_bytes()
    _write(mf.path, SAMPLE.replace("Redis.", "Memcached, same size"))
    cache.entries_path(mf.cache_dir, old_key).write_bytes(old_cache)
    store.clear_cache()
    assert mf.entry("cache").body == "Memcached, same size"


def test_unwritable_cache_folder_never_fails_a_read(mf: store.MemoryFile, tmp_path: Path):
    _write(mf.path, SAMPLE)
    blocker = tmp_path / "data"
    blocker.mkdir(exist_ok=True)
    (blocker / "cache").write_text("a file where the cache folder should be")
    assert len(mf.entries()) == 6


def test_layer_name_comes_from_the_caller(mf: store.MemoryFile):
    _write(mf.path, SAMPLE)
    as_global = store.MemoryFile(mf.path, layer="global", settings=mf.settings)
    assert {e.layer for e in as_global.entries()} == {"global"}
    assert {e.layer for e in mf.entries()} == {"project"}


def test_document_is_memoised_until_the_file_changes(mf: store.MemoryFile):
    _write(mf.path, SAMPLE)
    d1 = mf.document()
    assert mf.document() is d1
    os.utime(mf.path, ns=(1, 1))
    assert mf.document() is not d1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_reading_a_fifo_as_memory_file_is_an_error_not_a_hang(tmp_path: Path, settings):
    # The write path refused a FIFO; reading one (entries, document) opened it blocking
    # and waited for a writer forever.
    fifo = tmp_path / "memory.agd"
    os.mkfifo(fifo)
    mf = store.MemoryFile(fifo, settings=settings)
    for read in (mf.entries, mf.document):
        with pytest.raises(MemoryFileError, match="not a regular file"):
            read()


def test_cache_files_are_private_whatever_the_umask(tmp_path):
    """The entry cache copies a memory file's text: a 0600 memory must not leave a 0644 copy."""
    import os
    import stat

    from agd_memory.settings import Settings

    data = tmp_path / "data"
    mf = store.MemoryFile(tmp_path / "memory.agd", settings=Settings(data_dir=data))
    mf.save("x-project", "private", "a private fact", desc="private")
    os.chmod(mf.path, 0o600)
    old = os.umask(0o022)
    try:
        store.MemoryFile(mf.path, settings=Settings(data_dir=data)).entries()
    finally:
        os.umask(old)
    cached = [p for p in (data / "cache").rglob("*") if p.is_file()]
    assert cached, "the read was cached"
    for p in cached:
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
