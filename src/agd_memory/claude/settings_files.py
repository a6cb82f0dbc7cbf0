"""Claude Code's settings files (`settings.json`), read as Claude Code reads them.

Where they are is `Settings.claude_dir`'s decision (`paths.claude_dir`); what one holds
(`read`: bounded, FIFO safe, and a file Claude Code could not read either is a
`problem`, never an exception), and the two things agd-memory asks of one:
whether the plugin is enabled (`plugin_switches`) and which hook events run
agd-memory from hooks added by hand (`hand_added_hooks`). Nothing here writes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agd.errors import UnreadableFile
from agd.files import read_text

SETTINGS_LIMIT = 4 * 1024 * 1024
"""Bytes read of a settings file at most (they are a few KiB)."""


@dataclass(frozen=True)
class SettingsFile:
    path: Path
    data: dict[str, object]
    """The file's object; empty when there is a `problem`."""
    problem: str | None = None
    """`missing`, or why agd-memory cannot use it (`unreadable (...)`, `larger than 4 MiB,
    more than agd-memory reads`, `not JSON (...)`, `not a JSON object`); None when it was
    read."""


def read(path: Path) -> SettingsFile:
    """The settings file at `path`, or what is wrong with it."""
    if not os.path.lexists(path):
        return SettingsFile(path, {}, "missing")
    try:
        data = json.loads(read_text(path, SETTINGS_LIMIT))
    except UnreadableFile as exc:
        if exc.reason.startswith("larger than"):  # valid perhaps, but past what we read
            size = exc.reason.split(";")[0]
            return SettingsFile(path, {}, f"{size}, more than agd-memory reads")
        return SettingsFile(path, {}, f"unreadable ({exc.reason})")
    except (ValueError, RecursionError) as exc:
        return SettingsFile(path, {}, f"not JSON ({str(exc)[:200]})")
    if not isinstance(data, dict):
        return SettingsFile(path, {}, "not a JSON object")
    return SettingsFile(path, data)


def plugin_switches(data: Mapping[str, object], plugin: str) -> dict[str, object]:
    """`enabledPlugins` entries of `plugin` (`name@marketplace` -> value; True is on)."""
    enabled = data.get("enabledPlugins")
    if not isinstance(enabled, dict):
        return {}
    return {str(k): v for k, v in enabled.items() if str(k).split("@")[0] == plugin}


def hand_added_hooks(data: Mapping[str, object], needle: str) -> list[str]:
    """The hook events, sorted, whose command hooks in `data` mention `needle`."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return []
    return sorted(
        {
            str(event)
            for event, groups in hooks.items()
            if isinstance(groups, list)
            for group in groups
            if isinstance(group, dict) and isinstance(group.get("hooks"), list)
            for h in group["hooks"]
            if isinstance(h, dict) and needle in str(h.get("command", ""))
        }
    )
