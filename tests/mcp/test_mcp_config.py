"""`agd-memory mcp-config --client NAME` prints a snippet each client can read, that starts the server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from mcp_fixtures import INIT_LINE, LAUNCHER, ROOT

from agd_memory.cli import main as cli_main
from agd_memory.mcp.config import CLIENTS


def config(capsys, *args: str) -> tuple[str, str]:
    assert cli_main(["mcp-config", *args]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def server_entry(client: str, out: str) -> dict:
    if client == "codex":
        return tomllib.loads(out)["mcp_servers"]["agd-memory"]
    data = json.loads(out)
    return data["servers" if client == "vscode" else "mcpServers"]["agd-memory"]


@pytest.mark.parametrize("client", CLIENTS)
def test_each_client_gets_a_parseable_snippet_with_an_absolute_command(capsys, client):
    out, err = config(capsys, "--client", client)
    entry = server_entry(client, out)
    assert Path(entry["command"]).is_absolute() and Path(entry["command"]).exists()
    assert entry["args"][0] == str(LAUNCHER)
    assert err.strip()  # where to put it, on stderr


@pytest.mark.parametrize("client", ["cursor", "vscode"])
def test_editors_pass_their_workspace_folder(capsys, client):
    entry = server_entry(client, config(capsys, "--client", client)[0])
    assert entry["args"][-2:] == ["--project", "${workspaceFolder}"]


def test_client_specific_shapes(capsys):
    assert server_entry("vscode", config(capsys, "--client", "vscode")[0])["type"] == "stdio"
    assert server_entry("gemini", config(capsys, "--client", "gemini")[0])["timeout"] == 30000
    assert (
        server_entry("codex", config(capsys, "--client", "codex")[0])["startup_timeout_sec"] == 30
    )
    assert "codex mcp add agd-memory -- " in config(capsys, "--client", "codex")[1]


def test_project_and_name_options(capsys):
    out, _ = config(capsys, "--client", "codex", "--project", "/srv/app", "--name", "memory")
    entry = tomllib.loads(out)["mcp_servers"]["memory"]
    assert entry["args"][-2:] == ["--project", "/srv/app"]


def test_unknown_client_is_a_one_line_error(capsys):
    assert cli_main(["mcp-config", "--client", "emacs"]) == 1
    err = capsys.readouterr().err
    assert (
        err
        == "agd-memory: unknown client 'emacs'; choose one of: claude, codex, gemini, cursor, vscode\n"
    )


def test_mcp_config_does_not_import_the_sdk():
    code = "import sys; from agd_memory.cli import main; main(['mcp-config','--client','claude']); print('mcp' in sys.modules, file=sys.stderr)"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src")},
    )
    assert proc.stderr.strip().endswith("False")


@pytest.mark.slow
def test_the_claude_snippet_starts_a_working_server(capsys, memory):
    entry = server_entry("claude", config(capsys, "--client", "claude")[0])
    proc = subprocess.run(
        [entry["command"], *entry["args"]],
        input=INIT_LINE,
        capture_output=True,
        text=True,
        env=memory.process_env(),
        cwd=memory.project_dir,
        timeout=60,
    )
    assert json.loads(proc.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "agd-memory"


def test_plugin_mcp_json_runs_the_launcher():
    data = json.loads((ROOT / ".mcp.json").read_text())
    entry = data["mcpServers"]["agd-memory"]
    assert entry["command"] == "python3"
    assert entry["args"] == ["${CLAUDE_PLUGIN_ROOT}/bin/agd-memory-mcp"]
    assert LAUNCHER.stat().st_mode & 0o111
