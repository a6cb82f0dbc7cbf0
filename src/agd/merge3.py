"""Three-way merge of AGD documents by block id (what git's merge driver runs).

Blocks are matched by id, never by line, so two people adding facts to the same
section, or editing different facts, never conflict. Per id, with `base` the common
ancestor:

- added on one side: kept; added on both sides with the same text: kept once; with
  different texts: both kept, the later one (see below) under the id, the other under
  a derived id `<id>-<hash>`, reported;
- deleted on one side, unchanged on the other: deleted; deleted on one side and
  changed on the other: the changed block is kept (an edit is never lost to a delete);
- changed on both sides: the later `updated` (else `created`) wins; equal dates are
  broken by the canonical text, larger wins, so the result does not depend on which
  side is "ours". For a memory entry (an `x-` kind) the loser stays in the file under
  a derived id with `status=superseded`, and the winner's `supersedes` lists it, so
  recall and the TOC skip it but no teammate's fact disappears. Other blocks
  (headings, `@meta`) keep the winner only; the loser is reported.

Blocks without an id are matched by their text. Order: the blocks both sides hold
are anchors, each block only one side holds follows the anchor it followed on that
side, and when both sides put blocks after one anchor the two runs are ordered by
their ids; a derived block follows the block it was split from. `refs` and
`supersedes` ids of a block one side renamed are pointed at the new id; ids of blocks
the merge removed are dropped (both reported). The merged document is, the tie rule
included, the same whichever side is "ours"; `merge` writes each block a side holds
unchanged byte for byte as that side wrote it (ours first) and the others canonically.

A side that does not parse raises `MergeError` (naming the side): the caller must
not write anything, so git reports a normal conflict instead of a half-merged file.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from .errors import AgdError
from .model import Block, Document
from .refs import format_ids, parse_ids
from .serializer import serialize, serialize_block

__all__ = ["merge", "merge_documents", "MergeResult", "Note", "MergeError"]

EDGE_ATTRS = ("refs", "supersedes")

Key = tuple[str, str, int]
"""("id", id, 0) for a block with an id; ("text", its canonical text, n) for the n-th
id-less block with that text."""


class MergeError(AgdError):
    """One side of a merge is not AGD; nothing was merged."""

    def __init__(self, side: str, reason: str) -> None:
        super().__init__(f"cannot merge: the {side} version does not parse ({reason})")
        self.side = side
        self.reason = reason


class Note(NamedTuple):
    """One decision of the merge a person may want to look at."""

    rule: str
    """`both-added`, `changed-both`, `deleted-changed`, `renamed-ref` or `dropped-ref`."""
    id: str
    """The block id the note is about."""
    detail: str
    """One line: what was kept and where."""


class MergeResult(NamedTuple):
    text: str
    """The merged document, canonical AGD."""
    document: Document
    notes: tuple[Note, ...]
    """What needed a rule beyond "take the side that changed", in document order."""


def merge(base: str, ours: str, theirs: str) -> MergeResult:
    """Merge the texts of three versions; `MergeError` when one does not parse."""
    from .parser import parse

    docs = []
    for side, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        try:
            docs.append(parse(text))
        except AgdError as exc:
            raise MergeError(side, str(exc)) from None
    result = merge_documents(*docs)
    return result._replace(text=_with_source_bytes(result.document, (ours, docs[1]), (theirs, docs[2])))


def _with_source_bytes(doc: Document, *sides: tuple[str, Document]) -> str:
    """The merged text, each block a side holds unchanged written as that side wrote it
    (ours first): a merge changes only the lines of the blocks it changed, so a clone
    without the driver sees no noisy diff. Other blocks are canonical."""
    source: dict[int, str] = {}
    for text, parsed in sides:
        raw = text.encode("utf-8")
        for bl in parsed.blocks:
            if bl.end > bl.start:
                source.setdefault(id(bl), raw[bl.start : bl.end].decode("utf-8") + "\n")
    return "\n".join(source.get(id(bl)) or serialize_block(bl) for bl in doc.blocks)


def merge_documents(base: Document | None, ours: Document, theirs: Document) -> MergeResult:
    """Merge parsed versions. `base=None` is a two-way merge (no common ancestor known,
    as in a file holding conflict markers without a base section): a block on one side
    only is kept, and an id whose blocks differ counts as changed on both sides."""
    b = _keyed(base.blocks) if base is not None else None
    o = _keyed(ours.blocks)
    t = _keyed(theirs.blocks)
    held = {**o, **t}
    kept: dict[Key, Block] = {}
    losers: list[tuple[Key, Block, Block, bool, int]] = []
    notes: list[Note] = []
    for key in dict.fromkeys([*o, *t]):
        ob, tb = o.get(key), t.get(key)
        bb = b.get(key) if b is not None else None
        block = _pick(key, bb, ob, tb, base is None, notes)
        if block is not None:
            kept[key] = block
            continue
        if ob is None or tb is None:
            continue  # deleted
        winner, loser = _order(ob, tb)
        superseded = base is None or bb is not None  # else: added on both sides
        if superseded and not winner.kind.startswith("x-"):
            kept[key] = winner
            notes.append(
                Note("changed-both", key[1], f"#{key[1]} changed on both sides; the later kept")
            )
            continue
        if superseded:
            loser = loser.copy(attrs=dict(loser.attrs, status="superseded"))
        kept[key] = winner
        losers.append((key, winner, loser, superseded, len(notes)))
        notes.append(Note("", key[1], ""))  # written below, once the loser's id is known
    # The losers get their ids once every other id is decided: a derived id may name a
    # copy an earlier merge made, and this merge may have deleted or changed that copy.
    derived: dict[Key, Block] = {}
    final = {k[1]: bl for k, bl in kept.items() if k[0] == "id"}
    taken = {k[1] for k in held if k[0] == "id"} | set(final)
    for key, winner, loser, superseded, slot in losers:
        loser_id = _derived_id(key[1], loser, taken, final, held)
        taken.add(loser_id)
        if loser_id not in final:
            derived[key] = final[loser_id] = loser.copy(id=loser_id)
        if superseded:
            kept[key] = _with_edge(winner, "supersedes", loser_id)
            detail = f"#{key[1]} changed on both sides; the later kept, the other as #{loser_id} (superseded)"
            notes[slot] = Note("changed-both", key[1], detail)
        else:
            detail = f"both sides added #{key[1]} with different texts; one kept as #{loser_id}"
            notes[slot] = Note("both-added", key[1], detail)
    blocks = []
    for key in _order_keys(list(o), list(t), kept):
        blocks.append(kept[key])
        if key in derived:
            blocks.append(derived[key])
    renamed = _renames(b, o, t) if b is not None else {}
    known = {k[1] for k in (*(b or {}), *o, *t) if k[0] == "id"}
    blocks = _repoint_edges(blocks, known, renamed, notes)
    doc = Document(blocks)
    return MergeResult(serialize(doc), doc, tuple(notes))


# -- one id ------------------------------------------------------------------------------


def _pick(
    key: Key,
    bb: Block | None,
    ob: Block | None,
    tb: Block | None,
    two_way: bool,
    notes: list[Note],
) -> Block | None:
    """The block for `key` when no side has to lose; None when it is deleted or when
    both sides hold different blocks (the caller orders those)."""
    if ob is not None and tb is not None:
        if ob == tb or (bb is not None and tb == bb):
            return ob
        return tb if bb is not None and ob == bb else None
    present = ob if ob is not None else tb
    if two_way or bb is None:
        return present  # added on one side
    if present is None or present == bb:
        return None  # deleted on one side (or both), unchanged on the other
    if key[0] == "id":
        notes.append(
            Note(
                "deleted-changed",
                key[1],
                f"#{key[1]} deleted on one side, changed on the other: kept",
            )
        )
    return present


def _order(a: Block, b: Block) -> tuple[Block, Block]:
    """(winner, loser): the later `updated` (else `created`), then the larger text."""
    ka, kb = _rank(a), _rank(b)
    return (a, b) if ka > kb else (b, a)


def _rank(block: Block) -> tuple[str, str]:
    date = block.attrs.get("updated") or block.attrs.get("created") or ""
    return (str(date), serialize_block(block))


def _derived_id(
    block_id: str,
    loser: Block,
    taken: set[str],
    final: dict[str, Block],
    held: dict[Key, Block],
) -> str:
    """`<id>-<hash of the loser's text>`: the same pair merged in two clones gives the
    same id, so the clones converge. A taken id is reused only for this very block: one
    the result already holds (an earlier merge of the same pair), or one a side held and
    this merge removed (the caller puts it back); else the id is lengthened."""
    bare = loser.copy(id=None)
    digest = hashlib.sha1(serialize_block(bare).encode("utf-8")).hexdigest()
    for size in range(6, len(digest) + 1):
        candidate = f"{block_id}-{digest[:size]}"
        if candidate not in taken:
            return candidate
        same = final[candidate] if candidate in final else held.get(("id", candidate, 0))
        if same is not None and same.copy(id=None) == bare:
            return candidate
    return f"{block_id}-{digest}-{len(taken)}"


def _with_edge(block: Block, attr: str, target: str) -> Block:
    ids = parse_ids(block.attrs.get(attr))
    if target in ids:
        return block
    return block.copy(attrs=dict(block.attrs, **{attr: format_ids([*ids, target])}))


def _renames(base: dict[Key, Block], *sides: dict[Key, Block]) -> dict[str, str]:
    """old id -> new id for each block a side renamed: gone from that side, and a block
    new on that side equal to it but for the id. When both sides renamed one block, the
    smaller new id (the result is the same whichever side is ours)."""
    out: dict[str, str] = {}
    for side in sides:
        gone = [k for k in base if k[0] == "id" and k not in side]
        if not gone:
            continue
        added: dict[str, str] = {}
        for k, bl in side.items():
            if k[0] == "id" and k not in base:
                added.setdefault(serialize_block(bl.copy(id=None)), k[1])
        for k in gone:
            new = added.get(serialize_block(base[k].copy(id=None)))
            if new is not None:
                out[k[1]] = min(new, out.get(k[1], new))
    return out


def _repoint_edges(
    blocks: list[Block], known: set[str], renamed: dict[str, str], notes: list[Note]
) -> list[Block]:
    """`refs`/`supersedes` ids of blocks the merge removed: pointed at the new id when the
    block was renamed on one side (the other side may have cited the old id meanwhile),
    else dropped. Ids no version had are left alone (they were dangling already)."""
    present = {bl.id for bl in blocks if bl.id is not None}
    gone = known - present
    if not gone:
        return blocks
    out = []
    for bl in blocks:
        attrs = bl.attrs
        for attr in EDGE_ATTRS:
            if attr not in attrs:
                continue
            ids = parse_ids(attrs[attr])
            if not gone.intersection(ids):
                continue
            attrs = dict(attrs)
            kept = []
            for i in ids:
                if i not in gone:
                    kept.append(i)
                elif renamed.get(i) in present:
                    kept.append(renamed[i])
                    notes.append(Note("renamed-ref", bl.id or "", f"{attr} #{i} now #{renamed[i]}"))
                else:
                    notes.append(
                        Note("dropped-ref", bl.id or "", f"{attr} #{i} removed by the merge")
                    )
            kept = list(dict.fromkeys(kept))
            if kept:
                attrs[attr] = format_ids(kept)
            else:
                del attrs[attr]
        out.append(bl if attrs is bl.attrs else bl.copy(attrs=attrs))
    return out


# -- keys and order ----------------------------------------------------------------------


def _keyed(blocks: list[Block]) -> dict[Key, Block]:
    out: dict[Key, Block] = {}
    seen: dict[str, int] = {}
    for bl in blocks:
        if bl.id is not None:
            out[("id", bl.id, 0)] = bl
            continue
        text = serialize_block(bl)
        n = seen.get(text, 0)
        seen[text] = n + 1
        out[("text", text, n)] = bl
    return out


def _order_keys(ours: list[Key], theirs: list[Key], kept: dict[Key, Block]) -> list[Key]:
    """Both sides' orders woven together (see the module docstring)."""
    a = [k for k in ours if k in kept]
    b = [k for k in theirs if k in kept]
    in_a, in_b = set(a), set(b)
    anchors_a = [k for k in a if k in in_b]
    anchors_b = [k for k in b if k in in_a]
    anchors = min(anchors_a, anchors_b)  # the sides agree unless blocks moved
    runs_a, runs_b = _runs(a, in_b), _runs(b, in_a)
    out: list[Key] = []
    for anchor in (None, *anchors):
        if anchor is not None:
            out.append(anchor)
        out.extend(_weave(runs_a.get(anchor, []), runs_b.get(anchor, [])))
    return out


def _runs(seq: list[Key], shared: set[Key]) -> dict[Key | None, list[Key]]:
    """Each run of one-side blocks, by the shared block before it (None: at the start)."""
    runs: dict[Key | None, list[Key]] = {}
    anchor: Key | None = None
    for k in seq:
        if k in shared:
            anchor = k
        else:
            runs.setdefault(anchor, []).append(k)
    return runs


def _weave(a: list[Key], b: list[Key]) -> list[Key]:
    if not a or not b:
        return a or b
    first, second = (a, b) if a <= b else (b, a)
    return first + second
