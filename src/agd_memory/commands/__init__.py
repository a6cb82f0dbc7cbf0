"""Command-line verbs of `agd-memory`, one module per area; `agd_memory.cli` dispatches.

Every verb is parsed here and nowhere else, with one error contract: a bad argument
raises `UsageError` (the verb's usage line and one error line, exit status 2); a
failure raises `UserError` or `AgdError` (one line, exit status 1). `UsageError`
lives in this package's top so that the hook verb, which parses without argparse
(a hook pays for every import on every prompt), raises the same error.
"""

from __future__ import annotations


class UsageError(Exception):
    """A bad argument of one verb: its usage line and what was wrong (exit status 2)."""

    def __init__(self, usage: str, message: str) -> None:
        super().__init__(message)
        self.usage = usage
