"""git's merge driver for the team file: `agd-memory merge-driver %O %A %B %P`.

git writes the ancestor (`%O`), our version (`%A`) and theirs (`%B`) to temporary files
and expects the result in `%A`, exit status 0 when merged. The merge is `agd.merge3`'s,
by block id; the result replaces `%A` atomically, so an interrupted driver leaves git
our version. When a version does not parse (a hand edit gone wrong, conflict markers
committed by a clone without the driver), nothing is written and the exit status is 1:
git then reports an ordinary conflict on the file, and `agd-memory team resolve` can
merge its markers.
"""

from __future__ import annotations

import os
from pathlib import Path

from agd.atomic import write_atomic
from agd.files import read_text
from agd.merge3 import MergeResult, merge

from ..errors import MemoryFileError

MAX_BYTES = 64 * 1024 * 1024
"""The largest version the driver reads (a 10,000-entry file is ~3 MB)."""


def merge_versions(base: str, ours: str, theirs: str) -> MergeResult:
    """Merge the three files git hands over and write the result to `ours`."""
    result = merge(
        read_text(base, MAX_BYTES), read_text(ours, MAX_BYTES), read_text(theirs, MAX_BYTES)
    )
    try:
        write_atomic(ours, result.text)
    except OSError as exc:
        raise MemoryFileError(
            f"cannot write the merged file {ours}: {exc.strerror or exc}; git keeps the conflict"
        ) from None
    return result


def describe(result: MergeResult, name: str | os.PathLike[str]) -> list[str]:
    """The lines the driver prints for git's output: one per decision worth a look."""
    shown = Path(name).as_posix()
    return [f"agd-memory: {shown}: {note.detail}" for note in result.notes]
