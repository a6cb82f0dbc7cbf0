"""Entry points of the MCP server: `agd-memory mcp` and `agd-memory mcp-config`.

`main` starts the stdio server declared in `mcp.app` (the only module that
imports the SDK); `bin/agd-memory-mcp` calls the same `main`. `config_main`
prints the registration snippet for other MCP clients and needs no SDK.

Why mcp 2.x (pinned `mcp>=2,<3` in pyproject.toml): its stdio transport moves
file descriptor 1 aside while it serves, so a stray print, a library warning or a
child process can never corrupt the protocol stream, where 1.x serves on the
process's own stdout (tests/mcp/test_mcp_stdio.py checks this). 2.x also ships the
in-memory `mcp.Client` the tests drive the tools with. The price is start-up:
importing the 2.3 server takes about 0.8 s on the CI machine, against about
0.55 s for 1.30 (benchmarks/README.md), well inside Claude Code's 30 s limit.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Sequence
from pathlib import Path

from ..errors import UserError

REQUIREMENT = "mcp>=2,<3"
"""The SDK this server is written for; the same pin as pyproject.toml and bin/agd-memory-mcp."""


def main(argv: Sequence[str] | None = None) -> int:
    """`agd-memory mcp [--project DIR]`: serve the four tools on stdin/stdout until EOF."""
    parser = argparse.ArgumentParser(
        prog="agd-memory mcp",
        description="Start the agd-memory MCP server on stdio. Stdout carries only protocol messages.",
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="project folder whose memory to serve (default: $CLAUDE_PROJECT_DIR, else the current folder)",
    )
    args = parser.parse_args(list(argv or []))
    try:
        from .app import build_server
    except ImportError as exc:
        if not (exc.name or "").startswith(("mcp", "pydantic")):
            raise
        raise UserError(
            f"the MCP SDK is not installed ({exc.name}); run `pip install '{REQUIREMENT}'`, or start "
            "the server with bin/agd-memory-mcp, which installs it in its own environment"
        ) from None
    project = Path(args.project).expanduser().resolve() if args.project else None
    server = build_server(project_dir=project)
    with contextlib.suppress(KeyboardInterrupt):
        server.run("stdio")
    return 0


def config_main(argv: Sequence[str] | None = None) -> int:
    """`agd-memory mcp-config --client NAME`: print the registration snippet for a client."""
    from .config import main as config

    return config(list(argv or []))
