"""Helpers for the recall tests: entries built in memory, memory files on disk."""

from __future__ import annotations

from pathlib import Path

from agd_memory.recall.eval import variants
from agd_memory.recall.eval.features import DEFAULT
from agd_memory.store import Entry


def entry(
    id: str,
    *,
    kind: str = "x-project",
    desc: str | None = None,
    body: str = "",
    status: str | None = None,
    updated: str | None = None,
    refs: tuple[str, ...] = (),
    supersedes: tuple[str, ...] = (),
    layer: str = "project",
) -> Entry:
    attrs: dict = {}
    if desc is not None:
        attrs["desc"] = desc
    if status:
        attrs["status"] = status
    if updated:
        attrs["updated"] = updated
    return Entry(
        id=id,
        kind=kind,
        desc=desc,
        body=body,
        refs=refs,
        supersedes=supersedes,
        status=status,
        updated=updated,
        layer=layer,
        attrs=attrs,
    )


class ListFile:
    """A memory file held in memory: enough of `store.MemoryFile` for recall."""

    def __init__(self, entries: list[Entry], layer: str = "project") -> None:
        self._entries = entries
        self.layer = layer
        self.path = None

    def exists(self) -> bool:
        return True

    def entries(self) -> list[Entry]:
        return list(self._entries)


FILLER = [
    entry(f"note-{i}", desc=f"topic {w}", body=f"{w} details for the {w} team")
    for i, w in enumerate(["billing", "search", "mobile", "printer", "invoice", "office"])
]
"""Six unrelated entries, `note-0`..`note-5`, mixed in with the entries a test is about."""


def ids(prompt: str, entries: list[Entry], settings, features=DEFAULT) -> list[str]:
    """The ids recall injects for `prompt` from one project file holding `entries`."""
    r = variants.recall(prompt, [ListFile(entries)], settings, features)
    return [str(c.entry.id) for c in r.chosen]


def write_memory(path: Path, blocks: list[str]) -> Path:
    header = "@meta format=agd version=1 [#meta]\n\n@h1 Project memory [#root]\n\n@h2 Project [#h-project]\n"
    path.write_text(header + "".join("\n" + b for b in blocks), encoding="utf-8")
    return path


def block(id: str, desc: str, body: str, kind: str = "x-project", **attrs: str) -> str:
    extra = "".join(f' {k}="{v}"' for k, v in attrs.items())
    return f'@{kind} desc="{desc}"{extra} [#{id}]\n~~~\n{body}\n~~~\n'
