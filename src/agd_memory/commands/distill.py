"""`agd-memory distill | keys`: the distiller in the foreground, its runs, and search keys.

Examples:

    agd-memory distill --status
    agd-memory distill ~/.claude/projects/-home-me-app/4f2e….jsonl --dry-run
    agd-memory keys --apply --langs en,it
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..distill import keys as search_keys
from ..distill import lockfile, pipeline, runlog, state
from ..errors import UserError
from ..settings import Settings
from .args import verb_parser


def distill(argv: Sequence[str]) -> int:
    p = verb_parser(
        "distill",
        "Distil a session transcript into memory, or show what the distiller did.",
        "agd-memory distill ~/.claude/projects/<project>/<session>.jsonl --dry-run",
    )
    p.add_argument("transcript", nargs="?", help="a Claude Code transcript (.jsonl) to distil now")
    p.add_argument(
        "--status",
        action="store_true",
        help="show recent runs, what each saved, and pending sessions",
    )
    p.add_argument("--limit", type=int, default=10, help="runs shown by --status (default 10)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the proposals and what would happen; write nothing",
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="read the whole transcript, not only what is new since the last run",
    )
    p.add_argument(
        "--cwd", help="project folder whose memory is used (default: the current folder)"
    )
    p.add_argument("--session-id", default="", help="session id recorded in the log")
    args = p.parse_args(list(argv))
    settings = Settings.load()
    if args.status:
        return status(settings, args.limit, as_json=args.json)
    if not args.transcript:
        raise UserError(
            "distill: give a transcript file, or --status (see `agd-memory distill --help`)"
        )
    return foreground(settings, args)


def status(settings: Settings, limit: int, *, as_json: bool) -> int:
    runs = runlog.recent_runs(settings, limit)
    pending = state.list_pending(settings)
    if as_json:
        print(
            json.dumps(
                {
                    "runs": runs,
                    "pending": [p._asdict() for p in pending],
                    "log": str(runlog.log_path(settings)),
                },
                indent=2,
            )
        )
        return 0
    if settings.distill_disabled:
        print("distiller: disabled (AGD_DISTILL_DISABLED)")
    if not runs:
        print("no distiller runs yet")
    for run in runs:
        saved = ", ".join(
            f"#{s['id']} ({s['action']})" for s in run.get("saved", []) if isinstance(s, dict)
        )
        session = str(run.get("session_id") or "?")[:8]
        line = f"{run.get('time', '?')}  {run.get('outcome', '?'):<8} session {session}  {run.get('detail', '')}"
        print(line)
        if saved:
            print(f"    saved: {saved}  -> {run.get('memory_file', '')}")
        for skip in run.get("skipped", []) or []:
            if isinstance(skip, dict):
                print(f"    {skip.get('action')}: #{skip.get('id')} {skip.get('why', '')}")
    if pending:
        print(
            f"pending: {len(pending)} session(s) waiting: "
            + ", ".join((p.session_id or p.key)[:8] for p in pending)
        )
    print(f"log: {runlog.log_path(settings)}")
    for folder in plugin_data_folders(settings):
        print(
            f"also: runs recorded by the installed plugin in {folder}; see them with "
            f"CLAUDE_PLUGIN_DATA={folder} agd-memory distill --status"
        )
    return 0


def plugin_data_folders(settings: Settings) -> list[Path]:
    """Claude Code's data folders of this plugin that hold distiller runs, other than ours.

    Hooks run with `CLAUDE_PLUGIN_DATA` (`~/.claude/plugins/data/<plugin id>/`); a shell
    usually does not, so `--status` would otherwise look in the fallback folder and
    find nothing.
    """
    if os.environ.get("CLAUDE_PLUGIN_DATA"):
        return []
    from .. import paths

    config = paths.claude_dir(settings)  # the one decision (AGD_MEMORY_HOME honoured)
    found = []
    for folder in sorted(config.glob("plugins/data/agd-memory*")):
        if (
            folder / "distill" / "runs.jsonl"
        ).is_file() and folder.resolve() != settings.data_dir.resolve():
            found.append(folder)
    return found


def foreground(settings: Settings, args: argparse.Namespace) -> int:
    path = os.path.abspath(os.path.expanduser(args.transcript))
    if not os.path.isfile(path):
        raise UserError(f"distill: no transcript at {path}: pass the .jsonl file of a session")
    from .. import paths

    cwd = os.path.abspath(args.cwd) if args.cwd else os.getcwd()
    layers = paths.resolve(settings, cwd=cwd)
    item = state.Pending(path, args.session_id, cwd, "manual", time.time())

    def say(message: str) -> None:
        runlog.log(settings, message)
        if not args.json:
            print(f"  {message}")

    if args.dry_run:
        result = pipeline.distil(settings, item, layers, log=say, dry_run=True, whole=args.all)
    else:
        memory = layers.project.path
        try:
            lock = lockfile.acquire(
                lockfile.lock_path(settings, memory), memory, stale_s=settings.distill_lock_stale_s
            )
        except lockfile.Held as held:
            raise UserError(f"distill: {memory}: {held}; try again when it has finished") from None
        try:
            result = pipeline.distil(settings, item, layers, log=say, whole=args.all)
        finally:
            lockfile.release(lock)
        runlog.record_run(settings, result.as_record(item, str(memory)))
    return _print(result, as_json=args.json)


def _print(result: pipeline.Result, *, as_json: bool) -> int:
    if as_json:
        out = {
            "outcome": result.outcome,
            "detail": result.detail,
            "proposals": result.raw_proposals,
            "outcomes": [
                {"action": o.action, "id": o.id, "message": o.message, "layer": o.layer}
                for o in result.report.outcomes
            ],
        }
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print(f"{result.outcome}: {result.detail}")
        for o in result.report.outcomes:
            print(f"- {o.action}: {o.message}")
            if o.proposal is not None:
                p = o.proposal
                print(f"    @{p.kind} #{p.id} scope={p.scope} status={p.status or '-'}: {p.desc}")
                for line in p.body.splitlines():
                    print(f"      {line}")
    return 1 if result.outcome == "failed" else 0


def keys(argv: Sequence[str]) -> int:
    p = verb_parser(
        "keys",
        "Give search keys (synonyms, a user's wording, each of the user's languages) to the "
        "memory entries with fewer than 12, after the keys they have, asking a headless "
        "`claude -p` in batches. Dry run unless --apply.",
        "agd-memory keys --apply --langs en,it",
    )
    p.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="memory files (default: the current project's and the global one)",
    )
    p.add_argument("--apply", action="store_true", help="write the keys (default: print them)")
    p.add_argument(
        "--all",
        action="store_true",
        help="every entry, whatever keys it has (the new keys go after them)",
    )
    p.add_argument(
        "--batch",
        type=int,
        default=search_keys.DEFAULT_BATCH,
        metavar="N",
        help=f"entries per claude call (default {search_keys.DEFAULT_BATCH})",
    )
    p.add_argument(
        "--langs",
        metavar="en,it",
        help="the user's languages for translated keys (default: AGD_RECALL_LANGS, "
        "else English plus the languages the entries and your requests are written in)",
    )
    p.add_argument(
        "--print-prompt",
        action="store_true",
        help="print the system prompt and message(s) it would send, and exit",
    )
    p.add_argument(
        "--from",
        dest="answers",
        type=Path,
        metavar="ANSWERS.json",
        help='use a saved answer ({"entries": [{"id", "keys"}]}) instead of calling claude',
    )
    args = p.parse_intermixed_args(list(argv))
    if args.batch < 1:
        raise UserError(f"keys: --batch must be at least 1, not {args.batch}")
    langs = [x.strip() for x in (args.langs or "").split(",") if x.strip()] or None

    settings = Settings.load()
    files = list(args.files) or search_keys.default_files(settings)
    if not files:
        print("no memory files found; pass FILE paths, or see `agd-memory where`")
        return 0
    warn = _warn_keys
    targets, failed = search_keys.open_targets(files, settings, everything=args.all, warn=warn)
    pending = sum(len(t.entries) for t in targets)
    if not pending:
        print("no entries need keys" + ("" if args.all else " (--all adds to every entry's)"))
        return 1 if failed else 0

    if args.print_prompt:
        search_keys.print_prompts(targets, settings, langs, args.batch)
        return 1 if failed else 0
    if args.answers is not None:
        search_keys.from_answers(targets, search_keys.read_answers(args.answers), warn)
    else:
        try:
            search_keys.ask_claude(targets, settings, langs, args.batch, warn)
        except UserError:
            if any(t.found for t in targets):  # what earlier batches found is not lost
                search_keys.report(targets, apply=args.apply, note=" before the failure")
            raise
    search_keys.report(targets, apply=args.apply)
    return 1 if failed else 0


def _warn_keys(text: str) -> None:
    print(f"agd-memory keys: {text}", file=sys.stderr)
