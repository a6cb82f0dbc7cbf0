"""`Document` -> canonical AGD text (reference §1.13).

The canonical form is what `agd format`, `get`, `edit` and `id` print: blocks
in order, one blank line between blocks, attributes in sorted key order,
barewords where the value reads back unchanged, fences just long enough for
their body. It is a fixed point: serialising a parse of the output gives the
output again, for every document the parser can produce.
"""

from __future__ import annotations

import re

from .lines import is_fence, scalar
from .model import FENCED, INLINE, ITEMS, AttrValue, Block, Document, Inline

__all__ = ["serialize", "serialize_block", "render_inline", "format_value", "fence_width"]

BAREWORD_RE = re.compile(r"[A-Za-z0-9_-]+")
OPENERS = {"text": "", "bold": "*", "italic": "_", "code": "`", "ref": "@ref #"}
CLOSERS = {"text": "", "bold": "*", "italic": "_", "code": "`", "ref": ""}


def format_value(value: AttrValue) -> str:
    """An attribute value as written after `key=`.

    A string stays a bareword only when the parser would read it back as the
    same string: non-empty, letters/digits/`_`/`-` only, not a bool, not an i64.
    """
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if BAREWORD_RE.fullmatch(value) and isinstance(scalar(value), str):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_inline(nodes: list[Inline]) -> str:
    """Inline nodes in AGD syntax; text is written verbatim (the format has no escapes)."""
    if len(nodes) == 1 and nodes[0][0] == "text":
        return nodes[0][1]
    return "".join(OPENERS[kind] + text + CLOSERS[kind] for kind, text in nodes)


def fence_width(body: str) -> int:
    """3, or one more than the longest line of the body made only of `~`."""
    if "~~~" not in body:
        return 3
    longest = 0
    for line in body.split("\n"):
        if is_fence(line) and len(line) > longest:
            longest = len(line)
    return max(3, longest + 1)


def serialize_block(block: Block) -> str:
    """One block in canonical form, ending with LF."""
    kind = block.kind
    ctype = block.content_type
    value = block.value
    if kind == "!":
        text = render_inline(value) if ctype == INLINE and value else ""  # type: ignore[arg-type]
        return "@!\n" if not text else "@! " + text + "\n"
    head = "@" + kind
    attrs = block.attrs
    if attrs:
        head += "".join(
            " " + key + "=" + format_value(attrs[key])
            for key in (sorted(attrs) if len(attrs) > 1 else attrs)
        )
    if ctype == INLINE and value:
        if kind == "ref":
            if value[0][0] == "ref":  # type: ignore[index]
                head += " #" + value[0][1]  # type: ignore[index]
        else:
            text = render_inline(value)  # type: ignore[arg-type]
            if text:
                head += " " + text
    if block.id is not None:
        head += " [#" + block.id + "]"
    if ctype == ITEMS:
        prefix = "\n> " if kind == "quote" else "\n- "
        if not value:
            return head + "\n"
        return head + prefix + prefix.join(map(render_inline, value)) + "\n"  # type: ignore[arg-type]
    if ctype == FENCED:
        body = value or ""
        fence = "~" * fence_width(body)  # type: ignore[arg-type]
        if body:
            return head + "\n" + fence + "\n" + body + "\n" + fence + "\n"  # type: ignore[operator]
        return head + "\n" + fence + "\n" + fence + "\n"
    # INLINE and EMPTY: nothing after the start line
    return head + "\n"


def serialize(doc: Document) -> str:
    """The canonical text of `doc`: blocks separated by one blank line, final LF."""
    return "\n".join(map(serialize_block, doc.blocks))
