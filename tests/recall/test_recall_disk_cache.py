"""The disk cache is verified on read: a damaged cache file is never believed.

Whatever happens to the files in the cache folder (flipped bytes, a truncation, random
mutations, a length field claiming gigabytes), `toc`, recall and search answer exactly
as a cold read of the memory file does, and the damaged file is replaced by a good one.
Recall's index is a table read piece by piece (`diskcache.read_table`): a damaged piece
is replaced as soon as a prompt reads it; damage in a piece no prompt read changes no
answer and is found when one does.
"""

from __future__ import annotations

import random
import shutil
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from recall_helpers import block, write_memory

from agd_memory import diskcache, store, toc
from agd_memory.recall import front, recall
from agd_memory.recall.search import search

PROMPT = "how do we deploy the release script to the vps?"
QUERY = "deploy backups"


def _memory(tmp_path: Path) -> Path:
    return write_memory(
        tmp_path / "memory.agd",
        [
            block("deploy-vps", "deploy on the vps", "Run scripts/deploy.sh, then check the logs."),
            block("backup-offsite", "offsite backups with restic", "Nightly restic to the NAS."),
            block("release-notes", "release notes format", "Keep a changelog per release script."),
        ],
    )


def _forget() -> None:
    """What a new hook process starts with: nothing kept in process."""
    store.clear_cache()
    front._PARTS.clear()
    front._ANALYZERS.clear()


def _answers(path: Path, s) -> tuple:
    _forget()
    mf = store.MemoryFile(path, layer="project", settings=s)
    hits = search(QUERY, [mf], s)
    return (
        toc.render([mf], s),
        recall(PROMPT, [mf], s).render(),
        [(h.entry.id, h.score, h.excerpt) for h in hits],
    )


@pytest.fixture
def warm(tmp_path: Path, make_settings):
    """A memory file, its answers from a cold read, and its cache files as written."""
    s = make_settings()
    path = _memory(tmp_path)
    cache_dir = Path(s.data_dir) / "cache"
    shutil.rmtree(cache_dir, ignore_errors=True)
    cold = _answers(path, s)
    # the stopword lists' cache is written by a process's first prompt only (then kept in
    # process): whether it is here depends on the tests run before this one
    found = sorted(p for p in cache_dir.glob("*.cache") if not p.name.startswith("stopwords-"))
    files = {p: p.read_bytes() for p in found}
    assert {p.name.split("-")[0] for p in files} == {"entries", "recall", "synonyms"}
    assert _answers(path, s) == cold  # served from the cache, same answers
    return path, s, cold, files


def _check(warm, damage) -> None:
    path, s, cold, files = warm
    for target, good in files.items():
        bad = damage(good)
        target.write_bytes(bad)
        assert _answers(path, s) == cold, f"{target.name} damaged was believed"
        # a damaged file was discarded and rebuilt: the next process reads a good one (a
        # table only when the damage was in a piece these prompts read)
        if bad != good and not _is_table(good):
            assert target.read_bytes() != bad
        target.write_bytes(good)


def _is_table(data: bytes) -> bool:
    return data.startswith(diskcache.TABLE_MAGIC)


def test_a_damaged_piece_of_the_recall_index_is_replaced_when_read(warm) -> None:
    """Every piece of the table a prompt reads is verified: damage in one (here each
    byte of the blob region in turn, a few hundred bytes apart) is never believed, and
    when recall read it, the table is rebuilt before the answer."""
    path, s, cold, files = warm
    target, good = next((t, g) for t, g in files.items() if _is_table(g))
    rebuilt = 0
    for at in range(len(good) // 2, len(good), 97):
        bad = bytearray(good)
        bad[at] ^= 0x20
        target.write_bytes(bytes(bad))
        assert _answers(path, s) == cold
        rebuilt += target.read_bytes() != bytes(bad)
    assert rebuilt > 0


@pytest.mark.parametrize("where", [0, 9, 20, 30, 0.5, -1])
def test_flipped_bytes_are_discarded(warm, where) -> None:
    def flip(data: bytes) -> bytes:
        at = int(len(data) * where) if isinstance(where, float) else where % len(data)
        out = bytearray(data)
        out[at] ^= 0x5A
        out[(at + 1) % len(out)] ^= 0x01
        return bytes(out)

    _check(warm, flip)


@pytest.mark.parametrize("keep", [0, 4, 8, 20, 0.5, 0.99])
def test_truncated_caches_are_discarded(warm, keep) -> None:
    _check(warm, lambda data: data[: int(len(data) * keep) if isinstance(keep, float) else keep])


def test_a_length_field_claiming_gigabytes_is_not_believed(warm) -> None:
    def huge(data: bytes) -> bytes:
        out = bytearray(data)
        struct.pack_into("<IQ", out, len(diskcache.MAGIC), 0xFFFFFFFF, 1 << 40)
        return bytes(out)

    _check(warm, huge)


def test_a_cache_file_that_is_a_folder_is_ignored(warm) -> None:
    path, s, cold, files = warm
    for target in files:
        target.unlink()
        target.mkdir()
    assert _answers(path, s) == cold


def _mutate(data: bytes, rnd: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        op = rnd.randrange(4)
        at = rnd.randrange(len(out) or 1)
        if op == 0 and out:
            out[at] = rnd.randrange(256)
        elif op == 1:
            del out[at : at + rnd.randint(1, 16)]
        elif op == 2:
            out[at:at] = rnd.randbytes(rnd.randint(1, 16))
        else:
            out = out[:at]
    return bytes(out)


@hsettings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_randomly_mutated_caches_never_change_an_answer(warm, seed: int) -> None:
    rnd = random.Random(seed)
    _check(warm, lambda data: _mutate(data, rnd))


def test_a_checksum_that_matches_but_a_stale_key_is_rebuilt(warm) -> None:
    # a valid cache of an older version of the file, moved into place
    path, s, cold, files = warm
    path.write_text(path.read_text(encoding="utf-8").replace("NAS", "cloud"), encoding="utf-8")
    new = _answers(path, s)
    for target, good in files.items():
        target.write_bytes(good)
    assert _answers(path, s) == new != cold
