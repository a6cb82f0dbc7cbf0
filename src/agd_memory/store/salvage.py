"""What can be kept of a memory file that does not parse (`agd-memory repair`).

The file is cut before every line that starts with `@` (a block header); each piece that
parses on its own is kept, in order, and each that does not is set aside whole, never
dropped (the command writes it to a side file). A body line starting with `@` also cuts:
its block is then set aside with the rest, not lost. The kept text is written through
`MemoryFile.rewrite` (the lock, the `.bak`), which checks that it parses as a whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = re.compile(r"^@", re.M)


@dataclass(frozen=True)
class Salvage:
    kept: str
    """The pieces that parse, in file order."""
    set_aside: tuple[tuple[int, str], ...]
    """(first line number, text) of each piece that does not parse."""
    kept_blocks: int


def salvage(text: str) -> Salvage:
    """Cut `text` at block headers; keep what parses, set aside the rest."""
    from agd.errors import AgdError
    from agd.parser import parse

    starts = [m.start() for m in _HEADER.finditer(text)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    kept: list[str] = []
    aside: list[tuple[int, str]] = []
    blocks = 0
    for a, b in zip(starts, [*starts[1:], len(text)], strict=True):
        piece = text[a:b]
        try:
            n = len(parse(piece).blocks)
        except AgdError:
            aside.append((text.count("\n", 0, a) + 1, piece))
            continue
        kept.append(piece)
        blocks += n
    return Salvage("".join(kept), tuple(aside), blocks)
