"""`agd-memory merge SOURCE DEST`: fold one memory file into another.

Two checkouts of one project, or a memory copied between machines, end up as two
files that both grew. Merge copies every entry of SOURCE that DEST lacks into
DEST's section for its kind, keeping SOURCE's order (the earlier script inserted
one block at a time at the same place, which reversed them), and reports each id
present in both with different content as a conflict, resolved with `--prefer`:

- `dest` (the default): keep DEST's block;
- `source`: take SOURCE's block, in DEST's position;
- `newer`: take whichever has the later `updated` (else `created`); when neither
  is dated or the dates are equal, DEST's block stays and the conflict is left
  for a person.

Refs stay valid: a copied block's `refs`/`supersedes` ids that do not exist in
DEST after the merge are dropped (and listed). Blocks are copied as their exact
source text, located by the parser, so a header-looking line inside a fenced
body stays body. DEST is written under its lock, after a `.bak`, atomically.
Exit status 1 when a conflict is left unresolved.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import agd
from agd.errors import AgdError
from agd.model import Block
from agd.refs import format_ids as id_attr

from ..errors import MemoryFileError, UserError
from ..settings import Settings
from ..store import write
from ..store.memoryfile import MemoryFile
from ..store.rules import section_id, section_title
from . import headers, lifecycle
from .source import SourceFile, ids_of, is_entry, split_refs

PREFER = ("source", "dest", "newer")
EDGE_KEYS = ("refs", "supersedes")


@dataclass(frozen=True)
class Conflict:
    block_id: str
    outcome: str
    """`source` (SOURCE's block taken), `dest` (DEST's kept) or `unresolved`."""
    why: str


@dataclass
class MergePlan:
    copied: list[tuple[str, str, str]] = field(default_factory=list)
    """(id, kind, where): `after #h-project` or `in a new section #h-project`."""
    identical: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """One line each: SOURCE entries that cannot be merged automatically."""
    dropped: list[tuple[str, str, list[str]]] = field(default_factory=list)
    """(id, attribute, ids dropped because DEST does not have them)."""
    text: str | None = None
    """DEST's new text, None when nothing changes."""

    @property
    def unresolved(self) -> int:
        return sum(1 for c in self.conflicts if c.outcome == "unresolved")


def plan_merge(source: SourceFile, dest: SourceFile, *, prefer: str | None) -> MergePlan:
    plan = MergePlan()
    dest_blocks = {b.id: b for b in dest.document.blocks if b.id is not None}
    to_copy: list[Block] = []
    to_replace: list[tuple[Block, Block]] = []  # (dest block, source block)
    # Ids DEST will have: its own plus every SOURCE entry it lacks. Edges to other ids
    # are dropped on copy, so they are ignored when comparing (a second merge is a no-op).
    final_ids = ids_of(dest.document) | {
        b.id for b in source.document.blocks if b.kind.startswith("x-") and b.id not in dest_blocks
    }
    for block in source.document.blocks:
        if not block.kind.startswith("x-"):
            continue  # meta, headings, paragraphs belong to each file's scaffold
        if block.id is None:
            plan.skipped.append(
                f"{block.kind} block at line {block.line} of SOURCE has no id: copy it by hand"
            )
            continue
        mine = dest_blocks.get(block.id)
        if mine is None:
            to_copy.append(block)
        elif not is_entry(mine):
            plan.skipped.append(
                f"#{block.id}: DEST uses this id for a @{mine.kind} block; rename the entry in "
                "SOURCE (agd-memory rename) and merge again"
            )
        elif _comparable(mine, final_ids) == _comparable(block, final_ids):
            plan.identical.append(block.id)
        else:
            conflict = _resolve(block, mine, prefer)
            plan.conflicts.append(conflict)
            if conflict.outcome == "source":
                to_replace.append((mine, block))

    edits: list[tuple[int, int, list[str]]] = []  # (first line index, last + 1, new lines)
    expected: dict[str, tuple[str, object, dict]] = {}  # id -> (kind, body, attrs) after the merge

    def text_of(block: Block) -> list[str]:
        check_copied(source, block, dest)
        lines = source.block_text(block).split("\n")
        changes: dict[str, str] = {}
        attrs = dict(block.attrs)
        for key in EDGE_KEYS:
            ids = split_refs(block.attrs.get(key))
            kept = [i for i in ids if i in final_ids and i != block.id]
            if kept != ids:
                plan.dropped.append((str(block.id), key, [i for i in ids if i not in kept]))
                if kept:
                    changes[key] = attrs[key] = id_attr(kept)
                else:
                    lines[0] = headers.remove_attr(lines[0], key)
                    del attrs[key]
        if changes:
            lines[0] = headers.set_attrs(lines[0], changes)
        expected[str(block.id)] = (block.kind, block.value, attrs)
        return lines

    for mine, theirs in to_replace:
        first, last = dest.line_range(mine)
        edits.append((first, last + 1, text_of(theirs)))

    by_anchor: dict[str, list[Block]] = {}
    for block in to_copy:
        by_anchor.setdefault(section_id(block.kind), []).append(block)
    new_sections: list[str] = []
    for anchor, blocks in by_anchor.items():
        lines: list[str] = []
        for block in blocks:
            lines += ["", *text_of(block)]
        heading = dest_blocks.get(anchor)
        if heading is not None:
            _, last = dest.line_range(heading)
            edits.append((last + 1, last + 1, lines))
            where = f"after #{anchor}"
        else:
            title = section_title(blocks[0].kind)
            new_sections += ["", f"@h2 {title} [#{anchor}]", *lines]
            where = f"in a new section #{anchor}"
        plan.copied += [(str(b.id), b.kind, where) for b in blocks]
    if new_sections:
        end = _content_end(dest.lines)
        edits.append((end, end, new_sections))

    if not edits:
        return plan
    lines = list(dest.lines)
    # Bottom-up so indices stay valid. At one index: the replacement first (it uses the
    # original line numbers), then the insertions, last planned first, so that they end
    # up in the order planned.
    order = sorted(
        range(len(edits)),
        key=lambda n: (edits[n][0], edits[n][1] > edits[n][0], n),
        reverse=True,
    )
    for n in order:
        first, stop, new = edits[n]
        lines[first:stop] = new
    plan.text = dest.render(lines)
    _verify(plan, dest, expected)
    return plan


def _content_end(lines: list[str]) -> int:
    """Index just past the last non-empty line: where a new section goes."""
    end = len(lines)
    while end > 0 and lines[end - 1] == "":
        end -= 1
    return end


def _resolve(theirs: Block, mine: Block, prefer: str | None) -> Conflict:
    bid = str(theirs.id)
    if prefer == "source":
        return Conflict(bid, "source", "took SOURCE's block (--prefer source)")
    if prefer == "dest":
        return Conflict(bid, "dest", "kept DEST's block (--prefer dest)")
    if prefer == "newer":
        a, b = _date(theirs), _date(mine)
        if a and b and a != b:
            if a > b:
                return Conflict(bid, "source", f"took SOURCE's block, newer ({a} > {b})")
            return Conflict(bid, "dest", f"kept DEST's block, newer ({b} > {a})")
        return Conflict(
            bid,
            "unresolved",
            f"neither is newer (SOURCE {a or 'undated'}, DEST {b or 'undated'}): kept DEST's "
            "block; merge it by hand or pass --prefer source|dest",
        )
    return Conflict(
        bid,
        "unresolved",
        f"differs ({_difference(theirs, mine)}): kept DEST's block; merge it by hand or pass "
        "--prefer source|dest|newer",
    )


def _comparable(block: Block, final_ids: set) -> tuple:
    attrs = dict(block.attrs)
    for key in EDGE_KEYS:
        if key in attrs:
            kept = [i for i in split_refs(attrs[key]) if i in final_ids and i != block.id]
            if kept:
                attrs[key] = id_attr(kept)
            else:
                del attrs[key]
    return (block.kind, block.content_type, block.value, attrs)


def _date(block: Block) -> str | None:
    for key in ("updated", "created"):
        value = block.attrs.get(key)
        if lifecycle.is_iso_date(value):
            return str(value)
    return None


def _difference(a: Block, b: Block) -> str:
    parts = []
    if a.kind != b.kind:
        parts.append(f"kind {a.kind} vs {b.kind}")
    if a.value != b.value or a.content_type != b.content_type:
        parts.append("body")
    keys = sorted(k for k in set(a.attrs) | set(b.attrs) if a.attrs.get(k) != b.attrs.get(k))
    if keys:
        parts.append(", ".join(keys))
    return "; ".join(parts) or "content"


def _verify(
    plan: MergePlan, dest: SourceFile, expected: dict[str, tuple[str, object, dict]]
) -> None:
    """Re-parse the merged text: DEST's blocks unchanged, each merged block as planned."""
    try:
        merged = agd.parse(plan.text or "")
    except AgdError as exc:
        raise MemoryFileError(
            f"{dest.path}: the merged text would not parse ({exc}); nothing was written — "
            "please report this"
        ) from None
    old = {b.id: b for b in dest.document.blocks if b.id is not None}
    seen = set()
    for block in merged.blocks:
        if block.id is None:
            continue
        seen.add(block.id)
        if block.id in expected:
            ok = (block.kind, block.value, block.attrs) == expected[block.id]
        elif block.id in old:
            ok = block == old[block.id]
        else:
            ok = block.kind == "h2" and block.id.startswith("h-")
        if not ok:
            raise MemoryFileError(
                f"{dest.path}: merging would change #{block.id} unexpectedly; nothing was "
                "written — please report this"
            )
    missing = (set(old) | set(expected)) - seen
    if missing:
        raise MemoryFileError(
            f"{dest.path}: merging would lose #{sorted(missing)[0]}; nothing was written — "
            "please report this"
        )


def merge_files(
    source_path: Path,
    dest_path: Path,
    *,
    prefer: str | None,
    apply: bool,
    settings: Settings | None = None,
) -> tuple[MergePlan, Path | None]:
    for label, path in (("SOURCE", source_path), ("DEST", dest_path)):
        if not path.is_file():
            raise UserError(f"{label} {path} is not a file; pass two existing memory files")
    if os.path.realpath(source_path) == os.path.realpath(dest_path):
        raise UserError(f"SOURCE and DEST are the same file ({dest_path}); nothing to merge")
    source = SourceFile.read(source_path)
    if not apply:
        return plan_merge(source, SourceFile.read(dest_path), prefer=prefer), None

    def compute(text: str) -> tuple[str | None, MergePlan]:
        plan = plan_merge(source, SourceFile.parse(dest_path, text), prefer=prefer)
        return plan.text, plan

    return MemoryFile(dest_path, settings=settings).rewrite(compute, backup=True)


def check_copied(source: SourceFile, block: Block, dest: SourceFile) -> None:
    """A block copied into DEST is a write like a save: the store's rules of an entry
    (never `--allow-secrets`), every attribute scanned for secrets."""
    write.check_block(
        block,
        source.block_text(block),
        file=dest.path,
        where=f"#{block.id} in SOURCE {source.path}",
        secret_fix="remove it from SOURCE (or leave that entry out) and merge again",
    )


def render_report(plan: MergePlan, *, apply: bool, backup: Path | None) -> list[str]:
    out = []
    for bid, kind, where in plan.copied:
        out.append(f"  {'copied' if apply else 'copy'} #{bid} ({kind}) {where}")
    for c in plan.conflicts:
        out.append(f"  conflict #{c.block_id}: {c.why}")
    for bid, key, ids in plan.dropped:
        out.append(
            f"  #{bid}: dropped {', '.join('#' + i for i in ids)} from {key} (not in DEST after the merge)"
        )
    for line in plan.skipped:
        out.append(f"  skipped {line}")
    n = len(plan.copied)
    verb = "copied" if apply else "would copy"
    summary = (
        f"{verb} {n} entr{'y' if n == 1 else 'ies'}, {len(plan.identical)} identical, "
        f"{len(plan.conflicts)} conflict{'s' if len(plan.conflicts) != 1 else ''}"
    )
    if plan.unresolved:
        summary += f" ({plan.unresolved} left for you)"
    if backup is not None:
        summary += f"; backup: {backup}"
    elif not apply and plan.text is not None:
        summary += "; run again with --apply to write DEST (DEST.bak is kept)"
    out.append(summary)
    return out
