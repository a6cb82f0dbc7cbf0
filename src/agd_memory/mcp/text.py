"""Renderers for the MCP tools: store results in, compact text out.

Only a tool's text content reaches the model (Claude Code drops structured
content), so every result is short plain text the model reads well: one line
per entry, the layer of every block named, and, where more exists, the exact
next call to make. Renderers never compute: the store and recall code decide
what is in a result, these functions only lay it out. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for the types only: this module never imports the store at run time
    from ..history.exchanges import Exchange
    from ..recall.search import Hit
    from ..store import Entry


def entry_label(entry: Entry, *, with_layer: bool = True) -> str:
    """`#id (x-kind, layer, status, updated)`: the parts a reader needs to pick a block."""
    parts = [entry.kind]
    if with_layer:
        parts.append(entry.layer)
    if entry.status:
        parts.append(entry.status)
    date = entry.updated or entry.created
    if date:
        parts.append(str(date))
    return f"#{entry.id} ({', '.join(parts)})"


def one_line(text: str | None, limit: int = 160) -> str:
    """Collapse whitespace and cut to `limit` characters with an ellipsis."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def ids_with_near(ids: Sequence[str], suggestions: dict[str, list[str]]) -> str:
    """`#a (did you mean #b, #c?), #d`: ids not found, each with its close matches."""
    parts = []
    for block_id in ids:
        near = suggestions.get(block_id)
        hint = f" (did you mean {', '.join('#' + n for n in near)}?)" if near else ""
        parts.append(f"#{block_id}{hint}")
    return ", ".join(parts)


def ids_call(tool: str, ids: Sequence[str]) -> str:
    quoted = ", ".join(f'"{i}"' for i in ids)
    return f"{tool}(ids=[{quoted}])"


# ---------------------------------------------------------------- toc


DEFAULT_TOC_LIMIT = 50


def toc(
    entries: Sequence[Entry],
    *,
    scope: str,
    offset: int,
    limit: int,
    filters: dict[str, str] | None = None,
) -> str:
    """One page of the table of contents, with how many entries remain and how to get them."""
    filters = filters or {}
    total = len(entries)
    what = ", ".join([f"scope {scope}"] + [f"{k}={v}" for k, v in filters.items()])
    if total == 0:
        return f"memory toc ({what}): no entries match."
    if offset >= total:
        return (
            f"memory toc ({what}): {total} entries; offset {offset} is past the end. "
            f"Call agd_memory_toc(offset=0) to start over."
        )
    page = entries[offset : offset + limit]
    end = offset + len(page)
    head = f"memory toc ({what}): {total} entries{_layer_counts(entries)}"
    if offset or end < total:
        head += f", showing {offset + 1}-{end}"
    lines = [head]
    for e in page:
        lines.append(f"{entry_label(e)}: {one_line(e.desc, 140)}" if e.desc else entry_label(e))
    remaining = total - end
    if remaining > 0:
        # The follow-up call must repeat the filters, or the next page is of another list.
        args = [f"offset={end}"] + [f'{k}="{v}"' for k, v in filters.items()]
        if scope != "all":
            args.append(f'scope="{scope}"')
        if limit != DEFAULT_TOC_LIMIT:
            args.append(f"limit={limit}")
        lines.append(f"{remaining} more: agd_memory_toc({', '.join(args)})")
    lines += team_note(page)
    lines.append("Read blocks with one batched agd_memory_get(ids=[...]).")
    return "\n".join(lines)


def team_note(entries: Iterable[Entry]) -> list[str]:
    """The provenance line when team text is shown (a clone's file is a stranger's words),
    as the TOC and auto-recall say it; nothing otherwise."""
    if not any(e.layer == "team" for e in entries):
        return []
    from ..paths import TEAM_PROVENANCE

    return [f"[{TEAM_PROVENANCE}]"]


def _layer_counts(entries: Iterable[Entry]) -> str:
    counts: dict[str, int] = {}
    for e in entries:
        counts[e.layer] = counts.get(e.layer, 0) + 1
    if len(counts) < 2:
        return f" ({next(iter(counts))} layer)" if counts else ""
    return " (" + ", ".join(f"{layer} {n}" for layer, n in counts.items()) + ")"


# ---------------------------------------------------------------- search


def search(query: str, hits: Sequence[Hit], *, scope: str) -> str:
    """Ranked hits, best first: label, score, desc and the matching excerpt."""
    if not hits:
        return (
            f'search "{one_line(query, 80)}" (scope {scope}): no block matches. '
            "Try other or fewer words, or list entries with agd_memory_toc."
        )
    lines = [f'search "{one_line(query, 80)}" (scope {scope}): {len(hits)} hits, best first']
    for hit in hits:
        entry = hit.entry
        line = f"{entry_label(entry)} score {hit.score:.2f}"
        if entry.desc:
            line += f": {one_line(entry.desc, 120)}"
        excerpt = one_line(hit.excerpt, 160)
        if excerpt and excerpt not in (entry.desc or ""):
            line += f" | {excerpt}"
        lines.append(line)
    lines += team_note(h.entry for h in hits)
    lines.append(
        "Read them with one call: " + ids_call("agd_memory_get", [h.entry.id for h in hits])
    )
    return "\n".join(lines)


# ---------------------------------------------------------------- get


def block(entry: Entry, *, linked: str = "") -> str:
    """One block: label line, attribute line, fenced body (fence longer than any in the body)."""
    head = entry_label(entry, with_layer=False) + f" [{entry.layer} layer]"
    if linked:
        head += f" ({linked})"
    if entry.desc:
        head += f" {one_line(entry.desc, 300)}"
    meta = []
    if entry.created:
        meta.append(f"created {entry.created}")
    if entry.refs:
        meta.append("refs " + ", ".join(f"#{r}" for r in entry.refs))
    if entry.supersedes:
        meta.append("supersedes " + ", ".join(f"#{r}" for r in entry.supersedes))
    lines = [head]
    if meta:
        lines.append("  " + "; ".join(meta))
    body = entry.body or ""
    if body:
        fence = _fence_for(body)
        lines += [fence, body.rstrip("\n"), fence]
    return "\n".join(lines)


def _fence_for(body: str) -> str:
    longest = max(
        (
            len(line.strip())
            for line in body.split("\n")
            if line.strip() and set(line.strip()) == {"~"}
        ),
        default=0,
    )
    return "~" * max(3, longest + 1)


def get(
    entries: Sequence[Entry],
    *,
    asked: Sequence[str],
    missing: Sequence[str],
    linked: dict[str, str],
    truncated: bool,
    limit: int,
    scope: str,
    suggestions: dict[str, list[str]],
) -> str:
    """The blocks found (asked first, then linked ones), then the ids not found."""
    n_linked = sum(1 for e in entries if e.id in linked)
    head = f"{len(entries)} block{'s' if len(entries) != 1 else ''} (scope {scope}"
    head += f", {n_linked} linked)" if n_linked else ")"
    parts = [head, *team_note(entries)]
    parts += [block(e, linked=linked.get(e.id, "")) for e in entries]
    if truncated:
        parts.append(
            f"More linked blocks exist beyond limit={limit}; call again with a larger limit "
            "or get the linked ids directly."
        )
    if missing:
        parts.append(f"Not found in scope {scope}: {ids_with_near(missing, suggestions)}")
    return "\n".join(parts)


HISTORY_HIT_CHARS = 1500
"""Characters of one history hit shown by search (get shows it whole)."""


def history_label(e: Exchange) -> str:
    when = e.at.replace("T", " ").removesuffix("Z")[:16] if e.at else "no date"
    return f"#h-{e.session}-{e.n} (history, session {e.session}, {when} UTC, exchange {e.n})"


def history_search(query: str, hits: Sequence[tuple[Exchange, float]]) -> str:
    """History hits, best first: session, date, position and the exchange (clipped)."""
    head = f'search "{one_line(query, 80)}" (scope history)'
    if not hits:
        return f"{head}: no exchange of past sessions matches. Try other or fewer words."
    lines = [f"{head}: {len(hits)} exchanges of past sessions, best first"]
    for e, score in hits:
        text = e.text if len(e.text) <= HISTORY_HIT_CHARS else e.text[:HISTORY_HIT_CHARS] + " [...]"
        lines += [f"{history_label(e)} score {score:.2f}", text, ""]
    lines.append(
        'Read an exchange whole with the ones around it: agd_memory_get(id="<id>", '
        'scope="history", context=2).'
    )
    return "\n".join(lines)


def history_get(found: Sequence[Exchange], missing: Sequence[str]) -> str:
    lines: list[str] = []
    for e in found:
        lines += [history_label(e), e.text, ""]
    if missing:
        lines.append(
            f"not in the history: {', '.join('#' + m for m in missing)} "
            '(ids come from agd_memory_search with scope="history")'
        )
    return "\n".join(lines).rstrip() + "\n"
