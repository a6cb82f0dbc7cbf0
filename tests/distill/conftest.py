"""Fixtures of the distiller tests: an isolated home and data folder, a scripted fake `claude`
on PATH, and builders of transcript records shaped like Claude Code's (2.1.3xx) JSONL."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).parent


@dataclass
class Env:
    root: Path
    home: Path
    data: Path

    def settings(self):
        from agd_memory.settings import Settings

        return Settings.load()

    def project(self, name: str) -> Path:
        folder = self.root / "projects" / name
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def memory_file(self, cwd: Path) -> Path:
        from agd_memory import paths

        return paths.resolve(self.settings(), cwd=str(cwd)).project.path


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    for name in list(os.environ):
        if name.startswith(("AGD_", "CLAUDE")):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    data = tmp_path / "data"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGD_MEMORY_HOME", str(home))
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(data))
    monkeypatch.setenv("AGD_MEMORY_TODAY", "2026-11-30")
    monkeypatch.setenv("AGD_DISTILL_BACKOFF_S", "0.05")
    monkeypatch.setenv("AGD_DISTILL_TIMEOUT_S", "30")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    return Env(tmp_path, home, data)


@dataclass
class FakeClaude:
    folder: Path

    def script(self, *responses: dict) -> None:
        (self.folder / "script.json").write_text(json.dumps({"responses": list(responses)}))

    def calls(self) -> list[dict]:
        found = []
        for path in sorted((self.folder / "calls").glob("*.json")):
            try:
                found.append(json.loads(path.read_text()))
            except ValueError:  # being written right now
                found.append({})
        return found


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: Env) -> FakeClaude:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "claude"
    exe.write_text(
        f"#!{sys.executable}\nimport runpy\nrunpy.run_path({str(HERE / 'fake_claude.py')!r}, run_name='__main__')\n"
    )
    exe.chmod(0o755)
    folder = tmp_path / "fake-claude"
    folder.mkdir()
    monkeypatch.setenv("FAKE_CLAUDE_DIR", str(folder))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    fake = FakeClaude(folder)
    fake.script({"proposals": []})
    return fake
