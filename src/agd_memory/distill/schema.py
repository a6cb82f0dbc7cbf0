"""The distiller's answer: its JSON schema, the limits in it, and plain text out of it.

The schema is sent to `claude -p` (`--json-schema`), but nothing checks that the
answer keeps to it: the model, an older CLI or a fake may ignore it. So every
limit here is enforced again when the answer is read (`proposals.validate`,
`proposals.apply`), and the answer is made printable (`plain`) before anything
shows or logs it.
"""

from __future__ import annotations

import re

from ..store.rules import MAX_KEY_CHARS, MAX_KEYS

RESULT_FIELD = "proposals"
MAX_PROPOSALS = 3
KINDS = ("x-user", "x-feedback", "x-project", "x-reference")
ID_CHARS = 64
DESC_CHARS = 200
BODY_CHARS = 4000
MAX_SUPERSEDES = 3
STATUSES = ("", "open", "done")
SCOPES = ("project", "team", "global")


def list_answer(
    field: str, properties: dict[str, object], required: list[str], max_items: int | None = None
) -> dict[str, object]:
    """The schema of a headless answer: an object whose one field `field` is a list of
    objects with `properties` (`required` of them always there), at most `max_items`."""
    items: dict[str, object] = {"type": "array"}
    if max_items is not None:
        items["maxItems"] = max_items
    items["items"] = {
        "type": "object",
        "additionalProperties": False,
        "required": required,
        "properties": properties,
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [field],
        "properties": {field: items},
    }


SCHEMA = list_answer(
    RESULT_FIELD,
    {
        "kind": {"type": "string", "enum": list(KINDS)},
        "id": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_-]*$", "maxLength": ID_CHARS},
        "desc": {"type": "string", "maxLength": DESC_CHARS},
        "body": {"type": "string", "maxLength": BODY_CHARS},
        "status": {"type": "string", "enum": list(STATUSES)},
        "supersedes": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_SUPERSEDES},
        "scope": {"type": "string", "enum": list(SCOPES)},
        "keys": {
            "type": "array",
            "items": {"type": "string", "maxLength": MAX_KEY_CHARS},
            "maxItems": MAX_KEYS,
        },
    },
    ["kind", "id", "desc", "body"],
    MAX_PROPOSALS,
)
"""The distiller's answer, sent as `--json-schema`."""

_SURROGATE = re.compile("[\ud800-\udfff]")
PLAIN_DEPTH = 4
"""Levels of the answer kept by `plain` (a proposal is two: the object and its lists)."""


def text(value: str) -> str:
    """`value` with every lone surrogate (`"\\ud800"` in JSON) replaced by U+FFFD, so it
    can be printed, logged and written as UTF-8."""
    return _SURROGATE.sub("\ufffd", value)


def field_text(raw: dict, name: str) -> str:
    """A text field of a model's answer ("" when absent); anything but a string is refused."""
    from ..errors import UserError

    value = raw.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise UserError(f"the answer's `{name}` is a {type(value).__name__}, not text")
    return text(value)


def plain(value: object, depth: int = PLAIN_DEPTH) -> object:
    """A copy of JSON data that is safe to print: text made valid (`text`), nesting cut
    at `depth` levels (`"…"` stands for what is deeper)."""
    if isinstance(value, str):
        return text(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if depth <= 0:
        return "…"
    if isinstance(value, dict):
        return {text(str(k)): plain(v, depth - 1) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v, depth - 1) for v in value]
    return text(str(value))
