"""Edit the attributes of one block-start line in place, leaving the rest of the line alone.

Migrations change a few attributes of blocks the parser has already located, so
they rewrite only those header lines: the attribute order, quoting and spacing a
user (or an older tool) chose survive, and the diff stays one line per block.
The line is scanned with the attribute-list rules of the format reference §1.4-1.5
(the caller passes only lines the parser classified as block starts, so fenced
bodies are never touched). Every rewrite is checked afterwards by re-parsing the
whole file (`source.verify_attrs`).

New values are written the way the frozen grammar accepts them: a bare word only
for identifiers, integers and booleans; everything else, ISO dates included,
quoted (the earlier `migrate_lifecycle` wrote `created=2026-06-25` unquoted).
"""

from __future__ import annotations

from dataclasses import dataclass

from agd.lines import is_identifier

_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


@dataclass(frozen=True)
class AttrSpan:
    key: str
    value_start: int
    """Index in the line of the value's first character (its opening quote when quoted)."""
    value_end: int
    """Index just past the value (past its closing quote when quoted)."""


@dataclass(frozen=True)
class Header:
    attrs: tuple[AttrSpan, ...]
    insert_at: int
    """Where a new ` key=value` goes: after the last attribute, or after the tag."""


def render_value(value: str | int | bool) -> str:
    """An attribute value as the frozen grammar reads it back unchanged."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if is_identifier(value) and value not in ("true", "false"):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def scan(line: str) -> Header:
    """Locate the attributes of a block-start line (`@tag attrs [#id]`).

    Raises ValueError when the line is not an attribute-bearing block start; the
    parser has accepted the line already, so that means a bug, not bad input.
    """
    if not line.startswith("@"):
        raise ValueError(f"not a block-start line: {line!r}")
    pos = 1
    while pos < len(line) and line[pos] in _KEY_CHARS:
        pos += 1
    tag_end = pos
    limit = _attrs_limit(line, tag_end)
    spans: list[AttrSpan] = []
    insert_at = tag_end
    while True:
        while pos < limit and line[pos] in " \t":
            pos += 1
        if pos >= limit:
            break
        key_start = pos
        while pos < limit and line[pos] in _KEY_CHARS:
            pos += 1
        key = line[key_start:pos]
        if not key or pos >= limit or line[pos] != "=":
            raise ValueError(f"cannot read the attributes of {line!r}")
        pos += 1
        value_start = pos
        if pos < limit and line[pos] == '"':
            pos += 1
            while pos < limit and line[pos] != '"':
                pos += 2 if line[pos] == "\\" and pos + 1 < limit else 1
            if pos >= limit:
                raise ValueError(f"unterminated value of `{key}` in {line!r}")
            pos += 1
        else:
            while pos < limit and line[pos] != " ":
                pos += 1
        spans.append(AttrSpan(key, value_start, pos))
        insert_at = pos
    return Header(tuple(spans), insert_at)


def _attrs_limit(line: str, tag_end: int) -> int:
    """End of the attribute list: before a trailing `[#id]` (§1.4 step 3), else the line end."""
    trimmed = line.rstrip()
    if trimmed.endswith("]"):
        opener = trimmed.rfind("[#", tag_end)
        if opener != -1 and opener + 2 < len(trimmed) - 1:
            return opener
    return len(trimmed)


def set_attrs(line: str, changes: dict[str, str | int | bool]) -> str:
    """The line with each key of `changes` set: replaced where present, appended in order otherwise."""
    header = scan(line)
    present = {span.key: span for span in header.attrs}
    edits: list[tuple[int, int, str]] = []
    appended = "".join(
        f" {key}={render_value(value)}" for key, value in changes.items() if key not in present
    )
    if appended:
        edits.append((header.insert_at, header.insert_at, appended))
    for key, value in changes.items():
        span = present.get(key)
        if span is not None:
            edits.append((span.value_start, span.value_end, render_value(value)))
    # Apply from the right so earlier indices stay valid.
    for start, end, text in sorted(edits, key=lambda e: e[0], reverse=True):
        line = line[:start] + text + line[end:]
    return line


def remove_attr(line: str, key: str) -> str:
    """The line without attribute `key` (and the space before it); unchanged when absent."""
    header = scan(line)
    for span in header.attrs:
        if span.key == key:
            start = span.value_start - len(key) - 1
            while start > 0 and line[start - 1] in " \t":
                start -= 1
            return line[:start] + line[span.value_end :]
    return line
