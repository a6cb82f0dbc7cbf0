"""`agd-memory config`: show or change the recall settings kept in the config file.

The rules (which keys exist, languages, the stopwords file, reset) are in
`agd_memory.settings`; this verb parses, calls one of them and prints.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from .. import settings as rules
from ..settings import VARIABLES, Settings
from .args import VerbParser, verb_parser


def config(argv: list[str]) -> int:
    p = verb_parser(
        "config",
        "Show or change the recall settings kept in the config file (the environment wins).",
        "agd-memory config enable it   |   agd-memory config stopwords-file ~/my-stopwords.txt",
    )
    sub = p.add_subparsers(dest="command", metavar="show|enable|disable|set|reset|stopwords-file")
    sub.required = True
    sub.add_parser("show", help="the config file, languages and every AGD_RECALL_* setting")
    for name in ("enable", "disable"):
        sub.add_parser(name, help=f"{name} a built-in stopword language").add_argument("lang")
    sub.add_parser("set", help="the stopword languages, comma list (empty for none)").add_argument(
        "langs", metavar="LANG[,LANG...]"
    )
    sub.add_parser("reset", help="remove the config file: every setting back to its default")
    sub.add_parser(
        "stopwords-file", help="extra stopwords, one a line (no PATH: clear)"
    ).add_argument("path", nargs="?")
    args = p.parse_args(argv)
    settings = Settings.load()
    path = settings.config_file
    if args.command == "show":
        return _show(settings)
    if args.command == "reset":
        if rules.reset_config(path):
            print(f"removed {path}; settings back to their defaults")
        else:
            print(f"no config file at {path}; nothing to reset")
        return 0
    from ..recall.text import BUILTIN_LANGS

    data = rules.read_config(path)
    parser: VerbParser = sub.choices[args.command]  # type: ignore[assignment]
    try:
        if args.command in ("enable", "disable"):
            changed = rules.toggle_lang(
                data, args.lang, enable=args.command == "enable", known=BUILTIN_LANGS
            )
            if changed is None:
                state = "already enabled" if args.command == "enable" else "not enabled"
                print(f"{args.lang.strip().lower()} is {state}. langs = {_langs(data)}")
                return 0
            message = f"{args.command}d {args.lang.strip().lower()}. langs = {_langs(changed)}"
            var = "AGD_RECALL_LANGS"
        elif args.command == "set":
            changed = rules.set_langs(data, args.langs.split(","), BUILTIN_LANGS)
            message, var = f"langs = {_langs(changed)}", "AGD_RECALL_LANGS"
        else:
            changed = rules.set_stopwords_file(data, args.path)
            file = changed.get("stopwords_file")
            message = f"stopwords file = {file}" if file else "stopwords file cleared"
            var = "AGD_RECALL_STOPWORDS_FILE"
    except ValueError as exc:
        parser.error(str(exc))
    rules.write_config(path, changed)
    print(f"{message} (saved to {path})")
    if var in os.environ:
        print(
            f"note: {var} is set in the environment and wins over the config file", file=sys.stderr
        )
    return 0


def _langs(data: Mapping[str, object]) -> str:
    return ",".join(rules.config_langs(data)) or "(none)"


def _show(settings: Settings) -> int:
    from ..recall.text import BUILTIN_LANGS

    print(f"config file: {settings.config_file}")
    langs, source = _langs_with_source(settings)
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


def _langs_with_source(settings: Settings) -> tuple[list[str], str]:
    source = settings.sources.get("recall_langs")
    if source == "env":
        return list(settings.recall_langs or ()), "env (AGD_RECALL_LANGS)"
    if source == "config file":
        return list(settings.recall_langs or ()), "config file"
    from ..recall.engine import langs_of

    return list(langs_of(settings)), "default: each prompt uses the ones it is written in"


def _source_label(source: str, var: str) -> str:
    return f"env ({var})" if source == "env" else (source or "default")
