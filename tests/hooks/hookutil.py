"""Helpers for the hook tests: captured payloads, running a hook in-process or as a process."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agd_memory import paths
from agd_memory.settings import Settings

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).with_name("fixtures")
LAUNCHER = REPO / "bin" / "agd-memory"
RUNNER = REPO / "hooks" / "run"

PROJECT_MEMORY = (FIXTURES / "project-memory.agd").read_text(encoding="utf-8")
"""Three entries under two sections; the e2e tests use the same file."""

STORED_FACT = "Which port does pgbouncer use for the staging Postgres database?"
"""A prompt recall answers with #project-staging-pgbouncer of PROJECT_MEMORY."""


def load_payload(name: str, **changes: Any) -> dict[str, Any]:
    """A captured payload (`fixtures/<name>.json`) with some fields replaced."""
    data = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    data.update(changes)
    return data


def layers(env: dict[str, str], project: Path) -> paths.Layers:
    return paths.resolve(Settings.load(env), cwd=str(project))


def write_layer(env: dict[str, str], project: Path, text: str, layer: str = "project") -> Path:
    """Write `text` as the project (or global) memory file `env` resolves for `project`."""
    found = layers(env, project)
    path = found.project.path if layer == "project" else found.global_.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def debug_log(env: dict[str, str]) -> str:
    path = Path(env["CLAUDE_PLUGIN_DATA"]) / "debug.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def run_main(
    argv: list[str], stdin: bytes | str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> tuple[int, str, str]:
    """Run `agd_memory.claude.hooks.main` in-process with `stdin`; return (status, stdout, stderr)."""
    from agd_memory.claude import hooks

    raw = stdin.encode() if isinstance(stdin, str) else stdin
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
    status = hooks.main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def run_hook(
    event: str,
    payload: dict[str, Any] | bytes,
    env: dict[str, str],
    *,
    via: Path = LAUNCHER,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run a hook as Claude Code does: a fresh process, payload on stdin."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    argv = ["sh", str(via), event] if via == RUNNER else [sys.executable, str(via), "hook", event]
    proc = subprocess.run(argv, input=data, env=env, capture_output=True, timeout=timeout)
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()
    )


def context_of(stdout: str, event_name: str) -> str:
    """The additionalContext of a hook's stdout, checking the JSON shape Claude Code requires."""
    data = json.loads(stdout)
    assert set(data) == {"hookSpecificOutput"}
    specific = data["hookSpecificOutput"]
    assert specific["hookEventName"] == event_name
    assert isinstance(specific["additionalContext"], str)
    return specific["additionalContext"]
