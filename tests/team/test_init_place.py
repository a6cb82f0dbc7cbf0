"""`team init` where something else is in the team file's place: one line naming it and
what to do, a non-zero exit, nothing half set up (issue 24, misleading messages)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from teamutil import Clone


def _clone(tmp_path: Path, git_env: dict[str, str]) -> Clone:
    path = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(path)], env=git_env, check=True)
    return Clone(path, git_env)


def test_a_claude_file_in_the_way_is_named(tmp_path, git_env):
    clone = _clone(tmp_path, git_env)
    (clone.path / ".claude").write_text("not a folder\n", encoding="utf-8")
    done = clone.cli("team", "init", check=False)
    assert done.returncode == 1
    assert f"{clone.path / '.claude'} is a file" in done.stderr and "move or rename" in done.stderr
    assert "lock file" not in done.stderr
    assert not (clone.path / ".gitattributes").exists()


def test_a_folder_where_the_team_file_goes_is_not_success(tmp_path, git_env):
    clone = _clone(tmp_path, git_env)
    (clone.path / ".claude" / "memory.agd").mkdir(parents=True)
    done = clone.cli("team", "init", check=False)
    assert done.returncode == 1
    assert f"{clone.path / '.claude' / 'memory.agd'} is a folder" in done.stderr
    assert not (clone.path / ".gitattributes").exists()
