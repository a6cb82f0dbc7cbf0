"""A memory file that stops parsing mid-session: the next prompt tells the user once (the
hook output's `systemMessage`), for each version of the broken file; SessionStart's own
notice counts as told. Each hook runs as Claude Code runs it, a fresh process."""

from __future__ import annotations

import json
from pathlib import Path

from hookutil import PROJECT_MEMORY, STORED_FACT, load_payload, run_hook, write_layer

GLOBAL_MEMORY = "@x-user [#tone]\n~~~\nShort answers.\n~~~\n"


def prompt(project: Path, env: dict[str, str]) -> dict:
    proc = run_hook(
        "prompt", load_payload("prompt-english", cwd=str(project), prompt=STORED_FACT), env
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def session_start(project: Path, env: dict[str, str]) -> dict:
    proc = run_hook("session-start", load_payload("session-start-startup", cwd=str(project)), env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def test_a_file_broken_mid_session_is_told_once_per_version(project, hook_env) -> None:
    write_layer(hook_env, project, GLOBAL_MEMORY, "global")
    path = write_layer(hook_env, project, PROJECT_MEMORY)
    healthy = prompt(project, hook_env)
    assert "systemMessage" not in healthy
    assert "#project-staging-pgbouncer" in healthy["hookSpecificOutput"]["additionalContext"]

    write_layer(hook_env, project, PROJECT_MEMORY + "@x-project [#bad\n")
    line = PROJECT_MEMORY.count("\n") + 1
    first = prompt(project, hook_env)
    notice = first["systemMessage"]
    assert notice.startswith(f"agd-memory: the project layer is left out: memory file {path}")
    assert f"line {line}" in notice and f"agd validate {path}" in notice
    assert prompt(project, hook_env) == {}  # the same broken file: not told again

    write_layer(hook_env, project, PROJECT_MEMORY + "@x-project [#worse\n\n")
    assert "left out" in prompt(project, hook_env)["systemMessage"]  # a new version
    assert prompt(project, hook_env) == {}

    write_layer(hook_env, project, PROJECT_MEMORY)  # repaired: recall is back, no notice
    again = prompt(project, hook_env)
    assert "systemMessage" not in again
    assert "#project-staging-pgbouncer" in again["hookSpecificOutput"]["additionalContext"]


def test_session_start_notice_counts_as_told(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY + "@x-project [#bad\n")
    assert "does not parse" in session_start(project, hook_env)["systemMessage"]
    assert prompt(project, hook_env) == {}
