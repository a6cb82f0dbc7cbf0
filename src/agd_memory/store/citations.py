"""Pointing the citations of a block at a new id (rename); who cites whom is `agd.refs`.

A block cites another through `refs=`, `supersedes=`, a `#id` in a fenced body, or an
`@ref`/`#id` in inline text; `rename` rewrites all four, `delete` reports them.
"""

from __future__ import annotations

from agd.model import FENCED, INLINE, ITEMS, Block, Inline
from agd.refs import MENTION, format_ids, parse_ids


def _swap_citations(text: str, old: str, new: str) -> str:
    return MENTION.sub(lambda m: f"#{new}" if m.group(1) == old else m.group(0), text)


def rewrite_refs(block: Block, old: str, new: str) -> Block:
    """The block with every reference to `old` pointed at `new` (the same object if none)."""
    attrs = block.attrs
    new_attrs = attrs
    for key in ("refs", "supersedes"):
        ids = parse_ids(attrs.get(key))
        if old in ids:
            if new_attrs is attrs:
                new_attrs = dict(attrs)
            new_attrs[key] = format_ids(new if i == old else i for i in ids)
    value = block.value
    ctype = block.content_type
    if ctype == FENCED and isinstance(value, str) and f"#{old}" in value:
        value = _swap_citations(value, old, new)
    elif ctype == INLINE and value:
        value = [_swap_node(n, old, new) for n in value]  # type: ignore[union-attr]
    elif ctype == ITEMS and value:
        value = [[_swap_node(n, old, new) for n in item] for item in value]  # type: ignore[union-attr]
    if new_attrs is attrs and value == block.value:
        return block
    return Block(block.kind, ctype, value, new_attrs, block.id, block.start, block.end, block.line)


def _swap_node(node: Inline, old: str, new: str) -> Inline:
    kind, text = node
    if kind == "ref":
        return Inline("ref", new) if text == old else node
    if kind == "text" and f"#{old}" in text:
        return Inline("text", _swap_citations(text, old, new))
    return node
