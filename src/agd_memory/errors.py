"""Errors agd-memory shows to users: one base, a subclass per situation.

Every message names the file, the block id and what to do next; the CLI prints
it as one line, the MCP server returns it as a tool error. Each error also
carries what it is about as attributes (`block_id`, `path`, `line`, `field`,
`reason`), so that an adapter chooses its response by type and data, never by
parsing the message. Every attribute is optional: None when the raise site does
not know it.
"""

from __future__ import annotations

from os import PathLike


class UserError(Exception):
    """Base: a problem the user (or the model) can fix; never shown with a traceback."""

    def __init__(
        self,
        message: str,
        *,
        block_id: str | None = None,
        path: str | PathLike[str] | None = None,
        line: int | None = None,
        field: str | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.block_id = block_id
        self.path = None if path is None else str(path)
        self.line = line
        self.field = field
        self.reason = reason


class SaveRejected(UserError):
    """A save was refused before anything was written (bad id, fence line, secret, ...);
    `field` names the part of the save at fault (`id`, `kind`, `content`, `keys`, ...)."""


class SecretRejected(SaveRejected):
    """A save was refused because its text looks like a secret; `found` names what (masked),
    `field` where it was found."""

    def __init__(
        self,
        message: str,
        found: str,
        *,
        field: str | None = None,
        block_id: str | None = None,
        path: str | PathLike[str] | None = None,
    ) -> None:
        super().__init__(message, block_id=block_id, path=path, field=field, reason="secret")
        self.found = found


class BlockNotFound(UserError):
    """A requested block id does not exist in the layers searched (`block_id`, `path`)."""


class MemoryFileError(UserError):
    """A memory file is missing, unreadable, unwritable or does not parse (`path`, `line`)."""


class RequestTooLarge(UserError):
    """A request was refused before any work because an argument (`field`) or the whole
    request is larger than a memory can hold; `reason` says which limit."""
