"""Substring search over id-bearing blocks, with a short excerpt per hit (reference §3.12).

Only a block's content is searched (not its id or attributes). The excerpt is
a window of about 40 UTF-8 bytes either side of the first match; unlike the
reference, the window is placed on the original text even when lowercasing
changes a character's length (`İ` -> `i̇`), so a case-insensitive hit never
shows a shifted excerpt.
"""

from __future__ import annotations

from typing import NamedTuple

from .model import FENCED, INLINE, ITEMS, Block, Document

__all__ = ["Hit", "search", "block_text"]

WINDOW = 40


class Hit(NamedTuple):
    id: str
    kind: str
    excerpt: str


def block_text(block: Block) -> str:
    """The searchable text: inline node texts without delimiters, items joined by LF, bodies raw."""
    value = block.value
    if block.content_type == INLINE:
        return "".join(text for _, text in value or [])  # type: ignore[misc]
    if block.content_type == ITEMS:
        return "\n".join("".join(text for _, text in item) for item in value or [])  # type: ignore[union-attr,misc]
    if block.content_type == FENCED:
        return value or ""  # type: ignore[return-value]
    return ""


def find(body: str, query: str, ignore_case: bool) -> tuple[int, int] | None:
    """(start, end) character offsets of the first match in `body`, or None."""
    if not ignore_case:
        k = body.find(query)
        return None if k < 0 else (k, k + len(query))
    needle = query.lower()
    lowered = body.lower()
    k = lowered.find(needle)
    if k < 0:
        return None
    if len(lowered) == len(body):
        return k, k + len(needle)
    # lowercasing changed some lengths: map lowered offsets back to original characters
    origin: list[int] = []
    for i, ch in enumerate(body):
        origin.extend([i] * len(ch.lower()))
    origin.append(len(body))
    end = k + len(needle)
    return origin[k], (origin[end - 1] + 1 if end > k else origin[k])


def excerpt(body: str, start: int, end: int) -> str:
    """About `WINDOW` bytes of context either side of body[start:end], on character boundaries."""
    raw = body.encode("utf-8", "surrogatepass")
    if body.isascii():
        bstart, bend = start, end
    else:
        bstart = len(body[:start].encode("utf-8", "surrogatepass"))
        bend = bstart + len(body[start:end].encode("utf-8", "surrogatepass"))
    lo = max(0, bstart - WINDOW)
    hi = min(len(raw), bend + WINDOW)
    while lo > 0 and raw[lo] & 0xC0 == 0x80:  # back to the start of a character
        lo -= 1
    while hi < len(raw) and raw[hi] & 0xC0 == 0x80:  # forward past the last one
        hi += 1
    text = raw[lo:hi].decode("utf-8", "surrogatepass").replace("\n", " ")
    return ("…" if lo > 0 else "") + text + ("…" if hi < len(raw) else "")


def search(
    doc: Document, query: str, *, ignore_case: bool = False, kind: str | None = None
) -> list[Hit]:
    """Id-bearing blocks (of `kind`, when given) whose text contains `query`, in document order.

    An empty query matches every id-bearing block.
    """
    hits = []
    for block in doc.blocks:
        if block.id is None or (kind is not None and block.kind != kind):
            continue
        body = block_text(block)
        found = find(body, query, ignore_case)
        if found is not None:
            hits.append(Hit(block.id, block.kind, excerpt(body, *found)))
    return hits
