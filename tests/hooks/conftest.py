"""Fixtures for the hook tests: an isolated environment and a project folder."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def hook_env(env) -> dict[str, str]:
    """The suite's isolated home and data folder (`env`) as a hook process gets them, for a
    user past their first session (test_first_session.py covers the first one) whose MCP
    launcher found the SDK in this interpreter (SessionStart starts no install)."""
    env.data.mkdir(parents=True, exist_ok=True)
    (env.data / "venv-not-needed").write_text(sys.executable + "\n", encoding="utf-8")
    (env.data / "first-session-told").touch()
    return dict(os.environ)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder
