"""`agd-memory migrate refs|lifecycle`: bring memory files written by older versions up to date.

- `refs`: prose citations `#id` in an entry's body, of ids that exist in the same
  file, become `refs=` edges (what a save does today), so backlinks and
  follow-refs see them. Space-separated `refs="#a #b"` is rewritten with commas.
- `lifecycle`: `status`, `created` and `updated` derived from "FATTO"/"TODO"
  descs and dates in descs and bodies (`lifecycle.py`); new dates are written
  quoted (the earlier script wrote them bare, which the frozen grammar does not
  allow; the parser here reads both forms the same).

Both work on the parsed document, so fenced bodies are never mistaken for
headers, only change the header lines of the blocks concerned, never overwrite
an attribute that is already set, and are idempotent: a second run finds
nothing to do. A dry run is the default; `--apply` writes under the lock after a `.bak`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agd.model import FENCED, Document
from agd.refs import format_ids as id_attr
from agd.refs import mentions as body_citations

from ..settings import Settings
from ..store.memoryfile import MemoryFile
from . import headers, lifecycle
from .source import SourceFile, ids_of, is_entry, split_refs, verify


@dataclass(frozen=True)
class BlockChange:
    block_id: str
    line: int
    """1-based line of the block-start line."""
    set: dict[str, str]
    """Attributes to write, in the order they are appended."""
    notes: tuple[str, ...]
    """What changes, for people: `refs += #a, #b`, `status=done`."""
    edges: int = 0
    dated: bool = False
    given_status: bool = False


@dataclass
class FileReport:
    path: Path
    changes: list[BlockChange] = field(default_factory=list)
    backup: Path | None = None


def plan_refs(document: Document) -> list[BlockChange]:
    known = ids_of(document)
    changes: list[BlockChange] = []
    for block in document.blocks:
        if not is_entry(block) or block.content_type != FENCED:
            continue
        raw = block.attrs.get("refs")
        if raw is not None and not isinstance(raw, str):
            continue
        existing = split_refs(raw)
        added = [
            i
            for i in body_citations(str(block.value))
            if i in known and i != block.id and i not in existing
        ]
        respaced = raw is not None and len(raw.split()) > 1
        if not added and not respaced:
            continue
        notes = []
        if added:
            notes.append("refs += " + ", ".join(f"#{i}" for i in added))
        if respaced:
            notes.append(f"refs {raw!r} rewritten with commas")
        changes.append(
            BlockChange(
                block_id=str(block.id),
                line=block.line,
                set={"refs": id_attr(existing + added)},
                notes=tuple(notes),
                edges=len(added),
            )
        )
    return changes


def plan_lifecycle(document: Document) -> list[BlockChange]:
    changes: list[BlockChange] = []
    for block in document.blocks:
        if not is_entry(block):
            continue
        attrs = block.attrs
        desc = block.desc or ""
        body = str(block.value) if block.content_type == FENCED else ""
        new: dict[str, str] = {}
        notes: list[str] = []
        if "status" not in attrs:
            status = lifecycle.status_from_desc(desc) or lifecycle.status_from_body(body)
            if status:
                new["status"] = status
        if "created" not in attrs:
            date = lifecycle.first_date(desc) or lifecycle.first_date(body)
            if date:
                new["created"] = date
        created = attrs.get("created", new.get("created"))
        if "updated" not in attrs and lifecycle.is_iso_date(created):
            new["updated"] = str(created)
        for key, value in new.items():
            notes.append(f"{key}={headers.render_value(value)}")
        if new:
            changes.append(
                BlockChange(
                    block_id=str(block.id),
                    line=block.line,
                    set=new,
                    notes=tuple(notes),
                    dated="created" in new and "created" not in attrs,
                    given_status="status" in new,
                )
            )
    return changes


def apply_changes(source: SourceFile, changes: list[BlockChange]) -> str:
    """The file's new text with each change's header line rewritten, checked by re-parsing."""
    lines = list(source.lines)
    by_line = {c.line: c for c in changes}
    for change in changes:
        lines[change.line - 1] = headers.set_attrs(lines[change.line - 1], change.set)
    expected = []
    for block in source.document.blocks:
        attrs = dict(block.attrs)
        change = by_line.get(block.line)
        if change is not None:
            attrs.update(change.set)
        expected.append((block.id, block.kind, attrs))
    text = source.render(lines)
    verify(text, source.path, expected)
    return text


PLANNERS: dict[str, Callable[[SourceFile], list[BlockChange]]] = {
    "refs": lambda src: plan_refs(src.document),
    "lifecycle": lambda src: plan_lifecycle(src.document),
}


def migrate_file(
    path: Path, what: str, *, apply: bool, settings: Settings | None = None
) -> FileReport:
    planner = PLANNERS[what]
    if not apply:
        return FileReport(path, planner(SourceFile.read(path)))

    def compute(text: str) -> tuple[str | None, list[BlockChange]]:
        source = SourceFile.parse(path, text)
        changes = planner(source)
        return (apply_changes(source, changes) if changes else None), changes

    changes, backup = MemoryFile(path, settings=settings).rewrite(compute, backup=True)
    return FileReport(path, changes, backup)


def summary(what: str, reports: list[FileReport], *, apply: bool, scanned: int) -> str:
    changes = [c for r in reports for c in r.changes]
    files = sum(1 for r in reports if r.changes)
    of = f"{files} of {scanned} file{'s' if scanned != 1 else ''}"
    if what == "refs":
        verb = "added" if apply else "would add"
        edges = sum(c.edges for c in changes)
        line = f"{verb} {edges} edge{'s' if edges != 1 else ''} across {len(changes)} block{'s' if len(changes) != 1 else ''} in {of}"
    else:
        verb = "stamped" if apply else "would stamp"
        dated = sum(c.dated for c in changes)
        statused = sum(c.given_status for c in changes)
        line = f"{verb} {len(changes)} block{'s' if len(changes) != 1 else ''} in {of} ({dated} dated, {statused} given a status)"
    if not apply and changes:
        line += "; run again with --apply to write (a .bak of each file is kept)"
    return line


def print_report(report: FileReport) -> None:
    print(str(report.path))
    for change in report.changes:
        print(f"  #{change.block_id} (line {change.line}): {'; '.join(change.notes)}")
    if report.backup is not None:
        print(f"  backup: {report.backup}")
