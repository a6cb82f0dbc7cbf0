"""Claude Code's own auto memory, read so that it can be imported into an AGD memory.

Claude Code's auto memory is a folder (`~/.claude/projects/<project>/memory/`, the folder
that holds our `memory.agd`): one Markdown file per fact with a frontmatter header, and an
index `MEMORY.md` of one line per file. The header, as Claude Code's system prompt asks
for it (2.1.3xx), is

    ---
    name: testing-conventions
    description: one-line summary, used to decide relevance during recall
    metadata:
      type: user | feedback | project | reference
    ---

with `type` at the top level in older files, and a `modified` ISO 8601 timestamp that
Claude Code records on each write. Bodies link to other facts with `[[name]]` (and older
ones with Markdown links to `other.md`).

`read_folder` turns the folder into `Fact`s (kind, id, desc, body, dates, refs) without
writing anything; the `import claude-memory` verb decides what to save. The header is a
small YAML subset (`key: value`, one nested map, quoted scalars); anything else in it is
kept out of the entry and reported, never guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agd.errors import UnreadableFile
from agd.files import read_text
from agd.lines import is_identifier
from agd.model import Document

from ..errors import UserError
from ..store import rules
from ..store.memoryfile import MemoryFile
from ..store.write import Checked, check_entry, code_record, put

INDEX = "MEMORY.md"
MAX_FACT_BYTES = 256 * 1024
"""A topic file larger than this is reported, not imported (Claude Code keeps them short)."""
MAX_FILES = 5_000
KINDS = {
    "user": "x-user",
    "feedback": "x-feedback",
    "project": "x-project",
    "reference": "x-reference",
}
DEFAULT_KIND = "x-project"

_WIKI_LINK = re.compile(r"\[\[([^\[\]\n|]+)(?:\|[^\[\]\n]*)?\]\]")
_MD_LINK = re.compile(r"\]\(([^()\s]+\.md)\)")
_INDEX_LINE = re.compile(
    r"^\s*[-*]\s*\[(?P<title>[^\]]*)\]\((?P<file>[^()\s]+\.md)\)\s*(?:[—–:-]+\s*(?P<hook>.*))?$"
)
_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})")


@dataclass
class Fact:
    """One topic file, as an AGD entry would hold it."""

    file: str
    """The topic file's name inside the folder (`testing.md`)."""
    name: str
    kind: str
    id: str
    desc: str
    body: str
    created: str | None = None
    updated: str | None = None
    links: list[str] = field(default_factory=list)
    """Names (or file stems) of the facts this one links to, in order, without repeats."""
    refs: list[str] = field(default_factory=list)
    """`links` resolved to the ids of facts in the same folder."""


@dataclass
class AutoMemory:
    folder: Path
    facts: list[Fact]
    problems: list[str]
    """One line per file that was skipped or read only in part, naming the file and why."""


def read_folder(folder: Path) -> AutoMemory:
    """Every topic file of an auto-memory folder as a `Fact`; `MEMORY.md` fills in missing descs."""
    problems: list[str] = []
    hooks = _index_hooks(folder, problems)
    facts: list[Fact] = []
    files = []
    for p in sorted(folder.glob("*.md")):
        if p.is_symlink():  # a link may lead anywhere the user can read: never followed
            problems.append(f"{p.name}: skipped: a symbolic link (copy the note in to import it)")
        elif p.name != INDEX:
            files.append(p)
    if len(files) > MAX_FILES:
        problems.append(f"{folder}: {len(files)} topic files; only the first {MAX_FILES} were read")
        files = files[:MAX_FILES]
    for path in files:
        try:
            text = read_text(path, MAX_FACT_BYTES)
        except UnreadableFile as err:
            problems.append(f"{path.name}: skipped: {err.reason}")
            continue
        fact = _fact(path.name, text, hooks.get(path.name, ""), problems)
        if fact is not None and fact.created is None:  # no `modified`: the file's own time
            fact.created = fact.updated = _mtime_date(path)
        if fact is not None:
            facts.append(fact)
    _assign_ids(facts)
    return AutoMemory(folder=folder, facts=facts, problems=problems)


def is_auto_memory(folder: Path) -> bool:
    """True when the folder holds Claude Code auto-memory files (an index or a topic file)."""
    if (folder / INDEX).is_file():
        return True
    return any(_has_frontmatter(p) for p in folder.glob("*.md"))


def _has_frontmatter(path: Path) -> bool:
    try:
        return read_text(path, MAX_FACT_BYTES).startswith("---")
    except UnreadableFile:
        return False


def _index_hooks(folder: Path, problems: list[str]) -> dict[str, str]:
    """`MEMORY.md` lines `- [Title](file.md) — hook` as {file: hook or title}."""
    path = folder / INDEX
    if not path.exists():
        return {}
    try:
        text = read_text(path, MAX_FACT_BYTES)
    except UnreadableFile as err:
        problems.append(f"{INDEX}: not read: {err.reason}")
        return {}
    hooks: dict[str, str] = {}
    for line in text.splitlines():
        m = _INDEX_LINE.match(line)
        if m:
            hooks[m["file"]] = (m["hook"] or m["title"] or "").strip()
    return hooks


def _fact(file: str, text: str, hook: str, problems: list[str]) -> Fact | None:
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    header, body, bad = split_frontmatter(text)
    for key in bad:
        problems.append(f"{file}: header line not understood, left out: {key}")
    meta = header.get("metadata")
    nested = meta if isinstance(meta, dict) else {}

    def field_of(key: str) -> str:
        value = header.get(key, nested.get(key, ""))
        return value if isinstance(value, str) else ""

    body = body.strip("\n")
    name = field_of("name") or file[: -len(".md")]
    desc = " ".join((field_of("description") or hook or _first_line(body)).split())
    if not body.strip() and not desc:
        problems.append(f"{file}: empty, skipped")
        return None
    kind = KINDS.get(field_of("type").strip().lower(), DEFAULT_KIND)
    created = _date(field_of("created")) or _date(field_of("modified"))
    updated = _date(field_of("modified")) or created
    links = _unique(
        [
            *(m.strip() for m in _WIKI_LINK.findall(body)),
            *(_stem(f) for f in _MD_LINK.findall(body)),
        ]
    )
    return Fact(
        file=file,
        name=name,
        kind=kind,
        id="",
        desc=desc,
        body=body,
        created=created,
        updated=updated,
        links=links,
    )


def split_frontmatter(text: str) -> tuple[dict[str, str | dict[str, str]], str, list[str]]:
    """(header, body, lines not understood) of a Markdown file with an optional `---` header."""
    if not text.startswith("---\n"):
        return {}, text, []
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text, []
    after = text.find("\n", end + 4)
    body = "" if after < 0 else text[after + 1 :]
    header: dict[str, str | dict[str, str]] = {}
    bad: list[str] = []
    current: dict[str, str] | None = None
    for line in text[4:end].split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indented = line[:1] in (" ", "\t")
        key, sep, value = line.strip().partition(":")
        if not sep or not key or " " in key:
            bad.append(line.strip()[:80])
            continue
        value = _scalar(value.strip())
        if indented and current is not None:
            current[key] = value
        elif not indented and value == "":
            current = {}
            header[key] = current
        elif not indented:
            current = None
            header[key] = value
        else:
            bad.append(line.strip()[:80])
    return header, body, bad


def _scalar(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value.split(" #", 1)[0].strip()


def _assign_ids(facts: list[Fact]) -> None:
    """An id per fact from its name, unique within the folder; links resolved to those ids."""
    from ..store.rules import suggest_id

    taken: set[str] = set()
    by_name: dict[str, str] = {}
    for fact in facts:
        base = fact.name if is_identifier(fact.name) else suggest_id(fact.name)
        candidate, n = base, 2
        while candidate in taken:
            candidate, n = f"{base}-{n}", n + 1
        fact.id = candidate
        taken.add(candidate)
        for alias in (fact.name, _stem(fact.file)):
            by_name.setdefault(alias.lower(), candidate)
    for fact in facts:
        fact.refs = _unique(
            by_name[link.lower()]
            for link in fact.links
            if by_name.get(link.lower(), fact.id) != fact.id
        )


def _mtime_date(path: Path) -> str | None:
    import datetime

    try:
        stamp = path.stat().st_mtime
    except OSError:
        return None
    return datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc).strftime("%Y-%m-%d")


def _date(value: str) -> str | None:
    """The YYYY-MM-DD a note's date starts with, when it is a real day not after tomorrow
    (an impossible or future date would win every merge by date)."""
    import datetime

    m = _DATE.match(value.strip())
    if not m:
        return None
    try:
        day = datetime.date.fromisoformat(m.group(1))
    except ValueError:
        return None
    tomorrow = datetime.date.today() + datetime.timedelta(days=1)
    return m.group(1) if day <= tomorrow else None


def _first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:160]
    return ""


def _stem(file: str) -> str:
    name = file.rsplit("/", 1)[-1]
    return name[: -len(".md")] if name.endswith(".md") else name


def _unique(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        if item:
            seen.setdefault(item, None)
    return list(seen)


@dataclass
class ImportPlan:
    """What importing a folder into a memory file would do, fact by fact."""

    add: list[Fact] = field(default_factory=list)
    same: list[tuple[Fact, str]] = field(default_factory=list)
    """Facts already in the memory (imported before, or the same text under another id): (fact, id)."""
    conflicts: list[tuple[Fact, str]] = field(default_factory=list)
    """Facts whose id is taken by an entry with other text: (fact, why)."""

    def lines(self) -> list[str]:
        out = [f"+ {f.kind} #{f.id}  {f.desc}  (from {f.file})" for f in self.add]
        out += [
            f"= #{f.id}  already in the memory as #{other} (from {f.file})"
            for f, other in self.same
        ]
        out += [f"! #{f.id}  {why} (from {f.file})" for f, why in self.conflicts]
        return out


def plan_import(facts: Iterable[Fact], existing: Iterable[tuple[str, str]]) -> ImportPlan:
    """Sort facts into add / already there / conflicting, given the (id, text) pairs of
    every block of the memory that has an id (headings and `@meta` too: a note named `meta`
    cannot take their id). A fact the store would refuse (a secret, a bad id) is not
    imported, on the dry run as on `--apply`.

    A fact counts as already there when an entry has its id and the same text, or the same
    text under another id (whitespace aside): so a second import adds nothing.
    """
    by_id: dict[str, str] = {}
    by_text: dict[str, str] = {}
    for entry_id, body in existing:
        by_id[entry_id] = _norm(body)
        by_text.setdefault(_norm(body), entry_id)
    plan = ImportPlan()
    for fact in facts:
        text = _norm(fact.body)
        why = checked(fact, f"#{fact.id} from {fact.file}")
        if why:
            plan.conflicts.append((fact, f"not imported: {why}"))
        elif by_text.get(text):
            plan.same.append((fact, by_text[text]))
        elif fact.id in by_id:
            plan.conflicts.append(
                (
                    fact,
                    f"the memory already has #{fact.id} with other text; kept it, rename one to import this",
                )
            )
        else:
            plan.add.append(fact)
            by_id[fact.id] = text
            by_text[text] = fact.id
    return plan


def _norm(text: str) -> str:
    return " ".join(text.split())


def checked(fact: Fact, where: str, layer: str = "project") -> str | None:
    """Why the store would refuse `fact` as an entry (a secret, a bad id, too long), or None."""
    try:
        _entry(fact, where, layer)
    except UserError as exc:
        return str(exc)
    return None


def _entry(fact: Fact, where: str, layer: str) -> Checked:
    """`fact` checked by the store's entry check; a desc made from the body's first line is
    no field of its own (a secret in it is named by its body line, not as the desc)."""
    desc = rules.normalize_desc(fact.desc)
    rules.check_size(desc, "desc", rules.MAX_DESC_CHARS, where)
    own = desc != _first_line(rules.normalize_body(fact.body))
    entry = check_entry(
        fact.kind,
        fact.id,
        fact.body,
        file=where,
        layer=layer,
        desc=desc if own else None,
        where=where,
        secret_fix="remove it from the note, then import again",
    )
    return entry._replace(desc=desc)


def import_facts(mf: MemoryFile, facts: list[Fact]) -> tuple[ImportPlan, Path | None]:
    """Add the facts the memory does not hold yet, in one write through the store's write path
    (a `.bak` of the old text kept); the plan is made again inside the lock, so a second run,
    or one racing another writer, adds nothing twice. Each fact is checked and put by the
    store's rules of a write (`store.write`: stamps, refs, the `code=` record). Returns (the
    plan applied, the `.bak`)."""
    today = rules.today(mf.settings)

    def change(doc: Document) -> ImportPlan:
        existing = [(b.id, str(b.value)) for b in doc.blocks if b.id]
        plan = plan_import(facts, existing)
        known = {f.id for f in plan.add}  # checked by the plan, like the dry run's
        for fact in reversed(plan.add):  # each goes first in its section: keep folder order
            entry = _entry(fact, f"#{fact.id} from {fact.file}", mf.layer)
            entry = entry._replace(refs=list(fact.refs))
            created = fact.created or fact.updated or today
            put(
                doc,
                entry,
                today=today,
                code=code_record(mf.path, mf.layer, entry.desc, entry.body, mf.project),
                created=created,
                updated=fact.updated or created,
                known=known,
            )
        return plan

    return mf.edit_document(change, str(mf.path), backup=True)
