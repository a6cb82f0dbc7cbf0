"""Line classes and lexical helpers of AGD (reference §1.2, §1.6).

Each line is classified on its own by its first characters, in the order §1.2
gives; the parser and the edit validator share the identifier rule and the
message clipping here.
"""

from __future__ import annotations

import re

__all__ = ["classify", "is_fence", "is_identifier", "clip", "scalar", "utf8_len"]

# --- line classes, in the order §1.2 tests them --------------------------------------------
EMPTY_LINE = 0  # the empty string (a line of spaces is NOT empty)
FENCE_LINE = 1  # three or more `~` and nothing else
COMMENT_LINE = 2  # `@!` ...
BLOCK_LINE = 3  # `@` + ASCII letter or `_`
ITEM_LINE = 4  # `- ...` or exactly `-`
QUOTE_LINE = 5  # `> ...` or exactly `>`
TEXT_LINE = 6  # anything else: a continuation

TAG_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
TAG_RE = re.compile(r"[A-Za-z0-9_-]+")
ID_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
INT_RE = re.compile(r"[+-]?[0-9]+")
I64_MIN = -(2**63)
I64_MAX = 2**63 - 1


def classify(line: str) -> int:
    """The class of one raw line (§1.2), by its first characters only."""
    if not line:
        return EMPTY_LINE
    c = line[0]
    if c == "@":
        if len(line) > 1:
            c2 = line[1]
            if c2 == "!":
                return COMMENT_LINE
            if c2 in TAG_FIRST:
                return BLOCK_LINE
        return TEXT_LINE
    if c == "~":
        return FENCE_LINE if is_fence(line) else TEXT_LINE
    if c == "-":
        return ITEM_LINE if len(line) == 1 or line[1] == " " else TEXT_LINE
    if c == ">":
        return QUOTE_LINE if len(line) == 1 or line[1] == " " else TEXT_LINE
    return TEXT_LINE


def is_fence(line: str) -> bool:
    return len(line) >= 3 and line[0] == "~" and not line.strip("~")


def is_identifier(text: str) -> bool:
    """True when `text` matches `[A-Za-z_][A-Za-z0-9_-]*` (ASCII only, §1.6)."""
    return ID_RE.fullmatch(text) is not None


def clip(text: str, limit: int = 32) -> str:
    """`text` cut to at most `limit` UTF-8 bytes on a character boundary, `…` when cut."""
    if len(text) <= limit // 4:
        return text
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", "ignore") + "…"


def scalar(raw: str) -> bool | int | str:
    """An unquoted attribute value: `true`/`false`, a signed 64-bit integer, else a string
    (the parser's rule; the serializer quotes any string that would read back otherwise)."""
    if raw == "true":
        return True
    if raw == "false":
        return False
    if raw and INT_RE.fullmatch(raw):
        number = int(raw)
        if I64_MIN <= number <= I64_MAX:
            return number
    return raw


def utf8_len(line: str) -> int:
    return len(line.encode("utf-8", "surrogatepass"))
