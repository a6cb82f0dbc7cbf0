"""References between blocks: outbound targets, backlinks, `get` with expansion, dangling refs.

A block cites another in two ways (reference §3.11): a `ref` inline node (in
practice the content of an `@ref #target` block) and the `refs` attribute, a
comma-separated string such as `refs="#a, #b"`. Both count everywhere here,
including `check_refs`, which the reference limited to `ref` nodes.
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import DanglingRef, UnknownId
from .model import INLINE, ITEMS, Block, Document

__all__ = ["split_refs", "ref_targets", "outbound", "backlinks", "get", "check_refs", "strip_hash"]


def strip_hash(block_id: str) -> str:
    """An id as typed on a command line: one leading `#` removed."""
    return block_id[1:] if block_id.startswith("#") else block_id


def split_refs(value: object) -> list[str]:
    """The ids of a `refs` attribute: split on `,`, trimmed, leading `#`s removed, empties dropped."""
    if not isinstance(value, str) or not value:
        return []
    out = []
    for piece in value.split(","):
        target = piece.strip().lstrip("#")
        if target:
            out.append(target)
    return out


def ref_targets(block: Block) -> list[str]:
    """Targets of the `ref` inline nodes of a block (fenced bodies are not scanned)."""
    value = block.value
    if not value:
        return []
    if block.content_type == INLINE:
        return [text for kind, text in value if kind == "ref"]  # type: ignore[union-attr,misc]
    if block.content_type == ITEMS:
        return [text for item in value for kind, text in item if kind == "ref"]  # type: ignore[union-attr,misc]
    return []


def outbound(block: Block) -> list[str]:
    """Ids this block cites: its `refs` attribute first, then its `ref` nodes, in order."""
    refs = block.attrs.get("refs")
    if refs is None:
        return ref_targets(block)
    return split_refs(refs) + ref_targets(block)


def cites(block: Block, target: str) -> bool:
    return target in outbound(block)


def backlinks(doc: Document, block_id: str) -> list[Block]:
    """Id-bearing blocks other than the target that cite `block_id`, in document order.

    The target need not exist: a dangling citation is still a backlink.
    """
    target = strip_hash(block_id)
    return [b for b in doc.blocks if b.id is not None and b.id != target and cites(b, target)]


def get(
    doc: Document,
    ids: Iterable[str],
    *,
    follow_refs: bool = False,
    depth: int = 1,
    with_backlinks: bool = False,
    limit: int | None = None,
) -> list[Block]:
    """The requested blocks, then follow-refs discoveries (breadth first), then backlinks.

    No block appears twice and cycles are safe. An unknown requested id raises
    `UnknownId`; unknown ref targets are ignored. `limit` caps how many blocks
    are added after the requested ones (None: no cap), so an anchor cited by
    hundreds of blocks cannot flood the output.
    """
    by_id = {b.id: b for b in doc.blocks if b.id is not None}
    out: list[Block] = []
    seen: set[str] = set()
    requested: list[str] = []
    for raw in ids:
        block_id = strip_hash(raw)
        if block_id in seen:
            continue
        block = by_id.get(block_id)
        if block is None:
            raise UnknownId(block_id)
        seen.add(block_id)
        requested.append(block_id)
        out.append(block)
    room = len(out) + limit if limit is not None else None

    def full() -> bool:
        return room is not None and len(out) >= room

    if follow_refs and not full():
        frontier = list(requested)
        for _ in range(max(depth, 0)):
            nxt: list[str] = []
            for block_id in frontier:
                for target in outbound(by_id[block_id]):
                    if target in seen or target not in by_id or full():
                        continue
                    seen.add(target)
                    nxt.append(target)
                    out.append(by_id[target])
            if not nxt:
                break
            frontier = nxt
    if with_backlinks and not full():
        for target in requested:
            for block in backlinks(doc, target):
                if full():
                    break
                if block.id not in seen:
                    seen.add(block.id)
                    out.append(block)
    return out


def check_refs(doc: Document) -> list[DanglingRef]:
    """Every citation of an id that no block has, in document order, with its real line."""
    known = {b.id for b in doc.blocks if b.id is not None}
    return [
        DanglingRef(target, line=block.line)
        for block in doc.blocks
        for target in outbound(block)
        if target not in known
    ]
