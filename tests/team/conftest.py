"""Real git repositories on disk: a bare remote and clones of it, each set up with
`agd-memory team init`. git never reads the user's own configuration (HOME and
GIT_CONFIG_GLOBAL point into tmp_path)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from teamutil import Clone


@pytest.fixture
def git_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGD_", "CLAUDE_", "GIT_"))}
    env.update(
        {
            "HOME": str(home),
            "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "AGD_MEMORY_HOME": str(home),
            "AGD_MEMORY_TODAY": "2026-01-01",
            "CLAUDE_PLUGIN_DATA": str(tmp_path / "data"),
            "AGD_DISTILL_KEYS_EVERY_S": "0",  # no background keys run per save
        }
    )
    return env


@pytest.fixture
def remote(tmp_path: Path, git_env: dict[str, str]) -> Path:
    bare = tmp_path / "remote.git"
    subprocess.run(
        ["git", "init", "-q", "--bare", "-b", "main", str(bare)], env=git_env, check=True
    )
    return bare


@pytest.fixture
def make_clone(tmp_path: Path, git_env: dict[str, str], remote: Path) -> Callable[[str], Clone]:
    """`make_clone("a")`: a clone of the remote, team memory set up; the first clone
    creates the team file and pushes it, later clones pull it."""

    def make(name: str) -> Clone:
        path = tmp_path / name
        subprocess.run(
            ["git", "clone", "-q", str(remote), str(path)],
            env=git_env,
            check=True,
            capture_output=True,
        )
        clone = Clone(path, git_env)
        for key, value in (
            ("user.name", name),
            ("user.email", f"{name}@example.com"),
            ("commit.gpgsign", "false"),
        ):
            clone.git("config", key, value)
        first = clone.git("rev-parse", "--verify", "-q", "HEAD", check=False).returncode != 0
        if first:
            clone.git("checkout", "-q", "-b", "main")
        clone.cli("team", "init")
        if first:
            clone.commit("team memory")
            clone.git("push", "-q", "-u", "origin", "main")
        return clone

    return make
