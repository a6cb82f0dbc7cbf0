"""A team file that already holds git's conflict markers (merged by a clone without the
driver): the one-line message for readers, and `agd-memory team resolve`."""

from __future__ import annotations

import pytest

from agd import parse
from agd_memory.team.markers import conflict_message, split_sides


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
