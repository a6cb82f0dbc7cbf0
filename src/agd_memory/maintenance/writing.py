"""Replace a memory file the safe way: under the store's lock, after a `.bak`, atomically.

The caller passes a function that computes the new text from the file as it is
*inside* the lock, so a save that landed between a dry run and `--apply` is
neither lost nor overwritten: the plan is recomputed on the current text.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from agd.atomic import write_atomic

from .. import lock
from ..errors import MemoryFileError
from .source import read_text

T = TypeVar("T")


@dataclass(frozen=True)
class Rewrite(Generic[T]):
    text: str | None
    """The new text, or None to leave the file alone (nothing to change)."""
    result: T


@dataclass(frozen=True)
class Written(Generic[T]):
    result: T
    backup: Path | None
    """The `.bak` written, or None when the file was left unchanged."""


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


def rewrite(path: Path, compute: Callable[[str], Rewrite[T]]) -> Written[T]:
    """Read `path` under its lock, compute, and if the text changes keep a `.bak` and replace it."""
    with lock.exclusive(lock.lock_path_for(path)):
        try:
            old = read_text(path)
        except UnicodeDecodeError as exc:
            raise MemoryFileError(f"{path}: not UTF-8 text ({exc.reason})") from None
        except OSError as exc:
            raise MemoryFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
        outcome = compute(old)
        if outcome.text is None or outcome.text == old:
            return Written(outcome.result, None)
        # A memory file may be a symlink (dotfiles repos): replace the file it points
        # to, not the link, and keep the backup beside that file.
        real = Path(os.path.realpath(path))
        bak = backup_path(real)
        try:
            write_atomic(bak, old)
            write_atomic(real, outcome.text)
        except OSError as exc:
            raise MemoryFileError(
                f"{path}: cannot write ({exc.strerror or exc}); the file is unchanged — "
                "check the folder's permissions"
            ) from None
        return Written(outcome.result, bak)
