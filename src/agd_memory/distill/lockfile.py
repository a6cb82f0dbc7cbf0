"""One distiller per memory file: a pid lock keyed on the resolved memory file.

The lock is a file `<data>/distill/locks/<key>.lock` created with O_EXCL and
holding the owner's pid, start time and a random token. It is broken when the
owner is dead or the lock is older than `distill_lock_stale_s`. Two checkouts
that resolve to one memory file compute one key, so they share the lock.

Checking and breaking happen under a short-lived OS lock on a sibling
`.guard` file (fcntl on POSIX, msvcrt on Windows), so two workers can never
both decide a lock is stale and both take it. The guard is never held while
the distiller runs. Release removes the file only if it still holds our token:
a worker whose stale lock was broken never removes its successor's lock.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets as _random
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from agd import lock
from agd.lock import exclusive

from ..settings import Settings
from .state import distill_dir, read_json, write_atomic


def lock_key(memory_file: str | Path) -> str:
    """First 12 hex digits of the SHA-1 of the resolved memory file path."""
    resolved = os.path.realpath(os.path.expanduser(str(memory_file)))
    return hashlib.sha1(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:12]


@dataclass(frozen=True)
class Owner:
    pid: int
    started: float
    token: str
    memory_file: str


@dataclass
class Acquired:
    """A held lock; `broke` names the stale owner it replaced, if any."""

    path: Path
    owner: Owner
    broke: str | None = None


class Held(Exception):
    """Another live distiller holds the lock."""

    def __init__(self, owner: Owner | None, age: float) -> None:
        self.owner = owner
        self.age = age
        who = f"pid {owner.pid}" if owner else "an unknown owner"
        super().__init__(f"another distiller ({who}, {age:.0f}s old) holds the lock, skipping")


def locks_dir(settings: Settings) -> Path:
    return distill_dir(settings) / "locks"


def lock_path(settings: Settings, memory_file: str | Path) -> Path:
    return locks_dir(settings) / f"{lock_key(memory_file)}.lock"


def examine(path: Path, now: float) -> tuple[Owner | None, float, bool]:
    """The lock file's owner (None when unreadable), its age at `now` (from the owner's
    start, else the file's mtime) and whether the owner is alive. A lock is stale when
    its owner is dead or it is older than `distill_lock_stale_s`."""
    owner = read_owner(path)
    age = now - (owner.started if owner else _mtime(path))
    return owner, age, owner is not None and lock.pid_alive(owner.pid)


def acquire(
    path: Path, memory_file: str | Path, *, stale_s: float, now: float | None = None
) -> Acquired:
    """Take the lock at `path` or raise `Held`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    me = Owner(
        os.getpid(), time.time() if now is None else now, _random.token_hex(8), str(memory_file)
    )
    with _guard(path):
        broke = None
        if path.exists():
            owner, age, alive = examine(path, me.started)
            if alive and age <= stale_s:
                raise Held(owner, age)
            why = "dead owner" if not alive else f"{age:.0f}s old"
            broke = f"pid {owner.pid if owner else '?'} ({why})"
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:  # only possible with a writer that ignores the guard
            raise Held(read_owner(path), 0.0) from None
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(
                {
                    "pid": me.pid,
                    "started": me.started,
                    "token": me.token,
                    "memory_file": me.memory_file,
                },
                fh,
            )
    return Acquired(path, me, broke)


def refresh(lock: Acquired) -> bool:
    """Restart the lock's age (a worker draining several sessions is alive, not stale).

    False when the lock is no longer ours (a successor broke it): the caller stops.
    """
    with _guard(lock.path):
        owner = read_owner(lock.path)
        if owner is None or owner.token != lock.owner.token:
            return False
        lock.owner = Owner(owner.pid, time.time(), owner.token, owner.memory_file)
        write_atomic(lock.path, json.dumps(asdict(lock.owner)))
        return True


def release(lock: Acquired) -> bool:
    """Remove the lock if it is still ours; False when a successor had broken it."""
    with _guard(lock.path):
        owner = read_owner(lock.path)
        if owner is None or owner.token != lock.owner.token:
            return False
        with contextlib.suppress(FileNotFoundError):
            lock.path.unlink()
        return True


def read_owner(path: Path) -> Owner | None:
    data = read_json(path)
    if data is None:
        return None
    try:
        return Owner(
            int(data["pid"]),
            float(data["started"]),
            str(data.get("token", "")),
            str(data.get("memory_file", "")),
        )
    except (ValueError, KeyError, TypeError):
        return None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return time.time()


def _guard(path: Path) -> contextlib.AbstractContextManager[None]:
    """Serialises the read-check-write steps on a lock file between processes."""
    return exclusive(path.with_name(path.name + ".guard"), timeout=None)
