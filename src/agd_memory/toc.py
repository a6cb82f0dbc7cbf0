"""The table of contents: what SessionStart injects, and the listing behind `agd_memory_toc`.

`render` is a renderer over `store.Entry`s: memory entries only (scaffold headings,
meta and superseded blocks left out), grouped by layer and kind, open items first,
one short line each, within a hard token budget. When the budget is too small the
open and newest entries stay and the rest are counted in a closing "+N more entries"
line. The TOC knows no client's tool names: the hook adapter passes the closing lines
that name its MCP tools (`claude/session_toc.py`). The earlier plugin injected the whole
id list unbounded and skipped the global layer (reference §13.4); this fixes both.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from .errors import UserError
from .settings import Settings
from .store import Entry

if TYPE_CHECKING:
    from .recall.front import MemorySource

KIND_ORDER = ("x-user", "x-feedback", "x-project", "x-reference")
MAX_DESC_CHARS = 90
HEADER = "# Memory (agd-memory): table of contents"
MORE_LINE = "+{n} more entries"
"""The closing line when entries are left out; a caller that can list them passes its own
(`more_line`, with `{n}`), as the hook adapter names its MCP tool."""
STALE_NOTE = "code changed"


def budget_tokens(text: str) -> int:
    """Tokens of TOC text for the budget, estimated as ceil(characters / 2.8): the one
    count SessionStart, `agd-memory toc`, the distiller and doctor all use.

    Loading the cl100k vocabulary costs 0.2-0.9 s, in every hook process, so the budget
    is estimated. TOC lines (ids, dates, short descs, the file path) run at 2.9-3.7
    characters per cl100k token on the shared corpora and a 10,000-block memory
    (benchmarks/hooks.py), so dividing by 2.8 keeps the injected TOC within the budget
    in real tokens; chars/4 would overshoot it by a quarter.
    """
    return (len(text) * 5 + 13) // 14


def render(
    files: Sequence[MemorySource],
    settings: Settings,
    *,
    more_line: str = MORE_LINE,
    fetch_line: str | None = None,
    count: Callable[[str], int] = budget_tokens,
) -> str:
    """The TOC of `files` (`MemoryFile`s, project first); "" when there is no memory.
    `more_line` (with `{n}`) closes a TOC that leaves entries out; `fetch_line`, when
    given, is its last line (how the reader gets a block's text: the hook adapter names
    its tools, the distiller has none). `count` measures text against the budget (tests
    pin it to a simple rule)."""
    entries = [e for mf in files for e in mf.entries() if _shown(e)]
    if not entries:
        return ""
    budget = max(0, settings.toc_token_budget)
    layers = []
    for mf in files:
        n = sum(1 for e in mf.entries() if e.is_memory)
        if n:
            noun = "entry" if n == 1 else "entries"
            layers.append(f"{mf.layer} layer: {mf.path} ({n} {noun})")
    head = [HEADER, "; ".join(layers)]
    if any(mf.layer == "team" for mf in files):
        from .paths import TEAM_PROVENANCE

        head.append(f"[{TEAM_PROVENANCE}]")
    from .hygiene.verdicts import stale_of  # the last code check (session start's)

    stale = stale_of((mf.path for mf in files), settings.data_dir / "cache")
    if stale:
        head.append(f"[{STALE_NOTE}]: cites code that changed since written (`agd-memory stale`)")

    def is_stale(e: Entry) -> bool:
        return bool(stale) and (str(e.path), e.id) in stale

    lines: dict[int, str] = {}  # id(entry) -> its line, made once
    if len(entries) <= budget:  # every line costs a token: more entries cannot all fit
        lines = {id(e): _line(e, is_stale(e)) for e in entries}
        text = _assemble(head, entries, set(lines), lines, more_line, fetch_line)
        if count(text) <= budget:
            return text
    footer = [more_line.format(n=len(entries))] + ([fetch_line] if fetch_line else [])
    fixed = count("\n".join(head + footer) + "\n")

    kept: set[int] = set()
    used = fixed
    groups_used: set[tuple[str, str]] = set()
    misses = 0
    for e in sorted(entries, key=_priority):
        if id(e) not in lines:
            lines[id(e)] = _line(e, is_stale(e))
        line = lines[id(e)]
        cost = count(line + "\n")
        group = (e.layer, e.kind)
        if group not in groups_used:
            cost += count(_group_title(*group) + "\n")
        if used + cost > budget:
            # Keep trying shorter lines for a while, but never count 10,000 lines that
            # cannot fit: the hook runs this on every session start.
            misses += 1
            if misses > 20 or budget - used < 8:
                break
            continue
        used += cost
        groups_used.add(group)
        kept.add(id(e))

    text = _assemble(head, entries, kept, lines, more_line, fetch_line)
    # Per-line counts can differ a little from the count of the joined text: trim until
    # the real text fits (each pass drops the lowest-priority kept entry).
    by_priority = sorted((e for e in entries if id(e) in kept), key=_priority)
    while by_priority and count(text) > budget:
        kept.discard(id(by_priority.pop()))
        text = _assemble(head, entries, kept, lines, more_line, fetch_line)
    if count(text) > budget:  # a budget smaller than the header itself
        return f"+{len(entries)} memory entries\n"
    return text


def _assemble(
    head: list[str],
    entries: list[Entry],
    kept: set[int],
    lines: dict[int, str],
    more_line: str,
    fetch_line: str | None,
) -> str:
    out = list(head)
    for (layer, kind), group in _grouped(e for e in entries if id(e) in kept):
        out.append("")
        out.append(_group_title(layer, kind))
        out.extend(lines[id(e)] for e in group)
    hidden = len(entries) - len(kept)
    out.append("")
    if hidden:
        out.append(more_line.format(n=hidden))
    if fetch_line:
        out.append(fetch_line)
    return "\n".join(out) + "\n"


def list_entries(
    files: Sequence[MemorySource],
    *,
    kind: str | None = None,
    status: str | None = None,
    since: str | None = None,
) -> list[Entry]:
    """Memory entries of `files` in file then document order, filtered.

    `kind` matches `x-project` or `project`; `status` matches exactly; `since` keeps
    entries whose `updated` (else `created`) date is on or after it, compared as dates.
    """
    want_kind = None if not kind else (kind if kind.startswith("x-") else f"x-{kind}")
    since_date = _parse_since(since)
    out = []
    for mf in files:
        for e in mf.entries():
            if not e.is_memory:
                continue
            if want_kind and e.kind != want_kind:
                continue
            if status is not None and (e.status or "") != status:
                continue
            if since_date is not None:
                d = _date(e.updated) or _date(e.created)
                if d is None or d < since_date:
                    continue
            out.append(e)
    return out


def _shown(e: Entry) -> bool:
    return e.is_memory and e.status != "superseded"


def _priority(e: Entry) -> tuple:
    """Open first, then newest, then document order (sort is stable)."""
    d = _date(e.updated) or _date(e.created) or _dt.date.min
    return (e.status != "open", -d.toordinal())


def _grouped(entries: Iterable[Entry]) -> list[tuple[tuple[str, str], list[Entry]]]:
    groups: dict[tuple[str, str], list[Entry]] = {}
    layer_order: dict[str, int] = {}
    for e in entries:
        layer_order.setdefault(e.layer, len(layer_order))
        groups.setdefault((e.layer, e.kind), []).append(e)

    def group_key(item: tuple[tuple[str, str], list[Entry]]) -> tuple:
        (layer, kind), _ = item
        rank = KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)
        return (layer_order[layer], rank, kind)

    ordered = sorted(groups.items(), key=group_key)
    return [(k, sorted(g, key=lambda e: e.status != "open")) for k, g in ordered]


def _group_title(layer: str, kind: str) -> str:
    return f"## {kind[2:]} ({layer} layer)"


def _line(e: Entry, stale: bool = False) -> str:
    desc = e.desc or _first_line(e.body)
    if len(desc) > MAX_DESC_CHARS:
        desc = desc[: MAX_DESC_CHARS - 1].rstrip() + "…"
    status = e.status if e.status in ("open", "done") else None
    notes = [s for s in (status, STALE_NOTE if stale else None, e.date) if s]
    tail = f" [{', '.join(notes)}]" if notes else ""
    return f"- #{e.id}: {desc}{tail}" if desc else f"- #{e.id}{tail}"


def _first_line(body: str) -> str:
    for line in body.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _date(text: str | None) -> _dt.date | None:
    if not text:
        return None
    try:
        return _dt.date.fromisoformat(text.strip()[:10])
    except ValueError:
        return None


def _parse_since(since: str | None) -> _dt.date | None:
    if since is None or not since.strip():
        return None
    d = _date(since)
    if d is None or len(since.strip()) != 10:
        raise UserError(f"since `{since}` is not a date; use YYYY-MM-DD, e.g. 2026-01-31")
    return d
