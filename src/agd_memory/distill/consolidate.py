"""Consolidation: a headless `claude -p` pass that proposes how to tidy one memory layer.

The model is shown the layer's active entries, chunk by chunk within a token budget
(secrets redacted, each entry's text defused so it cannot close its own tag), and
answers with changes of five kinds: `merge` duplicates into one entry (the others
superseded), `supersede` entries a later one contradicts, rewrite a vague `desc`,
`delete` an entry with nothing durable in it, add missing `refs`. The answer is data:
every limit of `SCHEMA` is enforced again on read (`validate`), a change naming an id
that was not in its chunk is dropped, and the run as a whole is cut to what `cut`
allows (at most MAX_SUPERSEDED superseded, MAX_DELETED deleted, and together never
more than MAX_SHARE of the active entries; one change per entry). An entry that others
cite is superseded instead of deleted, so every citation stays resolvable.

The result is a `Plan`: printed as a diff of each entry before and after (`diff`),
written only when accepted (`apply`: one locked, atomic rewrite with a `.bak`, the
plan recomputed on the file as it is then, a change whose entry changed meanwhile
skipped). Nothing touches the file before that.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agd.lines import is_identifier
from agd.model import FENCED, Block, Document
from agd.refs import block_citations, cites, format_ids, parse_ids
from agd.serializer import serialize_block

from .. import secrets
from ..errors import UserError
from ..settings import Settings
from ..store import write
from ..store.entry import str_attr
from ..store.rules import normalize_body
from .schema import DESC_CHARS, ID_CHARS, field_text, list_answer, text

if TYPE_CHECKING:
    from ..store import MemoryFile

PROMPT_FILE = Path(__file__).with_name("consolidate_prompt.md")
RESULT_FIELD = "changes"
OPS = ("merge", "supersede", "desc", "delete", "refs")
MAX_CHANGES = 12
"""Changes read from one chunk's answer; the rest are dropped."""
MAX_OTHERS = 3
"""Ids in one change's `others`; a change naming more is not believed at all."""
MAX_SUPERSEDED = 10
MAX_DELETED = 5
MAX_SHARE = 0.25
"""Of the active entries, the most one run may supersede and delete together."""
WHY_CHARS = 300
BODY_CHARS = 4000
BODY_CLIP = 2000
"""Characters of an entry's body sent to the model."""
STATE_FILE = "consolidate.json"

_ID = {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_-]*$", "maxLength": ID_CHARS}
SCHEMA = list_answer(
    RESULT_FIELD,
    {
        "op": {"type": "string", "enum": list(OPS)},
        "id": _ID,
        "others": {"type": "array", "items": _ID, "maxItems": MAX_OTHERS},
        "desc": {"type": "string", "maxLength": DESC_CHARS},
        "body": {"type": "string", "maxLength": BODY_CHARS},
        "why": {"type": "string", "maxLength": WHY_CHARS},
    },
    ["op", "id", "why"],
    MAX_CHANGES,
)
"""The consolidation answer, sent as `--json-schema`."""


@dataclass(frozen=True)
class Change:
    op: str
    id: str
    others: tuple[str, ...] = ()
    desc: str = ""
    body: str = ""
    why: str = ""

    def touched(self) -> tuple[str, ...]:
        """The entries this change rewrites, supersedes or deletes (refs' others are only cited)."""
        return (self.id,) if self.op in ("desc", "delete", "refs") else (self.id, *self.others)


@dataclass
class Plan:
    path: str
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What was dropped or changed on the way, one line each."""
    seen: dict[str, str] = field(default_factory=dict)
    """id -> fingerprint of each entry as shown: a change whose entry changed since is skipped."""
    chunks: int = 0
    cost_usd: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> Plan:
        """A plan read back (`--from PLAN.json`, a queued plan): every change passes the
        same checks as the model's own (`validate`: ids, limits, secrets redacted), so a
        hand-edited plan cannot write what no other path may. UserError says what is wrong."""
        if not isinstance(data, dict) or not isinstance(data.get("changes"), list):
            raise UserError('a plan is a JSON object with "path", "changes" and "seen"')
        seen = data.get("seen", {})
        if not isinstance(seen, dict) or not all(isinstance(v, str) for v in seen.values()):
            raise UserError('the plan\'s "seen" is not an object of id -> fingerprint')
        changes, notes = [], [str(n) for n in data.get("notes", []) if isinstance(n, str)]
        for n, raw in enumerate(data["changes"], 1):
            try:
                change, mended = validate(raw, seen)
            except UserError as exc:
                raise UserError(f"change {n} of the plan is refused: {exc}") from None
            changes.append(change)
            notes += [f"change {n}: {m}" for m in mended]
        try:
            return cls(
                str(data["path"]),
                changes,
                notes,
                dict(seen),
                int(data.get("chunks", 0)),
                float(data.get("cost_usd", 0.0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise UserError(f"the plan is malformed ({exc}); make it again with --plan-out") from None


# -- what the model is shown --------------------------------------------------------------


def active(doc: Document) -> list[Block]:
    """The memory entries a pass looks at: `x-*` blocks with an id, not already superseded."""
    return [
        b
        for b in doc.blocks
        if b.id and b.kind.startswith("x-") and b.attrs.get("status") != "superseded"
    ]


def fingerprint(block: Block) -> str:
    return hashlib.sha256(serialize_block(block).encode("utf-8")).hexdigest()[:16]


def _neutral(value: str) -> str:
    """Entry text cannot open or close an `<entry>`/`<entries>` tag (it is data, not markup)."""
    return value.replace("</entr", "<\\/entr").replace("<entr", "<\\entr")


def _clip(value: str, limit: int = BODY_CLIP) -> str:
    value = value.strip()
    return value if len(value) <= limit else value[:limit].rstrip() + " [...]"


def render(block: Block) -> str:
    """One entry as the model sees it: attributes in the tag, desc and body, secrets redacted."""
    attrs = block.attrs
    tag = [f'id="{block.id}"', f'kind="{block.kind}"']
    for name in ("created", "updated", "status"):
        if attrs.get(name):
            tag.append(f'{name}="{_neutral(str(attrs[name])).replace(chr(34), chr(39))}"')
    refs = parse_ids(attrs.get("refs"))
    if refs:
        tag.append(f'refs="{" ".join(refs)}"')
    desc = secrets.redact(" ".join(str(attrs.get("desc") or "").split()))
    body = secrets.redact(_clip(block.value if isinstance(block.value, str) else ""))
    return f"<entry {' '.join(tag)}>\ndesc: {_neutral(desc)}\nbody:\n{_neutral(body)}\n</entry>"


def chunks(blocks: Sequence[Block], budget_tokens: int) -> list[list[Block]]:
    """The entries in chunks of about `budget_tokens` (4 characters a token), grouped by
    kind so that duplicates, which share a kind, meet in one chunk."""
    limit = max(1, budget_tokens) * 4
    order = sorted(blocks, key=lambda b: b.kind)  # stable: document order within a kind
    out: list[list[Block]] = []
    size = limit + 1
    for block in order:
        n = len(render(block))
        if size + n > limit and (not out or out[-1]):
            out.append([])
            size = 0
        out[-1].append(block)
        size += n
    return out


def message(chunk: Sequence[Block]) -> str:
    body = "\n".join(render(b) for b in chunk)
    return f"<entries>\n{body}\n</entries>\n\nPropose the changes (often none) as the structured result."


def system_prompt() -> str:
    return PROMPT_FILE.read_text(encoding="utf-8")


# -- reading the answer -------------------------------------------------------------------


def _one_id(value: str) -> str:
    value = value.strip().lstrip("#")
    if not value or len(value) > ID_CHARS or not is_identifier(value):
        raise UserError(f"`{value[:ID_CHARS]}` is not an entry id")
    return value


def validate(raw: object, shown: Iterable[str]) -> tuple[Change, list[str]]:
    """One raw change within the schema's limits, naming only ids in `shown`, and notes on
    what was mended; UserError says why it is refused."""
    if not isinstance(raw, dict):
        raise UserError("a change is not an object")
    known = set(shown)
    notes: list[str] = []
    op = field_text(raw, "op").strip().lower()
    if op not in OPS:
        raise UserError(f"unknown op `{op[:20]}`")
    block_id = _one_id(field_text(raw, "id"))
    if block_id not in known:
        raise UserError(f"#{block_id} was not among the entries shown")
    given = raw.get("others") or []
    if not isinstance(given, list) or not all(isinstance(x, str) for x in given):
        raise UserError("`others` is not a list of ids")
    others = tuple(dict.fromkeys(_one_id(text(x)) for x in given))
    others = tuple(x for x in others if x != block_id)
    if len(others) > MAX_OTHERS:
        raise UserError(f"`others` names {len(others)} ids (at most {MAX_OTHERS})")
    unseen = [x for x in others if x not in known]
    if unseen:
        raise UserError(f"{', '.join('#' + x for x in unseen)} not among the entries shown")
    if op in ("merge", "refs") and not others:  # a lone supersede: `cut`'s spared delete
        raise UserError(f"a `{op}` names no other entry")
    desc = " ".join(field_text(raw, "desc").split())
    if len(desc) > DESC_CHARS:
        desc = desc[: DESC_CHARS - 1].rstrip() + "…"
        notes.append("desc clipped")
    body = normalize_body(field_text(raw, "body")).strip()
    if len(body) > BODY_CHARS:
        raise UserError(f"the body is {len(body)} characters (at most {BODY_CHARS})")
    if op == "desc" and not desc:
        raise UserError("a `desc` change gives no desc")
    if op != "merge":
        body = ""
        desc = desc if op == "desc" else ""
    if secrets.find(desc) or secrets.find(body):
        desc, body = secrets.redact(desc), secrets.redact(body)
        notes.append("a secret-shaped value redacted")
    why = " ".join(field_text(raw, "why").split())[:WHY_CHARS]
    return Change(op, block_id, others, desc, body, why), notes


def cut(changes: Sequence[Change], doc: Document, notes: list[str]) -> list[Change]:
    """The changes one run may make, in the model's order: each entry touched once; an entry
    that others cite superseded instead of deleted; supersedes and deletes within
    MAX_SUPERSEDED, MAX_DELETED and MAX_SHARE of the active entries. `notes` gets a line
    for each change cut."""
    blocks = active(doc)
    share = max(1, int(len(blocks) * MAX_SHARE))
    cited = {c for b in doc.blocks for c in block_citations(b) if c != b.id}
    touched: set[str] = set()
    gone = superseded = deleted = 0
    kept: list[Change] = []
    for change in changes:
        label = f"{change.op} #{change.id}"
        clash = [i for i in change.touched() if i in touched]
        if clash:
            notes.append(f"{label} dropped: {', '.join('#' + i for i in clash)} already changed")
            continue
        if change.op == "delete" and change.id in cited:
            notes.append(f"delete #{change.id} became a supersede: other entries cite it")
            change = Change("supersede", change.id, (), why=change.why)
        losing = len(change.others) if change.op in ("merge", "supersede") else 0
        losing += 1 if change.op == "supersede" and not change.others else 0
        removing = 1 if change.op == "delete" else 0
        if superseded + losing > MAX_SUPERSEDED or deleted + removing > MAX_DELETED:
            notes.append(
                f"{label} dropped: one run supersedes at most {MAX_SUPERSEDED} and deletes at most {MAX_DELETED}"
            )
            continue
        if gone + losing + removing > share:
            notes.append(
                f"{label} dropped: one run changes at most {share} of {len(blocks)} entries' status"
            )
            continue
        superseded += losing
        deleted += removing
        gone += losing + removing
        touched.update(change.touched())
        kept.append(change)
    return kept


# -- asking the model ---------------------------------------------------------------------


def propose(
    settings: Settings,
    doc: Document,
    path: Path,
    *,
    log: Callable[[str], None],
    sleep: Callable[[float], None] = time.sleep,
) -> Plan:
    """Ask the model chunk by chunk and return the plan, cut to the limits. A failed run
    raises `headless.DistillFailed`; what earlier chunks proposed is then not used."""
    from ..claude import headless

    plan = Plan(str(path))
    found: list[Change] = []
    for chunk in chunks(active(doc), settings.consolidate_chunk_tokens):
        plan.chunks += 1
        answer = headless.ask(
            settings, system_prompt(), message(chunk), SCHEMA, log=log, sleep=sleep
        )
        plan.cost_usd += answer.cost_usd or 0.0
        shown = {b.id for b in chunk if b.id}
        plan.seen.update({b.id: fingerprint(b) for b in chunk if b.id})
        if len(answer.items) > MAX_CHANGES:
            plan.notes.append(
                f"{len(answer.items)} changes in one answer: the first {MAX_CHANGES} read"
            )
        for raw in answer.items[:MAX_CHANGES]:
            try:
                change, mended = validate(raw, shown)
            except UserError as exc:
                plan.notes.append(f"a change refused: {exc}")
                continue
            plan.notes += [f"{change.op} #{change.id}: {note}" for note in mended]
            found.append(change)
    plan.changes = cut(found, doc, plan.notes)
    return plan


# -- the plan on a document ---------------------------------------------------------------


def change_document(
    doc: Document,
    plan: Plan,
    today: str,
    *,
    path: Path | None = None,
    layer: str = "project",
    project: Path | None = None,
) -> tuple[Document, list[str]]:
    """A new Document with the plan's changes (the given one is not modified) and a line
    per change made or skipped. A change is skipped when one of its entries is gone or
    differs from what the model was shown. A new desc or body passes the store's entry
    check for `layer` (`SaveRejected`: nothing is written), and a new body gets the
    `code=` record of what it cites in `path`'s repository (none without a `path`;
    `project`: the working folder of `path`'s project, None for the current one)."""
    work = Document(list(doc.blocks))
    blocks = work.blocks
    index = {b.id: i for i, b in enumerate(blocks) if b.id}
    said: list[str] = []
    doomed: set[str] = set()
    where = path if path is not None else plan.path

    def edit(block_id: str, **attrs: str) -> None:
        write.set_attrs(work, block_id, **attrs)

    for change in plan.changes:
        label = f"{change.op} #{change.id}"
        ids = (change.id, *change.others)
        stale = [
            i
            for i in ids
            if i not in index or fingerprint(doc.blocks[index[i]]) != plan.seen.get(i)
        ]
        if stale:
            said.append(
                f"skipped {label}: {', '.join('#' + i for i in stale)} changed since the plan was made"
            )
            continue
        keeper = blocks[index[change.id]]
        if change.op in ("merge", "supersede") and change.others:
            write.mark_superseded(work, change.others, today)
            sup = parse_ids(keeper.attrs.get("supersedes"))
            edit(
                change.id,
                supersedes=format_ids(dict.fromkeys((*sup, *change.others))),
                updated=today,
            )
            if change.desc or change.body:
                b = blocks[index[change.id]]
                body = change.body if change.body and b.content_type == FENCED else str(b.value)
                checked = write.check_entry(
                    b.kind, b.id or "", body, file=where, layer=layer, desc=change.desc or None
                )
                if change.desc:
                    edit(change.id, desc=checked.desc or "")
                if change.body and b.content_type == FENCED:
                    desc = checked.desc or str_attr(b.attrs, "desc")
                    code = (
                        write.code_record(path, layer, desc, checked.body, project) if path else ""
                    )
                    write.replace_body(work, change.id, checked.body, code=code)
            others = ", ".join("#" + i for i in change.others)
            if change.op == "merge":
                said.append(f"merged {others} into #{change.id}")
            else:
                said.append(f"#{change.id} supersedes {others}")
        elif change.op == "supersede":  # a delete of a cited entry, turned into this by `cut`
            write.mark_superseded(work, [change.id], today)
            said.append(f"superseded #{change.id} instead of deleting it: it is cited")
        elif change.op == "desc":
            b = blocks[index[change.id]]
            checked = write.check_entry(
                b.kind, b.id or "", "", file=where, layer=layer, desc=change.desc
            )
            edit(change.id, desc=checked.desc or "", updated=today)
            said.append(f"new desc for #{change.id}")
        elif change.op == "refs":
            refs = parse_ids(keeper.attrs.get("refs"))
            edit(change.id, refs=format_ids(dict.fromkeys((*refs, *change.others))))
            said.append(f"#{change.id} now cites {', '.join('#' + i for i in change.others)}")
        elif change.op == "delete":
            doomed.add(change.id)
    # Deletes last, against the document as changed: an entry that anything left cites
    # (refs added above, a merged body's #id, an edit made since the plan) is superseded.
    spared = True
    while spared:  # sparing one may make another cited: repeat until none is
        spared = False
        for block_id in [i for i in index if i in doomed]:
            if any(cites(b, block_id) for b in blocks if b.id not in doomed):
                doomed.discard(block_id)
                write.mark_superseded(work, [block_id], today)
                said.append(f"superseded #{block_id} instead of deleting it: it is cited")
                spared = True
    said += [f"deleted #{i}" for i in index if i in doomed]
    return Document([b for b in blocks if b.id not in doomed]), said


def diff(before: Document, after: Document) -> str:
    """Each changed entry as a unified diff of its AGD text, in the order of the file."""
    new = {b.id: b for b in after.blocks if b.id}
    out: list[str] = []
    for block in before.blocks:
        if not block.id:
            continue
        old_text = serialize_block(block)
        new_text = serialize_block(new[block.id]) if block.id in new else ""
        if old_text == new_text:
            continue
        out += difflib.unified_diff(
            old_text.splitlines(),
            new_text.splitlines(),
            f"#{block.id}",
            f"#{block.id}" if new_text else "(deleted)",
            lineterm="",
        )
    return "\n".join(out)


def apply(mf: MemoryFile, plan: Plan, today: str) -> tuple[list[str], Path | None]:
    """Write the plan into `mf` in one locked atomic write with a `.bak`, on the file as it
    is now; returns the lines of `change_document` and the backup."""

    def change(doc: Document) -> list[str]:
        new, said = change_document(
            doc, plan, today, path=mf.path, layer=mf.layer, project=mf.project
        )
        doc.blocks[:] = new.blocks
        return said

    # a committed team file's history is git's: no `.bak` left untracked in the repository
    return mf.edit_document(change, str(mf.path), create=False, backup=mf.layer != "team")


# -- running by itself --------------------------------------------------------------------


def _state_path(settings: Settings) -> Path:
    return settings.data_dir / "distill" / STATE_FILE


def _read_state(settings: Settings) -> dict:
    from .state import read_json

    return read_json(_state_path(settings)) or {}


def due(settings: Settings, path: Path, count: int, now: float) -> str | None:
    """Why an automatic pass over `path` (with `count` entries now) should not run yet, or
    None when it is due: at most once per AGD_CONSOLIDATE_EVERY_DAYS, and only after
    AGD_CONSOLIDATE_MIN_NEW entries more than at the last pass."""
    if settings.consolidate_every_days <= 0:
        return "automatic consolidation is off (AGD_CONSOLIDATE_EVERY_DAYS=0)"
    last = _read_state(settings).get(str(path))
    last = last if isinstance(last, dict) else {}
    at, seen = last.get("at", 0), last.get("entries", 0)
    if not isinstance(at, (int, float)) or not isinstance(seen, int):
        at, seen = 0, 0
    if now - at < settings.consolidate_every_days * 86400:
        return f"last pass less than {settings.consolidate_every_days:g} days ago"
    if count - seen < settings.consolidate_min_new:
        return f"{max(0, count - seen)} new entries since the last pass (needs {settings.consolidate_min_new})"
    return None


def remember_run(settings: Settings, path: Path, count: int, now: float) -> None:
    from .state import write_atomic

    data = _read_state(settings)
    data[str(path)] = {"at": now, "entries": count}
    _state_path(settings).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(_state_path(settings), json.dumps(data, indent=1))


def run_scheduled(
    settings: Settings,
    mf: MemoryFile,
    *,
    log: Callable[[str], None],
    submit: Callable[[MemoryFile, Plan, Settings], list[str]],
    now: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Plan | None:
    """The distiller's worker calls this after a file's sessions: a pass over `mf` when it
    is due (`due`), its plan handed to `submit` (`review.submit_plan`: queued for review or
    written). Never raises; returns the plan made, if any."""
    from ..claude import headless

    now = time.time() if now is None else now
    try:
        if not mf.exists():
            return None
        doc = mf.document()
        count = len(active(doc))
        if settings.consolidate_every_days > 0 and str(mf.path) not in _read_state(settings):
            # a memory seen for the first time: its period starts now (no surprise bill
            # the day this feature arrives), its entries all count as new
            remember_run(settings, mf.path, 0, now)
        why_not = due(settings, mf.path, count, now)
        if why_not:
            log(f"consolidation not due: {why_not}")
            return None
        remember_run(settings, mf.path, count, now)  # a failed pass waits a period too
        plan = propose(settings, doc, mf.path, log=log, sleep=sleep)
        for line in plan.notes:
            log(f"consolidation: {line}")
        for line in submit(mf, plan, settings):
            log(f"consolidation: {line}")
        # new entries are counted from what the pass left, not from what it was shown
        remember_run(settings, mf.path, len(active(mf.document())), now)
        return plan
    except headless.DistillFailed as exc:
        log(f"consolidation: the claude run failed: {exc}")
    except (UserError, OSError) as exc:
        log(f"consolidation: {exc}")
    return None
