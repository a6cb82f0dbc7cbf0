"""Automatic ids, heading slugs, id stripping and content hashes (reference §1.14).

`add_ids` gives an id to every "anchorable" block that lacks one: headings get
a slug of their text, other kinds `<tag>-<n>`. Existing ids never change; a
collision with any id in the document gets `-2`, `-3`, … appended.
"""

from __future__ import annotations

import hashlib

from .model import FENCED, INLINE, ITEMS, Block, Document, Inline

__all__ = ["slug", "add_ids", "strip_ids", "content_hash", "is_anchorable"]

HEADINGS = frozenset(("h1", "h2", "h3", "h4"))
ANCHORABLE = frozenset(("h1", "h2", "h3", "h4", "code", "raw", "table", "quote", "ul", "ol"))
SLUG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


def is_anchorable(kind: str) -> bool:
    """Kinds that `add_ids` names: headings, code/raw/table, quote, lists and every `x-*`."""
    return kind in ANCHORABLE or kind.startswith("x-")


def slug(nodes: list[Inline]) -> str:
    """A heading's id: ASCII letters and digits lowercased, other runs become one `-`.

    `Hello World` -> `hello-world`; `2024 plan` -> `h-2024-plan`; `Café` -> `caf`;
    an empty heading -> `h-`. Ref nodes are skipped.
    """
    text = "".join(t for kind, t in nodes if kind != "ref")
    out: list[str] = []
    for ch in text.lower() if text.isascii() else text:
        low = ch.lower() if ch.isascii() else ch
        if low in SLUG_CHARS:
            out.append(low)
        elif out and out[-1] != "-":
            out.append("-")
    result = "".join(out).rstrip("-")
    if not result or result[0] not in LETTERS:
        result = "h-" + result
    return result


def add_ids(doc: Document) -> Document:
    """A copy of `doc` where every anchorable block without an id has one."""
    taken = {b.id for b in doc.blocks if b.id is not None}
    counters: dict[str, int] = {}
    blocks = []
    for block in doc.blocks:
        if block.id is not None or not is_anchorable(block.kind):
            blocks.append(block)
            continue
        if block.kind in HEADINGS:
            base = slug(block.value if block.content_type == INLINE else [])  # type: ignore[arg-type]
        else:
            counters[block.kind] = counters.get(block.kind, 0) + 1
            base = f"{block.kind}-{counters[block.kind]}"
        candidate = base
        n = 1
        while candidate in taken:
            n += 1
            candidate = f"{base}-{n}"
        taken.add(candidate)
        blocks.append(block.copy(id=candidate))
    return Document(blocks)


def strip_ids(doc: Document) -> Document:
    """A copy of `doc` with no ids at all."""
    return Document([b.copy(id=None) if b.id is not None else b for b in doc.blocks])


def content_hash(block: Block) -> str:
    """8 lowercase hex digits of SHA-1 over kind, attributes and body (the id excluded)."""
    from .serializer import format_value, render_inline

    parts = [block.kind]
    for key in sorted(block.attrs):
        parts.append(f"|{key}={format_value(block.attrs[key])}")
    parts.append("|")
    value = block.value
    if block.content_type == INLINE:
        parts.append(render_inline(value or []))  # type: ignore[arg-type]
    elif block.content_type == ITEMS:
        parts.extend(render_inline(item) + "\n" for item in value or [])  # type: ignore[union-attr]
    elif block.content_type == FENCED:
        parts.append(value or "")  # type: ignore[arg-type]
    return hashlib.sha1("".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:8]
