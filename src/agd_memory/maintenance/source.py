"""A memory file as both text and parsed document, so edits touch lines the parser located.

Migrations and merge never look for headers with a pattern over raw text (the
earlier scripts did, and mistook `@x-…` lines inside fenced bodies for blocks):
the parser says where each block starts and ends, and edits are made on those
line ranges only. Everything outside the edited lines stays byte-for-byte.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import agd
from agd import files
from agd.errors import AgdError, UnreadableFile
from agd.model import Block, Document
from agd.parser import normalise

from ..errors import MemoryFileError
from ..store.entry import parse_id_list


@dataclass
class SourceFile:
    path: Path
    text: str
    document: Document
    lines: list[str] = field(default_factory=list)
    """The normalised text split on LF; a final LF leaves an empty last element."""
    bom: bool = False
    crlf: bool = False
    """The file had a BOM / CRLF line ends; `render` puts them back so only edited lines change."""

    @classmethod
    def parse(cls, path: Path, raw: str) -> SourceFile:
        """Parse `raw`; a parse error becomes a one-line `MemoryFileError` naming the file."""
        try:
            return cls.parse_strict(path, raw)
        except AgdError as exc:
            raise MemoryFileError(
                f"{path}: {exc} — fix that line by hand, then run the command again"
            ) from None

    @classmethod
    def parse_strict(cls, path: Path, raw: str) -> SourceFile:
        """Parse `raw`, letting `AgdError` (with its line and column) through."""
        # The parser normalises BOM and CRLF and reports offsets in the normalised
        # text, so edits are made there and the original line ends restored after.
        text = normalise(raw)
        document = agd.parse(text)
        return cls(
            path=path,
            text=text,
            document=document,
            lines=text.split("\n"),
            bom=raw.startswith("\ufeff"),
            crlf="\r\n" in raw,
        )

    def render(self, lines: list[str]) -> str:
        """Edited lines back to file text, with the file's own BOM and line ends."""
        text = "\n".join(lines)
        if self.crlf:
            text = text.replace("\n", "\r\n")
        return ("\ufeff" if self.bom else "") + text

    @classmethod
    def read(cls, path: Path) -> SourceFile:
        """Read a regular file only, bounded (a FIFO or a device given as FILE is an error,
        not a hang)."""
        try:
            text = files.read_text(path)
        except UnreadableFile as exc:
            if not os.path.lexists(path):  # os.path never raises (a name too long, a loop)
                raise MemoryFileError(f"{path}: no such memory file") from None
            raise MemoryFileError(f"{path}: cannot read: {exc.reason}") from None
        return cls.parse(path, text)

    def line_range(self, block: Block) -> tuple[int, int]:
        """0-based first and last line index of `block` (start line through closing fence)."""
        first = block.line - 1
        last = first + self.text.encode("utf-8")[block.start : block.end].count(b"\n")
        return first, last

    def block_text(self, block: Block) -> str:
        first, last = self.line_range(block)
        return "\n".join(self.lines[first : last + 1])


def ids_of(document: Document) -> set[str]:
    return {b.id for b in document.blocks if b.id is not None}


def is_entry(block: Block) -> bool:
    """A memory entry: an `x-*` block with an id (headings, meta, paragraphs are scaffolding)."""
    return block.kind.startswith("x-") and block.id is not None


def split_refs(value: object) -> list[str]:
    """Ids of a `refs`/`supersedes` value, as the store reads them (`store.parse_id_list`):
    comma- or space-separated (older files wrote `refs="#a #b"`), `#` stripped, no empties."""
    return list(parse_id_list(value)) if isinstance(value, str) else []


def verify(new_text: str, path: Path, expected: list[tuple[str | None, str, dict]]) -> Document:
    """Re-parse `new_text` and check each block's (id, kind, attrs) is what the edit meant.

    A mismatch means the edit would corrupt the file; raise instead of writing.
    """
    try:
        document = agd.parse(new_text)
    except AgdError as exc:
        raise MemoryFileError(
            f"{path}: the edited text would not parse ({exc}); nothing was written — please report this"
        ) from None
    got = [(b.id, b.kind, dict(b.attrs)) for b in document.blocks]
    if got != expected:
        raise MemoryFileError(
            f"{path}: the edited text does not match the planned change; nothing was written — please report this"
        )
    return document
