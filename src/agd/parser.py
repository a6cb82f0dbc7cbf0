"""AGD text -> `Document` (reference §1).

One loop walks the lines once. Each line is put in one class (§1.2) by cheap
first-character tests, and the class picks the function that handles it from
`TOP_LEVEL`; a block-start line hands over to the function for its tag in
`BLOCK_BODIES`, which may consume the lines that belong to the block (list
items, quote lines, a fenced body). Parsing stops at the first error, raised as
a typed `AgdError` whose `str()` is the reference message.

Two deliberate departures from the reference parser (see docs/FORMAT.md):
CRLF line ends and a leading BOM are normalised before parsing, as the format
specification requires; and messages that quote input are cut on character
boundaries, never inside a UTF-8 sequence.
"""

from __future__ import annotations

import gc
import re
from itertools import accumulate

from .errors import DuplicateId, InvalidAttr, InvalidId, InvalidTag, ParseError, UnterminatedFence
from .model import BUILTIN_TAGS, EMPTY, FENCED, INLINE, ITEMS, AttrValue, Block, Document, Inline

__all__ = ["parse", "parse_inline", "parse_attrs", "is_identifier", "classify"]

# --- line classes, in the order §1.2 tests them --------------------------------------------
EMPTY_LINE = 0  # the empty string (a line of spaces is NOT empty)
FENCE_LINE = 1  # three or more `~` and nothing else
COMMENT_LINE = 2  # `@!` ...
BLOCK_LINE = 3  # `@` + ASCII letter or `_`
ITEM_LINE = 4  # `- ...` or exactly `-`
QUOTE_LINE = 5  # `> ...` or exactly `>`
TEXT_LINE = 6  # anything else: a continuation

TAG_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
TAG_RE = re.compile(r"[A-Za-z0-9_-]+")
ID_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
KEY_RE = re.compile(r"[A-Za-z0-9_-]*")
INT_RE = re.compile(r"[+-]?[0-9]+")
I64_MIN = -(2**63)
I64_MAX = 2**63 - 1

DELIMITERS = {"*": "bold", "_": "italic", "`": "code"}


def classify(line: str) -> int:
    """The class of one raw line (§1.2), by its first characters only."""
    if not line:
        return EMPTY_LINE
    c = line[0]
    if c == "@":
        if len(line) > 1:
            c2 = line[1]
            if c2 == "!":
                return COMMENT_LINE
            if c2 in TAG_FIRST:
                return BLOCK_LINE
        return TEXT_LINE
    if c == "~":
        return FENCE_LINE if len(line) >= 3 and not line.strip("~") else TEXT_LINE
    if c == "-":
        return ITEM_LINE if len(line) == 1 or line[1] == " " else TEXT_LINE
    if c == ">":
        return QUOTE_LINE if len(line) == 1 or line[1] == " " else TEXT_LINE
    return TEXT_LINE


def is_fence(line: str) -> bool:
    return len(line) >= 3 and line[0] == "~" and not line.strip("~")


def is_identifier(text: str) -> bool:
    """True when `text` matches `[A-Za-z_][A-Za-z0-9_-]*` (ASCII only, §1.6)."""
    return ID_RE.fullmatch(text) is not None


def clip(text: str, limit: int = 32) -> str:
    """`text` cut to at most `limit` UTF-8 bytes on a character boundary, `…` when cut."""
    if len(text) <= limit // 4:
        return text
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", "ignore") + "…"


def utf8_len(line: str) -> int:
    return len(line.encode("utf-8", "surrogatepass"))


# --- inline grammar (§1.7) -----------------------------------------------------------------


def parse_inline(text: str) -> list[Inline]:
    """Inline nodes of `text`: `*bold*`, `_italic_`, `` `code` ``, the rest plain text.

    A delimiter opens a run closed by the next occurrence of the same character;
    with no closer it is plain text. No nesting, no escapes, no inline refs.
    """
    if "*" not in text and "_" not in text and "`" not in text:
        return [Inline("text", text)] if text else []
    nodes: list[Inline] = []
    pending = 0  # start of plain text not yet emitted
    pos = 0
    n = len(text)
    while pos < n:
        # the nearest delimiter at or after pos
        best = -1
        for delim in DELIMITERS:
            k = text.find(delim, pos)
            if k >= 0 and (best < 0 or k < best):
                best = k
        if best < 0:
            break
        delim = text[best]
        close = text.find(delim, best + 1)
        if close < 0:
            # an unmatched opener is plain text; later delimiters may still open runs
            pos = best + 1
            continue
        if best > pending:
            nodes.append(Inline("text", text[pending:best]))
        nodes.append(Inline(DELIMITERS[delim], text[best + 1 : close]))
        pos = pending = close + 1
    if pending < n:
        nodes.append(Inline("text", text[pending:]))
    return nodes


# --- attribute lists (§1.5) ----------------------------------------------------------------


def scalar(raw: str) -> AttrValue:
    """An unquoted attribute value: `true`/`false`, a signed 64-bit integer, else a string."""
    if raw == "true":
        return True
    if raw == "false":
        return False
    if raw and INT_RE.fullmatch(raw):
        number = int(raw)
        if I64_MIN <= number <= I64_MAX:
            return number
    return raw


def parse_attrs(text: str, *, line: int = 0, col: int = 1) -> dict[str, AttrValue]:
    """Attributes of an attribute list.

    attrs  = { " " } [ attr { { " " } attr } ] { " " }
    attr   = key "=" ( quoted | bare )
    key    = { ASCII letter | digit | "_" | "-" }       (non-empty)
    quoted = '"' { "\\" any-char | not-quote } '"'     (always a string)
    bare   = { not-space }                              (bool, i64 or string)

    `col` is the column of `text[0]` in its line, for error positions.
    """
    s = text.strip()
    col += len(text) - len(text.lstrip())
    attrs: dict[str, AttrValue] = {}
    if not s:
        return attrs
    n = len(s)
    pos = 0
    while True:
        while pos < n and s[pos] == " ":
            pos += 1
        if pos >= n:
            return attrs
        key_end = KEY_RE.match(s, pos).end()  # type: ignore[union-attr]
        if key_end == pos:
            raise InvalidAttr(
                f"expected attribute key, got `{clip(s[pos:])}`", line=line, col=col + pos
            )
        key = s[pos:key_end]
        if key_end >= n or s[key_end] != "=":
            raise InvalidAttr(f"attribute `{key}` missing `=`", line=line, col=col + key_end)
        pos = key_end + 1
        value: AttrValue
        if pos < n and s[pos] == '"':
            value, pos = quoted_value(s, pos + 1, key, line, col)
        else:
            end = s.find(" ", pos)
            if end < 0:
                end = n
            value = scalar(s[pos:end])
            pos = end
        if key in attrs:
            raise InvalidAttr(
                f"attribute `{key}` appears more than once on this block", line=line, col=col
            )
        attrs[key] = value


def quoted_value(s: str, pos: int, key: str, line: int, col: int) -> tuple[str, int]:
    """The string after an opening quote at `pos - 1`, and the position after its closer.

    A backslash takes the whole next character literally (the reference took one
    byte, which broke multi-byte characters); a final lone backslash is kept.
    """
    close = s.find('"', pos)
    slash = s.find("\\", pos)
    if close >= 0 and (slash < 0 or slash > close):
        return s[pos:close], close + 1  # the common case: no escapes
    out: list[str] = []
    n = len(s)
    while pos < n:
        c = s[pos]
        if c == '"':
            return "".join(out), pos + 1
        if c == "\\" and pos + 1 < n:
            out.append(s[pos + 1])
            pos += 2
            continue
        out.append(c)
        pos += 1
    raise InvalidAttr(f"attribute `{key}` has unterminated quoted value", line=line, col=col)


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


def list_body(p: Parser, i: int, tag: str, rest: str, col: int, block_id: str | None) -> int:
    attrs = parse_attrs(rest, line=i + 1, col=col) if rest else {}
    items: list[list[Inline]] = []
    lines = p.lines
    n = len(lines)
    j = i + 1
    while j < n:
        line = lines[j]
        if line.startswith("- "):
            items.append(parse_inline(line[2:]))
        elif line == "-":
            items.append([])
        else:
            kind = classify(line)
            if kind in (EMPTY_LINE, BLOCK_LINE, COMMENT_LINE):
                break
            if kind == QUOTE_LINE:
                raise ParseError(
                    "quote line `> ` not allowed inside list — close list with blank line first",
                    line=j + 1,
                )
            if kind == FENCE_LINE:
                raise ParseError("fence `~~~` not allowed inside list", line=j + 1)
            raise ParseError("list items must start with `- ` at column 0", line=j + 1)
        j += 1
    return p.add(Block(tag, ITEMS, items, attrs, block_id), i, j - 1)


def quote_body(p: Parser, i: int, tag: str, rest: str, col: int, block_id: str | None) -> int:
    attrs = parse_attrs(rest, line=i + 1, col=col) if rest else {}
    items: list[list[Inline]] = []
    lines = p.lines
    n = len(lines)
    j = i + 1
    while j < n:
        line = lines[j]
        if line.startswith("> "):
            items.append(parse_inline(line[2:]))
        elif line == ">":
            items.append([])
        else:
            kind = classify(line)
            if kind in (EMPTY_LINE, BLOCK_LINE, COMMENT_LINE):
                break
            if kind == ITEM_LINE:
                raise ParseError("list item `- ` not allowed inside quote", line=j + 1)
            if kind == FENCE_LINE:
                raise ParseError("fence `~~~` not allowed inside quote", line=j + 1)
            raise ParseError("quote lines must start with `> ` at column 0", line=j + 1)
        j += 1
    return p.add(Block(tag, ITEMS, items, attrs, block_id), i, j - 1)


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
