"""The `agd-memory` command: a table of verbs, each a thin adapter over the domain code.

A verb's module is imported only when that verb runs, so `agd-memory hook prompt`
never pays for the MCP SDK or the viewer. Each verb function takes its own
argument list and returns an exit status; errors meant for the user are raised
as `agd_memory.errors.UserError` (or the format library's `AgdError`) and
printed here as one line, `agd-memory: <message>`, with exit status 1. A bad argument prints the
verb's own usage line and one error line, exit status 2 (`commands.args.UsageError`).
Nothing leaves as a traceback unless `AGD_MEMORY_DEBUG` is on.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from . import __version__

# verb -> ("module:function", one-line help). Order is the order of `--help`.
VERBS: dict[str, tuple[str, str]] = {
    "save": ("agd_memory.commands.store:save", "save or update a block"),
    "get": ("agd_memory.commands.store:get", "print blocks by id, with refs and backlinks"),
    "toc": ("agd_memory.commands.store:toc", "the table of contents of every layer"),
    "delete": ("agd_memory.commands.store:delete", "remove a block and list who still cites it"),
    "rename": ("agd_memory.commands.store:rename", "rename a block and rewrite every reference"),
    "where": ("agd_memory.commands.store:where", "print the resolved memory files and why"),
    "repair": (
        "agd_memory.commands.repair:repair",
        "keep every block of a broken memory file that parses, set the rest aside",
    ),
    "search": ("agd_memory.commands.recall:search", "ranked search over every layer"),
    "history": (
        "agd_memory.commands.history:history",
        "list, import and forget the session history",
    ),
    "recall": ("agd_memory.commands.recall:recall", "what auto-recall would inject for a prompt"),
    "eval": ("agd_memory.commands.recall:evaluate", "run a recall evaluation (cases JSON)"),
    "config": ("agd_memory.commands.config:config", "show or change recall settings"),
    "hook": (
        "agd_memory.commands.hook:hook",
        "run a Claude Code hook: session-start, prompt, session-end",
    ),
    "distill": ("agd_memory.commands.distill:distill", "distil a transcript, or show recent runs"),
    "mcp": ("agd_memory.commands.servers:mcp", "start the MCP server on stdio"),
    "mcp-config": (
        "agd_memory.commands.servers:mcp_config",
        "print the MCP registration for a client",
    ),
    "view": ("agd_memory.commands.servers:view", "open the local web viewer"),
    "migrate": (
        "agd_memory.commands.maintenance:migrate",
        "migrate old memory files (refs, lifecycle)",
    ),
    "merge": ("agd_memory.commands.maintenance:merge", "merge one memory file into another"),
    "doctor": ("agd_memory.commands.maintenance:doctor", "check memory files and the installation"),
    "stale": ("agd_memory.commands.stale:stale", "entries citing changed code, or unused"),
    "keys": ("agd_memory.commands.distill:keys", "add search keys to entries (claude -p)"),
    "review": (
        "agd_memory.commands.review:review_verb",
        "accept, reject or edit the proposals waiting for review",
    ),
    "consolidate": (
        "agd_memory.commands.consolidate:consolidate",
        "merge duplicates, supersede contradictions, drop junk (claude -p)",
    ),
    "team": ("agd_memory.commands.team:team", "share memory through git: team init, team resolve"),
    "merge-driver": (
        "agd_memory.commands.team:merge_driver",
        "git's merge driver for the team file",
    ),
    "import": (
        "agd_memory.commands.import_memory:import_memory",
        "import Claude Code's auto memory",
    ),
    "setup": (
        "agd_memory.commands.setup:setup",
        "switch Claude Code's auto memory off (one memory)",
    ),
    "install-cli": (
        "agd_memory.commands.install_cli:install_cli",
        "put `agd-memory` and `agd` on your PATH (launchers that follow plugin updates)",
    ),
    "uninstall-cli": (
        "agd_memory.commands.install_cli:uninstall_cli",
        "remove the launchers install-cli wrote",
    ),
}


def usage() -> str:
    lines = ["usage: agd-memory <command> [options]", "", "commands:"]
    width = max(len(v) for v in VERBS)
    lines += [f"  {verb.ljust(width)}  {summary}" for verb, (_, summary) in VERBS.items()]
    lines += ["", "Run `agd-memory <command> --help` for a command's options."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return 0 if args else 2
    if args[0] in ("-V", "--version"):
        print(f"agd-memory {__version__}")
        return 0
    verb, rest = args[0], args[1:]
    if verb not in VERBS:
        print(f"agd-memory: unknown command `{verb}`\n\n{usage()}", file=sys.stderr)
        return 2
    target, _ = VERBS[verb]
    module_name, func_name = target.split(":")
    from agd.errors import AgdError

    from .commands import UsageError
    from .errors import UserError

    try:
        __import__(module_name)  # not importlib's: a hook does not import importlib
        func = getattr(sys.modules[module_name], func_name)
        return int(func(rest) or 0)
    except UsageError as exc:
        print(f"{exc.usage}\n{exc}", file=sys.stderr)
        return 2
    except (UserError, AgdError) as exc:
        print(f"agd-memory: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # the reader went away (`agd-memory keys --print-prompt | head`): no traceback, and
        # none at exit either, when Python flushes stdout into the closed pipe
        import contextlib

        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        # a file the domain did not expect to fail (a folder where a file should be, a
        # full disk): what and where, as one line
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"agd-memory: {verb}: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except Exception as exc:
        if _debug():
            raise
        print(
            f"agd-memory: {verb}: internal error ({type(exc).__name__}: {exc}); "
            "set AGD_MEMORY_DEBUG=1 for the traceback, and please report it",
            file=sys.stderr,
        )
        return 1


def _debug() -> bool:
    """`AGD_MEMORY_DEBUG` on: a bug shows its traceback instead of one line."""
    from .settings import FALSE_WORDS

    return os.environ.get("AGD_MEMORY_DEBUG", "").strip().lower() not in FALSE_WORDS


if __name__ == "__main__":
    sys.exit(main())
