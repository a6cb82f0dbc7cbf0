"""SessionStart tells the user how to run the commands once: the first session after an
install (a new plugin data folder), never again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LAUNCHER = Path(__file__).resolve().parents[2] / "bin" / "agd-memory"


def session_start(cwd: Path, env: dict[str, str]) -> dict:
    payload = {"session_id": "s", "cwd": str(cwd), "hook_event_name": "SessionStart"}
    done = subprocess.run(
        [sys.executable, str(LAUNCHER), "hook", "session-start"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout) if done.stdout.strip() else {}


def test_the_commands_are_told_the_first_session_only(hook_env, tmp_path) -> None:
    data = tmp_path / "fresh-install"  # Claude Code creates it on the plugin's first use
    env = {**hook_env, "CLAUDE_PLUGIN_DATA": str(data)}
    (tmp_path / "app").mkdir()
    first = session_start(tmp_path / "app", env)
    message = first["systemMessage"]
    assert message.startswith("agd-memory: memory is on.")
    assert "/agd-memory:review" in message and "/agd-memory:install-cli" in message
    assert "\n" not in message
    assert "systemMessage" not in session_start(tmp_path / "app", env)
    assert "systemMessage" not in session_start(tmp_path / "app", env)


def test_a_data_folder_that_cannot_hold_the_mark_stays_silent(hook_env, tmp_path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    env = {**hook_env, "CLAUDE_PLUGIN_DATA": str(blocker)}
    (tmp_path / "app").mkdir()
    assert "systemMessage" not in session_start(tmp_path / "app", env)
