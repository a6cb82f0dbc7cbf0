"""The MCP server object: the four tools declared on the official `mcp` SDK (2.x).

This is the only module that imports the SDK (and pydantic); `mcp.server.main`
imports it when the server starts, so `agd-memory mcp-config` and the rest of
the package never pay for it. The declarations here are the contract the model
sees: names, titles, hints, argument docs with examples, the server
`instructions`. The work is in `mcp.tools`; the layout in `mcp.text`.

The argument types live at module level because the SDK builds each tool's JSON
schema from its evaluated annotations, and only module globals can be evaluated.
"""

from __future__ import annotations

import functools
import json
import os
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, cast

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.types import ToolAnnotations
from pydantic import Field

from agd.errors import AgdError

from .. import __version__, debuglog
from ..errors import RequestTooLarge, SaveRejected, UserError
from ..settings import Settings
from . import handshake as mcp_handshake
from . import text as mcp_text
from . import tools as mcp_tools

SERVER_NAME = "agd-memory"
TOOL_NAMES = ("agd_memory_toc", "agd_memory_search", "agd_memory_get", "agd_memory_save")

# Claude Code injects this under "MCP Server Instructions" and cuts it at 2 KB; tools are
# deferred behind tool search, so this text is how the model learns the access pattern.
INSTRUCTIONS = """\
agd-memory is this project's persistent memory: blocks with an id, a kind \
(x-user, x-feedback, x-project, x-reference), a one-line desc and a body, in two \
layers: project (this repository) and global (facts about the user that hold in \
every project).

How to use it:
1. Start with agd_memory_toc: one line per block (id, kind, layer, status, date, \
desc). It pages; filter by kind, status or since rather than reading everything.
2. Read what you need in ONE agd_memory_get(ids=[...]) call, not one call per id. \
Ids not found are named; the rest still comes back.
3. Graph traversal is one call too: follow_refs=true (with depth) adds the blocks \
an entry cites; with_backlinks=true adds the blocks citing it, e.g. every rule \
about #deploy. limit caps the added blocks.
4. agd_memory_search ranks blocks by words when you do not know the id. With \
scope="history" it searches what was said in past sessions (what happened, when, \
exact errors, numbers); agd_memory_get(id, scope="history", context=2) reads around a hit.
5. Save durable facts, decisions and corrections with agd_memory_save: a stable \
kebab-case id, a desc saying what the block is for, keys (synonyms, how a user \
would ask, translations: recall finds blocks by shared words), related blocks \
cited as #id in the body (they become edges), status open/done for work items.
6. When a fact changes, save a new block with supersedes=["old-id"] (the old one \
is marked superseded) instead of a block that contradicts it; to fix a block in \
place, save the same id again.
7. Saves go to the project layer (private to this machine). Use scope="team" for \
project facts a teammate needs (decisions with their reasons, conventions, root \
causes, references): the team layer is committed with the code. Use scope="global" \
only for facts about the user that hold in every project (preferences, working \
style), never for project details. Every block says its layer; an id in two layers \
is shown from both.
Never save secrets: a save containing a token, key or password is refused.
"""

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
# A save adds or updates one block and never deletes one; the same call twice gives the same file.
WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

# ------------------------------------------------------------------ argument types

ReadScope = Annotated[
    Literal["all", "team", "project", "global"],
    Field(
        description="Layers to read: all (team when the repository has one, project, global), "
        "team, project or global."
    ),
]
HistoryScope = Annotated[
    Literal["all", "team", "project", "global", "history"],
    Field(
        description="Layers to read: all (team when the repository has one, project, global), "
        "team, project or global; history: the exchanges of past sessions (what was said and "
        "done, when, exact errors and numbers), never part of all."
    ),
]
Context = Annotated[
    int,
    Field(
        description='With scope="history": exchanges before and after each one to return '
        f"(0-{mcp_tools.MAX_CONTEXT}), e.g. 2.",
        ge=0,
        le=mcp_tools.MAX_CONTEXT,
    ),
]
KindFilter = Annotated[
    str | None,
    Field(
        description='Only blocks of this kind, e.g. "x-project" (or x-user, x-feedback, x-reference).'
    ),
]
StatusFilter = Annotated[
    Literal["open", "done", "superseded"] | None,
    Field(description='Only blocks with this status, e.g. "open" for pending work.'),
]
Since = Annotated[
    str | None,
    Field(description='Only blocks updated (or created) on or after this date, e.g. "2026-06-01".'),
]
TocLimit = Annotated[
    int,
    Field(
        description=f"Entries per page (1-{mcp_tools.MAX_TOC_LIMIT}).",
        ge=1,
        le=mcp_tools.MAX_TOC_LIMIT,
    ),
]
Offset = Annotated[int, Field(description="Entries to skip, e.g. 50 for the second page.", ge=0)]

Query = Annotated[
    str, Field(description='Words to look for, e.g. "deploy staging" or "db-choice".')
]
IgnoreCase = Annotated[bool, Field(description="Match regardless of letter case (default true).")]
SearchLimit = Annotated[
    int,
    Field(
        description=f"Most hits to return (1-{mcp_tools.MAX_SEARCH_LIMIT}).",
        ge=1,
        le=mcp_tools.MAX_SEARCH_LIMIT,
    ),
]

OneId = Annotated[
    str | None, Field(description='One block id, with or without #, e.g. "deploy-flow".')
]
ManyIds = Annotated[
    list[str] | None,
    Field(description='Several ids in one call, e.g. ["deploy-flow", "db-choice"].'),
]
WithBacklinks = Annotated[
    bool,
    Field(
        description="Also return the blocks that cite these ids, e.g. every rule about an anchor."
    ),
]
FollowRefs = Annotated[
    bool, Field(description="Also return the blocks these ids cite (their refs).")
]
Depth = Annotated[
    int,
    Field(
        description=f"Ref hops to follow with follow_refs (1-{mcp_tools.MAX_DEPTH}), e.g. 2.",
        ge=1,
        le=mcp_tools.MAX_DEPTH,
    ),
]
GetLimit = Annotated[
    int,
    Field(
        description="Most linked blocks (refs and backlinks) to add "
        f"(1-{mcp_tools.MAX_GET_LIMIT}).",
        ge=1,
        le=mcp_tools.MAX_GET_LIMIT,
    ),
]

Kind = Annotated[
    str,
    Field(
        description="x-user (who the user is), x-feedback (how to work with them), x-project "
        '(decisions, state), x-reference (pointers), or another "x-name".'
    ),
]
BlockId = Annotated[
    str,
    Field(
        description='Stable kebab-case id; saving an existing id updates it, e.g. "deploy-flow".'
    ),
]
Content = Annotated[
    str,
    Field(
        description="The body: the fact and why it holds. Cite other blocks as #id to link them."
    ),
]
Desc = Annotated[
    str | None,
    Field(
        description='One line saying what the block is for, e.g. "How we deploy to staging". Kept if omitted.'
    ),
]
Refs = Annotated[
    list[str] | None,
    Field(
        description='Ids this block depends on, e.g. ["deploy"]. Omit to keep the old ones; [] clears.'
    ),
]
Status = Annotated[
    Literal["open", "done", "superseded", ""] | None,
    Field(description='"open" or "done" for work items; "" clears it; kept if omitted.'),
]
Supersedes = Annotated[
    list[str] | None,
    Field(
        description='Ids this block replaces; they get status superseded, e.g. ["db-choice-2025"].'
    ),
]
Keys = Annotated[
    list[str] | None,
    Field(
        description="12-24 search terms in each language the user writes in (at most 48) that "
        "a later request would use but the desc lacks: synonyms, plain words, how a user would "
        'ask; single words or two-word phrases, e.g. ["db", "database", "banca dati"]. '
        "Kept if omitted."
    ),
]
WriteScope = Annotated[
    Literal["project", "team", "global"],
    Field(
        description='"project" (private), "team" for project facts a teammate needs (committed '
        'with the code), or "global" only for facts about the user that hold in every project.'
    ),
]

_F = TypeVar("_F", bound=Callable[..., str])


def default_project_dir() -> Path:
    # Claude Code sets CLAUDE_PROJECT_DIR for stdio servers; other clients start us in the project.
    return Path(os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())


def build_server(
    settings: Settings | None = None, project_dir: Path | str | None = None
) -> MCPServer:
    """The server and its four tools; `settings` and `project_dir` default to the environment."""
    ws = mcp_tools.Workspace(
        settings=settings or Settings.load(),
        project_dir=Path(project_dir) if project_dir else default_project_dir(),
    )
    server = MCPServer(
        SERVER_NAME, instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )

    def tool(name: str, title: str, hints: ToolAnnotations) -> Callable[[_F], _F]:
        def register(fn: _F) -> _F:
            server.add_tool(
                _as_tool_errors(fn, name),
                name=name,
                title=title,
                description=" ".join((fn.__doc__ or "").split()),
                annotations=hints.model_copy(update={"title": title}),
                structured_output=False,
            )
            return fn

        return register

    @tool("agd_memory_toc", "Memory: table of contents", READ_ONLY)
    def toc(
        kind: KindFilter = None,
        status: StatusFilter = None,
        since: Since = None,
        scope: ReadScope = "all",
        limit: TocLimit = mcp_text.DEFAULT_TOC_LIMIT,
        offset: Offset = 0,
    ) -> str:
        """List memory blocks, one line each: #id (kind, layer, status, date): desc. Call this
        first, then read the blocks you need with one agd_memory_get(ids=[...]). It pages: the
        result says how many entries remain and the exact call that fetches them."""
        return mcp_tools.toc(
            ws, kind=kind, status=status, since=since, scope=scope, limit=limit, offset=offset
        )

    @tool("agd_memory_search", "Memory: ranked search", READ_ONLY)
    def search(
        query: Query,
        ignore_case: IgnoreCase = True,
        kind: KindFilter = None,
        scope: HistoryScope = "all",
        limit: SearchLimit = 10,
    ) -> str:
        """Find memory blocks by words, best match first, each with its layer and a matching
        excerpt. Use it when you do not know the id; then read the hits with one
        agd_memory_get(ids=[...]). scope="history" searches instead every exchange of this
        project's past sessions (kept up to a year): use it for what happened and when, an exact
        error text, a number, a command or PR that memory does not hold; each hit says its
        session, date and position."""
        return mcp_tools.search(
            ws, query, ignore_case=ignore_case, kind=kind, scope=scope, limit=limit
        )

    @tool("agd_memory_get", "Memory: read blocks", READ_ONLY)
    def get(
        id: OneId = None,
        ids: ManyIds = None,
        with_backlinks: WithBacklinks = False,
        follow_refs: FollowRefs = False,
        depth: Depth = 1,
        limit: GetLimit = mcp_tools.DEFAULT_GET_LIMIT,
        scope: HistoryScope = "all",
        context: Context = 0,
    ) -> str:
        """Read memory blocks in full (attributes and body), several in one call, optionally with
        the blocks they cite (follow_refs) and the blocks citing them (with_backlinks). Ids found
        in any layer come back; ids found nowhere are named at the end, with close matches."""
        return mcp_tools.get(
            ws,
            id=id,
            ids=ids,
            with_backlinks=with_backlinks,
            follow_refs=follow_refs,
            depth=depth,
            limit=limit,
            scope=scope,
            context=context,
        )

    @tool("agd_memory_save", "Memory: save a block", WRITE)
    def save(
        kind: Kind,
        id: BlockId,
        content: Content,
        desc: Desc = None,
        refs: Refs = None,
        status: Status = None,
        supersedes: Supersedes = None,
        keys: Keys = None,
        scope: WriteScope = "project",
    ) -> str:
        """Add or update one memory block (project layer unless scope="team" or "global"). When a fact
        changes, save a new block with supersedes=[old id] rather than a contradicting one.
        Refused, with nothing written, for an invalid id (a valid one is suggested), an invalid
        kind, or content containing a secret."""
        return mcp_tools.save(
            ws,
            kind=kind,
            id=id,
            content=content,
            desc=desc,
            refs=refs,
            status=status,
            supersedes=supersedes,
            keys=keys,
            scope=scope,
        )

    return server


def run_streams(server: MCPServer, stdin: Any, stdout: Any) -> None:
    """Serve `server` over text streams (`mcp.handshake` gives the process's, after its
    replay); the SDK's stdio transport with explicit streams, which leaves the descriptors
    alone (the handshake has already moved them)."""
    anyio.run(_run_streams, server, stdin, stdout)


async def _run_streams(server: MCPServer, stdin: Any, stdout: Any) -> None:
    lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async serves
    async with stdio_server(anyio.wrap_file(stdin), anyio.wrap_file(stdout)) as (read, write):
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


def handshake_answers() -> dict[str, Any]:
    """The SDK's answers that `mcp.handshake` gives without it: `initialize` (the version
    aside) for every handshake version it speaks, and the list methods."""
    import threading

    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    versions = list(HANDSHAKE_PROTOCOL_VERSIONS)
    requests = [
        {
            "method": "initialize",
            "params": {
                "protocolVersion": versions[-1],
                "capabilities": {},
                "clientInfo": {"name": "agd-memory", "version": "0"},
            },
        },
        {"method": "notifications/initialized"},
        *({"method": m} for m in mcp_handshake.LIST_METHODS),
    ]
    lines = []
    for n, request in enumerate(requests):
        message = {"jsonrpc": "2.0", **request}
        if not request["method"].startswith("notifications/"):
            message["id"] = n
        lines.append(json.dumps(message) + "\n")
    replies: dict[int, Any] = {}
    done = threading.Event()

    class Reader:  # the requests, then EOF once every reply is out
        def readline(self) -> str:
            if lines:
                return lines.pop(0)
            done.wait(30)
            return ""

    class Writer:
        def write(self, text: str) -> int:
            reply = json.loads(text)
            replies[reply["id"]] = reply["result"]
            if len(replies) == len(requests) - 1:
                done.set()
            return len(text)

        def flush(self) -> None:
            pass

    run_streams(build_server(project_dir=Path(os.devnull).parent), Reader(), Writer())
    initialize = dict(replies[0])
    del initialize["protocolVersion"]
    lists = {m: replies[n] for n, m in enumerate(mcp_handshake.LIST_METHODS, start=2)}
    return {"versions": versions, "initialize": initialize, "lists": lists}


def write_handshake() -> None:
    """Record `handshake_answers()` in mcp/handshake.json (after a change to the tools)."""
    text = json.dumps(handshake_answers(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    mcp_handshake.SNAPSHOT.write_text(text, encoding="utf-8")


def _as_tool_errors(fn: _F, name: str) -> _F:
    """Wrap a tool so every failure is a tool error (isError) with a message the model can act on."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> str:
        try:
            mcp_tools.check_request(kwargs)
            return fn(*args, **kwargs)
        except (SaveRejected, RequestTooLarge) as exc:  # say themselves what was refused
            raise ToolError(str(exc)) from None
        except (UserError, AgdError) as exc:
            prefix = "save failed: " if name == "agd_memory_save" else ""
            raise ToolError(prefix + str(exc)) from None
        except Exception as exc:
            # Trigger: a bug or an OS failure. Why: the model must not get a traceback, and the
            # user must be able to find one. Outcome: one line to the model, traceback in the log.
            debuglog.log(f"mcp {name} failed: {traceback.format_exc()}")
            raise ToolError(
                f"internal error ({type(exc).__name__}: {exc}); the traceback is in the "
                "agd-memory debug log (debug.log in the plugin data folder)"
            ) from None

    return cast(_F, wrapper)
