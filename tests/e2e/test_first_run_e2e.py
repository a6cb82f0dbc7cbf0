"""The first run of a plain install: no MCP SDK anywhere, as on a new user's machine.

The hooks and the MCP launcher run with the system `python3` (no `mcp` installed), so the
first session starts the SDK's detached install and ends while it runs; the install
outlives that session (the real `pip install` from the package index), and the next
session has the memory tools.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from e2e_harness import MCP_PREFIX, REPO, Reply

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SYSTEM_PYTHON = shutil.which("python3", path="/usr/bin:/bin")
INSTALL_WAIT_S = 600.0
"""The most the test waits for the real install (venv + pip install from the index)."""


def system_python_without_mcp() -> str | None:
    """A system python3 that has `venv` and `ensurepip` but no `mcp`: a new user's machine."""
    if SYSTEM_PYTHON is None:
        return None
    probe = "import ensurepip, venv, importlib.util as u; raise SystemExit(u.find_spec('mcp') is not None)"
    done = subprocess.run([SYSTEM_PYTHON, "-c", probe], capture_output=True, timeout=30)
    return SYSTEM_PYTHON if done.returncode == 0 else None


def data_dir(config_dir: Path) -> Path:
    """Claude Code's data folder for a `--plugin-dir` plugin: `<config>/plugins/data/<name>-inline`."""
    return config_dir / "plugins" / "data" / "agd-memory-inline"


@pytest.fixture
def bare_path(tmp_path: Path) -> str:
    """PATH for the run: the system python3 first, `node` for the CLI; no test venv."""
    python = system_python_without_mcp()
    if python is None:
        pytest.skip("needs a system python3 with venv and ensurepip and without mcp")
    node = shutil.which("node")
    assert node is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(python)
    (bin_dir / "node").symlink_to(node)
    return os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])


def test_first_session_starts_the_install_and_the_next_one_has_the_tools(
    claude, fake_api, e2e_project, bare_path
) -> None:
    memory = (REPO / "tests" / "hooks" / "fixtures" / "project-memory.agd").read_text()
    e2e_project.write_memory(memory)
    env = {"PATH": bare_path, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}
    data = data_dir(e2e_project.config_dir)

    fake_api.script(Reply.text("Hello."))
    first = claude("hello", env=env, timeout=120)
    assert first.ok, first.diagnose()
    assert not (data / "venv" / ".agd-memory-ready").exists()  # the session did not wait for it
    assert (data / "venv.lock").exists(), list(data.iterdir()) if data.exists() else data

    deadline = time.monotonic() + INSTALL_WAIT_S
    while not (data / "venv" / ".agd-memory-ready").exists():
        failed = data / "venv-install.failed"
        assert not failed.exists(), failed.read_text()
        assert time.monotonic() < deadline, (data / "venv-install.log").read_text()
        time.sleep(1)

    get = MCP_PREFIX + "agd_memory_get"
    fake_api.script(
        Reply.tool_use("ToolSearch", {"query": "select:" + get}),
        Reply.tool_use("agd_memory_get", {"id": "project-staging-pgbouncer"}),
        Reply.text("Port 6432."),
    )
    second = claude("which port is staging postgres on?", env=env, allowed_tools=[get])
    assert second.ok, second.diagnose()
    conversation = second.conversation
    assert get in conversation[1].tool_names, conversation[1].tool_names
    assert "pgbouncer on port 6432" in conversation[2].tool_results()[-1]
