"""The review queue: proposals kept pending until the user accepts, edits or rejects them.

In review mode (`review.enabled`) the distiller's proposals, `agd-memory keys` results
and consolidation plans are not written into the memory file: `enqueue` stores them in
a queue file of their own beside the config file
(`<Claude config dir>/agd-memory/review/<name>-<hash>.json`, one per memory file:
`queuefile.queue_path`), where the hooks and a shell both find it. No reader of memory (TOC, recall, search, `get`, the hooks' injected
text) ever opens that folder, and it is outside every repository, so a team layer's
pending proposals cannot be committed by accident.

    review.enqueue(mf, [review.Proposal.save(...)], source="distill", session="abc")
    review.pending(mf)                  # [Item, ...], oldest first
    review.accept(mf, ["p1a2b3c4"])     # written through the store's one write path
    review.reject(mf, ["p1a2b3c4"])     # remembered by a content fingerprint

An item is one `op`:

- `save`: one entry to add or update (`entry`: kind, id, desc, body, status, supersedes,
  keys), written with `MemoryFile.save` (secret check, lifecycle stamps, supersedes);
- `keys`: search keys for existing entries (`keys`: id -> [key, ...]), `MemoryFile.set_keys`;
- `plan`: a consolidation plan (`plan`: `distill.consolidate.Plan.to_dict()`), written by
  `distill.consolidate.apply` in one transaction with a `.bak`.

A rejected item's fingerprint (its content, not its queue id, so the same fact proposed
again under another id is still known) is kept, and `enqueue` drops a proposal whose
fingerprint was rejected or is already pending. The queue file is changed under its
own lock with an atomic write; an accepted item leaves the queue only after its write
succeeded, so a crash in between leaves it pending (accepting it again changes nothing).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agd import lock
from agd.atomic import write_atomic

from ..errors import UserError
from ..settings import Settings
from .queuefile import QueueDamaged, load, queue_path
from .queuefile import count as count  # re-exported: the queue's API

if TYPE_CHECKING:
    from ..store import Entry, MemoryFile
    from . import consolidate

MAX_PENDING = 500
"""The most items one queue holds; older ones are kept, new ones refused past it (logged)."""
MAX_REJECTED = 2000
"""Fingerprints of rejected proposals remembered per memory file (the oldest forgotten)."""
OPS = ("save", "keys", "plan")


class ReviewError(UserError):
    """A review command names an unknown item, or an edit does not validate."""


def enabled(settings: Settings, layer: str) -> bool:
    """Review mode for a layer: `AGD_DISTILL_REVIEW` when set (env, plugin option or
    config), else on for the team layer only (that file is shared)."""
    value = getattr(settings, "distill_review", None)
    return layer == "team" if value is None else bool(value)


@dataclass(frozen=True)
class Proposal:
    """What `enqueue` takes: one op and its payload (see the module docstring)."""

    op: str
    entry: dict[str, Any] = field(default_factory=dict)
    keys: dict[str, list[str]] = field(default_factory=dict)
    plan: dict[str, Any] = field(default_factory=dict)
    summary: str = ""
    diff: str = ""
    """For a plan: its diff when made (shown when the live preview cannot be computed)."""

    @classmethod
    def save(
        cls,
        kind: str,
        id: str,
        body: str,
        *,
        desc: str | None = None,
        status: str | None = None,
        supersedes: Sequence[str] = (),
        keys: Sequence[str] = (),
        summary: str = "",
    ) -> Proposal:
        entry = {
            "kind": kind,
            "id": id,
            "desc": desc,
            "body": body,
            "status": status,
            "supersedes": list(supersedes),
            "keys": list(keys),
        }
        return cls("save", entry=entry, summary=summary or f"#{id} ({kind}) {desc or ''}".strip())

    @classmethod
    def for_keys(cls, keys: Mapping[str, Iterable[str] | str], summary: str = "") -> Proposal:
        clean = {i: _key_list(k) for i, k in keys.items()}
        ids = ", ".join(f"#{i}" for i in clean)
        return cls("keys", keys=clean, summary=summary or f"search keys for {ids}")

    @classmethod
    def for_plan(cls, plan: Mapping[str, Any], *, summary: str = "", diff: str = "") -> Proposal:
        n = len(plan.get("changes", ()))
        return cls(
            "plan",
            plan=dict(plan),
            summary=summary or f"consolidation plan of {n} changes",
            diff=diff,
        )


@dataclass(frozen=True)
class Item:
    """One pending proposal as stored in the queue."""

    id: str
    op: str
    source: str
    session: str
    created: str
    fingerprint: str
    summary: str
    entry: dict[str, Any] = field(default_factory=dict)
    keys: dict[str, list[str]] = field(default_factory=dict)
    plan: dict[str, Any] = field(default_factory=dict)
    diff: str = ""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Item | None:
        """The item, or None when `data` is not a well-formed one (see `problem`)."""
        if problem(data) is not None:
            return None
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


_TEXT_FIELDS = ("id", "op", "source", "session", "created", "fingerprint", "summary")


def problem(data: object) -> str | None:
    """What makes a stored queue item unusable, or None when it is well formed."""
    if not isinstance(data, dict):
        return "not a JSON object"
    for name in _TEXT_FIELDS:
        if not isinstance(data.get(name), str):
            return f'"{name}" missing or not a string'
    if data["op"] not in OPS:
        return f"unknown op {data['op']!r}"
    if data["op"] == "save":
        entry = data.get("entry")
        if not isinstance(entry, dict):
            return '"entry" missing'
        for name in ("kind", "id", "body"):
            if not isinstance(entry.get(name), str):
                return f'entry "{name}" missing or not a string'
    elif not isinstance(data.get(data["op"] if data["op"] == "plan" else "keys"), dict):
        return f'"{"plan" if data["op"] == "plan" else "keys"}" missing'
    return None


@dataclass
class Enqueued:
    added: list[Item] = field(default_factory=list)
    dropped: list[tuple[Proposal, str]] = field(default_factory=list)
    """Proposals not queued and why (rejected before, already pending, queue full)."""


# -- where the queue lives -------------------------------------------------------------------


def _path_of(mf: MemoryFile) -> Path:
    return queue_path(mf.settings, mf.path)


def _load(mf: MemoryFile) -> dict[str, Any]:
    """The queue's data; a damaged queue file is a ReviewError and is left as it is."""
    path = _path_of(mf)
    try:
        return load(path)
    except QueueDamaged as exc:
        raise ReviewError(
            f"the review queue {path} of {mf.path} is damaged ({exc}); it was left as it is: "
            f"repair it, or move it aside (mv '{path}' '{path}.damaged') to start a new queue",
            path=mf.path,
        ) from None


def _change(mf: MemoryFile, change: Callable[[dict[str, Any]], Any]) -> Any:
    """`change` the queue's data under its lock; written back atomically when it changed.
    A damaged queue file is never overwritten (ReviewError)."""
    path = _path_of(mf)
    try:
        with lock.exclusive(lock.lock_path_for(path)):
            data = _load(mf)
            before = json.dumps(data, sort_keys=True)
            result = change(data)
            after = json.dumps(data, sort_keys=True)
            if after != before:
                data["memory_file"] = str(mf.path)
                write_atomic(
                    path, json.dumps(data, ensure_ascii=False, indent=1) + "\n", mode=0o600
                )
            return result
    except lock.LockError as exc:
        raise ReviewError(str(exc)) from None
    except OSError as exc:
        raise ReviewError(
            f"cannot write the review queue {path}: {exc.strerror or exc}; check that the data "
            "folder is writable. Nothing was changed."
        ) from None


# -- the public API --------------------------------------------------------------------------


def fingerprint(proposal: Proposal | Item) -> str:
    """The content of a proposal, independent of its id and wording's spacing and case."""

    def norm(value: object) -> str:
        return " ".join(str(value or "").lower().split())

    if proposal.op == "save":
        e = proposal.entry
        basis: object = [norm(e.get("kind")), norm(e.get("desc")), norm(e.get("body"))]
    elif proposal.op == "keys":
        basis = sorted((i, sorted(norm(k) for k in ks)) for i, ks in proposal.keys.items())
    else:
        changes = proposal.plan.get("changes", [])
        basis = sorted(json.dumps(c, sort_keys=True) for c in changes if isinstance(c, dict))
    raw = json.dumps([proposal.op, basis], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()[:24]


def enqueue(
    mf: MemoryFile,
    proposals: Iterable[Proposal],
    *,
    source: str,
    session: str = "",
    now: Callable[[], float] = time.time,
) -> Enqueued:
    """Store `proposals` as pending for `mf` (a `store.MemoryFile`); nothing is written to
    the memory file. A proposal rejected before, or already pending, is dropped."""
    given = list(proposals)
    for p in given:
        if p.op not in OPS:
            raise ValueError(f"unknown review op {p.op!r}")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now()))

    def change(data: dict[str, Any]) -> Enqueued:
        out = Enqueued()
        pending_fps = {i.get("fingerprint") for i in data["pending"] if isinstance(i, dict)}
        taken = {i.get("id") for i in data["pending"] if isinstance(i, dict)}
        for p in given:
            fp = fingerprint(p)
            if fp in data["rejected"]:
                out.dropped.append((p, "rejected before"))
                continue
            if fp in pending_fps:
                out.dropped.append((p, "already pending"))
                continue
            if len(data["pending"]) >= MAX_PENDING:
                out.dropped.append((p, f"the queue holds {MAX_PENDING} items; review them first"))
                continue
            qid = _new_id(fp, taken)
            taken.add(qid)
            pending_fps.add(fp)
            item = Item(
                qid, p.op, source, session, stamp, fp, p.summary, p.entry, p.keys, p.plan, p.diff
            )
            data["pending"].append(asdict(item))
            out.added.append(item)
        return out

    return _change(mf, change)


def pending(mf: MemoryFile) -> list[Item]:
    """The items waiting for `mf`, oldest first; malformed ones are left out (`malformed`
    names them). ReviewError when the queue file is damaged."""
    items = (Item.from_dict(d) for d in _load(mf)["pending"])
    return [i for i in items if i is not None]


def malformed(mf: MemoryFile) -> list[str]:
    """One line per malformed item of `mf`'s queue (skipped by every reader), saying what to do."""
    path = _path_of(mf)
    out = []
    for n, d in enumerate(_load(mf)["pending"]):
        why = problem(d)
        if why is not None:
            name = (
                d.get("id") if isinstance(d, dict) and isinstance(d.get("id"), str) else f"#{n + 1}"
            )
            out.append(
                f"review queue {path}: item {name} skipped ({why}); remove it from that file or "
                f"fix it"
            )
    return out


def find(mf: MemoryFile, ids: Sequence[str]) -> list[Item]:
    """The pending items named by `ids` (a unique prefix will do); ReviewError for an unknown one."""
    items = pending(mf)
    out: list[Item] = []
    for given in ids:
        key = given.strip().lstrip("#")
        hits = [i for i in items if i.id == key] or [
            i for i in items if key and i.id.startswith(key)
        ]
        if len(hits) != 1:
            what = "matches several items" if hits else "is not pending"
            raise ReviewError(
                f"review item `{given}` {what} for {mf.path}; run `agd-memory review` for the list",
                path=mf.path,
            )
        if hits[0] not in out:
            out.append(hits[0])
    return out


def accept(mf: MemoryFile, ids: Sequence[str]) -> list[str]:
    """Write the named items through the store, each then leaving the queue; returns one
    line per item. A write that is refused leaves its item pending and raises after the
    ones before it were accepted. Each item is claimed under the queue's lock: when a
    concurrent accept or reject handled it first, ReviewError says so."""
    lines: list[str] = []
    for item in find(mf, ids):

        def change(data: dict[str, Any], qid: str = item.id) -> str:
            current = _take(mf, data, qid)
            return f"{current.id}: {apply(mf, current)}"

        lines.append(_change(mf, change))
    return lines


def reject(
    mf: MemoryFile, ids: Sequence[str], *, now: Callable[[], float] = time.time
) -> list[str]:
    """Drop the named items and remember their fingerprints (never proposed again), in one
    change of the queue: an item a concurrent accept or reject handled first is a ReviewError."""
    wanted = [i.id for i in find(mf, ids)]
    stamp = time.strftime("%Y-%m-%d", time.gmtime(now()))

    def change(data: dict[str, Any]) -> list[str]:
        items = [_take(mf, data, qid) for qid in wanted]
        for item in items:
            data["rejected"][item.fingerprint] = stamp
        while len(data["rejected"]) > MAX_REJECTED:
            data["rejected"].pop(next(iter(data["rejected"])))
        return [f"{i.id}: rejected ({i.summary})" for i in items]

    return _change(mf, change)


def _take(mf: MemoryFile, data: dict[str, Any], qid: str) -> Item:
    """Remove item `qid` from the queue's `data` (under its lock) and return it as it is now."""
    for n, d in enumerate(data["pending"]):
        if isinstance(d, dict) and d.get("id") == qid:
            item = Item.from_dict(d)
            if item is not None:
                del data["pending"][n]
                return item
    raise ReviewError(
        f"review item `{qid}` of {mf.path} was already accepted or rejected (by another "
        "command or the viewer); run `agd-memory review` for what is still waiting",
        path=mf.path,
    )


def replace(mf: MemoryFile, item: Item, proposal: Proposal) -> Item:
    """The item with its content replaced by `proposal` (an edit); same id, new fingerprint."""
    new = Item(
        item.id, proposal.op, item.source, item.session, item.created, fingerprint(proposal),
        proposal.summary or item.summary, proposal.entry, proposal.keys, proposal.plan, proposal.diff,
    )  # fmt: skip

    def change(data: dict[str, Any]) -> None:
        for n, d in enumerate(data["pending"]):
            if isinstance(d, dict) and d.get("id") == item.id:
                data["pending"][n] = asdict(new)
                return
        raise ReviewError(f"review item `{item.id}` is no longer pending", path=mf.path)

    _change(mf, change)
    return new


def _new_id(fp: str, taken: set[Any]) -> str:
    for n in range(8, len(fp) + 1):
        qid = f"p{fp[:n]}"
        if qid not in taken:
            return qid
    return f"p{fp}-{len(taken)}"


def _key_list(value: Iterable[str] | str) -> list[str]:
    parts = value.split(",") if isinstance(value, str) else list(value)
    return [" ".join(str(p).split()) for p in parts if str(p).strip()]


# -- applying and showing ----------------------------------------------------------------------


def apply(mf: MemoryFile, item: Item) -> str:
    """Write one item through the store's write path; the line says what was done."""
    if item.op == "save":
        e = item.entry
        result = mf.save(
            e["kind"],
            e["id"],
            e["body"],
            desc=e.get("desc"),
            status=e.get("status"),
            supersedes=e.get("supersedes") or None,
            keys=e.get("keys") or None,
        )
        return result.message or f"{result.action} #{result.id}"
    if item.op == "keys":
        written = mf.set_keys(item.keys)
        return f"keys written on {len(written)} entries" + (
            f" ({', '.join('#' + i for i in written)})" if written else ""
        )
    from ..store.rules import today
    from . import consolidate

    said, bak = consolidate.apply(mf, consolidate.Plan.from_dict(item.plan), today(mf.settings))
    if bak is not None:
        said.append(f"the file before is in {bak}")
    return "; ".join(said) or "nothing to change"


def proposed_block(entry: Mapping[str, Any], old: Entry | None = None) -> str:
    """The AGD text of a `save` item's entry (the old entry's other attributes kept)."""
    from agd.model import FENCED, Block
    from agd.refs import format_ids
    from agd.serializer import serialize_block

    attrs: dict[str, Any] = dict(old.attrs) if old is not None else {}
    for name in ("desc", "status"):
        if entry.get(name):
            attrs[name] = entry[name]
    if entry.get("supersedes"):
        attrs["supersedes"] = format_ids(entry["supersedes"])
    if entry.get("keys"):
        attrs["keys"] = ", ".join(entry["keys"])
    return serialize_block(Block(entry["kind"], FENCED, entry["body"], attrs, entry["id"]))


def describe(mf: MemoryFile, item: Item) -> str:
    """What accepting `item` would do, as a unified diff against the current entries."""
    current = {e.id: e for e in mf.entries()} if mf.exists() else {}
    if item.op == "save":
        eid = item.entry.get("id", "")
        old = current.get(eid)
        lines = _diff(old.to_agd() if old else "", proposed_block(item.entry, old), eid)
        for sid in item.entry.get("supersedes") or ():
            if sid in current:
                lines.append(f"supersedes #{sid}: {current[sid].desc or ''}".rstrip())
        return "\n".join(lines)
    if item.op == "keys":
        out = []
        for eid, keys in item.keys.items():
            old = current.get(eid)
            before = f"#{eid} keys: {', '.join(_key_list(old.attrs.get('keys', ''))) if old else '(no such entry)'}"
            out += [f"- {before}", f"+ #{eid} keys: {', '.join(keys)}"]
        return "\n".join(out)
    try:
        from ..store.rules import today
        from . import consolidate

        after, _ = consolidate.change_document(
            mf.document(), consolidate.Plan.from_dict(item.plan), today(mf.settings)
        )
        return consolidate.diff(mf.document(), after)
    except Exception:  # the plan module's preview is a convenience: the stored diff will do
        return item.diff


def _diff(old: str, new: str, eid: str) -> list[str]:
    return list(
        difflib.unified_diff(
            old.splitlines(),
            new.splitlines(),
            f"#{eid}" if old else "(new entry)",
            f"#{eid} (proposed)",
            lineterm="",
        )
    )


# -- editing ----------------------------------------------------------------------------------


def editable_text(item: Item) -> str:
    """The item as AGD text to edit: the proposed entry, or the entries with their new keys."""
    if item.op == "save":
        return proposed_block(item.entry)
    if item.op == "keys":
        from agd.model import EMPTY, Block
        from agd.serializer import serialize_block

        return "".join(
            serialize_block(Block("x-keys", EMPTY, None, {"keys": ", ".join(keys)}, eid)) + "\n"
            for eid, keys in item.keys.items()
        )
    raise ReviewError(
        f"review item `{item.id}` is a consolidation plan: accept or reject it, or run "
        "`agd-memory consolidate --plan-out PLAN.json` and edit the plan there"
    )


def from_text(item: Item, text: str) -> Proposal:
    """The edited AGD text of `item` as a new proposal, checked by the store's write rules
    (id, kind, desc, body, status, size, secrets); ReviewError or SaveRejected says what is wrong."""
    from agd.errors import AgdError
    from agd.parser import parse

    from ..store import rules
    from ..store.entry import parse_id_list, str_attr
    from ..store.write import check_entry

    try:
        doc = parse(text)
    except AgdError as exc:
        raise ReviewError(
            f"the edited text of review item `{item.id}` does not parse: {exc}"
        ) from None
    blocks = [b for b in doc.blocks if b.id]
    where = f"review item `{item.id}`"
    if item.op == "keys":
        keys = {}
        for b in blocks:
            if b.id not in item.keys:
                raise ReviewError(f"{where}: #{b.id} was not part of it; edit only the keys")
            value = str_attr(b.attrs, "keys") or ""
            keys[b.id] = _key_list(rules.normalize_keys(value, f"#{b.id} in {where}"))
        return Proposal.for_keys({i: k for i, k in keys.items() if k})
    if len(blocks) != 1 or not blocks[0].kind.startswith("x-"):
        raise ReviewError(
            f"{where}: the edited text must hold exactly one memory entry "
            "(`@x-kind ... [#id]` and a fenced body)"
        )
    b = blocks[0]
    entry = check_entry(
        b.kind,
        b.id or "",
        b.value if isinstance(b.value, str) else "",
        file=where,
        desc=rules.normalize_desc(str_attr(b.attrs, "desc") or "") or None,
        status=str_attr(b.attrs, "status"),
        supersedes=parse_id_list(b.attrs.get("supersedes")),
        keys=str_attr(b.attrs, "keys"),
        where=f"#{b.id} ({where})",
    )
    if not entry.body.strip():
        raise ReviewError(f"{entry.where}: the body is empty; write the fact between the fences")
    key_list = _key_list(entry.keys) if entry.keys else []
    return Proposal.save(
        entry.kind,
        entry.id,
        entry.body,
        desc=entry.desc,
        status=entry.status,
        supersedes=entry.supersedes or [],
        keys=key_list,
    )


def submit_plan(
    mf: MemoryFile, plan: consolidate.Plan, settings: Settings, *, review_first: bool = True
) -> list[str]:
    """What happens to a plan that is not only shown: the one seam between a plan and the
    file. With review on for the layer (`enabled`) and `review_first`, it waits in
    the review queue with its diff; else it is written (`apply`). The lines say what was done."""
    from ..store.rules import today
    from . import consolidate

    if not plan.changes:
        return ["nothing to change"]
    if review_first and enabled(settings, mf.layer):
        doc = mf.document()
        shown = consolidate.diff(doc, consolidate.change_document(doc, plan, today(settings))[0])
        got = enqueue(mf, [Proposal.for_plan(plan.to_dict(), diff=shown)], source="consolidate")
        said = [
            f"queued for review as {item.id}: `agd-memory review` shows it, "
            f"`agd-memory review accept {item.id}` writes it"
            for item in got.added
        ]
        return said + [f"not queued: {why}" for _, why in got.dropped]
    said, bak = consolidate.apply(mf, plan, today(settings))
    if bak is not None:
        said.append(f"the file before is in {bak}")
    return said
