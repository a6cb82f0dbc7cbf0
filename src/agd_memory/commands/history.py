"""`agd-memory history`: list, import and forget the session history of this project;
and the history side of `search --scope history` and `get --scope history`."""

from __future__ import annotations

import datetime as dt
import os
import sys
from pathlib import Path
from typing import Any

from .. import paths
from ..errors import UserError
from ..history import capture, files
from ..history import search as hsearch
from ..settings import Settings
from .args import emit_json, verb_parser

USAGE = "agd-memory history [list | import [TRANSCRIPT.jsonl | DIR]... | forget SESSION...|--before DATE|--all]"


def folder(settings: Settings) -> Path:
    """This project's history folder (beside its memory file)."""
    return files.folder_of(paths.resolve(settings).project.path)


def history(argv: list[str]) -> int:
    sub = argv[0] if argv and not argv[0].startswith("-") else "list"
    rest = argv[1:] if argv and not argv[0].startswith("-") else argv
    if sub == "list":
        return _list(rest)
    if sub == "import":
        return _import(rest)
    if sub == "forget":
        return _forget(rest)
    raise UserError(f"unknown history command {sub!r}; usage: {USAGE}")


def _list(argv: list[str]) -> int:
    p = verb_parser(
        "history", "List the sessions kept in this project's history.", "agd-memory history --json"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    args = p.parse_args(argv)
    settings = Settings.load()
    where = folder(settings)
    found = files.sessions(where)
    if args.json:
        emit_json(
            [
                {
                    "session": s.session,
                    "first": s.first,
                    "last": s.last,
                    "exchanges": s.exchanges,
                    "bytes": s.size,
                }
                for s in found
            ]
        )
        return 0
    if not found:
        print(f"no session history in {where} (`agd-memory history import` adds past sessions)")
        return 0
    for s in found:
        print(
            f"{(s.first or '?')[:16].replace('T', ' ')}  {s.exchanges:4d} exchanges  {_size(s.size):>8}  {s.session}"
        )
    total = sum(s.size for s in found)
    print(f"{len(found)} sessions, {_size(total)} in {where}")
    return 0


def _import(argv: list[str]) -> int:
    p = verb_parser(
        "history import",
        "Add past sessions to the history (default: this project's Claude Code transcripts).",
        "agd-memory history import ~/.claude/projects/-home-me-app/",
    )
    p.add_argument("targets", nargs="*", metavar="TRANSCRIPT.jsonl|DIR")
    args = p.parse_args(argv)
    settings = Settings.load()
    layers = paths.resolve(settings)
    targets = [Path(t).expanduser() for t in args.targets]
    if not targets:
        cwd = settings.project_cwd or os.getcwd()
        targets = [paths.projects_dir(settings) / paths.claude_folder_name(os.path.abspath(cwd))]
    for t in targets:
        if not t.exists():
            raise UserError(
                f"{t}: no such transcript or folder; name a .jsonl file or a folder of them"
            )
    tty = sys.stderr.isatty()

    def progress(i: int, n: int) -> None:
        if tty and n >= 20:
            sys.stderr.write(f"\rimporting transcripts: {i}/{n}")
            if i == n:
                sys.stderr.write("\n")

    def say(message: str) -> None:
        print(f"agd-memory: {message}", file=sys.stderr)

    sessions, added, skipped = capture.import_all(
        settings, targets, layers.project.path, say=say, progress=progress
    )
    where = files.folder_of(layers.project.path)
    print(
        f"{added} exchanges from {sessions} sessions added to {where}"
        + (f" ({skipped} files skipped)" if skipped else "")
    )
    return 0


def _forget(argv: list[str]) -> int:
    p = verb_parser(
        "history forget",
        "Remove sessions from the history: by id, before a date, or all.",
        "agd-memory history forget --before 2026-01-01",
    )
    p.add_argument("sessions", nargs="*", metavar="SESSION")
    p.add_argument(
        "--before", metavar="DATE", help="sessions whose last exchange is before DATE (YYYY-MM-DD)"
    )
    p.add_argument("--all", action="store_true", help="every session")
    args = p.parse_args(argv)
    if bool(args.sessions) + bool(args.before) + bool(args.all) != 1:
        raise UserError(
            "history forget: name SESSION ids, or --before DATE, or --all (one of them)"
        )
    if args.before:
        try:
            dt.date.fromisoformat(args.before)
        except ValueError:
            raise UserError(f"--before {args.before}: expected a date YYYY-MM-DD") from None
    settings = Settings.load()
    where = folder(settings)
    removed = files.forget(where, args.sessions or None, before=args.before)
    missing = [s for s in args.sessions if files.safe_session(s) not in removed]
    print(f"{len(removed)} sessions removed from {where}")
    if missing:
        print(
            f"agd-memory: not in the history: {', '.join(missing)} (see `agd-memory history`)",
            file=sys.stderr,
        )
        return 1
    return 0


def _size(n: int) -> str:
    return f"{n / 1024:.1f} KB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MB"


# -- search and get ----------------------------------------------------------------


def hit_json(hit: hsearch.Hit) -> dict[str, Any]:
    e = hit.exchange
    return {
        "id": hit.id,
        "layer": "history",
        "session": e.session,
        "n": e.n,
        "at": e.at,
        "score": round(hit.score, 4),
        "text": e.text,
    }


def search(query: str, limit: int, as_json: bool) -> int:
    settings = Settings.load()
    hits = hsearch.search(folder(settings), query, settings, limit=limit)
    if as_json:
        emit_json([hit_json(h) for h in hits])
        return 0
    if not hits:
        print(f"no exchange in the history matches {query!r}")
        return 0
    for h in hits:
        e = h.exchange
        print(
            f"#{h.id}  [history, session {e.session}, {e.at or 'no date'}, exchange {e.n}]  {h.score:.2f}"
        )
        print("    " + " ".join(e.text.split())[:200])
    return 0


def around(settings: Settings, block: str, context: int) -> list[dict[str, Any]]:
    """The exchange `block` (`<session>-<n>`) and `context` exchanges either side."""
    return [
        {
            "id": files.block_id(e.session, e.n),
            "layer": "history",
            "session": e.session,
            "n": e.n,
            "at": e.at,
            "text": e.text,
        }
        for e in files.neighbours(folder(settings), block, context)
    ]
