"""Blocks back to AGD text, for the injected context and for measuring the budget.

Renderers never compute: they take entries already chosen and write them out.
"""

from __future__ import annotations

import re
from typing import Any

FENCE = "~~~"
_BARE_VALUE = re.compile(r"[A-Za-z0-9_-]+")
# attributes shown first, in this order; the rest follow sorted
_LEADING = ("desc", "refs", "supersedes", "status", "created", "updated")


def _quote(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    if isinstance(value, int) or _BARE_VALUE.fullmatch(text) and not text[:1].isdigit():
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attrs_of(entry: Any) -> dict[str, object]:
    attrs = dict(getattr(entry, "attrs", None) or {})
    if not attrs:
        for key in ("desc", "status", "created", "updated"):
            value = getattr(entry, key, None)
            if value:
                attrs[key] = value
        for key in ("refs", "supersedes"):
            ids = getattr(entry, key, None) or ()
            if ids:
                attrs[key] = ",".join(f"#{i}" for i in ids)
    return attrs


def block_text(entry: Any) -> str:
    """The block as AGD text: the start line with every attribute, then the fenced body."""
    attrs = _attrs_of(entry)
    keys = [k for k in _LEADING if k in attrs] + sorted(k for k in attrs if k not in _LEADING)
    head = "@" + str(entry.kind)
    kind = str(entry.kind)
    body = getattr(entry, "body", None) or ""
    if kind in ("h1", "h2", "h3", "h4", "p") and "\n" not in body:
        # headings and paragraphs carry their text on the start line
        return f"{head} {body} [#{entry.id}]\n".replace("  [", " [")
    parts = [head] + [f"{k}={_quote(attrs[k])}" for k in keys] + [f"[#{entry.id}]"]
    return " ".join(parts) + f"\n{FENCE}\n{body}\n{FENCE}\n"


def reference_text(entry: Any) -> str:
    """The reference's internal rendering, which its budget measures: kind, desc, refs, id."""
    head = "@" + str(entry.kind)
    desc = getattr(entry, "desc", None)
    if desc:
        head += ' desc="' + str(desc).replace("\\", "\\\\").replace('"', '\\"') + '"'
    refs = getattr(entry, "refs", None) or ()
    if refs:
        head += ' refs="' + ",".join(f"#{r}" for r in refs) + '"'
    body = getattr(entry, "body", None) or ""
    return f"{head} [#{entry.id}]\n{FENCE}\n{body}\n{FENCE}\n"


HEADER_PREFIX = "[agd-memory:auto-recall]"


def header(ids: list[str]) -> str:
    """`[agd-memory:auto-recall] 2 blocks matched this prompt (#a, #b); ...`"""
    n = len(ids)
    noun = "block" if n == 1 else "blocks"
    listed = ", ".join(f"#{i}" for i in ids)
    return (
        f"{HEADER_PREFIX} {n} {noun} matched this prompt ({listed}); "
        "search the memory with agd_memory_search for more"
    )
