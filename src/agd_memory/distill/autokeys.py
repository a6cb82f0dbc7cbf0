"""Search keys soon after a write: a detached keys run for entries saved with few keys.

The distiller writes keys with the entries it saves, but an entry saved by MCP
`agd_memory_save` or `agd-memory save` without keys or with a few, edited by hand or
merged from a teammate has fewer than `rules.MIN_KEYS`, often in one language, and recall
misses it when a request uses other words. So a save that leaves an entry with few keys,
and a SessionStart that finds such entries in the store's cached entries, start one
detached worker for that memory file (`request`); its keys go after the entry's own. The
worker (`main`) runs the same tool-less headless keys pass as `agd-memory keys --apply`
(`keys.key_entries`; in review mode the keys wait in the queue) and is:

- locked: one worker per memory file (`<data>/distill/locks/<key>.keys.lock`); a
  request while one holds the lock starts nothing, the worker looks again before it ends;
- batched: it waits `SETTLE_S` first, so entries saved together go in one call;
- debounced: runs on one file start at most every `AGD_DISTILL_KEYS_EVERY_S` seconds
  (a later round waits out the rest of the interval);
- backed off: a failed run puts the next one off by the interval, doubled per failure
  in a row (capped at `BACKOFF_CAP_S`); requests meanwhile start nothing.

Its bookkeeping is `<data>/distill/keys-soon/<key>.json`; what it did goes to the
distill log, `runs.jsonl` (`agd-memory distill --status`) and the debug log. Off with
`AGD_DISTILL_DISABLED`, `AGD_DISTILL_KEYS_PER_SESSION=0` or `AGD_DISTILL_KEYS_EVERY_S=0`,
and in the distiller's own children (`AGD_DISTILL_GUARD`). The hook side never raises.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agd.lock import pid_alive

from .. import debuglog
from ..settings import Settings
from ..store.rules import few_keys
from ..team.registration import may_spend_on

if TYPE_CHECKING:
    from ..store import Entry, MemoryFile

SETTLE_S = 2.0
"""The worker's wait before its first look: saves made together are keyed together."""
MAX_PER_RUN = 100
"""Most entries one run sends (in batches of `keys.DEFAULT_BATCH`); the rest wait a round."""
MAX_ROUNDS = 3
"""Rounds of one worker (each waits out the interval): entries saved during a run."""
BACKOFF_CAP_S = 6 * 3600.0

WORKER_CODE = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from agd_memory.distill.autokeys import main; sys.exit(main(sys.argv[2:]))"
)


def off(settings: Settings) -> str | None:
    """Why no keys run starts after a write, or None when it may."""
    if settings.distill_guard:
        return "inside the distiller's child (AGD_DISTILL_GUARD)"
    if settings.distill_disabled:
        return "the distiller is off (AGD_DISTILL_DISABLED)"
    if settings.distill_keys_per_session <= 0:
        return "keys are off (AGD_DISTILL_KEYS_PER_SESSION=0)"
    if settings.distill_keys_every_s <= 0:
        return "AGD_DISTILL_KEYS_EVERY_S=0"
    return None


# -- the hook side: cheap checks, one detached spawn ---------------------------------------


def after_save(mf: MemoryFile, block_id: str) -> None:
    """Called where the CLI and MCP `save` finish: a keys run when the saved entry has few
    keys (`rules.MIN_KEYS`)."""
    try:
        if off(mf.settings) is None:
            entry = mf.entry(block_id)
            if entry is not None and _few_keys(entry):
                request(mf, f"#{entry.id} saved with few keys")
    except Exception as exc:  # fail open: the save is done
        debuglog.log(f"keys soon: after save: {type(exc).__name__}: {exc}")


def at_session_start(files: Iterable[MemoryFile], settings: Settings) -> None:
    """SessionStart: a keys run for each file whose cached entries include some with few keys
    that no run has asked for yet. No file is read and nothing starts when all have enough."""
    try:
        if off(settings) is not None:
            return
        for mf in files:
            if not may_spend_on(mf.layer, mf.path, settings):
                continue
            ids = {e.id for e in mf.entries() if _few_keys(e)}
            if ids and ids - asked(settings, mf.path):
                request(mf, f"{len(ids)} entries with few keys")
    except Exception as exc:  # fail open: the TOC still goes out
        debuglog.log(f"keys soon: session start: {type(exc).__name__}: {exc}")


def _few_keys(entry: Entry) -> bool:
    # keys first: at SessionStart nearly every entry has enough, so that decides
    return few_keys(entry.attrs.get("keys")) and entry.is_memory and entry.status != "superseded"


def request(mf: MemoryFile, why: str, *, now: float | None = None) -> bool:
    """Start the worker for `mf` unless it is off, backing off after a failure or already
    running; True when one was started."""
    settings = mf.settings
    now = time.time() if now is None else now
    st = _read_state(settings, mf.path)
    retry_at = float(st.get("retry_at") or 0)
    if now < retry_at:
        debuglog.log(
            f"keys soon: {mf.path}: {why}; the last run failed, next try in "
            f"{retry_at - now:.0f}s ({st.get('error', '')})"
        )
        return False
    if _running(_lock_path(settings, mf.path), now, settings.distill_lock_stale_s):
        debuglog.log(f"keys soon: {mf.path}: {why}; a keys run is on, it will see them")
        return False
    from .hook import spawn

    spawn(settings, WORKER_CODE, [str(mf.path), mf.layer])
    debuglog.log(f"keys soon: {mf.path}: {why}; keys run started")
    return True


# -- the worker ------------------------------------------------------------------------------


def main(argv: Sequence[str]) -> int:
    """`<python> -c ... FILE LAYER`: give keys to FILE's entries that have few."""
    try:
        settings = Settings.load()
        if off(settings) is not None or len(argv) != 2:
            return 0
        run(settings, Path(argv[0]), argv[1])
    except Exception as exc:  # detached: nobody sees a traceback, so the log must
        debuglog.log(f"keys soon worker: {type(exc).__name__}: {exc}")
        return 1
    return 0


def run(
    settings: Settings, path: Path, layer: str, *, sleep: Callable[[float], None] = time.sleep
) -> None:
    """Rounds under the file's keys lock: wait (settle, the interval since the last run),
    send the entries with few keys not asked yet, record; stop at a failure or when none are
    left, and look once more after releasing the lock (a save that saw it held)."""
    from .. import store
    from . import lockfile

    def say(message: str) -> None:
        _log(settings, f"keys soon: {path}: {message}")

    mf = store.MemoryFile(path, layer=layer, settings=settings)
    for _ in range(MAX_ROUNDS):
        try:
            lock = lockfile.acquire(
                _lock_path(settings, path), path, stale_s=settings.distill_lock_stale_s
            )
        except lockfile.Held:
            return  # its owner looks again before it ends
        try:
            last = float(_read_state(settings, path).get("last") or 0)
            sleep(max(SETTLE_S, last + settings.distill_keys_every_s - time.time()))
            if not lockfile.refresh(lock):
                return
            if not _one_round(settings, mf, say):
                return
        finally:
            lockfile.release(lock)
        if not _todo(settings, mf):
            return


def _todo(settings: Settings, mf: MemoryFile) -> list[Entry]:
    """Entries with few keys that no run asked for (asked ones are answered or queued)."""
    from . import keys

    skip = asked(settings, mf.path) | keys._waiting_keys(mf)
    return [e for e in mf.entries() if keys.needs_keys(e) and e.id not in skip]


def _one_round(settings: Settings, mf: MemoryFile, say: Callable[[str], None]) -> bool:
    """One keys run; False when it failed (the state says when to try again)."""
    from . import keys, runlog

    entries = _todo(settings, mf)[:MAX_PER_RUN]
    if not entries:
        return False
    started = time.time()
    say(f"asking keys for {len(entries)} entries: {', '.join('#' + e.id for e in entries)}")
    written, failed = keys.key_entries(mf, entries, settings, say, size=keys.DEFAULT_BATCH)
    error = None if failed is None else keys.failure(failed)
    st = _read_state(settings, mf.path)
    record: dict[str, object] = {"session_id": "", "run": "keys", "memory_file": str(mf.path)}
    if error is None:
        st.update(last=started, failures=0, retry_at=0, error="")
        st["asked"] = _still_few(mf, set(st.get("asked", ())) | {e.id for e in entries})
        detail = f"search keys: {written} of {len(entries)} entries keyed"
        record.update(outcome="keys", detail=detail)
        say(detail)
    else:
        failures = int(st.get("failures") or 0) + 1
        wait = min(BACKOFF_CAP_S, settings.distill_keys_every_s * 2 ** (failures - 1))
        st.update(last=started, failures=failures, retry_at=time.time() + wait, error=error)
        record.update(outcome="failed", detail=f"search keys: {error}")
        say(f"{error}; {written} keyed; failure {failures} in a row, next try in {wait:.0f}s")
    _write_state(settings, mf.path, st)
    runlog.record_run(settings, record)
    return error is None


# -- after a distilled session ---------------------------------------------------------------


def backfill(
    files: Sequence[MemoryFile],
    settings: Settings,
    limit: int,
    log: Callable[[str], None],
    *,
    skip: Collection[str] = (),
) -> int:
    """Keys for at most `limit` entries that have few (`keys.needs_keys`) and that no model
    was asked for (`asked`; `skip`, the entries the session's distiller just wrote, count
    as asked), project file first, one claude call per file, written at once: what the
    distiller's worker does after a distilled session, so that a memory written before keys
    gains them without anyone running `agd-memory keys`. A failed run or write is logged,
    not raised; returns how many entries got keys."""
    from ..claude import headless
    from ..errors import UserError
    from . import keys

    written, left = 0, limit
    for mf in files:
        if left <= 0:
            break
        if not may_spend_on(mf.layer, mf.path, settings):
            continue
        try:
            # in review mode, keys asked for already wait in the queue
            done = record_asked(mf, skip) | keys._waiting_keys(mf)
            entries = [e for e in mf.entries() if keys.needs_keys(e) and e.id not in done][:left]
        except UserError as exc:
            log(f"keys for older entries: {exc}")
            continue
        if not entries:
            continue
        left -= len(entries)
        keyed, error = keys.key_entries(mf, entries, settings, log, size=len(entries))
        written += keyed
        if error is None:
            record_asked(mf, [e.id for e in entries])
            continue
        log(f"keys for older entries: {keys.failure(error)}")
        if isinstance(error, headless.DistillFailed):
            break
    return written


# -- bookkeeping -------------------------------------------------------------------------------


def asked(settings: Settings, memory: Path) -> set[str]:
    """Ids a keys run was asked for that still have few keys: no run asks for them again
    (a model that answered with few keys would answer the same)."""
    return set(_read_state(settings, memory).get("asked", ()))


def record_asked(mf: MemoryFile, ids: Iterable[str]) -> set[str]:
    """Add `ids` to the file's asked ids (`backfill`: the entries the distiller just wrote
    with their keys, and those its keys run sent); returns them all."""
    st = _read_state(mf.settings, mf.path)
    had = list(st.get("asked", ()))
    st["asked"] = _still_few(mf, set(had) | set(ids))
    if st["asked"] != sorted(had):
        _write_state(mf.settings, mf.path, st)
    return set(st["asked"])


def _still_few(mf: MemoryFile, ids: set[str]) -> list[str]:
    return sorted(ids & {e.id for e in mf.entries() if _few_keys(e)})


def _lock_path(settings: Settings, memory: Path) -> Path:
    return settings.data_dir / "distill" / "locks" / f"{_key(memory)}.keys.lock"


def state_path(settings: Settings, memory: Path) -> Path:
    return settings.data_dir / "distill" / "keys-soon" / f"{_key(memory)}.json"


def _key(memory: Path) -> str:
    """The memory file's name in the bookkeeping: not `lockfile.lock_key`, whose hashlib and
    dataclasses imports would cost every SessionStart that finds entries with few keys."""
    from .queuefile import _fnv1a

    real = os.path.realpath(os.path.expanduser(str(memory)))
    return f"{_fnv1a(real.encode('utf-8', 'surrogateescape')):016x}"


def _running(lock: Path, now: float, stale_s: float) -> bool:
    """A live worker holds `lock` and it is not stale (`lockfile.examine`'s rule, read here
    without importing lockfile)."""
    from .state import read_json

    owner = read_json(lock) or {}
    try:
        pid, started = int(owner["pid"]), float(owner["started"])
    except (ValueError, KeyError, TypeError):
        return False
    if now - started > stale_s or pid <= 0:
        return False
    return pid_alive(pid)


def _read_state(settings: Settings, memory: Path) -> dict[str, Any]:
    from .state import read_json

    return read_json(state_path(settings, memory)) or {}


def _write_state(settings: Settings, memory: Path, st: dict[str, Any]) -> None:
    path = state_path(settings, memory)
    path.parent.mkdir(parents=True, exist_ok=True)
    import json

    from .state import write_atomic

    write_atomic(path, json.dumps({**st, "memory": str(memory)}) + "\n")


def _log(settings: Settings, message: str) -> None:
    from . import runlog

    runlog.log(settings, message)
    debuglog.log(message)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
