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
