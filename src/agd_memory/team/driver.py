"""git's merge driver for the team file: `agd-memory merge-driver %O %A %B %P`.

git writes the ancestor (`%O`), our version (`%A`) and theirs (`%B`) to temporary files
and expects the result in `%A`, exit status 0 when merged. The merge is `agd.merge3`'s,
by block id; the result replaces `%A` atomically, so an interrupted driver leaves git
our version. A version holding conflict markers is resolved region by region first
(`markers.resolve_text`). When a version does not parse (a hand edit gone wrong, conflict markers
committed by a clone without the driver), nothing is written and the exit status is 1:
git then reports an ordinary conflict on the file, and `agd-memory team resolve` can
merge its markers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agd.atomic import write_atomic
from agd.files import read_text
from agd.merge3 import MergeResult, merge

from ..errors import MemoryFileError
from .markers import MAX_BYTES, resolve_text


def merge_versions(base: str, ours: str, theirs: str) -> MergeResult:
    """Merge the three files git hands over and write the result to `ours`. A version that
    already holds conflict markers (committed by a clone without the driver; inside a fenced
    body they even parse, as text) is first resolved region by region, as `team resolve`
    would, so the markers do not travel on and neither side's blocks are lost."""
    texts = []
    for side, path in (("base", base), ("ours", ours), ("theirs", theirs)):
        text = read_text(path, MAX_BYTES)
        texts.append(resolve_text(text, f"the {side} version").text)
    result = merge(*texts)
    from ..store.rules import conflict_message

    if conflict_message(ours, result.text) is not None:  # never a clean merge no reader takes
        raise MemoryFileError(f"the merged {ours} would still hold conflict markers")
    _warn_secrets(result, texts[1])
    try:
        write_atomic(ours, result.text)
    except OSError as exc:
        raise MemoryFileError(
            f"cannot write the merged file {ours}: {exc.strerror or exc}; git keeps the conflict"
        ) from None
    return result


def _warn_secrets(result: MergeResult, ours: str) -> None:
    """A block the merge brings in (not in our version as it is) that holds a credential:
    one warning line for git's output. The merge goes on: the teammate committed it
    already, and dropping it would lose their entry; the user decides."""
    from agd.parser import parse
    from agd.serializer import serialize_block

    from ..secrets import describe as find_secret
    from ..secrets import find as find_secrets

    try:
        mine = {serialize_block(b) for b in parse(ours).blocks}
    except Exception:
        mine = set()
    for block in result.document.blocks:
        if not block.kind.startswith("x-") or serialize_block(block) in mine:
            continue
        body = block.value if isinstance(block.value, str) else ""
        found = find_secret(body, str(block.attrs.get("desc") or ""))
        for name, value in block.attrs.items():  # any other attribute carries text too
            hits = [] if found or name == "desc" else find_secrets(str(value))
            if hits:
                found = f"{hits[0].kind} in attribute {name}"
        if found:
            print(
                f"agd-memory: warning: the merged #{block.id} holds what looks like a "
                f"credential ({found}); remove it from the team file and rotate it",
                file=sys.stderr,
            )


def merge_as_git_would(base: str, ours: str, theirs: str, name: str) -> int:
    """A file that is not AGD memory (a `* merge=agd-memory` line sends every file here):
    git's own line merge (`git merge-file`), markers and all; 0 when clean, else 1 and git
    reports an ordinary conflict."""
    labels = ["-L", f"{name} (ours)", "-L", f"{name} (base)", "-L", f"{name} (theirs)"]
    try:
        done = subprocess.run(
            ["git", "merge-file", *labels, ours, base, theirs], capture_output=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired):
        return 1
    return 0 if done.returncode == 0 else 1


def describe(result: MergeResult, name: str | os.PathLike[str]) -> list[str]:
    """The lines the driver prints for git's output: one per decision worth a look."""
    shown = Path(name).as_posix()
    return [f"agd-memory: {shown}: {note.detail}" for note in result.notes]
