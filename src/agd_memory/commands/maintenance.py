"""`agd-memory merge | migrate | doctor`: thin adapters over `agd_memory.maintenance`."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import UserError
from ..settings import Settings
from .args import verb_parser


def merge(argv: Sequence[str]) -> int:
    from ..maintenance.merge import PREFER, merge_files, render_report

    p = verb_parser(
        "merge",
        "Copy the entries of SOURCE that DEST lacks into DEST (dry run unless --apply).",
        "agd-memory merge old-checkout/memory.agd memory.agd --prefer newer --apply",
    )
    p.add_argument("source", type=Path, metavar="SOURCE")
    p.add_argument("dest", type=Path, metavar="DEST")
    p.add_argument("--apply", action="store_true", help="write DEST (keeps DEST.bak)")
    p.add_argument(
        "--prefer",
        choices=PREFER,
        help="for an id in both with different content: take SOURCE's, keep DEST's, or the newer",
    )
    args = p.parse_intermixed_args(list(argv))
    plan, backup = merge_files(
        args.source, args.dest, prefer=args.prefer, apply=args.apply, settings=Settings.load()
    )
    print(f"merge {args.source} -> {args.dest}")
    for line in render_report(plan, apply=args.apply, backup=backup):
        print(line)
    if plan.unresolved:
        print(
            f"agd-memory: {plan.unresolved} conflict(s) left unresolved in {args.dest}; "
            "pass --prefer source|dest|newer or edit them by hand",
            file=sys.stderr,
        )
        return 1
    return 0


def migrate(argv: Sequence[str]) -> int:
    from ..maintenance import targets
    from ..maintenance.migrate import PLANNERS, FileReport, migrate_file, print_report, summary
    from ..progress import Progress

    p = verb_parser(
        "migrate",
        "Bring memory files written by older versions up to date (dry run unless --apply).",
        "agd-memory migrate refs --apply ~/.claude/memory/global.agd",
    )
    p.add_argument(
        "what",
        choices=sorted(PLANNERS),
        help="refs: lift #id citations into refs=; "
        "lifecycle: derive status, created, updated from descs and bodies",
    )
    p.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="memory files (default: every project memory and the global one)",
    )
    p.add_argument("--apply", action="store_true", help="write the changes (keeps FILE.bak)")
    args = p.parse_intermixed_args(list(argv))
    settings = Settings.load()  # the store's caches are refreshed in this data folder
    files = list(args.files) or targets.all_memory_files(settings)
    if not files:
        print("no memory files found; pass FILE paths to migrate other files")
        return 0
    reports: list[FileReport] = []
    failed = 0
    with Progress(len(files), label=f"migrate {args.what}") as progress:
        for n, path in enumerate(files, 1):
            progress.step(n, path)
            try:
                report = migrate_file(path, args.what, apply=args.apply, settings=settings)
            except UserError as exc:
                progress.close()
                print(f"agd-memory: {exc}", file=sys.stderr)
                failed += 1
                continue
            reports.append(report)
            if report.changes:
                progress.close()
                print_report(report)
    print(summary(args.what, reports, apply=args.apply, scanned=len(files)))
    return 1 if failed else 0


def doctor(argv: Sequence[str]) -> int:
    from ..maintenance.doctor import STEPS, default_context, render, run_checks
    from ..progress import Progress

    p = verb_parser(
        "doctor",
        "Check the memory files of every layer and the plugin's installation.\n"
        "Exit status: 0 when healthy, 1 when something needs action.",
        "agd-memory doctor --cwd ~/src/app",
    )
    p.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="check these memory files instead of the resolved layers",
    )
    p.add_argument("--cwd", help="project folder whose layers to check (default: here)")
    p.add_argument("--json", action="store_true", help="findings as a JSON list")
    args = p.parse_intermixed_args(list(argv))
    settings = Settings.load()
    ctx = default_context(settings, cwd=args.cwd or os.getcwd())
    if args.files:
        ctx.files = [("file", path) for path in args.files]
    with Progress(len(STEPS), label="doctor") as progress:
        findings = run_checks(ctx, progress=progress)
    if args.json:
        print(json.dumps([f.as_dict() for f in findings], ensure_ascii=False, indent=2))
    else:
        print(render(findings))
    return 1 if any(f.needs_action for f in findings) else 0
