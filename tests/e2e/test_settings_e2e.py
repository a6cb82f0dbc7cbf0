"""Settings reach the hooks of the real Claude Code: `config enable it`, run by the model
with the `recall-lang` skill's own command line, changes the next session's prompt hook,
and a plugin option (`userConfig`) reaches the hook below the environment.

Claude Code runs a skill's Bash commands without `CLAUDE_PLUGIN_DATA` while its hooks
have it; the config file lives where both look (`<Claude config dir>/agd-memory/`).
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from e2e_harness import REPO, Reply, base_env

pytestmark = pytest.mark.e2e

RECALL_HEADER = "[agd-memory:auto-recall]"
MEMORY = """@meta format=agd version=1 [#meta]

@h1 Project memory [#root]

@x-project desc="quando sono questi rilasci" [#project-rilasci]
~~~
I rilasci escono il venerdi alle 16.
~~~
"""
ITALIAN_FILLER = "quando sono questi"
"""Three Italian function words: content words to English-only stopwords, none to Italian."""


def skill_command(action: str) -> str:
    """The skill's command line for `action`, as Claude Code shows it to the model (with
    `${CLAUDE_PLUGIN_ROOT}` replaced by the plugin folder)."""
    text = (REPO / "skills" / "recall-lang" / "SKILL.md").read_text(encoding="utf-8")
    line = re.search(
        r'^"\$\{CLAUDE_PLUGIN_ROOT\}/bin/agd-memory" config ' + action + r"\b.*$", text, re.M
    )
    assert line, f"the skill has no `config {action}` command"
    return line.group(0).split("#")[0].strip().replace("${CLAUDE_PLUGIN_ROOT}", str(REPO))


def recalled(run) -> bool:
    assert run.ok, run.diagnose()
    return RECALL_HEADER in run.conversation[0].message_text()


def test_config_enable_through_the_skill_reaches_the_next_prompt_hook(
    claude, fake_api, e2e_project
) -> None:
    e2e_project.write_memory(MEMORY)
    # The user's earlier choice, made in a shell: English only.
    shell = base_env(e2e_project, fake_api.url)
    done = subprocess.run(
        [str(REPO / "bin" / "agd-memory"), "config", "set", "en"],
        env=shell,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert recalled(claude(ITALIAN_FILLER))  # Italian function words matched the block

    command = skill_command("enable")
    assert command.endswith("config enable it")
    fake_api.script(
        Reply.tool_use("Skill", {"skill": "agd-memory:recall-lang", "args": "enable it"}),
        Reply.tool_use("Bash", {"command": command, "description": "enable Italian recall"}),
        Reply.text("Italian is on for recall."),
    )
    run = claude("abilita italiano per il recall", allowed_tools=["Skill", "Bash"])
    assert run.ok, run.diagnose()
    # The model read this command line in the skill Claude Code loaded, then ran it.
    assert command in run.conversation[1].message_text()
    results = "\n".join(r for req in run.conversation for r in req.tool_results())
    assert "enabled it. langs = en,it" in results, results[-2000:]

    assert not recalled(claude(ITALIAN_FILLER))  # the next session's prompt hook has it
    config_file = e2e_project.config_dir / "agd-memory" / "config.json"
    assert '"it"' in config_file.read_text(encoding="utf-8")


def test_a_plugin_option_reaches_the_hook_and_the_environment_wins(
    claude, fake_api, e2e_project
) -> None:
    """`userConfig` values as Claude Code stores them (`pluginConfigs` in the user's
    settings; a `--plugin-dir` plugin is `name@inline`) arrive in the hook's environment
    as `CLAUDE_PLUGIN_OPTION_<KEY>`; `AGD_*` in the environment still wins."""
    e2e_project.write_memory(MEMORY)
    settings = e2e_project.config_dir / "settings.json"
    options = {"recall_disabled": True}
    settings.write_text(
        json.dumps({"pluginConfigs": {"agd-memory@inline": {"options": options}}}),
        encoding="utf-8",
    )
    assert recalled(claude(ITALIAN_FILLER + " rilasci")) is False
    assert recalled(claude(ITALIAN_FILLER + " rilasci", env={"AGD_RECALL_DISABLED": "0"}))
