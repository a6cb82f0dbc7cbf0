"""Learning the user's words from the model's own lookups.

Auto-recall finds an entry by the words a request shares with its id, desc and keys.
When it let a prompt through without the entry the answer needed and the model then
looked the entry up itself in the same turn (`agd_memory_get`, or the best hit of an
`agd_memory_search`), the user's wording is evidence of how this user names that entry.
At session end the worker (`run`, before the distiller) finds such turns in the new part
of the transcript, keeps the ones recall still misses today, asks the model with no tools
(`learn_prompt.md`, the keys schema) which of the user's words name the entry, and puts
those first in the entry's keys (`MemoryFile.set_keys(first=True)`; queued in review
mode). Only the project and global layers learn: a team file is shared with people who
did not type those words.

Every key must be made of words the user typed in one of the entry's prompts (the model
can vet and choose, not invent), at most `MAX_NEW_KEYS` per entry and session, for at
most `MAX_ENTRIES` entries per session; one model call per session that has any. The
transcript's offset for this step is kept apart from the distiller's, so a session ended
twice or resumed is read once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agd.refs import parse_ids

from ..claude import transcript
from ..settings import Settings

if TYPE_CHECKING:
    from ..paths import Layers
    from ..store import Entry, MemoryFile

PROMPT_FILE = Path(__file__).with_name("learn_prompt.md")
LOOKUP_TOOLS = ("agd_memory_get", "agd_memory_search")
MAX_ENTRIES = 10
"""Entries one session teaches at most (one model call holds them all)."""
MAX_PROMPTS = 3
"""Prompts sent per entry (the first ones of the session)."""
MAX_NEW_KEYS = 4
"""Keys one session adds to one entry: the user's words are strong evidence, but one
session's phrasing must not push out everything the entry was keyed with before."""
PROMPT_CHARS = 600
BODY_CHARS = 600
OFFSETS = "learned"
"""The folder of `distill/state` offsets for this step (the distiller's are `offsets`)."""
FIRST_HIT = re.compile(r"^#([A-Za-z_][A-Za-z0-9_-]*)", re.MULTILINE)


@dataclass
class Lookup:
    """A prompt the user typed and the memory entries the model looked up in that turn."""

    prompt: str
    ids: list[str] = field(default_factory=list)


def lookups(records: Iterable[dict]) -> list[Lookup]:
    """The turns of `records` (transcript records, in order) in which the model looked up
    memory entries, each with the user's prompt. History lookups do not count."""
    found: list[Lookup] = []
    current: Lookup | None = None
    searches: set[str] = set()
    for record in records:
        typed = [t.text for t in transcript.record_turns(record) if t.role == "user"]
        if typed:
            current = Lookup(" ".join(typed))
            found.append(current)
            continue
        if current is None:
            continue
        for part in _parts(record):
            if part.get("type") == "tool_use":
                name = str(part.get("name") or "")
                args = part.get("input") if isinstance(part.get("input"), dict) else {}
                if args.get("scope") == "history":
                    continue
                if name.endswith("agd_memory_get"):
                    many = args.get("ids") if isinstance(args.get("ids"), list) else []
                    named = [args.get("id"), *many]
                    current.ids += parse_ids([str(i) for i in named if isinstance(i, str)])
                elif name.endswith("agd_memory_search"):
                    searches.add(str(part.get("id") or ""))
            elif part.get("type") == "tool_result" and part.get("tool_use_id") in searches:
                hit = FIRST_HIT.search(_result_text(part.get("content")))
                if hit and not part.get("is_error"):
                    current.ids.append(hit.group(1))
    for lookup in found:
        lookup.ids = list(dict.fromkeys(lookup.ids))
    return [lookup for lookup in found if lookup.ids]


def _parts(record: dict) -> list[dict]:
    if record.get("isSidechain") or record.get("type") not in ("user", "assistant"):
        return []
    message = record.get("message") if isinstance(record.get("message"), dict) else {}
    content = message.get("content")
    return [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []


def _result_text(content: object) -> str:
    if isinstance(content, list):
        content = "\n".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
    text = content if isinstance(content, str) else ""
    lines = text.splitlines()
    return "\n".join(lines[1:2])  # the line after the search's header is its best hit


# -- which entries recall missed ------------------------------------------------------


@dataclass
class Lesson:
    """An entry recall missed and the prompts that needed it."""

    mf: MemoryFile
    entry: Entry
    prompts: list[str] = field(default_factory=list)


def missed(
    found: Sequence[Lookup], files: Sequence[MemoryFile], settings: Settings
) -> list[Lesson]:
    """The looked-up entries (memory, not superseded, in a layer that learns) that recall
    does not offer for the prompt today, with their prompts; at most MAX_ENTRIES."""
    from .. import recall

    where: dict[str, tuple[MemoryFile, Entry]] = {}
    for mf in files:
        if mf.layer == "team":
            continue
        for e in mf.entries():
            if e.is_memory and e.status != "superseded":
                where.setdefault(e.id, (mf, e))
    lessons: dict[str, Lesson] = {}
    for lookup in found:
        wanted = [i for i in lookup.ids if i in where]
        if not wanted:
            continue
        offered = {str(s.entry.id) for s in recall.recall(lookup.prompt, files, settings).chosen}
        for block_id in wanted:
            if block_id in offered:
                continue
            if block_id not in lessons:
                if len(lessons) >= MAX_ENTRIES:
                    continue
                lessons[block_id] = Lesson(*where[block_id])
            prompts = lessons[block_id].prompts
            if lookup.prompt not in prompts and len(prompts) < MAX_PROMPTS:
                prompts.append(lookup.prompt)
    return list(lessons.values())


# -- the model's vetting --------------------------------------------------------------


def message(lessons: Sequence[Lesson]) -> str:
    """The user message: each entry with its desc, keys, the start of its body and the
    prompts that needed it."""
    from .keys import _neutral, clip

    parts = ["<lookups>"]
    for lesson in lessons:
        e = lesson.entry
        parts.append(f'<entry id="{e.id}" kind="{e.kind}">')
        parts.append(f"desc: {_neutral(e.desc or '')}")
        parts.append(f"keys: {_neutral(str(e.attrs.get('keys') or ''))}")
        parts.append(f"body: {_neutral(clip(e.body or '', BODY_CHARS))}")
        for prompt in lesson.prompts:
            parts.append(f"request: {_neutral(clip(' '.join(prompt.split()), PROMPT_CHARS))}")
        parts.append("</entry>")
    parts.append("</lookups>")
    return "\n".join(parts) + "\n"


def words_of(text: str) -> list[str]:
    from ..recall.text import fold, reference_tokens

    return [fold(w) for w in reference_tokens(text, 1)]


def typed_keys(keys: Sequence[str], lesson: Lesson) -> list[str]:
    """The keys made only of words the user typed in the lesson's prompts, that the entry
    does not have yet; at most MAX_NEW_KEYS."""
    typed = {w for prompt in lesson.prompts for w in words_of(prompt)}
    had = {" ".join(words_of(k)) for k in str(lesson.entry.attrs.get("keys") or "").split(",")}
    out: list[str] = []
    for key in keys:
        words = words_of(key)
        norm = " ".join(words)
        if words and set(words) <= typed and norm not in had and norm not in out:
            out.append(norm)
    return out[:MAX_NEW_KEYS]


def learn(
    lessons: Sequence[Lesson], settings: Settings, log: Callable[[str], None]
) -> dict[str, list[str]]:
    """Ask the model for the user's words of each lesson and write them (in review mode:
    queue them); returns id -> keys added. Raises headless.DistillFailed."""
    from ..claude import headless
    from . import keys

    answer = headless.ask(
        settings,
        PROMPT_FILE.read_text(encoding="utf-8"),
        message(lessons),
        keys.SCHEMA,
        log=log,
    )
    by_id = {lesson.entry.id: lesson for lesson in lessons}
    found, notes = keys.clean_answer(answer.items, by_id, lambda i: f"#{i} (learned keys)")
    for note in notes:
        log(f"learned keys: {note}")
    added: dict[str, list[str]] = {}
    for block_id, stored in found.items():
        lesson = by_id[block_id]
        new = typed_keys(stored.split(","), lesson)
        if new:
            added[block_id] = new
            _write(lesson, new, log)
    return added


def _write(lesson: Lesson, new: list[str], log: Callable[[str], None]) -> None:
    from ..store import rules
    from . import review

    mf = lesson.mf
    if not review.enabled(mf.settings, mf.layer):
        mf.set_keys({lesson.entry.id: new}, first=True)
        return
    merged = rules.merge_keys(new, rules.key_list(lesson.entry.attrs.get("keys")))
    proposal = review.Proposal.for_keys({lesson.entry.id: merged}, "keys learned from your words")
    for item in review.enqueue(mf, [proposal], source="learn").added:
        log(f"learned keys for #{lesson.entry.id} wait for review as {item.id}")


# -- the worker's step ------------------------------------------------------------------


def run(
    settings: Settings,
    transcript_path: str,
    session_id: str,
    layers: Layers,
    log: Callable[[str], None],
) -> dict[str, list[str]]:
    """The worker's step for one ended session: the new part of its transcript, the
    lookups recall missed, one model call, the keys written. Never raises."""
    from . import state
    from .pipeline import layer_files

    try:
        part = transcript.records(
            transcript_path, state.start_offset(settings, transcript_path, OFFSETS)
        )
        lessons = missed(lookups(part.records), layer_files(layers, settings), settings)
        added = learn(lessons, settings, log) if lessons else {}
        state.save_offset(settings, transcript_path, part.end, session_id, OFFSETS)
    except Exception as exc:  # a failed run is tried again at the session's next end
        log(f"learned keys: not learned: {type(exc).__name__}: {exc}")
        return {}
    for block_id, new in added.items():
        log(f"learned keys: #{block_id} + {', '.join(new)}")
    return added
