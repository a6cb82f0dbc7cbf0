"""The JSON AST (reference §2): `Document`/`Block` <-> plain dicts, and its pretty form.

Dicts are built in the reference key order (`kind`, `attrs`, `id`, `content`,
`span`) so `json.dumps` reproduces the reference output byte for byte.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import InvalidAst
from .lines import I64_MAX, I64_MIN
from .model import CONTENT_TYPES, EMPTY, FENCED, INLINE, ITEMS, AttrValue, Block, Document, Inline

__all__ = [
    "block_to_dict",
    "document_to_dict",
    "block_from_dict",
    "document_from_dict",
    "inline_from_list",
    "attr_value_from_json",
    "dumps_pretty",
    "dumps_compact",
]

INLINE_KINDS = ("text", "bold", "italic", "code", "ref")


def nodes_to_list(nodes: list[Inline]) -> list[dict[str, str]]:
    return [{"kind": kind, "text": text} for kind, text in nodes]


def block_to_dict(block: Block, *, spans: bool = True) -> dict[str, Any]:
    """The JSON object of one block; `spans=False` leaves `span` out (as the fixtures do)."""
    out: dict[str, Any] = {"kind": block.kind}
    if block.attrs:
        out["attrs"] = {key: block.attrs[key] for key in sorted(block.attrs)}
    if block.id is not None:
        out["id"] = block.id
    ctype = block.content_type
    value = block.value
    if ctype == INLINE:
        content: dict[str, Any] = {"type": INLINE, "value": nodes_to_list(value or [])}  # type: ignore[arg-type]
    elif ctype == ITEMS:
        content = {"type": ITEMS, "value": [nodes_to_list(item) for item in value or []]}  # type: ignore[union-attr]
    elif ctype == FENCED:
        content = {"type": FENCED, "value": value or ""}
    else:
        content = {"type": EMPTY}
    out["content"] = content
    if spans and (block.start or block.end):
        out["span"] = {"start": block.start, "end": block.end}
    return out


def document_to_dict(doc: Document, *, spans: bool = True) -> dict[str, Any]:
    return {"blocks": [block_to_dict(b, spans=spans) for b in doc.blocks]}


def dumps_pretty(obj: Any) -> str:
    """2-space indented JSON, non-ASCII raw, trailing LF (what `parse --json` prints)."""
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def dumps_compact(obj: Any) -> str:
    """One line, no spaces, non-ASCII raw, trailing LF (what `ids --json` prints)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"


# --- JSON -> model ------------------------------------------------------------------------


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def attr_value_from_json(key: str, value: Any) -> AttrValue:
    """A JSON attribute value: bool, an integer within i64, or a string; nothing else."""
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, int) and I64_MIN <= value <= I64_MAX:
        return value
    raise InvalidAst(
        f"attribute `{key}`: expected a boolean, an integer or a string, got {type_name(value)}"
    )


def inline_from_list(value: Any, what: str = "inline content") -> list[Inline]:
    if not isinstance(value, list):
        raise InvalidAst(f"{what}: expected an array of inline nodes, got {type_name(value)}")
    nodes = []
    for node in value:
        if not isinstance(node, dict):
            raise InvalidAst(f"{what}: expected an inline node object, got {type_name(node)}")
        kind = node.get("kind")
        text = node.get("text")
        if kind not in INLINE_KINDS:
            raise InvalidAst(
                f"{what}: unknown inline kind {json.dumps(kind)}, expected one of "
                "`text`, `bold`, `italic`, `code`, `ref`"
            )
        if not isinstance(text, str):
            raise InvalidAst(f"{what}: inline node needs a string `text`")
        nodes.append(Inline(kind, text))
    return nodes


def block_from_dict(obj: Any) -> Block:
    """A `Block` from its JSON object: `kind` and `content` required; unknown keys ignored."""
    if not isinstance(obj, dict):
        raise InvalidAst(f"expected a block object, got {type_name(obj)}")
    kind = obj.get("kind")
    if not isinstance(kind, str):
        raise InvalidAst("block needs a string `kind`")
    content = obj.get("content")
    if not isinstance(content, dict):
        raise InvalidAst("block needs a `content` object")
    ctype = content.get("type")
    if ctype not in CONTENT_TYPES:
        raise InvalidAst(
            f"unknown content type {json.dumps(ctype)}, expected one of "
            "`inline`, `items`, `fenced`, `empty`"
        )
    value: Any = None
    if ctype == INLINE:
        value = inline_from_list(content.get("value"))
    elif ctype == ITEMS:
        items = content.get("value")
        if not isinstance(items, list):
            raise InvalidAst("items content needs an array of items")
        value = [inline_from_list(item, "list item") for item in items]
    elif ctype == FENCED:
        value = content.get("value")
        if not isinstance(value, str):
            raise InvalidAst("fenced content needs a string `value`")
    attrs_in = obj.get("attrs", {})
    if attrs_in is None:
        attrs_in = {}
    if not isinstance(attrs_in, dict):
        raise InvalidAst("`attrs` must be an object")
    attrs = {key: attr_value_from_json(key, attrs_in[key]) for key in sorted(attrs_in)}
    block_id = obj.get("id")
    if block_id is not None and not isinstance(block_id, str):
        raise InvalidAst("`id` must be a string")
    block = Block(kind, ctype, value, attrs, block_id)
    span = obj.get("span")
    if isinstance(span, dict):
        start, end = span.get("start"), span.get("end")
        if isinstance(start, int) and isinstance(end, int):
            block.start, block.end = start, end
    return block


def document_from_dict(obj: Any) -> Document:
    if not isinstance(obj, dict) or not isinstance(obj.get("blocks"), list):
        raise InvalidAst("expected a document object with a `blocks` array")
    return Document([block_from_dict(b) for b in obj["blocks"]])
