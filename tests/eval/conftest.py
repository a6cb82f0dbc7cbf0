"""Shared by the eval checks: keyed copies of a memory must be what `agd-memory keys` writes."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def keys_rebuild(tmp_path, monkeypatch):
    """`keys_rebuild(original, keyed)`: apply `keyed/answers/NAME.json` to a copy of the
    original memory with `agd-memory keys --from ... --apply` and return the result's
    bytes, to compare with the keyed file (the keyed sets are reproducible)."""
    from agd_memory.commands.distill import keys as keys_main

    monkeypatch.setenv("AGD_MEMORY_HOME", str(tmp_path / "home"))

    def rebuild(original: Path, keyed_dir: Path) -> bytes:
        copy = tmp_path / original.name
        copy.write_bytes(original.read_bytes())
        answers = keyed_dir / "answers" / f"{original.stem}.json"
        assert keys_main(["--from", str(answers), "--apply", str(copy)]) == 0
        return copy.read_bytes()

    return rebuild
