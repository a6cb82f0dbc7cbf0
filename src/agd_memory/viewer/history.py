"""The viewer's History tab: a project's past sessions, searched and read, and forgotten.

Everything goes through `agd_memory.history` (the code of `agd-memory history` and
`search --scope history`): the same session files, the same ranked search, the same
forget. The history folder is the one beside the project file the catalog names; the
global layer has none.

    GET  /history.json?project=KEY                       sessions, newest first
    GET  /history.json?project=KEY&q=WORDS               the ranked exchanges (as the CLI)
    GET  /history.json?project=KEY&id=h-SESSION-N&context=N   the exchange and its neighbours
    POST /api/history  {"project", "action": "forget", "session"}
"""

from __future__ import annotations

from http import HTTPStatus
from pathlib import Path

from ..errors import BlockNotFound, UserError
from ..history import files
from ..history import search as hsearch
from .catalog import Catalog
from .edit import Answer, Request, unknown_project

MAX_SESSIONS = 300
"""Sessions listed at most (newest first); the rest are counted, and found by search."""
MAX_HITS = 20
MAX_CONTEXT = 10
PROMPT_CHARS = 200


def folder_for(catalog: Catalog, key: object) -> Path | None:
    """The history folder of the project `key` names; None for the global layer."""
    layers = catalog.layers_for(key) if isinstance(key, str) else None
    if layers is None:
        raise BlockNotFound(unknown_project(key))
    project = [path for name, path in layers if name == "project"]
    return files.folder_of(project[0]) if project else None


def first_prompt(text: str) -> str:
    """The user's words that open an exchange (`user: ...` up to the answer or a tool call)."""
    lines: list[str] = []
    for line in text.split("\n"):
        if line.startswith(("assistant: ", "tool: ")):
            break
        lines.append(line.removeprefix("user: "))
    words = " ".join(" ".join(lines).split())
    return words if len(words) <= PROMPT_CHARS else words[: PROMPT_CHARS - 1] + "…"


def _exchange(e) -> dict[str, object]:
    return {"id": files.block_id(e.session, e.n), "session": e.session, "n": e.n, "at": e.at,
            "text": e.text}  # fmt: skip


def sessions(folder: Path) -> dict[str, object]:
    found = sorted(files.stats(folder), key=lambda s: (s.last, s.session), reverse=True)
    listed = []
    for s in found[:MAX_SESSIONS]:
        ex = files.read_file(s.path)
        times = [e.at for e in ex if e.at]
        listed.append(
            {
                "session": s.session,
                "first": min(times, default=""),
                "last": max(times, default=""),
                "exchanges": len(ex),
                "bytes": s.size,
                "prompt": first_prompt(ex[0].text) if ex else "",
            }
        )
    return {"sessions": listed, "total": len(found), "bytes": sum(s.size for s in found)}


def get(catalog: Catalog, query: dict[str, list[str]]) -> Answer:
    key = (query.get("project") or [None])[0] or catalog.initial_key(catalog.projects())
    folder = folder_for(catalog, key)
    if folder is None:
        return HTTPStatus.OK, {"key": key, "sessions": [], "total": 0, "bytes": 0,
                               "note": "the global layer has no session history"}  # fmt: skip
    words = (query.get("q") or [""])[0].strip()
    block = (query.get("id") or [""])[0]
    if block:
        try:
            context = min(max(int((query.get("context") or ["2"])[0]), 0), MAX_CONTEXT)
        except ValueError:
            raise UserError("`context` must be a whole number of exchanges") from None
        found = files.neighbours(folder, block, context)
        if not found:
            raise BlockNotFound(f"#{block} is not in the history of {folder}", block_id=block)
        return HTTPStatus.OK, {"key": key, "id": block, "exchanges": [_exchange(e) for e in found]}
    if words:
        settings = catalog.settings
        hits = hsearch.search(folder, words, settings, limit=MAX_HITS)
        answer = [{**_exchange(h.exchange), "score": round(h.score, 4)} for h in hits]
        return HTTPStatus.OK, {"key": key, "q": words, "hits": answer}
    return HTTPStatus.OK, {"key": key, **sessions(folder)}


def forget_action(catalog: Catalog, data: Request) -> Answer:
    """Forget one session, as `agd-memory history forget SESSION` does (`files.forget`)."""
    if data.get("action") != "forget":
        raise UserError("`action` must be forget")
    folder = folder_for(catalog, data.get("project"))
    session = data.get("session")
    if folder is None or not isinstance(session, str) or not session:
        raise UserError("name the `session` to forget (from /history.json)")
    removed = files.forget(folder, [session])
    if not removed:
        raise BlockNotFound(f"session {session} is not in the history of {folder}")
    return HTTPStatus.OK, {"message": f"session {session} forgotten: its file was removed"}
