"""`agd-memory keys`: search keys for entries written without them, or with few.

Recall finds an entry by the words a request shares with its id, desc and keys; an
entry written before keys existed has none, and one keyed by hand or by an earlier
prompt has few, often in one language, so a request in other words or another language
misses it. This verb asks a headless `claude -p` (the distiller's runner,
`distill/headless.py`, with its own schema) for keys, batch by batch, and adds them
after the keys each entry has with `MemoryFile.set_keys`: one locked atomic write per
file, `updated` untouched (keys help recall find a fact, they are not a change of it).

Dry run by default. `--print-prompt` shows what would be sent (to run any model by
hand) and `--from ANSWERS.json` applies a saved, reviewed answer without calling claude.
The model's answer is data: unknown ids are ignored and every key goes through the
store's rules one by one, so one bad key is dropped, never the batch.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from agd.errors import UnreadableFile
from agd.files import read_text

from .. import paths, store
from ..errors import UserError
from ..settings import Settings
from ..store import rules
from .schema import list_answer

PROMPT_FILE = Path(__file__).with_name("keys_prompt.md")
LANGUAGES_PLACEHOLDER = "LANGUAGES"
DEFAULT_BATCH = 20
BODY_CLIP = 1500
"""Characters of a body sent: enough to say what an entry is about, not a whole log."""
RESULT_FIELD = "entries"

SCHEMA = list_answer(
    RESULT_FIELD,
    {"id": {"type": "string"}, "keys": {"type": "array", "items": {"type": "string"}}},
    ["id", "keys"],
)


@dataclass
class Target:
    """One memory file and the entries of it that will be sent for keys."""

    mf: store.MemoryFile
    entries: list[store.Entry]
    found: dict[str, str] = field(default_factory=dict)
    """id -> keys as the store writes them ("a, b c"), filled from the answers."""


# -- choosing the entries ---------------------------------------------------------------


def needs_keys(entry: store.Entry, *, everything: bool = False) -> bool:
    """A memory entry, not superseded, with fewer than `rules.MIN_KEYS` keys (with
    `everything`: however many it has)."""
    if not entry.is_memory or entry.status == "superseded":
        return False
    return everything or rules.few_keys(entry.attrs.get("keys"))


def default_files(settings: Settings) -> list[Path]:
    """The current project's memory and the global one, those that exist."""
    layers = paths.resolve(settings)
    return [layer.path for layer in layers.select("all") if layer.path.is_file()]


def open_targets(
    files: Sequence[Path], settings: Settings, *, everything: bool, warn: Callable[[str], None]
) -> tuple[list[Target], int]:
    """A Target per readable file (entries that need keys); the count of files that failed."""
    targets, failed = [], 0
    global_path = paths.resolve(settings).global_.path
    for path in files:
        layer = "global" if _same(path, global_path) else "project"
        mf = store.MemoryFile(path, layer=layer, settings=settings)
        if not mf.exists():
            warn(f"{path}: no such memory file; `agd-memory where` shows the resolved ones")
            failed += 1
            continue
        try:
            entries = [e for e in mf.entries() if needs_keys(e, everything=everything)]
        except UserError as exc:
            warn(str(exc))
            failed += 1
            continue
        targets.append(Target(mf, entries))
    return targets, failed


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def batches(entries: Sequence[store.Entry], size: int) -> list[list[store.Entry]]:
    size = max(1, size)
    return [list(entries[i : i + size]) for i in range(0, len(entries), size)]


# -- the prompt -------------------------------------------------------------------------


def languages(
    entries: Iterable[store.Entry],
    settings: Settings,
    explicit: Sequence[str] | None = None,
    memory: Path | None = None,
) -> tuple[str, ...]:
    """The user's languages: `--langs`, else AGD_RECALL_LANGS when set, else English plus
    the languages the entries are written in (`entry_langs`) and those the user writes
    requests in, from the session history kept beside `memory` (`request_langs`)."""
    if explicit:
        return tuple(dict.fromkeys(explicit))
    if settings.recall_langs:
        return tuple(dict.fromkeys(settings.recall_langs))
    from ..recall.text import BUILTIN_LANGS

    found = {"en"}
    for entry in entries:
        found.update(entry_langs(f"{entry.desc or ''}\n{entry.body or ''}"))
    if memory is not None:
        found.update(request_langs(memory))
    return tuple(lang for lang in BUILTIN_LANGS if lang in found)


REQUEST_SESSIONS = 20
"""The most recent sessions of the history read for the user's languages."""
REQUEST_SHARE = 0.2
"""The share of the user's requests a language needs to count as one they write in."""


@lru_cache(maxsize=8)  # asked once per batch; the history does not change during a run
def request_langs(memory: Path) -> tuple[str, ...]:
    """The languages of the user's requests in the last REQUEST_SESSIONS sessions of the
    history kept beside `memory` (none without history). A memory written in English by
    the distiller is searched with requests in the user's own language too, and keys in
    that language are what let those requests find it."""
    from ..history import files, layout

    counts: dict[str, int] = {}
    total = 0
    for path in files.session_files(layout.folder_of(memory))[-REQUEST_SESSIONS:]:
        for exchange in files.read_file(path):
            request = exchange.text.split("\nassistant: ", 1)[0].removeprefix("user: ")
            langs = entry_langs(request)
            total += 1
            for lang in langs:
                counts[lang] = counts.get(lang, 0) + 1
    return tuple(lang for lang, n in counts.items() if n >= REQUEST_SHARE * total)


MIN_FUNCTION_WORDS = 2
"""Distinct function words an entry needs in a language to be counted as written in it."""


def entry_langs(text: str) -> tuple[str, ...]:
    """The languages a text is written in, judged by recall's function-word lists.

    Stricter than recall's `prompt_langs` (half the best language's count): entries are
    full of names that happen to be function words somewhere (`iOS` -> Portuguese `os`)
    and the Romance lists overlap (Italian prose hits Portuguese `no`, `se`), so a
    language needs `MIN_FUNCTION_WORDS` distinct words of two letters or more and three
    quarters of the best count."""
    from ..recall.text import BUILTIN_LANGS, fold, reference_tokens, stopwords

    words = {fold(w) for w in reference_tokens(text, 2)}
    hits = {lang: len(words & stopwords((lang,), None, folded=True)) for lang in BUILTIN_LANGS}
    best = max(hits.values(), default=0)
    return tuple(lang for lang, n in hits.items() if n >= MIN_FUNCTION_WORDS and n * 4 >= best * 3)


def system_prompt(langs: Sequence[str]) -> str:
    text = PROMPT_FILE.read_text(encoding="utf-8")
    return text.replace(LANGUAGES_PLACEHOLDER, ", ".join(langs))


def message(entries: Sequence[store.Entry]) -> str:
    """The user message: the batch as `<entries>`, each with its id, kind, desc and body."""
    parts = ["<entries>"]
    for e in entries:
        parts.append(f'<entry id="{e.id}" kind="{e.kind}">')
        parts.append(f"desc: {_neutral(e.desc or '')}")
        parts.append("body:")
        parts.append(_neutral(clip(e.body or "")))
        parts.append("</entry>")
    parts.append("</entries>")
    return "\n".join(parts) + "\n"


def clip(text: str, limit: int = BODY_CLIP) -> str:
    """At most `limit` characters, cut at a space when there is one near the end."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space > limit * 0.8:
        cut = cut[:space]
    return cut.rstrip() + " [...]"


def _neutral(text: str) -> str:
    """An entry's text cannot close its own `<entry>` (the entries are data, not markup)."""
    return text.replace("</entr", "<\\/entr").replace("<entr", "<\\entr")


# -- the answer -------------------------------------------------------------------------


def clean_answer(
    items: object,
    wanted: Collection[str],
    where: Callable[[str], str],
    unknown: str = "not among the entries sent",
) -> tuple[dict[str, str], list[str]]:
    """id -> stored keys for the ids in `wanted`, and notes on what was dropped.

    Unknown ids are ignored; each key is checked alone (the store's length, comma and
    secret rules), so a bad key is dropped and the others kept; an entry left with no
    usable key is skipped."""

    notes: list[str] = []
    gathered: dict[str, list[str]] = {}
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        block_id = str(item.get("id") or "").strip().lstrip("#")
        if block_id not in wanted:
            if block_id:
                notes.append(f"#{block_id}: {unknown}, ignored")
            continue
        raw = item.get("keys")
        if isinstance(raw, str):
            raw = raw.split(",")
        if not isinstance(raw, list):
            continue
        keys, dropped = rules.usable_keys(raw, where(block_id))
        notes += [f"#{block_id}: key dropped: {why}" for why in dropped]
        keep = gathered.setdefault(block_id, [])
        keep += [key for key in keys if key not in keep]
    out = {}
    for block_id, keys in gathered.items():
        if not keys:
            notes.append(f"#{block_id}: no usable keys, skipped")
            continue
        out[block_id] = ", ".join(keys[: rules.MAX_KEYS])  # an answer with more keeps the first
    return out, notes


def read_answers(path: Path) -> list[object]:
    """The entries of a saved answer: `{"entries": [...]}`, or a whole `claude -p
    --output-format json` result holding it as `structured_output`."""
    try:
        data = json.loads(read_text(path))
    except UnreadableFile as exc:
        raise UserError(f"cannot read the answers file: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise UserError(f"the answers file {path} is not JSON: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("structured_output"), dict):
        data = data["structured_output"]
    if not isinstance(data, dict) or not isinstance(data.get(RESULT_FIELD), list):
        raise UserError(
            f'the answers file {path} holds no "{RESULT_FIELD}" list; expected '
            '{"entries": [{"id": "...", "keys": ["...", ...]}, ...]}'
        )
    return data[RESULT_FIELD]


def print_prompts(
    targets: Sequence[Target], settings: Settings, langs: Sequence[str] | None, size: int
) -> None:
    for t in targets:
        groups = batches(t.entries, size)
        for n, batch in enumerate(groups, 1):
            print(f"=== {t.mf.path}: batch {n}/{len(groups)}, system prompt ===")
            print(system_prompt(languages(batch, settings, langs, t.mf.path)).rstrip("\n"))
            print(f"=== {t.mf.path}: batch {n}/{len(groups)}, message ===")
            print(message(batch), end="")


def ask_claude(
    targets: Sequence[Target],
    settings: Settings,
    langs: Sequence[str] | None,
    size: int,
    warn: Callable[[str], None],
) -> None:
    """Fill each target's `found` batch by batch; a failed run raises UserError (what
    earlier batches found stays in the targets, for the caller to report or write)."""
    from ..claude import headless
    from ..progress import Progress

    total = sum(len(batches(t.entries, size)) for t in targets)
    done, cost = 0, 0.0
    with Progress(total, label="keys") as progress:
        for t in targets:
            for batch in batches(t.entries, size):
                done += 1
                progress.step(done, t.mf.path.name)
                try:
                    notes, spent = ask_batch(t, batch, settings, langs, warn)
                except headless.DistillFailed as exc:
                    progress.close()
                    raise UserError(f"keys: the claude run failed: {exc}") from None
                cost += spent
                if notes:
                    progress.close()
                for note in notes:
                    warn(f"{t.mf.path.name} {note}")
    warn(f"{done} claude call{'s' if done != 1 else ''}, ${cost:.4f} reported")


def ask_batch(
    t: Target,
    batch: Sequence[store.Entry],
    settings: Settings,
    langs: Sequence[str] | None,
    log: Callable[[str], None],
) -> tuple[list[str], float]:
    """One claude call for `batch` (entries of `t`): the keys found go to `t.found`;
    returns the notes on what was dropped and the reported cost. Raises DistillFailed."""
    from ..claude import headless

    answer = headless.ask(
        settings,
        system_prompt(languages(batch, settings, langs, t.mf.path)),
        message(batch),
        log=log,
        schema=SCHEMA,
    )
    found, notes = clean_answer(answer.items, {e.id for e in batch}, _where(t.mf.path))
    t.found.update(found)
    return notes, answer.cost_usd or 0.0


def key_entries(
    mf: store.MemoryFile,
    entries: Sequence[store.Entry],
    settings: Settings,
    log: Callable[[str], None],
    *,
    size: int,
) -> tuple[int, Exception | None]:
    """Keys for `entries` of `mf`, one claude call per `size` of them, each batch's answer
    written at once (after each entry's own keys; queued in review mode): the
    backfill after a session and the keys run after a save (`autokeys`). Returns how many
    entries got keys and the failure that stopped it (a DistillFailed or UserError), if any."""
    from ..claude import headless

    written = 0
    for batch in batches(entries, size):
        t = Target(mf, batch)
        try:
            notes, _ = ask_batch(t, batch, settings, None, log)
            for note in notes:
                log(f"{mf.path.name} {note}")
            if t.found:
                written += len(write(mf, t.found, log=log))
        except headless.DistillFailed as exc:
            return written, exc
        except UserError as exc:  # the file changed under us, or cannot be written
            return written, exc
    return written, None


def failure(error: Exception) -> str:
    """A failure of `key_entries` in one line."""
    from ..claude import headless

    prefix = "the claude run failed: " if isinstance(error, headless.DistillFailed) else ""
    return f"{prefix}{error}"


def from_answers(
    targets: Sequence[Target], items: list[object], warn: Callable[[str], None]
) -> None:
    """Spread a saved answer over the files: an id needing keys in exactly one file gets
    them there; one in several files is skipped (name the FILE to choose)."""
    holders: dict[str, list[Target]] = {}
    for t in targets:
        for e in t.entries:
            holders.setdefault(e.id, []).append(t)
    found, notes = clean_answer(
        items,
        holders,
        lambda i: f"#{i} in the answers file",
        "not an entry that needs keys here (entries with enough keys need --all)",
    )
    for note in notes:
        warn(note)
    for block_id, keys in found.items():
        where = holders[block_id]
        if len(where) > 1:
            names = ", ".join(str(t.mf.path) for t in where)
            warn(f"#{block_id} needs keys in {names}; pass one FILE to choose. Skipped.")
            continue
        where[0].found[block_id] = keys


def report(targets: Sequence[Target], *, apply: bool, note: str = "") -> None:
    """Print each entry's keys (`#id: a, b`) and, with `apply`, write them: one
    `set_keys` per file, after the keys each entry has."""
    entries = files = 0
    for t in targets:
        if not t.found:
            continue
        print(f"{t.mf.path}:")
        order = [e.id for e in t.entries if e.id in t.found]
        for block_id in order:
            print(f"  #{block_id}: {t.found[block_id]}")
        if apply:
            written = write(t.mf, {i: t.found[i] for i in order}, log=print)
            entries += len(written)
        else:
            entries += len(order)
        files += 1
    asked = sum(len(t.entries) for t in targets)
    where = f"{files} file{'s' if files != 1 else ''}"
    if apply:
        print(f"wrote keys on {entries} of {asked} entries in {where}{note}")
    else:
        print(
            f"{entries} of {asked} entries would get keys in {where}{note} "
            "(dry run; --apply writes them)"
        )


def write(
    mf: store.MemoryFile, found: dict[str, str], *, log: Callable[[str], None]
) -> tuple[str, ...]:
    """The keys found added after those each entry has (`set_keys(after=True)`), or in
    review mode (`review.enabled`) queued for review instead, each entry's whole list:
    returns the ids written (none while they wait)."""
    from . import review

    if not review.enabled(mf.settings, mf.layer):
        return mf.set_keys(found, after=True)
    whole = {}
    for block_id, keys in found.items():
        if (e := mf.entry(block_id)) is not None:
            had = rules.key_list(e.attrs.get("keys"))
            whole[block_id] = ", ".join(rules.merge_keys(had, rules.key_list(keys)))
    found = whole
    queued = review.enqueue(mf, [review.Proposal.for_keys(found)] if found else [], source="keys")
    for item in queued.added:
        log(f"keys for {len(item.keys)} entries of {mf.path} wait for review as {item.id}")
    return ()


def _waiting_keys(mf: store.MemoryFile) -> set[str]:
    """Ids whose keys wait in the review queue (none when review is off for the layer)."""
    from . import review

    if not review.enabled(mf.settings, mf.layer):
        return set()
    return {i for item in review.pending(mf) if item.op == "keys" for i in item.keys}


def _where(path: Path) -> Callable[[str], str]:
    return lambda block_id: f"#{block_id} in {path}"
