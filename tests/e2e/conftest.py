"""Fixtures for end-to-end tests (`fake_api`, `e2e_project`, `claude`); see `e2e_harness`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from e2e_harness import (  # noqa: E402
    DEFAULT_TIMEOUT_S,
    REPO,
    SKIP_REASON,
    VERSION_FILE,
    ClaudeRun,
    E2EProject,
    base_env,
    claude_binary,
    in_ci,
    parse_result,
    require_claude,
)
from fake_api import FakeAnthropic  # noqa: E402


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Conftest hooks see the whole session's items: touch only this folder's. Under CI a
    # missing CLI is not skipped: `require_claude` fails those tests instead.
    if claude_binary() or in_ci():
        return
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here) and (
            item.get_closest_marker("e2e") or "claude" in getattr(item, "fixturenames", ())
        ):
            item.add_marker(pytest.mark.skip(reason=SKIP_REASON))


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    """A fake Messages API on 127.0.0.1; stopped when the test ends."""
    with FakeAnthropic() as fake:
        yield fake


@pytest.fixture
def e2e_project(tmp_path: Path) -> E2EProject:
    home = tmp_path / "home"
    config_dir = home / ".claude"
    project = tmp_path / "project"
    for d in (home, config_dir, project):
        d.mkdir(parents=True)
    # AGD_MEMORY_HOME = the isolated HOME: the resolver in this process (which has the
    # real HOME) then finds the same files as the hooks and the MCP server in the CLI.
    env = {"AGD_MEMORY_HOME": str(home)}
    return E2EProject(root=tmp_path, home=home, config_dir=config_dir, project=project, env=env)


@pytest.fixture
def claude(fake_api: FakeAnthropic, e2e_project: E2EProject):
    """Run `claude -p` against the fake API with this repository loaded as a plugin."""
    binary = require_claude()

    def run(
        prompt: str,
        *,
        args: Sequence[str] = (),
        allowed_tools: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        plugin_dir: Path | None = REPO,
        persist_session: bool = False,
    ) -> ClaudeRun:
        """`claude -p PROMPT` in the project folder; `args` are extra CLI flags, `env` extra
        variables, `allowed_tools` pre-approved tools (MCP tools prompt otherwise, and `-p`
        cannot answer). No transcript is written unless `persist_session`; `plugin_dir=None`
        loads only installed plugins."""
        argv = [binary, "-p", prompt, "--output-format", "json"]
        if plugin_dir is not None:
            argv += ["--plugin-dir", str(plugin_dir)]
        if not persist_session:
            argv.append("--no-session-persistence")
        if allowed_tools:
            argv += ["--allowedTools", ",".join(allowed_tools)]
        argv += list(args)
        full_env = base_env(e2e_project, fake_api.url)
        # No detached distiller outliving the test, unless a test asks for one
        # (env={"AGD_DISTILL_DISABLED": "0"}); tests/e2e/test_distill_e2e.py covers it.
        full_env["AGD_DISTILL_DISABLED"] = "1"
        full_env["AGD_HISTORY_DISABLED"] = "1"  # the worker also keeps history: opt in
        full_env.update(env or {})
        before = len(fake_api.requests)
        proc = subprocess.Popen(
            argv,
            cwd=e2e_project.project,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # so a timeout can stop the CLI and its hooks and servers
        )
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            pytest.fail(
                f"claude -p did not finish within {timeout:.0f} s\nstderr: {stderr[-2000:]}"
            )
        return ClaudeRun(
            argv,
            proc.returncode,
            stdout,
            stderr,
            fake_api.requests[before:],
            parse_result(stdout),
        )

    return run


@pytest.fixture(scope="session")
def claude_version() -> str:
    return VERSION_FILE.read_text(encoding="utf-8").strip()
