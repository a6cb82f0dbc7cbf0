"""The one write path: every change takes the real file's lock, refuses a read-only file,
writes through links, changes only the bytes of what it changes, and cleans up after a
killed writer."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import agd
from agd import lock
from agd_memory import store
from agd_memory.errors import MemoryFileError, SaveRejected, SecretRejected
from agd_memory.maintenance.merge import merge_files
from agd_memory.maintenance.migrate import migrate_file
from agd_memory.store import rules

REPO_SRC = Path(__file__).resolve().parents[2] / "src"
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"

DEST = (
    "@meta format=agd version=1 [#meta]\n"
    "\n"
    "@h2 Project [#h-project]\n"
    "\n"
    '@x-project desc="kept" created="2026-01-01" [#kept]\n'
    "~~~\n"
    "dest body\n"
    "~~~\n"
)
SOURCE = (
    "@meta format=agd version=1 [#meta]\n"
    "\n"
    "@h2 Project [#h-project]\n"
    "\n"
    '@x-project desc="new one" created="2026-02-02" [#copied]\n'
    "~~~\n"
    "from source\n"
    "~~~\n"
)


def _hold_lock(lock_file: Path) -> subprocess.Popen[str]:
    """A process holding `lock_file` until a line arrives on its stdin."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys
                sys.path.insert(0, {str(REPO_SRC)!r})
                from pathlib import Path
                from agd import lock
                with lock.exclusive(Path({str(lock_file)!r})):
                    print("held", flush=True)
                    sys.stdin.readline()
                """
            ),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_symlinked_file_locked_as_save_locks_it_blocks_merge_apply(tmp_path: Path):
    real = tmp_path / "dotfiles" / "memory.agd"
    real.parent.mkdir()
    real.write_text(DEST, encoding="utf-8")
    real.chmod(0o600)
    link = tmp_path / "project" / "memory.agd"
    link.parent.mkdir()
    link.symlink_to(real)
    source = tmp_path / "source.agd"
    source.write_text(SOURCE, encoding="utf-8")
    # save through either name takes the lock beside the real file
    assert store.MemoryFile(link).lock_path == store.MemoryFile(real).lock_path
    holder = _hold_lock(store.MemoryFile(link).lock_path)
    outcome: list[object] = []
    merging = threading.Thread(
        target=lambda: outcome.append(merge_files(source, link, prefer=None, apply=True))
    )
    try:
        merging.start()
        merging.join(0.5)
        assert merging.is_alive(), "merge --apply did not wait for the lock save holds"
        assert real.read_text(encoding="utf-8") == DEST
    finally:
        assert holder.stdin is not None
        holder.stdin.write("release\n")
        holder.stdin.close()
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()
    merging.join(30)
    assert not merging.is_alive() and outcome
    assert link.is_symlink(), "the link stays a link"
    assert [b.id for b in agd.parse(real.read_text(encoding="utf-8")).blocks][-2:] == [
        "copied",
        "kept",
    ]
    assert (real.parent / "memory.agd.bak").read_text(encoding="utf-8") == DEST
    assert (real.parent / "memory.agd.bak").stat().st_mode & 0o777 == 0o600, "as private"
    assert not (link.parent / "memory.agd.bak").exists()


@pytest.mark.parametrize("verb", ["merge", "migrate"])
def test_bulk_rewrites_refuse_a_read_only_file_and_change_nothing(tmp_path: Path, verb: str):
    dest = tmp_path / "memory.agd"
    # a body citation that `migrate refs` would lift into refs=; SOURCE has an entry to copy
    cited = '\n@x-project desc="cited" created="2026-01-01" [#cited]\n~~~\nx\n~~~\n'
    dest.write_text(DEST.replace("dest body", "see #cited") + cited, encoding="utf-8")
    before = dest.read_bytes()
    source = tmp_path / "source.agd"
    source.write_text(SOURCE, encoding="utf-8")
    dest.chmod(0o444)
    with pytest.raises(MemoryFileError, match=r"read-only; make it writable \(chmod u\+w\)"):
        if verb == "merge":
            merge_files(source, dest, prefer=None, apply=True)
        else:
            migrate_file(dest, "refs", apply=True)
    assert dest.read_bytes() == before
    assert oct(dest.stat().st_mode & 0o777) == oct(0o444)
    assert not (tmp_path / "memory.agd.bak").exists()


def test_merge_apply_refuses_to_copy_a_block_holding_a_secret(tmp_path: Path):
    dest = tmp_path / "memory.agd"
    dest.write_text(DEST, encoding="utf-8")
    source = tmp_path / "source.agd"
    source.write_text(SOURCE.replace("from source", f"token {TOKEN}"), encoding="utf-8")
    with pytest.raises(SecretRejected, match=r"#copied in SOURCE .* GitHub token .* in content"):
        merge_files(source, dest, prefer=None, apply=True)
    assert dest.read_text(encoding="utf-8") == DEST


# -- a save changes only the bytes of what it saves -------------------------------------

OTHERS = (
    "\ufeff@meta format=agd version=1 [#meta]\r\n"
    "\r\n"
    "@h2 Project [#h-project]\r\n"
    "\r\n"
    "\r\n"
    '@x-project ver=007 flag=yes  desc="odd  spacing" [#other]\r\n'
    "~~~\r\n"
    "body of other\r\n"
    "~~~\r\n"
    "\r\n"
    '@x-project desc="target" created="2026-01-01" [#target]\r\n'
    "~~~\r\n"
    "old\r\n"
    "~~~\r\n"
)


def test_save_keeps_other_blocks_bom_and_crlf_byte_for_byte(mf: store.MemoryFile):
    mf.path.parent.mkdir(parents=True)
    mf.path.write_bytes(OTHERS.encode("utf-8"))
    mf.save("x-project", "target", "new body")
    after = mf.path.read_bytes().decode("utf-8")
    head = OTHERS[: OTHERS.index('@x-project desc="target"')]
    assert after.startswith(head), "the BOM, CRLF, blank lines and ver=007 are kept"
    assert "ver=007" in after and after.startswith("\ufeff")
    saved = after[len(head) :]
    assert saved.endswith("~~~\r\nnew body\r\n~~~\r\n"), "the saved block in the file's line ends"
    assert mf.entry("target").body == "new body"


def test_rename_and_delete_keep_the_other_blocks_bytes(mf: store.MemoryFile):
    mf.path.parent.mkdir(parents=True)
    mf.path.write_bytes(OTHERS.encode("utf-8"))
    head = OTHERS[: OTHERS.index('@x-project desc="target"')]
    mf.rename("target", "renamed")
    after = mf.path.read_bytes().decode("utf-8")
    assert after.startswith(head) and after[len(head) :].startswith("@x-project")
    assert "[#renamed]\r\n" in after[len(head) :]
    mf.delete("renamed")
    after = mf.path.read_bytes().decode("utf-8")
    assert after == OTHERS[: OTHERS.index('\r\n@x-project desc="target"')]


# -- orphan temporary files ---------------------------------------------------------------


def test_a_write_removes_only_our_stale_temp_files_of_that_file(mf: store.MemoryFile):
    mf.save("x-project", "first", "one")
    folder = mf.path.parent
    old = time.time() - 3600
    stale = folder / ".memory.agd.k2j4x9q1.tmp"  # what a writer killed mid-save leaves
    fresh = folder / ".memory.agd.abcdefgh.tmp"  # a write in progress, or just finished
    others = [
        folder / ".global.agd.k2j4x9q1.tmp",  # another file's
        folder / ".memory.agd.notours.tmp",  # not our naming pattern
        folder / "memory.agd.k2j4x9q1.tmp",
    ]
    for p in [stale, fresh, *others]:
        p.write_text("copy", encoding="utf-8")
    for p in [stale, *others]:
        os.utime(p, (old, old))
    mf.save("x-project", "second", "two")
    assert not stale.exists()
    assert fresh.exists() and all(p.exists() for p in others)


def test_a_killed_writers_temp_file_is_cleared_by_the_next_locked_write(tmp_path: Path):
    path = tmp_path / "memory.agd"
    path.write_text(DEST, encoding="utf-8")
    leftover = tmp_path / ".memory.agd.zz9_aa01.tmp"
    leftover.write_text(DEST, encoding="utf-8")
    old = time.time() - 3600
    os.utime(leftover, (old, old))
    assert lock.locked_path(path) == tmp_path / "memory.agd.lock"
    store.MemoryFile(path).set_keys({"kept": ["database"]})
    assert not leftover.exists()


# -- reading errors and sizes -------------------------------------------------------------


def test_stat_errors_other_than_missing_are_one_line_memory_file_errors(tmp_path: Path):
    a_file = tmp_path / "plain"
    a_file.write_text("x", encoding="utf-8")
    loop = tmp_path / "loop.agd"
    loop.symlink_to(tmp_path / "loop2.agd")
    (tmp_path / "loop2.agd").symlink_to(loop)
    for path in (a_file / "memory.agd", tmp_path / ("x" * 300), loop):
        mf = store.MemoryFile(path)
        for read in (mf.exists, mf.entries, mf.document):
            with pytest.raises(MemoryFileError, match=f"cannot read memory file {path}") as err:
                read()
            assert "\n" not in str(err.value)
    assert store.MemoryFile(tmp_path / "missing.agd").exists() is False


@pytest.mark.parametrize(
    ("field", "args", "limit"),
    [
        ("id", {"id": "a" * 100_000}, rules.MAX_ID_CHARS),
        ("kind", {"kind": "x-" + "k" * 200}, rules.MAX_KIND_CHARS),
        ("desc", {"desc": "d" * (rules.MAX_DESC_CHARS + 1)}, rules.MAX_DESC_CHARS),
        ("content", {"content": "b" * (rules.MAX_BODY_CHARS + 1)}, rules.MAX_BODY_CHARS),
        ("refs", {"refs": ["r" * 200]}, rules.MAX_ID_CHARS),
    ],
)
def test_oversized_fields_are_refused_with_the_limit(mf: store.MemoryFile, field, args, limit):
    call = {"kind": "x-project", "id": "ok", "content": "x", **args}
    kind, block_id, content = call.pop("kind"), call.pop("id"), call.pop("content")
    with pytest.raises(SaveRejected, match=f"{field}.*{limit:,}|{limit:,}.*{field}") as err:
        mf.save(kind, block_id, content, **call)
    assert len(str(err.value)) < 400, "the message does not echo the oversized value"
    assert not mf.path.exists()


@pytest.mark.parametrize(
    ("field", "args"),
    [
        ("id", {"id": TOKEN}),
        ("kind", {"kind": "x-" + TOKEN}),
        ("keys", {"keys": ["deploy", TOKEN]}),
        ("refs", {"refs": [TOKEN]}),
        ("supersedes", {"supersedes": [TOKEN]}),
        ("desc", {"desc": f"uses {TOKEN}"}),
        ("content line 2", {"content": f"first\nthen {TOKEN}"}),
    ],
)
def test_a_secret_in_any_field_is_refused_naming_that_field(mf: store.MemoryFile, field, args):
    call = {"kind": "x-project", "id": "ok", "content": "x", **args}
    kind, block_id, content = call.pop("kind"), call.pop("id"), call.pop("content")
    with pytest.raises(SecretRejected, match=f"GitHub token .* in {field}[;( ]") as err:
        mf.save(kind, block_id, content, **call)
    assert TOKEN not in str(err.value)
    assert not mf.path.exists()


def test_a_secret_as_rename_target_is_refused(mf: store.MemoryFile):
    mf.save("x-project", "plain", "x")
    before = mf.path.read_bytes()
    with pytest.raises(SecretRejected, match="in new id"):
        mf.rename("plain", TOKEN)
    assert mf.path.read_bytes() == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_as_memory_file_is_an_error_not_a_hang(tmp_path: Path):
    fifo = tmp_path / "memory.agd"
    os.mkfifo(fifo)
    with pytest.raises(MemoryFileError, match="not a regular file"):
        store.MemoryFile(fifo).save("x-project", "a", "x")
    for apply in (False, True):
        with pytest.raises(MemoryFileError, match="not a regular file"):
            migrate_file(fifo, "refs", apply=apply)
