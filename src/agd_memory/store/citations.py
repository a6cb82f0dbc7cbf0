"""Who cites a block, and pointing those citations at a new id (delete and rename).

A block cites another through `refs=`, `supersedes=`, a `#id` in a fenced body, or an
`@ref`/`#id` in inline text; `rename` rewrites all four, `delete` reports them.
"""

from __future__ import annotations

from collections.abc import Iterable

from agd.model import FENCED, INLINE, ITEMS, Block, Inline

from .entry import CITATION, parse_id_list


def id_attr(ids: Iterable[str]) -> str:
    """`("a", "b")` -> `"#a,#b"`: a `refs`/`supersedes` value."""
    return ",".join(f"#{i}" for i in ids)


def body_citations(body: str) -> list[str]:
    """The `#id` citations of a body, first-seen order, without duplicates: what a save
    lifts into `refs` (and `agd-memory migrate refs` does for old files)."""
    return list(dict.fromkeys(m.group(1) for m in CITATION.finditer(body)))


def cites(block: Block, target: str) -> bool:
    """True when `block` names `target` in refs, supersedes or its text."""
    if target in parse_id_list(block.attrs.get("refs")):
        return True
    if target in parse_id_list(block.attrs.get("supersedes")):
        return True
    if block.content_type == FENCED:
        return any(m.group(1) == target for m in CITATION.finditer(block.value or ""))  # type: ignore[arg-type]
    if block.content_type == INLINE:
        return any(k == "ref" and t == target for k, t in block.value or [])  # type: ignore[union-attr]
    return False


def _swap_citations(text: str, old: str, new: str) -> str:
    return CITATION.sub(lambda m: f"#{new}" if m.group(1) == old else m.group(0), text)


def rewrite_refs(block: Block, old: str, new: str) -> Block:
    """The block with every reference to `old` pointed at `new` (the same object if none)."""
    attrs = block.attrs
    new_attrs = attrs
    for key in ("refs", "supersedes"):
        ids = parse_id_list(attrs.get(key))
        if old in ids:
            if new_attrs is attrs:
                new_attrs = dict(attrs)
            new_attrs[key] = id_attr(new if i == old else i for i in ids)
    value = block.value
    ctype = block.content_type
    if ctype == FENCED and value and f"#{old}" in value:  # type: ignore[operator]
        value = _swap_citations(value, old, new)  # type: ignore[arg-type]
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
