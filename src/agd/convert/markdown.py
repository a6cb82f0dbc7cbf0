"""AGD -> Markdown (reference §3.5 `to-md`): blocks joined by one blank line, ids dropped.

No Markdown escaping is applied, as in the reference: AGD text is written as is.
"""

from __future__ import annotations

from ..model import FENCED, INLINE, ITEMS, AttrValue, Block, Document, Inline

__all__ = ["to_markdown", "block_markdown", "inline_markdown"]

# fenced blocks whose body already is Markdown (or HTML, which Markdown passes through)
VERBATIM = {"raw": ("html", "markdown"), "table": ("markdown",)}
MARKS = {"text": ("", ""), "bold": ("**", "**"), "italic": ("*", "*"), "code": ("`", "`")}


def raw_value(value: AttrValue) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def inline_markdown(nodes: list[Inline]) -> str:
    out = []
    for kind, text in nodes:
        if kind == "ref":
            out.append(f"[#{text}](#{text})")
        else:
            left, right = MARKS.get(kind, ("", ""))
            out.append(left + text + right)
    return "".join(out)


def list_markdown(items: list[list[Inline]], *, ordered: bool) -> str:
    """List items; an item whose text starts with 2k spaces is nested k levels deep.

    That is how `from_markdown` flattens nested lists, so they come back nested.
    """
    lines = []
    number = 0
    for item in items:
        depth = 0
        if item and item[0].kind == "text" and item[0].text.startswith("  "):
            spaces = len(item[0].text) - len(item[0].text.lstrip(" "))
            depth = spaces // 2
            item = [Inline("text", item[0].text[depth * 2 :]), *item[1:]]
        if depth:
            lines.append("    " * depth + "- " + inline_markdown(item))
        elif ordered:
            number += 1
            lines.append(f"{number}. {inline_markdown(item)}")
        else:
            lines.append("- " + inline_markdown(item))
    return "\n".join(lines)


def fence(info: str, body: str, *, newline_always: bool = False) -> str:
    if newline_always or (body and not body.endswith("\n")):
        body += "\n"
    return f"```{info}\n{body}```"


def block_markdown(block: Block) -> str | None:
    """One block as Markdown without a final newline; None when it renders to nothing."""
    kind = block.kind
    value = block.value
    attrs = block.attrs
    if kind == "meta":
        return "<!-- " + "".join(f"{k}={raw_value(attrs[k])} " for k in sorted(attrs)) + "-->"
    if kind == "include":
        return (
            "<!-- include " + "".join(f"{k}={raw_value(attrs[k])} " for k in sorted(attrs)) + "-->"
        )
    if kind == "!":
        return f"<!-- {inline_markdown(value or [])} -->"  # type: ignore[arg-type]
    if kind in ("h1", "h2", "h3", "h4"):
        return "#" * int(kind[1]) + " " + inline_markdown(value or [])  # type: ignore[arg-type]
    if kind == "ref" and block.content_type == INLINE:
        return inline_markdown(value or [])  # type: ignore[arg-type]
    if block.content_type == ITEMS:
        items = value or []
        if kind == "quote":
            return "\n".join("> " + inline_markdown(item) for item in items)  # type: ignore[union-attr]
        return list_markdown(items, ordered=kind == "ol")  # type: ignore[arg-type]
    if block.content_type == FENCED and attrs.get("type") in VERBATIM.get(kind, ()):
        return value.rstrip("\n")  # type: ignore[union-attr]
    if kind.startswith("x-"):
        return fence(kind, value if block.content_type == FENCED else "", newline_always=True)  # type: ignore[arg-type]
    if block.content_type == FENCED:
        lang = attrs.get("lang")
        return fence(lang if isinstance(lang, str) else "", value)  # type: ignore[arg-type]
    if block.content_type == INLINE:
        return inline_markdown(value or [])  # type: ignore[arg-type]
    return None


def to_markdown(doc: Document) -> str:
    """The Markdown rendering of `doc`, ending with LF (empty for an empty document)."""
    parts = [md for md in map(block_markdown, doc.blocks) if md is not None]
    return "\n\n".join(parts) + "\n" if parts else ""
