"""Which memory files the viewer may show, each under an opaque key.

The page never sends a path: it picks a key from `/projects.json` and the server
looks that key up in a table rebuilt from the resolver on every request. A key
that is not in the table is refused, so no request parameter is ever joined to a
path (the earlier viewer validated a slug with a regex and then built a path).

Keys: the project folder's name under `<home>/.claude/projects/` for project
files, `~global` for the global layer alone, `~launch` for a file given on the
command line or resolved for the current folder that lives outside that folder.
`~` never appears in a folder name Claude Code makes, so keys cannot collide.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from ..settings import Settings

GLOBAL_KEY = "~global"
LAUNCH_KEY = "~launch"


@dataclass(frozen=True)
class Project:
    key: str
    """Opaque key the page sends back as `?project=`."""
    display: str
    """Human label: the project folder, rebuilt from Claude Code's folder name (lossy)."""
    path: Path
    """The project layer's file."""
    bytes: int
    mtime: float
    """Modification time, seconds since the epoch."""
    remote: str | None = None
    """The git remote the resolver's index maps to this file, when there is one: a name that
    says which repository this is even when the folder name is ambiguous."""
    exists: bool = True
    """False only for the current project when it has no memory yet (shown first, empty)."""

    def as_json(self) -> dict[str, object]:
        return {
            "key": self.key,
            "display": self.display,
            "path": str(self.path),
            "bytes": self.bytes,
            "mtime": self.mtime,
            "remote": self.remote,
            "exists": self.exists,
        }


def display_name(folder: str) -> str:
    """`-home-me-src-app` -> `/home/me/src/app`: Claude Code's naming turned back, lossily
    (a `-` or `.` in the real path also became `-`)."""
    return "/" + folder.lstrip("-").replace("-", "/") if folder.startswith("-") else folder


def _stat(path: Path) -> tuple[int, float] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(os.path.abspath(a)) == Path(os.path.abspath(b))


class Catalog:
    """The memory files of one viewer run: every project, the global layer, the launch file."""

    def __init__(self, settings: Settings, *, launch_file: Path | None = None) -> None:
        self.settings = settings
        layers = paths.resolve(settings)
        self.global_path: Path = layers.global_.path
        self.launch_path: Path = launch_file if launch_file is not None else layers.project.path
        # the repository's team layer, shown beside the project it was launched in
        self.team_path: Path | None = layers.team.path if layers.team is not None else None

    def projects(self) -> list[Project]:
        """Every project file that exists, newest first, plus the launch file if it is elsewhere
        (first, with `exists=False`, when it does not exist yet)."""
        found: list[Project] = []
        remotes = {
            os.path.realpath(file): remote
            for remote, file in (paths.read_index(self.settings) or {}).items()
        }
        for path in paths.list_project_files(self.settings):
            st = _stat(path)
            if st is None or _same_file(path, self.global_path):
                continue
            folder = path.parent.parent.name
            remote = remotes.get(os.path.realpath(path))
            found.append(Project(folder, display_name(folder), path, st[0], st[1], remote))
        missing = None
        if not any(_same_file(p.path, self.launch_path) for p in found) and not _same_file(
            self.launch_path, self.global_path
        ):
            st = _stat(self.launch_path)
            if st is not None:
                found.append(Project(LAUNCH_KEY, str(self.launch_path), self.launch_path, *st))
            else:
                # The current project has no memory yet: still listed (first), so the page can
                # say where its memory will be, next to the projects that have one.
                parent = self.launch_path.parent
                in_projects = (
                    parent.name == "memory"
                    and parent.parent.parent == paths.projects_dir(self.settings)
                )
                label = display_name(parent.parent.name) if in_projects else str(self.launch_path)
                missing = Project(LAUNCH_KEY, label, self.launch_path, 0, 0.0, exists=False)
        found.sort(key=lambda p: p.mtime, reverse=True)
        return [missing, *found] if missing else found

    def initial_key(self, projects: list[Project]) -> str:
        """The key shown first: the launch/current project, else the newest, else the global layer."""
        for project in projects:
            if _same_file(project.path, self.launch_path):
                return project.key
        return projects[0].key if projects else GLOBAL_KEY

    def global_json(self) -> dict[str, object]:
        st = _stat(self.global_path)
        return {
            "key": GLOBAL_KEY,
            "path": str(self.global_path),
            "exists": st is not None,
            "bytes": st[0] if st else 0,
            "mtime": st[1] if st else None,
        }

    def layers_for(self, key: str) -> list[tuple[str, Path]] | None:
        """The (layer name, file) pairs shown for `key` (team, project, global); None for an
        unknown key. The team layer (when its file exists) goes with the launch project."""
        if key == GLOBAL_KEY:
            return [("global", self.global_path)]
        if key == LAUNCH_KEY:
            # Always valid, even once the file exists and is listed under its folder's key:
            # a page opened before the first save keeps following it (live reload).
            if _same_file(self.launch_path, self.global_path):
                return [("global", self.global_path)]
            return [*self._team(), ("project", self.launch_path), ("global", self.global_path)]
        for project in self.projects():
            if project.key == key:
                team = self._team() if _same_file(project.path, self.launch_path) else []
                return [*team, ("project", project.path), ("global", self.global_path)]
        return None

    def project_folder(self, memory: Path) -> Path:
        """The working folder of the project whose memory is `memory` (`paths.project_folder`),
        so an edit records code citations against that project's repository, as a save
        there would, whichever folder the viewer runs in. When it cannot be found, the
        memory's own folder: as for a team file, the repository holding the file, if any."""
        return paths.project_folder(self.settings, memory) or memory.parent

    def _team(self) -> list[tuple[str, Path]]:
        team = self.team_path
        if team is None or _stat(team) is None or _same_file(team, self.launch_path):
            return []
        return [("team", team)]
