"""`agd-memory import claude-memory [DIR] [--apply]`: Claude Code's auto memory into ours.

Dry run by default: one line per topic file, `+` added, `=` already in the memory (a second
run shows only these), `!` not imported and why. `--apply` writes every addition in one
locked write (the old file kept as `memory.agd.bak`); the auto-memory files are only read.
The imported entries have no search keys: the detached keys run that follows any save
without keys (`distill.autokeys`) gives them keys.
"""

from __future__ import annotations

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
    if target.exists():
        existing = [(e.id, e.body) for e in target.entries()]
    else:  # the new file's scaffold holds ids too (`meta`, `root`, the sections)
        from agd.parser import parse

        from ..store import rules

        existing = [(b.id, "") for b in parse(rules.scaffold("project")).blocks if b.id]
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
        if plan.conflicts:  # not "already holds every fact": some were refused
            print(
                f"nothing imported into {target.path}: {len(plan.same)} already there, "
                f"{len(plan.conflicts)} not imported (each said why above)"
            )
        else:
            print(f"nothing to add: {target.path} already holds every fact of {folder}")
        return 0
    done, backup = automemory.import_facts(target, found.facts)
    for line in done.lines():
        print(line)
    kept = f"; the old file is {backup}" if backup else ""
    print(f"imported {len(done.add)} entries into {target.path}{kept}; {folder} is unchanged")
    if done.add:
        print(keys_in_background(target))
    return 0


def keys_in_background(mf: MemoryFile) -> str:
    """Give the imported entries search keys as any entry saved without them gets them
    (`distill.autokeys`: one detached, locked, debounced keys run); say what happened."""
    from ..distill import autokeys

    why = autokeys.off(mf.settings)
    if why is not None:
        return (
            f"search keys: not started ({why}); run `agd-memory keys --apply {mf.path}` "
            "to give the imported entries keys"
        )
    autokeys.request(mf, "entries imported without keys")
    return (
        "search keys: `agd-memory keys --apply` runs in the background for them "
        "(`agd-memory distill --status` shows it)"
    )
