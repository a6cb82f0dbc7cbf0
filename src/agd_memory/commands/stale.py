"""`agd-memory stale`: entries whose code citations went stale, and entries nobody uses.

A thin adapter over `agd_memory.hygiene`: it checks every existing layer against the
repository holding `--cwd` and lists what changed; nothing is deleted or rewritten.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from .. import paths, store
from ..hygiene import staleness, usage
from ..settings import Settings
from .args import emit_json, verb_parser

DEFAULT_UNUSED_DAYS = 90


def code_root(cwd: str | None) -> Path | None:
    """The repository the citations are relative to: the one holding `cwd`."""
    return paths.repo_root(Path(os.path.abspath(cwd or os.getcwd())))


def stale(argv: list[str]) -> int:
    p = verb_parser(
        "stale",
        "List entries whose cited files, line ranges or symbols are gone or changed a lot, "
        "and entries that recall and `get` have not used for a long time (candidates for "
        "consolidation). Nothing is changed.",
        "agd-memory stale --unused-days 60",
    )
    p.add_argument("--cwd", help="project folder (default: the current folder)")
    p.add_argument(
        "--unused-days",
        type=int,
        default=DEFAULT_UNUSED_DAYS,
        help=f"report entries unused for this many days (default {DEFAULT_UNUSED_DAYS}; 0: off)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    args = p.parse_args(argv)
    if args.unused_days < 0:
        p.error("--unused-days must be 0 or more")
    settings = Settings.load()
    layers = paths.resolve(settings, cwd=args.cwd)
    files = [mf for mf in store.open_files(layers.select("all"), settings) if mf.exists()]
    root = code_root(args.cwd)
    found = staleness.check_all(files, root)
    idle = []
    if args.unused_days:
        written = [
            (mf.path, e.id, e.updated or e.created)
            for mf in files
            for e in mf.entries()
            if e.is_memory and e.status != "superseded"
        ]
        idle = usage.unused(written, settings.data_dir, args.unused_days)
    layer_of = {mf.path: mf.layer for mf in files}
    if args.json:
        emit_json(
            {
                "root": str(root) if root else None,
                "stale": [
                    {"layer": s.layer, "id": s.id, "file": str(s.path), "changes": list(s.reasons)}
                    for s in found
                ],
                "unused": [
                    {"layer": layer_of[m], "id": i, "file": str(m), "last_used": _day(t)}
                    for m, i, t in idle
                ],
            }
        )
        return 0
    if root is None:
        print("no git repository here: code citations were not checked")
    elif not found:
        print(f"no stale entries (code citations checked against {root})")
    else:
        print(f"{len(found)} entries cite code that is gone or changed (checked against {root}):")
        for s in found:
            print(f"#{s.id} ({s.layer})" + (f": {s.desc}" if s.desc else ""))
            for r in s.reasons:
                print(f"  {r}")
    if idle:
        print(
            f"{len(idle)} entries unused by recall and get for {args.unused_days}+ days "
            "(candidates for consolidation):"
        )
        for m, i, t in idle:
            print(f"#{i} ({layer_of[m]}): " + (f"last used {_day(t)}" if t else "never used"))
    if found or idle:
        print("nothing was changed: update the entries (agd-memory save) or delete them")
    return 0


def _day(t: int | None) -> str | None:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).date().isoformat() if t else None
