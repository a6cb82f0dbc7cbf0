"""The rules of a write, once: `check_entry` checks what a writer gives, and the pure
operations on a `Document` (`put`, `mark_superseded`, `set_attrs`, `replace_body`) make
the change. `MemoryFile` runs them inside its transaction; save (the CLI, MCP and the
viewer's edits), import, review and consolidation call the same functions, so every write
stamps, lifts `#id` citations, supersedes and records `code=` the same way, and `merge`
checks each block it copies with `check_block`. Nothing here reads or writes a
file (the `code=` record is computed by the caller, `code_record`, outside the lock)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from agd.model import FENCED, Block, Document
from agd.refs import format_ids, mentions

from ..errors import SaveRejected
from . import rules
from .entry import parse_id_list, str_attr

MANAGED_ATTRS = ("desc", "keys", "created", "updated", "status", "supersedes", "refs")
"""The attributes a save sets; every other one (but `code=`, recomputed) is kept."""
CODE_ATTR = "code"
"""The `code=` record (`coderefs.ATTR`; that module is imported only when a write records)."""


class Checked(NamedTuple):
    """An entry as the store will write it. `None` keeps the old value on an update."""

    id: str
    kind: str
    body: str
    desc: str | None = None
    status: str | None = None
    refs: list[str] | None = None
    supersedes: list[str] | None = None
    keys: str | None = None
    where: str = ""


class Put(NamedTuple):
    """What `put` did: `added` or `updated`, ids marked superseded, the refs written and
    the given ids that are not in the file (dropped)."""

    action: str
    superseded: tuple[str, ...]
    refs: tuple[str, ...]
    ignored: tuple[str, ...]


def check_entry(
    kind: str,
    id: str,
    content: str,
    *,
    file: str | Path,
    layer: str = "project",
    desc: str | None = None,
    refs: Iterable[str] | str | None = None,
    status: str | None = None,
    supersedes: Iterable[str] | str | None = None,
    keys: Iterable[str] | str | None = None,
    allow_secrets: bool = False,
    where: str | None = None,
    secret_fix: str | None = None,
) -> Checked:
    """The entry checked for `layer` (team, project, global) of `file`: id, kind, body,
    desc, status, refs, supersedes and keys valid and within the size limits, no field
    holding a secret (the team layer is committed: `allow_secrets` does not apply there).
    `secret_fix` replaces the secret message's fix (a writer without `--allow-secrets`).
    `SaveRejected` (a `SecretRejected` for a secret) names the field and the fix."""
    allow_secrets = allow_secrets and layer != "team"
    fix = {"fix": secret_fix} if secret_fix else {}
    if not allow_secrets:  # before `where` quotes the id
        rules.check_secrets({"id": id, "kind": kind}, f"a save to {file}", **fix)
    block_id = rules.check_id(id, f"{file}")
    where = where or f"#{block_id} in {file}"
    kind = rules.check_kind(kind, where)
    if not isinstance(content, str):
        raise SaveRejected(f"save rejected: the content of {where} must be text")
    body = rules.normalize_body(content)
    rules.check_text(body, "content", where)
    rules.check_size(body, "content", rules.MAX_BODY_CHARS, where)
    new_desc = None if desc is None else rules.normalize_desc(desc)
    if new_desc is not None:
        rules.check_text(new_desc, "desc", where)
        rules.check_size(new_desc, "desc", rules.MAX_DESC_CHARS, where)
    new_status = rules.check_status(status, where)
    given_refs = rules.id_list(refs, "refs", where)
    given_sup = rules.id_list(supersedes, "supersedes", where)
    if not allow_secrets:
        rules.check_secrets(
            {
                "desc": new_desc,
                "content": body,
                "refs": " ".join(given_refs or ()),
                "supersedes": " ".join(given_sup or ()),
            },
            where,
            **fix,
        )
    new_keys = (
        None if keys is None else rules.normalize_keys(keys, where, allow_secrets=allow_secrets)
    )
    return Checked(
        block_id, kind, body, new_desc, new_status, given_refs, given_sup, new_keys, where
    )


def check_block(
    block: Block,
    text: str,
    *,
    file: str | Path,
    where: str,
    secret_fix: str,
) -> Checked:
    """An entry copied whole from elsewhere (a merge's SOURCE), checked as a save of its
    fields would be (`check_entry`), plus a secret scan of every other attribute
    (`created`, `code`, ...) that a save would not set. `text` is the body as written
    when the block is not fenced. `SaveRejected` as `check_entry`'s."""
    attrs = {k: str(v) for k, v in block.attrs.items()}
    others = {k: v for k, v in attrs.items() if k not in MANAGED_ATTRS}
    if others:
        rules.check_secrets(others, where, fix=secret_fix)
    return check_entry(
        block.kind,
        str(block.id),
        block.value if isinstance(block.value, str) else text,
        file=file,
        desc=attrs.get("desc"),
        refs=attrs.get("refs"),
        status=attrs.get("status"),
        supersedes=attrs.get("supersedes"),
        keys=attrs.get("keys"),
        where=where,
        secret_fix=secret_fix,
    )


def code_record(
    file: Path, layer: str, desc: str | None, body: str, project: Path | None = None
) -> str:
    """The `code=` value of an entry with this text in `file` of `layer` ("" for none);
    `project`: the working folder of the file's project (None: the current folder)."""
    from . import coderefs

    return coderefs.record(f"{desc or ''}\n{body}", coderefs.root_for(file, layer, project))


def put(
    doc: Document,
    entry: Checked,
    *,
    today: str,
    code: str,
    created: str | None = None,
    updated: str | None = None,
    known: Iterable[str] | None = None,
) -> Put:
    """Add or update `entry` in `doc` (blocks replaced, never mutated): the attributes the
    store manages set (`created` kept, `updated` stamped, unless given), the body's `#id`
    citations lifted into `refs=` when no refs are given, the superseded entries marked,
    `code=` set to `code`, a new block placed first in its kind's section. `known` adds
    ids that count as present (entries put in the same change after this one)."""
    index = doc.index()
    old_pos = index.get(entry.id)
    old = doc.blocks[old_pos] if old_pos is not None else None
    if old is not None and not old.kind.startswith("x-"):
        raise SaveRejected(
            f"save rejected: {entry.where} is a `{old.kind}` block, not a memory entry; "
            "choose another id. Nothing was written."
        )
    old_attrs = dict(old.attrs) if old is not None else {}
    present = set(index) | set(known or ())

    def keep(ids: Iterable[str]) -> tuple[list[str], list[str]]:
        kept, dropped = [], []
        for i in ids:
            if i == entry.id:
                continue
            (kept if i in present else dropped).append(i)
        return kept, dropped

    attrs = {k: v for k, v in old_attrs.items() if k not in MANAGED_ATTRS}
    attrs.pop(CODE_ATTR, None)
    if code:
        attrs[CODE_ATTR] = code
    d = entry.desc if entry.desc is not None else str_attr(old_attrs, "desc")
    if d:
        attrs["desc"] = d
    k = entry.keys if entry.keys is not None else str_attr(old_attrs, "keys")
    if k:
        attrs["keys"] = k
    attrs["created"] = str_attr(old_attrs, "created") or created or today
    attrs["updated"] = updated or today
    st = entry.status if entry.status is not None else str_attr(old_attrs, "status")
    if st and st in rules.VALID_STATUS:
        attrs["status"] = st
    sup_source = (
        entry.supersedes
        if entry.supersedes is not None
        else parse_id_list(old_attrs.get("supersedes"))
    )
    sup, ignored_sup = keep(sup_source)
    if sup:
        attrs["supersedes"] = format_ids(sup)
    if entry.refs is not None:  # given ids that are not here are reported
        kept_refs, ignored_refs = keep(dict.fromkeys(entry.refs))
    else:  # the body's #id citations lifted into refs, plus the refs it had
        ref_source = [*mentions(entry.body), *parse_id_list(old_attrs.get("refs"))]
        kept_refs, ignored_refs = keep(dict.fromkeys(ref_source))[0], []
    if kept_refs:
        attrs["refs"] = format_ids(kept_refs)

    block = Block(entry.kind, FENCED, entry.body, attrs, entry.id)
    marked = mark_superseded(doc, sup, today)
    if old_pos is not None:
        doc.blocks[old_pos] = block
        action = "updated"
    else:
        insert_in_section(doc, entry.kind, block)
        action = "added"
    ignored = tuple(dict.fromkeys(ignored_refs + ignored_sup))
    return Put(action, tuple(marked), tuple(kept_refs), ignored)


def mark_superseded(doc: Document, ids: Iterable[str], today: str) -> list[str]:
    """Give each entry of `ids` `status=superseded` and `updated=today`; the ids marked
    (one already superseded, a non-entry or an unknown id is left alone)."""
    index = doc.index()
    marked = []
    for sid in ids:
        pos = index.get(sid)
        if pos is None:
            continue
        target = doc.blocks[pos]
        if not target.kind.startswith("x-") or target.attrs.get("status") == "superseded":
            continue
        attrs = dict(target.attrs, status="superseded", updated=today)
        doc.blocks[pos] = Block(target.kind, target.content_type, target.value, attrs, target.id)
        marked.append(sid)
    return marked


def set_attrs(doc: Document, block_id: str, **attrs: str) -> None:
    """Set (or, given "", drop) attributes of `block_id`: the entry's other parts stay."""
    pos = doc.index()[block_id]
    b = doc.blocks[pos]
    new = {k: v for k, v in b.attrs.items() if k not in attrs}
    new.update({k: v for k, v in attrs.items() if v})
    doc.blocks[pos] = Block(b.kind, b.content_type, b.value, new, b.id)


def replace_body(doc: Document, block_id: str, body: str, *, code: str) -> None:
    """The fenced body of `block_id` replaced by `body`, and its `code=` record by `code`
    (the record follows the text it was computed from)."""
    pos = doc.index()[block_id]
    b = doc.blocks[pos]
    if b.content_type != FENCED:
        return
    attrs = {k: v for k, v in b.attrs.items() if k != CODE_ATTR}
    if code:
        attrs[CODE_ATTR] = code
    doc.blocks[pos] = Block(b.kind, b.content_type, body, attrs, b.id)


def insert_in_section(doc: Document, kind: str, block: Block) -> None:
    """Right after the `h-<kind>` heading (newest first, as the earlier plugin did); a kind
    without a section gets a new `@h2` at the end of the file."""
    from agd.model import INLINE, Inline

    section = rules.section_id(kind)
    pos = doc.index().get(section)
    if pos is None:
        heading = Block("h2", INLINE, [Inline("text", rules.section_title(kind))], {}, section)
        doc.blocks.append(heading)
        doc.blocks.append(block)
        return
    doc.blocks.insert(pos + 1, block)
