"""Suite-wide test settings and the fixtures the distiller and maintenance tests share.

Under CI (`CI` set, as `.ci/run` runs) hypothesis is derandomised: each property test
draws the same examples on every run, so a green run here is a green run there, and a
failure is reproducible. Exploration with fresh random examples happens on developer
machines, where a failing example is saved and replayed by hypothesis's database.

`env` (an isolated home and data folder, set in the process's environment) serves every
folder: the hook tests' `hook_env` is it as a hook process gets it; `store/`'s `env_vars` is
the same kind of isolation as a dict, for `Settings.load` and subprocesses. `fake_claude`
(the scripted fake `claude` of `distill/fake_claude.py` on PATH) builds on `env`.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings


def _isolate_home() -> None:
    """The whole run gets a home of its own: no test reads or writes the developer's
    `~/.claude` or `~/.local/share` (a config file left there once moved every eval number).
    Tests that need a particular home still set their own."""
    import tempfile

    real_home = Path.home()
    home = Path(tempfile.mkdtemp(prefix="agd-tests-home-"))
    for name in list(os.environ):
        if name.startswith(("AGD_", "CLAUDE_", "XDG_")) and name != "AGD_E2E_CLAUDE":
            del os.environ[name]
    if (real_home / ".pyenv").is_dir():  # a pyenv shim on PATH finds its versions through HOME
        os.environ.setdefault("PYENV_ROOT", str(real_home / ".pyenv"))
    os.environ["HOME"] = str(home)


_isolate_home()

settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

FAKE_CLAUDE = Path(__file__).parent / "distill" / "fake_claude.py"


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
    # no background keys run after every save of every test (tests/distill/test_autokeys.py)
    monkeypatch.setenv("AGD_DISTILL_KEYS_EVERY_S", "0")
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

    def sent_ids(self) -> list[list[str]]:
        """The entry ids each call so far was sent (a keys run's `<entry id="...">`), in order."""
        return [re.findall(r'<entry id="([^"]+)"', c.get("stdin", "")) for c in self.calls()]

    @staticmethod
    def default_keys(block_id: str) -> str:
        """The keys `keys_answer` gives an id alone, as the store writes them: as many as
        a keys run leaves an entry (`rules.MIN_KEYS`), so it needs no other run."""
        return ", ".join([f"{block_id} term", "shared word", *(f"term {n}" for n in range(10))])

    @staticmethod
    def keys_answer(keys: Mapping[str, list] | Iterable[str]) -> dict:
        """A response to the keys schema: `{"entries": [{"id": ..., "keys": [...]}, ...]}`,
        from a mapping id -> keys, or from ids alone, each keyed `default_keys(id)`."""
        if not isinstance(keys, Mapping):
            keys = {i: FakeClaude.default_keys(i).split(", ") for i in keys}
        entries = [{"id": i, "keys": k} for i, k in keys.items()]
        return {
            "result": {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "result": json.dumps({"entries": entries}),
                "structured_output": {"entries": entries},
            }
        }


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: Env) -> FakeClaude:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "claude"
    exe.write_text(
        f"#!{sys.executable}\nimport runpy\nrunpy.run_path({str(FAKE_CLAUDE)!r}, run_name='__main__')\n"
    )
    exe.chmod(0o755)
    folder = tmp_path / "fake-claude"
    folder.mkdir()
    monkeypatch.setenv("FAKE_CLAUDE_DIR", str(folder))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    fake = FakeClaude(folder)
    fake.script({"proposals": []})
    return fake
