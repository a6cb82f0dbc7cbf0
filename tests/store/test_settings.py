"""Settings: one table of variables, defaults stated once; environment over plugin option
over the config file, which lives outside the plugin data folder and is migrated once."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agd_memory.settings import (
    FIELDS,
    USER_CONFIG,
    VARIABLES,
    Settings,
    migrate_legacy,
    option_key,
    reset_config,
)

REPO = Path(__file__).resolve().parents[2]


def test_every_variable_is_a_field_in_table_order_with_the_tables_default() -> None:
    assert list(FIELDS[: len(VARIABLES)]) == [v.attr for v in VARIABLES]
    defaults = Settings()
    for var in VARIABLES:
        assert getattr(defaults, var.attr) == var.default, var.name


def write_json(path: Path, data: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_environment_beats_plugin_option_beats_config_file_beats_default(tmp_path: Path) -> None:
    config_dir = tmp_path / "claude"
    write_json(
        config_dir / "agd-memory" / "config.json",
        {
            "AGD_RECALL_TOP_K": 5,
            "AGD_RECALL_MIN_WORDS": 4,
            "langs": ["en"],
            "AGD_DISTILL_MODEL": "m",
        },
    )
    s = Settings.load(
        {
            "CLAUDE_CONFIG_DIR": str(config_dir),
            "AGD_RECALL_TOP_K": "7",
            "CLAUDE_PLUGIN_OPTION_RECALL_LANGS": "en,it",
            "CLAUDE_PLUGIN_OPTION_RECALL_DISABLED": "true",
            "AGD_RECALL_DISABLED": "0",
            "CLAUDE_PLUGIN_OPTION_DISTILL_MODEL": "",  # a field left empty is not a value
            "CLAUDE_PLUGIN_OPTION_RECALL_MIN_WORDS": "9",  # not offered as a plugin option
        }
    )
    assert (s.recall_top_k, s.recall_min_words, s.recall_token_budget) == (7, 4, 1200)
    assert (s.recall_langs, s.recall_disabled, s.distill_model) == (("en", "it"), False, "m")
    assert s.sources == {
        "recall_top_k": "environment",
        "recall_min_words": "config file",
        "recall_langs": "userConfig",
        "recall_disabled": "environment",
        "distill_model": "config file",
    }


def test_one_config_file_for_shell_and_hooks_outside_the_plugin_data(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shell = {"HOME": str(home)}
    hook = {**shell, "CLAUDE_PLUGIN_DATA": str(home / ".claude/plugins/data/agd-memory-x")}
    assert Settings.load(shell).config_file == Settings.load(hook).config_file
    assert Settings.load(hook).config_file == home / ".claude" / "agd-memory" / "config.json"
    moved = {**hook, "CLAUDE_CONFIG_DIR": str(tmp_path / "cc")}
    assert Settings.load(moved).config_file == tmp_path / "cc" / "agd-memory" / "config.json"
    assert Settings.load(hook).data_dir == home / ".claude/plugins/data/agd-memory-x"


def test_an_earlier_recall_json_is_copied_once_newest_first_and_kept(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plugin_data = home / ".claude" / "plugins" / "data" / "agd-memory-agd-memory"
    old_hook = write_json(plugin_data / "recall.json", {"langs": ["it"]})
    old_shell = write_json(home / ".local/share/agd-memory/recall.json", {"langs": ["en", "de"]})
    os.utime(old_hook, (1_000_000, 1_000_000))
    shell = {"HOME": str(home)}  # a shell sees neither CLAUDE_PLUGIN_DATA nor the hooks' folder
    s = Settings.load(shell)
    assert (s.recall_langs, s.sources["recall_langs"]) == (("en", "de"), "config file")
    assert json.loads(s.config_file.read_text()) == {"langs": ["en", "de"]}
    assert old_hook.exists() and old_shell.exists()
    # once: a later change of an old file is not copied over the new one
    write_json(old_shell, {"langs": ["fr"]})
    assert Settings.load(shell).recall_langs == ("en", "de")
    # reset empties the file, and the old settings do not come back
    assert reset_config(s.config_file) is True
    assert Settings.load(shell).recall_langs is None


def test_a_migration_never_overwrites_a_file_written_meanwhile(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_json(home / ".local/share/agd-memory/recall.json", {"langs": ["it"]})
    env = {"HOME": str(home)}
    target = write_json(home / ".claude/agd-memory/config.json", {"langs": ["en", "fr"]})
    # a process that saw no file a moment ago migrates now: the newer file stays
    assert migrate_legacy(env, target) == {"langs": ["en", "fr"]}
    assert json.loads(target.read_text()) == {"langs": ["en", "fr"]}
    assert sorted(p.name for p in target.parent.iterdir()) == ["config.json"]


def test_the_hooks_plugin_data_file_is_found_from_a_shell(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_json(home / ".claude/plugins/data/agd-memory-agd-memory/recall.json", {"langs": ["it"]})
    s = Settings.load({"HOME": str(home)})
    assert s.recall_langs == ("it",)
    assert s.config_file.is_file()


def test_a_malformed_old_file_is_not_migrated(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "recall.json").write_text("[" * 1000, encoding="utf-8")
    s = Settings.load({"HOME": str(tmp_path), "CLAUDE_PLUGIN_DATA": str(data)})
    assert s.recall_langs is None and not s.config_file.exists()


def test_the_manifest_offers_exactly_the_user_config_switches() -> None:
    manifest = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    options = manifest["userConfig"]
    assert sorted(options) == sorted(option_key(name) for name in USER_CONFIG)
    kinds = {bool: "boolean", str: "string", list: "string", int: "number", float: "number"}
    by_name = {v.name: v for v in VARIABLES}
    for name in USER_CONFIG:
        option = options[option_key(name)]
        assert option["type"] == kinds[by_name[name].kind], name
        assert "default" not in option, (
            f"{name}: a default would be exported and hide the config file"
        )


def test_bad_number_keeps_the_default_and_zero_is_off(tmp_path: Path) -> None:
    env = {
        "CLAUDE_PLUGIN_DATA": str(tmp_path),
        "AGD_RECALL_TOP_K": "many",
        "AGD_RECALL_DISABLED": "0",
    }
    s = Settings.load(env)
    assert s.recall_top_k == 3
    assert s.recall_disabled is False


def test_claude_code_s_config_folder_is_decided_once_for_the_config_file_and_the_paths(
    tmp_path,
) -> None:
    from agd_memory import paths
    from agd_memory.settings import Settings

    home = tmp_path / "memory-home"
    env = {"AGD_MEMORY_HOME": str(home), "HOME": str(tmp_path / "other"), "CLAUDE_CONFIG_DIR": " "}
    settings = Settings.load(env)
    assert paths.claude_dir(settings) == home / ".claude"
    assert settings.config_file == paths.claude_dir(settings) / "agd-memory" / "config.json"
    chosen = tmp_path / "claude-config"
    settings = Settings.load({**env, "CLAUDE_CONFIG_DIR": str(chosen)})
    assert paths.claude_dir(settings) == chosen == settings.config_file.parent.parent
