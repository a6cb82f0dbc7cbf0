"""The four MCP tools as plain functions over the store: arguments in, compact text out.

No MCP SDK here: `mcp.app` wraps these functions as tools, and tests and
benchmarks can call them directly. They are thin: the layers come from
`paths.resolve`, reads from `store`/`toc`, ranking from `recall.search`, and
writes (with the secret check and lifecycle rules) from `MemoryFile.save`.
Anything the model can fix is raised as a `UserError` whose message says what
to do next; the server turns it into a tool error (`isError`).

The layers are resolved on every call rather than once at start-up: the server
lives as long as the session, and the memory file may be created, or the git
remote index change, while it runs.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agd.refs import parse_ids

from .. import paths, store
from ..errors import (
    BlockNotFound,
    MemoryFileError,
    RequestTooLarge,
    SaveRejected,
    SecretRejected,
    UserError,
)
from ..settings import Settings
from ..store import rules
from ..toc import list_entries
from . import text as mcp_text

READ_SCOPES = ("all", "team", "project", "global")
HISTORY = "history"
"""The scope of search and get that reads past sessions' exchanges instead of memory blocks."""
MAX_CONTEXT = 10
WRITE_SCOPES = ("team", "project", "global")
STATUSES = store.VALID_STATUS
MAX_TOC_LIMIT = 500
MAX_SEARCH_LIMIT = 50
MAX_GET_LIMIT = 200
MAX_DEPTH = 5
DEFAULT_GET_LIMIT = 20

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

MAX_ARG_CHARS = {"content": rules.MAX_BODY_CHARS, "desc": rules.MAX_DESC_CHARS, "query": 2_000}
"""Most characters in one string argument: a body, a desc, a query; every other string
(an id, a kind, a key, a date) holds at most `MAX_SHORT_CHARS`."""
MAX_SHORT_CHARS = 1_000
MAX_LIST_ITEMS = MAX_GET_LIMIT
"""Most items in a list argument (ids, refs, supersedes, keys)."""
MAX_REQUEST_CHARS = 150_000
"""Most characters in all string arguments of one call together: one full block and its
desc, keys and links fit; a request that could not be one memory is refused unread."""


@dataclass(frozen=True)
class Workspace:
    """What every call needs: the settings (read once at start-up) and the project folder."""

    settings: Settings
    project_dir: Path

    def layers(self) -> paths.Layers:
        return paths.resolve(self.settings, cwd=self.project_dir)

    def memory_file(self, layer: paths.Layer) -> store.MemoryFile:
        return store.MemoryFile(layer.path, layer=layer.name, settings=self.settings)

    def read_files(self, scope: str) -> list[store.MemoryFile]:
        """The existing memory files of `scope`, project first; MemoryFileError when there are none."""
        _check_choice("scope", scope, READ_SCOPES)
        layers = self.layers().select(scope)
        existing = [f for f in store.open_files(layers, self.settings) if f.exists()]
        if not existing:
            raise MemoryFileError(_no_memory_message(scope, layers))
        return existing


def _readable(files: list[store.MemoryFile]) -> tuple[list[store.MemoryFile], str]:
    """The files that load, and a first line naming each layer left out (a file that does
    not parse never reads as empty); a tool error when no layer is left."""
    from .. import unreadable

    ok, bad = unreadable.readable(files)
    if bad and not ok:
        raise bad[0].error
    return ok, "".join(f"Note: {unreadable.for_user(item)}\n\n" for item in bad)


def _no_memory_message(scope: str, layers: Sequence[paths.Layer]) -> str:
    where = "; ".join(f"{layer.name} layer would be {layer.path}" for layer in layers)
    example_scope = ', scope="global"' if scope == "global" else ""
    return (
        f"no memory file yet for scope '{scope}' ({where}). Nothing to read until the first save "
        f'creates it: agd_memory_save(kind="x-project", id="project-overview", '
        f'content="..."{example_scope}).'
    )


def check_request(args: Mapping[str, object]) -> None:
    """Refuse a call whose arguments do not fit a memory (`RequestTooLarge` names the
    argument), before it reads or writes anything."""
    total = 0
    for name, value in args.items():
        items = value if isinstance(value, (list, tuple)) else [value]
        if len(items) > MAX_LIST_ITEMS:
            raise RequestTooLarge(
                f"request refused: {name} has {len(items):,} items; the limit is "
                f"{MAX_LIST_ITEMS:,}. Split it into smaller calls. Nothing was read or written.",
                field=name,
                reason="items",
            )
        limit = MAX_ARG_CHARS.get(name, MAX_SHORT_CHARS)
        for item in items:
            if not isinstance(item, str):
                continue
            if len(item) > limit:
                raise RequestTooLarge(
                    f"request refused: {name} has {len(item):,} characters; the limit is "
                    f"{limit:,}. A memory block holds one fact: save the essentials, or split "
                    "them into several blocks. Nothing was read or written.",
                    field=name,
                    reason="characters",
                )
            total += len(item)
    if total > MAX_REQUEST_CHARS:
        raise RequestTooLarge(
            f"request refused: its arguments hold {total:,} characters together; the limit "
            f"is {MAX_REQUEST_CHARS:,}. Split it into smaller calls. Nothing was read or written.",
            reason="request",
        )


def _check_choice(name: str, value: str, choices: Sequence[str]) -> None:
    if value not in choices:
        allowed = ", ".join(f"'{c}'" for c in choices)
        raise UserError(f"{name} '{value}' is not one of {allowed}")


def _check_range(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise UserError(f"{name}={value} is out of range; use {low} to {high}")


def _read_kind(kind: str | None) -> str | None:
    """A kind filter; `project` is taken to mean `x-project`, since memory kinds are all `x-*`."""
    if kind is None or not kind.strip():
        return None
    kind = kind.strip()
    return kind if kind.startswith("x-") else f"x-{kind}"


# ---------------------------------------------------------------- toc


def toc(
    ws: Workspace,
    *,
    kind: str | None = None,
    status: str | None = None,
    since: str | None = None,
    scope: str = "all",
    limit: int = mcp_text.DEFAULT_TOC_LIMIT,
    offset: int = 0,
) -> str:
    kind = _read_kind(kind)
    if status is not None:
        _check_choice("status", status, STATUSES)
    if since is not None:
        since = since.strip()
        if not _DATE.fullmatch(since) or not _is_date(since):
            raise UserError(
                f"since '{since}' is not a date; use YYYY-MM-DD, e.g. since=\"2026-01-31\""
            )
    _check_range("limit", limit, 1, MAX_TOC_LIMIT)
    _check_range("offset", offset, 0, 10**9)
    files, note = _readable(ws.read_files(scope))
    entries = list_entries(files, kind=kind, status=status, since=since)  # memory entries only
    filters = {k: v for k, v in (("kind", kind), ("status", status), ("since", since)) if v}
    return note + mcp_text.toc(entries, scope=scope, offset=offset, limit=limit, filters=filters)


def _is_date(text: str) -> bool:
    try:
        _dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------- search


def search(
    ws: Workspace,
    query: str,
    *,
    ignore_case: bool = True,
    kind: str | None = None,
    scope: str = "all",
    limit: int = 10,
) -> str:
    if not query or not query.strip():
        raise UserError('query is empty; give words to look for, e.g. query="deploy staging"')
    _check_range("limit", limit, 1, MAX_SEARCH_LIMIT)
    if scope == HISTORY:
        from ..history import search as history_search

        folder = _history_folder(ws)
        hits = history_search.search(folder, query, ws.settings, limit=limit)
        return mcp_text.history_search(query, [(h.exchange, h.score) for h in hits])
    files, note = _readable(ws.read_files(scope))
    # Imported on first use: the ranking code is only needed when the model searches.
    from ..recall.search import search as ranked_search

    hits = ranked_search(
        query, files, ws.settings, kind=_read_kind(kind), limit=limit, ignore_case=ignore_case
    )
    return note + mcp_text.search(query, hits, scope=scope)


# ---------------------------------------------------------------- get


def requested_ids(id: str | None, ids: Sequence[str] | None) -> list[str]:
    """Every id asked for, in order, without `#` and duplicates; `id` may hold several ids."""
    return list(parse_ids([id or "", *(ids or [])]))


def get(
    ws: Workspace,
    *,
    id: str | None = None,
    ids: Sequence[str] | None = None,
    with_backlinks: bool = False,
    follow_refs: bool = False,
    depth: int = 1,
    limit: int = DEFAULT_GET_LIMIT,
    scope: str = "all",
    context: int = 0,
) -> str:
    wanted = requested_ids(id, ids)
    if not wanted:
        raise UserError(
            'give the block to read: id="deploy-flow" or ids=["deploy-flow", "db-choice"]'
        )
    if scope == HISTORY:
        return _get_history(ws, wanted, context)
    _check_range("depth", depth, 1, MAX_DEPTH)
    _check_range("limit", limit, 1, MAX_GET_LIMIT)
    files, note = _readable(ws.read_files(scope))
    extras = follow_refs or with_backlinks
    # Ask for one extra block beyond the limit: if it comes back, say that more exist.
    result = store.get(
        files,
        wanted,
        follow_refs=follow_refs,
        depth=depth,
        with_backlinks=with_backlinks,
        limit=limit + 1 if extras else None,
    )
    from ..hygiene import usage

    usage.record_got(files, result.entries, wanted)
    entries = list(result.entries)
    n_extra = sum(1 for e in entries if e.id not in wanted)
    truncated = n_extra > limit
    if truncated:
        entries = _drop_last_extras(entries, wanted, n_extra - limit)
    missing = list(result.missing)
    suggestions = store.near_ids(files, missing) if missing else {}
    if not any(e.id in wanted for e in entries):
        raise BlockNotFound(note + _not_found_message(missing or wanted, suggestions, scope))
    return note + mcp_text.get(
        entries,
        asked=wanted,
        missing=missing,
        linked=_link_labels(entries, wanted),
        truncated=truncated,
        limit=limit,
        scope=scope,
        suggestions=suggestions,
    )


def _history_folder(ws: Workspace) -> Path:
    from ..history import files as history_files

    return history_files.folder_of(ws.layers().project.path)


def _get_history(ws: Workspace, wanted: list[str], context: int) -> str:
    from ..history import files as history_files

    _check_range("context", context, 0, MAX_CONTEXT)
    folder = _history_folder(ws)
    found, missing, seen = [], [], set()
    for block in wanted:
        around = history_files.neighbours(folder, block, context)
        if not around:
            missing.append(block)
        for e in around:
            if (e.session, e.n) not in seen:
                seen.add((e.session, e.n))
                found.append(e)
    if not found:
        raise BlockNotFound(mcp_text.history_get([], missing))
    return mcp_text.history_get(found, missing)


def _drop_last_extras(entries: list[store.Entry], wanted: list[str], n: int) -> list[store.Entry]:
    out = list(entries)
    for i in range(len(out) - 1, -1, -1):
        if n == 0:
            break
        if out[i].id not in wanted:
            del out[i]
            n -= 1
    return out


def _link_labels(entries: Sequence[store.Entry], wanted: Sequence[str]) -> dict[str, str]:
    """Why each extra block is in the result: the block that cites it, or the block it cites."""
    labels: dict[str, str] = {}
    for entry in entries:
        if entry.id in wanted:
            continue
        cited_by = [o.id for o in entries if o.id != entry.id and entry.id in o.cites]
        if cited_by:
            labels[entry.id] = f"ref of #{cited_by[0]}"
            continue
        cites = [r for r in entry.cites if r in wanted] or list(entry.cites)
        labels[entry.id] = f"cites #{cites[0]}" if cites else "linked"
    return labels


def _not_found_message(
    missing: Sequence[str], suggestions: dict[str, list[str]], scope: str
) -> str:
    return (
        f"no block {mcp_text.ids_with_near(missing, suggestions)} in scope '{scope}'. List the ids with agd_memory_toc "
        "or find blocks by words with agd_memory_search."
    )


# ---------------------------------------------------------------- save


def save(
    ws: Workspace,
    *,
    kind: str,
    id: str,
    content: str,
    desc: str | None = None,
    refs: Sequence[str] | None = None,
    status: str | None = None,
    supersedes: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
    scope: str = "project",
) -> str:
    _check_choice("scope", scope, WRITE_SCOPES)
    if status:
        _check_choice("status", status, STATUSES)
    layer = ws.layers().select(scope)[0]
    memory = ws.memory_file(layer)
    try:
        result = memory.save(
            kind,
            id.strip(),
            content,
            desc=desc,
            refs=None if refs is None else [r.strip().lstrip("#") for r in refs if r.strip()],
            status=status,
            supersedes=None if supersedes is None else [s.strip().lstrip("#") for s in supersedes],
            keys=keys,
        )
    except SecretRejected as exc:
        # The store's message offers `allow_secrets`, which this tool deliberately does not
        # have: only a person, through the CLI, may override. Speak to the model instead.
        raise SaveRejected(
            f"save rejected: #{id.strip().lstrip('#')} holds what looks like {exc.found}. "
            "Memory is plain text read back into every session: "
            'save where the secret is kept (e.g. "the deploy token is in the CI secret '
            'DEPLOY_TOKEN"), never its value. Nothing was written.'
        ) from None
    from ..distill import autokeys

    autokeys.after_save(memory, result.id)  # an entry left with few keys gets more soon
    return f"{result.message} [{layer.name} layer: {layer.path}]"
