"""The JSON the page reads: every block of the shown layers, with its edges resolved.

Edges are resolved here, once, so the page never guesses: a ref to `x` from a
block of one layer points at `x` in the same layer when it exists there, else at
`x` in the other layer, else it is dangling. Each block is named on the page by
its `uid` (`layer:id`), because the same id may exist in both layers.

A layer whose file does not parse is reported in `layers[i].error` and shows no
blocks; the other layer still shows. The server never fails on a bad file.

`Bodies` keeps the encoded payload per key and rebuilds it only when `version`
changes: on 50,000 blocks one build takes seconds, and 20 page loads at once each
built their own (up to 30 s per request).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agd.errors import AgdError
from agd.refs import citations

from .. import store
from ..errors import UserError
from ..settings import Settings

HEADINGS = ("h1", "h2", "h3", "h4")
NOT_SHOWN = frozenset(("meta", "!", "include", "ref"))
"""Block kinds that are structure, not content: never a row or a node."""
DATE_IN_ID = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass
class _Layer:
    name: str
    path: Path
    exists: bool = False
    bytes: int = 0
    mtime: float | None = None
    error: str | None = None
    title: str | None = None
    blocks: list[dict] = field(default_factory=list)
    sections: list[dict] = field(default_factory=list)


def version(layers: Iterable[tuple[str, Path]]) -> str:
    """A token that changes whenever a shown file changes: the live-reload poll and the key of
    `Bodies`. Inode and ctime are in it because every save is an atomic rename: a rewrite of
    the same size inside one mtime tick still gets a new token."""
    parts = []
    for name, path in layers:
        try:
            st = path.stat()
            parts.append(f"{name}:{st.st_mtime_ns}:{st.st_size}:{st.st_ino}:{st.st_ctime_ns}")
        except OSError:
            parts.append(f"{name}:-")
    return "|".join(parts)


def _read_layer(name: str, path: Path, settings: Settings) -> _Layer:
    layer = _Layer(name, path)
    try:
        st = path.stat()
    except OSError:
        return layer
    layer.exists, layer.bytes, layer.mtime = True, st.st_size, st.st_mtime
    try:
        entries = store.MemoryFile(path, layer=name, settings=settings).entries()
    except (UserError, AgdError, OSError, UnicodeDecodeError) as exc:
        layer.error = str(exc) or type(exc).__name__
        return layer
    section = None
    # Entries come in document order, headings included: a heading opens a section.
    for entry in entries:
        if entry.kind in HEADINGS:
            text = entry.body.strip()
            if entry.kind == "h1":
                layer.title = layer.title or text or None
                continue
            section = {
                "uid": f"{name}:{entry.id}",
                "id": entry.id,
                "title": text or entry.id,
                "level": int(entry.kind[1]),
                "layer": name,
            }
            layer.sections.append(section)
        elif entry.kind not in NOT_SHOWN:
            layer.blocks.append(_block_json(name, entry, section))
    return layer


def entry_version(entry: store.Entry) -> str:
    """What an edit from the page was made on: the entry's kind, attributes and body. A
    save or delete whose version is not the entry's now is refused (someone saved since)."""
    import hashlib

    seen = repr((entry.kind, sorted(entry.attr_items), entry.body or ""))
    return hashlib.sha1(seen.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _block_json(layer: str, entry: store.Entry, section: dict | None) -> dict:
    date_match = DATE_IN_ID.search(entry.id)
    return {
        "uid": f"{layer}:{entry.id}",
        "id": entry.id,
        "version": entry_version(entry),
        "kind": entry.kind,
        "layer": layer,
        "desc": entry.desc or "",
        "attrs": {k: v for k, v in entry.attr_items if k != "desc"},
        "body": entry.body or "",
        "created": entry.created or (date_match.group(0) if date_match else None),
        "updated": entry.updated,
        "status": entry.status,
        "section": section["uid"] if section else None,
        "line": entry.line,
        "memory": entry.kind.startswith("x-"),
        "_out": list(citations(entry.refs, (), entry.body)),  # supersedes: its own edges
        "_supersedes": list(entry.supersedes),
    }


def _resolve(layers: list[_Layer]) -> tuple[int, int]:
    """Fill refs, backlinks, supersedes and superseded_by; return (edges, dangling)."""
    by_layer = {lay.name: {b["id"]: b for b in lay.blocks} for lay in layers}
    order = [lay.name for lay in layers]

    def find(layer: str, block_id: str) -> dict | None:
        for name in [layer] + [n for n in order if n != layer]:
            hit = by_layer[name].get(block_id)
            if hit is not None:
                return hit
        return None

    edges = dangling = 0
    for lay in layers:
        for b in lay.blocks:
            b.setdefault("backlinks", [])
            b.setdefault("superseded_by", [])
    for lay in layers:
        for b in lay.blocks:
            b["refs"] = []
            for target_id in b.pop("_out"):
                target = find(lay.name, target_id)
                edges += 1
                if target is None:
                    dangling += 1
                    b["refs"].append({"id": target_id, "uid": None})
                    continue
                b["refs"].append({"id": target_id, "uid": target["uid"]})
                if target is not b:
                    target["backlinks"].append({"id": b["id"], "uid": b["uid"]})
            b["supersedes"] = []
            for old_id in b.pop("_supersedes"):
                old = find(lay.name, old_id)
                b["supersedes"].append({"id": old_id, "uid": old["uid"] if old else None})
                if old is not None:
                    old["superseded_by"].append({"id": b["id"], "uid": b["uid"]})
    return edges, dangling


def memory_json(key: str, layers: list[tuple[str, Path]], settings: Settings) -> dict:
    """The `/memory.json` payload for the layers of one key (project first)."""
    # The token is taken before the files are read: if one changes meanwhile, the payload
    # carries the older token, so the page's next poll sees a change and fetches again.
    token = version(layers)
    read = [_read_layer(name, path, settings) for name, path in layers]
    edges, dangling = _resolve(read)
    blocks = [b for lay in read for b in lay.blocks]
    kinds: dict[str, int] = {}
    for b in blocks:
        kinds[b["kind"]] = kinds.get(b["kind"], 0) + 1
    title = next((lay.title for lay in read if lay.title), None)
    return {
        "key": key,
        "title": title or "Memory",
        "version": token,
        "layers": [
            {
                "name": lay.name,
                "path": str(lay.path),
                "exists": lay.exists,
                "bytes": lay.bytes,
                "mtime": lay.mtime,
                "error": lay.error,
                "blocks": len(lay.blocks),
            }
            for lay in read
        ],
        "sections": [s for lay in read for s in lay.sections],
        "blocks": blocks,
        "stats": {
            "blocks": len(blocks),
            "kinds": dict(sorted(kinds.items())),
            "edges": edges,
            "dangling": dangling,
            "bytes": sum(lay.bytes for lay in read),
        },
    }


def encode(data: object) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class Bodies:
    """The encoded `/memory.json` of the last `limit` keys, each valid for one `version`."""

    def __init__(self, limit: int = 8) -> None:
        self.limit = limit
        self._bodies: dict[str, tuple[str, bytes]] = {}
        # One build at a time: requests arriving during a build wait for it and share it
        # instead of each building their own. Other endpoints do not wait.
        self._lock = threading.Lock()

    def memory_json(self, key: str, layers: list[tuple[str, Path]], settings: Settings) -> bytes:
        with self._lock:
            hit = self._bodies.pop(key, None)
            if hit is None or hit[0] != version(layers):
                data = memory_json(key, layers, settings)
                hit = (data["version"], encode(data))
            self._bodies[key] = hit  # most recently used last
            while len(self._bodies) > self.limit:
                del self._bodies[next(iter(self._bodies))]
            return hit[1]
