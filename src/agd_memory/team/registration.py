"""Is the clone's merge driver registered? Cheap enough for every SessionStart.

`.gitattributes` is committed, the driver's registration (`merge.agd-memory.driver`) is
not: a fresh clone asks git for a driver it does not know, and git then merges the team
file line by line, leaving conflict markers. Nothing registers it but `team init`: a
stranger's repository must not write into the clone's git config, so SessionStart only
tells the user once (`untrusted_clone`) and `doctor` reports it
(`maintenance.checks_env.team_driver`). The registration is also the user's consent to
spend model calls on that team file (`team_file_trusted`).

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


def untrusted_clone(cwd: str | os.PathLike[str] | None) -> Path | None:
    """The root of the clone holding `cwd` when its `.gitattributes` asks for the driver but
    the user has not run `team init` in it (the registration in the clone's own config is
    that consent); else None. Reads two small files, runs no git (a FIFO at `.git/config`
    is refused, never waited on)."""
    root = paths.repo_root(Path(os.path.abspath(cwd or os.getcwd())))
    if root is None or not wants_driver(root) or registered_in_config(root):
        return None
    return root


def may_spend_on(layer: str, path: Path, settings: Settings) -> bool:
    """Model calls (keys runs) may spend the user's money on this memory file: any but a
    team file, and a team file chosen by the user (`AGD_MEMORY_TEAM_FILE`) or in a clone
    that ran `team init`."""
    if layer != "team" or settings.team_file:
        return True
    return registered_in_config(path.parent.parent)
