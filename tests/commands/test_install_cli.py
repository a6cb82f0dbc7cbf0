"""`agd-memory install-cli`: the command on the user's PATH, following the plugin's updates.

The launcher runs from a plain shell with a minimal PATH, as a login shell would, after
Claude Code moved the plugin to a new version folder; `uninstall-cli` removes only what
`install-cli` wrote.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MINIMAL_PATH = "/usr/bin:/bin"


def copy_plugin(dest: Path, version: str) -> Path:
    """A plugin copy as Claude Code caches it, whose `--version` says `version`."""
    shutil.copytree(REPO / "bin", dest / "bin")
    shutil.copytree(REPO / "src", dest / "src", ignore=shutil.ignore_patterns("__pycache__"))
    init = dest / "src" / "agd_memory" / "__init__.py"
    text = re.sub(r'__version__ = "[^"]*"', f'__version__ = "{version}"', init.read_text())
    init.write_text(text, encoding="utf-8")
    return dest


def record(plugins: Path, install_path: Path) -> None:
    (plugins / "installed_plugins.json").write_text(
        json.dumps(
            {
                "version": 2,
                "plugins": {
                    "agd-memory@agd-memory": [
                        {"scope": "user", "installPath": str(install_path), "version": "x"}
                    ]
                },
            }
        ),
        encoding="utf-8",
    )


def shell(command: str, home: Path, config: Path) -> subprocess.CompletedProcess[str]:
    """`command` in `/bin/sh` with only HOME, CLAUDE_CONFIG_DIR and a minimal PATH."""
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(config), "PATH": MINIMAL_PATH}
    return subprocess.run(
        ["/bin/sh", "-c", command], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def system_python() -> None:
    python = shutil.which("python3", path=MINIMAL_PATH)
    if python is None:
        pytest.skip("needs a python3 in /usr/bin or /bin")
    done = subprocess.run(
        [python, "-c", "import sys; print(sys.version_info >= (3, 10))"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if done.stdout.strip() != "True":
        pytest.skip("the system python3 is older than 3.10")


def test_the_launcher_follows_the_plugin_to_its_new_version(tmp_path, system_python) -> None:
    home, config = tmp_path / "home", tmp_path / "home" / ".claude"
    plugins = config / "plugins"
    cache = plugins / "cache" / "agd-memory" / "agd-memory"
    old = copy_plugin(cache / "0.1.0", "0.1.0-old")
    record(plugins, old)
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "mine").write_text("#!/bin/sh\necho mine\n", encoding="utf-8")
    before = sorted((p.name, p.read_bytes()) for p in folder.iterdir())

    # the slash command runs the cached copy's program; it may run under another Python
    done = subprocess.run(
        [sys.executable, str(old / "bin" / "agd-memory"), "install-cli", str(folder)],
        env={
            **os.environ,
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(config),
            "PATH": MINIMAL_PATH,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert f'export PATH="{folder}:$PATH"' in done.stdout  # not on PATH: what to add

    run = shell(f"{folder}/agd-memory --version", home, config)
    assert run.returncode == 0 and run.stdout.strip() == "agd-memory 0.1.0-old", run.stderr

    # an update: Claude Code copies the new version and records it; the old folder goes
    new = cache / "0.2.0"
    old.rename(new)
    copy_plugin(tmp_path / "staging", "0.2.0-new")
    shutil.rmtree(new / "src")
    shutil.copytree(tmp_path / "staging" / "src", new / "src")
    record(plugins, new)
    run = shell(f"cd /; PATH={folder}:$PATH; agd-memory --version && agd --version", home, config)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0] == "agd-memory 0.2.0-new"

    # the record gone too: the newest copy in the cache is found
    (plugins / "installed_plugins.json").unlink()
    run = shell(f"{folder}/agd-memory --version", home, config)
    assert run.stdout.strip() == "agd-memory 0.2.0-new", run.stderr

    # no plugin anywhere: one line that says what to do
    shutil.rmtree(plugins / "cache")
    run = shell(f"{folder}/agd-memory --version", home, config)
    assert run.returncode == 127 and "claude plugin install agd-memory@agd-memory" in run.stderr

    done = subprocess.run(
        [sys.executable, str(REPO / "bin" / "agd-memory"), "uninstall-cli", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert sorted((p.name, p.read_bytes()) for p in folder.iterdir()) == before


def test_install_cli_never_replaces_a_file_it_did_not_write(tmp_path) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "agd").write_text("#!/bin/sh\necho someone else's agd\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(REPO / "bin" / "agd-memory"), "install-cli", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert f"{folder / 'agd'} exists and was not written by install-cli" in done.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["agd"]
    done = subprocess.run(
        [sys.executable, str(REPO / "bin" / "agd-memory"), "uninstall-cli", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and (folder / "agd").read_text().endswith("agd\n")


def test_a_folder_on_path_behind_another_agd_memory_is_told(tmp_path) -> None:
    first, folder = tmp_path / "first", tmp_path / "bin"
    first.mkdir()
    (first / "agd-memory").write_text("#!/bin/sh\necho old\n", encoding="utf-8")
    (first / "agd-memory").chmod(0o755)
    env = {**os.environ, "PATH": os.pathsep.join([str(first), str(folder), MINIMAL_PATH])}
    done = subprocess.run(
        [sys.executable, str(REPO / "bin" / "agd-memory"), "install-cli", str(folder)],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"another agd-memory comes first on your PATH: {first / 'agd-memory'}" in done.stdout
    assert "export PATH" not in done.stdout


def test_the_launcher_never_imports_from_the_current_folder(tmp_path) -> None:
    """A cloned repository is untrusted: a `json.py` or `glob.py` in the folder the user
    runs `agd-memory` in must not run."""
    folder, clone = tmp_path / "bin", tmp_path / "clone"
    clone.mkdir()
    planted = "open(__file__ + '.ran', 'w').close()\n"
    for name in ("json.py", "glob.py", "runpy.py", "argparse.py"):
        (clone / name).write_text(planted, encoding="utf-8")
    subprocess.run(
        [sys.executable, str(REPO / "bin" / "agd-memory"), "install-cli", str(folder)],
        capture_output=True, check=True, timeout=60,
    )  # fmt: skip
    done = subprocess.run(
        [str(folder / "agd-memory"), "--help"], cwd=clone, capture_output=True, text=True,
        env={"HOME": str(tmp_path), "PATH": os.environ["PATH"]}, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in clone.iterdir() if p.suffix == ".ran") == []


def test_the_launcher_reads_a_blank_claude_config_dir_as_unset(tmp_path, system_python) -> None:
    """`CLAUDE_CONFIG_DIR=" "` is no folder: the launcher finds the plugin Claude Code recorded
    in `~/.claude`, as `Settings.load` does, not in ` /plugins`."""
    home, config = tmp_path / "home", tmp_path / "home" / ".claude"
    plugins = config / "plugins"
    cache = plugins / "cache" / "agd-memory" / "agd-memory"
    old = copy_plugin(cache / "0.1.0", "0.1.0-old")
    folder = tmp_path / "bin"
    folder.mkdir()
    done = subprocess.run(
        [sys.executable, str(old / "bin" / "agd-memory"), "install-cli", str(folder)],
        env={**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(config)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    moved = tmp_path / "elsewhere"  # the launcher's own copy is gone; only the record says where
    old.rename(moved)
    record(plugins, moved)
    run = shell(f"{folder}/agd-memory --version", home, Path(" "))
    assert run.returncode == 0 and run.stdout.strip() == "agd-memory 0.1.0-old", run.stderr
