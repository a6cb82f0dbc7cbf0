"""Progress for long runs: a self-erasing counter on a terminal, silence when piped.

Only stderr carries it, so stdout (the report) stays clean for scripts, and
only when stderr is a terminal, so logs and CI output are not filled with
carriage returns.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

MIN_INTERVAL_S = 0.1
"""Redraw at most this often: a thousand small files must not cost a thousand writes."""


class Progress:
    def __init__(self, total: int, *, label: str, stream: TextIO | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.total = total
        self.label = label
        self.enabled = _is_tty(self.stream) and total > 1
        self._last = 0.0
        self._width = 0

    def step(self, done: int, item: object = "") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < self.total and now - self._last < MIN_INTERVAL_S:
            return
        self._last = now
        text = f"{self.label} [{done}/{self.total}] {item}"[:100]
        pad = max(0, self._width - len(text))
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)

    def close(self) -> None:
        """Erase the counter so the next line starts clean."""
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _is_tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
