"""Memory files a reader cannot load: found once, reported by every reader.

A memory file that does not parse (or cannot be read) must never look empty: every
reader (SessionStart, `toc`, `get`, `search`, `recall`, the MCP tools, the viewer)
reads the other layers as usual and says which file was left out and how to fix it.
`readable` splits a reader's files; the two renderers word the report for the user
(what to do) and for the model (a factual statement of what is missing).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from .errors import MemoryFileError

if TYPE_CHECKING:
    from .recall.front import MemorySource

F = TypeVar("F", bound="MemorySource")


class Unreadable(NamedTuple):
    """A layer left out: its name and the typed error (path, line, message with the fix)."""

    layer: str
    path: str
    error: MemoryFileError


def readable(files: Sequence[F]) -> tuple[list[F], list[Unreadable]]:
    """The files whose entries load, in order, and the layers that failed (with why)."""
    ok: list[F] = []
    bad: list[Unreadable] = []
    for mf in files:
        try:
            mf.entries()
        except MemoryFileError as exc:
            bad.append(Unreadable(mf.layer, str(mf.path), exc))
            continue
        ok.append(mf)
    return ok, bad


def for_user(item: Unreadable) -> str:
    """One line: which layer is left out, the file, the line, and the fix."""
    return f"the {item.layer} layer is left out: {item.error.message}"


def for_model(item: Unreadable) -> str:
    """One factual line for the model: what is missing, and that the user was told."""
    err = item.error
    if err.reason == "parse":
        what = f"does not parse at line {err.line}" if err.line else "does not parse"
        how = f" (`agd validate {item.path}` shows the line)"
    else:
        what, how = "cannot be read", ""
    return (
        f"The {item.layer} memory file {item.path} {what}, so its entries are missing "
        f"here; the user has been told{how}."
    )


def warn(items: Sequence[Unreadable]) -> None:
    """The CLI's report: one line per left-out layer on stderr (the verb then exits 1)."""
    for item in items:
        print(f"agd-memory: {for_user(item)}", file=sys.stderr)
