"""What the `agd` verbs read and write: FILE or standard input, UTF-8 out, in-place writes.

`Fail` is the one-line error of the `agd` command that is not a format error (I/O,
arguments); `cli.main` prints it. Kept apart from `cli` so that `cli` (arguments)
imports `verbs` and `verbs` imports this, with no circle.
"""

from __future__ import annotations

import sys
from typing import TextIO

from . import files
from .errors import AgdError


class Fail(Exception):
    """A one-line error for the user that is not a format error (I/O, arguments)."""


# --- input / output -------------------------------------------------------------------------


def os_message(err: OSError) -> str:
    if err.strerror and err.errno:
        return f"{err.strerror} (os error {err.errno})"
    return str(err)


def read_bytes(path: str) -> bytes:
    """FILE's bytes: a regular file only, at most `files.DEFAULT_LIMIT` (a FIFO or a device
    is refused, never waited on); `-` is standard input."""
    if path == "-":
        if sys.stdin is None:
            raise Fail("reading -: no standard input")
        buffer = getattr(sys.stdin, "buffer", None)
        return buffer.read() if buffer is not None else sys.stdin.read().encode("utf-8")
    return files.read_bytes(path)


def read_text(path: str) -> str:
    """The text of FILE (`-`: standard input) as UTF-8; an error with a clear reason otherwise."""
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise Fail(
            f"reading {path}: stream did not contain valid UTF-8 (byte {raw[err.start]:#04x} "
            f"at offset {err.start})"
        ) from None


def write_out(text: str) -> None:
    """Text to stdout as UTF-8 whatever the locale."""
    _write_utf8(sys.stdout, text, "surrogatepass")


def write_err(text: str) -> None:
    """Text to stderr as UTF-8; what cannot be encoded is escaped, never an error."""
    _write_utf8(sys.stderr, text, "backslashreplace")


def _write_utf8(stream: TextIO, text: str, errors: str) -> None:
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(text)
        return
    stream.flush()
    buffer.write(text.encode("utf-8", errors))
    buffer.flush()


def write_in_place(path: str, text: str, before: object | None = None) -> None:
    """Replace FILE with `text` atomically, only if `text` parses back to the same document.

    `before` is the document `text` was serialised from.
    """
    from .atomic import write_atomic
    from .parser import parse

    if path == "-":
        raise Fail("--in-place not supported with stdin")
    try:
        again = parse(text)
    except AgdError as err:
        raise Fail(
            f"refusing to write {path}: serialized output does not re-parse — this is a bug "
            f"in agd; the file was left untouched: {err}"
        ) from None
    if before is not None and again != before:
        raise Fail(
            f"refusing to write {path}: this edit does not round-trip — the serialized output "
            "re-parses to a different document (content the v0.1 syntax cannot represent); "
            "the file was left untouched"
        )
    try:
        write_atomic(path, text)
    except OSError as err:
        raise Fail(f"writing {path}: {os_message(err)}") from None
