"""One doctor finding: a level, the check that made it, one line saying what to do."""

from __future__ import annotations

from dataclasses import dataclass

LEVELS = ("ok", "info", "warn", "error")
"""`warn` and `error` need action (exit status 1); `ok` and `info` do not."""


@dataclass(frozen=True)
class Finding:
    level: str
    check: str
    """Which check: `file`, `refs`, `superseded`, `secrets`, `toc`, `duplicates`, ..."""
    message: str
    """One line: where, what is wrong, what to do."""

    @property
    def needs_action(self) -> bool:
        return self.level in ("warn", "error")

    def as_dict(self) -> dict[str, str]:
        return {"level": self.level, "check": self.check, "message": self.message}
