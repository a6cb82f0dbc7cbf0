"""The table of contents as Claude Code's session receives it: `toc.render` with closing
lines that name this plugin's MCP tools the way Claude Code names them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..settings import Settings

if TYPE_CHECKING:
    from ..recall.engine import MemorySource

TOOL_PREFIX = "mcp__plugin_agd-memory_agd-memory__"
"""How Claude Code names this plugin's MCP tools (plugin agd-memory, server agd-memory)."""
# Factual statements, not instructions: hook text phrased as commands can trip the model's
# prompt-injection defences (Claude Code's hooks docs). With tool search on (the default)
# the MCP tools are deferred: the model sees their prefixed names and loads them first.
FETCH_LINE = (
    f"A block's full text is returned by the MCP tool {TOOL_PREFIX}agd_memory_get (ids, with "
    f"refs/backlinks); {TOOL_PREFIX}agd_memory_search finds blocks by words. When tool search "
    "defers them, ToolSearch loads them."
)
MORE_LINE = f"+{{n}} more entries, listed by {TOOL_PREFIX}agd_memory_toc"


def render(
    files: Sequence[MemorySource],
    settings: Settings,
    *,
    count: Callable[[str], int] | None = None,
) -> str:
    """What SessionStart injects (and what doctor measures against the budget); `count`
    as `toc.render`'s, its own estimate when None."""
    from .. import toc  # at call time: the hook's tests put a double in its place

    footer = {"more_line": MORE_LINE, "fetch_line": FETCH_LINE}
    return toc.render(files, settings, **footer, **({"count": count} if count else {}))
