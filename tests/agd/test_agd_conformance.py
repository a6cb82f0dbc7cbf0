"""The five reference conformance fixtures, byte for byte (reference §5, tests/conformance.rs)."""

from __future__ import annotations

import pytest
from agd_testdata import CONFORMANCE, CORPORA, EXAMPLES, agd_files

import agd
from agd.jsonast import document_from_dict, document_to_dict, dumps_pretty

FIXTURES = agd_files(CONFORMANCE)


def test_all_five_fixtures_are_present():
    assert [f.stem for f in FIXTURES] == [
        "01_basic_blocks",
        "02_attrs_and_ids",
        "03_fences",
        "04_lists_quotes",
        "05_inline",
    ]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_json_matches_byte_for_byte(path):
    doc = agd.parse(path.read_text(encoding="utf-8"))
    expected = path.with_suffix(".json").read_text(encoding="utf-8")
    assert dumps_pretty(document_to_dict(doc, spans=False)) == expected


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_reserialises_to_the_same_ast(path):
    doc = agd.parse(path.read_text(encoding="utf-8"))
    text = agd.serialize(doc)
    assert agd.parse(text) == doc
    assert agd.canonicalize(text) == text


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_json_loads_back_to_the_same_document(path):
    doc = agd.parse(path.read_text(encoding="utf-8"))
    import json

    assert document_from_dict(json.loads(dumps_pretty(document_to_dict(doc)))) == doc


def test_fixture_03_is_already_canonical():
    text = (CONFORMANCE / "03_fences.agd").read_text(encoding="utf-8")
    assert agd.canonicalize(text) == text


PARSEABLE = [p for p in agd_files(EXAMPLES) + agd_files(CORPORA) if p.name != "tutorial.agd"]


@pytest.mark.parametrize("path", PARSEABLE, ids=lambda p: p.name)
def test_examples_and_corpora_parse_and_canonical_form_is_a_fixed_point(path):
    doc = agd.parse(path.read_text(encoding="utf-8"))
    assert doc.blocks
    text = agd.serialize(doc)
    assert agd.canonicalize(text) == text
    assert agd.parse(text) == doc


def test_tutorial_fails_where_the_reference_predicts():
    # its `~~~` fence is closed by an inner `~~~~` line (variable-length fences, §6.1)
    with pytest.raises(agd.ParseError) as info:
        agd.parse((EXAMPLES / "tutorial.agd").read_text(encoding="utf-8"))
    assert (
        str(info.value) == "parse error at line 46, col 1: unexpected continuation: `def hello():`"
    )
    assert (info.value.line, info.value.col) == (46, 1)


def test_block_line_is_the_real_source_line():
    doc = agd.parse((CONFORMANCE / "01_basic_blocks.agd").read_text(encoding="utf-8"))
    assert [b.line for b in doc.blocks] == [1, 3, 4, 6, 7, 12, 13, 17]
