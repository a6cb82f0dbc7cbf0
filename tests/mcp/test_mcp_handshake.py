"""The handshake answered while the SDK imports (`agd_memory.mcp.handshake`).

A `claude -p` session sends its first request about 2 s after it starts the server,
and the SDK's import is 0.6 s of CPU that shared cores stretch past that
(benchmarks/mcp_sessions.py): the server answers `initialize` and the lists first,
from a record of the SDK's own answers, then hands the session to the SDK.
"""

from __future__ import annotations

import sys

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_fixtures import LAUNCHER

import mcp
from agd_memory.mcp import handshake
from agd_memory.mcp.app import (
    INSTRUCTIONS,
    SERVER_NAME,
    TOOL_NAMES,
    build_server,
    handshake_answers,
)

pytestmark = pytest.mark.slow

# Imported by the server's interpreter: the SDK's types module waits for `gate` (at most
# 20 s, then `released` records that it went on without it), as a slow import would.
GATED_IMPORT = """\
import os, sys, time

class Gate:
    def find_spec(self, name, path=None, target=None):
        if name == "mcp_types":
            sys.meta_path.remove(self)
            deadline = time.monotonic() + 20
            while not os.path.exists({gate!r}) and time.monotonic() < deadline:
                time.sleep(0.05)
            if not os.path.exists({gate!r}):
                open({released!r}, "w").close()
        return None

sys.meta_path.insert(0, Gate())
"""


def test_the_record_is_what_the_sdk_answers():
    assert handshake.load_snapshot() == handshake_answers(), (
        "mcp/handshake.json is stale: run `python -c 'from agd_memory.mcp.app import "
        "write_handshake; write_handshake()'` and commit it"
    )


def test_initialize_and_the_tool_list_come_before_the_sdk_is_imported(memory, spawn, tmp_path):
    gate, released = tmp_path / "gate", tmp_path / "released"
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        GATED_IMPORT.format(gate=str(gate), released=str(released))
    )
    env = memory.process_env()
    env["PYTHONPATH"] = f"{site}:{env['PYTHONPATH']}"
    server = spawn([sys.executable, str(LAUNCHER)], env, memory.project_dir)

    init = server.initialize()["result"]
    tools = server.request("tools/list")["result"]["tools"]
    assert not released.exists(), "the answers waited for the SDK's import"
    assert init["serverInfo"]["name"] == "agd-memory"
    assert sorted(t["name"] for t in tools) == sorted(TOOL_NAMES)

    gate.touch()  # the import finishes; the next call is the SDK's
    toc = server.call("agd_memory_toc", {})
    assert not toc.is_error and "#deploy (x-project, project" in toc.text
    status, rest, err = server.close()
    assert status == 0 and not rest.strip(), err


async def over_stdio_and_in_memory(memory):
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(LAUNCHER)],
        env=memory.process_env(),
        cwd=memory.project_dir,
    )
    with anyio.fail_after(60):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
        async with mcp.Client(build_server(memory.settings, memory.project_dir)) as client:
            direct = (client.instructions, client.server_info)
            direct_tools = await client.list_tools()
    # (capabilities differ by transport: the in-memory one announces list changes)
    return (init.instructions, init.server_info), tools, direct, direct_tools


def test_the_official_client_gets_the_sdks_answers_over_stdio(memory):
    init, tools, direct, direct_tools = anyio.run(over_stdio_and_in_memory, memory)
    assert init == direct
    assert tools.tools == direct_tools.tools
    assert init[1].name == SERVER_NAME and init[0] == INSTRUCTIONS
    assert sorted(t.name for t in tools.tools) == sorted(TOOL_NAMES)
    for t in tools.tools:
        assert t.description and t.input_schema["type"] == "object", t.name
    save = next(t for t in tools.tools if t.name == "agd_memory_save")
    assert {"kind", "id", "content"} <= set(save.input_schema["required"])
    assert save.annotations.read_only_hint is False


def test_an_unknown_protocol_version_is_left_to_the_sdk(memory, spawn):
    server = spawn([sys.executable, str(LAUNCHER)], memory.process_env(), memory.project_dir)
    client = {"name": "t", "version": "0"}
    reply = server.request(
        "initialize", {"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": client}
    )
    assert reply["result"]["protocolVersion"] == handshake_answers()["versions"][-1]
    server.send("notifications/initialized", notify=True)
    assert "#deploy" in server.call("agd_memory_toc", {}).text
    status, _, err = server.close()
    assert status == 0, err
