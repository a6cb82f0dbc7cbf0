"""Is the clone's merge driver registered? Cheap enough for every SessionStart.

`.gitattributes` is committed, the driver's registration (`merge.agd-memory.driver`) is
not: a fresh clone asks git for a driver it does not know, and git then merges the team
file line by line, leaving conflict markers. SessionStart registers the driver silently
in that case (`ensure`) and `doctor` reports it (`maintenance.checks_env.team_driver`).

The check costs nothing in a repository without a team layer: one failed open of
`.gitattributes` (or one read of it when it exists and lacks the line). `.git/config` is
read only when the line is there; git itself runs only when the driver looks missing.
Standard library only, no subprocess on the common path.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from agd import files
from agd.errors import UnreadableFile

from .. import paths
from ..settings import Settings
from . import DRIVER

MAX_BYTES = 1024 * 1024
_SECTION = re.compile(r'^\s*\[\s*merge\s+"agd-memory"\s*\]', re.IGNORECASE)
_DRIVER_KEY = re.compile(r"^\s*driver\s*=", re.IGNORECASE)


def _read(path: Path) -> str | None:
    """The text of a regular file of at most `MAX_BYTES` (`agd.files`: a FIFO is refused,
    never waited on), else None."""
    try:
        return files.read_bytes(path, MAX_BYTES).decode("utf-8", "replace")
    except UnreadableFile:
        return None


def wants_driver(root: Path) -> bool:
    """`.gitattributes` at `root` sends a file to the `agd-memory` merge driver."""
    text = _read(root / ".gitattributes")
    if not text or f"merge={DRIVER}" not in text:
        return False
    return any(f"merge={DRIVER}" in line.split()[1:] for line in text.splitlines() if line.strip())


def config_file(root: Path) -> Path:
    """The clone's own git config: in the repository's common git folder (`paths.git_dirs`),
    which a linked worktree shares."""
    dirs = paths.git_dirs(root)
    return (dirs[1] if dirs else root / ".git") / "config"


def registered_in_config(root: Path) -> bool:
    """`.git/config` has `[merge "agd-memory"]` with a `driver` (a driver registered in the
    user's global config is found by `git config`, which `ensure` asks before writing)."""
    text = _read(config_file(root)) or ""
    inside = False
    for line in text.splitlines():
        if line.lstrip().startswith("["):
            inside = bool(_SECTION.match(line))
        elif inside and _DRIVER_KEY.match(line):
            return True
    return False


def ensure(settings: Settings, cwd: str | os.PathLike[str] | None) -> tuple[str, ...]:
    """Register the merge driver when `.gitattributes` asks for it and the clone lacks it;
    what was done (empty almost always). Raises what `setup` raises (the hook fails open)."""
    root = paths.repo_root(Path(os.path.abspath(cwd or os.getcwd())))
    if root is None or not wants_driver(root) or registered_in_config(root):
        return ()
    from . import setup  # subprocess and the store: only for a clone that needs it

    if setup.driver_command(root):  # registered globally or in an included file
        return ()
    return setup.register_driver(settings, root)
