"""The model's proposals, checked by our code and written through the store.

Nothing the headless model returns is trusted: each proposal is validated
(kind, id, one-line desc, non-empty body, status, supersedes, scope: team for project
facts a teammate needs when the repository has a team layer, never a fact about the user), its
secrets are redacted, and then it is

- an **update** when its id names an existing memory block (unchanged text is
  skipped),
- skipped as a **near-duplicate** when it says what an existing block already
  says (same desc, same body, or most of the same words),
- otherwise **added**; `supersedes` keeps only ids that exist in the same file and
  that the model was shown (at most three; a longer list is not believed at all).

At most three are considered, in the model's order; every limit of the answer's
schema (`schema.py`) is enforced here, since the model may ignore the schema. Writes go through
`store.MemoryFile.save`, so the lock, atomic write and lifecycle stamps are
the same as for every other writer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from agd.lines import is_identifier

from .. import secrets
from ..errors import UserError
from ..settings import Settings
from ..store.rules import MAX_KEYS, suggest_id, usable_keys
from . import schema
from .schema import BODY_CHARS, DESC_CHARS, ID_CHARS, KINDS, MAX_PROPOSALS, MAX_SUPERSEDES, SCOPES

if TYPE_CHECKING:
    from ..paths import Layer, Layers
    from ..store import Entry, MemoryFile

GLOBAL_KINDS = ("x-user", "x-feedback")
"""Only facts about the user may go to the global layer."""
PRIVATE_KINDS = ("x-user",)
"""Facts about the user never go to the team layer, which every teammate reads."""
DUPLICATE_JACCARD = 0.6
_WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)


@dataclass(frozen=True)
class Proposal:
    kind: str
    id: str
    desc: str
    body: str
    status: str | None
    supersedes: tuple[str, ...]
    scope: str
    redacted: tuple[str, ...] = ()
    """Kinds of secret removed from desc or body."""
    notes: tuple[str, ...] = ()
    """What validation changed (id rewritten, desc clipped, ...)."""
    keys: tuple[str, ...] = ()
    """Search terms recall matches like desc words (synonyms, wording, translations)."""


@dataclass
class Outcome:
    """What happened to one proposal."""

    action: str
    """`added`, `updated`, `unchanged`, `duplicate`, `invalid`, `rejected`, `pending` (queued
    for review, `review.enabled`), or `would add`/`would update` in a dry run."""
    id: str
    message: str
    proposal: Proposal | None = None
    layer: str = ""

    @property
    def saved(self) -> bool:
        return self.action in ("added", "updated")


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def saved_ids(self) -> list[str]:
        return [o.id for o in self.outcomes if o.saved]

    @property
    def pending_ids(self) -> list[str]:
        return [o.id for o in self.outcomes if o.action == "pending"]


def validate(raw: object) -> Proposal:
    """One raw proposal as a `Proposal`, within every limit of `schema.SCHEMA`; UserError
    names what is wrong."""
    if not isinstance(raw, dict):
        raise UserError("a proposal is not an object")
    notes: list[str] = []
    kind = schema.field_text(raw, "kind").strip().lower()
    if kind and not kind.startswith("x-"):
        kind = f"x-{kind}"
    if kind not in KINDS:
        raise UserError(f"unknown kind `{kind[:40]}` (use one of {', '.join(KINDS)})")
    raw_id = schema.field_text(raw, "id").strip().lstrip("#")
    if not raw_id:
        raise UserError("a proposal has no id")
    if len(raw_id) > ID_CHARS:
        raise UserError(f"the proposed id is {len(raw_id)} characters (at most {ID_CHARS})")
    block_id = raw_id if is_identifier(raw_id) else suggest_id(raw_id)
    if block_id != raw_id:
        notes.append(f"id `{raw_id}` became `{block_id}`")
    body = schema.field_text(raw, "body").strip()
    if not body:
        raise UserError(f"#{block_id} has an empty body")
    if len(body) > BODY_CHARS:
        body = body[: BODY_CHARS - 1].rstrip() + "…"
        notes.append("body clipped")
    desc = " ".join(schema.field_text(raw, "desc").split())
    if not desc:
        desc = " ".join(body.splitlines()[0].split())
    if len(desc) > DESC_CHARS:
        desc = desc[: DESC_CHARS - 1].rstrip() + "…"
        notes.append("desc clipped")
    status = schema.field_text(raw, "status").strip().lower() or None
    if status not in (None, "open", "done"):
        notes.append(f"status `{status[:40]}` dropped")
        status = None
    supersedes = _supersedes(raw.get("supersedes"), block_id, notes)
    scope = schema.field_text(raw, "scope").strip().lower() or "project"
    if scope == "global" and kind not in GLOBAL_KINDS:
        notes.append(f"scope global is only for {' and '.join(GLOBAL_KINDS)}: kept in the project")
        scope = "project"
    if scope == "team" and kind in PRIVATE_KINDS:
        notes.append(f"scope team is not for {kind}, a fact about the user: kept private")
        scope = "project"
    if scope not in SCOPES:
        notes.append(f"scope `{scope[:40]}` unknown: kept in the project")
        scope = "project"
    if secrets.find(block_id):
        raise UserError("the proposed id looks like a secret")
    found = [f.kind for f in secrets.find(desc)] + [f.kind for f in secrets.find(body)]
    if found:
        desc, body = secrets.redact(desc), secrets.redact(body)
    given = raw.get("keys")
    items = given.split(",") if isinstance(given, str) else given if isinstance(given, list) else []
    if len(items) > MAX_KEYS:
        notes.append(f"{len(items) - MAX_KEYS} keys past the first {MAX_KEYS} dropped")
        items = items[:MAX_KEYS]
    # a comma inside an item separates keys
    keys, dropped = usable_keys(
        [schema.text(part) for item in items if isinstance(item, str) for part in item.split(",")],
        "the proposal",
    )
    # no text in the note: the key may be a secret
    notes += ["a key dropped (too long or secret-looking)"] * len(dropped)
    return Proposal(
        kind,
        block_id,
        desc,
        body,
        status,
        supersedes,
        scope,
        tuple(dict.fromkeys(found)),
        tuple(notes),
        tuple(keys),
    )


def _supersedes(given: object, block_id: str, notes: list[str]) -> tuple[str, ...]:
    """The ids a proposal replaces: at most MAX_SUPERSEDES, or none. An answer naming more
    ignored its schema (one such answer once marked a whole memory superseded), so
    none of them is believed."""
    if given is None or given == "":
        return ()
    items = given.split(",") if isinstance(given, str) else given
    if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
        notes.append("supersedes dropped (not a list of ids)")
        return ()
    ids = tuple(
        dict.fromkeys(
            s for s in (schema.text(x).strip().lstrip("#") for x in items) if s and s != block_id
        )
    )
    if len(ids) > MAX_SUPERSEDES:
        notes.append(f"supersedes of {len(ids)} ids dropped (at most {MAX_SUPERSEDES})")
        return ()
    return tuple(s for s in ids if is_identifier(s))


def words(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD.findall(text))


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


class Said(Protocol):
    """What `near_duplicate` compares: a stored `Entry` or a proposal waiting for review."""

    @property
    def id(self) -> str: ...
    @property
    def desc(self) -> str | None: ...
    @property
    def body(self) -> str | None: ...
    @property
    def status(self) -> str | None: ...


def near_duplicate(proposal: Proposal, entries: Iterable[Said]) -> str | None:
    """The id of an existing block that already says what the proposal says, if any.

    Blocks the proposal supersedes and superseded blocks do not count.
    """
    mine = words(f"{proposal.desc} {proposal.body}")
    for entry in entries:
        eid = entry.id
        if eid == proposal.id or eid in proposal.supersedes or entry.status == "superseded":
            continue
        desc, body = entry.desc or "", entry.body or ""
        if (desc and _norm(desc) == _norm(proposal.desc)) or (
            body and _norm(body) == _norm(proposal.body)
        ):
            return eid
        theirs = words(f"{desc} {body}")
        if mine and theirs and len(mine & theirs) / len(mine | theirs) >= DUPLICATE_JACCARD:
            return eid
    return None


def apply(
    raw_proposals: list[object],
    layers: Layers,
    settings: Settings,
    *,
    shown: Collection[str],
    log: Callable[[str], None] = lambda _: None,
    dry_run: bool = False,
    session: str = "",
) -> Report:
    """Validate and write up to MAX_PROPOSALS proposals into their layers' files.

    `shown` holds the ids of the entries the model was shown (the TOC sent with the
    session): a proposal supersedes only those, never an entry the model did not see.
    What validation dropped or changed is told to `log`. In review mode for the target
    layer (`review.enabled`) a proposal that passes every check is queued as pending
    (from `session`) instead of written."""
    from .. import store  # the store is imported only when something is to be written

    report = Report()
    if len(raw_proposals) > MAX_PROPOSALS:
        log(
            f"the answer holds {len(raw_proposals)} proposals (at most {MAX_PROPOSALS}): "
            f"the first {MAX_PROPOSALS} are considered, the rest dropped"
        )
    for raw in raw_proposals[:MAX_PROPOSALS]:
        try:
            proposal = validate(raw)
        except UserError as exc:
            rid = raw.get("id") if isinstance(raw, dict) else ""
            rid = schema.text(rid)[:ID_CHARS] if isinstance(rid, str) else ""
            log(f"proposal #{rid or '?'} refused: {exc}")
            report.outcomes.append(Outcome("invalid", rid, str(exc)))
            continue
        for note in proposal.notes:
            log(f"proposal #{proposal.id}: {note}")
        unseen = [s for s in proposal.supersedes if s not in shown]
        if unseen:
            log(
                f"proposal #{proposal.id}: supersedes {', '.join('#' + s for s in unseen)} "
                "dropped (not among the entries the model was shown)"
            )
            proposal = replace(
                proposal, supersedes=tuple(s for s in proposal.supersedes if s in shown)
            )
        layer = _target(proposal, layers, settings, log)
        mf = store.MemoryFile(layer.path, layer=layer.name, settings=settings)
        try:
            every = mf.entries() if mf.exists() else []
        except UserError as exc:
            report.outcomes.append(Outcome("rejected", proposal.id, str(exc), proposal, layer.name))
            continue
        entries = [e for e in every if e.is_memory]
        all_ids = {e.id for e in every}
        report.outcomes.append(_write(mf, proposal, entries, all_ids, layer.name, dry_run, session))
    return report


def team_layer(layers: Layers, settings: Settings) -> Layer | None:
    """The team layer proposals may go to: the repository's team file when it exists and
    `AGD_DISTILL_TEAM` is on, else None."""
    team = layers.team
    if team is None or not settings.distill_team or not team.path.is_file():
        return None
    return team


def team_note(layers: Layers, settings: Settings) -> str:
    """The line telling the model a team layer takes proposals ("" when none does)."""
    team = team_layer(layers, settings)
    if team is None:
        return ""
    return (
        f"\nteam layer: {team.path} (shared with the team through git; `scope: team` for "
        "project facts a teammate needs)"
    )


def _target(
    proposal: Proposal, layers: Layers, settings: Settings, log: Callable[[str], None]
) -> Layer:
    """The layer a proposal is written to: its scope's, except that a team proposal stays in
    the project layer when the repository has no team file or `AGD_DISTILL_TEAM` is off."""
    if proposal.scope == "global":
        return layers.global_
    if proposal.scope == "team":
        team = team_layer(layers, settings)
        if team is not None:
            return team
        why = (
            "team proposals are off (AGD_DISTILL_TEAM)"
            if not settings.distill_team
            else ("the repository has no team layer (`agd-memory team init`)")
        )
        log(f"proposal #{proposal.id}: {why}: kept in the project")
    return layers.project


def _write(
    mf: MemoryFile,
    proposal: Proposal,
    entries: list[Entry],
    all_ids: set[str],
    layer: str,
    dry_run: bool,
    session: str = "",
) -> Outcome:
    existing = {e.id: e for e in entries}
    pid = proposal.id
    if pid in all_ids and pid not in existing:
        return Outcome(
            "invalid",
            pid,
            f"#{pid} is a heading or meta block, not a memory entry",
            proposal,
            layer,
        )
    old = existing.get(pid)
    if old is not None:
        if _norm(old.body or "") == _norm(proposal.body) and _norm(old.desc or "") == _norm(
            proposal.desc
        ):
            return Outcome("unchanged", pid, f"#{pid} already says this", proposal, layer)
        action = "updated"
    else:
        dup = near_duplicate(proposal, entries)
        if dup is not None:
            return Outcome("duplicate", pid, f"near-duplicate of #{dup}, skipped", proposal, layer)
        action = "added"
    supersedes = [s for s in proposal.supersedes if s in existing]
    if dry_run:
        return Outcome(
            {"added": "would add", "updated": "would update"}[action],
            pid,
            _describe(proposal, supersedes),
            proposal,
            layer,
        )
    from . import review

    if review.enabled(mf.settings, layer):
        return _enqueue(mf, proposal, supersedes, layer, session)
    try:
        result = mf.save(
            proposal.kind,
            pid,
            proposal.body,
            desc=proposal.desc,
            status=proposal.status,
            supersedes=supersedes or None,
            keys=list(proposal.keys) or None,
        )
    except UserError as exc:
        return Outcome("rejected", pid, str(exc), proposal, layer)
    message = result.message or f"{action} #{pid}"
    return Outcome(action, pid, message, proposal, layer)


def _enqueue(
    mf: MemoryFile, proposal: Proposal, supersedes: list[str], layer: str, session: str
) -> Outcome:
    """The proposal queued for review instead of written (`duplicate` when rejected before,
    or when a proposal waiting in the queue already says it)."""
    from types import SimpleNamespace

    from . import review

    waiting = [
        SimpleNamespace(
            id=i.entry.get("id"), desc=i.entry.get("desc"), body=i.entry.get("body"), status=None
        )
        for i in review.pending(mf)
        if i.op == "save"
    ]
    dup = near_duplicate(proposal, waiting)
    if dup is not None:
        return Outcome(
            "duplicate", proposal.id, f"near-duplicate of #{dup} waiting for review, skipped",
            proposal, layer,
        )  # fmt: skip
    queued = review.enqueue(
        mf,
        [
            review.Proposal.save(
                proposal.kind,
                proposal.id,
                proposal.body,
                desc=proposal.desc,
                status=proposal.status,
                supersedes=supersedes,
                keys=proposal.keys,
            )
        ],
        source="distill",
        session=session,
    )
    if not queued.added:
        why = queued.dropped[0][1] if queued.dropped else "not queued"
        return Outcome("duplicate", proposal.id, f"#{proposal.id}: {why}, skipped", proposal, layer)
    qid = queued.added[0].id
    return Outcome(
        "pending", proposal.id, f"#{proposal.id} waits for review as {qid}", proposal, layer
    )


def _describe(proposal: Proposal, supersedes: list[str]) -> str:
    extra = f", supersedes {', '.join('#' + s for s in supersedes)}" if supersedes else ""
    return f"#{proposal.id} ({proposal.kind}) {proposal.desc}{extra}"
