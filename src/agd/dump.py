"""A readable, stable text dump of a parsed document (`agd parse` without `--json`).

The reference printed a Rust debug dump whose shape changed between versions;
this one is a documented format (docs/FORMAT.md) meant for people and for
diffing. One header line per block:

    <line>:<start>-<end> <kind>[ #<id>] <content type>[ <attrs in canonical form>]

then, indented by two spaces, the content: one line per inline node
(`<kind> "<text>"`), `item <n>:` followed by its nodes for items, and
`body "<text>"` for a fenced body. Strings are JSON-quoted, so control
characters and newlines stay visible on one line.
"""

from __future__ import annotations

import json

from .model import FENCED, INLINE, ITEMS, Document, Inline
from .serializer import format_value

__all__ = ["dump"]


def quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def node_lines(nodes: list[Inline], indent: str) -> list[str]:
    return [f"{indent}{kind} {quote(text)}" for kind, text in nodes]


def dump(doc: Document) -> str:
    """The dump of `doc`; `(no blocks)` for an empty document. Ends with LF."""
    if not doc.blocks:
        return "(no blocks)\n"
    lines: list[str] = []
    for block in doc.blocks:
        head = f"{block.line}:{block.start}-{block.end} {block.kind}"
        if block.id is not None:
            head += f" #{block.id}"
        head += f" {block.content_type}"
        if block.attrs:
            head += "".join(
                f" {key}={format_value(block.attrs[key])}" for key in sorted(block.attrs)
            )
        lines.append(head)
        value = block.value
        if block.content_type == INLINE:
            lines += node_lines(value or [], "  ")  # type: ignore[arg-type]
        elif block.content_type == ITEMS:
            for n, item in enumerate(value or [], 1):  # type: ignore[arg-type]
                lines.append(f"  item {n}:")
                lines += node_lines(item, "    ")
        elif block.content_type == FENCED:
            lines.append(f"  body {quote(value or '')}")  # type: ignore[arg-type]
    return "\n".join(lines) + "\n"
