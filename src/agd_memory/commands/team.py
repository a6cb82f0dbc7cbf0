"""The team verbs: `team init`, `team resolve` and git's `merge-driver`.

`merge-driver` is what git runs (`%O %A %B %P`): it prints one line per decision worth
a look to stderr (git shows it), exits 0 when merged and 1 when a version does not
parse, which git reports as an ordinary conflict.
"""

from __future__ import annotations

import sys

from .. import paths
from ..settings import Settings
from .args import emit_json, verb_parser


def team(argv: list[str]) -> int:
    p = verb_parser(
        "team",
        "Share memory with the team through git: `init` sets up this clone (the team file\n"
        "<repository root>/.claude/memory.agd, .gitattributes, the merge driver); `resolve`\n"
        "merges git conflict markers in the team file block by block.",
        "agd-memory team init",
    )
    p.add_argument("action", choices=["init", "resolve"])
    p.add_argument("--cwd", help="a folder inside the clone (default: the current folder)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    args = p.parse_args(argv)
    settings = Settings.load()
    if args.action == "init":
        from ..team.setup import init

        report = init(settings, args.cwd)
        if args.json:
            emit_json(
                {
                    "root": str(report.root),
                    "team_file": str(report.team_file),
                    "done": list(report.done),
                }
            )
        else:
            for line in report.done or (f"{report.team_file}: already set up, nothing to do",):
                print(line)
        return 0
    from ..team.markers import resolve

    layer = paths.resolve(settings, cwd=args.cwd).select("team")[0]
    resolved = resolve(layer.path, settings)
    if args.json:
        emit_json(
            {"path": str(resolved.path), "regions": resolved.regions, "notes": list(resolved.notes)}
        )
    elif resolved.regions == 0:
        print(f"{resolved.path}: no conflict markers, nothing to do")
    else:
        print(f"merged {resolved.regions} conflict region(s) in {resolved.path} block by block")
        for note in resolved.notes:
            print(f"  {note}")
    return 0


def merge_driver(argv: list[str]) -> int:
    p = verb_parser(
        "merge-driver",
        "git's merge driver for the team file: merge BASE, OURS and THEIRS by block id and\n"
        "write the result to OURS. Registered by `agd-memory team init`.",
        "agd-memory merge-driver %O %A %B %P",
    )
    p.add_argument("base", help="%%O: the common ancestor")
    p.add_argument("ours", help="%%A: our version; the result replaces it")
    p.add_argument("theirs", help="%%B: their version")
    p.add_argument("path", nargs="?", default=".claude/memory.agd", help="%%P: the file's path")
    args = p.parse_args(argv)
    from agd.merge3 import MergeError

    from ..errors import UserError
    from ..team.driver import describe, merge_as_git_would, merge_versions

    if not args.path.endswith(".agd"):  # `* merge=agd-memory`: not ours to merge by block
        return merge_as_git_would(args.base, args.ours, args.theirs, args.path)

    try:
        result = merge_versions(args.base, args.ours, args.theirs)
    except (MergeError, UserError) as exc:
        raise UserError(f"{args.path}: {exc}; git leaves it as a conflict") from None
    for line in describe(result, args.path):
        print(line, file=sys.stderr)
    return 0
