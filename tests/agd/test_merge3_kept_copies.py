"""`agd.merge3` and the superseded copies earlier merges made: a version the merge says
it kept is in the result, whatever the sides did to older copies."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from agd import parse, serialize
from agd.merge3 import merge
from agd.model import FENCED, Block, Document
from agd.serializer import serialize_block

HEAD = Block("meta", "empty", None, {"format": "agd", "version": "1"}, "meta")


def live(body: str, updated: str) -> Block:
    return Block("x-project", FENCED, body, {"desc": "d", "updated": updated}, "e")


def copy_of(block: Block) -> Block:
    """The superseded copy a merge keeps of `block`, under the id it derives."""
    bare = block.copy(attrs=dict(block.attrs, status="superseded"), id=None)
    digest = hashlib.sha1(serialize_block(bare).encode("utf-8")).hexdigest()
    return bare.copy(id=f"{block.id}-{digest[:6]}")


def text(*blocks: Block) -> str:
    return serialize(parse(serialize(Document([HEAD, *blocks]))))


def test_a_copy_the_other_side_deleted_is_kept_when_the_merge_says_so():
    """ours holds #e = L and the copy of L an earlier merge made; theirs changed #e to a
    later W and deleted the copy. The merge keeps W and says L is kept as that copy: it
    must be in the result, and W's `supersedes` must name it."""
    ours_live = live("ours live version L", "2026-02-01")
    kept_copy = copy_of(ours_live)
    base = text(live("v0", "2026-01-01"), kept_copy)
    ours = text(ours_live, kept_copy)
    theirs = text(live("theirs W", "2026-03-01"))
    for one, other in ((ours, theirs), (theirs, ours)):
        result = merge(base, one, other)
        merged = {b.id: b for b in parse(result.text).blocks}
        assert merged[kept_copy.id].value == "ours live version L"
        assert merged[kept_copy.id].attrs["status"] == "superseded"
        assert kept_copy.id in merged["e"].attrs["supersedes"]
        assert not [n for n in result.notes if n.rule == "dropped-ref"]


BODIES = st.sampled_from(["v0", "L", "W", "X"])
DATES = st.sampled_from(["2026-01-01", "2026-02-01", "2026-03-01"])


@st.composite
def families(draw: st.DrawFn) -> tuple[str, str, str]:
    """A base with #e and superseded copies of some of its versions; each side keeps,
    edits or deletes #e, keeps, edits or deletes each copy, and may add a copy of its
    version."""
    versions = [live(b, d) for b, d in draw(st.lists(st.tuples(BODIES, DATES), max_size=3))]
    base_live = live(draw(BODIES), draw(DATES))
    base_copies = list({c.id: c for c in map(copy_of, versions)}.values())

    def side() -> list[Block]:
        out: list[Block] = []
        action = draw(st.sampled_from(["keep", "edit", "delete"]))
        mine = base_live if action == "keep" else live(draw(BODIES), draw(DATES))
        if action != "delete":
            out.append(mine)
        ids = {b.id for b in out}
        for c in base_copies:
            what = draw(st.sampled_from(["keep", "edit", "delete"]))
            if what != "delete":
                out.append(c if what == "keep" else c.copy(value=c.value + " edited"))
                ids.add(c.id)
        if action != "delete" and draw(st.booleans()) and copy_of(mine).id not in ids:
            out.append(copy_of(mine))
        return out

    return text(base_live, *base_copies), text(*side()), text(*side())


@pytest.mark.property
@given(families())
@example(
    (
        text(live("v0", "2026-01-01"), copy_of(live("L", "2026-02-01"))),
        text(live("L", "2026-02-01"), copy_of(live("L", "2026-02-01"))),
        text(live("W", "2026-03-01")),
    )
)
@example(
    (
        text(live("v0", "2026-01-01"), copy_of(live("L", "2026-02-01"))),
        text(live("W", "2026-03-01"), copy_of(live("L", "2026-02-01")).copy(value="L edited")),
        text(live("L", "2026-02-01"), copy_of(live("L", "2026-02-01"))),
    )
)
def test_no_live_version_is_lost_and_every_kept_copy_is_there(t: tuple[str, str, str]):
    base, ours, theirs = t
    result = merge(base, ours, theirs)
    assert merge(base, theirs, ours).text == result.text
    merged = parse(result.text)
    by_id = {b.id: b for b in merged.blocks if b.id}
    values = {b.value for b in merged.blocks}
    base_blocks = {b.id: b for b in parse(base).blocks}
    for side in (ours, theirs):
        for b in parse(side).blocks:
            changed = base_blocks.get(b.id) != b
            if changed and b.kind == "x-project":
                assert b.value in values, f"the version {b.value!r} was lost"
    for note in result.notes:
        for named in re.findall(r"as #(\S+)", note.detail):
            loser = by_id.get(named)
            assert loser is not None, f"{note.detail!r} but #{named} is not in the result"
            winner = by_id[note.id]
            assert (loser.value, loser.attrs["updated"]) != (
                winner.value,
                winner.attrs["updated"],
            ), f"#{named} is not the other version"
    for b in merged.blocks:
        for target in (b.attrs.get("supersedes") or "").replace("#", " ").split():
            assert target in by_id, f"#{b.id} supersedes #{target}, which is not there"
