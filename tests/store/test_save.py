"""The write path: every rule of a save (reference §2.3, §2.4, §4 and the §13 fixes)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

import agd
from agd_memory import store
from agd_memory.errors import MemoryFileError, SaveRejected
from agd_memory.store import rules

TODAY = "2026-03-14"  # AGD_MEMORY_TODAY in conftest


def _block(mf: store.MemoryFile, block_id: str) -> agd.Block:
    doc = agd.parse(mf.path.read_text(encoding="utf-8"))
    block = doc.find(block_id)
    assert block is not None, f"#{block_id} missing"
    return block


def _ids(mf: store.MemoryFile) -> list[str]:
    return [b.id for b in agd.parse(mf.path.read_text(encoding="utf-8")).blocks if b.id]


# -- scaffold, sections, result line ----------------------------------------------------


def test_first_save_writes_the_scaffold_and_the_block(mf: store.MemoryFile):
    assert not mf.exists()
    result = mf.save("x-project", "db", "We use Postgres 16.", desc="database")
    assert result.action == "added"
    assert result.message == "added #db (x-project) in memory.agd"
    text = mf.path.read_text(encoding="utf-8")
    assert text.startswith(store.SCAFFOLD.split("@h2 Project")[0])
    assert _ids(mf) == ["meta", "root", "h-user", "h-feedback", "h-project", "db", "h-reference"]
    assert _block(mf, "db").attrs == {"desc": "database", "created": TODAY, "updated": TODAY}


@pytest.mark.parametrize(
    ("layer", "title"),
    [("project", "Project memory"), ("team", "Team memory"), ("global", "Global memory")],
)
def test_a_new_file_is_titled_by_its_layer(tmp_path: Path, layer: str, title: str) -> None:
    from agd_memory.settings import Settings

    # a team file is created by `team init`, or by the store when the user named it
    settings = Settings(team_file=str(tmp_path / "team.agd"))
    mf = store.MemoryFile(tmp_path / f"{layer}.agd", layer=layer, settings=settings)
    mf.save("x-project", "db", "We use Postgres 16.", desc="database")
    assert f"@h1 {title} [#root]\n" in mf.path.read_text(encoding="utf-8")
    assert "Memoria" not in mf.path.read_text(encoding="utf-8")


def test_a_file_titled_by_the_earlier_plugin_keeps_its_title(tmp_path: Path) -> None:
    path = tmp_path / "memory.agd"
    path.write_text(store.SCAFFOLD.replace("Project memory", "Memoria di sessione"), "utf-8")
    store.MemoryFile(path).save("x-project", "db", "We use Postgres 16.", desc="database")
    text = path.read_text(encoding="utf-8")
    assert "@h1 Memoria di sessione [#root]\n" in text and "#db" in text


def test_new_blocks_go_first_in_their_section(mf: store.MemoryFile):
    mf.save("x-feedback", "a", "first")
    mf.save("x-feedback", "b", "second")
    mf.save("x-user", "u", "user fact")
    assert _ids(mf)[2:7] == ["h-user", "u", "h-feedback", "b", "a"]


def test_a_kind_without_a_section_gets_one(mf: store.MemoryFile):
    mf.save("x-api-notes", "ep", "GET /v1/items")
    doc = agd.parse(mf.path.read_text(encoding="utf-8"))
    ids = [b.id for b in doc.blocks]
    assert ids[-2:] == ["h-api-notes", "ep"]
    heading = doc.find("h-api-notes")
    assert heading.kind == "h2" and heading.value == [agd.Inline("text", "Api notes")]


def test_update_keeps_position_created_and_reports_updated(mf: store.MemoryFile, settings):
    mf.save("x-project", "a", "one")
    mf.save("x-project", "b", "two")
    later = store.MemoryFile(mf.path, settings=settings.replace(today="2026-04-01"))
    result = later.save("x-project", "a", "one, revised")
    assert result.action == "updated"
    assert result.message == "updated #a (x-project) in memory.agd"
    assert _ids(mf)[5:7] == ["b", "a"]
    assert _block(mf, "a").attrs == {"created": TODAY, "updated": "2026-04-01"}
    assert _block(mf, "a").value == "one, revised"


def test_unknown_attributes_of_an_existing_block_are_kept(mf: store.MemoryFile):
    mf.path.parent.mkdir(parents=True)
    mf.path.write_text(
        store.SCAFFOLD + '\n@x-project source=distiller tags="a b" [#k]\n~~~\nold\n~~~\n'
    )
    mf.save("x-project", "k", "new")
    assert _block(mf, "k").attrs["source"] == "distiller"
    assert _block(mf, "k").attrs["tags"] == "a b"


# -- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, suggestion",
    [
        ("ctx-kernel-1.9.0", "ctx-kernel-1-9-0"),
        ("vers.1.9.0", "vers-1-9-0"),
        ("1abc", "x-1abc"),
        ("café au lait", "caf-au-lait"),
        ("...", "x-entry"),
    ],
)
def test_invalid_ids_are_rejected_with_a_suggestion(
    mf: store.MemoryFile, bad: str, suggestion: str
):
    with pytest.raises(SaveRejected) as exc:
        mf.save("x-project", bad, "body")
    assert "invalid id" in str(exc.value)
    assert f"try `{suggestion}`" in str(exc.value)
    assert "Nothing was written" in str(exc.value)
    assert not mf.path.exists()


def test_leading_hash_of_an_id_is_stripped(mf: store.MemoryFile):
    assert mf.save("x-project", "#db", "x").id == "db"


@pytest.mark.parametrize("kind", ["project2!", "h2", "x-", "x-9 x", "meta"])
def test_invalid_kinds_are_rejected(mf: store.MemoryFile, kind: str):
    with pytest.raises(SaveRejected, match="invalid kind"):
        mf.save(kind, "a", "body")


def test_bare_conventional_kind_is_accepted(mf: store.MemoryFile):
    assert mf.save("feedback", "a", "body").kind == "x-feedback"


def test_saving_over_a_heading_id_is_refused(mf: store.MemoryFile):
    mf.save("x-project", "a", "x")
    with pytest.raises(SaveRejected, match="`h2` block"):
        mf.save("x-project", "h-user", "x")


# -- bodies: fences, unicode, line ends ----------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "line\n~~~\nmore",
        "~~~~\n~~~\n~~~~~",
        "@x-fake [#inject]\n~~~\n@meta [#meta]",
        "ünïcödé ✓ 日本語 emoji 🎉 and #db cited",
        "",
        "\n",
        "trailing newline\n",
        "  indented\n\ttab",
    ],
)
def test_any_body_round_trips(mf: store.MemoryFile, body: str):
    mf.save("x-project", "db", "seed")
    mf.save("x-project", "note", body)
    assert _block(mf, "note").value == body
    assert mf.entry("note").body == body


def test_crlf_and_cr_line_ends_become_lf(mf: store.MemoryFile):
    mf.save("x-project", "n", "a\r\nb\rc\r")
    assert _block(mf, "n").value == "a\nb\nc\n"


def test_unicode_citation_lifts_only_ascii_ids(mf: store.MemoryFile):
    mf.save("x-project", "db", "x")
    mf.save("x-project", "n", "vedi #db — e #città non è un id")
    assert _block(mf, "n").attrs["refs"] == "#db"


# -- desc, status ------------------------------------------------------------------------------


def test_desc_is_one_line_kept_when_omitted_and_cleared_by_empty(mf: store.MemoryFile):
    mf.save("x-project", "a", "x", desc="first line\n   second line \n")
    assert _block(mf, "a").attrs["desc"] == "first line second line"
    mf.save("x-project", "a", "y")
    assert _block(mf, "a").attrs["desc"] == "first line second line"
    mf.save("x-project", "a", "z", desc="")
    assert "desc" not in _block(mf, "a").attrs


def test_desc_with_quotes_and_backslashes_round_trips(mf: store.MemoryFile):
    mf.save("x-project", "a", "x", desc='say "hi" \\ bye')
    assert mf.entry("a").desc == 'say "hi" \\ bye'


def test_status_set_kept_cleared_and_validated(mf: store.MemoryFile):
    mf.save("x-project", "a", "x", status="open")
    assert _block(mf, "a").attrs["status"] == "open"
    mf.save("x-project", "a", "x")
    assert _block(mf, "a").attrs["status"] == "open"
    mf.save("x-project", "a", "x", status="DONE")
    assert _block(mf, "a").attrs["status"] == "done"
    mf.save("x-project", "a", "x", status="")
    assert "status" not in _block(mf, "a").attrs
    before = mf.path.read_bytes()
    with pytest.raises(SaveRejected, match="invalid status `wip`"):
        mf.save("x-project", "a", "x", status="wip")
    assert mf.path.read_bytes() == before


# -- refs and supersedes ---------------------------------------------------------------------------


def test_body_citations_of_existing_ids_become_refs(mf: store.MemoryFile):
    mf.save("x-project", "db", "x")
    mf.save("x-project", "cache", "x")
    result = mf.save("x-project", "n", "uses #cache and #db, not #ghost or #n itself; #1 no")
    assert result.refs == ("cache", "db")
    assert _block(mf, "n").attrs["refs"] == "#cache,#db"


def test_refs_without_explicit_value_keep_old_edges(mf: store.MemoryFile):
    mf.save("x-project", "db", "x")
    mf.save("x-project", "cache", "x")
    mf.save("x-project", "n", "body", refs=["db"])
    mf.save("x-project", "n", "now about #cache")
    assert _block(mf, "n").attrs["refs"] == "#cache,#db"


def test_explicit_refs_replace_edges_and_empty_list_clears_them(mf: store.MemoryFile):
    mf.save("x-project", "db", "x")
    mf.save("x-project", "cache", "x")
    mf.save("x-project", "n", "about #db", refs=None)
    mf.save("x-project", "n", "about #db", refs=["#cache", "ghost"])
    assert _block(mf, "n").attrs["refs"] == "#cache"
    result = mf.save("x-project", "n", "about #db", refs=[])
    assert "refs" not in _block(mf, "n").attrs
    assert result.refs == ()


def test_unknown_explicit_refs_are_reported(mf: store.MemoryFile):
    mf.save("x-project", "db", "x")
    result = mf.save("x-project", "n", "x", refs=["db", "ghost"], supersedes=["phantom"])
    assert result.ignored == ("ghost", "phantom")
    assert result.message.endswith("; ignored unknown ids #ghost, #phantom")


def test_supersedes_marks_the_old_block(mf: store.MemoryFile, settings):
    mf.save("x-project", "old", "v1", status="open")
    later = store.MemoryFile(mf.path, settings=settings.replace(today="2026-05-01"))
    result = later.save("x-project", "new", "v2", supersedes=["old", "new"])
    assert result.superseded == ("old",)
    assert result.message == "added #new (x-project) in memory.agd, superseded #old"
    assert _block(mf, "old").attrs == {
        "created": TODAY,
        "updated": "2026-05-01",
        "status": "superseded",
    }
    assert _block(mf, "old").value == "v1"
    assert _block(mf, "new").attrs["supersedes"] == "#old"
    # already superseded: not marked again, supersedes kept on a later update
    again = later.save("x-project", "new", "v3")
    assert again.superseded == ()
    assert _block(mf, "new").attrs["supersedes"] == "#old"
    later.save("x-project", "new", "v4", supersedes=[])
    assert "supersedes" not in _block(mf, "new").attrs


def test_refs_given_as_a_comma_string(mf: store.MemoryFile):
    mf.save("x-project", "a", "x")
    mf.save("x-project", "b", "x")
    assert mf.save("x-project", "c", "x", refs="#a, b").refs == ("a", "b")


# -- secrets -------------------------------------------------------------------------------


def test_secret_in_content_is_refused_with_kind_and_line(mf: store.MemoryFile):
    body = "setup notes\nexport GITHUB_TOKEN=ghp_" + "aB3dE5fG7h" * 4 + "\n"
    with pytest.raises(SaveRejected) as exc:
        mf.save("x-reference", "gh", body)
    msg = str(exc.value)
    assert "GitHub token" in msg and "content line 2" in msg
    assert "ghp_aB3d" not in msg, "the message must not repeat the secret"
    assert not mf.path.exists()


def test_secret_in_desc_is_refused(mf: store.MemoryFile):
    with pytest.raises(SaveRejected, match="AWS access key id.*in desc"):
        mf.save("x-reference", "aws", "x", desc="key AKIAABCDEFGHIJKLMNOP")


def test_allow_secrets_overrides(mf: store.MemoryFile):
    mf.save("x-reference", "gh", "ghp_" + "aB3dE5fG7h" * 4, allow_secrets=True)
    assert mf.entry("gh") is not None


# -- the file: read-only, unparseable, mode ------------------------------------------------------


def test_read_only_memory_file_is_a_clear_error_and_unchanged(mf: store.MemoryFile):
    mf.save("x-project", "a", "x")
    os.chmod(mf.path, 0o444)
    before = mf.path.read_bytes()
    try:
        with pytest.raises(MemoryFileError, match="read-only"):
            mf.save("x-project", "b", "y")
        with pytest.raises(MemoryFileError, match="read-only"):
            mf.delete("a")
    finally:
        os.chmod(mf.path, 0o644)
    assert mf.path.read_bytes() == before


def test_unparseable_file_is_not_overwritten(mf: store.MemoryFile):
    mf.path.parent.mkdir(parents=True)
    mf.path.write_text("@meta [#meta]\nstray text\n")
    with pytest.raises(MemoryFileError, match="does not parse.*line 2"):
        mf.save("x-project", "a", "x")
    assert mf.path.read_text() == "@meta [#meta]\nstray text\n"


def test_file_mode_is_kept(mf: store.MemoryFile):
    mf.save("x-project", "a", "x")
    os.chmod(mf.path, 0o600)
    mf.save("x-project", "b", "x")
    assert stat.S_IMODE(os.stat(mf.path).st_mode) == 0o600


def test_lock_file_is_a_sibling_and_stays(mf: store.MemoryFile):
    mf.save("x-project", "a", "x")
    assert (mf.path.parent / "memory.agd.lock").exists()


def test_rules_suggest_id_examples():
    assert rules.suggest_id("ctx-kernel-1.9.0") == "ctx-kernel-1-9-0"
    assert rules.suggest_id("") == "x-entry"


def test_unpaired_surrogates_are_refused(mf: store.MemoryFile):
    with pytest.raises(SaveRejected, match="not valid Unicode"):
        mf.save("x-project", "a", "bad \ud800 text")
    with pytest.raises(SaveRejected, match="desc .* not valid Unicode|not valid Unicode"):
        mf.save("x-project", "a", "ok", desc="bad \udfff")
    assert not mf.path.exists()


@hyp_settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=st.text(max_size=200), desc=st.text(max_size=60))
def test_any_text_round_trips_through_save(mf: store.MemoryFile, body: str, desc: str):
    mf.save("x-project", "p", body, desc=desc, allow_secrets=True)
    store.clear_cache()
    entry = mf.entry("p")
    assert entry.body == rules.normalize_body(body)
    assert entry.desc == (rules.normalize_desc(desc) or None)
    assert "\n" not in (entry.desc or "")


def test_an_empty_existing_file_gets_the_scaffold(mf: store.MemoryFile):
    mf.path.parent.mkdir(parents=True)
    mf.path.write_text("\n\n")
    mf.save("x-user", "u", "x")
    assert _ids(mf)[:4] == ["meta", "root", "h-user", "u"]


def test_a_symlinked_memory_file_stays_a_symlink(tmp_path, settings):
    real = tmp_path / "dotfiles" / "memory.agd"
    real.parent.mkdir()
    real.write_text(store.SCAFFOLD)
    link_dir = tmp_path / "proj" / "memory"
    link_dir.mkdir(parents=True)
    (link_dir / "memory.agd").symlink_to(real)
    mf = store.MemoryFile(link_dir / "memory.agd", settings=settings)
    mf.save("x-user", "u", "x")
    assert (link_dir / "memory.agd").is_symlink()
    assert "[#u]" in real.read_text()
    assert (real.parent / "memory.agd.lock").exists()
