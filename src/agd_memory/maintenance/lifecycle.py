"""What an old entry's words say about its lifecycle: a status marker, a date.

Older memories kept state in prose — a desc starting "FATTO:" or "TODO", a date
in the desc or body — before `status`, `created` and `updated` existed. These
functions read those signals; `migrate lifecycle` turns them into attributes.

Deliberate differences from the earlier `migrate_lifecycle.py` (reference §7):
- English words that also start ordinary sentences ("Open the tunnel…",
  "Done reading…", "Closed-form…") count only when written in capitals or
  followed by a separator (`:`, `-`, `]`, …) or nothing; the unambiguous
  markers (fatto, todo, wip, da fare, …) count as the first word as before.
- A body may carry the marker too, on its first line, in capitals only
  ("TODO: …", "FATTO - …"): lower-case first words of a body are prose.
- A date must be a real calendar date (2026-02-30 is not), and must not be
  glued to other digits.
"""

from __future__ import annotations

import datetime as dt
import re

DONE = "done"
OPEN = "open"

MARKERS: tuple[tuple[str, str, bool], ...] = (
    # (pattern, status, ambiguous as an ordinary first word)
    (r"fatto", DONE, False),
    (r"completato", DONE, False),
    (r"risolto", DONE, False),
    (r"done", DONE, True),
    (r"closed", DONE, True),
    (r"da\s?fare", OPEN, False),
    (r"todo", OPEN, False),
    (r"wip", OPEN, False),
    (r"in\s?corso", OPEN, False),
    (r"open", OPEN, True),
    (r"aperto", OPEN, True),
)

_LEAD = r"^\s*[\[(*]?\s*"
_SEPARATOR = re.compile(r"\s*(?:[:\-–—\])/.,!;]|$)")
_DESC_MARKERS = [
    (re.compile(_LEAD + rf"({pat})(?![\w])", re.IGNORECASE), status, ambiguous)
    for pat, status, ambiguous in MARKERS
]
_DATE = re.compile(r"(?<![0-9])(20[0-9]{2})-([0-9]{2})-([0-9]{2})(?![0-9])")


def status_from_desc(desc: str) -> str | None:
    """`done` or `open` when the desc starts with a status marker, else None."""
    for pattern, status, ambiguous in _DESC_MARKERS:
        m = pattern.match(desc)
        if m is None:
            continue
        word = m.group(1)
        if not ambiguous or word.isupper() or _SEPARATOR.match(desc, m.end()):
            return status
    return None


def status_from_body(body: str) -> str | None:
    """A marker in capitals at the start of the body's first non-blank line, else None."""
    for line in body.split("\n"):
        if line.strip():
            found = status_from_desc(line)
            if found is None:
                return None
            first_word = re.match(_LEAD + r"([^\W\d_]+)", line)
            return found if first_word and first_word.group(1).isupper() else None
    return None


def first_date(text: str) -> str | None:
    """The first real `20YY-MM-DD` date in `text`, else None."""
    for m in _DATE.finditer(text):
        try:
            dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            continue
        return m.group(0)
    return None


def is_iso_date(value: object) -> bool:
    return isinstance(value, str) and _DATE.fullmatch(value) is not None
