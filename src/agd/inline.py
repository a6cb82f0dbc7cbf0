"""The inline grammar of AGD (reference §1.7): bold, italic and code runs in plain text."""

from __future__ import annotations

from .model import Inline

__all__ = ["parse_inline", "DELIMITERS"]

DELIMITERS = {"*": "bold", "_": "italic", "`": "code"}


def parse_inline(text: str) -> list[Inline]:
    """Inline nodes of `text`: `*bold*`, `_italic_`, `` `code` ``, the rest plain text.

    A delimiter opens a run closed by the next occurrence of the same character;
    with no closer it is plain text. No nesting, no escapes, no inline refs.
    """
    if "*" not in text and "_" not in text and "`" not in text:
        return [Inline("text", text)] if text else []
    nodes: list[Inline] = []
    pending = 0  # start of plain text not yet emitted
    pos = 0
    n = len(text)
    while pos < n:
        # the nearest delimiter at or after pos
        best = -1
        for delim in DELIMITERS:
            k = text.find(delim, pos)
            if k >= 0 and (best < 0 or k < best):
                best = k
        if best < 0:
            break
        delim = text[best]
        close = text.find(delim, best + 1)
        if close < 0:
            # an unmatched opener is plain text; later delimiters may still open runs
            pos = best + 1
            continue
        if best > pending:
            nodes.append(Inline("text", text[pending:best]))
        nodes.append(Inline(DELIMITERS[delim], text[best + 1 : close]))
        pos = pending = close + 1
    if pending < n:
        nodes.append(Inline("text", text[pending:]))
    return nodes


def merge_text(nodes: list[Inline]) -> list[Inline]:
    """Adjacent text runs joined, empty ones dropped; other nodes kept as they are.
    Accepts plain `(kind, text)` pairs (an edit op's JSON) as well as `Inline`s."""
    out: list[Inline] = []
    for node in map(Inline._make, nodes):
        if node.kind == "text":
            if not node.text:
                continue
            if out and out[-1].kind == "text":
                out[-1] = Inline("text", out[-1].text + node.text)
                continue
        out.append(node)
    return out
