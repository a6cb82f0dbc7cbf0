"""Errors agd-memory shows to users: one base, a subclass per situation.

Every message names the file, the block id and what to do next; the CLI prints
it as one line, the MCP server returns it as a tool error.
"""

from __future__ import annotations


class UserError(Exception):
    """Base: a problem the user (or the model) can fix; never shown with a traceback."""


class SaveRejected(UserError):
    """A save was refused before anything was written (bad id, fence line, secret, ...)."""


class SecretRejected(SaveRejected):
    """A save was refused because its text looks like a secret; `found` names what (masked)."""

    def __init__(self, message: str, found: str) -> None:
        super().__init__(message)
        self.found = found


class BlockNotFound(UserError):
    """A requested block id does not exist in the layers searched."""


class MemoryFileError(UserError):
    """A memory file is missing, unreadable, unwritable or does not parse."""
