"""`hooks/run` bounds the interpreter it starts to the hook's time limit.

Claude Code kills the `sh` wrapper when a hook overruns its `timeout`; the Python process
it started must not stay behind (a hung read once kept one running indefinitely).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

from hookutil import REPO, RUNNER

SLEEPER = (
    "import os, sys, time\n"
    "open(os.environ['PID_FILE'], 'w').write(str(os.getpid()))\n"
    "time.sleep(60)\n"
)


def alive(pid: int) -> bool:
    """Running, not a zombie waiting for an init that may never reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_the_watchdog_limits_are_the_timeouts_of_hooks_json() -> None:
    hooks = json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"]
    runner = RUNNER.read_text()
    for event, name in (("prompt", "UserPromptSubmit"), ("session-end", "SessionEnd")):
        timeout = hooks[name][0]["hooks"][0]["timeout"]
        assert re.search(rf"^\s*{event}\) limit={timeout} ;;", runner, re.M), event
    assert re.search(rf"\*\) limit={hooks['SessionStart'][0]['hooks'][0]['timeout']} ;;", runner)


def test_the_interpreter_ends_at_the_hook_limit_after_the_wrapper_is_killed(tmp_path: Path) -> None:
    root = tmp_path / "plugin"
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "agd-memory").write_text(SLEEPER, encoding="utf-8")
    pid_file = tmp_path / "pid"
    env = {**os.environ, "CLAUDE_PLUGIN_ROOT": str(root), "PID_FILE": str(pid_file)}
    wrapper = subprocess.Popen(
        ["/bin/sh", str(RUNNER), "session-end"], stdin=subprocess.PIPE, env=env
    )
    try:
        deadline = time.monotonic() + 20
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the launcher never started"
            time.sleep(0.05)
        child = int(pid_file.read_text())
        wrapper.send_signal(signal.SIGKILL)  # what a timed-out hook gets
        wrapper.wait(timeout=10)
        assert alive(child), "the interpreter outlives the wrapper until its own deadline"
        limit = json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"]["SessionEnd"][0][
            "hooks"
        ][0]["timeout"]
        deadline = time.monotonic() + limit + 10
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(child), f"the hook's interpreter was still running {limit + 10} s later"
    finally:
        if wrapper.poll() is None:
            wrapper.kill()
            wrapper.wait()
        if wrapper.stdin:
            wrapper.stdin.close()
