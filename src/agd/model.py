"""The AGD document model: what a parsed file is, independent of any syntax.

A `Document` is a list of `Block`s. Each block has a kind (its tag without `@`,
`"!"` for comments), sorted attributes, an optional id and one of four content
shapes (reference §2.1): inline nodes, items (a list of inline-node lists), a
fenced verbatim body, or nothing. Spans and line numbers are positions in the
source; they never take part in equality.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

AttrValue = bool | int | str

INLINE = "inline"
ITEMS = "items"
FENCED = "fenced"
EMPTY = "empty"
CONTENT_TYPES = (INLINE, ITEMS, FENCED, EMPTY)

BUILTIN_TAGS = frozenset(
    [
        "meta",
        "h1",
        "h2",
        "h3",
        "h4",
        "p",
        "ul",
        "ol",
        "code",
        "quote",
        "raw",
        "ref",
        "include",
        "!",
        "table",
    ]
)


class Inline(NamedTuple):
    """One inline node: `kind` is text, bold, italic, code or ref; `text` has no delimiters."""

    kind: str
    text: str


Items = list[list[Inline]]
ContentValue = list[Inline] | Items | str | None


@dataclass(eq=False, slots=True)
class Block:
    kind: str
    """Tag without `@`: `h1`, `p`, `x-note`; `!` for a comment."""
    content_type: str
    """One of `inline`, `items`, `fenced`, `empty`."""
    value: ContentValue = None
    """Inline nodes, items, the verbatim fenced body, or None for `empty`."""
    attrs: dict[str, AttrValue] = field(default_factory=dict)
    """Attributes; serialised in sorted key order."""
    id: str | None = None
    start: int = 0
    """Byte offset of the block-start line (UTF-8)."""
    end: int = 0
    """Byte offset just past the block's last line, newline excluded."""
    line: int = 0
    """1-based line number of the block-start line (0 when not parsed from text)."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Block):
            return NotImplemented
        return (
            self.kind == other.kind
            and self.content_type == other.content_type
            and self.value == other.value
            and self.attrs == other.attrs
            and self.id == other.id
        )

    __hash__ = None  # type: ignore[assignment]

    @property
    def desc(self) -> str | None:
        """The `desc` attribute when it is a string (the only form `ids` reports)."""
        value = self.attrs.get("desc")
        return value if isinstance(value, str) else None


@dataclass(eq=False, slots=True)
class Document:
    blocks: list[Block] = field(default_factory=list)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Document):
            return NotImplemented
        return self.blocks == other.blocks

    __hash__ = None  # type: ignore[assignment]

    def find(self, block_id: str) -> Block | None:
        """The block with this id, or None."""
        for block in self.blocks:
            if block.id == block_id:
                return block
        return None

    def index(self) -> dict[str, int]:
        """Map of id to position, for repeated look-ups."""
        return {b.id: i for i, b in enumerate(self.blocks) if b.id is not None}
