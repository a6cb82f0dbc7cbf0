"""Claude Code's auto memory: is it on for a project, and switching it off with consent.

Claude Code reads `autoMemoryEnabled` from every settings scope, the first that sets it
winning: managed policy, then the project's `.claude/settings.local.json` (personal),
then its `.claude/settings.json` (shared), then the user's `settings.json` in the
config folder (`CLAUDE_CONFIG_DIR`, else `~/.claude`). `CLAUDE_CODE_DISABLE_AUTO_MEMORY=1`
turns it off over all of them. Without any of these it is on.

`plan_off` says what switching it off in one scope changes (the file, the key, whether
a scope above still wins); `apply` writes it: the settings file re-read, every other key
kept, the old text in `<file>.bak`, the new one written atomically (a symlinked file stays
a link). A settings file that is not a JSON object is refused, never rewritten.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from agd import lock
from agd.atomic import write_atomic
from agd.files import read_text

from ..errors import UserError
from ..paths import claude_dir, managed_settings
from . import settings_files

if TYPE_CHECKING:
    from ..settings import Settings

KEY = "autoMemoryEnabled"
DISABLE_ENV = "CLAUDE_CODE_DISABLE_AUTO_MEMORY"
SETUP_SCOPES = ("user", "project")
"""What `agd-memory setup --scope` offers: the user's file, or this project's personal one."""
_TRUE_WORDS = ("1", "true", "yes", "on")


def scope_files(project: Path, settings: Settings) -> list[tuple[str, Path]]:
    """(scope, settings file) in Claude Code's precedence, highest first."""
    return [
        ("managed", managed_settings()),
        ("local", project / ".claude" / "settings.local.json"),
        ("project", project / ".claude" / "settings.json"),
        ("user", claude_dir(settings) / "settings.json"),
    ]


class State(NamedTuple):
    enabled: bool
    reason: str
    """Which setting decided, one line (`autoMemoryEnabled: false in ... (user settings)`)."""


def state(project: Path, settings: Settings) -> State:
    """Whether Claude Code's auto memory is on for sessions started in `project`."""
    off = settings.claude_auto_memory_off
    if off and off.strip().lower() in _TRUE_WORDS:
        return State(False, f"{DISABLE_ENV}={off} in the environment")
    for scope, path in scope_files(project, settings):
        value = settings_files.read(path).data.get(KEY)
        if isinstance(value, bool):
            return State(value, f"{KEY}: {json.dumps(value)} in {path} ({scope} settings)")
    return State(True, "the default: no settings file sets autoMemoryEnabled")


class Change(NamedTuple):
    scope: str
    path: Path
    already: bool
    """The file already sets the key to false: nothing to write."""
    overridden_by: str | None
    """A higher scope that sets the key to true and so still wins, or None."""

    def lines(self) -> list[str]:
        if self.already:
            out = [f"{self.path} already sets {KEY}: false ({self.scope} settings)"]
        else:
            out = [f"set {KEY}: false in {self.path} ({self.scope} settings); other keys kept"]
        if self.overridden_by:
            out.append(f"but {self.overridden_by} wins over it: change that file too")
        return out


def settings_path(scope: str, project: Path, settings: Settings) -> Path:
    if scope == "user":
        return claude_dir(settings) / "settings.json"
    if scope == "project":
        return project / ".claude" / "settings.local.json"
    raise UserError(f"unknown scope `{scope}`: use user or project")


def plan_off(scope: str, project: Path, settings: Settings) -> Change:
    """What switching auto memory off in `scope` would change; reads only."""
    path = settings_path(scope, project, settings)
    data = _load(path)
    above = []
    for name, other in scope_files(project, settings):
        if other == path:
            break
        if settings_files.read(other).data.get(KEY) is True:
            above.append(f"{other} ({name} settings, {KEY}: true)")
    return Change(scope, path, data.get(KEY) is False, above[0] if above else None)


def apply(change: Change) -> Path | None:
    """Write `autoMemoryEnabled: false` into the change's file; returns the `.bak` written."""
    if change.already:
        return None
    real = lock.real_path(change.path)
    data = _load(change.path)  # again: the file may have changed since the plan
    backup = None
    if os.path.lexists(change.path):
        from agd.files import read_only

        if read_only(real):
            raise UserError(
                f"{change.path} is read-only; make it writable (chmod u+w) and run setup again, "
                f'or set "{KEY}": false in it yourself. Nothing was changed.'
            )
        backup = real.with_name(real.name + ".bak")
        mode = stat.S_IMODE(os.stat(real).st_mode)  # the copy as private as the original
        with contextlib.suppress(FileNotFoundError):
            os.chmod(backup, mode)  # an older, more open copy is narrowed first
        write_atomic(backup, read_text(change.path, settings_files.SETTINGS_LIMIT), mode=mode)
    data[KEY] = False
    real.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(real, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return backup


def _load(path: Path) -> dict[str, object]:
    found = settings_files.read(path)
    if found.problem == "missing":
        return {}
    if found.problem:
        raise UserError(
            f"{path} is {found.problem}; agd-memory does not change it: fix it, or set "
            f'"{KEY}": false in it yourself (nothing was changed)'
        )
    return dict(found.data)
