"""A minimal reader of memory files, used only while `agd_memory.store` is unavailable.

The eval and `--file` need entries before the store lands; this reads the block-start
lines and fenced bodies the memory files use (reference §2.1) and nothing more. Once
`agd_memory.store` imports, `load_files` uses it instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_START = re.compile(r"@([A-Za-z!][\w-]*)(.*?)(?:\s\[#([A-Za-z_][\w-]*)\])?\s*$")
_ATTR = re.compile(r'\s*([A-Za-z_][\w-]*)=(?:"((?:[^"\\]|\\.)*)"|(\S+))')


@dataclass(frozen=True)
class Entry:
    id: str
    kind: str
    desc: str | None
    body: str
    refs: tuple[str, ...] = ()
    status: str | None = None
    created: str | None = None
    updated: str | None = None
    supersedes: tuple[str, ...] = ()
    layer: str = "project"
    path: Path | None = None
    line: int = 0
    attrs: dict = field(default_factory=dict)

    @property
    def is_memory(self) -> bool:
        return self.kind.startswith("x-")


def _ids(value: object) -> tuple[str, ...]:
    if not isinstance(value, str):
        return ()
    return tuple(p.strip().lstrip("#") for p in value.split(",") if p.strip().lstrip("#"))


def parse_entries(text: str, path: Path | None, layer: str) -> list[Entry]:
    lines = text.splitlines()
    out: list[Entry] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        m = _START.match(line) if line.startswith("@") else None
        if not m:
            continue
        kind, rest, bid = m.group(1), m.group(2), m.group(3)
        attrs: dict = {}
        body = ""
        if kind in ("h1", "h2", "h3", "h4", "p"):
            body = rest.strip()
        else:
            for am in _ATTR.finditer(rest):
                raw = am.group(2)
                value = (
                    raw.replace('\\"', '"').replace("\\\\", "\\")
                    if raw is not None
                    else am.group(3)
                )
                attrs[am.group(1)] = value
        if i < len(lines) and lines[i] == "~~~":
            end = i + 1
            while end < len(lines) and lines[end] != "~~~":
                end += 1
            body = "\n".join(lines[i + 1 : end])
            i = end + 1
        if bid is None:
            continue
        out.append(
            Entry(
                id=bid,
                kind=kind,
                desc=attrs.get("desc"),
                body=body,
                refs=_ids(attrs.get("refs")),
                status=attrs.get("status"),
                created=attrs.get("created"),
                updated=attrs.get("updated"),
                supersedes=_ids(attrs.get("supersedes")),
                layer=layer,
                path=path,
                line=0,
                attrs=attrs,
            )
        )
    return out


class ShimFile:
    """Enough of `store.MemoryFile` for recall: `path`, `layer`, `exists()`, `entries()`."""

    def __init__(self, path: Path, layer: str) -> None:
        self.path = Path(path)
        self.layer = layer

    def exists(self) -> bool:
        return self.path.is_file()

    def entries(self) -> list[Entry]:
        return parse_entries(self.path.read_text(encoding="utf-8"), self.path, self.layer)


def open_file(path: Path, layer: str, settings: object) -> object:
    """A `store.MemoryFile` when the store is available, else the shim."""
    try:
        from agd_memory.store import MemoryFile
    except Exception:  # the store is not there yet (or half-written): read it ourselves
        return ShimFile(path, layer)
    return MemoryFile(Path(path), layer=layer, settings=settings)
