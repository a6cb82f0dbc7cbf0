"""Conversions: AGD to Markdown and HTML (standard library), Markdown to AGD (markdown-it-py).

`from_markdown` imports markdown-it-py only when called; without it, it raises
`MissingDependency` with the install command.
"""

from __future__ import annotations

from .html import to_html
from .markdown import to_markdown

__all__ = ["to_markdown", "to_html", "from_markdown"]


def from_markdown(text: str) -> str:
    """CommonMark (plus tables) -> canonical AGD text."""
    from .markdown_in import from_markdown as convert

    return convert(text)
