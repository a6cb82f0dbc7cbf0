"""The memory store: cached reads of a layer's file, and the single write path.

    mf = store.MemoryFile(layer.path, layer=layer.name, settings=settings)
    mf.entries()                      # list[Entry], document order
    mf.save("x-project", "db-choice", "We use Postgres 16.", desc="database")
    store.get([project_mf, global_mf], ["db-choice"], follow_refs=True)

The contract other modules rely on is in docs/ARCHITECTURE.md; the rules of a save
are in `rules` (validation, scaffold, lifecycle) and `memoryfile` (refs merge,
supersedes, sections, lock and atomic write).
"""

from __future__ import annotations

from .cache import clear as clear_cache
from .entry import Entry, parse_id_list
from .graph import GetResult, get
from .memoryfile import DeleteResult, MemoryFile, RenameResult, SaveResult, open_files
from .rules import SCAFFOLD, VALID_STATUS, suggest_id

__all__ = [
    "Entry",
    "MemoryFile",
    "SaveResult",
    "DeleteResult",
    "RenameResult",
    "GetResult",
    "get",
    "open_files",
    "parse_id_list",
    "suggest_id",
    "clear_cache",
    "SCAFFOLD",
    "VALID_STATUS",
]
