"""Git's conflict markers in a memory file: find them, say how to fix them, merge them.

A clone without the merge driver (or another tool) merges the team file line by line
and leaves `<<<<<<<` / `=======` / `>>>>>>>` regions (with a `|||||||` base section in
git's diff3 style), found by `agd.conflicts` outside fenced bodies only;
`store.rules.conflict_message` is the one line a reader shows, and `resolve` rebuilds the two (or three) versions
the markers interleave, merges them by block id with `agd.merge3`'s rules and writes
the result under the store's lock, atomically. Without a base section the merge is
two-way: nothing either side holds is dropped.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from agd.conflicts import BASE, CLOSE, OPEN, SPLIT, first_marker_line, marked_lines

if TYPE_CHECKING:
    from ..settings import Settings

MAX_BYTES = 64 * 1024 * 1024
"""The largest version of the team file the merge driver reads (10,000 entries: ~3 MB)."""


class Sides(NamedTuple):
    ours: str
    theirs: str
    base: str | None
    """None when a region had no `|||||||` section."""
    regions: int


def split_sides(text: str, *, fenced: bool = True) -> Sides:
    """The versions a marked file interleaves (text outside the regions is in all);
    `fenced`: markers inside fenced bodies are text (the file parses)."""
    ours: list[str] = []
    theirs: list[str] = []
    base: list[str] = []
    has_base = True
    regions = 0
    state = None  # None outside a region, else "ours", "base" or "theirs"
    for marker, line in marked_lines(text, keepends=True, fenced=fenced):
        if state is None and marker == OPEN:
            state, regions = "ours", regions + 1
            region_base = False
            continue
        if state == "ours" and marker == BASE:
            state, region_base = "base", True
            continue
        if state in ("ours", "base") and marker == SPLIT:
            has_base = has_base and region_base
            state = "theirs"
            continue
        if state == "theirs" and marker == CLOSE:
            state = None
            continue
        if state is None:
            ours.append(line)
            theirs.append(line)
            base.append(line)
        elif state == "ours":
            ours.append(line)
        elif state == "base":
            base.append(line)
        else:
            theirs.append(line)
    if state is not None:
        raise ValueError("a conflict region is not closed by `>>>>>>>`")
    return Sides("".join(ours), "".join(theirs), "".join(base) if has_base else None, regions)


def _parses(text: str) -> bool:
    from agd.errors import AgdError
    from agd.parser import parse

    try:
        parse(text)
    except AgdError:
        return False
    return True


class Resolved(NamedTuple):
    path: Path
    regions: int
    notes: tuple[str, ...]
    text: str = ""
    """The merged text."""


def resolve_text(text: str, where: str) -> Resolved:
    """The marked `text` merged region by region (`regions` 0 and the text unchanged when it
    has no markers). `UserError` naming `where` when a side does not parse."""
    from agd.errors import AgdError
    from agd.merge3 import merge_documents
    from agd.parser import parse

    from ..errors import UserError

    fenced = OPEN in text and _parses(text)  # a file that parses: markers in bodies are text
    if first_marker_line(text, fenced=fenced) is None:
        return Resolved(Path(where), 0, (), text)
    try:
        sides = split_sides(text, fenced=fenced)
    except ValueError as exc:
        raise UserError(f"cannot resolve {where}: {exc}; fix the markers by hand") from None
    docs = {}
    for side in ("ours", "theirs", "base"):
        version = getattr(sides, side)
        if version is None:
            continue
        try:
            docs[side] = parse(version)
        except AgdError as exc:
            if side == "base":
                continue  # a broken ancestor: merge two-way, which drops nothing
            raise UserError(
                f"cannot resolve {where}: the {side} side of the conflict does not parse "
                f"({exc}); fix that side by hand, then run `agd-memory team resolve` again"
            ) from None
    result = merge_documents(docs.get("base"), docs["ours"], docs["theirs"])
    return Resolved(Path(where), sides.regions, tuple(n.detail for n in result.notes), result.text)


def resolve(path: str | os.PathLike[str], settings: Settings | None = None) -> Resolved:
    """Merge the conflict regions of `path` in place through the store's one write path
    (`MemoryFile.rewrite`: the real file's lock, a read-only file refused, atomic, the
    cache refreshed)."""
    from ..store import MemoryFile

    target = Path(path)

    def merged(text: str) -> tuple[str | None, Resolved]:
        resolved = resolve_text(text, str(target))
        return (resolved.text if resolved.regions else None), resolved

    return MemoryFile(target, layer="team", settings=settings).rewrite(merged)[0]
