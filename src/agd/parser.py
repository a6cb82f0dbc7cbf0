"""AGD text -> `Document` (reference §1).

One loop walks the lines once. Each line is put in one class (§1.2) by cheap
first-character tests, and the class picks the function that handles it from
`TOP_LEVEL`; a block-start line hands over to the function for its tag in
`BLOCK_BODIES`, which may consume the lines that belong to the block (list
items, quote lines, a fenced body). Parsing stops at the first error, raised as
a typed `AgdError` whose `str()` is the reference message. Line classes live in
`agd.lines`, the inline grammar in `agd.inline`, attribute lists in `agd.attrs`.

Two deliberate departures from the reference parser (see docs/FORMAT.md):
CRLF line ends and a leading BOM are normalised before parsing, as the format
specification requires; and messages that quote input are cut on character
boundaries, never inside a UTF-8 sequence.
"""

from __future__ import annotations

import gc
from itertools import accumulate
from typing import NamedTuple

from .attrs import parse_attrs
from .errors import DuplicateId, InvalidId, InvalidTag, ParseError, UnterminatedFence
from .inline import parse_inline
from .lines import (
    BLOCK_LINE,
    COMMENT_LINE,
    EMPTY_LINE,
    FENCE_LINE,
    ID_RE,
    ITEM_LINE,
    QUOTE_LINE,
    TAG_FIRST,
    TAG_RE,
    TEXT_LINE,
    classify,
    clip,
    is_fence,
    is_identifier,
    utf8_len,
)
from .model import BUILTIN_TAGS, EMPTY, FENCED, INLINE, ITEMS, Block, Document, Inline

# parse_inline, parse_attrs, is_identifier and classify are re-exported for callers
__all__ = ["parse", "normalise", "parse_inline", "parse_attrs", "is_identifier", "classify"]


# --- the parser ----------------------------------------------------------------------------


class Parser:
    """State of one parse: the lines, their byte offsets and the ids seen so far."""

    __slots__ = ("lines", "cum", "ids", "blocks")

    def __init__(self, lines: list[str], ascii_only: bool) -> None:
        self.lines = lines
        # cum[i] = UTF-8 bytes in lines[:i], newlines excluded; line i starts at cum[i] + i
        lengths = map(len, lines) if ascii_only else map(utf8_len, lines)
        self.cum = list(accumulate(lengths, initial=0))
        self.ids: dict[str, int] = {}
        self.blocks: list[Block] = []

    def run(self) -> Document:
        lines = self.lines
        n = len(lines)
        i = 0
        while i < n:
            line = lines[i]
            if not line:
                i += 1
                continue
            # block-start lines are most non-empty lines: skip the classifier for them
            if line[0] == "@" and len(line) > 1 and line[1] in TAG_FIRST:
                i = self.block_start(i)
            else:
                i = TOP_LEVEL[classify(line)](self, i)
        return Document(self.blocks)

    def add(self, block: Block, first: int, last: int) -> int:
        """Record `block` spanning lines first..last (0-based); the index of the next line."""
        cum = self.cum
        block.start = cum[first] + first
        block.end = cum[last + 1] + last
        block.line = first + 1
        self.blocks.append(block)
        return last + 1

    # one function per line class at the top level (§1.3)

    def comment(self, i: int) -> int:
        text = self.lines[i][2:]
        if text.startswith(" "):
            text = text[1:]
        return self.add(Block("!", INLINE, [Inline("text", text)]), i, i)

    def block_start(self, i: int) -> int:
        """A block-start line (§1.4):

        block-start = "@" tag [ " " rest ] ; rest may end with "[#" id [ ":" hash ] "]"
        tag = builtin | "x-" { ASCII letter | digit | "_" | "-" }
        """
        line = self.lines[i]
        # fast path: a built-in tag followed by a space or the end of the line
        tag_end = line.find(" ", 1)
        if tag_end < 0:
            tag_end = len(line)
        tag = line[1:tag_end]
        if tag not in BUILTIN_TAGS:
            tag_end = TAG_RE.match(line, 1).end()  # type: ignore[union-attr]
            tag = line[1:tag_end]
            if tag not in BUILTIN_TAGS and not tag.startswith("x-"):
                raise InvalidTag(tag, line=i + 1)
        rest_col = tag_end + 1
        if line.startswith(" ", tag_end):
            rest = line[tag_end + 1 :]
            rest_col += 1
        else:
            rest = line[tag_end:]
        block_id = None
        if "[#" in rest:
            trimmed = rest.rstrip()
            if trimmed.endswith("]"):
                k = trimmed.rfind("[#")
                inner = trimmed[k + 2 : -1]
                if inner:
                    # the `:hash` suffix is accepted and dropped (§1.6)
                    block_id = inner.partition(":")[0]
                    if not ID_RE.fullmatch(block_id):
                        raise InvalidId(block_id, line=i + 1, col=rest_col + k + 2)
                    first = self.ids.get(block_id)
                    if first is not None:
                        raise DuplicateId(block_id, first=first, line=i + 1)
                    self.ids[block_id] = i + 1
                    rest = trimmed[:k].rstrip()
        body = BLOCK_BODIES.get(tag, custom_body)
        return body(self, i, tag, rest, rest_col, block_id)

    def stray_fence(self, i: int) -> int:
        raise ParseError("stray fence `~~~` outside @code/@raw/@table block", line=i + 1)

    def stray_item(self, i: int) -> int:
        raise ParseError("stray list item `- ` outside @ul/@ol scope", line=i + 1)

    def stray_quote(self, i: int) -> int:
        raise ParseError("stray quote line `> ` outside @quote scope", line=i + 1)

    def continuation(self, i: int) -> int:
        raise ParseError(f"unexpected continuation: `{clip(self.lines[i])}`", line=i + 1)

    # helpers for block bodies

    def fence(self, i: int, start: int, *, required: bool) -> tuple[str, int] | None:
        """The fenced body after the block-start line `start`, searching from line `i`.

        Returns (body, index of the closing fence line), or None when no fence
        follows and none is required.
        """
        lines = self.lines
        n = len(lines)
        while i < n and not lines[i]:
            i += 1
        if i >= n or not is_fence(lines[i]):
            if required:
                raise ParseError("expected `~~~` fence after block start", line=start + 1)
            return None
        width = len(lines[i])
        j = i + 1
        while j < n:
            line = lines[j]
            # a closer is all tildes and at least as long as the opener (§1.10)
            if line and line[0] == "~" and len(line) >= width and not line.strip("~"):
                return "\n".join(lines[i + 1 : j]), j
            j += 1
        raise UnterminatedFence(line=start + 1)


def inline_body(p: Parser, i: int, tag: str, rest: str, col: int, block_id: str | None) -> int:
    return p.add(Block(tag, INLINE, parse_inline(rest), {}, block_id), i, i)


def attrs_body(p: Parser, i: int, tag: str, rest: str, col: int, block_id: str | None) -> int:
    attrs = parse_attrs(rest, line=i + 1, col=col) if rest else {}
    return p.add(Block(tag, EMPTY, None, attrs, block_id), i, i)


def ref_body(p: Parser, i: int, tag: str, rest: str, col: int, block_id: str | None) -> int:
    target = rest.strip()
    if not target.startswith("#"):
        raise ParseError("@ref must be followed by `#<id>`", line=i + 1, col=6)
    target = target[1:]
    if not ID_RE.fullmatch(target):
        raise InvalidId(target, line=i + 1, col=6)
    return p.add(Block(tag, INLINE, [Inline("ref", target)], {}, block_id), i, i)


def fenced_body(p: Parser, i: int, tag: str, rest: str, col: int, block_id: str | None) -> int:
    attrs = parse_attrs(rest, line=i + 1, col=col) if rest else {}
    body, close = p.fence(i + 1, i, required=True)  # type: ignore[misc]
    return p.add(Block(tag, FENCED, body, attrs, block_id), i, close)


def custom_body(p: Parser, i: int, tag: str, rest: str, col: int, block_id: str | None) -> int:
    attrs = parse_attrs(rest, line=i + 1, col=col) if rest else {}
    found = p.fence(i + 1, i, required=False)
    if found is None:
        return p.add(Block(tag, EMPTY, None, attrs, block_id), i, i)
    body, close = found
    return p.add(Block(tag, FENCED, body, attrs, block_id), i, close)


class ItemRules(NamedTuple):
    """What a list or quote body accepts, and the reference's message for each misfit."""

    marker: str
    """`-` or `>`: an item line is `marker + " "` plus inline text, or the bare marker."""
    other_kind: str
    """The line class of the other item kind, refused inside this one."""
    other_message: str
    fence_message: str
    column_message: str


LIST_ITEMS = ItemRules(
    "-",
    QUOTE_LINE,
    "quote line `> ` not allowed inside list — close list with blank line first",
    "fence `~~~` not allowed inside list",
    "list items must start with `- ` at column 0",
)
QUOTE_ITEMS = ItemRules(
    ">",
    ITEM_LINE,
    "list item `- ` not allowed inside quote",
    "fence `~~~` not allowed inside quote",
    "quote lines must start with `> ` at column 0",
)


def items_body(
    p: Parser, i: int, tag: str, rest: str, col: int, block_id: str | None, rules: ItemRules
) -> int:
    """The item lines after a `@ul`/`@ol`/`@quote` start line, up to a blank, block or
    comment line (§1.8)."""
    attrs = parse_attrs(rest, line=i + 1, col=col) if rest else {}
    items: list[list[Inline]] = []
    lines = p.lines
    n = len(lines)
    prefix = rules.marker + " "
    j = i + 1
    while j < n:
        line = lines[j]
        if line.startswith(prefix):
            items.append(parse_inline(line[2:]))
        elif line == rules.marker:
            items.append([])
        else:
            kind = classify(line)
            if kind in (EMPTY_LINE, BLOCK_LINE, COMMENT_LINE):
                break
            if kind == rules.other_kind:
                raise ParseError(rules.other_message, line=j + 1)
            if kind == FENCE_LINE:
                raise ParseError(rules.fence_message, line=j + 1)
            raise ParseError(rules.column_message, line=j + 1)
        j += 1
    return p.add(Block(tag, ITEMS, items, attrs, block_id), i, j - 1)


def list_body(p: Parser, i: int, tag: str, rest: str, col: int, block_id: str | None) -> int:
    return items_body(p, i, tag, rest, col, block_id, LIST_ITEMS)


def quote_body(p: Parser, i: int, tag: str, rest: str, col: int, block_id: str | None) -> int:
    return items_body(p, i, tag, rest, col, block_id, QUOTE_ITEMS)


# line class -> handler at the top level (§1.3)
TOP_LEVEL = {
    FENCE_LINE: Parser.stray_fence,
    COMMENT_LINE: Parser.comment,
    BLOCK_LINE: Parser.block_start,
    ITEM_LINE: Parser.stray_item,
    QUOTE_LINE: Parser.stray_quote,
    TEXT_LINE: Parser.continuation,
}

# tag -> what its block-start line's rest and following lines are (§1.4); x-* -> custom_body
BLOCK_BODIES = {
    "meta": attrs_body,
    "include": attrs_body,
    "h1": inline_body,
    "h2": inline_body,
    "h3": inline_body,
    "h4": inline_body,
    "p": inline_body,
    "ref": ref_body,
    "ul": list_body,
    "ol": list_body,
    "quote": quote_body,
    "code": fenced_body,
    "raw": fenced_body,
    "table": fenced_body,
}


def normalise(text: str) -> str:
    """Drop a leading BOM and turn CRLF into LF (the specification's rule, §6.7)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return text


def parse(text: str) -> Document:
    """Parse AGD text into a `Document`; raise an `AgdError` subclass at the first error.

    Byte offsets (`Block.start`, `Block.end`) refer to the text after BOM and
    CRLF normalisation.
    """
    text = normalise(text)
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # a final LF ends the last line; it does not start a new one
    # The parser builds no reference cycles, so the cyclic collector only burns
    # time here (about a fifth of the parse on big files); pause it meanwhile.
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        return Parser(lines, text.isascii()).run()
    finally:
        if collecting:
            gc.enable()
