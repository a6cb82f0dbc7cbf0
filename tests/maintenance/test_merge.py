"""`agd-memory merge SOURCE DEST` on two diverged copies of one project's memory."""

from __future__ import annotations

import agd

DRY_RUN = """\
merge {source} -> {dest}
  copy #test-prima (x-feedback) after #h-feedback
  copy #ci-pipeline (x-project) after #h-project
  copy #api-v2 (x-project) after #h-project
  copy #runbook (x-reference) after #h-reference
  copy #sdi (x-glossary) in a new section #h-glossary
  conflict #db-version: differs (body; desc, updated): kept DEST's block; merge it by hand or pass --prefer source|dest|newer
  conflict #cache-redis: differs (body; updated): kept DEST's block; merge it by hand or pass --prefer source|dest|newer
  #test-prima: dropped #ghost-entry from refs (not in DEST after the merge)
  #runbook: dropped #appunti from refs (not in DEST after the merge)
would copy 5 entries, 2 identical, 2 conflicts (2 left for you); run again with --apply to write DEST (DEST.bak is kept)
"""


def copies(fixture_copy):
    return fixture_copy("merge-source.agd"), fixture_copy("merge-dest.agd")


def ids(path):
    return [b.id for b in agd.parse(path.read_text()).blocks]


def block(path, block_id):
    return agd.parse(path.read_text()).find(block_id)


def test_dry_run_reports_copies_conflicts_and_dropped_refs(fixture_copy, run):
    source, dest = copies(fixture_copy)
    before = dest.read_text()
    status, out, err = run("merge", source, dest)
    assert status == 1  # conflicts left for a person
    assert out == DRY_RUN.format(source=source, dest=dest)
    assert "2 conflict(s) left unresolved" in err
    assert dest.read_text() == before
    assert not dest.with_name("merge-dest.agd.bak").exists()


def test_apply_copies_in_source_order_into_each_kinds_section(fixture_copy, run):
    source, dest = copies(fixture_copy)
    before = dest.read_text()
    status, out, _ = run("merge", source, dest, "--apply", "--prefer", "dest")
    assert status == 0
    assert dest.with_name("merge-dest.agd.bak").read_text() == before
    assert ids(dest) == [
        "meta", "root",
        "h-user", "utente-sara",
        "h-feedback", "test-prima", "no-force-push",
        "h-project", "ci-pipeline", "api-v2", "deploy-compose", "db-version", "cache-redis",
        "h-reference", "runbook",
        "h-glossary", "sdi",
    ]  # fmt: skip
    # the header-looking lines in #runbook's fence stayed body
    assert (
        '@x-reference desc="finto blocco dentro il recinto" [#finto]'
        in block(dest, "runbook").value
    )
    # refs stay valid: ids DEST lacks are dropped, the rest kept
    assert block(dest, "test-prima").attrs["refs"] == "#ci-pipeline"
    assert "refs" not in block(dest, "runbook").attrs
    assert block(dest, "api-v2").attrs["refs"] == "#db-version"
    # --prefer dest keeps DEST's side of both conflicts
    assert block(dest, "db-version").attrs["desc"] == "database: Postgres 15"
    assert "TTL 15 minuti" in block(dest, "cache-redis").value
    assert "kept DEST's block (--prefer dest)" in out


def test_prefer_source_takes_sources_block_in_dests_place(fixture_copy, run):
    source, dest = copies(fixture_copy)
    status, _, _ = run("merge", source, dest, "--apply", "--prefer", "source")
    assert status == 0
    assert block(dest, "db-version").attrs["desc"] == "database: Postgres 16"
    assert "TTL 1 ora" in block(dest, "cache-redis").value
    order = ids(dest)
    assert order.index("deploy-compose") < order.index("db-version") < order.index("cache-redis")


def test_prefer_newer_resolves_each_way_by_date(fixture_copy, run):
    source, dest = copies(fixture_copy)
    status, out, _ = run("merge", source, dest, "--apply", "--prefer", "newer")
    assert status == 0
    assert "#db-version: took SOURCE's block, newer (2026-02-10 > 2026-01-05)" in out
    assert "#cache-redis: kept DEST's block, newer (2026-03-01 > 2025-12-01)" in out
    assert block(dest, "db-version").attrs["updated"] == "2026-02-10"
    assert block(dest, "cache-redis").attrs["updated"] == "2026-03-01"


def test_prefer_newer_without_dates_leaves_the_conflict(tmp_path, run):
    source, dest = tmp_path / "s.agd", tmp_path / "d.agd"
    source.write_text('@h2 Project [#h-project]\n\n@x-project desc="a" [#x]\n~~~\nA\n~~~\n')
    dest.write_text('@h2 Project [#h-project]\n\n@x-project desc="a" [#x]\n~~~\nB\n~~~\n')
    status, out, _ = run("merge", source, dest, "--prefer", "newer", "--apply")
    assert status == 1
    assert "neither is newer (SOURCE undated, DEST undated)" in out
    assert block(dest, "x").value == "B"


def test_merging_twice_changes_nothing(fixture_copy, run):
    source, dest = copies(fixture_copy)
    run("merge", source, dest, "--apply", "--prefer", "source")
    merged = dest.read_text()
    status, out, _ = run("merge", source, dest, "--apply", "--prefer", "source")
    assert status == 0
    assert dest.read_text() == merged
    assert out.splitlines()[-1] == "copied 0 entries, 9 identical, 0 conflicts"


def test_a_missing_section_heading_is_created_at_the_end(fixture_copy, run):
    source, dest = copies(fixture_copy)
    run("merge", source, dest, "--apply", "--prefer", "dest")
    text = dest.read_text()
    assert text.endswith(
        '@h2 Glossary [#h-glossary]\n\n@x-glossary desc="SDI: sistema di interscambio" '
        'created="2026-01-30" updated="2026-01-30" [#sdi]\n~~~\n'
        "Il Sistema di Interscambio dell'Agenzia delle Entrate riceve le fatture elettroniche.\n~~~\n"
    )


def test_an_entry_id_used_by_a_dest_heading_is_skipped(tmp_path, run):
    source, dest = tmp_path / "s.agd", tmp_path / "d.agd"
    source.write_text('@x-project desc="a" [#h-project]\n~~~\nA\n~~~\n')
    dest.write_text("@h2 Project [#h-project]\n")
    status, out, _ = run("merge", source, dest, "--apply")
    assert status == 0
    assert "skipped #h-project: DEST uses this id for a @h2 block" in out
    assert dest.read_text() == "@h2 Project [#h-project]\n"


def test_bad_arguments_are_one_line_errors(fixture_copy, tmp_path, run):
    source, dest = copies(fixture_copy)
    status, _, err = run("merge", tmp_path / "nope.agd", dest)
    assert status == 1
    assert (
        err
        == f"agd-memory: SOURCE {tmp_path / 'nope.agd'} is not a file; pass two existing memory files\n"
    )
    status, _, err = run("merge", dest, dest)
    assert status == 1 and "are the same file" in err


def test_a_dest_that_does_not_parse_is_left_alone(fixture_copy, tmp_path, run):
    source, _ = copies(fixture_copy)
    dest = tmp_path / "broken.agd"
    dest.write_text("@h2 Project [#h-project]\nstray text\n")
    status, _, err = run("merge", source, dest, "--apply")
    assert status == 1
    assert "parse error at line 2, col 1: unexpected continuation" in err
    assert dest.read_text() == "@h2 Project [#h-project]\nstray text\n"


def test_a_source_entry_a_save_would_refuse_is_not_merged(tmp_path, run):
    # the merge writes through the store's rules of an entry: a body past the size limit
    # or a status a save would refuse is refused as `save` refuses it, and DEST is untouched
    dest = tmp_path / "dest.agd"
    dest.write_text("@x-project desc=\"kept\" [#kept]\n~~~\nfact\n~~~\n", encoding="utf-8")
    before = dest.read_text()
    huge = "x" * 100_001
    for bad in (
        f'@x-project desc="too long" [#huge]\n~~~\n{huge}\n~~~\n',
        '@x-project desc="wrong status" status="maybe" [#status]\n~~~\nfact\n~~~\n',
    ):
        source = tmp_path / "source.agd"
        source.write_text(bad, encoding="utf-8")
        status, out, err = run("merge", source, dest, "--apply")
        assert status == 1, (bad[:40], out, err)
        assert "rejected" in err and "SOURCE" in err, err
        assert dest.read_text() == before
