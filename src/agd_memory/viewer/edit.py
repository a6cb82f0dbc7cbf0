"""The viewer's writes: the review queue and editing or deleting an entry, all through the store.

The server has already refused anything that is not a same-origin POST with the page's
token (`guard.post_refusal`). Each function takes the decoded JSON request and the
catalog, and returns (HTTP status, JSON answer); a refusal of the store (a secret, a bad
status, an unknown id) is the answer's `error`, one line, and nothing is written.

    POST /api/review  {"project", "layer", "action": "accept"|"reject"|"edit", "id", "text"?}
    POST /api/entry   {"project", "layer", "action": "save"|"delete", "id",
                       "desc"?, "body"?, "status"?, "keys"?}
    GET  /review.json?project=KEY   the pending items of the project's layers
"""

from __future__ import annotations

from http import HTTPStatus

from .. import store
from ..distill import review
from ..errors import BlockNotFound, UserError
from .catalog import Catalog

MAX_REQUEST = 512 * 1024
"""The largest request body read (an entry's body is at most 100,000 characters)."""
Answer = tuple[HTTPStatus, dict[str, object]]
Request = dict[str, object]
"""A decoded JSON request body (the server has checked it is an object)."""


def unknown_project(key: object) -> str:
    return f"unknown project key {key!r}: pick one from /projects.json"


def _file(catalog: Catalog, data: Request) -> store.MemoryFile:
    key, layer = data.get("project"), data.get("layer")
    layers = catalog.layers_for(key) if isinstance(key, str) else None
    if layers is None:
        raise BlockNotFound(unknown_project(key))
    for name, path in layers:
        if name == layer:
            project = catalog.project_folder(path) if name == "project" else None
            return store.MemoryFile(path, layer=name, settings=catalog.settings, project=project)
    raise BlockNotFound(f"no {layer!r} layer for this project")


def _text(data: Request, name: str) -> str | None:
    value = data.get(name)
    if value is None or isinstance(value, str):
        return value
    raise UserError(f"`{name}` must be text")


def pending(catalog: Catalog, key: str) -> Answer:
    layers = catalog.layers_for(key)
    if layers is None:
        return HTTPStatus.NOT_FOUND, {"error": unknown_project(key)}
    items = []
    for name, path in layers:
        mf = store.MemoryFile(path, layer=name, settings=catalog.settings)
        for item in review.pending(mf):
            try:
                text: str | None = review.editable_text(item)
            except review.ReviewError:
                text = None  # a consolidation plan: accept or reject only
            try:
                diff = review.describe(mf, item)
            except UserError as exc:  # the memory file does not parse
                diff = str(exc)
            items.append(
                {
                    "id": item.id,
                    "layer": name,
                    "op": item.op,
                    "source": item.source,
                    "session": item.session,
                    "created": item.created,
                    "summary": item.summary,
                    "diff": diff,
                    "text": text,
                }
            )
    return HTTPStatus.OK, {"key": key, "items": items}


def review_action(catalog: Catalog, data: Request) -> Answer:
    mf = _file(catalog, data)
    action, qid = data.get("action"), _text(data, "id") or ""
    if action == "accept":
        lines = review.accept(mf, [qid])
    elif action == "reject":
        lines = review.reject(mf, [qid])
    elif action == "edit":
        (item,) = review.find(mf, [qid])
        new = review.replace(mf, item, review.from_text(item, _text(data, "text") or ""))
        lines = [f"{new.id}: edited; it still waits for review"]
    else:
        raise UserError("`action` must be accept, reject or edit")
    return HTTPStatus.OK, {"message": "; ".join(lines)}


def entry_action(catalog: Catalog, data: Request) -> Answer:
    mf = _file(catalog, data)
    block_id = _text(data, "id") or ""
    entry = mf.entry(block_id) if mf.exists() else None
    if entry is None or not entry.is_memory:
        raise BlockNotFound(f"#{block_id} is not a memory entry of {mf.path}", block_id=block_id)
    action = data.get("action")
    from .payload import entry_version

    if data.get("version") != entry_version(entry):
        raise StaleEdit(
            f"#{block_id} changed in {mf.path.name} since this page loaded it; nothing was "
            "written. Its current text is shown: redo your edit on it.",
            current={"desc": entry.desc or "", "body": entry.body or "",
                     "status": entry.status or "", "keys": str(entry.attrs.get("keys") or ""),
                     "version": entry_version(entry)},
        )  # fmt: skip
    if action == "delete":
        result = mf.delete(block_id)  # its message names the entries still citing it
        return HTTPStatus.OK, {"message": result.message or f"deleted #{block_id}"}
    if action != "save":
        raise UserError("`action` must be save or delete")
    body = _text(data, "body")
    keys = _text(data, "keys")
    result = mf.save(
        entry.kind,
        block_id,
        entry.body or "" if body is None else body,
        desc=_text(data, "desc"),
        status=_text(data, "status"),
        keys=None if keys is None else (keys if keys.strip() else []),
    )
    return HTTPStatus.OK, {"message": result.message or f"saved #{block_id}"}


class StaleEdit(UserError):
    """An edit made on a version of the entry that is not the current one."""

    def __init__(self, message: str, *, current: dict) -> None:
        super().__init__(message)
        self.current = current


def status_of(exc: UserError) -> HTTPStatus:
    return HTTPStatus.NOT_FOUND if isinstance(exc, BlockNotFound) else HTTPStatus.CONFLICT
