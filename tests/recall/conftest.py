"""Fixtures for the recall tests: settings from a clean env, memory files on disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from recall_helpers import write_memory

from agd_memory.settings import Settings
from agd_memory.store import MemoryFile


@pytest.fixture
def make_settings(tmp_path: Path):
    """Settings from the given variables only (no user env, no config file)."""

    def make(**env: str) -> Settings:
        isolated = {"CLAUDE_PLUGIN_DATA": str(tmp_path / "data"), "HOME": str(tmp_path)}
        return Settings.load({**isolated, **env})

    return make


@pytest.fixture
def memory_file(tmp_path: Path):
    def make(blocks: list[str], name: str = "memory.agd", layer: str = "project") -> MemoryFile:
        return MemoryFile(write_memory(tmp_path / name, blocks), layer=layer)

    return make
