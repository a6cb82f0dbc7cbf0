from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agd_memory import cli

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixture_copy(tmp_path: Path):
    """Copy a fixture into a fresh folder and return its path."""

    def copy(name: str, dest_name: str | None = None) -> Path:
        target = tmp_path / (dest_name or name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FIXTURES / name, target)
        return target

    return copy


@pytest.fixture
def run(capsys):
    """Run `agd-memory ARGS...` in process; return (exit status, stdout, stderr)."""

    def go(*args: str) -> tuple[int, str, str]:
        status = cli.main([str(a) for a in args])
        out, err = capsys.readouterr()
        return status, out, err

    return go


@pytest.fixture
def isolated_home(tmp_path: Path, monkeypatch):
    """A fake home: AGD_MEMORY_HOME and the data folder point into tmp_path."""
    home = tmp_path / "home"
    home.mkdir()
    for var in ("AGD_MEMORY_FILE", "AGD_MEMORY_GLOBAL_FILE", "AGD_MEMORY_PROJECT_CWD"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AGD_MEMORY_HOME", str(home))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("AGD_DISTILL_KEYS_EVERY_S", "0")  # no background keys run per save
    return home
