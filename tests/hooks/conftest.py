"""Fixtures for the hook tests: an isolated environment and a project folder."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def hook_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A clean environment: no AGD_*/CLAUDE_* from the developer, HOME and data folder in tmp."""
    for key in list(os.environ):
        if key.startswith(("AGD_", "CLAUDE")):
            monkeypatch.delenv(key)
    home = tmp_path / "home"
    data = tmp_path / "plugin-data"
    home.mkdir()
    data.mkdir()
    # The MCP launcher has found the SDK in this interpreter: SessionStart starts no install.
    (data / "venv-not-needed").write_text(sys.executable + "\n", encoding="utf-8")
    # A user past their first session (test_first_session.py covers the first one).
    (data / "first-session-told").touch()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(data))
    monkeypatch.setenv("AGD_MEMORY_TODAY", "2026-11-30")
    monkeypatch.setenv("AGD_DISTILL_KEYS_EVERY_S", "0")  # SessionStart starts no keys run
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    return dict(os.environ)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder
