"""Markdown -> AGD with markdown-it-py (CommonMark plus GFM tables and strikethrough).

Mapping (docs/FORMAT.md lists it with the deviations from the reference):
headings -> `@h1`..`@h4` (deeper levels become `@h4`); paragraphs -> `@p`, line
breaks as spaces; fenced and indented code -> `@code` (`lang=` from the info
string's first word, when there is one); lists -> `@ul`/`@ol`, nested items
flattened into the outer list with two spaces of indentation per level;
quotes -> `@quote`, one line per paragraph with an empty line between
paragraphs; tables -> `@table type=markdown` holding the table as Markdown;
HTML blocks -> `@raw type=html`. Emphasis, strong and inline code become
italic, bold and code runs; links and images keep their text; inline HTML
stays as text; thematic breaks are dropped. A block that the AGD line syntax
cannot hold (a paragraph ending in `[#…]`) is kept verbatim as
`@raw type=markdown`. No ids are assigned.
"""

from __future__ import annotations

from typing import Any

from ..errors import AgdError, MissingDependency
from ..inline import merge_text
from ..model import FENCED, INLINE, ITEMS, Block, Document, Inline
from ..parser import parse
from ..serializer import serialize, serialize_block
from .markdown import inline_markdown

__all__ = ["from_markdown"]

LIST_OPEN = ("bullet_list_open", "ordered_list_open")
LIST_CLOSE = ("bullet_list_close", "ordered_list_close")
RUNS = {"em_open": "italic", "strong_open": "bold"}
RUN_CLOSE = ("em_close", "strong_close")


def markdown_parser() -> Any:
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        raise MissingDependency(
            "convert from-md needs markdown-it-py: pip install markdown-it-py"
        ) from None
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def inline_nodes(token: Any) -> list[Inline]:
    """AGD inline nodes of a markdown-it `inline` token; nested runs flatten into the outer one."""
    nodes: list[Inline] = []
    run_kind: str | None = None
    run_depth = 0
    run_text: list[str] = []

    def emit(kind: str, text: str) -> None:
        if run_depth:
            run_text.append(text)
        else:
            nodes.append(Inline(kind, text))

    for child in token.children or []:
        t = child.type
        if t in RUNS:
            if run_depth == 0:
                run_kind = RUNS[t]
                run_text = []
            run_depth += 1
        elif t in RUN_CLOSE:
            run_depth -= 1
            if run_depth == 0 and run_kind is not None:
                nodes.append(Inline(run_kind, "".join(run_text)))
                run_kind = None
        elif t == "text":
            emit("text", child.content)
        elif t in ("softbreak", "hardbreak"):
            emit("text", " ")
        elif t == "code_inline":
            emit("code", child.content)
        elif t == "html_inline":
            emit("text", child.content.replace("\n", " "))
        elif t == "image":
            emit("text", child.content)
        # link_open/link_close, s_open/s_close: markup dropped, their text is kept
    nodes = merge_text(nodes)
    if nodes and nodes[-1].kind == "text":
        # a trailing break or space would survive in AGD but not in Markdown
        text = nodes[-1].text.rstrip()
        nodes[-1] = Inline("text", text)
        if not text:
            nodes.pop()
    return nodes


def code_block(tok: Any) -> Block:
    """`@code` for fenced and indented code (`lang` from the info string), `@raw` for HTML."""
    if tok.type == "html_block":
        return Block("raw", FENCED, tok.content.rstrip(), {"type": "html"})
    body = tok.content[:-1] if tok.content.endswith("\n") else tok.content
    info = tok.info.strip().split()[0] if tok.info and tok.info.strip() else ""
    return Block("code", FENCED, body, {"lang": info} if info else {})


class Reader:
    """Walks the markdown-it token stream once and builds AGD blocks."""

    def __init__(self, tokens: list[Any], source: list[str]) -> None:
        self.tokens = tokens
        self.source = source

    def close_of(self, i: int) -> int:
        """Index of the token closing the container opened at `i`."""
        tok = self.tokens[i]
        want = tok.type[: -len("_open")] + "_close"
        for j in range(i + 1, len(self.tokens)):
            other = self.tokens[j]
            if other.type == want and other.level == tok.level:
                return j
        return len(self.tokens) - 1

    def run(self) -> list[Block]:
        blocks: list[Block] = []
        i = 0
        n = len(self.tokens)
        while i < n:
            tok = self.tokens[i]
            handler = HANDLERS.get(tok.type)
            if handler is None:
                i += 1
                continue
            made, i = handler(self, i)
            blocks.extend(self.checked(block, tok) for block in made)
        return blocks

    def checked(self, block: Block, tok: Any) -> Block:
        """The block, or its Markdown source as `@raw type=markdown` if AGD cannot hold it."""
        text = serialize_block(block)
        try:
            back = parse(text).blocks
        except AgdError:
            back = []
        # the written text must read back to itself without growing an id (text ending
        # in `[#x]`); delimiter pairs in plain text (`snake_case_name`) pass, since they
        # are written and read the same way
        if len(back) == 1 and back[0].id == block.id and serialize_block(back[0]) == text:
            return block
        first, last = tok.map if tok.map else (0, len(self.source))
        body = "\n".join(self.source[first:last]).rstrip("\n")
        return Block("raw", FENCED, body, {"type": "markdown"})

    # one handler per top-level token type

    def heading(self, i: int) -> tuple[list[Block], int]:
        level = min(int(self.tokens[i].tag[1]), 4)
        block = Block(f"h{level}", INLINE, inline_nodes(self.tokens[i + 1]))
        return [block], self.close_of(i) + 1

    def paragraph(self, i: int) -> tuple[list[Block], int]:
        return [Block("p", INLINE, inline_nodes(self.tokens[i + 1]))], self.close_of(i) + 1

    def code(self, i: int) -> tuple[list[Block], int]:
        return [code_block(self.tokens[i])], i + 1

    def skip(self, i: int) -> tuple[list[Block], int]:
        return [], i + 1

    def lists(self, i: int) -> tuple[list[Block], int]:
        """A list; a code or HTML block inside an item splits it around an `@code`/`@raw`."""
        close = self.close_of(i)
        kind = "ol" if self.tokens[i].type == "ordered_list_open" else "ul"
        out: list[Block] = []
        items: list[list[Inline]] = []
        stack: list[list[Inline] | None] = []  # the open items, innermost last
        depth = 0
        for j in range(i + 1, close):
            tok = self.tokens[j]
            t = tok.type
            if t in LIST_OPEN:
                depth += 1
            elif t in LIST_CLOSE:
                depth -= 1
            elif t == "list_item_open":
                item: list[Inline] = [Inline("text", "  " * depth)] if depth else []
                items.append(item)
                stack.append(item)
            elif t == "list_item_close":
                stack.pop()
            elif t == "inline" and stack:
                current = stack[-1]
                if current is None:
                    # the item goes on after a code block: continue it as a new item
                    current = [Inline("text", "  " * (len(stack) - 1))] if len(stack) > 1 else []
                    items.append(current)
                    stack[-1] = current
                elif any(node.kind != "text" or node.text.strip() for node in current):
                    current.append(Inline("text", " "))  # a second paragraph of the item
                current.extend(inline_nodes(tok))
            elif t in ("fence", "code_block", "html_block"):
                if items:
                    out.append(Block(kind, ITEMS, [merge_text(item) for item in items]))
                out.append(code_block(tok))
                items = []
                stack = [None] * len(stack)
        if items or not out:
            out.append(Block(kind, ITEMS, [merge_text(item) for item in items]))
        return out, close + 1

    def quote(self, i: int) -> tuple[list[Block], int]:
        close = self.close_of(i)
        lines: list[list[Inline]] = []
        quotes = 0  # nested quote depth inside this one
        lists = 0
        first_in_item = False
        for j in range(i + 1, close):
            tok = self.tokens[j]
            t = tok.type
            if t == "blockquote_open":
                quotes += 1
            elif t == "blockquote_close":
                quotes -= 1
            elif t in LIST_OPEN:
                lists += 1
            elif t in LIST_CLOSE:
                lists -= 1
            elif t == "list_item_open":
                first_in_item = True
            elif t == "paragraph_open" and not lists and quotes == 0 and lines:
                lines.append([])  # paragraphs of the quote stay apart
            elif t == "inline":
                prefix = "> " * quotes
                if lists:
                    prefix += "  " * (lists - 1) + ("- " if first_in_item else "  ")
                    first_in_item = False
                lines.append(merge_text([Inline("text", prefix), *inline_nodes(tok)]))
            elif t in ("fence", "code_block", "html_block"):
                for line in tok.content.rstrip("\n").split("\n"):
                    lines.append(merge_text([Inline("text", "> " * quotes + line)]))
        return [Block("quote", ITEMS, lines)], close + 1

    def table(self, i: int) -> tuple[list[Block], int]:
        close = self.close_of(i)
        rows: list[list[str]] = []
        aligns: list[str] = []
        header_rows = 0
        row: list[str] = []
        for j in range(i + 1, close):
            tok = self.tokens[j]
            t = tok.type
            if t == "tr_open":
                row = []
            elif t == "tr_close":
                rows.append(row)
            elif t == "thead_close":
                header_rows = len(rows)
            elif t == "th_open":
                style = tok.attrGet("style") or ""
                aligns.append(
                    ":---:"
                    if "center" in style
                    else ":---"
                    if "left" in style
                    else "---:"
                    if "right" in style
                    else "---"
                )
            elif t == "inline":
                row.append(inline_markdown(inline_nodes(tok)).replace("|", "\\|"))
        out = []
        for n, cells in enumerate(rows):
            out.append("| " + " | ".join(cells) + " |")
            if n + 1 == header_rows:
                out.append("| " + " | ".join(aligns) + " |")
        return [Block("table", FENCED, "\n".join(out), {"type": "markdown"})], close + 1


HANDLERS = {
    "heading_open": Reader.heading,
    "paragraph_open": Reader.paragraph,
    "fence": Reader.code,
    "code_block": Reader.code,
    "html_block": Reader.code,
    "bullet_list_open": Reader.lists,
    "ordered_list_open": Reader.lists,
    "blockquote_open": Reader.quote,
    "table_open": Reader.table,
    "hr": Reader.skip,
}


def from_markdown(text: str) -> str:
    """Markdown text -> canonical AGD text (CRLF and a BOM are normalised first)."""
    from ..parser import normalise

    text = normalise(text)
    tokens = markdown_parser().parse(text)
    return serialize(Document(Reader(tokens, text.split("\n")).run()))
