"""`agd-memory mcp | mcp-config | view`: the servers' flags; the servers live in `mcp/`, `viewer/`."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import UserError
from .args import verb_parser


def mcp(argv: Sequence[str]) -> int:
    p = verb_parser(
        "mcp",
        "Start the agd-memory MCP server on stdio. Stdout carries only protocol messages.",
        "agd-memory mcp --project ~/src/app",
    )
    p.add_argument(
        "--project",
        metavar="DIR",
        help="project folder whose memory to serve "
        "(default: $CLAUDE_PROJECT_DIR, else the current folder)",
    )
    args = p.parse_args(list(argv))
    from ..mcp.server import serve

    return serve(Path(args.project).expanduser().resolve() if args.project else None)


def mcp_config(argv: Sequence[str]) -> int:
    from ..mcp import config

    p = verb_parser(
        "mcp-config",
        "Print the configuration that registers the agd-memory MCP server in a client.",
        "agd-memory mcp-config --client cursor > .cursor/mcp.json",
    )
    p.add_argument(
        "--client", required=True, metavar="NAME", help=f"one of: {', '.join(config.CLIENTS)}"
    )
    p.add_argument(
        "--name", default="agd-memory", help="server name in the client (default agd-memory)"
    )
    p.add_argument(
        "--project",
        metavar="DIR",
        help="pin the project folder (default: the client's workspace, or the folder it starts in)",
    )
    args = p.parse_args(list(argv))
    sys.stdout.write(config.snippet(args.client, name=args.name, project=args.project))
    cmdline = " ".join(config.server_command(args.project))
    print(config.WHERE[args.client].format(cmdline=cmdline), file=sys.stderr)
    return 0


def view(argv: Sequence[str]) -> int:
    from ..settings import Settings
    from ..viewer.server import DEFAULT_PORT, serve

    p = verb_parser(
        "view",
        "Open the local web viewer: read, search and browse the memory graph.",
        "agd-memory view --no-open   (prints the URL, serves until Ctrl+C)",
    )
    p.add_argument("file", nargs="?", help="a memory file to show first (default: this project's)")
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="first port to try (default 8765; 0 = any)"
    )
    p.add_argument("--no-open", action="store_true", help="do not open a browser")
    p.add_argument(
        "--idle-exit",
        type=float,
        default=0,
        metavar="SECONDS",
        help="stop after this long without a request (an open page polls every 2 s); 0 = never",
    )
    p.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = p.parse_args(list(argv))
    if not 0 <= args.port < 65536:
        p.error(f"--port {args.port}: give a port between 0 and 65535")
    launch = None
    if args.file:
        launch = Path(args.file).expanduser().resolve()
        if not launch.is_file():
            raise UserError(
                f"{args.file}: no such memory file; give an existing .agd file or omit it"
            )
    return serve(
        Settings.load(),
        port=args.port,
        launch_file=launch,
        verbose=args.verbose,
        idle_exit=args.idle_exit,
        open_browser=not args.no_open,
    )
