"""The `agd` command: argument parsing, input/output and the one error handler.

Each verb is a function in `agd.verbs` that takes the parsed arguments and
returns an exit status; what verbs read and write goes through `agd.console`. Errors reach `main` as exceptions and leave as one
line on stderr, `agd: <message>`, exit 1; usage errors exit 2 (argparse). The
format library is imported lazily where a verb needs more than the parser, so
`agd get` on a big file costs little more than the interpreter start-up.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__
from .console import Fail, write_err
from .errors import AgdError

VERSION = f"agd {__version__}"

EDIT_HELP = """\
The operation is one JSON object, tagged by "op":
  {"op": "replace",       "id": ID, "with": BLOCK}
  {"op": "insert_after",  "id": ID, "block": BLOCK}
  {"op": "insert_before", "id": ID, "block": BLOCK}
  {"op": "delete",        "id": ID}
  {"op": "set_attr",      "id": ID, "key": KEY, "value": true|false|INTEGER|STRING}
  {"op": "remove_attr",   "id": ID, "key": KEY}

A BLOCK is {"kind": TAG, "id"?: ID, "attrs"?: {KEY: VALUE}, "content": CONTENT}:
  h1-h4, p   {"type": "inline", "value": [{"kind": "text|bold|italic|code", "text": "..."}]}
  ref        {"type": "inline", "value": [{"kind": "ref", "text": TARGET}]}
  ul, ol, quote  {"type": "items", "value": [[INLINE NODE, ...], ...]}
  code, raw, table, x-*  {"type": "fenced", "value": "verbatim body"}
  meta, include, x-*     {"type": "empty"}
Blocks that the line syntax cannot write back unchanged are refused.

Examples:
  agd edit memory.agd -i --op '{"op":"insert_after","id":"h-feedback","block":
    {"kind":"x-feedback","id":"no-mocks","attrs":{"desc":"use real services"},
     "content":{"type":"fenced","value":"Integration tests hit a real database."}}}'
  agd edit tasks.agd -i --op '{"op":"set_attr","id":"task-3","key":"done","value":true}'
"""


# --- arguments ------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    from . import verbs

    parser = argparse.ArgumentParser(
        prog="agd",
        description="Parse, check, edit and query AGD documents.",
        epilog="FILE may be `-` for standard input. Run `agd <command> --help` for details.",
    )
    parser.add_argument("-V", "--version", action="version", version=VERSION)
    sub = parser.add_subparsers(dest="command", metavar="<command>", required=True)

    def verb(name: str, func, help: str, example: str, **kw) -> argparse.ArgumentParser:
        p = sub.add_parser(
            name,
            help=help,
            description=help,
            epilog=example,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            **kw,
        )
        p.set_defaults(func=func, subparser=p)
        return p

    def file_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("file", metavar="FILE", help="the AGD file, or - for standard input")

    p = verb(
        "parse", verbs.parse, "parse a file and print its tree", "Example: agd parse doc.agd --json"
    )
    file_arg(p)
    p.add_argument("--json", action="store_true", help="print the JSON AST (with spans)")

    p = verb(
        "validate", verbs.validate, "check that a file parses", "Example: agd validate doc.agd"
    )
    file_arg(p)

    p = verb(
        "format",
        verbs.format_,
        "print or write the canonical form",
        "Examples:\n  agd format doc.agd --check\n  agd format doc.agd -i",
    )
    file_arg(p)
    p.add_argument("-i", "--in-place", action="store_true", help="rewrite FILE")
    p.add_argument("--check", action="store_true", help="exit 1 unless FILE is canonical")

    p = verb(
        "convert",
        verbs.convert,
        "convert between AGD, Markdown and HTML",
        "Examples:\n  agd convert to-md doc.agd -o doc.md\n  agd convert from-md README.md",
    )
    p.add_argument(
        "direction", choices=("from-md", "to-md", "to-html"), metavar="from-md|to-md|to-html"
    )
    file_arg(p)
    p.add_argument("-o", "--out", metavar="OUT", help="write here instead of standard output")

    p = verb(
        "bench",
        verbs.bench,
        "count tokens of AGD, Markdown, HTML and JSON",
        "Example: agd bench doc.agd",
    )
    file_arg(p)

    p = verb(
        "id",
        verbs.id_,
        "add automatic ids, or strip them",
        "Examples:\n  agd id doc.agd --add -i\n  agd id doc.agd --strip",
    )
    file_arg(p)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--add", action="store_true", help="give anchorable blocks an id")
    group.add_argument("--strip", action="store_true", help="remove every id")
    p.add_argument("-i", "--in-place", action="store_true", help="rewrite FILE")

    p = verb("edit", verbs.edit, "apply one edit operation", EDIT_HELP)
    file_arg(p)
    p.add_argument("--op", required=True, metavar="JSON", help="the operation (see below)")
    p.add_argument("-i", "--in-place", action="store_true", help="rewrite FILE")

    p = verb(
        "ref",
        verbs.ref,
        "list @ref targets, or check that every reference resolves",
        "Example: agd ref doc.agd --check",
    )
    file_arg(p)
    p.add_argument("--check", action="store_true", help="fail on refs to missing ids (also refs=)")

    p = verb(
        "ids",
        verbs.ids,
        "list the blocks that have an id (the table of contents)",
        "Example: agd ids memory.agd --kind x-feedback --json",
    )
    file_arg(p)
    p.add_argument("--json", action="store_true", help="one compact JSON array")
    p.add_argument("--kind", metavar="KIND", help="only blocks of this kind")

    p = verb(
        "get",
        verbs.get,
        "print blocks by id, with what they cite and what cites them",
        "Examples:\n  agd get memory.agd '#db-choice' --follow-refs --depth 2\n"
        "  agd get memory.agd root --with-backlinks --limit 20 --json",
    )
    file_arg(p)
    p.add_argument("ids", nargs="+", metavar="ID", help="block ids (a leading # is optional)")
    p.add_argument("--json", action="store_true", help="a pretty JSON array of blocks")
    p.add_argument(
        "--with-backlinks", action="store_true", help="add blocks citing the requested ids"
    )
    p.add_argument("--follow-refs", action="store_true", help="add blocks the requested ids cite")
    p.add_argument("--depth", type=non_negative, metavar="N", help="follow-refs levels (default 1)")
    p.add_argument(
        "--limit", type=non_negative, metavar="N", help="at most N blocks beyond the requested ones"
    )

    p = verb(
        "search",
        verbs.search,
        "find id-bearing blocks whose text contains QUERY",
        "Example: agd search memory.agd blog -i --kind x-project",
    )
    file_arg(p)
    p.add_argument("query", metavar="QUERY")
    p.add_argument("-i", "--ignore-case", action="store_true", help="case-insensitive match")
    p.add_argument("--kind", metavar="KIND", help="only blocks of this kind")
    p.add_argument("--json", action="store_true", help="one compact JSON array")

    p = verb(
        "backlinks",
        verbs.backlinks,
        "list the blocks that cite ID",
        "Example: agd backlinks memory.agd '#root' --json",
    )
    file_arg(p)
    p.add_argument("id", metavar="ID")
    p.add_argument("--json", action="store_true", help="one compact JSON array")
    return parser


def non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number `{text}`") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Run `agd` with `argv` (default: the process arguments); return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        ns, extra = parser.parse_known_args(args)
        if extra:  # reported by the verb's own parser, so the usage shown is the verb's
            ns.subparser.error(f"unrecognized arguments: {' '.join(extra)}")
        if ns.command == "get" and ns.depth is not None and not ns.follow_refs:
            ns.subparser.error("the argument '--depth <N>' requires '--follow-refs'")
    except SystemExit as stop:
        if stop.code is None:
            return 0
        return stop.code if isinstance(stop.code, int) else 2
    try:
        return ns.func(ns)
    except (AgdError, Fail) as err:
        write_err(f"agd: {err}\n")
        return 1
    except BrokenPipeError:
        # the reader went away (`agd ids big.agd | head`): not an error worth a message
        try:
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # a bug in agd: still one line, never a traceback
        write_err(f"agd: internal error ({type(err).__name__}): {err}\n")
        return 1
