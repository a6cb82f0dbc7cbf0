"""The team file through real git: `team init`, and every merge rule through `git merge`,
`git pull --rebase`, `git cherry-pick` and `git stash pop`, with the driver registered.
Every merge must succeed without a conflict and leave a file that parses, no markers."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from teamutil import Clone

from agd_memory import store

A_DAY, B_DAY = "2026-01-02", "2026-01-03"


def test_init_sets_up_a_clone_once(make_clone: Callable[[str], Clone]):
    a = make_clone("a")
    assert a.blocks()["meta"].kind == "meta"
    assert a.git("config", "merge.agd-memory.driver").stdout.strip().endswith(" %O %A %B %P")
    again = a.cli("team", "init")
    assert "already set up, nothing to do" in again.stdout
    attributes = (a.path / ".gitattributes").read_text()
    assert attributes.count(".claude/memory.agd merge=agd-memory") == 1
    assert a.git("status", "--porcelain").stdout == ""  # the lock file is ignored


def test_init_outside_a_repository_is_one_line(make_clone, tmp_path, git_env):
    plain = tmp_path / "plain"
    plain.mkdir()
    clone = Clone(plain, git_env)
    done = clone.cli("team", "init", check=False)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"agd-memory: {plain} is not inside a git repository; run `agd-memory team init` in a clone"
    ]


def _base(mf: store.MemoryFile) -> None:
    mf.save("x-project", "shared", "a fact both keep")
    mf.save("x-project", "gone", "a fact one side deletes")
    mf.save("x-project", "edited", "the original wording")


def _check_added(blocks):
    assert blocks["a-new"].value == "added by a" and blocks["b-new"].value == "added by b"


def _check_same(blocks):
    assert blocks["same"].value == "the same fact"
    assert not [i for i in blocks if i.startswith("same-")]


def _check_dup(blocks):
    texts = sorted(b.value for i, b in blocks.items() if i == "dup" or i.startswith("dup-"))
    assert texts == ["a's fact", "b's fact"]


def _check_deleted(blocks):
    assert "gone" not in blocks and "b-new" in blocks


def _check_edit_beats_delete(blocks):
    assert blocks["edited"].value == "b's wording"


def _check_later_wins(blocks):
    assert blocks["edited"].value == "b's wording"
    loser = blocks["edited"].attrs["supersedes"].lstrip("#")
    assert blocks[loser].value == "a's wording"
    assert blocks[loser].attrs["status"] == "superseded"


RULES = {
    "added-one-side": (
        lambda m: m(A_DAY).save("x-project", "a-new", "added by a"),
        lambda m: m(B_DAY).save("x-project", "b-new", "added by b"),
        _check_added,
    ),
    "same-add-kept-once": (
        lambda m: m(A_DAY).save("x-project", "same", "the same fact"),
        lambda m: m(A_DAY).save("x-project", "same", "the same fact"),
        _check_same,
    ),
    "same-id-different-text": (
        lambda m: m(A_DAY).save("x-project", "dup", "a's fact"),
        lambda m: m(B_DAY).save("x-project", "dup", "b's fact"),
        _check_dup,
    ),
    "deleted-unchanged": (
        lambda m: m(A_DAY).delete("gone"),
        lambda m: m(B_DAY).save("x-project", "b-new", "added by b"),
        _check_deleted,
    ),
    "deleted-vs-changed": (
        lambda m: m(A_DAY).delete("edited"),
        lambda m: m(B_DAY).save("x-project", "edited", "b's wording"),
        _check_edit_beats_delete,
    ),
    "changed-both-later-wins": (
        lambda m: m(A_DAY).save("x-project", "edited", "a's wording"),
        lambda m: m(B_DAY).save("x-project", "edited", "b's wording"),
        _check_later_wins,
    ),
}
MODES = ("merge", "pull-rebase", "cherry-pick", "stash-pop")


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rule", list(RULES))
def test_every_rule_through_git(make_clone: Callable[[str], Clone], rule: str, mode: str):
    a = make_clone("a")
    _base(a.memory())
    a.commit("base")
    a.git("push", "-q")
    b = make_clone("b")
    change_a, change_b, check = RULES[rule]
    change_a(a.memory)
    a.commit("a's change")
    a.git("push", "-q")
    change_b(b.memory)
    if mode == "stash-pop":
        b.git("stash", "-q")
        b.git("pull", "-q", "--ff-only")
        b.git("stash", "pop", "-q")
    else:
        b.commit("b's change")
        if mode == "merge":
            b.git("pull", "-q", "--no-rebase", "--no-edit")
        elif mode == "pull-rebase":
            b.git("pull", "-q", "--rebase")
        else:
            b.git("fetch", "-q")
            b.git("cherry-pick", "--keep-redundant-commits", "origin/main")
    assert b.git("diff", "--name-only", "--diff-filter=U").stdout == ""
    blocks = b.blocks()
    check(blocks)
    assert blocks["shared"].value == "a fact both keep"


def test_a_version_that_does_not_parse_is_an_ordinary_conflict(make_clone):
    a = make_clone("a")
    b = make_clone("b")
    a.memory().save("x-project", "n1", "from a")
    a.commit("a")
    a.git("push", "-q")
    b.team_file.write_text(b.text() + "\n@x-project [#broken]\n~~~\nno closing fence\n")
    b.commit("b breaks the file")
    pulled = b.git("pull", "--no-rebase", "--no-edit", check=False)
    assert pulled.returncode != 0
    assert "CONFLICT" in pulled.stdout + pulled.stderr
    assert "ours version does not parse" in pulled.stdout + pulled.stderr
    assert "@x-project [#broken]" in b.text()  # our version, untouched


@pytest.mark.slow
def test_a_rename_and_a_new_citation_of_the_old_id_stay_consistent(make_clone):
    a = make_clone("a")
    _base(a.memory())
    a.commit("base")
    a.git("push", "-q")
    b = make_clone("b")
    a.memory(A_DAY).rename("shared", "shared-fact")
    a.commit("a renames")
    a.git("push", "-q")
    b.memory(B_DAY).save("x-project", "uses", "builds on the shared fact", refs=["shared"])
    b.commit("b cites the old id")
    b.git("pull", "-q", "--rebase")
    blocks = b.blocks()
    assert "shared" not in blocks and blocks["shared-fact"].value == "a fact both keep"
    assert blocks["uses"].attrs["refs"] == "#shared-fact"


@pytest.mark.slow
def test_three_clones_and_a_criss_cross_merge_converge(make_clone):
    a = make_clone("a")
    _base(a.memory())
    a.commit("base")
    a.git("push", "-q")
    b, c = make_clone("b"), make_clone("c")
    for clone, day in ((a, "2026-02-01"), (b, "2026-02-02"), (c, "2026-02-03")):
        clone.memory(day).save("x-project", "edited", f"{clone.path.name}'s wording")
        clone.memory(day).save("x-project", f"from-{clone.path.name}", "a fact of its own")
        clone.commit(f"{clone.path.name} edits")
    # a and b each merge the other's commit on their own: the later merge is criss-cross
    a.git("fetch", "-q", str(b.path), "main:b-main")
    b.git("fetch", "-q", str(a.path), "main:a-main")
    a.git("merge", "-q", "--no-edit", "b-main")
    b.git("merge", "-q", "--no-edit", "a-main")
    a.git("push", "-q")
    b.git("pull", "-q", "--no-rebase", "--no-edit")
    b.git("push", "-q")
    c.git("pull", "-q", "--rebase")
    c.git("push", "-q")
    a.git("pull", "-q")
    b.git("pull", "-q")
    assert a.text() == b.text() == c.text()
    blocks = c.blocks()
    assert blocks["edited"].value == "c's wording"  # the latest day
    kept = {bl.value for bl in blocks.values() if bl.kind.startswith("x-")}
    assert {"a's wording", "b's wording"} <= kept
    assert {"from-a", "from-b", "from-c"} <= set(blocks)


@pytest.mark.slow
def test_marker_lines_inside_a_body_are_text_the_driver_keeps(make_clone):
    """Markers count only outside fenced bodies: a body holding them is merged as text,
    both sides of it kept (no write is lost)."""
    a, b = make_clone("a"), make_clone("b")
    a.memory().save("x-project", "n1", "from a")
    a.commit("a")
    a.git("push", "-q")
    marked = "@x-project [#body]\n~~~\n<<<<<<< HEAD\nmine\n=======\nyours\n>>>>>>> other\n~~~\n"
    b.team_file.write_text(b.text() + "\n" + marked)
    b.commit("a line merge left markers inside a body")
    b.git("pull", "-q", "--no-rebase", "--no-edit")
    blocks = b.blocks()  # no markers, parses
    assert blocks["n1"].value == "from a"
    assert blocks["body"].value == "<<<<<<< HEAD\nmine\n=======\nyours\n>>>>>>> other"
