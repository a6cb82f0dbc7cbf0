"""`bin/agd-memory-mcp`: current interpreter, private venv, first-run install, failures.

`python -S` stands for an interpreter without the SDK: it hides site-packages
from the launcher itself, while the processes it starts get a normal interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_fixtures import INIT_LINE, LAUNCHER

pytestmark = pytest.mark.slow


def run_launcher(
    env: dict[str, str], *, no_site: bool, cwd: Path, timeout: float = 60
) -> subprocess.CompletedProcess:
    argv = [sys.executable, *(["-S"] if no_site else []), str(LAUNCHER)]
    return subprocess.run(
        argv, input=INIT_LINE, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout
    )


def initialized(proc: subprocess.CompletedProcess) -> bool:
    lines = proc.stdout.splitlines()
    return bool(lines) and json.loads(lines[0])["result"]["serverInfo"]["name"] == "agd-memory"


def make_ready_venv(data: Path, marker: Path) -> None:
    """A venv the launcher trusts: a python that records its use, then runs the real one."""
    bindir = data / "venv" / "bin"
    bindir.mkdir(parents=True)
    python = bindir / "python"
    python.write_text(f'#!/bin/sh\necho "$@" >> "{marker}"\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    (data / "venv" / ".agd-memory-ready").write_text("mcp>=2,<3\n")


def test_current_interpreter_with_the_sdk_serves_directly(memory):
    proc = run_launcher(memory.process_env(), no_site=False, cwd=memory.project_dir)
    assert initialized(proc), proc.stderr
    assert not (memory.data_dir / "venv").exists()


@pytest.mark.skipif(os.name == "nt", reason="POSIX shell stand-in for the venv python")
def test_without_the_sdk_a_ready_venv_is_used(memory, tmp_path):
    marker = tmp_path / "venv-used"
    make_ready_venv(memory.data_dir, marker)
    proc = run_launcher(memory.process_env(), no_site=True, cwd=memory.project_dir)
    assert initialized(proc), proc.stderr
    assert str(LAUNCHER) in marker.read_text()
    assert "installing" not in proc.stderr


@pytest.mark.skipif(os.name == "nt", reason="POSIX shell stand-in for the venv python")
def test_a_venv_without_the_sdk_fails_with_one_line_instead_of_looping(memory, tmp_path):
    bindir = memory.data_dir / "venv" / "bin"
    bindir.mkdir(parents=True)
    (bindir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')
    (bindir / "python").chmod(0o755)
    (memory.data_dir / "venv" / ".agd-memory-ready").write_text("mcp>=2,<3\n")
    proc = run_launcher(memory.process_env(), no_site=True, cwd=memory.project_dir)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert (
        proc.stderr.startswith("agd-memory-mcp: ")
        and "still has no usable mcp>=2,<3" in proc.stderr
    )


def test_an_unusable_data_folder_fails_with_one_line(memory, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    env = memory.process_env(CLAUDE_PLUGIN_DATA=str(blocker / "data"))
    proc = run_launcher(env, no_site=True, cwd=memory.project_dir)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith("agd-memory-mcp: cannot use the data folder")
    assert proc.stderr.count("\n") == 1


def test_a_failed_install_says_what_to_do_and_writes_nothing_to_stdout(memory):
    # No index: pip cannot find the SDK, as on a machine without network.
    env = memory.process_env(PIP_NO_INDEX="1", PIP_FIND_LINKS="", PIP_CONFIG_FILE=os.devnull)
    proc = run_launcher(env, no_site=True, cwd=memory.project_dir, timeout=300)
    assert proc.returncode == 1
    assert proc.stdout == ""
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("agd-memory-mcp: could not install the MCP SDK in ")
    assert "pip install 'mcp>=2,<3'" in last
    assert not (memory.data_dir / "venv" / ".agd-memory-ready").exists()


@pytest.mark.skipif(
    os.environ.get("AGD_TEST_OFFLINE", "") == "1",
    reason="installs mcp from PyPI into a fresh venv (10-60 s); AGD_TEST_OFFLINE=1 is set",
)
def test_first_run_installs_once_even_when_two_sessions_start_together(memory):
    env = memory.process_env()
    argv = [sys.executable, "-S", str(LAUNCHER)]
    procs = [
        subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=memory.project_dir,
        )
        for _ in range(2)
    ]
    results = [p.communicate(INIT_LINE, timeout=600) for p in procs]
    for (out, err), p in zip(results, procs, strict=True):
        assert p.returncode == 0, err
        assert json.loads(out.splitlines()[0])["result"]["serverInfo"]["name"] == "agd-memory"
    assert sum(err.count("first run: installing") for _, err in results) == 1
    assert (memory.data_dir / "venv" / ".agd-memory-ready").read_text().strip() == "mcp>=2,<3"
