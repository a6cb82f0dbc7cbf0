"""`agd-memory search | recall | eval`: thin adapters over `agd_memory.recall`."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from ..settings import VARIABLES, Settings
from .args import emit_json, verb_parser

if TYPE_CHECKING:
    from ..recall.engine import NearMiss, RecallResult
    from ..recall.search import Hit
    from ..store import MemoryFile


def _memory_files(
    settings: Settings, file_args: list[str] | None, scope: str = "all"
) -> list[MemoryFile]:
    """`--file F` (repeatable; the first is the project layer) or the resolved layers."""
    from ..store import MemoryFile, open_files

    if file_args:
        out = []
        for i, name in enumerate(file_args):
            path = Path(name).expanduser()
            if not path.is_file():
                raise UserError(f"{path}: no such memory file; check the path given to --file")
            out.append(MemoryFile(path, layer="project" if i == 0 else "global", settings=settings))
        return out
    from .. import paths

    return open_files(paths.resolve(settings).select(scope), settings)


def _readable(files: list[MemoryFile]) -> tuple[list[MemoryFile], bool]:
    """The files that load; a layer left out is reported on stderr (the verb exits 1)."""
    from .. import unreadable

    ok, bad = unreadable.readable(files)
    unreadable.warn(bad)
    return ok, bool(bad)


# ---------------------------------------------------------------- recall


def recall(argv: list[str]) -> int:
    """Print what auto-recall would inject for PROMPT."""
    from ..recall import engine, policy

    p = verb_parser("recall", recall.__doc__, 'agd-memory recall "how do we deploy?" --json')
    p.add_argument("prompt", help="the prompt, as the user would type it")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--file", action="append", help="memory file (repeat: project, then global)")
    args = p.parse_args(argv)
    settings = Settings.load()
    files, left_out = _readable(_memory_files(settings, args.file))
    result = engine.recall(args.prompt, files, settings)
    near = engine.near_misses(args.prompt, files, settings) if result.skipped == policy.NO_MATCH else []
    if args.json:
        emit_json(recall_json(result, near))
    elif result.skipped:
        print(f"nothing injected: {result.skipped}")
        _print_near_misses(near)
    else:
        text = result.render()
        for s in result.chosen:
            print(f"#{s.entry.id}  {s.entry.kind}  {s.layer}  score {s.score:.3f}")
        print(f"injected: {len(text)} chars, ~{_tokens(len(text))} tokens\n")
        print(text)
    return 1 if left_out else 0  # a layer left out was named on stderr


def _print_near_misses(near: list[NearMiss]) -> None:
    """The blocks that came closest, and what would bring them: the words of the prompt as
    keys of the block (`agd-memory keys`), or a prompt that names it."""
    if not near:
        return
    print("closest blocks (share of the prompt's information they hold / share needed):")
    for n in near:
        print(f"  #{n.entry.id}  {n.share:.0%} / {n.need:.0%}  {n.entry.desc or ''}".rstrip())
        if n.share >= n.need:
            print("    enough, but the prompt names no word of its id, desc or keys, or matches it too weakly")
    print(
        "a block whose desc or keys use your words holds more of a prompt like this one; "
        "`agd-memory keys` adds keys, `agd-memory search` finds a block by its words"
    )


def _tokens(chars: int) -> int:
    from ..recall.policy import estimate_tokens

    return estimate_tokens(chars)


def recall_json(result: RecallResult, near: list[NearMiss]) -> dict[str, Any]:
    """The `recall --json` object (keys pinned by tests/recall/test_recall_cli.py); `near`:
    the blocks that came closest when nothing was relevant enough."""
    text = result.render()
    return {
        "skipped": result.skipped,
        "words": result.words,
        "chosen": [
            {
                "id": str(s.entry.id),
                "kind": str(s.entry.kind),
                "layer": s.layer,
                "score": round(s.score, 4),
                "chars": len(s.text),
            }
            for s in result.chosen
        ],
        "injected_chars": len(text),
        "injected_tokens": _tokens(len(text)) if text else 0,
        "context": text,
        "closest": [
            {"id": str(n.entry.id), "share": round(n.share, 4), "need": round(n.need, 4)}
            for n in near
        ],
    }


# ---------------------------------------------------------------- search


def search(argv: list[str]) -> int:
    """Ranked search over the memory layers (recall's gates do not apply)."""
    from ..recall import search as ranked

    p = verb_parser("search", search.__doc__, 'agd-memory search "backup restore" --limit 5 --json')
    p.add_argument("query")
    p.add_argument("--limit", type=int, default=10, help="most hits (default 10)")
    p.add_argument("--kind", help="only this kind, e.g. x-project or project")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--file", action="append", help="memory file (repeat: project, then global)")
    p.add_argument(
        "--scope",
        default="all",
        choices=["all", "team", "project", "global", "history"],
        help="layer (default all: the curated layers; history: past sessions' exchanges)",
    )
    args = p.parse_args(argv)
    if args.limit < 1:
        raise UserError("--limit must be 1 or more")
    if args.scope == "history":
        from . import history

        return history.search(args.query, args.limit, args.json)
    settings = Settings.load()
    files, left_out = _readable(_memory_files(settings, args.file, args.scope))
    hits = ranked.search(
        args.query,
        files,
        settings,
        kind=args.kind,
        limit=args.limit,
    )
    if args.json:
        emit_json([search_json(h) for h in hits])
        return 1 if left_out else 0
    if not hits:
        print(f"no blocks match {args.query!r}")
        return 1 if left_out else 0
    for h in hits:
        desc = f"  {h.entry.desc}" if h.entry.desc else ""
        print(f"#{h.entry.id}  [{h.entry.kind}, {h.layer}]  {h.score:.2f}{desc}")
        print(f"    {h.excerpt}")
    return 1 if left_out else 0


def search_json(hit: Hit) -> dict[str, Any]:
    """One `search --json` hit (keys pinned by tests/recall/test_recall_cli.py)."""
    return {
        "id": str(hit.entry.id),
        "kind": str(hit.entry.kind),
        "layer": hit.layer,
        "desc": hit.entry.desc,
        "score": round(hit.score, 4),
        "excerpt": hit.excerpt,
    }


# ---------------------------------------------------------------- eval


def eval_settings(overrides: list[str]) -> Settings:
    """Defaults plus `VAR=VALUE` overrides; the user's environment and config file are ignored
    so a run is reproducible anywhere."""
    known = {v.name for v in VARIABLES}
    env = {"CLAUDE_PLUGIN_DATA": str(Path(tempfile.gettempdir()) / "agd-memory-eval-no-config")}
    for item in overrides:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or name not in known:
            raise UserError(
                f"--set {item}: expected VAR=VALUE with an AGD_* variable (see `agd-memory config show`)"
            )
        env[name] = value
    return Settings.load(env)


def evaluate(argv: list[str]) -> int:
    """Run a recall evaluation over a cases file through the hook's own gates and policy."""
    from ..recall.eval import evaluate as ev
    from ..recall.eval import features

    p = verb_parser(
        "eval", evaluate.__doc__, "agd-memory eval tests/data/recall-dev/cases.json --verbose"
    )
    p.add_argument("cases", nargs="?", help="cases JSON; corpora and global.agd sit beside it")
    p.add_argument(
        "--all",
        action="store_true",
        help="every evaluation set of this checkout, our recall against the earlier plugin's",
    )
    p.add_argument("--no-fuzzy", action="store_true", help="cognates off (AGD_RECALL_NO_FUZZY)")
    p.add_argument("--fuzzy-anchor-min", type=int, metavar="N", help="cognates needed to anchor")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="VAR=VALUE",
        help="override a setting for this run (repeatable)",
    )
    p.add_argument(
        "--features",
        default="default",
        help="'reference', 'default', a comma list, or -name,-name to drop from default",
    )
    p.add_argument(
        "--corpora",
        metavar="DIR",
        help="read each corpus from DIR, at its own path (quarry/en-quarry.agd) or by file "
        "name, with the global.agd beside it (the same memories rewritten, e.g. with keys)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--verbose", action="store_true", help="list misses and false injections")
    args = p.parse_args(argv)
    if args.all:
        from ..recall.eval import sets

        if args.cases or args.features != "default" or args.corpora:
            raise UserError(
                "eval --all runs every set as shipped; drop CASES, --features, --corpora"
            )
        rows = sets.compare(lambda extra: eval_settings(list(args.set) + extra))
        print(json.dumps(rows, indent=2) if args.json else sets.markdown(rows))
        return 0
    if not args.cases:
        raise UserError("eval: pass a cases JSON file, or --all for every set of this checkout")
    overrides = list(args.set)
    if args.no_fuzzy:
        overrides.append("AGD_RECALL_NO_FUZZY=1")
    if args.fuzzy_anchor_min is not None:
        overrides.append(f"AGD_RECALL_FUZZY_ANCHOR_MIN={args.fuzzy_anchor_min}")
    try:
        feats = features.parse(args.features)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    report = ev.run(
        Path(args.cases),
        eval_settings(overrides),
        features=feats,
        override=Path(args.corpora) if args.corpora else None,
    )
    if args.json:
        print(json.dumps(report.summary(), indent=2))
    else:
        print(ev.format_report(report, verbose=args.verbose))
    return 0
