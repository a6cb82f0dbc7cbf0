"""What every `agd-memory` verb module shares: the argument parser and the JSON printer."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import UserError


class VerbParser(argparse.ArgumentParser):
    """argparse that reports a bad argument as a one-line `UserError` (exit 1), not usage."""

    def error(self, message: str) -> None:  # type: ignore[override]
        verb = self.prog.split()[-1]
        raise UserError(f"{verb}: {message} (see `{self.prog} --help`)")


def verb_parser(verb: str, description: str, example: str) -> VerbParser:
    """The parser of `agd-memory VERB`; its help ends with an example call."""
    return VerbParser(
        prog=f"agd-memory {verb}",
        description=f"{description}\n\nExample:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def emit_json(data: object) -> None:
    """`--json` output: indented, non-ASCII kept as is."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
