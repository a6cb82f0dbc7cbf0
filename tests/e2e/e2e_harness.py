"""The end-to-end harness: the real `claude` CLI, this repository as a plugin, a fake API.

The fixtures (`claude`, `fake_api`, `e2e_project`) live in `conftest.py`; import helpers
from here (`from e2e_harness import MCP_PREFIX, Reply`). A test file in `tests/e2e/`
(mark it `e2e`):

    def test_something(claude, fake_api, e2e_project):
        e2e_project.write_memory(TEXT)        # the project layer the hooks will find
        get = MCP_PREFIX + "agd_memory_get"
        fake_api.script(
            Reply.tool_use("ToolSearch", {"query": "select:" + get}),  # MCP tools are deferred
            Reply.tool_use("agd_memory_get", {"id": "x"}),
            Reply.text("done"),
        )
        run = claude("what about x?", allowed_tools=[get])
        assert run.ok, run.diagnose()
        assert "x" in run.conversation[0].message_text()

`claude(...)` runs `$AGD_E2E_CLAUDE -p PROMPT --plugin-dir <repo> --output-format json` in
the project folder with an isolated HOME and CLAUDE_CONFIG_DIR, `ANTHROPIC_BASE_URL` at the
fake, a dummy key, telemetry/auto-update/nonessential traffic off, no session persistence,
and a timeout. Everything else is Claude Code's default: its auto memory is on (its memory
instructions and `MEMORY.md` reach the model; a test about ours alone sets
`autoMemoryEnabled: false` or `CLAUDE_CODE_DISABLE_AUTO_MEMORY=1` through `env`), and tool
search is on, so MCP tools are deferred: a scripted reply first calls `ToolSearch` with
`{"query": "select:<prefixed names>"}`, and the next request offers those tools. The interpreter running the
tests comes first on PATH, so the hooks' `python3` and the MCP launcher use it (and the
`mcp` it has installed).

The tests are skipped, with the reason, when `AGD_E2E_CLAUDE` is unset; under `CI=true`
they fail instead, so a green CI always ran them. `scripts/test` installs the pinned CLI
(`tests/e2e/claude-code.version`) and sets the variable.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fake_api import FakeAnthropic, Reply, Request

__all__ = [
    "MCP_PREFIX",
    "REPO",
    "ClaudeRun",
    "E2EProject",
    "FakeAnthropic",
    "Reply",
    "Request",
    "claude_binary",
    "has_mcp_server",
    "require_claude",
]

REPO = Path(__file__).resolve().parents[2]
VERSION_FILE = Path(__file__).with_name("claude-code.version")
DEFAULT_TIMEOUT_S = 90.0
PLUGIN = "agd-memory"
MCP_SERVER = "agd-memory"
MCP_PREFIX = f"mcp__plugin_{PLUGIN}_{MCP_SERVER}__"
"""How Claude Code names the plugin's MCP tools: `mcp__plugin_<plugin>_<server>__<tool>`."""

OFFLINE_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
    "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
    "MCP_TIMEOUT": "30000",
}
# Variables of the calling environment never passed on: they would leak the developer's
# configuration, credentials or a parent Claude Code session into the run.
_DROP_PREFIXES = ("ANTHROPIC_", "CLAUDE", "AGD_", "OTEL_", "AWS_", "GOOGLE_", "VERTEX")


SKIP_REASON = (
    "AGD_E2E_CLAUDE is not set (or not executable): install the pinned CLI with "
    "`npm install --prefix .cache/claude-code-$(cat tests/e2e/claude-code.version) "
    "@anthropic-ai/claude-code@$(cat tests/e2e/claude-code.version)` and export "
    "AGD_E2E_CLAUDE=<prefix>/node_modules/.bin/claude (scripts/test does this)"
)


def in_ci() -> bool:
    """CI must run the end-to-end tests: there a missing CLI is a failure, not a skip."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require_claude() -> str:
    """The CLI's path; skips the test (fails it under CI) when `AGD_E2E_CLAUDE` is unusable."""
    import pytest

    binary = claude_binary()
    if binary is None:
        if in_ci():
            pytest.fail("CI=true but " + SKIP_REASON)
        pytest.skip(SKIP_REASON)
    return binary


def claude_binary() -> str | None:
    """`$AGD_E2E_CLAUDE` if it names an executable, else None."""
    path = os.environ.get("AGD_E2E_CLAUDE", "").strip()
    if path and os.access(path, os.X_OK):
        return path
    return None


@dataclass
class ClaudeRun:
    """The outcome of one `claude -p` run."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    requests: list[Request]
    """Every request the fake API received during this run."""
    result: dict[str, Any] | None = None
    """The parsed `--output-format json` result object, when stdout held one."""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and bool(self.result) and not self.result.get("is_error")

    @property
    def conversation(self) -> list[Request]:
        return [r for r in self.requests if r.is_conversation]

    def diagnose(self) -> str:
        """A compact report for assertion messages."""
        lines = [
            f"argv: {self.argv}",
            f"exit {self.returncode}",
            f"stdout: {self.stdout[-2000:]}",
            f"stderr: {self.stderr[-2000:]}",
        ]
        for r in self.requests:
            lines.append(f"request {r.path} tools={len(r.tool_names)}")
        return "\n".join(lines)


@dataclass
class E2EProject:
    """An isolated home and project folder for one test."""

    root: Path
    home: Path
    config_dir: Path
    project: Path
    env: dict[str, str] = field(default_factory=dict)
    """Extra variables for the `claude` process (and so for hooks and the MCP server)."""

    def settings_env(self) -> dict[str, str]:
        """The environment the hooks will see, minus Claude Code's own additions."""
        return {"HOME": str(self.home), **self.env}

    def layers(self) -> Any:
        """The real resolver's answer for this project (`agd_memory.paths.resolve`)."""
        from agd_memory import paths
        from agd_memory.settings import Settings

        return paths.resolve(Settings.load(self.settings_env()), cwd=str(self.project))

    def memory_path(self, layer: str = "project") -> Path:
        """Where the hooks will look for a layer of this project."""
        try:
            layers = self.layers()
        except ImportError:  # no resolver yet: pin the files through the environment
            key = "AGD_MEMORY_FILE" if layer == "project" else "AGD_MEMORY_GLOBAL_FILE"
            self.env.setdefault(key, str(self.root / f"{layer}.agd"))
            return Path(self.env[key])
        return Path(layers.project.path if layer == "project" else layers.global_.path)

    def write_memory(self, text: str, layer: str = "project") -> Path:
        path = self.memory_path(layer)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


def base_env(project: E2EProject, api_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROP_PREFIXES)}
    env.update(OFFLINE_ENV)
    env.update(
        {
            "HOME": str(project.home),
            "CLAUDE_CONFIG_DIR": str(project.config_dir),
            "XDG_CONFIG_HOME": str(project.home / ".config"),
            "XDG_DATA_HOME": str(project.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(project.home / ".cache"),
            "ANTHROPIC_BASE_URL": api_url,
            "ANTHROPIC_API_KEY": "sk-ant-e2e-dummy-key",
            "GIT_CEILING_DIRECTORIES": str(project.root),
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        }
    )
    env.update(project.env)
    return env


def parse_result(stdout: str) -> dict[str, Any] | None:
    """The `--output-format json` result object (the last line of stdout), or None."""
    lines = stdout.strip().splitlines()
    if not lines:
        return None
    try:
        parsed = json.loads(lines[-1])
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def has_mcp_server() -> bool:
    """True once the MCP helper's `.mcp.json` exists (tests of the tools skip until then)."""
    return (REPO / ".mcp.json").is_file()


def node_available() -> bool:
    return shutil.which("node") is not None
