"""What every `agd-memory` verb module shares: the argument parser, input files, JSON output.

The error contract of the whole CLI starts here: a bad argument raises `UsageError`
carrying the verb's own usage line, which `cli.main` prints with one error line and
exit status 2 (the convention of argparse and of most Unix tools).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn

from agd.files import MIB, read_text

from ..errors import UserError
from . import UsageError

CONTENT_LIMIT = MIB
"""The most a body given with `--content-file` may hold: a memory entry, not a document."""


class VerbParser(argparse.ArgumentParser):
    """argparse that raises `UsageError` on a bad argument instead of printing and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(self.format_usage().rstrip("\n"), f"{self.prog}: error: {message}")


def verb_parser(verb: str, description: str, example: str) -> VerbParser:
    """The parser of `agd-memory VERB`; its help ends with an example call."""
    return VerbParser(
        prog=f"agd-memory {verb}",
        description=f"{description}\n\nExample:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def read_input(path: str, what: str, limit: int) -> str:
    """The text of a file the user named (`-`: standard input), at most `limit` bytes.

    Only regular files are read (a FIFO or `/dev/zero` is refused, never waited on);
    a failure is one `UserError` naming the option.
    """
    if path == "-":
        text = sys.stdin.read(limit + 1)
        if len(text) > limit:
            raise UserError(f"{what} -: standard input holds more than {limit:,} characters")
        return text
    from agd.errors import UnreadableFile

    try:
        return read_text(path, limit)
    except UnreadableFile as exc:
        raise UserError(f"{what}: {exc}") from None


def emit_json(data: object) -> None:
    """`--json` output: indented, non-ASCII kept as is."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
