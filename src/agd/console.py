"""What the `agd` verbs read and write: FILE or standard input, UTF-8 out, in-place writes.

`Fail` is the one-line error of the `agd` command that is not a format error (I/O,
arguments); `cli.main` prints it. Kept apart from `cli` so that `cli` (arguments)
imports `verbs` and `verbs` imports this, with no circle.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from . import files
from .errors import AgdError

if TYPE_CHECKING:
    from .model import Document


class Fail(Exception):
    """A one-line error for the user that is not a format error (I/O, arguments)."""


# --- input / output -------------------------------------------------------------------------


def os_message(err: OSError) -> str:
    if err.strerror and err.errno:
        return f"{err.strerror} (os error {err.errno})"
    return str(err)


def read_bytes(path: str) -> bytes:
    """FILE's bytes: a regular file only, at most `files.DEFAULT_LIMIT` (a FIFO or a device
    is refused, never waited on); `-` is standard input, bounded alike."""
    if path == "-":
        if sys.stdin is None:
            raise Fail("reading -: no standard input")
        buffer = getattr(sys.stdin, "buffer", None)
        most = files.DEFAULT_LIMIT + 1
        raw = buffer.read(most) if buffer is not None else sys.stdin.read(most).encode("utf-8")
        if len(raw) > files.DEFAULT_LIMIT:
            raise Fail(
                f"reading -: standard input is larger than {files.DEFAULT_LIMIT // files.MIB} MiB"
            )
        return raw
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


def write_in_place(path: str, change: Callable[[Document], Document]) -> None:
    """Apply `change` to FILE's document and replace FILE with the result, checked.

    The read, the change and the write happen under the lock every writer of the file
    takes (`agd.lock`, beside the real file: `agd-memory` saves wait for it, and it for
    them), so a save that lands meanwhile is never lost. The real file is replaced
    atomically (a symlink stays a link), only if the text changes and re-parses to the
    document `change` returned.
    """
    from . import lock
    from .atomic import remove_stale_temps, write_atomic
    from .parser import parse
    from .serializer import serialize

    if path == "-":
        raise Fail("--in-place not supported with stdin")
    from .files import read_only

    real = lock.real_path(path)
    if read_only(real):
        raise Fail(
            f"{path} is read-only; make it writable (chmod u+w) to change it. Nothing was written."
        )
    with lock.exclusive(lock.locked_path(path)):
        text = read_text(path)
        new = change(parse(text))
        out = serialize(new)
        if out == text:
            return
        try:
            again = parse(out)
        except AgdError as err:
            raise Fail(
                f"refusing to write {path}: serialized output does not re-parse — this is a bug "
                f"in agd; the file was left untouched: {err}"
            ) from None
        if again != new:
            raise Fail(
                f"refusing to write {path}: this edit does not round-trip — the serialized output "
                "re-parses to a different document (content the v0.1 syntax cannot represent); "
                "the file was left untouched"
            )
        try:
            write_atomic(real, out)
        except OSError as err:
            raise Fail(f"writing {path}: {os_message(err)}") from None
        remove_stale_temps(real)
