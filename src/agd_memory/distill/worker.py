"""The detached worker: one per ended session, at most one running per memory file.

The worker started for session S resolves S's memory file M and takes M's
lock. Holding it, it distils every pending session that resolves to M, oldest
first, then releases the lock and looks again: a session recorded while it was
working (whose own worker found the lock taken and left) is picked up in the
next round. So a second hook on the same memory file never runs a second
distiller, and never loses its session either.

It has no stdio (the hook detached it); everything goes to the distill log.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import debuglog, paths
from ..settings import Settings
from . import lockfile, pipeline, runlog, state
from .state import Pending

MAX_ROUNDS = 50
"""A bound on lock rounds, should sessions keep arriving (each round drains them all)."""


def main(argv: Sequence[str]) -> int:
    """`<python> -c ... KEY`: distil the pending session KEY (and its memory file's others)."""
    try:
        settings = Settings.load()
        if settings.distill_guard or (settings.distill_disabled and settings.history_disabled):
            return 0
        for key in argv:
            run(settings, key)
    except Exception as exc:  # detached: nobody sees a traceback, so the log must
        debuglog.log(f"distill worker: {type(exc).__name__}: {exc}")
        return 1
    return 0


def memory_file_of(settings: Settings, item: Pending) -> tuple[Path, object]:
    layers = paths.resolve(settings, cwd=item.cwd or None)
    return layers.project.path, layers


def run(settings: Settings, key: str, *, sleep: Callable[[float], None] = time.sleep) -> None:
    item = state.read_pending(settings, key)
    if item is None:
        return

    def say(message: str) -> None:
        runlog.log(settings, message)

    try:
        memory, layers = memory_file_of(settings, item)
    except Exception as exc:  # a cwd the resolver cannot use: say so once, drop the session
        say(
            f"session {item.session_id or '?'}: cannot resolve the memory file of {item.cwd}: {exc}"
        )
        state.remove_pending(settings, item)
        runlog.record_run(
            settings,
            pipeline.Result("failed", f"cannot resolve the memory file: {exc}").as_record(item, ""),
        )
        return
    lock_at = lockfile.lock_path(settings, memory)
    for _ in range(MAX_ROUNDS):
        try:
            lock = lockfile.acquire(lock_at, memory, stale_s=settings.distill_lock_stale_s)
        except lockfile.Held as held:
            say(f"session {item.session_id or '?'} on {memory}: {held}")
            return
        if lock.broke:
            say(f"breaking stale lock of {lock.broke} on {memory}")
        try:
            mine = _pending_for(settings, memory)
            for pending, layers in mine:
                if not lockfile.refresh(lock):
                    say(f"the lock on {memory} was taken over; stopping")
                    return
                _one(settings, pending, memory, layers, say, sleep)
        finally:
            lockfile.release(lock)
        if not _pending_for(settings, memory):
            # after the sessions and outside their lock: the pass writes through the
            # store's lock and skips what a session changed meanwhile
            _consolidate(settings, memory, say, sleep)
            _warm_recall(settings, layers, say)
            return


def _warm_recall(settings: Settings, layers: paths.Layers, say: Callable[[str], None]) -> None:
    """Rebuild recall's analysis of the layers the sessions wrote to, here rather than in
    the first prompt after them (recall's disk cache is keyed by each file's identity)."""
    from ..recall import front

    try:
        front.warm(pipeline.layer_files(layers, settings), settings)
    except Exception as exc:  # the next prompt builds it, as it would have anyway
        say(f"recall's index was not prepared: {type(exc).__name__}: {exc}")


def _pending_for(settings: Settings, memory: Path) -> list[tuple[Pending, object]]:
    """Pending sessions whose project memory file is `memory` (cwd resolutions cached)."""
    found: list[tuple[Pending, object]] = []
    seen: dict[str, tuple[Path, object]] = {}
    for pending in state.list_pending(settings):
        if pending.cwd not in seen:
            try:
                seen[pending.cwd] = memory_file_of(settings, pending)
            except Exception as exc:
                runlog.log(settings, f"cannot resolve the memory file of {pending.cwd}: {exc}")
                continue
        path, layers = seen[pending.cwd]
        if lockfile.lock_key(path) == lockfile.lock_key(memory):
            found.append((pending, layers))
    return found


def _consolidate(
    settings: Settings, memory: Path, say: Callable[[str], None], sleep: Callable[[float], None]
) -> None:
    """The automatic consolidation pass over the project file, when it is due (never in a hook)."""
    from .. import store
    from . import consolidate, review

    mf = store.MemoryFile(memory, layer="project", settings=settings)
    consolidate.run_scheduled(settings, mf, log=say, submit=review.submit_plan, sleep=sleep)


def _one(
    settings: Settings,
    item: Pending,
    memory: Path,
    layers: paths.Layers,
    say: Callable[[str], None],
    sleep: Callable[[float], None],
) -> None:
    say(
        f"=== session {item.session_id or '?'} cwd={item.cwd} reason={item.reason or '?'} memory={memory}"
    )
    _history(settings, item, memory, say)
    if not settings.distill_disabled and settings.distill_keys_per_session > 0:
        from . import learn

        learn.run(settings, item.transcript, item.session_id, layers, say)
    try:
        if settings.distill_disabled:
            result = pipeline.Result("skipped", "the distiller is off (AGD_DISTILL_DISABLED)")
        else:
            result = pipeline.distil(settings, item, layers, log=say, sleep=sleep)
    except Exception as exc:
        result = pipeline.Result("failed", f"{type(exc).__name__}: {exc}")
    finally:
        state.remove_pending(settings, item)
    if result.outcome == "skipped":
        say(f"skipped: {result.detail}")
    elif result.outcome == "failed":
        say(f"failed: {result.detail}")
    else:
        for o in result.report.outcomes:
            say(f"{o.action} #{o.id}: {o.message}")
        say(f"done: {result.detail}")
    runlog.record_run(settings, result.as_record(item, str(memory)))


def _history(settings: Settings, item: Pending, memory: Path, say: Callable[[str], None]) -> None:
    """Keep the session's exchanges in the history beside `memory` (never stops the distiller)."""
    if settings.history_disabled:
        return
    from ..history import capture

    try:
        added, bad = capture.ingest(settings, item.transcript, memory)
    except Exception as exc:
        say(f"history: not kept: {type(exc).__name__}: {exc}")
        return
    skipped = f" ({bad} malformed line(s) skipped)" if bad else ""
    say(f"history: {added} exchange(s) added{skipped}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
