"""Fixtures of the store tests: an isolated home and data folder, today pinned."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agd_memory import store
from agd_memory.settings import Settings

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / "bin" / "agd-memory"
TODAY = "2026-03-14"


@pytest.fixture(autouse=True)
def _fresh_memo():
    """Each test starts with an empty in-process cache (as a new process would)."""
    store.clear_cache()
    yield
    store.clear_cache()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def env_vars(tmp_path: Path, home: Path) -> dict[str, str]:
    """The store tests' isolated environment as variables, for `Settings.load(env_vars)` and
    for subprocesses of `bin/agd-memory` (the suite's `env` sets the process's instead)."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AGD_", "CLAUDE_"))}
    base.update(
        {
            "HOME": str(home),
            "AGD_MEMORY_HOME": str(home),
            "AGD_MEMORY_PROJECT_CWD": str(project),
            "AGD_MEMORY_TODAY": TODAY,
            "CLAUDE_PLUGIN_DATA": str(tmp_path / "data"),
            "AGD_DISTILL_KEYS_EVERY_S": "0",  # no background keys run per save
        }
    )
    return base


@pytest.fixture
def settings(env_vars: dict[str, str]) -> Settings:
    return Settings.load(env_vars)


@pytest.fixture
def mf(tmp_path: Path, settings: Settings) -> store.MemoryFile:
    return store.MemoryFile(tmp_path / "mem" / "memory.agd", layer="project", settings=settings)


@pytest.fixture
def cli(env_vars: dict[str, str]):
    """Run `bin/agd-memory ARGS` in a subprocess with the isolated environment."""

    def run(*args: str, input: str | None = None, extra_env: dict[str, str] | None = None):
        return subprocess.run(
            [sys.executable, str(BIN), *args],
            env={**env_vars, **(extra_env or {})},
            capture_output=True,
            text=True,
            input=input,
            timeout=60,
        )

    return run
