"""The merge-driver launcher `team init` registers finds agd-memory when git runs it, so
a plugin that was updated (a new version folder) or moved keeps merging."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from agd_memory.team.setup import launcher_text


def _fake_agd_memory(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    fake = folder / "agd-memory"
    fake.write_text(f'#!/bin/sh\necho "{name} $*"\n')
    fake.chmod(0o755)
    return fake


def _run(
    launcher_source: str, tmp_path: Path, path_dirs: list[Path]
) -> subprocess.CompletedProcess[str]:
    launcher = tmp_path / "launcher"
    launcher.write_text(launcher_source)
    launcher.chmod(0o755)
    env = {
        "HOME": str(tmp_path / "home"),
        "PATH": os.pathsep.join([*map(str, path_dirs), "/usr/bin", "/bin"]),
    }
    return subprocess.run(
        [str(launcher), "O", "A", "B", "P"], env=env, capture_output=True, text=True, timeout=30
    )


def test_the_checkout_that_ran_init_comes_first(tmp_path: Path):
    _fake_agd_memory(tmp_path / "plugin" / "bin", "checkout")
    _fake_agd_memory(tmp_path / "onpath", "path")
    done = _run(launcher_text(tmp_path / "plugin"), tmp_path, [tmp_path / "onpath"])
    assert done.stdout == "checkout merge-driver O A B P\n"


def test_an_updated_plugin_is_found_in_claude_codes_cache(tmp_path: Path):
    cache = tmp_path / "home" / ".claude" / "plugins" / "cache" / "market" / "agd-memory"
    _fake_agd_memory(cache / "0.2.0" / "bin", "new version")
    done = _run(launcher_text(tmp_path / "gone"), tmp_path, [])
    assert done.stdout == "new version merge-driver O A B P\n"


def test_then_path_and_else_a_failure_git_reports_as_a_conflict(tmp_path: Path):
    _fake_agd_memory(tmp_path / "onpath", "path")
    assert _run(launcher_text(tmp_path / "gone"), tmp_path, [tmp_path / "onpath"]).stdout == (
        "path merge-driver O A B P\n"
    )
    done = _run(launcher_text(tmp_path / "gone"), tmp_path, [])
    assert done.returncode == 1
    assert "agd-memory is not installed" in done.stderr


def test_of_two_cached_versions_the_latest_installed_wins(tmp_path: Path):
    cache = tmp_path / "home" / ".claude" / "plugins" / "cache" / "market" / "agd-memory"
    old = _fake_agd_memory(cache / "0.9.0" / "bin", "0.9.0")
    new = _fake_agd_memory(cache / "0.10.0" / "bin", "0.10.0")
    os.utime(old, (1_000_000, 1_000_000))
    os.utime(new, (2_000_000, 2_000_000))
    assert _run(launcher_text(tmp_path / "gone"), tmp_path, []).stdout.startswith("0.10.0 ")
