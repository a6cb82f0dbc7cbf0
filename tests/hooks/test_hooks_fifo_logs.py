"""A FIFO planted where a hook appends (its debug log, the usage log) never hangs the hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hookutil import LAUNCHER


def test_a_fifo_as_the_debug_log_does_not_hang_the_prompt_hook(tmp_path: Path, hook_env) -> None:
    data = Path(hook_env["CLAUDE_PLUGIN_DATA"])
    data.mkdir(parents=True, exist_ok=True)
    os.mkfifo(data / "debug.log")
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": "hi", "cwd": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-S", str(LAUNCHER), "hook", "prompt"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=hook_env,
        timeout=30,  # a hang fails here instead of hanging the suite
    )
    assert (proc.returncode, proc.stdout) == (0, "")
