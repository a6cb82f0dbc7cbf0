"""`agd-memory doctor`: check the memory files and the installation, one line per finding.

Checks, in order: each layer's file (exists, parses — with line and column —,
how many entries), dangling refs, superseded blocks still cited, secret-shaped
strings, the SessionStart table of contents against its budget, entries that
look like duplicates, stale distiller locks, the hooks and MCP server this
plugin registers (and Claude Code's `enabledPlugins`), and the Python and MCP
SDK the hooks and the server will run with.

Every line says what is wrong and what to do. Exit status 1 when any line is a
`warn` or an `error` (something needs action), 0 otherwise. Checks never write.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agd.errors import AgdError

from ..errors import UserError
from ..progress import Progress
from ..settings import Settings
from . import checks_env, checks_memory
from .findings import LEVELS, Finding


@dataclass
class Context:
    """What the checks look at; tests build one pointing at fixtures."""

    settings: Settings
    files: list[tuple[str, Path]]
    """(layer name, memory file) pairs to check."""
    plugin_root: Path
    claude_settings: Path
    """Claude Code's user settings file (`~/.claude/settings.json`)."""
    python_probe: checks_env.Probe = field(default_factory=lambda: checks_env.probe_python)
    code_root: Path | None = None
    """The repository code citations are checked against (`agd_memory.hygiene`)."""


def default_context(settings: Settings, cwd: str | None = None) -> Context:
    from .. import paths

    layers = paths.resolve(settings, cwd=cwd)
    files = [(layer.name, layer.path) for layer in layers.select("all")]
    root = settings.plugin_root or Path(__file__).resolve().parents[3]
    return Context(
        settings=settings,
        files=files,
        plugin_root=root,
        claude_settings=paths.home(settings) / ".claude" / "settings.json",
        code_root=paths.repo_root(Path(os.path.abspath(cwd or os.getcwd()))),
    )


def stale_code(ctx: Context, memories: list[checks_memory.Memory]) -> list[Finding]:
    """The code check of the files that loaded (one that did not is already an error): one
    warning per stale entry, or one ok line."""
    from ..hygiene.staleness import check_all
    from ..store.memoryfile import MemoryFile

    root = ctx.code_root
    if root is None:
        return [Finding("ok", "stale", "no git repository here: code citations not checked")]
    mfs = [MemoryFile(m.path, layer=m.layer, settings=ctx.settings) for m in memories]
    found = check_all([mf for mf in mfs if mf.exists()], root)
    if not found:
        return [Finding("ok", "stale", f"code citations hold in {root}")]
    return [
        Finding(
            "warn",
            "stale",
            f"#{s.id} in {s.path} cites code that changed: {'; '.join(s.reasons)}; "
            "update the entry (agd-memory save) or delete it",
        )
        for s in found
    ]


def history(ctx: Context, memories: list[checks_memory.Memory]) -> list[Finding]:
    """The project's session history: size, sessions, files that do not read."""
    from ..history import files as history_files

    project = next((path for layer, path in ctx.files if layer == "project"), None)
    if project is None:
        return []
    folder = history_files.folder_of(project)
    kept = history_files.stats(folder)
    if ctx.settings.history_disabled:
        return [
            Finding(
                "info",
                "history",
                f"session history off (AGD_HISTORY_DISABLED); {len(kept)} sessions kept in {folder}",
            )
        ]
    if not kept:
        return [
            Finding(
                "info",
                "history",
                f"no session history yet in {folder}; `agd-memory history import` adds past sessions",
            )
        ]
    size = sum(s.size for s in kept)
    out = [
        Finding(
            "ok",
            "history",
            f"session history {folder}: {len(kept)} sessions since {min(s.path.parent.name for s in kept)}, "
            f"{size / 1024 / 1024:.1f} MB (bound {ctx.settings.history_max_mb:g} MB, "
            f"{ctx.settings.history_max_days:g} days)",
        )
    ]
    for path in history_files.broken(folder):
        out.append(
            Finding(
                "warn",
                "history",
                f"{path}: not a readable history file; search skips it. Remove it or run "
                f"`agd-memory history forget {path.stem}`",
            )
        )
    return out


STEPS: tuple[tuple[str, Callable[[Context, list[checks_memory.Memory]], list[Finding]]], ...] = (
    ("refs", lambda ctx, memories: checks_memory.dangling_refs(memories)),
    ("superseded", lambda ctx, memories: checks_memory.superseded_cited(memories)),
    ("secrets", lambda ctx, memories: checks_memory.secret_strings(memories)),
    ("toc", lambda ctx, memories: checks_memory.toc_budget(memories, ctx.settings)),
    ("duplicates", lambda ctx, memories: checks_memory.duplicates(memories)),
    ("keys", lambda ctx, memories: checks_memory.search_keys(memories)),
    ("stale", stale_code),
    ("locks", lambda ctx, memories: checks_env.distiller_locks(ctx.settings)),
    ("plugin", lambda ctx, memories: checks_env.registration(ctx.plugin_root, ctx.claude_settings)),
    ("python", lambda ctx, memories: checks_env.runtimes(ctx.settings, ctx.python_probe)),
    ("automemory", lambda ctx, memories: checks_env.both_memories(ctx.settings, ctx.files)),
    ("team", lambda ctx, memories: checks_env.team_driver(ctx.code_root)),
    ("history", history),
)
"""The checks after loading the memories, in order (the progress counter counts them)."""


def run_checks(ctx: Context, *, progress: Progress | None = None) -> list[Finding]:
    findings: list[Finding] = []
    memories = checks_memory.load(ctx.files, findings)
    for n, (name, step) in enumerate(STEPS, 1):
        if progress is not None:
            progress.step(n, name)
        try:
            findings += step(ctx, memories)
        except (UserError, AgdError, OSError, ValueError) as exc:
            findings.append(Finding("error", name, f"the {name} check failed: {exc}"))
        except Exception as exc:  # a doctor reports a broken module instead of dying of it
            findings.append(
                Finding(
                    "error",
                    name,
                    f"the {name} check crashed ({type(exc).__name__}: {exc}); please report this",
                )
            )
    return findings


MAX_LINES_PER_CHECK = 20
"""A memory full of near-duplicates must not bury the other checks; `--json` lists all."""


def render(findings: list[Finding]) -> str:
    width = max(len(level) for level in LEVELS)
    lines: list[str] = []
    shown: dict[str, int] = {}
    hidden: dict[str, int] = {}
    last: dict[str, int] = {}  # check -> index of its last line shown
    for f in findings:
        shown[f.check] = shown.get(f.check, 0) + 1
        if shown[f.check] <= MAX_LINES_PER_CHECK:
            lines.append(f"{f.level.ljust(width)}  {f.message}")
            last[f.check] = len(lines) - 1
        else:
            hidden[f.check] = hidden.get(f.check, 0) + 1
    for check, count in sorted(hidden.items(), key=lambda kv: last[kv[0]], reverse=True):
        lines.insert(
            last[check] + 1,
            f"{'...'.ljust(width)}  and {count} more {check} findings (agd-memory doctor --json lists all)",
        )
    problems = sum(1 for f in findings if f.needs_action)
    if problems:
        lines.append(
            f"{problems} problem{'s' if problems != 1 else ''} need{'' if problems != 1 else 's'} action"
        )
    else:
        lines.append("no problems found")
    return "\n".join(lines)
