"""Start of the MCP server: `serve` runs the stdio server declared in `mcp.app`.

`mcp.app` is the only module that imports the SDK (`mcp.handshake` answers the first
requests while it imports); the `agd-memory mcp` verb
(`commands/servers.py`) and `bin/agd-memory-mcp` parse the flags and call `serve`.

Why mcp 2.x (pinned `mcp>=2,<3` in pyproject.toml): its stdio transport moves
file descriptor 1 aside while it serves, so a stray print, a library warning or a
child process can never corrupt the protocol stream, where 1.x serves on the
process's own stdout (tests/mcp/test_mcp_stdio.py checks this). 2.x also ships the
in-memory `mcp.Client` the tests drive the tools with. The price is start-up:
importing the 2.3 server takes about 0.8 s on the CI machine, against about
0.55 s for 1.30 (benchmarks/README.md), well inside Claude Code's 30 s limit.
The import runs in a thread while `mcp.handshake` answers the first requests.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Any

from ..errors import UserError
from . import handshake
from .sdk import REQUIREMENT


def serve(project: Path | None = None) -> int:
    """Serve the four tools on stdin/stdout until EOF (`agd-memory mcp` parses its flags).

    The SDK imports in a thread while `mcp.handshake` answers the handshake and the tool
    list from the standard library; the first other message hands the session to the SDK."""
    loaded: dict[str, Any] = {}

    def load() -> None:
        try:
            from .app import build_server

            loaded["server"] = build_server(project_dir=project)
        except BaseException as exc:  # re-raised in the main thread
            loaded["error"] = exc

    loader = threading.Thread(target=load, name="agd-memory-sdk-import", daemon=True)
    with contextlib.suppress(KeyboardInterrupt):
        wire = handshake.Wire()
        loader.start()
        snapshot = handshake.load_snapshot()
        if snapshot is None:
            replay: list[bytes] | None = []
        else:
            replay = handshake.answer_first(wire, snapshot)
        if replay is None:
            return 0  # the client closed the session before it needed the SDK
        loader.join()
        error = loaded.get("error")
        if isinstance(error, ImportError) and (error.name or "").startswith(("mcp", "pydantic")):
            raise UserError(
                f"the MCP SDK is not installed ({error.name}); run `pip install '{REQUIREMENT}'`, "
                "or start the server with bin/agd-memory-mcp, which installs it in its own "
                "environment"
            ) from None
        if error is not None:
            raise error
        from .app import run_streams

        run_streams(loaded["server"], *handshake.text_streams(wire, replay))
    return 0
