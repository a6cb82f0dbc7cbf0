"""`agd-memory mcp-config --client NAME`: the snippet that registers this server in a client.

The snippet goes to stdout (so it can be piped or pasted as is); where to put
it goes to stderr. The command is absolute, because GUI-launched editors often
lack the shell's PATH: from a checkout it is this interpreter running
`bin/agd-memory-mcp` (which finds or installs the MCP SDK itself), from an
installed package it is this interpreter running `-m agd_memory.cli mcp`.
Clients that do not start servers in the project folder get `--project` with
their own workspace variable. Standard library only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import UserError

CLIENTS = ("claude", "codex", "gemini", "cursor", "vscode")

# Where each client reads the snippet from, told on stderr.
WHERE = {
    "claude": "Put it in .mcp.json at the project root (or run: claude mcp add --scope project "
    "agd-memory -- {cmdline}). Inside the agd-memory plugin this is already done.",
    "codex": "Add it to ~/.codex/config.toml (or a trusted project's .codex/config.toml), or run: "
    "codex mcp add agd-memory -- {cmdline}",
    "gemini": "Merge it into ~/.gemini/settings.json or the project's .gemini/settings.json.",
    "cursor": "Put it in .cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project).",
    "vscode": "Put it in .vscode/mcp.json in the workspace (or run: code --add-mcp '<the servers "
    "entry as one JSON object with a name key>').",
}

# The client's own variable for the open project, for clients that may start us elsewhere.
PROJECT_VARIABLE = {"cursor": "${workspaceFolder}", "vscode": "${workspaceFolder}"}


def server_command(project: str | None = None) -> list[str]:
    """The argv that starts the server, absolute, from a checkout or an installed package."""
    root = Path(__file__).resolve().parents[3]
    launcher = root / "bin" / "agd-memory-mcp"
    if launcher.is_file():
        argv = [sys.executable, str(launcher)]
    else:
        argv = [sys.executable, "-m", "agd_memory.cli", "mcp"]
    if project:
        argv += ["--project", project]
    return argv


def snippet(client: str, *, name: str = "agd-memory", project: str | None = None) -> str:
    """The text to paste into `client`'s configuration."""
    if client not in CLIENTS:
        raise UserError(f"unknown client '{client}'; choose one of: {', '.join(CLIENTS)}")
    command, *args = server_command(project or PROJECT_VARIABLE.get(client))
    if client == "codex":
        return (
            f"[mcp_servers.{_toml_key(name)}]\n"
            f"command = {json.dumps(command)}\n"
            f"args = [{', '.join(json.dumps(a) for a in args)}]\n"
            "startup_timeout_sec = 30\n"
        )
    entry: dict[str, object] = {"command": command, "args": args}
    if client == "gemini":
        entry["timeout"] = 30000
    if client in ("claude", "vscode"):
        entry = {"type": "stdio", **entry}
    key = "servers" if client == "vscode" else "mcpServers"
    return json.dumps({key: {name: entry}}, indent=2) + "\n"


def _toml_key(name: str) -> str:
    bare = name.replace("-", "").replace("_", "").isalnum() and name.isascii()
    return name if bare else json.dumps(name)
