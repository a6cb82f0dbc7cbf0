"""A team file that already holds git's conflict markers (merged by a clone without the
driver): the one-line message for readers, and `agd-memory team resolve`."""

from __future__ import annotations

import pytest

from agd import parse
from agd_memory.store.rules import conflict_message
from agd_memory.team.markers import split_sides


def _conflicted(make_clone, style: str):
    a, b = make_clone("a"), make_clone("b")
    a.memory().save("x-project", "shared", "kept by both")
    a.commit("base")
    a.git("push", "-q")
    b.git("pull", "-q")
    b.git("config", "--remove-section", "merge.agd-memory")  # a clone without the driver
    a.memory("2026-01-02").save("x-project", "from-a", "a's fact")
    a.memory("2026-01-02").save("x-project", "shared", "a's edit")
    a.commit("a")
    a.git("push", "-q")
    b.memory("2026-01-03").save("x-project", "from-b", "b's fact")
    b.memory("2026-01-03").save("x-project", "shared", "b's edit")
    b.commit("b")
    pulled = b.git(
        "-c", f"merge.conflictStyle={style}", "pull", "--no-rebase", "--no-edit", check=False
    )
    assert "CONFLICT" in pulled.stdout
    assert "<<<<<<<" in b.text()
    return b


@pytest.mark.slow
@pytest.mark.parametrize("style", ["merge", "diff3"])
def test_resolve_merges_each_marked_region_block_by_block(make_clone, style: str):
    b = _conflicted(make_clone, style)
    message = b.cli("team", "resolve").stdout
    assert message.startswith("merged ") and " conflict region(s) in " in message
    blocks = b.blocks()
    assert blocks["from-a"].value == "a's fact" and blocks["from-b"].value == "b's fact"
    assert blocks["shared"].value == "b's edit"  # the later save
    loser = blocks["shared"].attrs["supersedes"].lstrip("#")
    assert blocks[loser].value == "a's edit" and blocks[loser].attrs["status"] == "superseded"
    again = b.cli("team", "resolve").stdout
    assert again.strip().endswith("no conflict markers, nothing to do")


def test_a_reader_names_the_fix_in_one_line():
    text = "@meta [#m]\n\n<<<<<<< HEAD\n@x-a [#a]\n=======\n@x-a [#b]\n>>>>>>> other\n"
    assert conflict_message("team.agd", text) == (
        "memory file team.agd holds git conflict markers (line 3); run "
        "`agd-memory team resolve` to merge them block by block"
    )
    # a fenced body may hold a line of `=======`: without the markers around it, no message
    assert conflict_message("m.agd", "@x-a [#a]\n~~~\n=======\n~~~\n") is None


def test_the_sides_rebuild_both_versions_and_the_base():
    text = "top\n<<<<<<< ours\nmine\n||||||| base\nold\n=======\nyours\n>>>>>>> theirs\nend\n"
    sides = split_sides(text)
    assert (sides.ours, sides.base, sides.theirs) == (
        "top\nmine\nend\n",
        "top\nold\nend\n",
        "top\nyours\nend\n",
    )
    assert split_sides("a\n<<<<<<< x\nb\n=======\nc\n>>>>>>> y\n").base is None


def test_resolve_refuses_a_side_that_does_not_parse_and_writes_nothing(tmp_path, git_env):
    from teamutil import Clone

    (tmp_path / "r" / ".git").mkdir(parents=True)
    clone = Clone(tmp_path / "r", git_env)
    clone.team_file.parent.mkdir()
    text = "@meta [#m]\n\n<<<<<<< HEAD\n@x-a [#a]\n~~~\nopen fence\n=======\n@x-a [#b]\n>>>>>>> o\n"
    clone.team_file.write_text(text)
    done = clone.cli("team", "resolve", check=False)
    assert done.returncode == 1
    assert "the ours side of the conflict does not parse" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert clone.text() == text
    assert parse("@meta [#m]\n").blocks  # sanity: the library parses


QUOTED = (
    "When a merge conflicts, git writes:\n<<<<<<< HEAD\nour line\n=======\ntheir line\n"
    ">>>>>>> feature\nKeep one side and delete the marker lines."
)


def test_a_body_quoting_conflict_markers_is_text_and_no_write_is_lost(tmp_path, monkeypatch):
    """A note about a merge quotes the markers: it saves, reads back whole, the layer stays
    readable and writable (its deletion too), and `team resolve` leaves its text alone."""
    from agd_memory import store
    from agd_memory.settings import Settings
    from agd_memory.team.markers import resolve_text

    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path / "data"))
    path = tmp_path / "memory.agd"
    mf = store.MemoryFile(path, layer="project", settings=Settings.load())
    mf.save("x-reference", "git-conflict-howto", QUOTED, desc="how git shows a conflict")
    mf.save("x-project", "other", "an unrelated fact")
    fresh = store.MemoryFile(path, layer="project", settings=Settings.load())
    assert fresh.entry("git-conflict-howto").body == QUOTED
    assert conflict_message(path, path.read_text()) is None
    assert resolve_text(path.read_text(), str(path)).regions == 0
    fresh.delete("git-conflict-howto")
    assert [e.id for e in fresh.entries() if e.is_memory] == ["other"]


def test_a_real_region_that_cuts_through_a_body_is_still_named():
    text = "@meta [#m]\n\n@x-a [#a]\n~~~\n<<<<<<< HEAD\nmine\n~~~\n=======\ntheirs\n>>>>>>> b\n"
    assert conflict_message("t.agd", text, parsed=False) is not None


def test_the_driver_merges_bodies_quoting_nested_markers_as_text(tmp_path):
    from agd_memory.team.driver import merge_versions

    head = '@meta format=agd version=1 [#meta]\n\n@x-project desc="a fact" [#keep-me]\n~~~\nkeep\n~~~\n\n'
    howto = (
        '@x-reference desc="nested conflict example" [#howto]\n~~~~\n<<<<<<< A\n<<<<<<< B\nx\n'
        "=======\ny\n>>>>>>> B\n=======\nz\n>>>>>>> A\n~~~~\n"
    )
    files = {}
    for name, extra in (("base", ""), ("ours", "o"), ("theirs", "t")):
        more = f'\n@x-project desc="{name} new" [#{name}-new]\n~~~\n{extra}\n~~~\n' if extra else ""
        files[name] = tmp_path / name
        files[name].write_text(head + howto + more)
    merge_versions(str(files["base"]), str(files["ours"]), str(files["theirs"]))
    merged = parse(files["ours"].read_text())
    ids = [b.id for b in merged.blocks]
    assert ids == ["meta", "keep-me", "howto", "ours-new", "theirs-new"]
    assert "<<<<<<< B" in merged.blocks[2].value
    assert conflict_message("m", files["ours"].read_text()) is None
