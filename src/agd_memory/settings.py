"""Every setting of agd-memory, read once: environment, plugin options and the config file.

Only entry points (hook adapters, CLI verbs, the MCP server, the viewer) call
`Settings.load()`; everything below them receives the object. The table
`VARIABLES` is the single list of `AGD_*` variables: the README's table is
generated from it and `agd-memory config show` prints it.

Precedence: the environment variable, then the plugin option of the same name
(`userConfig` in `.claude-plugin/plugin.json`, which Claude Code exports to hooks
and the MCP server as `CLAUDE_PLUGIN_OPTION_<NAME>` and a shell reads from Claude
Code's user settings; `USER_CONFIG` lists them), then the config file, then the default.

The config file is `<Claude config dir>/agd-memory/config.json` (`CLAUDE_CONFIG_DIR`,
else `~/.claude`): the same file for the CLI in a shell, the skills, the hooks and the
MCP server, and outside `${CLAUDE_PLUGIN_DATA}`, which Claude Code deletes when the
plugin is uninstalled. The earlier `recall.json` (in the plugin data folder or
`~/.local/share/agd-memory/`) is copied there once, the newest of them; the old file
stays. Booleans: `0`, `false`, `no`, `off` and the empty string are off (the earlier
plugin treated any non-empty value, even `0`, as on). A number that does not parse
falls back to the default and leaves a line in the debug log.
"""

from __future__ import annotations

import json
import os
import sys
from collections import namedtuple
from collections.abc import Mapping
from pathlib import Path

from . import debuglog

CONFIG_FILE_NAME = "config.json"
LEGACY_CONFIG_NAME = "recall.json"
"""The config file's earlier name, in the plugin data folder (migrated once)."""
OPTION_PREFIX = "CLAUDE_PLUGIN_OPTION_"
FALSE_WORDS = frozenset(("", "0", "false", "no", "off"))


# Variable and Settings are built without `dataclasses`: every hook process loads the
# settings, and importing dataclasses (with `inspect` behind it) and generating a
# 38-field class cost more than the rest of a small hook's work.


class Variable(namedtuple("Variable", "name attr kind default help")):
    """`name`: the environment variable, e.g. `AGD_RECALL_TOP_K`; `attr`: the field of
    `Settings` it sets. A named tuple, not a `typing.NamedTuple`: `typing` costs a hook
    3-5 ms to import."""

    __slots__ = ()

    name: str
    attr: str
    kind: type
    default: object
    help: str


# fmt: off
VARIABLES: tuple[Variable, ...] = (
    # Where memory lives (paths.py)
    Variable("AGD_MEMORY_FILE", "memory_file", str, None, "force the project memory file"),
    Variable("AGD_MEMORY_PROJECT_CWD", "project_cwd", str, None, "project folder used to find the project layer"),
    Variable("AGD_MEMORY_HOME", "home", str, None, "replaces the home folder for every memory path"),
    Variable("AGD_MEMORY_GLOBAL_FILE", "global_file", str, None, "the global layer's file"),
    Variable("AGD_MEMORY_TEAM_FILE", "team_file", str, None, "the team layer's file (default <repository root>/.claude/memory.agd)"),
    Variable("AGD_MEMORY_TODAY", "today", str, None, "pins today's date (YYYY-MM-DD), for tests"),
    Variable("AGD_MEMORY_DEBUG", "debug", bool, False, "echo every debug-log line to stderr (environment only)"),
    # Table of contents (toc.py)
    Variable("AGD_TOC_TOKEN_BUDGET", "toc_token_budget", int, 2000, "SessionStart table of contents budget, tokens"),
    # Auto-recall (recall/)
    Variable("AGD_RECALL_DISABLED", "recall_disabled", bool, False, "turn auto-recall off"),
    Variable("AGD_RECALL_TOP_K", "recall_top_k", int, 3, "most blocks injected per prompt"),
    Variable("AGD_RECALL_MIN_WORDS", "recall_min_words", int, 3, "fewest content words a prompt needs"),
    Variable("AGD_RECALL_MIN_WORD_LEN", "recall_min_word_len", int, 3, "shortest prompt word that counts"),
    Variable("AGD_RECALL_TOKEN_BUDGET", "recall_token_budget", int, 1200, "recall budget, tokens (x4 characters)"),
    Variable("AGD_RECALL_MAX_PROMPT_CHARS", "recall_max_prompt_chars", int, 4000, "longer prompts are not recalled for"),
    Variable("AGD_RECALL_MIN_SCORE_RATIO", "recall_min_score_ratio", float, 0.35, "floor as a fraction of the best score"),
    Variable("AGD_RECALL_MIN_SCORE", "recall_min_score", float, 0.6, "absolute score floor"),
    Variable("AGD_RECALL_ALLOW_BODY_ONLY", "recall_allow_body_only", bool, False, "allow blocks matched only in their body"),
    Variable("AGD_RECALL_ALLOW_SUPERSEDED", "recall_allow_superseded", bool, False, "allow superseded blocks"),
    Variable("AGD_RECALL_NO_GLOBAL", "recall_no_global", bool, False, "leave the global layer out of recall"),
    Variable("AGD_RECALL_NO_FUZZY", "recall_no_fuzzy", bool, False, "turn cross-lingual cognate matching off"),
    Variable("AGD_RECALL_REPEAT", "recall_repeat", bool, False, "inject a block whole each time it matches, even when the conversation already holds it"),
    Variable("AGD_RECALL_FUZZY_ANCHOR_MIN", "recall_fuzzy_anchor_min", int, 2, "cognate hits needed to anchor a block"),
    Variable("AGD_RECALL_CODE_LINE_RATIO", "recall_code_line_ratio", float, 0.4, "indented-line share that marks a code paste"),
    Variable("AGD_RECALL_DEBUG", "recall_debug", bool, False, "log skip reasons and chosen ids to stderr (environment only)"),
    Variable("AGD_RECALL_LANGS", "recall_langs", list, None, "stopword languages, comma list (default: chosen per prompt)"),
    Variable("AGD_RECALL_STOPWORDS_FILE", "recall_stopwords_file", str, None, "extra stopwords, one per line"),
    Variable("AGD_RECALL_SYNONYMS_FILE", "recall_synonyms_file", str, None, "synonyms file (default .agd-synonyms beside the memory)"),
    # Distiller (distill/)
    Variable("AGD_DISTILL_DISABLED", "distill_disabled", bool, False, "turn session-end capture off"),
    Variable("AGD_DISTILL_GUARD", "distill_guard", bool, False, "set in the distiller's child: every hook exits at once"),
    Variable("AGD_DISTILL_MODEL", "distill_model", str, "claude-sonnet-4-6", "model of the headless pass"),
    Variable("AGD_DISTILL_RETRIES", "distill_retries", int, 3, "attempts on transient failures"),
    Variable("AGD_DISTILL_BACKOFF_S", "distill_backoff_s", float, 30.0, "linear backoff step, seconds"),
    Variable("AGD_DISTILL_LOCK_STALE_S", "distill_lock_stale_s", float, 1800.0, "age at which a distiller lock is broken"),
    Variable("AGD_DISTILL_TIMEOUT_S", "distill_timeout_s", float, 300.0, "time limit of one headless run"),
    Variable("AGD_DISTILL_MIN_TOOL_USES", "distill_min_tool_uses", int, 4, "tool uses that make a session worth distilling"),
    Variable("AGD_DISTILL_MIN_EDITS", "distill_min_edits", int, 1, "edits that make a session worth distilling"),
    Variable("AGD_DISTILL_CLAUDE", "distill_claude", str, "claude", "the claude executable"),
    Variable("AGD_DISTILL_EXCERPT_CHARS", "distill_excerpt_chars", int, 60000, "most transcript characters sent to the headless pass"),
    Variable("AGD_DISTILL_KEYS_PER_SESSION", "distill_keys_per_session", int, 20, "older entries without search keys given keys after each distilled session (0: off)"),
    Variable("AGD_DISTILL_KEYS_EVERY_S", "distill_keys_every_s", float, 600.0, "entries saved without search keys (MCP or CLI save, a hand edit, a merge) get them from a background run, at most this often per memory file, seconds (0: only after distilled sessions)"),
    Variable("AGD_DISTILL_TEAM", "distill_team", bool, True, "the distiller proposes project facts a teammate needs for the team layer, when the repository has one (0: everything stays private)"),
    Variable("AGD_DISTILL_REVIEW", "distill_review", bool, None, "review mode: proposals, keys and consolidation plans wait in `agd-memory review` instead of being written (default: on for the team layer only)"),
    # Session history (history/)
    Variable("AGD_HISTORY_DISABLED", "history_disabled", bool, False, "turn the session history off (no exchange is kept at session end)"),
    Variable("AGD_HISTORY_MAX_DAYS", "history_max_days", float, 365.0, "sessions older than this many days are dropped from the history (0: no age bound)"),
    Variable("AGD_HISTORY_MAX_MB", "history_max_mb", float, 200.0, "the history of one project is kept under this many MB, oldest sessions dropped first (0: no bound)"),
    Variable("AGD_CONSOLIDATE_EVERY_DAYS", "consolidate_every_days", float, 7.0, "automatic consolidation at most once per this many days (0: off)"),
    Variable("AGD_CONSOLIDATE_MIN_NEW", "consolidate_min_new", int, 20, "new entries since the last pass that make an automatic one due"),
    Variable("AGD_CONSOLIDATE_CHUNK_TOKENS", "consolidate_chunk_tokens", int, 12000, "entries sent to one consolidation call, tokens"),
)
# fmt: on

USER_CONFIG: tuple[str, ...] = (
    "AGD_RECALL_DISABLED",
    "AGD_RECALL_LANGS",
    "AGD_DISTILL_DISABLED",
    "AGD_DISTILL_MODEL",
    "AGD_HISTORY_DISABLED",
)
"""The switches also offered as plugin options: `userConfig` in `.claude-plugin/plugin.json`
has one option per name, keyed by the name without `AGD_`, lower case (`recall_langs`)."""


def option_key(name: str) -> str:
    """The `userConfig` key of a variable: `AGD_RECALL_LANGS` -> `recall_langs`."""
    return name.removeprefix("AGD_").lower()


class Settings:
    """All settings, immutable. Build with `Settings.load()`; tests use `Settings.load(env)`.

    Keyword arguments set fields (`Settings(recall_top_k=5)`); a field not given takes its
    default from `VARIABLES`. Equality, hashing and `repr` go by the fields (see `FIELDS`).
    """

    # One field per `VARIABLES` row, same order; the defaults are the table's, set on the
    # class just after it, so each default is written once.
    memory_file: str | None
    project_cwd: str | None
    home: str | None
    global_file: str | None
    team_file: str | None
    today: str | None
    debug: bool
    toc_token_budget: int
    recall_disabled: bool
    recall_top_k: int
    recall_min_words: int
    recall_min_word_len: int
    recall_token_budget: int
    recall_max_prompt_chars: int
    recall_min_score_ratio: float
    recall_min_score: float
    recall_allow_body_only: bool
    recall_allow_superseded: bool
    recall_no_global: bool
    recall_no_fuzzy: bool
    recall_repeat: bool
    recall_fuzzy_anchor_min: int
    recall_code_line_ratio: float
    recall_debug: bool
    recall_langs: tuple[str, ...] | None
    recall_stopwords_file: str | None
    recall_synonyms_file: str | None
    distill_disabled: bool
    distill_guard: bool
    distill_model: str
    distill_retries: int
    distill_backoff_s: float
    distill_lock_stale_s: float
    distill_timeout_s: float
    distill_min_tool_uses: int
    distill_min_edits: int
    distill_claude: str
    distill_excerpt_chars: int
    distill_keys_per_session: int
    distill_keys_every_s: float
    distill_team: bool
    distill_review: bool | None
    history_disabled: bool
    history_max_days: float
    history_max_mb: float
    consolidate_every_days: float
    consolidate_min_new: int
    consolidate_chunk_tokens: int

    data_dir: Path
    """Plugin data folder (`debuglog.data_dir_from`): `CLAUDE_PLUGIN_DATA`, else `$XDG_DATA_HOME/agd-memory`, else `~/.local/share/agd-memory`.
    Default: `~/.local/share/agd-memory` (set in `__init__`)."""
    plugin_root: Path | None = None
    """`CLAUDE_PLUGIN_ROOT` when run by Claude Code."""
    config_file: Path
    """The config file (`config_file_from`). Default: `~/.claude/agd-memory/config.json`."""
    claude_dir: Path | None = None
    """Claude Code's config folder, decided once (`claude_dir_from`); None: `.claude` in the
    home folder (`paths.claude_dir`)."""
    claude_project_dir_name: str | None = None
    """`CLAUDE_CODE_PROJECT_DIR_NAME`: the name of this project's folder under Claude Code's
    `projects/` (`paths`), when set."""
    claude_auto_memory_off: str | None = None
    """`CLAUDE_CODE_DISABLE_AUTO_MEMORY` as set (`claude/setup.state`), when set."""
    sources: Mapping[str, str]
    """For each field set from outside its default: `environment`, `userConfig` or
    `config file`. Default `{}`."""

    def __init__(self, **values: object) -> None:
        unknown = sorted(set(values) - set(FIELDS))
        if unknown:
            raise TypeError(f"Settings() got unexpected keyword argument(s): {', '.join(unknown)}")
        if "data_dir" not in values:
            values["data_dir"] = Path.home() / ".local/share/agd-memory"
        if "config_file" not in values:
            values["config_file"] = Path.home() / ".claude" / "agd-memory" / CONFIG_FILE_NAME
        if "sources" not in values:
            values["sources"] = {}
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Settings are immutable: use settings.replace({name}=...)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Settings are immutable")

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in FIELDS)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in FIELDS)
        return f"Settings({fields})"

    @classmethod
    def load(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        data_dir = debuglog.data_dir_from(env)
        config_file = config_file_from(env)
        config = read_config(config_file)
        if not config and not os.path.lexists(config_file):
            config = migrate_legacy(env, config_file)
        options = plugin_options(env)
        values: dict[str, object] = {}
        sources: dict[str, str] = {}
        for var in VARIABLES:
            option = options.get(option_key(var.name))
            if var.name in env:
                raw, source = env[var.name], "environment"
            elif option is not None and str(option).strip():
                raw, source = option, "userConfig"
            elif var.name in config:
                raw, source = config[var.name], "config file"
            elif var.attr.removeprefix("recall_") in config and var.attr in (
                "recall_langs",
                "recall_stopwords_file",
            ):
                raw, source = config[var.attr.removeprefix("recall_")], "config file"
            else:
                continue
            value = _convert(var, raw)
            if value is not _INVALID:
                values[var.attr] = value
                sources[var.attr] = source
        root = env.get("CLAUDE_PLUGIN_ROOT") or None
        return cls(
            **values,
            data_dir=data_dir,
            config_file=config_file,
            claude_dir=claude_dir_from(env),
            claude_project_dir_name=env.get("CLAUDE_CODE_PROJECT_DIR_NAME", "").strip() or None,
            claude_auto_memory_off=env.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY") or None,
            plugin_root=Path(root) if root else None,
            sources=sources,
        )

    def replace(self, **changes: object) -> Settings:
        """A copy with some fields changed (per-run overrides in the eval)."""
        return Settings(**{**{name: getattr(self, name) for name in FIELDS}, **changes})


FIELDS: tuple[str, ...] = tuple(Settings.__annotations__)
"""Every field of `Settings`, in order (the annotated class attributes)."""

for _var in VARIABLES:
    type.__setattr__(Settings, _var.attr, _var.default)
del _var

_INVALID = object()


def _convert(var: Variable, raw: object) -> object:
    if var.kind is bool:
        if isinstance(raw, bool):
            return raw
        return str(raw).strip().lower() not in FALSE_WORDS
    if var.kind is list:
        items = [str(x) for x in raw] if isinstance(raw, list) else str(raw).split(",")
        return tuple(x.strip().lower() for x in items if x.strip())
    if var.kind in (int, float):
        try:
            if isinstance(raw, bool):
                raise ValueError(raw)
            return var.kind(str(raw).strip())
        except ValueError:
            debuglog.log(f"settings: {var.name}={raw!r} is not a number; using {var.default}")
            return _INVALID
    text = str(raw)
    return text if text else None


def claude_dir_from(env: Mapping[str, str]) -> Path:
    """Claude Code's config folder: `CLAUDE_CONFIG_DIR`, else `.claude` in the home folder
    (`AGD_MEMORY_HOME`, else `HOME`), as the memory paths use it."""
    given = env.get("CLAUDE_CONFIG_DIR", "").strip()
    if given:
        return Path(given).expanduser()
    home = env.get("AGD_MEMORY_HOME") or env.get("HOME")
    return (Path(home).expanduser() if home else Path.home()) / ".claude"


def config_file_from(env: Mapping[str, str]) -> Path:
    """The one config file: `<Claude config dir>/agd-memory/config.json`."""
    return claude_dir_from(env) / "agd-memory" / CONFIG_FILE_NAME


def legacy_config_files(env: Mapping[str, str]) -> list[Path]:
    """Where earlier versions kept the config file: the plugin data folder of the hooks
    (`CLAUDE_PLUGIN_DATA`, or any `plugins/data/agd-memory-*` folder of the Claude config
    dir, as a shell sees it) and the data folder of the CLI run from a shell."""
    shell_env = {k: v for k, v in env.items() if k != "CLAUDE_PLUGIN_DATA"}
    folders = [debuglog.data_dir_from(env), debuglog.data_dir_from(shell_env)]
    try:
        with os.scandir(claude_dir_from(env) / "plugins" / "data") as it:
            folders += sorted(Path(e.path) for e in it if e.name.startswith("agd-memory"))
    except OSError:
        pass
    return [f / LEGACY_CONFIG_NAME for f in dict.fromkeys(folders)]


def migrate_legacy(env: Mapping[str, str], target: Path) -> dict[str, object]:
    """Copy the newest earlier config file that holds settings to `target`, once (the old
    file stays); its settings, or `{}` when there is none. A failed write is logged and
    the old settings still apply to this process."""
    found: list[tuple[float, Path, dict[str, object]]] = []
    for path in legacy_config_files(env):
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue
        data = read_json_object(path, "settings")
        if data:
            found.append((mtime, path, data))
    if not found:
        return {}
    _, source, data = max(found, key=lambda item: item[0])
    try:
        if not _create_config(target, data):  # another process wrote it first: that wins
            return read_config(target)
        debuglog.log(f"settings: copied {source} to {target} (the old file is kept)")
    except OSError as exc:
        debuglog.log(f"settings: could not copy {source} to {target}: {exc}")
    return data


def _create_config(path: Path, data: Mapping[str, object]) -> bool:
    """Write `data` to `path` whole, only when `path` does not exist (a hard link of a
    finished temporary file); False when it already does."""
    staging = path.with_name(f".{path.name}.{os.getpid()}.new")
    write_config(staging, data)
    try:
        os.link(staging, path)
    except FileExistsError:
        return False
    finally:
        staging.unlink(missing_ok=True)
    return True


def plugin_options(env: Mapping[str, str]) -> dict[str, object]:
    """The plugin options (`userConfig`) set for agd-memory, by key. Claude Code exports them
    to hooks as `CLAUDE_PLUGIN_OPTION_<KEY>`; the MCP server (which has `CLAUDE_PLUGIN_ROOT`
    but not those), a shell and a skill's command read them where Claude Code keeps
    them: `pluginConfigs["agd-memory@<marketplace>"].options` in the user's settings, for
    the id this copy of the plugin is installed under (`installed_plugin_id`), so a shell
    gets the values its hooks get; else the first `agd-memory@` id, `@inline` last."""
    keys = [option_key(name) for name in USER_CONFIG]
    if any(k.startswith(OPTION_PREFIX) for k in env):
        found = {key: env.get(OPTION_PREFIX + key.upper()) for key in keys}
        return {key: value for key, value in found.items() if value is not None}
    path = claude_dir_from(env) / "settings.json"
    if not os.path.lexists(path):
        return {}
    configs = (read_json_object(path, "plugin options") or {}).get("pluginConfigs")
    if not isinstance(configs, dict):
        return {}
    ids = [k for k in configs if str(k).startswith("agd-memory@")]
    mine = installed_plugin_id(env, PLUGIN_ROOT) if len(ids) > 1 else None
    ids.sort(key=lambda k: (k != mine, k.endswith("@inline"), k))
    for plugin_id in ids:
        entry = configs[plugin_id]
        options = entry.get("options") if isinstance(entry, dict) else None
        if isinstance(options, dict):
            return {key: options[key] for key in keys if key in options}
    return {}


PLUGIN_ROOT = Path(__file__).resolve().parents[2]
"""The plugin copy (or checkout) this program runs from."""
INSTALLED_LIMIT = 4 * 1024 * 1024


def installed_plugin_id(env: Mapping[str, str], root: Path) -> str | None:
    """The id (`agd-memory@<marketplace>`) under which Claude Code installed the plugin copy
    at `root`, from its record `installed_plugins.json` (in `CLAUDE_CODE_PLUGIN_CACHE_DIR`,
    else the config folder's `plugins/`): the id whose options its hooks get. None for a
    copy Claude Code did not install (a checkout) or an unreadable record."""
    folder = env.get("CLAUDE_CODE_PLUGIN_CACHE_DIR") or str(claude_dir_from(env) / "plugins")
    try:
        with open(Path(folder).expanduser() / "installed_plugins.json", "rb") as fh:
            data = json.loads(fh.read(INSTALLED_LIMIT))
        plugins = data.get("plugins") if isinstance(data, dict) else None
        for plugin_id, entries in (plugins or {}).items():
            if not str(plugin_id).startswith("agd-memory@"):
                continue
            for entry in entries if isinstance(entries, list) else [entries]:
                where = entry.get("installPath") if isinstance(entry, dict) else None
                if isinstance(where, str) and os.path.realpath(where) == str(root):
                    return str(plugin_id)
    except (OSError, ValueError, AttributeError):
        return None
    return None


def read_config(path: Path) -> dict[str, object]:
    """The config file as a dict; missing, unreadable or malformed gives `{}` (logged)."""
    return read_json_object(path, "settings") or {}


CONFIG_LIMIT = 1024 * 1024
"""The most a settings file (the config file, the git-remote index) may hold."""


def read_json_object(path: Path, who: str) -> dict[str, object] | None:
    """A JSON object file: `{}` when missing, None (logged under `who`) when unreadable, too
    big, too deeply nested or not a JSON object. The config file and the git-remote index
    are read this way, so a FIFO or a hostile file there never hangs or crashes a hook."""
    from agd.errors import UnreadableFile
    from agd.files import read_text

    try:
        data = json.loads(read_text(path, CONFIG_LIMIT))
    except UnreadableFile as exc:
        if not os.path.lexists(path):
            return {}
        debuglog.log(f"{who}: ignoring {path}: {exc.reason}")
        return None
    except (ValueError, RecursionError) as exc:
        debuglog.log(f"{who}: ignoring {path}: not JSON ({type(exc).__name__}: {exc})")
        return None
    if not isinstance(data, dict):
        debuglog.log(f"{who}: ignoring {path}: not a JSON object")
        return None
    return data


def write_config(path: Path, data: Mapping[str, object]) -> None:
    """Replace the config file atomically (2-space indent, sorted keys, final newline)."""
    from agd.atomic import write_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(dict(data), indent=2, sort_keys=True) + "\n")


# -- the config file's rules (`agd-memory config` is a thin verb over these) -----------------


def config_langs(data: Mapping[str, object]) -> list[str] | None:
    """The stopword languages the config file pins (`"langs"`: a list or a comma string);
    None when it pins none, and each prompt then uses the built-in languages it is
    written in."""
    if "langs" not in data:
        return None
    raw = data["langs"]
    items = raw.split(",") if isinstance(raw, str) else raw if isinstance(raw, list) else []
    return [str(x).strip().lower() for x in items if str(x).strip()]


def set_langs(
    data: Mapping[str, object], langs: list[str], known: tuple[str, ...]
) -> dict[str, object]:
    """`data` with `"langs"` replaced; `ValueError` naming any language not in `known`."""
    langs = [x.strip().lower() for x in langs if x.strip()]
    unknown = [x for x in langs if x not in known]
    if unknown:
        raise ValueError(f"unknown built-in lang {','.join(unknown)} (built-in: {','.join(known)})")
    return {**data, "langs": langs}


def toggle_lang(
    data: Mapping[str, object], lang: str, *, enable: bool, known: tuple[str, ...]
) -> dict[str, object] | None:
    """`data` with `lang` added to (or removed from) the pinned `"langs"`; None when nothing
    changes. With no list pinned every built-in language is already on (each prompt uses
    the ones it is written in), so enabling one changes nothing and disabling one asks for
    the list to pin. `ValueError` for a language not in `known`; `UserError` when a disable
    cannot be done as asked."""
    from .errors import UserError

    lang = lang.strip().lower()
    if lang not in known:
        raise ValueError(f"unknown built-in lang {lang!r} (built-in: {','.join(known)})")
    langs = config_langs(data)
    if langs is None:
        if enable:
            return None
        rest = ",".join(x for x in known if x != lang)
        raise UserError(
            f"no language list is set, so {lang} is used only for prompts written in it; "
            f"to leave it out of every prompt, pin the others: agd-memory config set {rest}"
        )
    if (lang in langs) == enable:
        return None
    if not enable and langs == [lang]:
        raise UserError(
            f"{lang} is the only language set; removing it leaves no stopwords at all. "
            "Run `agd-memory config reset` (languages chosen per prompt) or `config set LANGS`"
        )
    return {**data, "langs": [*langs, lang] if enable else [x for x in langs if x != lang]}


def set_stopwords_file(data: Mapping[str, object], target: str | None) -> dict[str, object]:
    """`data` with the extra stopwords file set to the regular file `target` (absolute), or
    cleared when `target` is None; `ValueError` when it is not a readable regular file."""
    out = {k: v for k, v in data.items() if k != "stopwords_file"}
    if target is None:
        return out
    path = Path(target).expanduser()
    if not path.is_file():
        raise ValueError(f"{path}: no such file; give an existing file of one word a line")
    out["stopwords_file"] = str(path.resolve())
    return out


def reset_config(path: Path) -> bool:
    """Empty the config file: an empty object, not no file, so that no earlier file is
    migrated again. False when it held no settings."""
    had = bool(read_config(path))
    write_config(path, {})
    return had


if __name__ == "__main__":  # pragma: no cover - manual inspection
    print(Settings.load(), file=sys.stderr)
