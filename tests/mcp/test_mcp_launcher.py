"""`bin/agd-memory-mcp`: current interpreter, private venv, first-run install, failures.

`python -S` stands for an interpreter without the SDK: it hides site-packages
from the launcher itself, while the processes it starts get a normal interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
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


NO_INDEX = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "", "PIP_CONFIG_FILE": os.devnull}
"""pip cannot reach any index, as on a machine without network."""

TOOLS_LINE = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n"


def wait_for(path: Path, timeout: float = 240) -> bool:
    import time

    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    return path.exists()


def test_a_failed_install_is_shown_in_the_tool_list_with_what_to_do(memory):
    env = memory.process_env(**NO_INDEX, AGD_MEMORY_MCP_WAIT="240")
    argv = [sys.executable, "-S", str(LAUNCHER)]
    proc = subprocess.run(
        argv,
        input=INIT_LINE + TOOLS_LINE,
        capture_output=True,
        text=True,
        env=env,
        cwd=memory.project_dir,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    init, tools = (json.loads(line) for line in proc.stdout.splitlines())
    assert init["result"]["serverInfo"]["name"] == "agd-memory"
    assert "could not install the MCP SDK" in init["result"]["instructions"]
    (tool,) = tools["result"]["tools"]
    assert tool["name"] == "agd_memory_unavailable"
    assert "could not install the MCP SDK" in tool["description"]
    assert "pip install 'mcp>=2,<3'" in tool["description"]
    assert not (memory.data_dir / "venv" / ".agd-memory-ready").exists()
    failed = (memory.data_dir / "venv-install.failed").read_text()
    assert failed.startswith("could not install the MCP SDK in ")


def test_the_install_outlives_the_session_that_started_it(memory):
    # The session ends at once (no wait, stdin closed, process group killed): the detached
    # installer still runs to its end, here a failure it records for the next session.
    env = memory.process_env(**NO_INDEX, AGD_MEMORY_MCP_WAIT="0")
    proc = subprocess.Popen(
        [sys.executable, "-S", str(LAUNCHER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=memory.project_dir,
        start_new_session=True,
    )
    proc.stdin.write(INIT_LINE.encode())
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())
    assert "still being installed" in first["result"]["instructions"]
    os.killpg(proc.pid, 9)
    proc.wait()
    proc.stdin.close()
    proc.stdout.close()
    proc.stderr.close()
    assert wait_for(memory.data_dir / "venv-install.failed")
    assert "installing mcp>=2,<3" in (memory.data_dir / "venv-install.log").read_text()


def test_a_half_made_venv_is_made_again(memory):
    junk = memory.data_dir / "venv" / "half-made"
    junk.parent.mkdir(parents=True)
    junk.write_text("left by a killed install")
    env = memory.process_env(**NO_INDEX)
    argv = [sys.executable, "-S", str(LAUNCHER), "--install"]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1
    assert not junk.exists()
    assert (memory.data_dir / "venv" / "bin" / "python").exists()  # made again, then pip failed
    assert "could not install the MCP SDK" in (memory.data_dir / "venv-install.failed").read_text()


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
    # the detached installer may outlive both launchers (they wait AGD_MEMORY_MCP_WAIT,
    # then serve the stand-in): give it a bounded while to finish
    ready = memory.data_dir / "venv" / ".agd-memory-ready"
    deadline = time.monotonic() + 600
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert ready.read_text().strip() == "mcp>=2,<3"
    log = (memory.data_dir / "venv-install.log").read_text()
    assert log.count("installing mcp>=2,<3") == 1


def session_start(env: dict[str, str], cwd: Path) -> dict:
    hook = LAUNCHER.parent.parent / "hooks" / "run"
    payload = json.dumps({"hook_event_name": "SessionStart", "cwd": str(cwd)})
    proc = subprocess.run(
        ["sh", str(hook), "session-start"],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def test_session_start_tells_the_user_about_the_install_and_its_failure(memory):
    env = memory.process_env(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin:/bin"])
    )
    first = session_start(env, memory.project_dir)
    assert "installing the MCP SDK (mcp>=2,<3) in the background" in first["systemMessage"]
    # This interpreter has the SDK: the installer it started records that no venv is needed.
    assert wait_for(memory.data_dir / "venv-not-needed", timeout=60)
    assert "systemMessage" not in session_start(env, memory.project_dir)

    (memory.data_dir / "venv-not-needed").unlink()
    (memory.data_dir / "venv-install.failed").write_text(
        "could not install the MCP SDK in X: no network\n"
    )
    message = session_start(env, memory.project_dir)["systemMessage"]
    assert (
        message
        == "agd-memory: the memory tools are unavailable: could not install the MCP SDK in X: no network"
    )


def test_an_empty_no_venv_record_does_not_stop_the_install(tmp_path, monkeypatch):
    # A truncated venv-not-needed names no interpreter; Path("") is the current folder,
    # which exists, so it used to read as "the SDK is there" and no install ever started.
    from agd_memory.mcp import sdk

    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path))
    sdk.system_file().write_text("\n", encoding="utf-8")
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    started = []
    monkeypatch.setattr(sdk, "start_install", lambda: started.append(True) or True)
    notice = sdk.session_notice()
    assert started == [True]
    assert notice is not None and "installing the MCP SDK" in notice


@pytest.mark.parametrize("after_s", [0.05, 0.3, 1.5])
def test_an_interrupt_while_starting_or_serving_exits_quietly(memory, after_s):
    """Claude Code interrupts its servers when a short session ends, often while this one
    still imports the SDK: no traceback on the client's log, exit status 0."""
    import signal

    proc = subprocess.Popen(
        [sys.executable, str(LAUNCHER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=memory.process_env(),
        cwd=memory.project_dir,
    )
    time.sleep(after_s)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert proc.returncode == 0
