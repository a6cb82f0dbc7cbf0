"""`store.get` across layers, `delete` and `rename`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agd
from agd_memory import store
from agd_memory.errors import BlockNotFound, SaveRejected, UserError


@pytest.fixture
def layers(tmp_path: Path, settings) -> tuple[store.MemoryFile, store.MemoryFile]:
    project = store.MemoryFile(tmp_path / "p" / "memory.agd", layer="project", settings=settings)
    glob = store.MemoryFile(tmp_path / "g" / "global.agd", layer="global", settings=settings)
    glob.save("x-feedback", "style", "Short answers.")
    glob.save("x-user", "shared", "global version")
    project.save("x-project", "db", "Postgres.")
    project.save("x-project", "cache", "Redis, in front of #db.")
    project.save("x-project", "api", "REST; uses #cache.")
    project.save("x-project", "rule", "Migrations reviewed.", refs=["db"])
    project.save("x-user", "shared", "project version")
    return project, glob


def _ids(result: store.GetResult) -> list[str]:
    return [e.id for e in result.entries]


def test_get_across_layers_in_request_order_with_missing(layers):
    r = store.get(list(layers), ["#style", "db", "ghost", "db"])
    assert _ids(r) == ["style", "db"]
    assert [e.layer for e in r.entries] == ["global", "project"]
    assert r.missing == ["ghost"]


def test_project_layer_wins_on_duplicate_ids(layers):
    r = store.get(list(layers), ["shared"])
    assert r.entries[0].body == "project version"


def test_follow_refs_breadth_first_with_depth(layers):
    assert _ids(store.get(list(layers), ["api"], follow_refs=True)) == ["api", "cache"]
    assert _ids(store.get(list(layers), ["api"], follow_refs=True, depth=2)) == [
        "api",
        "cache",
        "db",
    ]


def test_backlinks_and_limit(layers):
    r = store.get(list(layers), ["db"], with_backlinks=True)
    assert _ids(r) == ["db", "rule", "cache"]  # backlinks in document order (newest first)
    limited = store.get(list(layers), ["db"], with_backlinks=True, limit=1)
    assert len(limited.entries) == 2
    assert _ids(store.get(list(layers), ["db", "api"], with_backlinks=True, limit=0)) == [
        "db",
        "api",
    ]


def test_get_on_missing_files_reports_everything_missing(tmp_path: Path, settings):
    mf = store.MemoryFile(tmp_path / "none.agd", settings=settings)
    assert store.get([mf], ["a"]) == store.GetResult([], ["a"])


def test_delete_reports_who_still_cites(layers):
    project, _ = layers
    result = project.delete("#db")
    assert set(result.cited_by) == {"cache", "rule"}
    assert result.message.startswith("deleted #db (x-project) from memory.agd; still cited by ")
    assert project.entry("db") is None
    assert project.entry("cache") is not None


def test_delete_unknown_and_non_memory_blocks(layers):
    project, _ = layers
    with pytest.raises(BlockNotFound, match="no block #nope"):
        project.delete("nope")
    with pytest.raises(UserError, match="not a memory entry"):
        project.delete("h-project")
    assert project.entry("h-project") is not None


def test_delete_on_a_missing_file_creates_nothing(tmp_path: Path, settings):
    mf = store.MemoryFile(tmp_path / "x" / "memory.agd", settings=settings)
    with pytest.raises(BlockNotFound):
        mf.delete("a")
    assert not mf.path.exists()


def test_rename_rewrites_every_reference(tmp_path: Path, settings):
    mf = store.MemoryFile(tmp_path / "m.agd", settings=settings)
    mf.save("x-project", "db", "Postgres; see #db-notes, not #db itself")
    mf.save("x-project", "db-notes", "about #db.")
    mf.save("x-project", "newer", "replaces", supersedes=["db"])
    mf.path.write_text(
        mf.path.read_text() + "\n@p see #db here\n\n@ref #db\n\n@ul\n- item #db\n",
        encoding="utf-8",
    )
    result = mf.rename("db", "database")
    assert set(result.rewritten) == {"db-notes", "newer"}
    doc = agd.parse(mf.path.read_text())
    assert doc.find("db") is None
    assert doc.find("database").value == "Postgres; see #db-notes, not #database itself"
    assert doc.find("db-notes").attrs["refs"] == "#database"
    assert doc.find("db-notes").value == "about #database."
    assert doc.find("newer").attrs["supersedes"] == "#database"
    text = mf.path.read_text()
    assert "@p see #database here" in text
    assert "@ref #database" in text
    assert "- item #database" in text
    assert "#db\n" not in text and "#db " not in text


def test_rename_refuses_existing_or_invalid_targets(layers):
    project, _ = layers
    before = project.path.read_bytes()
    with pytest.raises(SaveRejected, match="already exists"):
        project.rename("db", "cache")
    with pytest.raises(SaveRejected, match="invalid id"):
        project.rename("db", "bad id")
    with pytest.raises(BlockNotFound):
        project.rename("ghost", "spirit")
    assert project.path.read_bytes() == before


def test_a_number_in_refs_is_no_id_and_does_not_break_reading(tmp_path: Path, settings):
    path = tmp_path / "memory.agd"
    path.write_text(
        "@meta format=agd version=1 [#meta]\n\n@x-project refs=5 supersedes=true [#a]\n~~~\nA.\n~~~\n",
        encoding="utf-8",
    )
    entry = store.MemoryFile(path, settings=settings).entry("a")
    assert entry is not None
    assert (entry.id, entry.refs, entry.supersedes) == ("a", (), ())


SPELLINGS = ['"#a #b"', '"#a, #b"', '"a b"', '"#a,#b"']


@pytest.mark.parametrize("value", SPELLINGS)
def test_every_spelling_of_refs_reads_the_same_in_store_cli_and_viewer(value, cli, settings):
    """One refs grammar (agd.refs): `store.get`, `agd-memory get` and the viewer's edges."""
    from agd_memory.viewer.payload import memory_json

    where = cli("where", "--json")
    path = Path(json.loads(where.stdout)["project"]["path"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"@x-n [#a]\n\n@x-n [#b]\n\n@x-n refs={value} [#c]\n", encoding="utf-8")
    mf = store.MemoryFile(path, layer="project", settings=settings)

    assert _ids(store.get([mf], ["c"], follow_refs=True)) == ["c", "a", "b"]
    assert _ids(store.get([mf], ["b"], with_backlinks=True)) == ["b", "c"]
    r = cli("get", "c", "--follow-refs")
    assert r.returncode == 0, r.stderr
    assert [b.id for b in agd.parse(r.stdout).blocks] == ["c", "a", "b"]
    r = cli("get", "a", "--with-backlinks")
    assert [b.id for b in agd.parse(r.stdout).blocks] == ["a", "c"]

    blocks = {b["id"]: b for b in memory_json("k", [("project", path)], settings)["blocks"]}
    assert [ref["id"] for ref in blocks["c"]["refs"]] == ["a", "b"]
    assert [link["id"] for link in blocks["b"]["backlinks"]] == ["c"]


def test_get_follows_body_citations_and_supersedes(mf):
    mf.save("x-project", "old", "MySQL.")
    mf.save("x-project", "db", "Postgres.")
    path = mf.path
    text = path.read_text(encoding="utf-8")
    # a hand-written block: its body cites #db, nothing lifted into refs
    path.write_text(text + '\n@x-project supersedes="#old" [#new]\n~~~\non #db\n~~~\n', "utf-8")
    assert _ids(store.get([mf], ["new"], follow_refs=True)) == ["new", "db", "old"]
    assert _ids(store.get([mf], ["old"], with_backlinks=True)) == ["old", "new"]
