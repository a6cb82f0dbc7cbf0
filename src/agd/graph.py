"""The `get` walk, backlinks and dangling refs, over the one refs grammar of `agd.refs`.

A block cites another through `refs=`, a `#id` in its text (an `@ref #id` node
included) and `supersedes=` (`agd.refs.citations`); `get --follow-refs`,
`backlinks` and the memory store's `get` all walk that one relation through
`expand`. The reference CLI read only `refs=` (split on commas) and `ref` nodes;
docs/FORMAT.md lists the differences.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from .errors import DanglingRef, UnknownId
from .model import Block, Document
from .refs import block_citations, declared, parse_ids

__all__ = ["expand", "backlinks", "get", "check_refs", "strip_hash"]


def strip_hash(block_id: str) -> str:
    """An id as typed on a command line: one leading `#` removed."""
    return block_id[1:] if block_id.startswith("#") else block_id


def expand(
    requested: list[str],
    known: Mapping[str, object],
    order: Iterable[str],
    cited: Callable[[str], Iterable[str]],
    *,
    follow_refs: bool = False,
    depth: int = 1,
    with_backlinks: bool = False,
    limit: int | None = None,
) -> list[str]:
    """The ids `get` adds after `requested` (all in `known`): follow-refs discoveries
    breadth first up to `depth` hops, then, for each requested id, the ids in `order`
    (document order) that cite it. No id twice; cycles are safe; targets not in
    `known` are ignored; `limit` caps how many are added (None: no cap).
    """
    memo: dict[str, tuple[str, ...]] = {}

    def out(block_id: str) -> tuple[str, ...]:
        if block_id not in memo:
            memo[block_id] = tuple(cited(block_id))
        return memo[block_id]

    seen = set(requested)
    added: list[str] = []
    room = float("inf") if limit is None else max(0, limit)
    if follow_refs:
        frontier = requested
        for _ in range(max(depth, 0)):
            nxt = []
            for block_id in frontier:
                for target in out(block_id):
                    if target in seen or target not in known or len(added) >= room:
                        continue
                    seen.add(target)
                    nxt.append(target)
                    added.append(target)
            if not nxt:
                break
            frontier = nxt
    if with_backlinks:
        candidates = list(order)
        for target in requested:
            for block_id in candidates:
                if len(added) >= room:
                    return added
                if block_id not in seen and target in out(block_id):
                    seen.add(block_id)
                    added.append(block_id)
    return added


def backlinks(doc: Document, block_id: str) -> list[Block]:
    """Id-bearing blocks other than the target that cite `block_id`, in document order.

    The target need not exist: a dangling citation is still a backlink.
    """
    target = strip_hash(block_id)
    return [
        b for b in doc.blocks if b.id is not None and b.id != target and target in block_citations(b)
    ]


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

    An unknown requested id raises `UnknownId`; the rest is `expand`.
    """
    by_id = {b.id: b for b in doc.blocks if b.id is not None}
    requested: list[str] = []
    for raw in ids:
        block_id = strip_hash(raw)
        if block_id not in by_id:
            raise UnknownId(block_id)
        if block_id not in requested:
            requested.append(block_id)
    added = expand(
        requested,
        by_id,
        by_id,
        lambda i: block_citations(by_id[i]),
        follow_refs=follow_refs,
        depth=depth,
        with_backlinks=with_backlinks,
        limit=limit,
    )
    return [by_id[i] for i in requested + added]


def check_refs(doc: Document) -> list[DanglingRef]:
    """Every declared citation (`refs=`, `ref` nodes, `supersedes=`) of an id that no block
    has, in document order, with its real line."""
    known = {b.id for b in doc.blocks if b.id is not None}
    return [
        DanglingRef(target, line=block.line)
        for block in doc.blocks
        for target in dict.fromkeys(declared(block) + parse_ids(block.attrs.get("supersedes")))
        if target not in known
    ]
