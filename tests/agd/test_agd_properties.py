"""Hypothesis properties: round trip, idempotent canonical form, no crash on any input (§5)."""

from __future__ import annotations

import io
import sys

import pytest
from agd_testdata import CORPORA, EXAMPLES
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import agd
from agd.cli import main
from agd.inline import merge_text
from agd.model import Block, Document, Inline

pytestmark = pytest.mark.property

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# characters a line may hold: no line breaks or CR (normalised), no surrogates
SAFE = st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\ufeff")
IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,8}", fullmatch=True)
KEY = st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True)
ATTR_VALUE = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.text(SAFE, max_size=12),
)
ATTRS = st.dictionaries(KEY, ATTR_VALUE, max_size=4).map(lambda d: {k: d[k] for k in sorted(d)})
PLAIN = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="*_`[\ufeff"),
    max_size=12,
)


def run_text(delim: str):
    return st.text(
        st.characters(
            blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters=delim + "\ufeff"
        ),
        max_size=8,
    )


NODE = st.one_of(
    PLAIN.map(lambda t: Inline("text", t)),
    run_text("*").map(lambda t: Inline("bold", t)),
    run_text("_").map(lambda t: Inline("italic", t)),
    run_text("`").map(lambda t: Inline("code", t)),
)


def canonical_nodes(nodes: list[Inline], *, strip_end: bool) -> list[Inline]:
    """What the parser would give back: adjacent text merged, empty text dropped."""
    out = merge_text(nodes)
    if strip_end and out and out[-1].kind == "text":
        # trailing whitespace before ` [#id]` is trimmed by the parser
        text = out[-1].text.rstrip()
        out[-1] = Inline("text", text)
        if not text:
            out.pop()
    return out


INLINE_NODES = st.lists(NODE, max_size=5)
BODY = st.text(
    st.characters(blacklist_categories=("Cs", "Zl", "Zp"), blacklist_characters="\r\ufeff"),
    max_size=40,
) | st.lists(st.sampled_from(["~~~", "~~~~", "~~", "x", "", " ~~~"]), max_size=5).map("\n".join)


@st.composite
def blocks(draw, block_id):
    kind = draw(
        st.sampled_from(
            [
                "h1",
                "h2",
                "h3",
                "h4",
                "p",
                "ul",
                "ol",
                "quote",
                "code",
                "raw",
                "table",
                "meta",
                "include",
                "ref",
                "!",
                "x-note",
                "x-",
            ]
        )
    )
    if kind == "!":
        return Block("!", "inline", [Inline("text", draw(st.text(SAFE, max_size=20)))])
    if kind in ("h1", "h2", "h3", "h4", "p"):
        return Block(
            kind, "inline", canonical_nodes(draw(INLINE_NODES), strip_end=True), {}, block_id
        )
    if kind == "ref":
        return Block("ref", "inline", [Inline("ref", draw(IDENT))], {}, block_id)
    attrs = draw(ATTRS)
    if kind in ("ul", "ol", "quote"):
        items = draw(st.lists(INLINE_NODES, max_size=4))
        return Block(
            kind, "items", [canonical_nodes(i, strip_end=False) for i in items], attrs, block_id
        )
    if kind in ("meta", "include"):
        return Block(kind, "empty", None, attrs, block_id)
    if kind.startswith("x-") and draw(st.booleans()):
        return Block(kind, "empty", None, attrs, block_id)
    return Block(kind, "fenced", draw(BODY), attrs, block_id)


@st.composite
def documents(draw):
    ids = draw(st.lists(IDENT, unique=True, max_size=8))
    out = []
    for _ in range(draw(st.integers(0, 8))):
        block_id = ids.pop() if ids and draw(st.booleans()) else None
        block = draw(blocks(block_id))
        if block.kind == "!":
            block.id = None
        out.append(block)
    return Document(out)


@SETTINGS
@given(documents())
def test_random_documents_round_trip(doc):
    text = agd.serialize(doc)
    assert agd.parse(text) == doc
    assert agd.canonicalize(text) == text


LINE_PIECES = st.sampled_from(
    [
        "@p ",
        "@h1 ",
        "@ul",
        "@quote",
        "@code",
        "@x-n ",
        "@meta ",
        "@ref #",
        "@!",
        "~~~",
        "~~~~",
        "- ",
        "> ",
        "",
        "[#a]",
        "[#b:1]",
        "a=1 ",
        'k="v\\" x" ',
        "*b*",
        "_i_",
        "`c`",
        "é",
        "\t",
        " ",
    ]
)
LINES = st.lists(st.lists(LINE_PIECES, max_size=4).map("".join), max_size=12).map("\n".join)


@SETTINGS
@given(LINES)
def test_canonical_form_is_idempotent_on_any_parseable_text(text):
    try:
        once = agd.canonicalize(text)
    except agd.AgdError:
        return
    assert agd.canonicalize(once) == once
    assert agd.parse(once) == agd.parse(text)


@SETTINGS
@given(st.binary(max_size=200) | LINES.map(lambda s: s.encode()))
def test_random_input_raises_only_agd_errors(data):
    text = data.decode("utf-8", "replace")
    try:
        agd.parse(text)
    except agd.AgdError as err:
        assert err.line >= 0 and str(err)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=120))
def test_cli_never_prints_a_traceback(data):
    stdin, stdout, stderr = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(data))
    sys.stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    sys.stderr = err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    try:
        code = main(["format", "-"])
        err.flush()
        message = err.buffer.getvalue().decode()
    finally:
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    assert code in (0, 1)
    assert "internal error" not in message and "Traceback" not in message


@pytest.mark.parametrize(
    "path", [CORPORA / "mem-10.agd", EXAMPLES / "api-doc.agd"], ids=lambda p: p.name
)
def test_truncation_at_every_character_boundary(path):
    text = path.read_text(encoding="utf-8")
    outcomes = set()
    for cut in range(len(text) + 1):
        try:
            agd.parse(text[:cut])
            outcomes.add("ok")
        except agd.AgdError:
            outcomes.add("error")
    assert outcomes == {"ok", "error"}


MD_PIECES = st.sampled_from(
    [
        "# ",
        "## ",
        "- ",
        "  - ",
        "1. ",
        "> ",
        ">",
        "```",
        "```py",
        "    ",
        "|",
        " | ",
        "---",
        "*",
        "**",
        "_",
        "`",
        "[#x]",
        "[a](b)",
        "<b>",
        "<div>",
        "text",
        "é",
        " ",
        "\t",
        "~~~",
        "@p",
        "\\",
    ]
)
MARKDOWN = st.lists(st.lists(MD_PIECES, max_size=6).map("".join), max_size=10).map("\n".join)


@pytest.mark.skipif(
    __import__("importlib").util.find_spec("markdown_it") is None, reason="needs markdown-it-py"
)
@settings(max_examples=200, deadline=None)
@given(MARKDOWN)
@example("[#x]\n# [#x]")
@example("|[#x]")
def test_from_markdown_output_always_parses_and_is_canonical(source):
    from agd.convert import from_markdown

    out = from_markdown(source)
    assert agd.canonicalize(out) == out


HOSTILE_TEXT = st.text(st.sampled_from(list('ab *_`[]#:@~-> \t\n\r\\"=é')), max_size=12)
HOSTILE_NODE = st.builds(
    Inline, st.sampled_from(["text", "bold", "italic", "code", "ref"]), HOSTILE_TEXT
)
SHAPE_OF = {
    "p": "inline",
    "h2": "inline",
    "ul": "items",
    "quote": "items",
    "code": "fenced",
    "ref": "inline",
    "!": "inline",
    "meta": "empty",
    "x-note": "fenced",
    "x-": "empty",
}


@st.composite
def hostile_blocks(draw):
    """Mostly well-shaped blocks with hostile text, sometimes a mismatched shape."""
    kind = draw(st.sampled_from([*SHAPE_OF, "bad"]))
    ctype = SHAPE_OF.get(kind, "empty")
    if draw(st.integers(0, 9)) == 0:
        ctype = draw(st.sampled_from(["inline", "items", "fenced", "empty"]))
    if ctype == "inline":
        value = draw(st.lists(HOSTILE_NODE, max_size=4))
    elif ctype == "items":
        value = draw(st.lists(st.lists(HOSTILE_NODE, max_size=3), max_size=3))
    elif ctype == "fenced":
        value = draw(HOSTILE_TEXT)
    else:
        value = None
    attrs = draw(
        st.dictionaries(
            st.one_of(KEY, HOSTILE_TEXT),
            st.one_of(st.booleans(), st.integers(), HOSTILE_TEXT),
            max_size=2,
        )
    )
    block_id = draw(st.one_of(st.none(), IDENT, HOSTILE_TEXT))
    return Block(kind, ctype, value, attrs, block_id)


HOSTILE_BLOCK = hostile_blocks()


@SETTINGS
@given(HOSTILE_BLOCK)
def test_accepted_edits_always_round_trip(block):
    from agd import edit

    doc = agd.parse("@h1 Title [#root]\n\n@p first [#a]\n")
    try:
        new = edit.apply(doc, edit.Replace("a", block))
    except agd.AgdError:
        return
    assert agd.parse(agd.serialize(new)) == new
