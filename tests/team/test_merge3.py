"""`agd.merge3`: the three-way merge by block id, rule by rule, and its properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agd import parse, serialize
from agd.merge3 import MergeError, merge
from agd.model import FENCED, INLINE, Block, Document, Inline

HEAD = "@meta format=agd version=1 [#meta]\n\n@h2 Project [#h-project]\n"


def entry(block_id: str, body: str, updated: str = "2026-01-01", **attrs: str) -> str:
    head = f"@x-project updated={updated}"
    head += "".join(f' {k}="{v}"' for k, v in sorted(attrs.items()))
    return f"\n{head} [#{block_id}]\n~~~\n{body}\n~~~\n"


def doc(*entries: str) -> str:
    return HEAD + "".join(entries)


def blocks(text: str) -> dict[str, Block]:
    return {b.id: b for b in parse(text).blocks if b.id}


BASE = doc(entry("a", "A"), entry("b", "B"))


def both_ways(base: str, ours: str, theirs: str):
    one, other = merge(base, ours, theirs), merge(base, theirs, ours)
    assert one.text == other.text, "the result must not depend on which side is ours"
    return one


def test_added_on_one_side_is_kept_in_its_section():
    ours = BASE.replace(
        "\n@x-project updated=2026-01-01 [#a]",
        entry("c", "C") + "\n@x-project updated=2026-01-01 [#a]",
        1,
    )
    result = both_ways(BASE, ours, BASE)
    assert list(blocks(result.text)) == ["meta", "h-project", "c", "a", "b"]
    assert result.notes == ()


def test_same_addition_on_both_sides_is_kept_once():
    side = BASE + entry("c", "C")
    result = both_ways(BASE, side, side)
    assert result.text == side
    assert result.notes == ()


def test_same_new_id_with_different_texts_keeps_both_and_reports():
    ours, theirs = BASE + entry("c", "mine", "2026-01-02"), BASE + entry("c", "yours")
    result = both_ways(BASE, ours, theirs)
    got = blocks(result.text)
    assert got["c"].value == "mine"  # the later one keeps the id
    (other,) = [b for i, b in got.items() if i.startswith("c-")]
    assert other.value == "yours" and "status" not in other.attrs
    assert [n.rule for n in result.notes] == ["both-added"]
    assert other.id in result.notes[0].detail


def test_deleted_on_one_side_unchanged_on_the_other_is_deleted():
    theirs = doc(entry("a", "A"))
    result = both_ways(BASE, BASE, theirs)
    assert "b" not in blocks(result.text)


def test_deleted_on_one_side_changed_on_the_other_keeps_the_change():
    ours = doc(entry("a", "A"), entry("b", "B edited", "2026-01-03"))
    theirs = doc(entry("a", "A"))
    result = both_ways(BASE, ours, theirs)
    assert blocks(result.text)["b"].value == "B edited"
    assert [n.rule for n in result.notes] == ["deleted-changed"]


def test_changed_on_both_sides_the_later_wins_and_the_other_is_superseded():
    ours = doc(entry("a", "A mine", "2026-02-01"), entry("b", "B"))
    theirs = doc(entry("a", "A yours", "2026-03-01"), entry("b", "B"))
    result = both_ways(BASE, ours, theirs)
    got = blocks(result.text)
    assert got["a"].value == "A yours"
    loser_id = got["a"].attrs["supersedes"].lstrip("#")
    assert got[loser_id].value == "A mine"
    assert got[loser_id].attrs["status"] == "superseded"
    assert list(got).index(loser_id) == list(got).index("a") + 1
    assert [n.rule for n in result.notes] == ["changed-both"]


def test_a_tie_on_the_date_is_broken_the_same_way_from_both_sides():
    ours = doc(entry("a", "A one"), entry("b", "B"))
    theirs = doc(entry("a", "A two"), entry("b", "B"))
    result = both_ways(BASE, ours, theirs)
    got = blocks(result.text)
    assert {got["a"].value, got[got["a"].attrs["supersedes"][1:]].value} == {"A one", "A two"}


def test_merging_the_same_conflict_again_converges():
    ours = doc(entry("a", "A mine", "2026-02-01"), entry("b", "B"))
    theirs = doc(entry("a", "A yours", "2026-03-01"), entry("b", "B"))
    first = merge(BASE, ours, theirs).text
    # the other clone merged the same pair on its own: the two merges meet
    assert merge(ours, first, merge(BASE, theirs, ours).text).text == first
    # a clone that still has its side pulls the merge (git's base is then that side)
    assert merge(theirs, theirs, first).text == first


def test_a_heading_changed_on_both_sides_keeps_only_the_later():
    base = "@h2 Project [#h-project]\n"
    result = both_ways(
        base,
        "@h2 Project notes [#h-project]\n",
        "@h2 Project facts [#h-project]\n",
    )
    assert len(parse(result.text).blocks) == 1
    assert [n.rule for n in result.notes] == ["changed-both"]


def test_refs_to_a_block_the_merge_removed_are_dropped():
    base = doc(entry("a", "A"), entry("b", "B"))
    ours = doc(entry("a", "A"), entry("b", "B"), entry("c", "C cites b", refs="#b,#a"))
    theirs = doc(entry("a", "A"))
    got = blocks(both_ways(base, ours, theirs).text)
    assert "b" not in got
    assert got["c"].attrs["refs"] == "#a"


def test_a_side_that_does_not_parse_is_an_error_naming_it():
    with pytest.raises(MergeError) as info:
        merge(BASE, BASE, "@x-project [#a]\n~~~\nunterminated\n")
    assert info.value.side == "theirs"
    assert "theirs version does not parse" in str(info.value)


# -- properties ----------------------------------------------------------------------

IDS = st.sampled_from([f"e{i}" for i in range(8)])
BODIES = st.sampled_from(["alpha", "beta", "gamma #e1", "delta\n~~~ not a fence", ""])
DATES = st.sampled_from(["2026-01-01", "2026-01-02", "2026-01-03"])


@st.composite
def documents(draw: st.DrawFn) -> Document:
    ids = draw(st.lists(IDS, unique=True, max_size=6))
    out = [Block("h2", INLINE, [Inline("text", "Project")], {}, "h-project")]
    for i in ids:
        attrs = {"updated": draw(DATES)}
        if draw(st.booleans()):
            attrs["refs"] = "#" + draw(IDS)
        out.append(Block("x-project", FENCED, draw(BODIES), attrs, i))
    if draw(st.booleans()):
        out.insert(draw(st.integers(0, len(out))), Block("p", INLINE, [Inline("text", "note")]))
    return parse(serialize(Document(out)))


@st.composite
def edited(draw: st.DrawFn, base: Document) -> Document:
    kept = []
    for b in base.blocks:
        action = draw(st.sampled_from(["keep", "keep", "delete", "edit", "rename"]))
        if action == "delete" and b.kind.startswith("x-"):
            continue
        if action == "rename" and b.kind.startswith("x-"):
            b = b.copy(id=f"{b.id}-{draw(st.sampled_from(['x', 'y']))}")
        if action == "edit" and b.kind.startswith("x-"):
            b = b.copy(value=draw(BODIES) + " edited", attrs=dict(b.attrs, updated=draw(DATES)))
        kept.append(b)
    taken = {b.id for b in kept}
    for i in draw(st.lists(IDS, unique=True, max_size=3)):
        if i not in taken and base.find(i) is None:
            kept.append(Block("x-project", FENCED, draw(BODIES), {"updated": draw(DATES)}, i))
    return parse(serialize(Document(kept)))


@st.composite
def triples(draw: st.DrawFn) -> tuple[str, str, str]:
    base = draw(documents())
    return serialize(base), serialize(draw(edited(base))), serialize(draw(edited(base)))


@pytest.mark.property
@given(triples())
def test_the_result_parses_and_is_symmetric(t: tuple[str, str, str]):
    base, ours, theirs = t
    result = merge(base, ours, theirs)
    assert serialize(parse(result.text)) == result.text
    assert merge(base, theirs, ours).text == result.text


@pytest.mark.property
@given(documents())
def test_merging_a_document_with_itself_changes_nothing(d: Document):
    text = serialize(d)
    assert merge(text, text, text).text == text


@pytest.mark.property
@given(triples())
def test_no_added_or_edited_block_is_lost(t: tuple[str, str, str]):
    """A block a side added or changed is in the result (perhaps under a derived id);
    only a block a side left as it was may give way to the other side's delete or edit."""
    base, ours, theirs = t
    merged = parse(merge(base, ours, theirs).text)
    values = [(b.kind, b.value) for b in merged.blocks]
    b = blocks(base)
    for side in (ours, theirs):
        for i, block in blocks(side).items():
            if b.get(i) != block:
                assert (block.kind, block.value) in values, f"#{i} was lost"


def test_a_block_changed_on_one_side_only_takes_that_change():
    ours = doc(entry("a", "A edited", "2026-01-05"), entry("b", "B"))
    assert both_ways(BASE, ours, BASE).text == ours


def test_a_citation_of_a_block_the_other_side_renamed_follows_the_rename():
    ours = doc(entry("a2", "A"), entry("b", "B"))  # ours renamed #a to #a2
    theirs = doc(entry("a", "A"), entry("b", "B"), entry("c", "C", refs="#a,#b"))
    result = both_ways(BASE, ours, theirs)
    got = blocks(result.text)
    assert "a" not in got and got["a2"].value == "A"
    assert got["c"].attrs["refs"] == "#a2,#b"
    assert [n.rule for n in result.notes] == ["renamed-ref"]
