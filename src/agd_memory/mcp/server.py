"""Start of the MCP server: `serve` runs the stdio server declared in `mcp.app`.

`mcp.app` is the only module that imports the SDK; the `agd-memory mcp` verb
(`commands/servers.py`) and `bin/agd-memory-mcp` parse the flags and call `serve`.

Why mcp 2.x (pinned `mcp>=2,<3` in pyproject.toml): its stdio transport moves
file descriptor 1 aside while it serves, so a stray print, a library warning or a
child process can never corrupt the protocol stream, where 1.x serves on the
process's own stdout (tests/mcp/test_mcp_stdio.py checks this). 2.x also ships the
in-memory `mcp.Client` the tests drive the tools with. The price is start-up:
importing the 2.3 server takes about 0.8 s on the CI machine, against about
0.55 s for 1.30 (benchmarks/README.md), well inside Claude Code's 30 s limit.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from ..errors import UserError
from .sdk import REQUIREMENT


def serve(project: Path | None = None) -> int:
    """Serve the four tools on stdin/stdout until EOF (`agd-memory mcp` parses its flags)."""
    try:
        from .app import build_server
    except ImportError as exc:
        if not (exc.name or "").startswith(("mcp", "pydantic")):
            raise
        raise UserError(
            f"the MCP SDK is not installed ({exc.name}); run `pip install '{REQUIREMENT}'`, or start "
            "the server with bin/agd-memory-mcp, which installs it in its own environment"
        ) from None
    server = build_server(project_dir=project)
    with contextlib.suppress(KeyboardInterrupt):
        server.run("stdio")
    return 0
