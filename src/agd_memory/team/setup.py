"""`agd-memory team init`: make a clone share its memory through git (idempotent).

Four things, each done only when missing, so running it again in any clone is safe:

1. `.claude/memory.agd` with the store's standard header (under the store's lock);
2. `.claude/memory.agd merge=agd-memory` in `.gitattributes` (committed: every clone
   then asks git for the driver);
3. the lock file beside it in `.git/info/exclude` (a team write takes the lock, and the
   lock file must not show up as untracked);
4. `merge.agd-memory.name` and `merge.agd-memory.driver` in the clone's own git config.

The driver command is a small launcher script in the plugin data folder, not the path
of this checkout: Claude Code installs each plugin version in a folder of its own and
removes old ones, so a path written into `.git/config` would break at the first update.
The launcher looks for `agd-memory` when git runs it: the checkout that wrote it, else
the most recently installed copy in Claude Code's plugin cache (`ls -t`: version folders
do not sort by name), else `agd-memory` on PATH. When none is
found it exits 1, which git reports as an ordinary conflict (nothing is lost). The data
folder stays put across updates, and `team init` rewrites the launcher when it differs.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import NamedTuple

from agd.atomic import write_atomic
from agd.files import read_text
from agd.lock import exclusive, locked_path, real_path

from .. import paths
from ..errors import MemoryFileError, UserError
from ..settings import Settings
from ..store.rules import scaffold
from . import DRIVER

DRIVER_TITLE = "agd-memory: merge the team memory file block by block"
LAUNCHER_NAME = "agd-memory-merge-driver"
PLUGIN_ROOT = Path(__file__).resolve().parents[3]
"""The checkout this module runs from (its `bin/agd-memory` is the launcher's first try)."""


class InitReport(NamedTuple):
    root: Path
    team_file: Path
    done: tuple[str, ...]
    """What this run changed, one line each (empty when everything was in place)."""


def init(settings: Settings, cwd: str | os.PathLike[str] | None = None) -> InitReport:
    """Set up the repository holding `cwd` (see the module docstring)."""
    team = paths.team_layer(settings, cwd)
    folder = Path(os.path.abspath(cwd or settings.project_cwd or os.getcwd()))
    root = paths.repo_root(folder)
    if root is None or team is None:
        raise UserError(
            f"{folder} is not inside a git repository; run `agd-memory team init` in a clone"
        )
    if team.refused:
        raise UserError(team.refused)
    for committed in (root / ".gitattributes",):
        if committed.is_symlink():
            raise UserError(
                f"{committed} is a symbolic link; agd-memory does not write through it (git "
                "does not read one either). Replace it with a regular file, then run "
                "`agd-memory team init` again"
            )
    try:
        relative = team.path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise UserError(
            f"the team file {team.path} (AGD_MEMORY_TEAM_FILE) is outside the repository {root}; "
            "unset it or point it inside"
        ) from None
    _check_place(team.path, root)
    done = []
    if _create_team_file(team.path):
        done.append(f"created {team.path}")
    if _add_line(root / ".gitattributes", f"{relative} merge={DRIVER}", f"merge={DRIVER}"):
        done.append(f"added `{relative} merge={DRIVER}` to {root / '.gitattributes'}")
    exclude = Path(_git(root, "rev-parse", "--git-path", "info/exclude"))
    if _add_line(root / exclude, f"/{relative}.lock"):  # `/` keeps an absolute path
        done.append(f"ignored the lock file {relative}.lock in {exclude}")
    done += register_driver(settings, root)
    return InitReport(root, team.path, tuple(done))


def register_driver(settings: Settings, root: Path) -> tuple[str, ...]:
    """The launcher and `merge.agd-memory.{name,driver}` in the clone's git config, each
    written only when missing or different; what was done."""
    done = []
    launcher = write_launcher(settings.data_dir / "bin")
    if launcher is not None:
        done.append(f"wrote the merge-driver launcher {launcher}")
    command = f"{shlex.quote(str(settings.data_dir / 'bin' / LAUNCHER_NAME))} %O %A %B %P"
    for key, value in ((f"merge.{DRIVER}.name", DRIVER_TITLE), (f"merge.{DRIVER}.driver", command)):
        if _git(root, "config", "--get", key, check=False) != value:
            _git(root, "config", key, value)
            done.append(f"set {key} in the clone's git config")
    return tuple(done)


def driver_command(root: Path) -> str:
    """The merge driver command git would run in `root` ("" when none is registered)."""
    return _git(root, "config", "--get", f"merge.{DRIVER}.driver", check=False)


def launcher_text(plugin_root: Path = PLUGIN_ROOT) -> str:
    first = shlex.quote(str(plugin_root / "bin" / "agd-memory"))
    return (
        "#!/bin/sh\n"
        "# git's merge driver for the agd-memory team file, written by `agd-memory team init`.\n"
        "# It finds agd-memory when git runs it, so a plugin update or move keeps merges working.\n"
        f'for cmd in {first} $(ls -dt "$HOME"/.claude/plugins/cache/*/agd-memory/*/bin/agd-memory'
        " 2>/dev/null); do\n"
        '    [ -x "$cmd" ] && exec "$cmd" merge-driver "$@"\n'
        "done\n"
        'command -v agd-memory >/dev/null 2>&1 && exec agd-memory merge-driver "$@"\n'
        "echo 'agd-memory merge driver: agd-memory is not installed; install the plugin and run "
        "`agd-memory team init` again' >&2\n"
        "exit 1\n"
    )


def write_launcher(folder: Path) -> Path | None:
    """The launcher in `folder`, written when missing or different; its path, or None when
    it was already there."""
    target = folder / LAUNCHER_NAME
    text = launcher_text()
    try:
        if target.is_file() and read_text(target, 64 * 1024) == text and os.access(target, os.X_OK):
            return None
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(target, text)
        os.chmod(target, 0o755)
    except OSError as exc:
        raise MemoryFileError(
            f"cannot write the merge-driver launcher {target}: {exc.strerror or exc}"
        ) from None
    return target


def _check_place(path: Path, root: Path) -> None:
    """The team file's folders must be folders and the file a file (or missing): else one
    line naming what is in the way, before anything is written."""
    again = "then run `agd-memory team init` again"
    for folder in reversed(path.parents):
        if (
            folder.is_relative_to(root)
            and folder != root
            and folder.exists()
            and not folder.is_dir()
        ):
            raise UserError(
                f"{folder} is a file, but the team memory goes in {path}; move or rename it, {again}"
            )
    if path.is_dir():
        raise UserError(
            f"{path} is a folder, but the team memory is a file; move it aside, {again}"
        )


def _create_team_file(path: Path) -> bool:
    with exclusive(locked_path(path)):
        if path.exists():
            return False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(
                real_path(path), scaffold("team")
            )  # a dangling link gets its target written
        except OSError as exc:
            raise MemoryFileError(
                f"cannot create the team file {path}: {exc.strerror or exc}; check that "
                "its folder is writable"
            ) from None
    return True


def _add_line(path: Path, line: str, marker: str | None = None) -> bool:
    """Append `line` to a text file unless it has it (or a line with its pattern and
    `marker`); False when nothing was written."""
    current = read_text(path, 1024 * 1024) if path.exists() else ""
    pattern = line.split()[0]
    for existing in current.splitlines():
        words = existing.split()
        if existing.strip() == line or (
            marker and words and words[0] == pattern and marker in words[1:]
        ):
            return False
    if current and not current.endswith("\n"):
        current += "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, current + line + "\n")
    return True


def _git(root: Path, *args: str, check: bool = True) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"cannot run git in {root}: {exc}; is git installed?") from None
    if check and done.returncode != 0:
        raise UserError(f"`git {' '.join(args)}` failed in {root}: {done.stderr.strip()}")
    return done.stdout.strip()
