"""The memory store: cached reads of a layer's file, and the single write path.

    mf = store.MemoryFile(layer.path, layer=layer.name, settings=settings)
    mf.entries()                      # list[Entry], document order
    mf.save("x-project", "db-choice", "We use Postgres 16.", desc="database")
    store.get([project_mf, global_mf], ["db-choice"], follow_refs=True)

The contract other modules rely on is in docs/ARCHITECTURE.md; the rules of a save
are in `rules` (validation, scaffold, lifecycle) and `memoryfile` (refs merge,
supersedes, sections, lock and atomic write).

Deliberate differences from the earlier plugin's write path (reference §4, §13):

- The scaffold is created inside the lock, in the same atomic write as the first
  block (it was a plain write outside the lock: two first saves could clobber).
- A body line of only `~` is accepted: the serializer sizes the fence so it reads
  back (the earlier plugin refused `~~~` lines). CRLF and lone CR become LF.
- `refs=[]` clears edges; explicit refs are used as given (known ids only), without
  body citations added; `desc=""` and `status=""` clear. Without explicit refs, body
  citations are lifted and the old refs kept, as before.
- An invalid status is refused with a message instead of silently dropped; unknown
  ids in refs/supersedes are dropped as before but reported (`SaveResult.ignored`).
- Secret-shaped content is refused unless `allow_secrets=True`.
- A kind without a section gets its own `@h2` at the end of the file (was: inserted
  after `#root`). Within a section new blocks still go first (newest first), so files
  written by both implementations look alike.
- Attributes other than the six the store manages are kept on update.
- A bare conventional kind (`project`) is read as `x-project`.
"""

from __future__ import annotations

from ..diskcache import clear as clear_cache
from .entry import Entry, parse_id_list

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
if TYPE_CHECKING:
    from .graph import GetResult, get, near_ids
    from .memoryfile import DeleteResult, MemoryFile, RenameResult, SaveResult, open_files
    from .rules import SCAFFOLD, VALID_STATUS, suggest_id

_LAZY = {
    "GetResult": "graph", "get": "graph", "near_ids": "graph",
    "DeleteResult": "memoryfile", "MemoryFile": "memoryfile", "RenameResult": "memoryfile",
    "SaveResult": "memoryfile", "open_files": "memoryfile",
    "SCAFFOLD": "rules", "VALID_STATUS": "rules", "suggest_id": "rules",
}  # fmt: skip
"""Names imported on first use: the prompt hook renders entries (`store.entry`) and
needs neither the write path nor the graph (their imports, `typing` and `difflib`
among them, cost it several milliseconds)."""


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "Entry",
    "MemoryFile",
    "SaveResult",
    "DeleteResult",
    "RenameResult",
    "GetResult",
    "get",
    "near_ids",
    "open_files",
    "parse_id_list",
    "suggest_id",
    "clear_cache",
    "SCAFFOLD",
    "VALID_STATUS",
]
