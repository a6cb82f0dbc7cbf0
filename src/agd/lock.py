"""An exclusive inter-process lock on a sibling lock file (POSIX `flock`, Windows `msvcrt`).

Every in-place write of an AGD file (a memory save, `agd edit -i`, merge, migrate;
also the git-remote index) holds this lock on the *real* file (symlinks resolved,
`locked_path`) for the whole read-modify-write, so two writers never lose a block.
The lock file (`memory.agd.lock`) is never deleted: deleting it would let a
late waiter lock a file that a newcomer has already recreated, and two
writers would both believe they hold "the" lock.

The lock is attached to an open file, not to a process, so two threads of one
process that each take it also exclude each other.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from .errors import AgdError

DEFAULT_TIMEOUT_S = 60.0
"""Long enough for any queue of real saves, short enough that a stuck holder is reported."""

_POLL_S = 0.005

if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _lock_blocking(fd: int) -> None:
        while not _try_lock(fd):
            time.sleep(_POLL_S)

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _lock_blocking(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class LockError(AgdError):
    """The lock file cannot be created, or another process held the lock too long."""

    def __init__(self, lock_file: Path, reason: str) -> None:
        self.path = lock_file
        self.reason = reason
        super().__init__(reason)


def lock_path_for(path: Path) -> Path:
    """`memory.agd` -> `memory.agd.lock` (the earlier plugin's name, so both coordinate)."""
    return path.with_name(path.name + ".lock")


def real_path(path: str | os.PathLike[str]) -> Path:
    """The file a write replaces: symlinks resolved, so a link stays a link and every
    name of one file shares one lock."""
    return Path(os.path.realpath(path))


def locked_path(path: str | os.PathLike[str]) -> Path:
    """The lock file every writer of `path` takes: beside the real file."""
    return lock_path_for(real_path(path))


@contextlib.contextmanager
def exclusive(lock_file: Path, *, timeout: float | None = DEFAULT_TIMEOUT_S) -> Iterator[None]:
    """Hold an exclusive lock on `lock_file` (created, with its folder, when missing).

    `timeout=None` waits forever. Raises `LockError` when the lock file cannot be
    created or the lock is not obtained in time; the caller has then written nothing.
    """
    try:
        lock_file.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise LockError(
            lock_file,
            f"cannot create the lock file {lock_file}: {exc.strerror or exc}; "
            "check that its folder exists and is writable",
        ) from None
    try:
        _acquire(fd, lock_file, timeout)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


def _acquire(fd: int, lock_file: Path, timeout: float | None) -> None:
    if timeout is None:
        _lock_blocking(fd)
        return
    deadline = time.monotonic() + timeout
    delay = _POLL_S
    while not _try_lock(fd):
        if time.monotonic() >= deadline:
            raise LockError(
                lock_file,
                f"another process has held {lock_file} for more than {timeout:g} s; "
                "try again, or check for a stuck agd-memory or agd process",
            )
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def pid_alive(pid: int) -> bool:
    """The process `pid` is running (a zombie counts as dead): whether a lock owner is alive."""
    if pid <= 0:
        return False
    if os.name == "nt":  # pragma: no cover - exercised on Windows only
        import ctypes

        handle = ctypes.windll.kernel32.OpenProcess(
            0x1000, False, pid
        )  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        ctypes.windll.kernel32.CloseHandle(handle)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """A process that exited but was not reaped yet is dead for our purposes (Linux /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]
