"""The edit operation algebra (reference §3.8): ops, their JSON form, validation, `apply`.

An op never leaves a document half-changed: `apply` validates first and
returns a new `Document` (blocks not touched are shared, a changed block is a
copy), so the input stays as it was when an `InvalidEdit` is raised.

Beyond the reference's checks, a block must have the content shape its tag
can be written with (a `p` holds inline text and no attributes, `code` a
fenced body, …), and must read back as itself once serialised. Anything the
line syntax cannot represent is refused up front instead of being written
lossily. `@ref` blocks (one `ref` node) are allowed, which the reference
refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .errors import DuplicateId, IdNotFound, InvalidAst, InvalidEdit
from .graph import strip_hash
from .inline import DELIMITERS, merge_text
from .jsonast import INLINE_KINDS, attr_value_from_json, block_from_dict, block_to_dict
from .lines import I64_MAX, I64_MIN, is_identifier
from .model import BUILTIN_TAGS, EMPTY, FENCED, INLINE, ITEMS, AttrValue, Block, Document, Inline

__all__ = [
    "Replace",
    "InsertAfter",
    "InsertBefore",
    "Delete",
    "SetAttr",
    "RemoveAttr",
    "Op",
    "apply",
    "op_from_json",
    "op_to_json",
    "parse_op",
    "validate_block",
]

RUN_DELIMITER = {kind: delim for delim, kind in DELIMITERS.items()}
# tag -> content types it can be written with; x-* blocks take fenced or empty
SHAPES: dict[str, tuple[str, ...]] = {
    "h1": (INLINE,),
    "h2": (INLINE,),
    "h3": (INLINE,),
    "h4": (INLINE,),
    "p": (INLINE,),
    "ref": (INLINE,),
    "!": (INLINE,),
    "meta": (EMPTY,),
    "include": (EMPTY,),
    "ul": (ITEMS,),
    "ol": (ITEMS,),
    "quote": (ITEMS,),
    "code": (FENCED,),
    "raw": (FENCED,),
    "table": (FENCED,),
}


@dataclass(frozen=True)
class Replace:
    id: str
    block: Block


@dataclass(frozen=True)
class InsertAfter:
    id: str
    block: Block


@dataclass(frozen=True)
class InsertBefore:
    id: str
    block: Block


@dataclass(frozen=True)
class Delete:
    id: str


@dataclass(frozen=True)
class SetAttr:
    id: str
    key: str
    value: AttrValue


@dataclass(frozen=True)
class RemoveAttr:
    id: str
    key: str


Op = Replace | InsertAfter | InsertBefore | Delete | SetAttr | RemoveAttr
OP_NAMES = ("replace", "insert_after", "insert_before", "delete", "set_attr", "remove_attr")


# --- validation ---------------------------------------------------------------------------


def check_tag(kind: str) -> None:
    if kind in BUILTIN_TAGS or (kind.startswith("x-") and is_identifier(kind[2:])):
        return
    raise InvalidEdit(f"block tag `{kind}`: must be a builtin or `x-` plus an identifier")


def check_attr(key: str, value: AttrValue) -> None:
    if not is_identifier(key):
        raise InvalidEdit(f"attribute key `{key}`: must match [a-zA-Z_][a-zA-Z0-9_-]*")
    if isinstance(value, str) and "\n" in value:
        raise InvalidEdit(
            f"attribute `{key}` value contains a newline, which the line-oriented "
            "attribute syntax cannot represent"
        )


def check_nodes(nodes: list[Inline], what: str, *, allow_ref: bool = False) -> None:
    for kind, text in nodes:
        if "\n" in text or "\r" in text:
            raise InvalidEdit(f"{what} contains a newline")
        delim = RUN_DELIMITER.get(kind)
        if delim is not None and delim in text:
            raise InvalidEdit(
                f"{what}: a styled run cannot contain its own delimiter "
                "(`*`, `_` or backtick) — v0.1 has no escapes"
            )
        if kind == "ref" and not allow_ref:
            raise InvalidEdit(
                f"{what}: inline references are not part of the v0.1 inline grammar "
                "— use a block-level `@ref #id`"
            )


def normalise(block: Block) -> Block:
    """Adjacent text nodes merged and empty ones dropped, as a parse would give them back."""
    if block.content_type == INLINE and block.kind != "!":
        return block.copy(value=merge_text(block.value or []))  # type: ignore[arg-type]
    if block.content_type == ITEMS:
        return block.copy(value=[merge_text(item) for item in block.value or []])  # type: ignore[union-attr]
    return block


def check_types(block: Block) -> None:
    """Python-built blocks get the same type checks JSON input gets in `jsonast`."""
    if not isinstance(block.kind, str) or not isinstance(block.attrs, dict):
        raise InvalidEdit("a block needs a string kind and a dict of attributes")
    if block.id is not None and not isinstance(block.id, str):
        raise InvalidEdit("a block id must be a string")
    for key, value in block.attrs.items():
        if not isinstance(key, str) or not isinstance(value, (bool, int, str)):
            raise InvalidEdit(f"attribute {key!r}: values are booleans, integers or strings")
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and not I64_MIN <= value <= I64_MAX
        ):
            raise InvalidEdit(f"attribute `{key}`: integer out of the 64-bit range")
    ctype, value = block.content_type, block.value
    if ctype == INLINE:
        ok = isinstance(value, list) and all(is_node(n) for n in value)
    elif ctype == ITEMS:
        ok = isinstance(value, list) and all(
            isinstance(item, list) and all(is_node(n) for n in item) for item in value
        )
    elif ctype == FENCED:
        ok = isinstance(value, str)
    elif ctype == EMPTY:
        ok = value is None
    else:
        raise InvalidEdit(f"unknown content type `{ctype}`")
    if not ok:
        raise InvalidEdit(f"the value does not fit {ctype} content")


def is_node(node: object) -> bool:
    return (
        isinstance(node, tuple)
        and len(node) == 2
        and node[0] in INLINE_KINDS
        and isinstance(node[1], str)
    )


def validate_block(block: Block) -> Block:
    """The block, normalised, if the line syntax can hold it; else `InvalidEdit` saying why."""
    check_types(block)
    kind = block.kind
    check_tag(kind)
    if block.id is not None and not is_identifier(block.id):
        raise InvalidEdit(f"id `{block.id}`: must match [a-zA-Z_][a-zA-Z0-9_-]*")
    for key, value in block.attrs.items():
        check_attr(key, value)
    allowed = SHAPES.get(kind, (FENCED, EMPTY))
    if block.content_type not in allowed:
        raise InvalidEdit(
            f"a `{kind}` block holds {' or '.join(allowed)} content, not {block.content_type}"
        )
    if block.content_type == INLINE:
        nodes: list[Inline] = block.value or []  # type: ignore[assignment]
        if kind == "ref":
            if len(nodes) != 1 or nodes[0].kind != "ref" or not is_identifier(nodes[0].text):
                raise InvalidEdit("a `ref` block holds exactly one ref node naming a valid id")
        elif kind == "!":
            if len(nodes) != 1 or nodes[0].kind != "text":
                raise InvalidEdit("a comment holds exactly one text node")
            if block.id is not None:
                raise InvalidEdit("a comment cannot carry an id")
        check_nodes(nodes, "inline content", allow_ref=kind == "ref")
        if block.attrs:
            raise InvalidEdit(
                f"a `{kind}` block cannot carry attributes: its start line holds "
                "text, so they would read back as text"
            )
    elif block.content_type == ITEMS:
        for item in block.value or []:  # type: ignore[union-attr]
            check_nodes(item, "list item")
    block = normalise(block)
    check_round_trip(block)
    return block


def check_round_trip(block: Block) -> None:
    """Refuse a block whose canonical text would parse to something else (`a*b*c` as text)."""
    from .parser import parse
    from .serializer import serialize_block

    text = serialize_block(block)
    try:
        back = parse(text).blocks
    except Exception as err:  # any parse failure means the text cannot hold the block
        raise InvalidEdit(f"the block would not parse back once written: {err}") from None
    if len(back) != 1 or back[0] != block:
        raise InvalidEdit(
            "the block would read back differently once written (content the v0.1 "
            f"syntax cannot represent): {text.splitlines()[0] if text else ''}"
        )


# --- apply --------------------------------------------------------------------------------


def position(doc: Document, block_id: str) -> int:
    for i, block in enumerate(doc.blocks):
        if block.id == block_id:
            return i
    raise IdNotFound(block_id)


def check_unique(doc: Document, block_id: str | None, *, skip: int = -1) -> None:
    if block_id is None:
        return
    for i, other in enumerate(doc.blocks):
        if i != skip and other.id == block_id:
            raise DuplicateId(block_id, first=other.line, line=0)


def apply(doc: Document, op: Op) -> Document:
    """A new document with `op` applied; `doc` itself is never changed."""
    blocks = list(doc.blocks)
    if isinstance(op, Replace):
        new = op.block if op.block.id is not None else op.block.copy(id=op.id)
        new = validate_block(new)
        i = position(doc, op.id)
        if new.id != op.id:
            check_unique(doc, new.id, skip=i)
        blocks[i] = new
    elif isinstance(op, (InsertAfter, InsertBefore)):
        new = validate_block(op.block)
        i = position(doc, op.id)
        check_unique(doc, new.id)
        blocks.insert(i + 1 if isinstance(op, InsertAfter) else i, new)
    elif isinstance(op, Delete):
        del blocks[position(doc, op.id)]
    elif isinstance(op, SetAttr):
        check_attr(op.key, op.value)
        i = position(doc, op.id)
        old = blocks[i]
        new = old.copy(attrs={**old.attrs, op.key: op.value})
        blocks[i] = validate_block(new)
    elif isinstance(op, RemoveAttr):
        i = position(doc, op.id)
        old = blocks[i]
        if op.key in old.attrs:
            blocks[i] = old.copy(attrs={k: v for k, v in old.attrs.items() if k != op.key})
    else:  # pragma: no cover - the Op union is closed
        raise InvalidEdit(f"unknown operation {op!r}")
    return Document(blocks)


# --- JSON form ----------------------------------------------------------------------------


def field(obj: dict[str, Any], name: str, kind: type = str) -> Any:
    if name not in obj:
        raise InvalidAst(f"missing field `{name}`")
    value = obj[name]
    if kind is str and not isinstance(value, str):
        raise InvalidAst(f"field `{name}` must be a string")
    return value


def op_id(obj: dict[str, Any]) -> str:
    return strip_hash(field(obj, "id"))


def op_from_json(obj: Any) -> Op:
    """An op from its JSON object, e.g. `{"op": "delete", "id": "x"}`; `InvalidAst` if malformed."""
    if not isinstance(obj, dict):
        raise InvalidAst("expected an operation object")
    name = obj.get("op")
    if name is None:
        raise InvalidAst("missing field `op`")
    if name not in OP_NAMES:
        expected = ", ".join(f"`{n}`" for n in OP_NAMES)
        raise InvalidAst(f"unknown variant `{name}`, expected one of {expected}")
    if name == "replace":
        return Replace(op_id(obj), block_from_dict(field(obj, "with", dict)))
    if name == "insert_after":
        return InsertAfter(op_id(obj), block_from_dict(field(obj, "block", dict)))
    if name == "insert_before":
        return InsertBefore(op_id(obj), block_from_dict(field(obj, "block", dict)))
    if name == "delete":
        return Delete(op_id(obj))
    if name == "set_attr":
        key = field(obj, "key")
        return SetAttr(op_id(obj), key, attr_value_from_json(key, field(obj, "value", object)))
    return RemoveAttr(op_id(obj), field(obj, "key"))


def parse_op(text: str) -> Op:
    """An op from JSON text; `InvalidAst` (JSON syntax errors included) if malformed."""
    try:
        obj = json.loads(text)
    except ValueError as err:
        raise InvalidAst(str(err)) from None
    return op_from_json(obj)


def op_to_json(op: Op) -> dict[str, Any]:
    """The JSON object of an op (block spans left out)."""
    if isinstance(op, Replace):
        return {"op": "replace", "id": op.id, "with": block_to_dict(op.block, spans=False)}
    if isinstance(op, InsertAfter):
        return {"op": "insert_after", "id": op.id, "block": block_to_dict(op.block, spans=False)}
    if isinstance(op, InsertBefore):
        return {"op": "insert_before", "id": op.id, "block": block_to_dict(op.block, spans=False)}
    if isinstance(op, Delete):
        return {"op": "delete", "id": op.id}
    if isinstance(op, SetAttr):
        return {"op": "set_attr", "id": op.id, "key": op.key, "value": op.value}
    return {"op": "remove_attr", "id": op.id, "key": op.key}
