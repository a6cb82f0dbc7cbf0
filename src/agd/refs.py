"""The refs grammar and who cites whom: the one definition every reader uses.

`refs` and `supersedes` are ordinary string attributes holding a list of ids
(reference §3.14). Grammar of such a value (EBNF)::

    id-list   = { separator } [ reference { separator { separator } reference } ] { separator }
    separator = "," | whitespace
    reference = { "#" } id

so `refs="#a,#b"`, `refs="#a, #b"`, `refs="#a #b"` and `refs="a b"` all name `a`
and `b`. The reference CLI splits on commas only and reads `"#a #b"` as one id
`a #b`, which no block can have (ids hold no spaces); that is a bug, and this
library does not copy it (docs/FORMAT.md).

A block cites another through its `refs=` ids, a `#id` in its text (a fenced
body, inline text, an `@ref #id` node) and its `supersedes=` ids: `citations`.
`declared` is the narrower set a block states it depends on, `refs=` ids and
`ref` nodes; `agd ref --check` verifies those and `supersedes=`, not the `#name`s
of a fenced body, which may be code (`#include`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .lines import ID_RE
from .model import FENCED, INLINE, ITEMS, Block, Inline

__all__ = [
    "MENTION",
    "parse_ids",
    "format_ids",
    "mentions",
    "text_of",
    "ref_nodes",
    "citations",
    "block_citations",
    "declared",
    "cites",
]

MENTION = re.compile(r"#(" + ID_RE.pattern + ")")
"""A `#id` citation anywhere in a text."""

_SEPARATORS = re.compile(r"[,\s]+")


def parse_ids(value: object) -> tuple[str, ...]:
    """The ids of a `refs`/`supersedes` value (or of a list of such values), first-seen
    order, without `#` and duplicates. Anything else (a number, a boolean, None) names none.

    >>> parse_ids("#a, #b #a"), parse_ids(["a", "#b c"]), parse_ids(5)
    (('a', 'b'), ('a', 'b', 'c'), ())
    """
    if isinstance(value, (list, tuple)):
        value = " ".join(str(v) for v in value)
    if not isinstance(value, str):
        return ()
    pieces = (piece.lstrip("#") for piece in _SEPARATORS.split(value))
    return tuple(dict.fromkeys(p for p in pieces if p))


def format_ids(ids: Iterable[str]) -> str:
    """`("a", "b")` -> `"#a,#b"`: how a `refs`/`supersedes` value is written."""
    return ",".join(f"#{i}" for i in ids)


def mentions(text: str) -> tuple[str, ...]:
    """The `#id` citations of a text, first-seen order, without duplicates."""
    return tuple(dict.fromkeys(m.group(1) for m in MENTION.finditer(text)))


def text_of(block: Block) -> str:
    """A fenced body raw; inline and items text with `ref` nodes written as `#target`."""
    ctype = block.content_type
    if ctype == FENCED:
        return block.value or ""  # type: ignore[return-value]
    if ctype == INLINE:
        return _inline_text(block.value)  # type: ignore[arg-type]
    if ctype == ITEMS:
        return "\n".join(_inline_text(item) for item in block.value or [])  # type: ignore[union-attr]
    return ""


def _inline_text(nodes: list[Inline] | None) -> str:
    return "".join(("#" + text) if kind == "ref" else text for kind, text in nodes or [])


def ref_nodes(block: Block) -> list[str]:
    """Targets of the `ref` inline nodes of a block (fenced bodies hold none)."""
    value = block.value
    if not value or block.content_type not in (INLINE, ITEMS):
        return []
    lines = [value] if block.content_type == INLINE else value
    return [text for nodes in lines for kind, text in nodes if kind == "ref"]  # type: ignore[union-attr,misc]


def citations(refs: object, supersedes: object, text: str) -> tuple[str, ...]:
    """Who cites whom: the `refs` ids, then the `#id`s of the text, then the `supersedes`
    ids, without duplicates. `refs`/`supersedes` are attribute values or parsed ids."""
    return tuple(dict.fromkeys(parse_ids(refs) + mentions(text) + parse_ids(supersedes)))


def block_citations(block: Block) -> tuple[str, ...]:
    """Every id `block` cites (see `citations`)."""
    attrs = block.attrs
    return citations(attrs.get("refs"), attrs.get("supersedes"), text_of(block))


def declared(block: Block) -> tuple[str, ...]:
    """The ids a block states it depends on: its `refs=` ids, then its `ref` nodes."""
    return tuple(dict.fromkeys(parse_ids(block.attrs.get("refs")) + tuple(ref_nodes(block))))


def cites(block: Block, target: str) -> bool:
    """True when `block` cites `target` (without `#`)."""
    return target in block_citations(block)
