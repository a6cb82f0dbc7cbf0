"""A clone of a bare repository on disk, driven by real git and `bin/agd-memory`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agd import parse
from agd.model import Block
from agd_memory import store
from agd_memory.settings import Settings

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / "bin" / "agd-memory"
MARKERS = ("<<<<<<<", ">>>>>>>")


class Clone:
    def __init__(self, path: Path, env: dict[str, str]) -> None:
        self.path = path
        self.env = env

    @property
    def team_file(self) -> Path:
        return self.path / ".claude" / "memory.agd"

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            ["git", *args], cwd=self.path, env=self.env, capture_output=True, text=True, timeout=120
        )
        if check and done.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return done

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, str(BIN), *args],
            cwd=self.path,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"agd-memory {' '.join(args)} failed:\n{done.stderr}")
        return done

    def memory(self, today: str = "2026-01-01") -> store.MemoryFile:
        settings = Settings(today=today, data_dir=Path(self.env["CLAUDE_PLUGIN_DATA"]))
        store.clear_cache()
        return store.MemoryFile(self.team_file, layer="team", settings=settings)

    def commit(self, message: str) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)

    def text(self) -> str:
        return self.team_file.read_text(encoding="utf-8")

    def blocks(self) -> dict[str, Block]:
        """The team file's blocks by id; asserts it has no markers (outside fenced bodies,
        where they are text) and parses."""
        from agd.conflicts import marked_lines

        text = self.text()
        assert not any(marker for marker, _ in marked_lines(text)), text
        return {b.id: b for b in parse(text).blocks if b.id}
