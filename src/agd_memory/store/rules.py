"""The rules a save must pass before anything is written (reference §4.1, §2.3, §2.4).

Every rejection is a `SaveRejected` whose message names the file, the id and the
fix, and says that nothing was written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from agd.lines import is_identifier
from agd.refs import parse_ids

from ..errors import SaveRejected, SecretRejected
from ..settings import Settings

VALID_STATUS = ("open", "done", "superseded")

# Sizes that fit a memory: a fact, its one-line description and a few search keys.
# Larger input is refused with the limit in the message (a 100,000-character id or a
# 50 MB body is a mistake or an attack, never a memory).
MAX_ID_CHARS = 128
MAX_KIND_CHARS = 64
MAX_DESC_CHARS = 1_000
MAX_BODY_CHARS = 100_000
MAX_KEYS = 48  # 12 to 24 in each of two languages (distill/keys_prompt.md)
MIN_KEYS = 12
"""An entry with fewer keys gets a keys run (the distiller's worker, the run after a save,
`agd-memory keys`), whose keys are added after the ones it has: keys written by hand or by
an earlier prompt are few, and often in one language only."""
MAX_KEY_CHARS = 48
CONVENTIONAL_KINDS = ("x-user", "x-feedback", "x-project", "x-reference")

LAYER_TITLES = {"team": "Team memory", "project": "Project memory", "global": "Global memory"}


def scaffold(layer: str = "project") -> str:
    """The file a first save creates in `layer` (§2.3): the earlier plugin's sections and
    ids, titled by the layer in English where the earlier plugin wrote "Memoria di
    sessione" (a file that has that title keeps working: the title is `#root`'s text)."""
    return SCAFFOLD.replace("Project memory", LAYER_TITLES.get(layer, "Project memory"), 1)


SCAFFOLD = (
    "@meta format=agd version=1 [#meta]\n"
    "\n"
    "@h1 Project memory [#root]\n"
    "\n"
    "@h2 User [#h-user]\n"
    "\n"
    "@h2 Feedback [#h-feedback]\n"
    "\n"
    "@h2 Project [#h-project]\n"
    "\n"
    "@h2 Reference [#h-reference]\n"
)
"""The project layer's new file (`scaffold` gives each layer's)."""


def today(settings: Settings) -> str:
    """`AGD_MEMORY_TODAY` when set, else the local date, as `YYYY-MM-DD`."""
    if settings.today:
        return settings.today
    import datetime  # imported when a save needs it: reads (every hook) do not

    return datetime.date.today().isoformat()


def suggest_id(raw: str) -> str:
    """A valid id close to `raw`: `vers.1.9.0` -> `vers-1-9-0`, `1abc` -> `x-1abc`."""
    s = re.sub(r"[^A-Za-z0-9_-]+", "-", raw).strip("-")
    if not s:
        return "x-entry"
    if not (s[0].isascii() and (s[0].isalpha() or s[0] == "_")):
        s = "x-" + s
    return s


def check_id(raw: str, where: str) -> str:
    """The id without one leading `#`; `SaveRejected` with a suggestion when invalid."""
    block_id = raw.strip()
    if block_id.startswith("#"):
        block_id = block_id[1:]
    if len(block_id) > MAX_ID_CHARS:
        raise SaveRejected(
            f"save rejected: the id `{block_id[:40]}…` for {where} has {len(block_id):,} "
            f"characters; ids are at most {MAX_ID_CHARS}: use a short name. Nothing was written."
        )
    if not is_identifier(block_id):
        raise SaveRejected(
            f"save rejected: invalid id `{raw}` for {where}: ids are ASCII letters, digits, "
            f"`_` and `-`, starting with a letter or `_`; try `{suggest_id(block_id)}`. "
            "Nothing was written."
        )
    return block_id


def check_kind(raw: str, where: str) -> str:
    """`x-<ident>`; a bare conventional name (`project`) is accepted as `x-project`."""
    kind = raw.strip().lstrip("@")
    if len(kind) > MAX_KIND_CHARS:
        raise SaveRejected(
            f"save rejected: the kind `{kind[:40]}…` for {where} has {len(kind):,} characters; "
            f"kinds are at most {MAX_KIND_CHARS}: use x-project or another short "
            "`x-<name>`. Nothing was written."
        )
    if not kind.startswith("x-") and f"x-{kind}" in CONVENTIONAL_KINDS:
        kind = f"x-{kind}"
    if not (kind.startswith("x-") and is_identifier(kind[2:])):
        raise SaveRejected(
            f"save rejected: invalid kind `{raw}` for {where}: use x-user, x-feedback, x-project, "
            "x-reference or another `x-<name>`. Nothing was written."
        )
    return kind


def normalize_desc(desc: str) -> str:
    """One line: a whitespace run around a newline becomes one space; stripped."""
    return re.sub(r"\s*[\r\n]+\s*", " ", desc).strip()


def normalize_keys(keys: Iterable[str] | str, where: str, *, allow_secrets: bool = False) -> str:
    """Search keys as stored: `keys="a, b c, d"`: lowercase, one line each, no empty
    or repeated key, at most `MAX_KEYS`; `""` or `[]` gives "" (clear). A key cannot
    hold a comma (it separates keys) and is at most `MAX_KEY_CHARS` long. Secrets are
    looked for first, in the keys as given: lowercasing hides the shape of many tokens,
    and a rejected key is quoted in the error."""
    items = keys.split(",") if isinstance(keys, str) else list(keys)
    if not all(isinstance(raw, str) for raw in items):
        raise SaveRejected(f"save rejected: the keys of {where} must be text. Nothing was written.")
    if not allow_secrets:
        check_secrets({"keys": ", ".join(items)}, where)
    out: list[str] = []
    for raw in items:
        key = " ".join(raw.split()).lower()
        if not key:
            continue
        if "," in key or len(key) > MAX_KEY_CHARS:
            raise SaveRejected(
                f"save rejected: key {key[:60]!r} of {where} is not a short term (at most "
                f"{MAX_KEY_CHARS} characters, no comma); give words or short phrases. "
                "Nothing was written."
            )
        if key not in out:
            out.append(key)
    if len(out) > MAX_KEYS:
        raise SaveRejected(
            f"save rejected: {where} has {len(out)} keys; keep the {MAX_KEYS} most useful. "
            "Nothing was written."
        )
    joined = ", ".join(out)
    check_text(joined, "keys", where)
    return joined


def key_list(keys: object) -> list[str]:
    """A stored `keys` attribute ("a, b c") as a list."""
    return [k.strip() for k in str(keys or "").split(",") if k.strip()]


def few_keys(keys: object) -> bool:
    """A stored `keys` attribute with fewer than MIN_KEYS keys (a key holds no comma, so
    counting commas is enough: the SessionStart hook asks this of every entry)."""
    text = str(keys or "").strip()
    return not text or text.count(",") + 1 < MIN_KEYS


def merge_keys(*lists: Iterable[str]) -> list[str]:
    """The keys of `lists` in order, each once, at most MAX_KEYS: the last make room."""
    return list(dict.fromkeys(k for keys in lists for k in keys))[:MAX_KEYS]


def usable_keys(candidates: Iterable[object], where: str) -> tuple[list[str], list[str]]:
    """Each candidate checked alone and written as the store writes it, without blanks or
    repeats, at most `MAX_KEYS`; and why each dropped one was dropped (not text, too long,
    a comma, or a secret, which is named, not quoted). For writers that drop a bad key
    instead of failing."""
    keys: list[str] = []
    dropped: list[str] = []
    for candidate in candidates:
        try:
            key = normalize_keys([candidate], where)  # type: ignore[list-item]  # checked there
        except SaveRejected as exc:  # this key is left out; the others are written
            dropped.append(str(exc).removeprefix("save rejected: ").removesuffix(" Nothing was written."))
            continue
        if key and key not in keys:
            keys.append(key)
    return keys[:MAX_KEYS], dropped


def normalize_body(content: str) -> str:
    """CRLF and lone CR become LF (the parser reads CRLF as LF, so the body round-trips)."""
    return content.replace("\r\n", "\n").replace("\r", "\n")


def check_size(value: str, what: str, limit: int, where: str) -> None:
    """Refuse a field longer than `limit` characters (the `MAX_*` constants)."""
    if len(value) > limit:
        raise SaveRejected(
            f"save rejected: the {what} of {where} has {len(value):,} characters; the limit is "
            f"{limit:,}: shorten it or split it into several entries. Nothing was written."
        )


def check_text(value: str, what: str, where: str) -> None:
    """Refuse text that cannot be written as UTF-8 (unpaired surrogates)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SaveRejected(
            f"save rejected: the {what} of {where} is not valid Unicode text (character "
            f"{exc.start + 1} is an unpaired surrogate). Nothing was written."
        ) from None


def check_status(status: str | None, where: str) -> str | None:
    """None keeps the old status, `""` clears it, anything else must be valid."""
    if status is None:
        return None
    s = status.strip().lower()
    if s and s not in VALID_STATUS:
        raise SaveRejected(
            f"save rejected: invalid status `{status}` for {where}: use open, done or superseded "
            "(or an empty status to clear it). Nothing was written."
        )
    return s


def id_list(values: Iterable[str] | str | None, what: str, where: str) -> list[str] | None:
    """Ids from a list or a string in the refs grammar (`agd.refs.parse_ids`: `#`
    stripped, commas or spaces between, repeats dropped), validated; None stays None."""
    if values is None:
        return None
    out = list(parse_ids(values if isinstance(values, str) else list(values)))
    for i in out:
        if len(i) > MAX_ID_CHARS:
            raise SaveRejected(
                f"save rejected: {what} of {where} names an id of {len(i):,} characters; ids "
                f"are at most {MAX_ID_CHARS}. Nothing was written."
            )
        if not is_identifier(i):
            raise SaveRejected(
                f"save rejected: {what} names an invalid id `{i}` for {where}; "
                f"try `{suggest_id(i)}`. Nothing was written."
            )
    return out


def check_secrets(
    fields: Mapping[str, str | None],
    where: str,
    *,
    fix: str = "remove it, or pass allow_secrets / --allow-secrets if it is not a secret",
) -> None:
    """Refuse when any field (`id`, `kind`, `desc`, `content`, `keys`, `refs`, ...) holds a
    secret-shaped string; the message names the field (and the line, in a body)."""
    # Imported here: compiling the detector's patterns is the costliest import of the
    # store, and readers (a hook on every prompt) never need it.
    from .. import secrets

    found = [(name, f) for name, text in fields.items() if text for f in secrets.find(text)]
    if not found:
        return
    name, first = found[0]
    if name == "content":
        name = f"content line {first.line}"
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    article = "an" if first.kind[:1].lower() in "aeiou" else "a"
    what = f"{article} {first.kind} ({first.excerpt}) in {name}{more}"
    raise SecretRejected(
        f"save rejected: {where} holds what looks like {what}; {fix}. Nothing was written.",
        what,
        field=found[0][0],
    )


def section_id(kind: str) -> str:
    """`x-project` -> `h-project`: the scaffold's heading for a kind (reference §2.3)."""
    return "h-" + kind.removeprefix("x-")


def section_title(kind: str) -> str:
    """`x-project` -> `Project`, `x-api-notes` -> `Api notes`: a new section's heading."""
    name = kind[2:].replace("-", " ").replace("_", " ").strip() or kind
    return name[:1].upper() + name[1:]


def conflict_message(path: object, text: str, *, parsed: bool = True) -> str | None:
    """The one line a reader gives for a file holding git conflict markers, else None.
    `parsed`: `text` parses as AGD, so markers inside fenced bodies are text; a file that
    does not parse counts them anywhere (`agd.conflicts`)."""
    from agd.conflicts import first_marker_line

    line = first_marker_line(text, fenced=parsed)
    if line is None:
        return None
    return (
        f"memory file {path} holds git conflict markers (line {line}); run "
        "`agd-memory team resolve` to merge them block by block"
    )
