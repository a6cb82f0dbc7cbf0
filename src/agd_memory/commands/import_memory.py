"""`agd-memory import claude-memory [DIR] [--apply]`: Claude Code's auto memory into ours.

Dry run by default: one line per topic file, `+` added, `=` already in the memory (a second
run shows only these), `!` not imported and why. `--apply` writes every addition in one
locked write (the old file kept as `memory.agd.bak`); the auto-memory files are only read.
The imported entries have no search keys: a detached `agd-memory keys --apply` gives them
keys, as the distiller does for older entries after a session.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import paths
from ..claude import automemory
from ..errors import UserError
from ..settings import Settings
from ..store.memoryfile import MemoryFile
from .args import verb_parser

SOURCES = ("claude-memory",)


def import_memory(argv: Sequence[str]) -> int:
    p = verb_parser(
        "import",
        "Import Claude Code's auto memory (MEMORY.md and its topic files) into the project's "
        "memory. Dry run unless --apply; the auto-memory files are never changed.",
        "agd-memory import claude-memory --apply",
    )
    p.add_argument("source", choices=SOURCES, help="what to import: claude-memory")
    p.add_argument(
        "folder",
        nargs="?",
        type=Path,
        metavar="DIR",
        help="the auto-memory folder (default: the current project's, as Claude Code finds it)",
    )
    p.add_argument("--apply", action="store_true", help="write the additions (default: only list)")
    p.add_argument("--cwd", help="project folder (default: the current folder)")
    args = p.parse_args(list(argv))
    settings = Settings.load()
    folder = args.folder or paths.auto_memory_folder(settings, args.cwd)
    if not folder.is_dir():
        raise UserError(
            f"import: no auto-memory folder at {folder}; give the folder (DIR), e.g. "
            "~/.claude/projects/<project>/memory"
        )
    found = automemory.read_folder(folder)
    target = MemoryFile(paths.resolve(settings, cwd=args.cwd).project.path, settings=settings)
    for line in found.problems:
        print(f"? {line}")
    if not found.facts:
        print(f"nothing to import: no topic files in {folder}")
        return 0
    existing = [(e.id, e.body) for e in target.entries()] if target.exists() else []
    plan = automemory.plan_import(found.facts, existing)
    if not args.apply:
        for line in plan.lines():
            print(line)
        print(
            f"dry run: {len(plan.add)} to add, {len(plan.same)} already there, "
            f"{len(plan.conflicts)} not imported, into {target.path}; run again with --apply"
        )
        return 0
    if not plan.add:
        for line in plan.lines():
            print(line)
        print(f"nothing to add: {target.path} already holds every fact of {folder}")
        return 0
    done, backup = automemory.import_facts(target, found.facts)
    for line in done.lines():
        print(line)
    kept = f"; the old file is {backup}" if backup else ""
    print(f"imported {len(done.add)} entries into {target.path}{kept}; {folder} is unchanged")
    if done.add:
        print(keys_in_background(settings, target.path))
    return 0


def keys_in_background(settings: Settings, memory: Path) -> str:
    """Start `agd-memory keys --apply FILE` detached (its output in a log); say what happened."""
    if settings.distill_disabled or settings.distill_keys_per_session <= 0:
        return (
            "search keys: not started (the distiller is off); run `agd-memory keys --apply` "
            "to give the imported entries keys"
        )
    log = settings.data_dir / "import-keys.log"
    argv = [sys.executable, "-m", "agd_memory.cli", "keys", "--apply", str(memory)]
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        # `sh` starts it in the background and exits: no child of ours is left running
        subprocess.run(  # noqa: S603 - our own interpreter and module
            [
                "/bin/sh",
                "-c",
                'log=$1; shift; "$@" >>"$log" 2>&1 </dev/null &',
                "sh",
                str(log),
                *argv,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
            check=False,
            env={**os.environ, "PYTHONPATH": _source_root()},
        )
    except OSError as exc:
        return f"search keys: could not start `agd-memory keys --apply` ({exc}); run it yourself"
    return f"search keys: `agd-memory keys --apply` runs in the background (log: {log})"


def _source_root() -> str:
    here = str(Path(__file__).resolve().parents[2])
    extra = os.environ.get("PYTHONPATH", "")
    return here + (os.pathsep + extra if extra else "")
