"""Claude Code's settings files: found where Claude Code looks, read without hanging or
raising, and asked what agd-memory needs to know (plugin switch, hand-added hooks)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agd_memory.claude import settings_files as sf


def test_the_config_dir_honours_claude_config_dir(tmp_path: Path) -> None:
    """Decided once, by `Settings.load` (`claude_dir_from`); setup's user settings file is in it."""
    from agd_memory.settings import claude_dir_from

    home = {"HOME": str(tmp_path)}
    assert claude_dir_from(home) == tmp_path / ".claude"
    assert claude_dir_from({**home, "CLAUDE_CONFIG_DIR": str(tmp_path / "cc")}) == tmp_path / "cc"
    assert claude_dir_from({**home, "CLAUDE_CONFIG_DIR": "  "}) == tmp_path / ".claude"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "missing"),
        ("{not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ("[" * 100_000, "not JSON"),
        (b"\xff\xfe{}", "unreadable (not valid UTF-8"),
    ],
)
def test_a_file_claude_code_cannot_read_is_a_problem_not_an_error(
    tmp_path: Path, content: str | bytes | None, problem: str
) -> None:
    path = tmp_path / "settings.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    found = sf.read(path)
    assert found.problem is not None and found.problem.startswith(problem)
    assert found.data == {}


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    os.mkfifo(path)
    assert (sf.read(path).problem or "").startswith("unreadable (not a regular file")


def test_plugin_switches_and_hand_added_hooks(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    hook = {"type": "command", "command": "/opt/agd-memory/bin/agd-memory hook prompt"}
    data = {
        "enabledPlugins": {"agd-memory@agd-memory": True, "agd-memory@other": False, "x@y": True},
        "hooks": {
            "UserPromptSubmit": [{"hooks": [hook]}],
            "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
            "SessionEnd": "not a list",
        },
    }
    path.write_text(json.dumps(data))
    found = sf.read(path)
    assert found.problem is None
    assert sf.plugin_switches(found.data, "agd-memory") == {
        "agd-memory@agd-memory": True,
        "agd-memory@other": False,
    }
    assert sf.hand_added_hooks(found.data, "agd-memory") == ["UserPromptSubmit"]
    assert sf.plugin_switches({"enabledPlugins": []}, "agd-memory") == {}
    assert sf.hand_added_hooks({"hooks": {"Stop": [{"hooks": "x"}]}}, "agd-memory") == []
