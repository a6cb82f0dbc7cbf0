"""`get`: blocks by id across layers, with outbound refs and backlinks.

Never fails on an unknown id (the earlier MCP tool lost the whole answer when one
id lived in the other layer, reference §13.1.4): unknown ids are reported in
`missing`. An id held by two layers comes back from both (first layer given first),
never shadowed: each entry says its layer.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from agd.graph import expand
from agd.refs import parse_ids

from .entry import Entry

if TYPE_CHECKING:
    from .memoryfile import MemoryFile


class GetResult:
    """`entries`: requested entries in request order, then followed refs (BFS), then
    backlinks. `missing`: requested ids found in no layer, without `#`.

    Immutable, compared by value. A plain class, not a dataclass: the store is imported
    by every hook, and `dataclasses` costs a hook process ~8 ms to import.
    """

    entries: list[Entry]
    missing: list[str]

    def __init__(self, entries: list[Entry] | None = None, missing: list[str] | None = None):
        object.__setattr__(self, "entries", [] if entries is None else entries)
        object.__setattr__(self, "missing", [] if missing is None else missing)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"GetResult is immutable: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GetResult):
            return NotImplemented
        return (self.entries, self.missing) == (other.entries, other.missing)

    __hash__ = None  # type: ignore[assignment]  # lists inside: unhashable, as before

    def __repr__(self) -> str:
        return f"GetResult(entries={self.entries!r}, missing={self.missing!r})"


def get(
    files: Sequence[MemoryFile],
    ids: Iterable[str],
    *,
    follow_refs: bool = False,
    depth: int = 1,
    with_backlinks: bool = False,
    limit: int | None = None,
) -> GetResult:
    """Entries for `ids` from `files` (team, project, global: the order given).

    `follow_refs` adds the blocks the requested ones cite (`Entry.cites`: refs, `#id`s in
    the body, supersedes), breadth first, up to `depth` hops; `with_backlinks` adds the
    blocks citing a requested one; `limit` caps how many of those extras are added
    (requested ids are never cut). The walk is the format library's (`agd.graph.expand`).
    """
    by_id: dict[str, Entry] = {}  # the walk's graph: the first layer's block of each id
    every: dict[str, list[Entry]] = {}  # what is shown: the block of each layer holding it
    for mf in files:
        for entry in mf.entries():
            by_id.setdefault(entry.id, entry)
            every.setdefault(entry.id, []).append(entry)
    wanted = parse_ids(list(ids))
    found = [i for i in wanted if i in by_id]
    added = expand(
        found,
        by_id,
        by_id,
        lambda i: by_id[i].cites,
        follow_refs=follow_refs,
        depth=depth,
        with_backlinks=with_backlinks,
        limit=limit,
    )
    return GetResult(
        [e for i in found + added for e in every[i]], [i for i in wanted if i not in by_id]
    )


def near_ids(files: Sequence[MemoryFile], missing: Sequence[str]) -> dict[str, list[str]]:
    """The "did you mean" of every `get`: up to three memory ids close to each missing one."""
    known = sorted({e.id for f in files for e in f.entries() if e.is_memory})
    out: dict[str, list[str]] = {}
    for block_id in missing:
        near = difflib.get_close_matches(block_id, known, n=3, cutoff=0.6)
        if near:
            out[block_id] = near
    return out
