"""`Entry`: one block with an id, as every reader sees it (recall, TOC, MCP, viewer).

An `Entry` is immutable and behaves as a frozen dataclass (`dataclasses.fields`,
`asdict`, `replace` and `is_dataclass` all work; the field table is built on first
use, so hooks never import `dataclasses`), but it is built on a tuple:
a hook is a fresh process on every prompt, and building 10,000 dataclass
instances costs more than the whole cached load of a 10,000-block file. Rows
come straight out of the on-disk cache as tuples and become entries with one
`tuple.__new__` each.
"""

from __future__ import annotations

import gc
from collections import namedtuple
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

from agd.model import EMPTY, FENCED, INLINE, Block, Document, Inline
from agd.refs import citations
from agd.refs import parse_ids as parse_id_list
from agd.refs import text_of as block_text

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
if TYPE_CHECKING:
    from typing import Any

_ROW_FIELDS = "id kind desc body refs status created updated supersedes line attr_flat layer path"


# `collections.namedtuple`, not `typing.NamedTuple`: the prompt hook imports this module
# when it injects a block, and `typing.NamedTuple` compiles each field's annotation.
class _Row(namedtuple("_Row", _ROW_FIELDS)):
    """`attr_flat`: the attributes as `(key1, value1, key2, value2, ...)`, sorted by key:
    one tuple per entry instead of one per attribute keeps the cached load fast."""

    __slots__ = ()

    id: str
    kind: str
    desc: str | None
    body: str
    refs: tuple[str, ...]
    status: str | None
    created: str | None
    updated: str | None
    supersedes: tuple[str, ...]
    line: int
    attr_flat: tuple[Any, ...]
    layer: str
    path: Path


ROW_WIDTH = 11
"""Fields stored in the cache; `layer` and `path` are appended per file."""


class Entry(_Row):
    """One block with an id. `refs`/`supersedes` are ids without `#`; `body` is the fenced
    body, or the inline/items text of other block kinds; `line` is 1-based."""

    __slots__ = ()

    def __new__(
        cls,
        id: str,
        kind: str,
        desc: str | None = None,
        body: str = "",
        refs: Iterable[str] = (),
        status: str | None = None,
        created: str | None = None,
        updated: str | None = None,
        supersedes: Iterable[str] = (),
        layer: str = "project",
        path: str | Path = "",
        line: int = 0,
        attrs: Mapping[str, Any] | None = None,
    ) -> Entry:
        return tuple.__new__(
            cls,
            (id, kind, desc, body, tuple(refs), status, created, updated, tuple(supersedes),
             line, _flat(attrs or {}), layer, Path(path)),
        )  # fmt: skip

    @property
    def attrs(self) -> dict[str, Any]:
        """Every attribute of the block (a fresh dict: entries are immutable)."""
        flat = self.attr_flat
        return dict(zip(flat[::2], flat[1::2], strict=True))

    @property
    def attr_items(self) -> tuple[tuple[str, Any], ...]:
        """Every attribute as sorted `(key, value)` pairs."""
        flat = self.attr_flat
        return tuple(zip(flat[::2], flat[1::2], strict=True))

    @property
    def is_memory(self) -> bool:
        """True for `x-*` blocks; headings, meta and paragraphs are not memory entries."""
        return self.kind.startswith("x-")

    @property
    def cites(self) -> tuple[str, ...]:
        """Every id this entry cites: refs, `#id`s in its body, supersedes (`agd.refs`)."""
        return citations(self.refs, self.supersedes, self.body)

    @property
    def date(self) -> str | None:
        """`updated`, else `created`: when the entry last changed."""
        return self.updated or self.created

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: lists for tuples, the path as a string."""
        return {
            "id": self.id,
            "kind": self.kind,
            "desc": self.desc,
            "body": self.body,
            "refs": list(self.refs),
            "status": self.status,
            "created": self.created,
            "updated": self.updated,
            "supersedes": list(self.supersedes),
            "layer": self.layer,
            "path": str(self.path),
            "line": self.line,
            "attrs": self.attrs,
        }

    def to_agd(self, *, drop: tuple[str, ...] = ()) -> str:
        """The block as canonical AGD text (what `agd get` prints for it), without the
        attributes named in `drop`."""
        from agd.serializer import serialize_block

        block = to_block(self)
        if any(name in block.attrs for name in drop):
            attrs = {k: v for k, v in block.attrs.items() if k not in drop}
            block = Block(block.kind, block.content_type, block.value, attrs, block.id)
        return serialize_block(block)

    def __hash__(self) -> int:
        return hash((self.layer, self.path, self.id, self.body, self.attr_flat))

    def __repr__(self) -> str:
        return (
            f"Entry(id={self.id!r}, kind={self.kind!r}, desc={self.desc!r}, status={self.status!r}, "
            f"layer={self.layer!r}, line={self.line})"
        )


FIELDS = (
    "id", "kind", "desc", "body", "refs", "status", "created", "updated",
    "supersedes", "layer", "path", "line", "attrs",
)  # fmt: skip
"""Entry's fields as a dataclass would list them (the store contract's order)."""


@cache
def _entry_fields_class() -> type:
    """A dataclass with Entry's fields; only its field table is used (see `_DataclassTable`)."""
    import dataclasses

    # the annotations as source strings, as `from __future__ import annotations` gives them
    types = {k: getattr(t, "__forward_arg__", t) for k, t in _Row.__annotations__.items()}
    types["attrs"] = "dict[str, Any]"
    return dataclasses.make_dataclass(
        "_EntryFields", [(name, types[name]) for name in FIELDS], frozen=True
    )


class _DataclassTable:
    """`Entry.__dataclass_fields__` / `__dataclass_params__`, built on first access.

    They make `dataclasses.is_dataclass`, `fields`, `asdict` and `replace` work on an
    Entry. Building them needs `dataclasses`, whose import (with `inspect` behind it)
    costs ~8 ms; every hook imports this module and none of them uses `dataclasses`,
    so the table is made when `dataclasses` first asks for it.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, owner: type | None = None) -> object:
        return getattr(_entry_fields_class(), self.name)


Entry.__dataclass_fields__ = _DataclassTable("__dataclass_fields__")  # type: ignore[attr-defined]
Entry.__dataclass_params__ = _DataclassTable("__dataclass_params__")  # type: ignore[attr-defined]


def str_attr(attrs: Mapping[str, Any], key: str) -> str | None:
    """A text attribute; absent or boolean gives None."""
    value = attrs.get(key)
    if value is None or isinstance(value, bool):
        return None
    return str(value)


def rows_from_document(doc: Document) -> list[tuple]:
    """Cache rows (the first `ROW_WIDTH` fields of an Entry) for every block with an id."""
    rows = []
    for block in doc.blocks:
        if block.id is None:
            continue
        attrs = block.attrs
        rows.append(
            (
                block.id,
                block.kind,
                str_attr(attrs, "desc"),
                block_text(block),
                parse_id_list(attrs.get("refs")),
                str_attr(attrs, "status"),
                str_attr(attrs, "created"),
                str_attr(attrs, "updated"),
                parse_id_list(attrs.get("supersedes")),
                block.line,
                _flat(attrs),
            )
        )
    return rows


def _flat(attrs: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(x for key in sorted(attrs) for x in (key, attrs[key]))


def entries_from_rows(rows: Iterable[tuple], layer: str, path: Path) -> list[Entry]:
    tail = (layer, path)
    new = tuple.__new__
    enabled = gc.isenabled()
    gc.disable()  # 10,000 new tuples would trigger collections that find no cycles
    try:
        return [new(Entry, row + tail) for row in rows]
    finally:
        if enabled:
            gc.enable()


def to_block(entry: Entry) -> Block:
    """The entry as a `Block` (fenced for `x-*` kinds)."""
    if entry.kind.startswith("x-"):
        return Block(entry.kind, FENCED, entry.body, entry.attrs, entry.id)
    if entry.kind in ("h1", "h2", "h3", "h4", "p"):
        return Block(entry.kind, INLINE, [Inline("text", entry.body)], entry.attrs, entry.id)
    return Block(entry.kind, EMPTY, None, entry.attrs, entry.id)
