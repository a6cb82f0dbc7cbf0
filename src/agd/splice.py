"""Write an edited `Document` back over the text it was parsed from, touching only what changed.

`serialize` writes a whole document canonically: bare attribute values are
re-rendered (`ver=007` becomes `ver=7`), a BOM and CRLF line ends are dropped, the
blank lines between blocks become one. An edit of one block must not rewrite the
others, so `splice` copies the source lines of every block that is still the same
object as in the parsed document, with the blank lines around it, and serialises only
the blocks that are new or replaced (in the file's own line ends).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from .model import Block, Document
from .serializer import serialize_block


def splice(raw: str, old: Document, new: Document) -> str:
    """The text of `new`, where `old` is `parse(raw)` and `new` reuses its unchanged blocks.

    A block of `new` that *is* (identity, not equality) a block of `old` keeps its source
    bytes; a block with the id of an old one keeps that block's place in the spacing.
    """
    bom = "\ufeff" if raw.startswith("\ufeff") else ""
    pieces = raw[len(bom) :].split("\n")
    ends_with_newline = pieces[-1] == ""
    if ends_with_newline:
        pieces.pop()
    lines = [p + "\n" for p in pieces]  # the last one's "\n" is taken back at the end if unended
    crlf = sum(p.endswith("\r") for p in pieces) * 2 > len(pieces)
    eol = "\r\n" if crlf else "\n"

    # Block offsets are UTF-8 bytes of the normalised text (BOM dropped, CRLF -> LF).
    lengths = (len(p.removesuffix("\r").encode("utf-8", "surrogatepass")) + 1 for p in pieces)
    starts = [0, *accumulate(lengths)]
    spans = [(b.line - 1, bisect_right(starts, b.end) - 1) for b in old.blocks]
    position = {id(b): i for i, b in enumerate(old.blocks)}
    by_id = {b.id: i for i, b in enumerate(old.blocks) if b.id is not None}

    def gap_before(i: int) -> str:
        """The source lines between old block i-1 (or the file start) and old block i."""
        begin = spans[i - 1][1] + 1 if i > 0 else 0
        return "".join(lines[begin : spans[i][0]])

    out: list[str] = []
    last_is_source = False
    for k, block in enumerate(new.blocks):
        at = position.get(id(block))
        origin = at if at is not None else by_id.get(block.id) if block.id is not None else None
        if origin is not None and (origin > 0 or k == 0):
            out.append(gap_before(origin))
        elif k == 0 and old.blocks:
            out.append(gap_before(0))
        elif k > 0:
            out.append(eol)
        if at is not None:
            first, last = spans[at]
            out.append("".join(lines[first : last + 1]))
            last_is_source = True
        else:
            out.append(_serialized(block, eol))
            last_is_source = False
    tail = spans[-1][1] + 1 if old.blocks else 0
    if tail < len(lines):
        out.append("".join(lines[tail:]))
        last_is_source = True
    text = "".join(out)
    if not ends_with_newline and last_is_source and text.endswith("\n"):
        text = text[:-1]
    return bom + text


def _serialized(block: Block, eol: str) -> str:
    text = serialize_block(block)
    return text if eol == "\n" else text.replace("\n", eol)
