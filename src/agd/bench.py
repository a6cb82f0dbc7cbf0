"""`agd bench`: tokens of one document as AGD, Markdown, HTML and JSON (reference §3.6)."""

from __future__ import annotations

import json

from . import tokens
from .convert import to_html, to_markdown
from .jsonast import document_to_dict
from .parser import parse
from .serializer import serialize

__all__ = ["report", "counts"]


def counts(text: str) -> dict[str, int]:
    """Token counts of the canonical AGD, its Markdown, HTML and compact JSON (spans included)."""
    doc = parse(text)
    as_json = json.dumps(document_to_dict(doc), ensure_ascii=False, separators=(",", ":"))
    return {
        "AGD": tokens.count(serialize(doc)),
        "Markdown": tokens.count(to_markdown(doc)),
        "HTML": tokens.count(to_html(doc)),
        "JSON": tokens.count(as_json),
    }


def relative(n: int, base: int) -> str:
    pct = 0.0 if base == 0 else (n - base) * 100.0 / base
    return f"{pct:+.1f}%"


def report(path: str, text: str) -> str:
    """The six lines `agd bench` prints; line 2 names the encoding or says it is an estimate."""
    c = counts(text)
    agd = c["AGD"]
    return (
        f"file:     {path}\n"
        f"encoding: {tokens.encoding_name()}\n"
        f"AGD:      {agd} tokens\n"
        f"Markdown: {c['Markdown']} tokens  ({relative(c['Markdown'], agd)} vs AGD)\n"
        f"HTML:     {c['HTML']} tokens  ({relative(c['HTML'], agd)} vs AGD)\n"
        f"JSON:     {c['JSON']} tokens  ({relative(c['JSON'], agd)} vs AGD)\n"
    )
