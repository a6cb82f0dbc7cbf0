"""`agd-memory repair`: keep every block of a broken memory file that still parses.

What does not parse goes whole to a side file in the data folder (`repair/`, private),
written before the memory file; the memory file is rewritten through the store's
transaction (its lock, its `.bak` of the broken text). A dry run unless `--apply`. On
the team layer only after `team init` in the clone: the file is the repository's.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from .. import paths
from ..errors import UserError
from ..settings import Settings
from ..store import MemoryFile
from ..store.salvage import salvage
from .args import verb_parser


def repair(argv: list[str]) -> int:
    p = verb_parser(
        "repair",
        "Keep every block of a memory file that does not parse; set the rest aside in the data "
        "folder. A dry run unless --apply.",
        "agd-memory repair --scope project --apply",
    )
    p.add_argument(
        "--scope",
        default="project",
        choices=list(paths.WRITE_SCOPES),
        help="layer (default project)",
    )
    p.add_argument("--cwd", help="project folder (default: the current folder)")
    p.add_argument("--apply", action="store_true", help="write the repaired file")
    args = p.parse_args(argv)
    settings = Settings.load()
    layer = paths.resolve(settings, cwd=args.cwd).select(args.scope)[0]
    if layer.name == "team" and not settings.team_file:
        _require_team_init(layer.path)
    mf = MemoryFile(layer.path, layer=layer.name, settings=settings)
    if not mf.exists():
        raise UserError(f"memory file {mf.path} does not exist; nothing to repair")
    try:
        mf.document()
    except UserError as exc:
        if getattr(exc, "reason", None) != "parse":
            raise
    else:
        print(f"{mf.path} parses; nothing to repair")
        return 0
    if not args.apply:
        found = salvage(_read(mf))
        _report(mf, found)
        print(f"dry run: nothing was written; run again with --apply to write {mf.path}")
        return 0

    side: list[Path] = []

    def compute(raw: str) -> tuple[str | None, object]:
        found = salvage(raw)
        if not found.set_aside:
            raise UserError(
                f"{mf.path}: every block parses on its own, but not the file as a whole (an id "
                f"twice?); fix it by hand (`agd validate {mf.path}` shows the line)"
            )
        side.append(_write_side_file(settings.data_dir, mf.path, found.set_aside))
        return found.kept, found

    found, bak = mf.rewrite(compute, backup=True)
    _report(mf, found)
    print(
        f"repaired {mf.path}: kept {found.kept_blocks} blocks; set aside "
        f"{len(found.set_aside)} in {side[0]}; the broken text is in {bak}"
    )
    return 0


def _require_team_init(team_file: Path) -> None:
    from ..team import registration

    root = team_file.parent.parent
    if not registration.registered_in_config(root):
        raise UserError(
            f"{team_file} is the repository's committed team memory, and this clone is not set up "
            "for it; run /agd-memory:team-init (in a shell: `agd-memory team init`) first, or "
            "fix the file by hand and commit it. Nothing was written."
        )


def _read(mf: MemoryFile) -> str:
    from agd import files

    return files.read_text(mf.path, files.DEFAULT_LIMIT)


def _report(mf: MemoryFile, found) -> None:  # noqa: ANN001 - store.salvage.Salvage
    for line, text in found.set_aside:
        first = text.splitlines()[0][:100] if text.strip() else "(blank)"
        print(f"! line {line}: does not parse, set aside: {first}")
    print(f"{mf.path}: {found.kept_blocks} blocks parse, {len(found.set_aside)} pieces do not")


def _write_side_file(data_dir: Path, path: Path, pieces: tuple[tuple[int, str], ...]) -> Path:
    """The pieces that do not parse, with the line each started on, in a private file."""
    folder = data_dir / "repair"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    side = folder / f"{path.stem}-{stamp}-{os.getpid()}.set-aside.txt"
    text = "".join(
        f"# {path} line {line}: did not parse; fix it and save it again\n{piece.rstrip()}\n\n"
        for line, piece in pieces
    )
    fd = os.open(side, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    return side
