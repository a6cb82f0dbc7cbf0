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
    body = raw[len(bom) :]
    ends_with_newline = body.endswith("\n")
    if not ends_with_newline:
        body += "\n"  # a virtual end of the last line, taken back at the end
    pieces = body.split("\n")
    pieces.pop()
    eol = "\r\n" if body.count("\r\n") * 2 > len(pieces) else "\n"
    # Where each line starts in `body` (characters), and in the parser's normalised text
    # (UTF-8 bytes, BOM dropped, CRLF -> LF), which is what block offsets count.
    chars = [0, *accumulate(len(p) + 1 for p in pieces)]
    if body.isascii() and "\r" not in body:
        starts = chars
    else:
        normalised = body.replace("\r\n", "\n").encode("utf-8", "surrogatepass")
        starts = [0, *accumulate(len(line) + 1 for line in normalised.split(b"\n")[:-1])]
    spans = [(b.line - 1, bisect_right(starts, b.end) - 1) for b in old.blocks]
    position = {id(b): i for i, b in enumerate(old.blocks)}
    by_id = {b.id: i for i, b in enumerate(old.blocks) if b.id is not None}

    def lines(first: int, stop: int) -> str:
        """Lines first..stop-1 of the source, each with its own line end."""
        return body[chars[first] : chars[stop]] if stop > first else ""

    def gap_before(i: int) -> str:
        """The source lines between old block i-1 (or the file start) and old block i."""
        return lines(spans[i - 1][1] + 1 if i > 0 else 0, spans[i][0])

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
            out.append(lines(first, last + 1))
            last_is_source = True
        else:
            out.append(_serialized(block, eol))
            last_is_source = False
    tail = spans[-1][1] + 1 if old.blocks else 0
    if tail < len(pieces):
        out.append(lines(tail, len(pieces)))
        last_is_source = True
    text = "".join(out)
    if not ends_with_newline and last_is_source and text.endswith("\n"):
        text = text[:-1]
    return bom + text


def _serialized(block: Block, eol: str) -> str:
    text = serialize_block(block)
    return text if eol == "\n" else text.replace("\n", eol)
