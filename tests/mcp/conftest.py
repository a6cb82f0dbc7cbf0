"""Fixtures for the MCP server tests; the data and clients are in `mcp_fixtures`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (mcp>=2,<3) is not installed")

from mcp_fixtures import Memory, Result, StdioServer, call_tools  # noqa: E402

ToolCall = Callable[..., Result]


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    m = Memory(tmp_path)
    m.seed()
    return m


@pytest.fixture
def empty_memory(tmp_path: Path) -> Memory:
    return Memory(tmp_path)


def _caller(memory: Memory) -> ToolCall:
    server = memory.server()

    def call(name: str, args: dict[str, Any] | None = None) -> Result:
        return call_tools(server, [(name, args or {})])[0]

    return call


@pytest.fixture
def tool(memory: Memory) -> ToolCall:
    """`tool(name, args)` -> Result, through an in-memory client session on the seeded memory."""
    return _caller(memory)


@pytest.fixture
def empty_tool(empty_memory: Memory) -> ToolCall:
    """The same on a project with no memory file yet."""
    return _caller(empty_memory)


@pytest.fixture
def spawn() -> Iterator[Callable[[list[str], dict[str, str], Path], StdioServer]]:
    """Start server processes; any still running at the end of the test is killed."""
    servers: list[StdioServer] = []

    def start(argv: list[str], env: dict[str, str], cwd: Path) -> StdioServer:
        s = StdioServer(argv, env, cwd)
        servers.append(s)
        return s

    yield start
    for s in servers:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
