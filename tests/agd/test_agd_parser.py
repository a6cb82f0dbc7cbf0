"""Parser behaviour users rely on: line classes, ids, attributes, fences, errors (reference §1)."""

from __future__ import annotations

import pytest

import agd
from agd.model import Inline
from agd.parser import parse_attrs, parse_inline


def one(text: str):
    blocks = agd.parse(text).blocks
    assert len(blocks) == 1
    return blocks[0]


def error(text: str) -> agd.AgdError:
    with pytest.raises(agd.AgdError) as info:
        agd.parse(text)
    return info.value


def test_empty_and_blank_inputs_are_empty_documents():
    assert agd.parse("").blocks == []
    assert agd.parse("\n\n\n").blocks == []


def test_heading_with_id_and_hash_suffix_dropped():
    block = one("@h1 Hello[#intro:abcd1234]\n")
    assert (block.kind, block.id, block.value) == ("h1", "intro", [Inline("text", "Hello")])


def test_meta_attribute_types():
    block = one('@meta a="42" b=42 c=true d=-0 e=1.5 f= g=99999999999999999999 h=+7\n')
    assert block.attrs == {
        "a": "42",
        "b": 42,
        "c": True,
        "d": 0,
        "e": "1.5",
        "f": "",
        "g": "99999999999999999999",
        "h": 7,
    }


def test_quoted_escapes_copy_the_whole_next_character():
    assert parse_attrs(r'a="x\"y\\z\n" b="\é"') == {"a": 'x"y\\zn', "b": "é"}


def test_attributes_may_follow_a_quote_without_space():
    assert parse_attrs('a="x"b=1') == {"a": "x", "b": 1}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("@x-note some words\n", "invalid attribute at line 1: attribute `some` missing `=`"),
        (
            "@meta a=1 a=2\n",
            "invalid attribute at line 1: attribute `a` appears more than once on this block",
        ),
        (
            '@meta a="x\n',
            "invalid attribute at line 1: attribute `a` has unterminated quoted value",
        ),
        ("@meta =x\n", "invalid attribute at line 1: expected attribute key, got `=x`"),
        ("@H1 Title\n", "invalid block tag `H1` at line 1: custom tags must be prefixed `x-`"),
        (
            "@xx-missingdash\n",
            "invalid block tag `xx-missingdash` at line 1: custom tags must be prefixed `x-`",
        ),
        ("@123abc\n", "parse error at line 1, col 1: unexpected continuation: `@123abc`"),
        ("@p array[#0]\n", "invalid identifier `0` at line 1: must match [a-zA-Z_][a-zA-Z0-9_-]*"),
        ("@ref x\n", "parse error at line 1, col 6: @ref must be followed by `#<id>`"),
        (
            "@ref #a extra\n",
            "invalid identifier `a extra` at line 1: must match [a-zA-Z_][a-zA-Z0-9_-]*",
        ),
        (
            "@h1 A [#a]\n@h2 B [#a:1]\n",
            "duplicate block id `a` (first defined at line 1, redefined at line 2)",
        ),
        ("- x\n", "parse error at line 1, col 1: stray list item `- ` outside @ul/@ol scope"),
        ("> x\n", "parse error at line 1, col 1: stray quote line `> ` outside @quote scope"),
        (
            "~~~\n",
            "parse error at line 1, col 1: stray fence `~~~` outside @code/@raw/@table block",
        ),
        (
            "@h1 T\ntext under it\n",
            "parse error at line 2, col 1: unexpected continuation: `text under it`",
        ),
        ("@code\n@p x\n", "parse error at line 1, col 1: expected `~~~` fence after block start"),
        ("@code\n~~~\nx\n", "unterminated fence opened at line 1"),
        (
            "@ul\n- a\n> b\n",
            "parse error at line 3, col 1: quote line `> ` not allowed inside list — close list with blank line first",
        ),
        (
            "@ul\n- a\n b\n",
            "parse error at line 3, col 1: list items must start with `- ` at column 0",
        ),
        ("@ol\n~~~\n", "parse error at line 2, col 1: fence `~~~` not allowed inside list"),
        (
            "@quote\n> a\n- b\n",
            "parse error at line 3, col 1: list item `- ` not allowed inside quote",
        ),
        (
            "@quote\nb\n",
            "parse error at line 2, col 1: quote lines must start with `> ` at column 0",
        ),
        ("@quote\n~~~~\n", "parse error at line 2, col 1: fence `~~~` not allowed inside quote"),
        ("   \n", "parse error at line 1, col 1: unexpected continuation: `   `"),
    ],
)
def test_error_messages_are_the_reference_text(text, message):
    assert str(error(text)) == message


def test_errors_carry_line_and_col():
    err = error("@p ok\n\n@ref nope\n")
    assert isinstance(err, agd.ParseError)
    assert (err.line, err.col) == (3, 6)


def test_long_continuation_is_cut_on_a_character_boundary():
    err = error("é" * 40 + "\n")
    assert str(err) == "parse error at line 1, col 1: unexpected continuation: `" + "é" * 16 + "…`"


def test_fences_variable_length():
    block = one("@code\n~~~~\n~~~\ninner\n~~~\n~~~~~\n")
    assert block.value == "~~~\ninner\n~~~"
    assert one("@code\n~~~\n\n~~~\n").value == ""
    assert one("@code\n~~~\n\n\n~~~\n").value == "\n"


def test_custom_block_without_fence_is_empty_and_next_block_follows():
    doc = agd.parse("@x-note a=1 [#n]\n\n@p next\n")
    assert [b.content_type for b in doc.blocks] == ["empty", "inline"]


def test_lists_quotes_and_empty_items():
    block = one("@ul\n- a\n-\n-  b\n")
    assert block.value == [[Inline("text", "a")], [], [Inline("text", " b")]]
    assert one("@quote\n>\n> x\n").value == [[], [Inline("text", "x")]]
    assert one("@ol\n").value == []


def test_comment_text_and_no_id():
    block = one("@! see [#x]\n")
    assert (block.kind, block.id, block.value) == ("!", None, [Inline("text", "see [#x]")])
    assert one("@!\n").value == [Inline("text", "")]


def test_inline_grammar():
    assert parse_inline("snake_case_name") == [
        Inline("text", "snake"),
        Inline("italic", "case"),
        Inline("text", "name"),
    ]
    assert parse_inline("a *b c") == [Inline("text", "a *b c")]
    assert parse_inline("a *b _c_") == [Inline("text", "a *b "), Inline("italic", "c")]
    assert parse_inline("**") == [Inline("bold", "")]
    assert parse_inline("") == []
    assert parse_inline("see @ref #x") == [Inline("text", "see @ref #x")]


def test_crlf_and_bom_are_normalised():
    doc = agd.parse("\ufeff@h1 Hi [#a]\r\n@code\r\n~~~\r\nx\r\n~~~\r\n")
    assert doc == agd.parse("@h1 Hi [#a]\n@code\n~~~\nx\n~~~\n")


def test_spans_and_lines_are_utf8_byte_offsets():
    doc = agd.parse("@p é\n\n@ul\n- a\n- b\n")
    p, ul = doc.blocks
    assert (p.start, p.end, p.line) == (0, 5, 1)
    assert (ul.start, ul.end, ul.line) == (7, 18, 3)


def test_trailing_id_requires_final_bracket_and_nonempty_inner():
    assert one("@p see [#] now\n").id is None
    assert one("@p x [#]\n").value == [Inline("text", "x [#]")]
    assert one("@p a [#b] c\n").id is None


def test_ref_block_with_its_own_id():
    block = one("@ref #target [#myref]\n")
    assert (block.id, block.value) == ("myref", [Inline("ref", "target")])


@pytest.mark.parametrize(
    ("text", "col"),
    [
        ("@meta a=1 a=2", 11),  # the repeated key
        ('@code b=1 a="x', 7),  # the attribute list (agd_memory doctor pins this)
        ("@x-note some words", 13),  # where `=` was expected
        ("@p array[#0]", 11),  # the bad id
        ("@H1 x", 2),  # the tag
        ("@ref x", 6),
    ],
)
def test_error_columns_point_at_the_problem(text, col):
    assert error(text).col == col
