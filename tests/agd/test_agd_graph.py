"""Refs, backlinks and the `get` order (reference §3.11, §3.13), dangling refs, search, ids."""

from __future__ import annotations

import pytest

import agd
from agd import graph, ids, refs, search
from agd.model import Inline

CHAIN = """@x-note [#root]

@x-note refs="#root" [#mid]

@x-note refs="#mid" [#leaf]

@x-note refs="#mid, #nowhere" [#other]

@x-note [#alone]
"""


def got(doc, *requested, **kw):
    return [b.id for b in graph.get(doc, requested, **kw)]


def test_refs_grammar_commas_spaces_and_hashes():
    assert refs.parse_ids("#a, #b,,##c ,") == ("a", "b", "c")
    assert refs.parse_ids("#a #b") == refs.parse_ids("a b") == refs.parse_ids("#a,#b") == ("a", "b")
    assert refs.parse_ids(" #a\t#b\n#a ") == ("a", "b")
    assert refs.parse_ids(["a", "#b c"]) == ("a", "b", "c")
    assert refs.parse_ids(3) == refs.parse_ids(True) == refs.parse_ids(None) == ()


SPELLINGS = ['"#a #b"', '"#a, #b"', '"a b"', '"#a,#b"']


@pytest.mark.parametrize("value", SPELLINGS)
def test_every_spelling_of_refs_reads_the_same_in_get_and_backlinks(value):
    doc = agd.parse(f"@x-n [#a]\n\n@x-n [#b]\n\n@x-n refs={value} [#c]\n")
    assert got(doc, "c", follow_refs=True) == ["c", "a", "b"]
    assert [b.id for b in graph.backlinks(doc, "b")] == ["c"]
    assert got(doc, "a", with_backlinks=True) == ["a", "c"]
    assert graph.check_refs(doc) == []


def test_who_cites_whom_counts_refs_body_mentions_ref_nodes_and_supersedes():
    doc = agd.parse(
        "@x-n [#a]\n\n@x-n [#b]\n\n@x-n [#old]\n\n@p see #a here [#p]\n\n"
        '@x-n supersedes="#old" [#new]\n~~~\nbuilt on #b\n~~~\n\n@ref #a [#r]\n'
    )
    assert got(doc, "new", follow_refs=True) == ["new", "b", "old"]
    assert [b.id for b in graph.backlinks(doc, "a")] == ["p", "r"]
    assert [b.id for b in graph.backlinks(doc, "old")] == ["new"]


def test_check_refs_ignores_code_in_bodies_but_checks_supersedes():
    doc = agd.parse('@code [#c]\n~~~\n#include <x.h>\n~~~\n\n@x-n supersedes="#gone" [#n]\n')
    assert [str(e) for e in graph.check_refs(doc)] == [
        "dangling reference `#gone` at line 6: no block with this id"
    ]


def test_get_requested_order_and_dedup():
    doc = agd.parse(CHAIN)
    assert got(doc, "#leaf", "root", "leaf") == ["leaf", "root"]


def test_get_unknown_id_fails_whole_call():
    with pytest.raises(agd.IdNotFound) as info:
        graph.get(agd.parse(CHAIN), ["leaf", "nope"])
    assert str(info.value) == "no block with id `nope`"


def test_follow_refs_depth():
    doc = agd.parse(CHAIN)
    assert got(doc, "leaf", follow_refs=True) == ["leaf", "mid"]
    assert got(doc, "leaf", follow_refs=True, depth=5) == ["leaf", "mid", "root"]
    assert got(doc, "leaf", follow_refs=True, depth=0) == ["leaf"]


def test_cycles_are_safe():
    doc = agd.parse('@x-a refs="#b" [#a]\n\n@x-b refs="#a" [#b]\n')
    assert got(doc, "a", follow_refs=True, depth=10) == ["a", "b"]


def test_follow_refs_and_backlinks_combined():
    doc = agd.parse(CHAIN)
    assert got(doc, "mid", follow_refs=True, depth=2, with_backlinks=True) == [
        "mid",
        "root",
        "leaf",
        "other",
    ]


def test_limit_caps_blocks_after_the_requested_ones():
    text = "@x-a [#hub]\n\n" + "\n".join(f'@x-n refs="#hub" [#n{i}]\n' for i in range(50))
    doc = agd.parse(text)
    assert got(doc, "hub", with_backlinks=True, limit=3) == ["hub", "n0", "n1", "n2"]
    assert got(doc, "hub", "n9", with_backlinks=True, limit=0) == ["hub", "n9"]
    assert len(got(doc, "hub", with_backlinks=True)) == 51


def test_backlinks_via_refs_attr_and_ref_blocks():
    doc = agd.parse(CHAIN + "\n@ref #mid [#r]\n\n@ref #mid\n")
    assert [b.id for b in graph.backlinks(doc, "#mid")] == ["leaf", "other", "r"]
    assert graph.backlinks(doc, "alone") == []


def test_check_refs_reports_refs_attrs_with_real_lines():
    doc = agd.parse(CHAIN + "\n@ref #gone\n")
    assert [str(e) for e in graph.check_refs(doc)] == [
        "dangling reference `#nowhere` at line 7: no block with this id",
        "dangling reference `#gone` at line 11: no block with this id",
    ]
    assert graph.check_refs(agd.parse("@p fine\n")) == []


def test_search_excerpts_and_filters():
    doc = agd.parse(
        "@p no id\n\n@h2 Blog posts [#h]\n\n@code [#c]\n~~~\n"
        + "x" * 60
        + " BLOG here\nnext line\n~~~\n"
    )
    hits = search.search(doc, "blog", ignore_case=True)
    assert [(h.id, h.kind) for h in hits] == [("h", "h2"), ("c", "code")]
    assert hits[0].excerpt == "Blog posts"
    assert hits[1].excerpt == "…" + "x" * 39 + " BLOG here next line"
    assert search.search(doc, "blog") == []
    assert [h.id for h in search.search(doc, "", kind="code")] == ["c"]


def test_search_case_insensitive_with_length_changing_lowercase():
    doc = agd.parse("@p Visit İstanbul today [#p]\n")
    assert search.search(doc, "i̇stanbul", ignore_case=True)[0].excerpt == "Visit İstanbul today"


def test_slugs_and_auto_ids():
    doc = agd.parse(
        "@h1 Hello World\n\n@h2 Hello World\n\n@code\n~~~\n~~~\n\n@code [#code-1]\n~~~\n~~~\n\n"
        "@code\n~~~\n~~~\n\n@p para\n\n@x-note\n\n@h3 2024 plan\n\n@h4 Café\n"
    )
    assert [b.id for b in ids.add_ids(doc).blocks] == [
        "hello-world",
        "hello-world-2",
        "code-1-2",
        "code-1",
        "code-2",
        None,
        "x-note-1",
        "h-2024-plan",
        "caf",
    ]
    assert all(b.id is None for b in ids.strip_ids(doc).blocks)
    assert ids.slug([]) == "h-"
    assert ids.slug([Inline("text", "Sub-Section")]) == "sub-section"


def test_content_hash_is_8_hex_and_ignores_id():
    a = agd.parse("@code lang=py [#a]\n~~~\nx\n~~~\n").blocks[0]
    b = agd.parse("@code lang=py [#b]\n~~~\nx\n~~~\n").blocks[0]
    assert len(ids.content_hash(a)) == 8
    assert ids.content_hash(a) == ids.content_hash(b)
    assert int(ids.content_hash(a), 16) >= 0


@pytest.mark.parametrize("value", SPELLINGS)
def test_cli_get_follow_refs_and_backlinks_read_every_spelling(value, tmp_path, capsys):
    from agd.cli import main

    path = tmp_path / "m.agd"
    path.write_text(f"@x-n [#a]\n\n@x-n [#b]\n\n@x-n refs={value} [#c]\n", encoding="utf-8")
    assert main(["get", str(path), "#c", "--follow-refs"]) == 0
    out = capsys.readouterr().out
    assert [line.split("[#")[1] for line in out.splitlines() if "[#" in line] == ["c]", "a]", "b]"]
    assert main(["backlinks", str(path), "b"]) == 0
    assert capsys.readouterr().out == "c\tx-n\n"
