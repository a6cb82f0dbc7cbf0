"""`agd-memory config`: the one config file, languages added rather than replaced, and
where each value comes from (default, config file, userConfig, environment)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agd_memory.cli import main

MEMORY = """@meta format=agd version=1 [#meta]

@h1 Project memory [#root]

@x-project desc="what could you tell me about this" [#filler-trap]
~~~
A block whose words are all English function words.
~~~

@x-project desc="quando sono questi rilasci" [#rilasci]
~~~
I rilasci escono il venerdi.
~~~
"""

ENGLISH_FILLER = "could you tell me what this is about"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def config_file(env) -> Path:
    return env.home / ".claude" / "agd-memory" / "config.json"


@pytest.fixture
def memory(env) -> Path:
    path = env.root / "memory.agd"
    path.write_text(MEMORY, encoding="utf-8")
    return path


def langs_in(config_file: Path) -> list[str] | None:
    return json.loads(config_file.read_text(encoding="utf-8")).get("langs")


def recall_skip(capsys, memory: Path, prompt: str) -> str | None:
    rc, out, err = run(capsys, "recall", prompt, "--json", "--file", str(memory))
    assert rc == 0, err
    return json.loads(out)["skipped"]


def test_enable_from_the_defaults_keeps_every_language_chosen_per_prompt(
    capsys, env, memory: Path, config_file: Path
) -> None:
    assert recall_skip(capsys, memory, ENGLISH_FILLER) == "prompt_below_min_words"
    rc, out, _ = run(capsys, "config", "enable", "it")
    assert rc == 0 and "it is already on" in out and "nothing changed" in out
    assert not config_file.exists() or langs_in(config_file) is None
    # the earlier rule left only Italian, and this English filler prompt then recalled
    assert recall_skip(capsys, memory, ENGLISH_FILLER) == "prompt_below_min_words"


def test_enable_adds_to_a_pinned_list_and_disable_removes_one(
    capsys, env, memory: Path, config_file: Path
) -> None:
    run(capsys, "config", "set", "en")
    assert recall_skip(capsys, memory, "quando sono questi") is None  # recalled
    rc, out, _ = run(capsys, "config", "enable", "it")
    assert rc == 0 and "enabled it. langs = en,it" in out and str(config_file) in out
    assert langs_in(config_file) == ["en", "it"]
    assert recall_skip(capsys, memory, "quando sono questi") == "prompt_below_min_words"
    assert recall_skip(capsys, memory, ENGLISH_FILLER) == "prompt_below_min_words"
    rc, out, _ = run(capsys, "config", "enable", "it")
    assert rc == 0 and "already enabled" in out
    rc, out, _ = run(capsys, "config", "disable", "en")
    assert rc == 0 and "langs = it" in out and langs_in(config_file) == ["it"]
    rc, out, _ = run(capsys, "config", "disable", "de")
    assert rc == 0 and "not enabled" in out
    rc, _, err = run(capsys, "config", "disable", "it")
    assert rc == 1 and "config reset" in err and err.count("\n") == 1
    assert langs_in(config_file) == ["it"]


def test_disable_with_no_list_says_which_list_to_pin(capsys, env, config_file: Path) -> None:
    rc, out, err = run(capsys, "config", "disable", "de")
    assert rc == 1 and out == ""
    assert err == (
        "agd-memory: no language list is set, so de is used only for prompts written in it; "
        "to leave it out of every prompt, pin the others: agd-memory config set en,it,es,fr,pt\n"
    )
    assert not config_file.exists()


def test_unknown_language_and_set(capsys, env, config_file: Path) -> None:
    rc, _, err = run(capsys, "config", "enable", "xx")
    assert rc == 2 and "unknown built-in lang 'xx'" in err
    rc, _, err = run(capsys, "config", "set", "en,zz")
    assert rc == 2 and "unknown built-in lang zz" in err
    run(capsys, "config", "set", "")
    assert langs_in(config_file) == []
    text = config_file.read_text(encoding="utf-8")
    assert text.endswith("\n") and '  "langs"' in text


def test_reset_empties_the_file_and_an_old_file_does_not_come_back(
    capsys, env, config_file: Path
) -> None:
    old = env.data / "recall.json"  # the earlier place, in the plugin data folder
    old.parent.mkdir(parents=True)
    old.write_text('{"langs": ["it"]}', encoding="utf-8")
    _, out, _ = run(capsys, "config", "show")
    assert "langs: it [config file]" in out and langs_in(config_file) == ["it"]
    rc, out, _ = run(capsys, "config", "reset")
    assert rc == 0 and out.startswith(f"emptied {config_file}")
    _, out, _ = run(capsys, "config", "show")
    assert "each prompt uses the ones it is written in [default]" in out
    assert old.read_text(encoding="utf-8") == '{"langs": ["it"]}'
    rc, out, _ = run(capsys, "config", "reset")
    assert rc == 0 and out.startswith("nothing to reset")


def test_show_names_the_source_of_each_value(
    capsys, env, config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, out, _ = run(capsys, "config", "show")
    assert f"config file: {config_file}" in out
    assert "langs: en,it,es,fr,de,pt, each prompt uses the ones it is written in [default]" in out
    assert "  AGD_RECALL_TOP_K=3  [default]" in out
    assert "plugin options (userConfig" in out and "recall_langs" in out
    run(capsys, "config", "set", "it")
    monkeypatch.setenv("CLAUDE_PLUGIN_ROOT", str(env.root))
    monkeypatch.setenv("CLAUDE_PLUGIN_OPTION_DISTILL_DISABLED", "true")
    monkeypatch.setenv("AGD_RECALL_TOP_K", "5")
    _, out, _ = run(capsys, "config", "show")
    assert "langs: it [config file]" in out
    assert "  AGD_DISTILL_DISABLED=True  [userConfig (distill_disabled)]" in out
    assert "  AGD_RECALL_TOP_K=5  [environment (AGD_RECALL_TOP_K)]" in out
    monkeypatch.setenv("CLAUDE_PLUGIN_OPTION_RECALL_LANGS", "en,fr")
    _, out, _ = run(capsys, "config", "show")
    assert "langs: en,fr [userConfig (recall_langs)]" in out
    _, _, err = run(capsys, "config", "enable", "de")
    assert "the plugin option recall_langs (userConfig) is set and wins" in err
    monkeypatch.setenv("AGD_RECALL_LANGS", "en")
    _, out, err = run(capsys, "config", "enable", "es")
    assert "langs: " not in out and "AGD_RECALL_LANGS in the environment is set and wins" in err
    _, out, _ = run(capsys, "config", "show")
    assert "langs: en [environment (AGD_RECALL_LANGS)]" in out


def test_a_shell_sees_the_plugin_options_claude_code_stored(capsys, env) -> None:
    """A skill's command runs without Claude Code's hook variables: the options come from
    `pluginConfigs` in the user's settings, as the hooks get them."""
    settings = env.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    stored = {
        "agd-memory@inline": {"options": {"recall_langs": "de"}},
        "agd-memory@agd-memory": {"options": {"recall_langs": "en,it", "distill_disabled": True}},
        "other@agd-memory": {"options": {"recall_langs": "fr"}},
    }
    settings.write_text(json.dumps({"pluginConfigs": stored}), encoding="utf-8")
    _, out, _ = run(capsys, "config", "show")
    assert "langs: en,it [userConfig (recall_langs)]" in out
    assert "  AGD_DISTILL_DISABLED=True  [userConfig (distill_disabled)]" in out
    _, _, err = run(capsys, "config", "set", "fr")
    assert "the plugin option recall_langs (userConfig) is set and wins" in err


def test_stopwords_file(capsys, env, config_file: Path) -> None:
    sw = env.root / "sw.txt"
    sw.write_text("foo\n", encoding="utf-8")
    rc, _, err = run(capsys, "config", "stopwords-file", str(env.root / "missing.txt"))
    assert rc == 2 and "no such file" in err
    rc, _, _ = run(capsys, "config", "stopwords-file", str(sw))
    assert rc == 0
    assert json.loads(config_file.read_text())["stopwords_file"] == str(sw.resolve())
    _, out, _ = run(capsys, "config", "show")
    assert f"stopwords file: {sw.resolve()} [config file]" in out
    run(capsys, "config", "stopwords-file")
    assert "stopwords_file" not in json.loads(config_file.read_text())


def test_config_without_subcommand_is_rc2(capsys, env) -> None:
    rc, _, err = run(capsys, "config")
    assert rc == 2 and err.startswith("usage: agd-memory config") and "show|enable" in err
    rc, _, err = run(capsys, "config", "bogus")
    assert rc == 2 and "agd-memory config: error: argument" in err and "'bogus'" in err


def test_a_shell_reads_the_options_of_the_installed_copy_it_runs_from(capsys, env) -> None:
    """Two marketplaces carry agd-memory: the options are those of the id Claude Code
    installed this copy under, the ones its hooks get as CLAUDE_PLUGIN_OPTION_*."""
    from agd_memory.settings import PLUGIN_ROOT, Settings

    config = env.home / ".claude"
    (config / "plugins").mkdir(parents=True)
    stored = {
        "agd-memory@agd-memory": {"options": {"recall_langs": "en"}},
        "agd-memory@team-market": {"options": {"recall_langs": "de,it"}},
    }
    (config / "settings.json").write_text(json.dumps({"pluginConfigs": stored}), "utf-8")
    record = {"agd-memory@team-market": [{"scope": "user", "installPath": str(PLUGIN_ROOT)}]}
    (config / "plugins" / "installed_plugins.json").write_text(
        json.dumps({"version": 2, "plugins": record}), "utf-8"
    )
    _, out, _ = run(capsys, "config", "show")
    assert "langs: de,it [userConfig (recall_langs)]" in out
    hook = Settings.load(
        {
            "HOME": str(env.home),
            "CLAUDE_PLUGIN_ROOT": str(PLUGIN_ROOT),
            "CLAUDE_PLUGIN_OPTION_RECALL_LANGS": "de,it",
        }
    )
    assert hook.recall_langs == Settings.load({"HOME": str(env.home)}).recall_langs


def test_the_mcp_server_reads_the_options_a_hook_gets(env) -> None:
    """Claude Code starts the MCP server with CLAUDE_PLUGIN_ROOT but without the
    CLAUDE_PLUGIN_OPTION_* variables it gives hooks: the server reads the stored options."""
    from agd_memory.settings import PLUGIN_ROOT, Settings

    config = env.home / ".claude"
    config.mkdir(parents=True, exist_ok=True)
    stored = {"agd-memory@agd-memory": {"options": {"recall_disabled": True}}}
    (config / "settings.json").write_text(json.dumps({"pluginConfigs": stored}), "utf-8")
    base = {"HOME": str(env.home), "CLAUDE_PLUGIN_ROOT": str(PLUGIN_ROOT)}
    server = Settings.load(base)
    hook = Settings.load({**base, "CLAUDE_PLUGIN_OPTION_RECALL_DISABLED": "true"})
    assert server.recall_disabled is True and hook.recall_disabled is True
