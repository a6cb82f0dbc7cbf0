"""AGD -> HTML fragment (reference §3.5 `to-html`): one element per block, each ending with LF."""

from __future__ import annotations

from ..model import FENCED, INLINE, ITEMS, Block, Document, Inline

__all__ = ["to_html", "block_html", "escape_text", "escape_attr"]

TAGS = {"bold": "strong", "italic": "em", "code": "code"}


def escape_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;")


def inline_html(nodes: list[Inline]) -> str:
    out = []
    for kind, text in nodes:
        if kind == "ref":
            out.append(f'<a href="#{escape_attr(text)}">#{escape_text(text)}</a>')
        elif kind in TAGS:
            tag = TAGS[kind]
            out.append(f"<{tag}>{escape_text(text)}</{tag}>")
        else:
            out.append(escape_text(text))
    return "".join(out)


def block_html(block: Block) -> str:
    """One block as HTML, ending with LF; `""` for blocks that render to nothing (meta)."""
    kind = block.kind
    value = block.value
    ident = f' id="{escape_attr(block.id)}"' if block.id is not None else ""
    if kind in ("meta", "include"):
        return ""
    if kind == "!":
        return f"<!-- {inline_html(value or [])} -->\n"  # type: ignore[arg-type]
    if kind in ("h1", "h2", "h3", "h4"):
        return f"<{kind}{ident}>{inline_html(value or [])}</{kind}>\n"  # type: ignore[arg-type]
    if kind == "ref" and block.content_type == INLINE:
        return f"<p{ident}>{inline_html(value or [])}</p>\n"  # type: ignore[arg-type]
    if block.content_type == ITEMS:
        items = value or []
        if kind == "quote":
            lines = "".join(f"  <p>{inline_html(item)}</p>\n" for item in items)  # type: ignore[union-attr]
            return f"<blockquote{ident}>\n{lines}</blockquote>\n"
        tag = "ol" if kind == "ol" else "ul"
        lines = "".join(f"  <li>{inline_html(item)}</li>\n" for item in items)  # type: ignore[union-attr]
        return f"<{tag}{ident}>\n{lines}</{tag}>\n"
    body = escape_text(value) if block.content_type == FENCED else ""  # type: ignore[arg-type]
    if kind.startswith("x-"):
        return f'<div{ident} data-agd-tag="{escape_attr(kind)}">{body}</div>\n'
    if kind == "code":
        lang = block.attrs.get("lang")
        cls = f' class="language-{escape_attr(lang)}"' if isinstance(lang, str) and lang else ""
        return f"<pre{ident}><code{cls}>{body}</code></pre>\n"
    if block.content_type == FENCED:
        return f"<pre{ident}>{body}</pre>\n"
    if block.content_type == INLINE:
        return f"<p{ident}>{inline_html(value or [])}</p>\n"  # type: ignore[arg-type]
    return ""


def to_html(doc: Document) -> str:
    """The HTML fragment of `doc`: elements back to back, no wrapper, no separators."""
    return "".join(map(block_html, doc.blocks))
