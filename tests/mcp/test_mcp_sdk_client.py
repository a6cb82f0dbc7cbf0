"""The launcher as Claude Code meets it: the official `mcp` client over stdio.

Claude Code lists a server's tools right after the handshake and, in a `claude -p`
session, sends its first request after about 2 s whether the server answered or not
(benchmarks/mcp_sessions.py); these are the two answers that must come first.
"""

from __future__ import annotations

import sys

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_fixtures import LAUNCHER

from agd_memory.mcp.app import INSTRUCTIONS, SERVER_NAME, TOOL_NAMES

pytestmark = pytest.mark.slow


async def handshake(memory) -> tuple[object, list[object]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(LAUNCHER)],
        env=memory.process_env(),
        cwd=memory.project_dir,
    )
    with anyio.fail_after(60):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            listed = await session.list_tools()
    return init, listed.tools


def test_the_official_client_connects_and_lists_the_four_tools(memory):
    init, tools = anyio.run(handshake, memory)
    assert init.server_info.name == SERVER_NAME
    assert init.instructions == INSTRUCTIONS
    assert init.capabilities.tools is not None
    assert sorted(t.name for t in tools) == sorted(TOOL_NAMES)
    for t in tools:
        assert t.description and t.input_schema["type"] == "object", t.name
    save = next(t for t in tools if t.name == "agd_memory_save")
    assert {"kind", "id", "content"} <= set(save.input_schema["required"])
    assert save.annotations.read_only_hint is False
