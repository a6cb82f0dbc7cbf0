"""The auto-recall header.

The blocks themselves are injected as `Entry.to_agd()`, the one AGD renderer: the same
canonical text `agd get` and `agd-memory get` print (the earlier plugin injected `agd get`
output too). Renderers never compute: they take entries already chosen and write them out.
"""

from __future__ import annotations

HEADER_PREFIX = "[agd-memory:auto-recall]"


def header(
    ids: list[str],
    stale: list[str] | None = None,
    layers: list[str] | None = None,
    earlier: list[str] | None = None,
) -> str:
    """`[agd-memory:auto-recall] 2 blocks matched this prompt (#a, #b); in the team layer:
    #a; in the project layer: #b; ...` (the layer of each, `layers[i]` for `ids[i]`: an id
    held by two layers is named in both), and which of them cite code that changed since
    they were written (ranked last), and which are only named because their text is
    earlier in the conversation (`earlier`, `named`)."""
    n = len(ids)
    noun = "block" if n == 1 else "blocks"
    listed = ", ".join(f"#{i}" for i in ids)
    by_layer: dict[str, list[str]] = {}
    for block_id, layer in zip(ids, layers or (), strict=False):
        by_layer.setdefault(layer or "unnamed", []).append(f"#{block_id}")
    where = "".join(f"; in the {layer} layer: {', '.join(b)}" for layer, b in by_layer.items())
    if "team" in by_layer:
        from ..paths import TEAM_PROVENANCE

        where += f" ({TEAM_PROVENANCE})"
    note = ""
    if stale:
        note = (
            "; " + ", ".join(f"#{i}" for i in stale) + " cite code that changed since written"
            " (ranked last; check the code before relying on them)"
        )
    if earlier:
        note += (
            "; " + ", ".join(f"#{i}" for i in earlier) + " injected earlier in this"
            " conversation and unchanged, so only named below (if the text is no longer"
            " above, after a rewind, mcp__plugin_agd-memory_agd-memory__agd_memory_get"
            " returns it)"
        )
    return (
        f"{HEADER_PREFIX} {n} {noun} matched this prompt ({listed}){where}{note}; "
        "mcp__plugin_agd-memory_agd-memory__agd_memory_search finds more"
    )


def named(entry) -> str:
    """A block whose text the conversation already holds: `#id: desc`, one line."""
    return f"#{entry.id}: {entry.desc}\n" if entry.desc else f"#{entry.id}\n"
