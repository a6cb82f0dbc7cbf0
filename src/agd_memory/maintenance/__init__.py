"""Maintenance of memory files: migrations from older versions, merging two memories, doctor.

The verbs are imported only when they run, so the CLI's start-up pays for none of
them (doctor's checks in particular pull in the TOC and secret scanner).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["migrate_main", "merge_main", "doctor_main"]


def migrate_main(argv: Sequence[str]) -> int:
    """`agd-memory migrate refs|lifecycle [--apply] [FILE...]`."""
    from .migrate import migrate_main as run

    return run(argv)


def merge_main(argv: Sequence[str]) -> int:
    """`agd-memory merge SOURCE DEST [--apply] [--prefer source|dest|newer]`."""
    from .merge import merge_main as run

    return run(argv)


def doctor_main(argv: Sequence[str]) -> int:
    """`agd-memory doctor`."""
    from .doctor import doctor_main as run

    return run(argv)
