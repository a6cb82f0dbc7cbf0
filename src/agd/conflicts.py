"""Git's conflict markers in an AGD file, as git leaves them after a line-by-line merge.

`<<<<<<<` / `|||||||` (diff3's base section) / `=======` / `>>>>>>>` lines. In a file
that parses they count only outside fenced bodies (`fenced=True`): a body may quote them
(a note on resolving a merge) and is text like any other. In a file that does not parse
they count anywhere (`fenced=False`): git merges line by line and its regions cut through
fences. `marked_lines` walks the file once, tracking fences as the parser does (an opener
of three or more tildes, closed by an all-tilde line at least as long).
"""

from __future__ import annotations

from collections.abc import Iterator

from .lines import is_fence

OPEN, BASE, SPLIT, CLOSE = "<<<<<<<", "|||||||", "=======", ">>>>>>>"


def marked_lines(
    text: str, *, keepends: bool = False, fenced: bool = True
) -> Iterator[tuple[str | None, str]]:
    """Each line of `text` with its marker (`OPEN`, `BASE`, `SPLIT`, `CLOSE`) when it is one
    (outside a fenced body, with `fenced`), else None."""
    fence = 0  # the open fence's width, 0 outside a body
    for line in text.splitlines(keepends=keepends):
        bare = line.rstrip("\r\n")
        if fence and fenced:
            if bare and bare[0] == "~" and len(bare) >= fence and not bare.strip("~"):
                fence = 0
            yield None, line
            continue
        if fenced and is_fence(bare):
            fence = len(bare)
            yield None, line
            continue
        if bare.startswith((OPEN, BASE, CLOSE)):
            yield bare[:7], line
        elif bare.rstrip() == SPLIT:
            yield SPLIT, line
        else:
            yield None, line


def first_marker_line(text: str, *, fenced: bool = True) -> int | None:
    """The 1-based line of the first complete conflict region's `<<<<<<<` (outside fenced
    bodies, with `fenced`), or None."""
    if OPEN not in text:
        return None
    start = None
    split = False
    for n, (marker, _) in enumerate(marked_lines(text, fenced=fenced), 1):
        if marker == OPEN and start is None:
            start, split = n, False
        elif start is not None and marker == SPLIT:
            split = True
        elif start is not None and split and marker == CLOSE:
            return start
    return None

