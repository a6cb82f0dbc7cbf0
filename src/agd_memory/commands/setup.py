"""`agd-memory setup [--scope user|project] [--apply]`: make agd-memory the one memory.

Claude Code's own auto memory is on by default and writes Markdown notes into the folder
that holds the project's `memory.agd`; with both on, the model gets two memories and two
capture passes run. This verb says whether auto memory is on for this project and which
setting decides, and with `--apply` sets `autoMemoryEnabled: false` in the user's
settings (`--scope user`, the default) or in this project's personal
`.claude/settings.local.json` (`--scope project`), keeping every other key and a `.bak`.
It then points to `agd-memory import claude-memory` when auto-memory files are there.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .. import paths
from ..claude import automemory
from ..claude import setup as auto_memory
from ..settings import Settings
from .args import verb_parser


def setup(argv: Sequence[str]) -> int:
    p = verb_parser(
        "setup",
        "Switch Claude Code's built-in auto memory off, so that agd-memory is the one memory. "
        "Dry run unless --apply.",
        "agd-memory setup --scope user --apply",
    )
    p.add_argument(
        "--scope",
        choices=auto_memory.SETUP_SCOPES,
        default="user",
        help="user: every project (~/.claude/settings.json); project: this one only "
        "(.claude/settings.local.json, personal)",
    )
    p.add_argument("--apply", action="store_true", help="write the change (default: only say it)")
    p.add_argument("--cwd", help="project folder (default: the current folder)")
    args = p.parse_args(list(argv))
    settings = Settings.load()
    project = Path(os.path.abspath(os.path.expanduser(args.cwd or os.getcwd())))
    now = auto_memory.state(project, settings)
    print(f"Claude Code's auto memory: {'on' if now.enabled else 'off'} ({now.reason})")
    change = auto_memory.plan_off(args.scope, project, settings)
    lines = change.lines()
    if not args.apply and not change.already:
        lines[0] = "would " + lines[0]
    print("\n".join(lines))
    if args.apply and not change.already:
        backup = auto_memory.apply(change)
        print(f"wrote {change.path}" + (f"; the old file is {backup}" if backup else ""))
        print("new Claude Code sessions start without auto memory; running ones keep it")
    elif not args.apply and not change.already:
        print("dry run: run again with --apply to write it")
    folder = paths.auto_memory_folder(settings, str(project))
    if folder.is_dir() and automemory.is_auto_memory(folder):
        print(
            f"auto-memory files are in {folder}: `agd-memory import claude-memory` lists what "
            "it would add to agd-memory (--apply to import; the files are kept)"
        )
    return 0
