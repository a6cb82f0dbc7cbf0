"""The server as a client starts it: a process on real pipes, every stdout line JSON-RPC.

`StdioServer.receive` parses every line the server writes to stdout and fails
on anything that is not a JSON-RPC message, so each test here also checks that
nothing but protocol reaches stdout.
"""

from __future__ import annotations

import json
import sys

import pytest
from mcp_fixtures import LAUNCHER, ROOT

from agd_memory import paths
from agd_memory.mcp.app import TOOL_NAMES
from agd_memory.settings import Settings

pytestmark = pytest.mark.slow


def finish(server) -> str:
    status, rest, err = server.close()
    for line in rest.splitlines():
        assert json.loads(line)["jsonrpc"] == "2.0", line
    assert status == 0, err
    return err


def test_launcher_serves_every_tool_over_stdio(memory, spawn):
    server = spawn(
        [sys.executable, str(LAUNCHER)],
        memory.process_env(AGD_MEMORY_DEBUG="1"),
        memory.project_dir,
    )
    init = server.initialize()["result"]
    assert init["serverInfo"]["name"] == "agd-memory"
    assert "agd_memory_toc" in init["instructions"]
    tools = server.request("tools/list")["result"]["tools"]
    assert sorted(t["name"] for t in tools) == sorted(TOOL_NAMES)

    toc = server.call("agd_memory_toc", {})
    assert not toc.is_error and "#deploy (x-project, project" in toc.text
    found = server.call("agd_memory_search", {"query": "postgres tuning"})
    assert not found.is_error and "#pg-tuning" in found.text
    saved = server.call(
        "agd_memory_save", {"kind": "x-project", "id": "over-stdio", "content": "Saved."}
    )
    assert not saved.is_error and "added #over-stdio" in saved.text
    got = server.call("agd_memory_get", {"ids": ["over-stdio", "answer-style", "ghost"]})
    assert "[project layer]" in got.text and "[global layer]" in got.text
    assert "Not found in scope all: #ghost" in got.text
    bad = server.call("agd_memory_save", {"kind": "x-project", "id": "a.b", "content": "x"})
    assert bad.is_error and "a-b" in bad.text
    finish(server)
    assert "[#over-stdio]" in memory.project_file.read_text(encoding="utf-8")


def test_project_folder_comes_from_claude_project_dir(memory, spawn, tmp_path):
    """Without AGD_MEMORY_FILE the server resolves the same project file as every other entry point."""
    env = memory.process_env(CLAUDE_PROJECT_DIR=str(memory.project_dir))
    del env["AGD_MEMORY_FILE"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    server = spawn([sys.executable, str(LAUNCHER)], env, elsewhere)
    server.initialize()
    r = server.call("agd_memory_save", {"kind": "x-project", "id": "resolved", "content": "Here."})
    assert not r.is_error, r.text
    finish(server)
    settings = Settings.load({k: v for k, v in memory.env.items() if k != "AGD_MEMORY_FILE"})
    expected = paths.resolve(settings, cwd=memory.project_dir).project.path
    assert str(expected) in r.text
    assert "[#resolved]" in expected.read_text(encoding="utf-8")


def test_project_argument_overrides_the_working_folder(memory, spawn, tmp_path):
    env = memory.process_env()
    del env["AGD_MEMORY_FILE"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    server = spawn(
        [sys.executable, str(LAUNCHER), "--project", str(memory.project_dir)], env, elsewhere
    )
    server.initialize()
    r = server.call("agd_memory_save", {"kind": "x-project", "id": "pinned", "content": "Here."})
    finish(server)
    settings = Settings.load({k: v for k, v in memory.env.items() if k != "AGD_MEMORY_FILE"})
    assert str(paths.resolve(settings, cwd=memory.project_dir).project.path) in r.text


def test_agd_memory_mcp_verb_starts_the_same_server(memory, spawn):
    server = spawn(
        [sys.executable, str(ROOT / "bin" / "agd-memory"), "mcp"],
        memory.process_env(),
        memory.project_dir,
    )
    assert server.initialize()["result"]["serverInfo"]["name"] == "agd-memory"
    assert len(server.request("tools/list")["result"]["tools"]) == 4
    finish(server)


def test_server_exits_cleanly_when_the_client_goes_away(memory, spawn):
    server = spawn([sys.executable, str(LAUNCHER)], memory.process_env(), memory.project_dir)
    server.initialize()
    status, rest, err = server.close()
    assert status == 0, err
    assert rest == ""


STRAY_OUTPUT_SERVER = """
import os, subprocess, sys
import agd_memory.mcp.tools as tools
from agd_memory.mcp.app import build_server

real_toc = tools.toc

def noisy_toc(*args, **kwargs):
    print("stray print from a library")
    os.write(1, b"raw write to fd 1\\n")
    subprocess.run([sys.executable, "-c", "print('child process output')"])
    return real_toc(*args, **kwargs)

tools.toc = noisy_toc
build_server().run("stdio")
"""


def test_stray_output_never_reaches_the_protocol_stream(memory, spawn):
    server = spawn(
        [sys.executable, "-c", STRAY_OUTPUT_SERVER], memory.process_env(), memory.project_dir
    )
    server.initialize()
    r = server.call("agd_memory_toc", {})  # fails on any non-JSON line before the reply
    assert not r.is_error and "#deploy" in r.text
    status, rest, err = server.close()
    assert rest == ""
    assert "stray print from a library" in err
    assert "raw write to fd 1" in err
    assert "child process output" in err
