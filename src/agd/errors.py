"""Errors of the AGD library: one base, one subclass per kind (reference §1.12).

`str(error)` is exactly the reference CLI's message text; `line` and `col` are
attributes (1-based, 0 when unknown) so callers never parse messages.
"""

from __future__ import annotations


class AgdError(Exception):
    """Base of every error the library raises on bad input."""

    line: int = 0
    col: int = 0

    def __init__(self, message: str, *, line: int = 0, col: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col

    def __str__(self) -> str:
        return self.message


class ParseError(AgdError):
    def __init__(self, detail: str, *, line: int, col: int = 1) -> None:
        super().__init__(f"parse error at line {line}, col {col}: {detail}", line=line, col=col)
        self.detail = detail


class DuplicateId(AgdError):
    def __init__(self, block_id: str, *, first: int, line: int) -> None:
        super().__init__(
            f"duplicate block id `{block_id}` (first defined at line {first}, redefined at line {line})",
            line=line,
            col=1,
        )
        self.block_id = block_id
        self.first = first


class InvalidTag(AgdError):
    def __init__(self, tag: str, *, line: int) -> None:
        super().__init__(
            f"invalid block tag `{tag}` at line {line}: custom tags must be prefixed `x-`",
            line=line,
            col=2,
        )
        self.tag = tag


class InvalidId(AgdError):
    def __init__(self, block_id: str, *, line: int, col: int = 1) -> None:
        super().__init__(
            f"invalid identifier `{block_id}` at line {line}: must match [a-zA-Z_][a-zA-Z0-9_-]*",
            line=line,
            col=col,
        )
        self.block_id = block_id


class InvalidAttr(AgdError):
    def __init__(self, detail: str, *, line: int, col: int = 1) -> None:
        super().__init__(f"invalid attribute at line {line}: {detail}", line=line, col=col)
        self.detail = detail


class UnterminatedFence(AgdError):
    def __init__(self, *, line: int) -> None:
        super().__init__(f"unterminated fence opened at line {line}", line=line, col=1)


class DanglingRef(AgdError):
    def __init__(self, target: str, *, line: int) -> None:
        super().__init__(
            f"dangling reference `#{target}` at line {line}: no block with this id", line=line
        )
        self.target = target


class IdNotFound(AgdError):
    def __init__(self, block_id: str) -> None:
        super().__init__(f"block id `{block_id}` not found")
        self.block_id = block_id


class InvalidEdit(AgdError):
    def __init__(self, detail: str) -> None:
        super().__init__(f"invalid edit: {detail}")
        self.detail = detail


class InvalidAst(AgdError):
    """A JSON value that is not a well-formed block or document (reference §2.3)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class UnknownId(IdNotFound):
    """A requested id that no block has (`agd get`): `no block with id `X``."""

    def __init__(self, block_id: str) -> None:
        super().__init__(block_id)
        self.message = f"no block with id `{block_id}`"
        self.args = (self.message,)


class MissingDependency(AgdError):
    """An optional package a feature needs is not installed; the message says how to get it."""


class UnreadableFile(AgdError):
    """A file named by the user that cannot be read as input: missing, not regular, too large."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"reading {path}: {reason}")
