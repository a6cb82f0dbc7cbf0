"""`agd-memory search | recall | eval | config`: thin adapters over `agd_memory.recall`."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..settings import VARIABLES, Settings, read_config, write_config
from .args import emit_json, verb_parser


def _memory_files(settings: Settings, file_args: list[str] | None) -> list[Any]:
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

    return open_files(paths.resolve(settings).select("all"), settings)


# ---------------------------------------------------------------- recall


def recall(argv: list[str]) -> int:
    """Print what auto-recall would inject for PROMPT."""
    from ..recall import engine

    p = verb_parser("recall", recall.__doc__, 'agd-memory recall "how do we deploy?" --json')
    p.add_argument("prompt", help="the prompt, as the user would type it")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--file", action="append", help="memory file (repeat: project, then global)")
    args = p.parse_args(argv)
    settings = Settings.load()
    result = engine.recall(args.prompt, _memory_files(settings, args.file), settings)
    text = result.render()
    if args.json:
        emit_json(recall_json(result))
        return 0
    if result.skipped:
        print(f"nothing injected: {result.skipped}")
        return 0
    for s in result.chosen:
        print(f"#{s.entry.id}  {s.entry.kind}  {s.layer}  score {s.score:.3f}")
    print(f"injected: {len(text)} chars, ~{_tokens(len(text))} tokens\n")
    print(text)
    return 0


def _tokens(chars: int) -> int:
    from ..recall.policy import estimate_tokens

    return estimate_tokens(chars)


def recall_json(result: Any) -> dict[str, Any]:
    """The `recall --json` object (keys pinned by tests/recall/test_recall_cli.py)."""
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
    args = p.parse_args(argv)
    if args.limit < 1:
        raise UserError("--limit must be 1 or more")
    settings = Settings.load()
    hits = ranked.search(
        args.query, _memory_files(settings, args.file), settings, kind=args.kind, limit=args.limit
    )
    if args.json:
        emit_json([search_json(h) for h in hits])
        return 0
    if not hits:
        print(f"no blocks match {args.query!r}")
        return 0
    for h in hits:
        desc = f"  {h.entry.desc}" if getattr(h.entry, "desc", None) else ""
        print(f"#{h.entry.id}  [{h.entry.kind}, {h.layer}]  {h.score:.2f}{desc}")
        print(f"    {h.excerpt}")
    return 0


def search_json(hit: Any) -> dict[str, Any]:
    """One `search --json` hit (keys pinned by tests/recall/test_recall_cli.py)."""
    return {
        "id": str(hit.entry.id),
        "kind": str(hit.entry.kind),
        "layer": hit.layer,
        "desc": getattr(hit.entry, "desc", None),
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
    from ..recall import evaluate as ev
    from ..recall import features

    p = verb_parser(
        "eval", evaluate.__doc__, "agd-memory eval tests/data/recall-dev/cases.json --verbose"
    )
    p.add_argument("cases", help="cases JSON; corpora and global.agd sit beside it")
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
        help="read a corpus found by file name in DIR from there, with DIR/global.agd "
        "(the same memories rewritten, e.g. with keys)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--verbose", action="store_true", help="list misses and false injections")
    args = p.parse_args(argv)
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


# ---------------------------------------------------------------- config


def config(argv: list[str]) -> int:
    """Show or change the recall settings kept in the config file (the environment wins).

    Examples: agd-memory config show | enable it | disable it | set en,it | reset
              agd-memory config stopwords-file ~/my-stopwords.txt
    """
    from ..recall.text import BUILTIN_LANGS

    settings = Settings.load()
    path = settings.config_file
    if not argv or argv[0] in ("-h", "--help"):
        print(config.__doc__, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    sub, rest = argv[0], argv[1:]
    data = read_config(path)
    if sub == "show":
        print(f"config file: {path}")
        langs, source = _langs_with_source(settings, data)
        print(f"langs: {','.join(langs) or '(none)'} [{source}]")
        sw = settings.recall_stopwords_file
        sw_source = settings.sources.get("recall_stopwords_file", "")
        print(
            f"stopwords file: {sw} [{_source_label(sw_source, 'AGD_RECALL_STOPWORDS_FILE')}]"
            if sw
            else "stopwords file: (none)"
        )
        print(f"built-in langs: {','.join(BUILTIN_LANGS)}")
        print("settings:")
        for var in VARIABLES:
            if not var.name.startswith("AGD_RECALL_"):
                continue
            value = getattr(settings, var.attr)
            if isinstance(value, tuple):
                value = ",".join(value)
            src = settings.sources.get(var.attr, "default")
            print(f"  {var.name}={'' if value is None else value}  [{src}]  {var.help}")
        return 0
    if sub in ("enable", "disable"):
        if len(rest) != 1:
            print(f"usage: agd-memory config {sub} LANG", file=sys.stderr)
            return 2
        lang = rest[0].strip().lower()
        langs = list(_file_langs(data))
        if sub == "enable":
            if lang not in BUILTIN_LANGS:
                print(
                    f"unknown built-in lang {lang!r} (built-in: {','.join(BUILTIN_LANGS)})",
                    file=sys.stderr,
                )
                return 2
            if lang in langs:
                print(f"{lang} is already enabled. langs = {','.join(langs)}")
                return 0
            langs.append(lang)
        else:
            if lang not in langs:
                print(f"{lang} is not enabled. langs = {','.join(langs) or '(none)'}")
                return 0
            langs.remove(lang)
        data["langs"] = langs
        write_config(path, data)
        print(f"{sub}d {lang}. langs = {','.join(langs) or '(none)'} (saved to {path})")
        _warn_env_wins("AGD_RECALL_LANGS")
        return 0
    if sub == "set":
        if len(rest) != 1:
            print(
                "usage: agd-memory config set LANG[,LANG...]  (empty string for none)",
                file=sys.stderr,
            )
            return 2
        langs = [x.strip().lower() for x in rest[0].split(",") if x.strip()]
        unknown = [x for x in langs if x not in BUILTIN_LANGS]
        if unknown:
            print(
                f"unknown built-in lang {','.join(unknown)} (built-in: {','.join(BUILTIN_LANGS)})",
                file=sys.stderr,
            )
            return 2
        data["langs"] = langs
        write_config(path, data)
        print(f"langs = {','.join(langs) or '(none)'} (saved to {path})")
        _warn_env_wins("AGD_RECALL_LANGS")
        return 0
    if sub == "reset":
        try:
            path.unlink()
            print(f"removed {path}; settings back to their defaults")
        except FileNotFoundError:
            print(f"no config file at {path}; nothing to reset")
        return 0
    if sub == "stopwords-file":
        if len(rest) > 1:
            print("usage: agd-memory config stopwords-file [PATH]", file=sys.stderr)
            return 2
        if not rest:
            data.pop("stopwords_file", None)
            write_config(path, data)
            print(f"stopwords file cleared (saved to {path})")
            return 0
        target = Path(rest[0]).expanduser()
        if not target.is_file():
            print(
                f"{target}: no such file; give an existing file of one word a line", file=sys.stderr
            )
            return 2
        data["stopwords_file"] = str(target.resolve())
        write_config(path, data)
        print(f"stopwords file = {data['stopwords_file']} (saved to {path})")
        _warn_env_wins("AGD_RECALL_STOPWORDS_FILE")
        return 0
    print(f"unknown config command {sub!r}\n{config.__doc__}", file=sys.stderr)
    return 2


def _file_langs(data: dict[str, Any]) -> list[str]:
    raw = data.get("langs")
    if isinstance(raw, str):
        return [x.strip().lower() for x in raw.split(",") if x.strip()]
    if isinstance(raw, list):
        return [str(x).strip().lower() for x in raw if str(x).strip()]
    return []


def _langs_with_source(settings: Settings, data: dict[str, Any]) -> tuple[list[str], str]:
    source = settings.sources.get("recall_langs")
    if source == "env":
        return list(settings.recall_langs or ()), "env (AGD_RECALL_LANGS)"
    if source == "config file":
        return list(settings.recall_langs or ()), "config file"
    from ..recall.engine import langs_of
    from ..recall.features import DEFAULT

    return list(langs_of(settings, DEFAULT)), "default: each prompt uses the ones it is written in"


def _source_label(source: str, var: str) -> str:
    return f"env ({var})" if source == "env" else (source or "default")


def _warn_env_wins(var: str) -> None:
    if var in os.environ:
        print(
            f"note: {var} is set in the environment and wins over the config file", file=sys.stderr
        )
