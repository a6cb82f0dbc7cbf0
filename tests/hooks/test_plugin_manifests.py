"""The plugin's manifests and skills: what `/plugin install` and the model read."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hookutil import REPO

import agd_memory
from agd_memory.cli import VERBS

SKILLS = ("memory", "remember", "recall-lang", "memory-view")
COMMANDS = ("setup", "review", "team-init", "doctor", "install-cli", "history")
"""Skills the user types as slash commands (`/agd-memory:<name>`); the model never picks them."""
MCP_TOOLS = ("agd_memory_toc", "agd_memory_search", "agd_memory_get", "agd_memory_save")


def read_json(relative: str) -> dict:
    return json.loads((REPO / relative).read_text(encoding="utf-8"))


def frontmatter(skill: str) -> tuple[dict[str, str], str]:
    text = (REPO / "skills" / skill / "SKILL.md").read_text(encoding="utf-8")
    match = re.match(r"---\n(.*?)\n---\n(.*)", text, re.S)
    assert match, f"skills/{skill}/SKILL.md has no frontmatter"
    fields = {}
    for line in match.group(1).splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip().strip('"')
    return fields, match.group(2)


def test_plugin_manifest() -> None:
    manifest = read_json(".claude-plugin/plugin.json")
    assert manifest["name"] == "agd-memory"
    assert manifest["version"] == agd_memory.__version__
    assert manifest["license"] == "MIT"
    assert re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])


def test_marketplace_installs_this_repository_as_agd_memory() -> None:
    # `/plugin marketplace add <repo>` then `/plugin install agd-memory@agd-memory`.
    market = read_json(".claude-plugin/marketplace.json")
    assert market["name"] == "agd-memory"
    assert market["owner"]["name"]
    (entry,) = market["plugins"]
    assert entry["name"] == "agd-memory"
    assert entry["source"] == "./"


@pytest.mark.parametrize("skill", SKILLS)
def test_skill_frontmatter(skill: str) -> None:
    fields, body = frontmatter(skill)
    assert fields["name"] == skill
    assert 40 <= len(fields["description"]) <= 1024
    assert body.strip()


TRIGGERS = {
    "memory": ["what do you remember", "recall", "memory", "ricordi", "cosa sai di", "memoria"],
    "remember": [
        "remember this",
        "save to memory",
        "ricordati",
        "ricorda questo",
        "salvalo in memoria",
    ],
    "recall-lang": ["enable italian recall", "recall language", "abilita italiano per il recall"],
    "memory-view": ["show my memory", "memory graph", "apri il viewer", "mostra la memoria"],
}


@pytest.mark.parametrize("skill", SKILLS)
def test_skill_description_triggers_in_english_and_italian(skill: str) -> None:
    description = frontmatter(skill)[0]["description"].lower()
    for phrase in TRIGGERS[skill]:
        assert phrase in description, f"{skill}: {phrase!r} missing"


def mcp_server_key() -> str:
    mcp = REPO / ".mcp.json"
    if not mcp.exists():
        return "agd-memory"
    (key,) = json.loads(mcp.read_text(encoding="utf-8"))["mcpServers"]
    return key


def test_skills_name_mcp_tools_as_claude_code_does() -> None:
    # Plugin MCP tools are `mcp__plugin_<plugin>_<server>__<tool>`, with characters outside
    # A-Za-z0-9_- replaced by `_`.
    server = re.sub(r"[^A-Za-z0-9_-]", "_", mcp_server_key())
    prefix = f"mcp__plugin_agd-memory_{server}__"
    text = "".join(frontmatter(s)[1] for s in SKILLS)
    for name in re.findall(r"mcp__[A-Za-z0-9_-]+", text):
        assert name.startswith(prefix), name
        assert name[len(prefix) :] in MCP_TOOLS, name
    for tool in ("agd_memory_toc", "agd_memory_get", "agd_memory_save"):
        assert prefix + tool in text


def test_skills_call_only_existing_verbs() -> None:
    for skill in SKILLS + COMMANDS:
        body = frontmatter(skill)[1]
        for verb in re.findall(r'bin/agd-memory"? ([a-z-]+)', body):
            assert verb in VERBS, f"skills/{skill}: unknown verb {verb}"


def test_skill_files_are_the_only_ones_in_skills() -> None:
    found = sorted(p.parent.name for p in (REPO / "skills").glob("*/SKILL.md"))
    assert found == sorted(SKILLS + COMMANDS)
    assert all(isinstance(p, Path) for p in (REPO / "skills").iterdir())


@pytest.mark.parametrize("command", COMMANDS)
def test_slash_commands_run_the_plugins_program_and_only_when_typed(command: str) -> None:
    fields, body = frontmatter(command)
    assert fields["name"] == command
    assert fields["disable-model-invocation"] == "true"  # a user action, typed by the user
    assert '"${CLAUDE_PLUGIN_ROOT}/bin/agd-memory"' in body
    # what the skill may run without a prompt is the program itself, one verb at a time
    for rule in re.findall(r"Bash\(([^)]*)\)", str(fields["allowed-tools"])):
        assert rule.startswith('"${CLAUDE_PLUGIN_ROOT}/bin/agd-memory" '), rule
