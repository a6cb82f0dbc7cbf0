"""`agd-memory config`: show or change the settings kept in the config file.

The rules (where the file is, which keys exist, languages, the stopwords file, reset)
are in `agd_memory.settings`; this verb parses, calls one of them and prints.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from .. import settings as rules
from ..settings import USER_CONFIG, VARIABLES, Settings, option_key
from .args import verb_parser


def config(argv: list[str]) -> int:
    p = verb_parser(
        "config",
        "Show or change the settings kept in the config file (userConfig and the environment win).",
        "agd-memory config enable it   |   agd-memory config stopwords-file ~/my-stopwords.txt",
    )
    sub = p.add_subparsers(dest="command", metavar="show|enable|disable|set|reset|stopwords-file")
    sub.required = True
    sub.add_parser("show", help="the config file, languages and every setting with its source")
    sub.add_parser("enable", help="add a built-in stopword language").add_argument("lang")
    sub.add_parser("disable", help="remove a built-in stopword language").add_argument("lang")
    sub.add_parser(
        "set", help="pin the stopword languages, comma list (empty for none)"
    ).add_argument("langs", metavar="LANG[,LANG...]")
    sub.add_parser("reset", help="empty the config file: every setting back to its default")
    sub.add_parser(
        "stopwords-file", help="extra stopwords, one a line (no PATH: clear)"
    ).add_argument("path", nargs="?")
    args = p.parse_args(argv)
    settings = Settings.load()
    path = settings.config_file
    if args.command == "show":
        return _show(settings)
    if args.command == "reset":
        had = rules.reset_config(path)
        print(f"{'emptied' if had else 'nothing to reset in'} {path}; settings at their defaults")
        return 0
    from ..recall.text import BUILTIN_LANGS

    data = rules.read_config(path)
    parser = sub.choices[args.command]  # a VerbParser: subparsers take their parent's class
    try:
        if args.command in ("enable", "disable"):
            lang = args.lang.strip().lower()
            changed = rules.toggle_lang(
                data, lang, enable=args.command == "enable", known=BUILTIN_LANGS
            )
            if changed is None:
                print(_unchanged(data, lang, args.command == "enable"))
                return 0
            message = f"{args.command}d {lang}. langs = {_langs(changed)}"
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
    print(f"{message} (saved to {path}; the next prompt uses it)")
    winner = _winner(settings, var)
    if winner:
        print(f"note: {winner} is set and wins over the config file", file=sys.stderr)
    return 0


def _unchanged(data: Mapping[str, object], lang: str, enable: bool) -> str:
    if rules.config_langs(data) is None:
        from ..recall.text import BUILTIN_LANGS

        return (
            f"{lang} is already on: no language list is set, so each prompt uses the built-in "
            f"languages it is written in ({','.join(BUILTIN_LANGS)}); nothing changed"
        )
    state = "already enabled" if enable else "not enabled"
    return f"{lang} is {state}. langs = {_langs(data)}"


def _langs(data: Mapping[str, object]) -> str:
    langs = rules.config_langs(data)
    return "(chosen per prompt)" if langs is None else ",".join(langs) or "(none)"


def _winner(settings: Settings, var: str) -> str:
    """What overrides the config file for `var`: the environment variable or the plugin option."""
    attr = next(v.attr for v in VARIABLES if v.name == var)
    source = settings.sources.get(attr)
    if source == "environment":
        return f"{var} in the environment"
    if source == "userConfig":
        return f"the plugin option {option_key(var)} (userConfig)"
    return ""


def _source(settings: Settings, var: rules.Variable) -> str:
    source = settings.sources.get(var.attr)
    if source == "environment":
        return f"environment ({var.name})"
    if source == "userConfig":
        return f"userConfig ({option_key(var.name)})"
    return source or "default"


def _show(settings: Settings) -> int:
    from ..recall.text import BUILTIN_LANGS

    by_attr = {v.attr: v for v in VARIABLES}
    print(f"config file: {settings.config_file}")
    langs = settings.recall_langs
    if langs is None:
        print(
            f"langs: {','.join(BUILTIN_LANGS)}, each prompt uses the ones it is written in [default]"
        )
    else:
        print(
            f"langs: {','.join(langs) or '(none)'} [{_source(settings, by_attr['recall_langs'])}]"
        )
    sw = settings.recall_stopwords_file
    source = _source(settings, by_attr["recall_stopwords_file"])
    print(f"stopwords file: {sw} [{source}]" if sw else "stopwords file: (none)")
    print(f"built-in langs: {','.join(BUILTIN_LANGS)}")
    print("settings:")
    for var in VARIABLES:
        value = getattr(settings, var.attr)
        if isinstance(value, tuple):
            value = ",".join(value)
        shown = "" if value is None else value
        print(f"  {var.name}={shown}  [{_source(settings, var)}]  {var.help}")
    options = ", ".join(option_key(name) for name in USER_CONFIG)
    print(f"plugin options (userConfig, set in Claude Code's /plugin): {options}")
    return 0
