"""`agd-memory migrate refs|lifecycle` on real-looking old memory files."""

from __future__ import annotations

import threading
import time

import agd
from agd import lock

REFS_DRY_RUN = """\
{path}
  #no-force-push (line 15): refs += #deploy-checklist
  #postgres-16 (line 32): refs += #db-backup
  #auth-refactor (line 43): refs += #tls-rinnovo
  #k8s-deploy (line 48): refs += #deploy-checklist, #db-backup
  #db-backup (line 61): refs += #deploy-checklist
would add 6 edges across 5 blocks in 1 of 1 file; run again with --apply to write (a .bak of each file is kept)
"""

LIFECYCLE_DRY_RUN = """\
{path}
  #utente-giulia (line 7): created="2024-03-04"; updated="2024-03-04"
  #no-force-push (line 15): created="2025-12-01"; updated="2025-12-01"
  #postgres-16 (line 32): status=done; created="2025-11-03"; updated="2025-11-03"
  #tls-rinnovo (line 38): status=open; created="2026-04-30"; updated="2026-04-30"
  #auth-refactor (line 43): status=open; updated="2025-10-20"
  #pulizia-log (line 54): status=open
  #db-backup (line 61): created="2026-01-15"; updated="2026-01-15"
would stamp 7 blocks in 1 of 1 file (5 dated, 4 given a status); run again with --apply to write (a .bak of each file is kept)
"""


def entries(path):
    return {b.id: b for b in agd.parse(path.read_text()).blocks if b.kind.startswith("x-")}


def test_refs_dry_run_lists_each_block_and_writes_nothing(fixture_copy, run):
    path = fixture_copy("old-project.agd")
    before = path.read_text()
    status, out, err = run("migrate", "refs", path)
    assert (status, err) == (0, "")
    assert out == REFS_DRY_RUN.format(path=path)
    assert path.read_text() == before
    assert not path.with_name("old-project.agd.bak").exists()


def test_refs_apply_lifts_existing_citations_only(fixture_copy, run):
    path = fixture_copy("old-project.agd")
    status, out, _ = run("migrate", "refs", "--apply", path)
    assert status == 0
    assert "added 6 edges across 5 blocks in 1 of 1 file" in out
    got = entries(path)
    assert got["k8s-deploy"].attrs["refs"] == "#deploy-checklist,#db-backup"
    # existing refs are kept first, new citations appended
    assert got["db-backup"].attrs["refs"] == "#postgres-16,#deploy-checklist"
    # #fff and #ticket-chiuso cite nothing that exists; the header-looking line
    # inside #commit-template's fence is body, not a block
    assert "refs" not in got["commit-template"].attrs
    assert "fake-header" not in got
    assert got["postgres-16"].attrs["refs"] == "#db-backup"


def test_apply_keeps_a_backup_and_changes_only_header_lines(fixture_copy, run):
    path = fixture_copy("old-project.agd")
    before = path.read_text()
    run("migrate", "lifecycle", "--apply", path)
    assert path.with_name("old-project.agd.bak").read_text() == before
    old_lines, new_lines = before.split("\n"), path.read_text().split("\n")
    assert len(old_lines) == len(new_lines)
    changed = [n + 1 for n, (a, b) in enumerate(zip(old_lines, new_lines, strict=True)) if a != b]
    assert changed == [7, 15, 32, 38, 43, 54, 61]
    # bodies (including the one with a fence-looking line) are byte-identical
    old_doc, new_doc = agd.parse(before), agd.parse(path.read_text())
    assert [b.value for b in old_doc.blocks] == [b.value for b in new_doc.blocks]


def test_lifecycle_dry_run_output(fixture_copy, run):
    path = fixture_copy("old-project.agd")
    status, out, _ = run("migrate", "lifecycle", path)
    assert status == 0
    assert out == LIFECYCLE_DRY_RUN.format(path=path)


def test_lifecycle_apply_writes_quoted_dates_and_never_overwrites(fixture_copy, run):
    path = fixture_copy("old-project.agd")
    run("migrate", "lifecycle", "--apply", path)
    text = path.read_text()
    assert 'created="2025-11-03" updated="2025-11-03"' in text
    assert "created=20" not in text  # never a bare date
    got = entries(path)
    assert got["postgres-16"].attrs["status"] == "done"
    assert got["tls-rinnovo"].attrs["status"] == "open"
    assert got["auth-refactor"].attrs["created"] == "2025-10-20"  # kept
    assert got["k8s-deploy"].attrs["status"] == "done"  # already set, untouched
    assert "created" not in got["k8s-deploy"].attrs  # 31/01/2026 is not an ISO date
    assert "created" not in got["pulizia-log"].attrs  # 2026-13-45 is not a date
    assert "status" not in got["utente-giulia"].attrs


def test_lifecycle_reads_bare_dates_and_writes_quoted_ones(fixture_copy, run):
    path = fixture_copy("global-old.agd")
    status, out, _ = run("migrate", "lifecycle", "--apply", path)
    assert status == 0
    assert '#editor (line 7): updated="2025-09-01"' in out
    text = path.read_text()
    # the bare date the earlier script wrote is left as it is (the store writes that form too)
    assert (
        '@x-user desc="usa vim e tmux ovunque" created=2025-09-01 updated="2025-09-01" [#editor]'
        in text
    )


def test_second_run_changes_nothing(fixture_copy, run):
    path = fixture_copy("old-project.agd")
    for what in ("refs", "lifecycle"):
        run("migrate", what, "--apply", path)
    after = path.read_text()
    bak = path.with_name("old-project.agd.bak")
    bak_before = bak.read_text()
    for what in ("refs", "lifecycle"):
        status, out, _ = run("migrate", what, "--apply", path)
        assert status == 0
        assert " 0 blocks in 0 of 1 file" in out or "0 edges across 0 blocks in 0 of 1 file" in out
    assert path.read_text() == after
    assert bak.read_text() == bak_before  # an unchanged file does not replace the backup


def test_crlf_and_bom_are_kept(fixture_copy, run, tmp_path):
    path = tmp_path / "crlf.agd"
    src = fixture_copy("global-old.agd").read_text()
    path.write_bytes(("\ufeff" + src.replace("\n", "\r\n")).encode())
    run("migrate", "refs", "--apply", path)
    raw = path.read_bytes().decode()
    assert raw.startswith("\ufeff")
    assert "\n" not in raw.replace("\r\n", "")
    assert 'refs="#editor" [#no-emoji]' in raw


def test_a_file_that_does_not_parse_is_reported_and_others_still_migrate(
    fixture_copy, run, tmp_path
):
    broken = tmp_path / "broken.agd"
    broken.write_text('@x-note desc="x" [#a]\n~~~\nnever closed\n')
    good = fixture_copy("global-old.agd")
    status, out, err = run("migrate", "refs", "--apply", broken, good)
    assert status == 1
    assert f"agd-memory: {broken}: unterminated fence opened at line 1" in err
    assert "added 1 edge across 1 block in 1 of 2 files" in out
    assert broken.read_text().endswith("never closed\n")


def test_apply_waits_for_the_store_lock(fixture_copy, run):
    path = fixture_copy("global-old.agd")
    held = threading.Event()
    release = threading.Event()

    def holder():
        with lock.exclusive(lock.lock_path_for(path)):
            held.set()
            release.wait(5)
            # a save that lands while migrate waits must survive the migration
            path.write_text(path.read_text().replace("usa vim e tmux", "usa neovim e tmux"))

    t = threading.Thread(target=holder)
    t.start()
    held.wait(5)
    threading.Timer(0.3, release.set).start()
    started = time.monotonic()
    status, _, _ = run("migrate", "refs", "--apply", path)
    t.join()
    assert status == 0
    assert time.monotonic() - started >= 0.25
    text = path.read_text()
    assert "usa neovim e tmux" in text and 'refs="#editor"' in text


def test_default_targets_are_every_project_file_and_the_global_one(
    env, fixture_copy, run
):
    projects = env.home / ".claude" / "projects"
    a = projects / "-home-u-app" / "memory" / "memory.agd"
    b = projects / "-home-u-lib" / "memory" / "memory.agd"
    g = env.home / ".claude" / "memory" / "global.agd"
    for target, name in ((a, "old-project.agd"), (b, "global-old.agd"), (g, "global-old.agd")):
        target.parent.mkdir(parents=True)
        target.write_text(fixture_copy(name).read_text())
    status, out, _ = run("migrate", "refs")
    assert status == 0
    assert [line for line in out.splitlines() if not line.startswith(" ")][:-1] == [
        str(a),
        str(b),
        str(g),
    ]
    assert out.splitlines()[-1].startswith("would add 8 edges across 7 blocks in 3 of 3 files")


def test_no_memory_files(env, run):
    status, out, _ = run("migrate", "lifecycle")
    assert status == 0
    assert out.startswith("no memory files found")


def test_missing_file_is_a_one_line_error(tmp_path, run):
    status, out, err = run("migrate", "refs", tmp_path / "nope.agd")
    assert status == 1
    assert err == f"agd-memory: {tmp_path / 'nope.agd'}: no such memory file\n"


def test_space_separated_refs_are_rewritten_with_commas(tmp_path, run):
    path = tmp_path / "m.agd"
    path.write_text(
        '@x-note desc="a" [#a]\n\n@x-note refs="#a #c" [#b]\n~~~\nbody\n~~~\n\n@x-note [#c]\n'
    )
    status, out, _ = run("migrate", "refs", "--apply", path)
    assert "refs '#a #c' rewritten with commas" in out
    assert agd.parse(path.read_text()).find("b").attrs["refs"] == "#a,#c"


def test_default_targets_include_a_forced_project_file(
    env, fixture_copy, run, monkeypatch
):
    forced = fixture_copy("global-old.agd", "elsewhere/memory.agd")
    monkeypatch.setenv("AGD_MEMORY_FILE", str(forced))
    status, out, _ = run("migrate", "refs")
    assert status == 0
    assert out.splitlines()[0] == str(forced)
    assert out.splitlines()[-1].startswith("would add 1 edge across 1 block in 1 of 1 file")


def test_a_symlinked_memory_file_stays_a_symlink(fixture_copy, run, tmp_path):
    real = fixture_copy("global-old.agd", "dotfiles/global.agd")
    link = tmp_path / "link.agd"
    link.symlink_to(real)
    status, _, _ = run("migrate", "refs", "--apply", link)
    assert status == 0
    assert link.is_symlink()
    assert 'refs="#editor" [#no-emoji]' in real.read_text()
    assert (tmp_path / "dotfiles" / "global.agd.bak").exists()


def test_migrations_and_store_saves_agree(fixture_copy, run, tmp_path):
    """After a migration, a save through the store changes nothing a second migration would redo."""
    from agd_memory import store
    from agd_memory.settings import Settings

    path = fixture_copy("old-project.agd")
    for what in ("refs", "lifecycle"):
        run("migrate", what, "--apply", path)
    settings = Settings.load(
        {"CLAUDE_PLUGIN_DATA": str(tmp_path / "data"), "AGD_MEMORY_TODAY": "2026-05-01"}
    )
    mf = store.MemoryFile(path, layer="project", settings=settings)
    mf.save("x-project", "new-note", "Dopo la migrazione: vedi #postgres-16.", desc="nota nuova")
    for what in ("refs", "lifecycle"):
        status, out, _ = run("migrate", what, path)
        assert status == 0
        assert " 0 blocks in 0 of 1 file" in out
    assert agd.parse(path.read_text()).find("new-note").attrs["refs"] == "#postgres-16"
