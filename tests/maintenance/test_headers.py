"""Header-line edits: only the named attributes change, and the parser reads back what was meant."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import agd
from agd_memory.maintenance import headers


def attrs_of(line: str) -> dict:
    return agd.parse(line + "\n").blocks[0].attrs


def test_appends_before_the_id_and_keeps_existing_text():
    line = '@x-project desc="FATTO: x"  weird=a"b [#p1]'
    out = headers.set_attrs(line, {"status": "done", "created": "2026-01-02"})
    assert out == '@x-project desc="FATTO: x"  weird=a"b status=done created="2026-01-02" [#p1]'
    assert attrs_of(out) == {
        "desc": "FATTO: x",
        "weird": 'a"b',
        "status": "done",
        "created": "2026-01-02",
    }


def test_replaces_an_existing_value_in_place():
    line = '@x-note refs="#a #b" desc="d" [#n]'
    assert headers.set_attrs(line, {"refs": "#a,#b"}) == '@x-note refs="#a,#b" desc="d" [#n]'


def test_line_without_id_or_attrs():
    assert headers.set_attrs("@x-note", {"status": "open"}) == "@x-note status=open"


def test_a_bracket_in_a_quoted_value_is_not_the_id():
    line = '@x-note desc="see [#a] here" [#n]'
    assert attrs_of(headers.set_attrs(line, {"status": "open"}))["desc"] == "see [#a] here"


def test_remove_attr():
    line = '@x-note refs="#gone" desc="d" [#n]'
    assert headers.remove_attr(line, "refs") == '@x-note desc="d" [#n]'
    assert headers.remove_attr(line, "missing") == line


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("2026-06-25", '"2026-06-25"'),
        ("done", "done"),
        ("true", '"true"'),
        ("42", '"42"'),
        ('a"b\\c', '"a\\"b\\\\c"'),
        (7, "7"),
        (True, "true"),
        ("", '""'),
    ],
)
def test_values_the_frozen_grammar_reads_back(value, written):
    assert headers.render_value(value) == written


_keys = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)
_values = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\n\r"),
    max_size=20,
)


@pytest.mark.property
@given(
    existing=st.dictionaries(_keys, _values, max_size=4),
    changes=st.dictionaries(_keys, _values, min_size=1, max_size=4),
    block_id=st.one_of(st.none(), st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)),
)
def test_property_set_attrs_round_trips(existing, changes, block_id):
    line = "@x-note" + "".join(f" {k}={headers.render_value(v)}" for k, v in existing.items())
    if block_id:
        line += f" [#{block_id}]"
    out = headers.set_attrs(line, changes)
    block = agd.parse(out + "\n").blocks[0]
    assert block.attrs == {**existing, **changes}
    assert block.id == block_id
