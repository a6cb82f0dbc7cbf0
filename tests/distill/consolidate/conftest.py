"""The seeded memory (`tests/data/consolidate/memory.agd`) as the project layer of a test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from consolidate_helpers import DATA


@pytest.fixture
def memory(env, monkeypatch) -> Path:
    path = env.root / "memory.agd"
    shutil.copyfile(DATA / "memory.agd", path)
    monkeypatch.setenv("AGD_MEMORY_FILE", str(path))
    return path
