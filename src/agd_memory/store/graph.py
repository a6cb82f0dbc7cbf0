"""`get`: blocks by id across layers, with outbound refs and backlinks.

Never fails on an unknown id (the earlier MCP tool lost the whole answer when one
id lived in the other layer, reference §13.1.4): unknown ids are reported in
`missing`. When both layers hold the same id, the first layer given (the project
layer) wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .entry import Entry


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
        if type(other) is not type(self):
            return NotImplemented
        return (self.entries, self.missing) == (other.entries, other.missing)  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # lists inside: unhashable, as before

    def __repr__(self) -> str:
        return f"GetResult(entries={self.entries!r}, missing={self.missing!r})"


def get(
    files: Sequence[object],
    ids: Iterable[str],
    *,
    follow_refs: bool = False,
    depth: int = 1,
    with_backlinks: bool = False,
    limit: int | None = None,
) -> GetResult:
    """Entries for `ids` from `files` (`MemoryFile`s, project first).

    `follow_refs` adds the blocks the requested ones cite in `refs=`, breadth first,
    up to `depth` hops; `with_backlinks` adds the blocks whose `refs` cite a requested
    one; `limit` caps how many of those extras are added (requested ids are never cut).
    """
    by_id: dict[str, Entry] = {}
    everything: list[Entry] = []
    for mf in files:
        for entry in mf.entries():  # type: ignore[attr-defined]
            everything.append(entry)
            by_id.setdefault(entry.id, entry)

    wanted: list[str] = []
    for raw in ids:
        i = str(raw).strip().lstrip("#")
        if i and i not in wanted:
            wanted.append(i)
    found = [by_id[i] for i in wanted if i in by_id]
    missing = [i for i in wanted if i not in by_id]

    seen = {e.id for e in found}
    extras: list[Entry] = []
    room = float("inf") if limit is None else max(0, limit)

    def add(entry: Entry) -> bool:
        if len(extras) >= room:
            return False
        seen.add(entry.id)
        extras.append(entry)
        return True

    if follow_refs and depth > 0:
        frontier = found
        for _ in range(depth):
            nxt: list[Entry] = []
            for entry in frontier:
                for ref in entry.refs:
                    target = by_id.get(ref)
                    if target is not None and target.id not in seen:
                        if not add(target):
                            break
                        nxt.append(target)
            frontier = nxt
            if not frontier:
                break

    if with_backlinks:
        targets = {e.id for e in found}
        for entry in everything:
            if entry.id in seen or by_id.get(entry.id) is not entry:
                continue
            if targets.intersection(entry.refs) and not add(entry):
                break

    return GetResult(found + extras, missing)
