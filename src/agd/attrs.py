"""Attribute lists of AGD block-start lines (reference §1.5)."""

from __future__ import annotations

import re

from .errors import InvalidAttr
from .lines import clip, scalar
from .model import AttrValue

__all__ = ["parse_attrs", "scalar", "quoted_value"]

KEY_RE = re.compile(r"[A-Za-z0-9_-]*")


def parse_attrs(text: str, *, line: int = 0, col: int = 1) -> dict[str, AttrValue]:
    """Attributes of an attribute list.

    attrs  = { " " } [ attr { { " " } attr } ] { " " }
    attr   = key "=" ( quoted | bare )
    key    = { ASCII letter | digit | "_" | "-" }       (non-empty)
    quoted = '"' { "\\" any-char | not-quote } '"'     (always a string)
    bare   = { not-space }                              (bool, i64 or string)

    `col` is the column of `text[0]` in its line, for error positions.
    """
    s = text.strip()
    col += len(text) - len(text.lstrip())
    attrs: dict[str, AttrValue] = {}
    if not s:
        return attrs
    n = len(s)
    pos = 0
    while True:
        while pos < n and s[pos] == " ":
            pos += 1
        if pos >= n:
            return attrs
        key_end = KEY_RE.match(s, pos).end()  # type: ignore[union-attr]
        if key_end == pos:
            raise InvalidAttr(
                f"expected attribute key, got `{clip(s[pos:])}`", line=line, col=col + pos
            )
        key = s[pos:key_end]
        if key_end >= n or s[key_end] != "=":
            raise InvalidAttr(f"attribute `{key}` missing `=`", line=line, col=col + key_end)
        pos = key_end + 1
        value: AttrValue
        if pos < n and s[pos] == '"':
            value, pos = quoted_value(s, pos + 1, key, line, col)
        else:
            end = s.find(" ", pos)
            if end < 0:
                end = n
            value = scalar(s[pos:end])
            pos = end
        if key in attrs:
            raise InvalidAttr(
                f"attribute `{key}` appears more than once on this block",
                line=line,
                col=col + key_end - len(key),
            )
        attrs[key] = value


def quoted_value(s: str, pos: int, key: str, line: int, col: int) -> tuple[str, int]:
    """The string after an opening quote at `pos - 1`, and the position after its closer.

    `col` (the column of the attribute list) is where the unterminated-value error points.
    A backslash takes the whole next character literally (the reference took one
    byte, which broke multi-byte characters); a final lone backslash is kept.
    """
    close = s.find('"', pos)
    slash = s.find("\\", pos)
    if close >= 0 and (slash < 0 or slash > close):
        return s[pos:close], close + 1  # the common case: no escapes
    out: list[str] = []
    n = len(s)
    while pos < n:
        c = s[pos]
        if c == '"':
            return "".join(out), pos + 1
        if c == "\\" and pos + 1 < n:
            out.append(s[pos + 1])
            pos += 2
            continue
        out.append(c)
        pos += 1
    raise InvalidAttr(f"attribute `{key}` has unterminated quoted value", line=line, col=col)
