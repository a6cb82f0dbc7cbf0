"""The plugin inside the real Claude Code: hooks fire, their context reaches the model.

Each test runs `claude -p` with this repository as `--plugin-dir` against the fake
Messages API and asserts on the request bodies the CLI sent, which is exactly what
the model would have read.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from e2e_harness import (
    MCP_PREFIX,
    REPO,
    Reply,
    base_env,
    claude_binary,
    has_mcp_server,
    require_claude,
)

pytestmark = pytest.mark.e2e

MEMORY = (REPO / "tests" / "hooks" / "fixtures" / "project-memory.agd").read_text(encoding="utf-8")
"""The memory the hook integration tests use too."""

RECALL_HEADER = "[agd-memory:auto-recall]"


def first_conversation(run):
    assert run.ok, run.diagnose()
    conversation = run.conversation
    assert conversation, run.diagnose()
    return conversation[0]


def test_plugin_validates() -> None:
    binary = require_claude()
    proc = subprocess.run(
        [binary, "plugin", "validate", "--strict", str(REPO)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "Validation passed" in out
    for event in ("SessionStart", "UserPromptSubmit", "SessionEnd"):
        assert f"hooks: {event}" in out
    for skill in ("memory", "remember", "recall-lang", "memory-view"):
        assert f"skills: agd-memory:{skill}" in out
    if has_mcp_server():
        assert "mcpServers: agd-memory stdio" in out


def tracked_copy(destination: Path) -> Path:
    """The repository's tracked files (working-tree content), as a user's clone would hold."""
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        source = REPO / name.decode()
        if source.is_file():
            target = destination / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def test_marketplace_install_then_hooks_run_from_the_installed_copy(
    claude, fake_api, e2e_project
) -> None:
    # `/plugin marketplace add <repo>` + `/plugin install agd-memory@agd-memory`, offline.
    clone = tracked_copy(e2e_project.root / "clone")
    env = base_env(e2e_project, fake_api.url)
    for argv in (["marketplace", "add", str(clone)], ["install", "agd-memory@agd-memory"]):
        proc = subprocess.run(
            [claude_binary(), "plugin", *argv],
            env=env,
            cwd=e2e_project.project,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    installed = e2e_project.config_dir / "plugins" / "cache" / "agd-memory" / "agd-memory"
    assert (installed / agd_version() / "hooks" / "run").is_file()

    e2e_project.write_memory(MEMORY)
    run = claude("hello", plugin_dir=None)
    text = first_conversation(run).message_text()
    assert "SessionStart hook additional context" in text, run.diagnose()
    assert "project-staging-pgbouncer" in text


def agd_version() -> str:
    import agd_memory

    return agd_memory.__version__


def test_first_request_carries_the_table_of_contents(claude, e2e_project) -> None:
    e2e_project.write_memory(MEMORY)
    run = claude("hello")
    text = first_conversation(run).message_text()
    assert "SessionStart hook additional context" in text, text[-3000:]
    for block_id in ("feedback-squash-merge", "project-staging-pgbouncer", "project-release-train"):
        assert block_id in text
    assert "staging Postgres sits behind pgbouncer on port 6432" in text
    # A TOC, not the file: bodies stay out until fetched.
    assert "never directly on 5432" not in text
    # The skills are offered to the model under the plugin's namespace.
    for skill in ("agd-memory:memory", "agd-memory:remember", "agd-memory:memory-view"):
        assert skill in first_conversation(run).all_text()


def test_resumed_session_gets_the_toc_again(claude, e2e_project) -> None:
    e2e_project.write_memory(MEMORY)
    first = claude("hello", persist_session=True)
    assert first.ok, first.diagnose()
    session = first.result["session_id"]
    e2e_project.write_memory(MEMORY.replace("every second Tuesday", "every third Tuesday"))
    resumed = claude("and now?", args=["--resume", session], persist_session=True)
    text = first_conversation(resumed).message_text()
    # SessionStart runs again with source "resume" and sees the file as it is now.
    assert "release train leaves every third Tuesday" in text, text[-3000:]


def test_no_memory_no_context(claude, e2e_project) -> None:
    run = claude("Which port does pgbouncer use for the staging Postgres database?")
    text = first_conversation(run).message_text()
    # Skills and the MCP server's instructions name the plugin; the hooks add nothing.
    assert "SessionStart hook additional context" not in text
    assert RECALL_HEADER not in text


def test_prompt_about_a_stored_fact_carries_that_block(claude, e2e_project) -> None:
    e2e_project.write_memory(MEMORY)
    run = claude("Which port does pgbouncer use for the staging Postgres database?")
    text = first_conversation(run).message_text()
    assert RECALL_HEADER in text, text[-3000:]
    assert "#project-staging-pgbouncer" in text
    assert "never directly on 5432" in text  # the body, which the TOC does not carry


def test_prompt_about_nothing_stored_carries_no_recall(claude, e2e_project) -> None:
    e2e_project.write_memory(MEMORY)
    run = claude("Write a short poem about autumn leaves falling in the rain")
    text = first_conversation(run).message_text()
    assert "SessionStart hook additional context" in text  # the TOC still arrives
    assert RECALL_HEADER not in text
    assert "never directly on 5432" not in text


def test_hooks_stay_silent_under_the_distiller_guard(claude, e2e_project) -> None:
    e2e_project.write_memory(MEMORY)
    run = claude(
        "Which port does pgbouncer use for the staging Postgres database?",
        env={"AGD_DISTILL_GUARD": "1"},
    )
    text = first_conversation(run).message_text()
    assert "SessionStart hook additional context" not in text
    assert RECALL_HEADER not in text


@pytest.mark.skipif(not has_mcp_server(), reason="needs the MCP helper's .mcp.json")
def test_mcp_save_then_get_through_claude_code(claude, fake_api, e2e_project) -> None:
    body = "Feature flags live in config/flags.yaml and are read once at boot."
    tools = [MCP_PREFIX + "agd_memory_save", MCP_PREFIX + "agd_memory_get"]
    fake_api.script(
        # Claude Code's default tool search defers MCP tools: the model loads them first
        Reply.tool_use("ToolSearch", {"query": "select:" + ",".join(tools)}),
        Reply.tool_use(
            "agd_memory_save",
            {
                "kind": "x-reference",
                "id": "reference-feature-flags",
                "desc": "where feature flags are defined",
                "content": body,
            },
        ),
        Reply.tool_use("agd_memory_get", {"id": "reference-feature-flags"}),
        Reply.text("Saved and read back."),
    )
    run = claude("Remember where the feature flags live", allowed_tools=tools)
    assert run.ok, run.diagnose()
    conversation = run.conversation
    assert len(conversation) == 4, run.diagnose()
    assert "ToolSearch" in conversation[0].tool_names
    offered = conversation[1].tool_names
    for tool in ("agd_memory_get", "agd_memory_save"):
        assert MCP_PREFIX + tool in offered, offered
    saved = conversation[2].tool_results()[-1]
    assert "reference-feature-flags" in saved
    got = conversation[3].tool_results()[-1]
    assert body in got
    assert "where feature flags are defined" in got
    stored = e2e_project.memory_path().read_text(encoding="utf-8")
    assert "[#reference-feature-flags]" in stored and body in stored
    assert run.result and run.result["result"] == "Saved and read back."
