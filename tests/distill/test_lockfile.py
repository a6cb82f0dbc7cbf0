"""The per-memory-file distiller lock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agd_memory.distill import lockfile


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def plant(path: Path, pid: int, started: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"pid": pid, "started": started, "token": "old", "memory_file": "m"})
    )


def test_second_acquire_is_refused_until_release(tmp_path: Path) -> None:
    path = tmp_path / "locks" / "k.lock"
    first = lockfile.acquire(path, "m", stale_s=1800)
    assert first.broke is None and lockfile.read_owner(path).pid == os.getpid()
    with pytest.raises(lockfile.Held, match="holds the lock"):
        lockfile.acquire(path, "m", stale_s=1800)
    assert lockfile.release(first)
    assert not path.exists()
    lockfile.release(lockfile.acquire(path, "m", stale_s=1800))


def test_a_dead_owners_lock_is_broken(tmp_path: Path) -> None:
    path = tmp_path / "k.lock"
    pid = dead_pid()
    plant(path, pid, time.time())
    lock = lockfile.acquire(path, "m", stale_s=1800)
    assert lock.broke == f"pid {pid} (dead owner)"
    assert lockfile.read_owner(path).pid == os.getpid()


def test_a_live_owner_older_than_the_limit_is_broken(tmp_path: Path) -> None:
    path = tmp_path / "k.lock"
    plant(path, os.getpid(), time.time() - 100)
    with pytest.raises(lockfile.Held):
        lockfile.acquire(path, "m", stale_s=1800)
    lock = lockfile.acquire(path, "m", stale_s=50)
    assert lock.broke is not None and "s old" in lock.broke


def test_an_unreadable_lock_ages_by_mtime(tmp_path: Path) -> None:
    path = tmp_path / "k.lock"
    path.write_text("garbage")
    os.utime(path, (0, 0))
    assert lockfile.acquire(path, "m", stale_s=1800).broke is not None


def test_release_never_removes_a_successors_lock(tmp_path: Path) -> None:
    path = tmp_path / "k.lock"
    mine = lockfile.acquire(path, "m", stale_s=1800)
    successor = lockfile.acquire(path, "m", stale_s=-1)  # breaks ours as stale
    assert not lockfile.release(mine)
    assert lockfile.read_owner(path).token == successor.owner.token


def test_refresh_restarts_the_age_and_notices_a_takeover(tmp_path: Path) -> None:
    path = tmp_path / "k.lock"
    lock = lockfile.acquire(path, "m", stale_s=1800, now=time.time() - 100)
    assert lockfile.refresh(lock)
    assert time.time() - lockfile.read_owner(path).started < 5
    with pytest.raises(lockfile.Held):
        lockfile.acquire(path, "m", stale_s=50)
    lockfile.acquire(path, "m", stale_s=-1)
    assert not lockfile.refresh(lock)


def test_one_key_per_resolved_memory_file(tmp_path: Path) -> None:
    real = tmp_path / "real" / "memory.agd"
    real.parent.mkdir()
    real.write_text("")
    link = tmp_path / "link"
    link.symlink_to(real.parent)
    assert lockfile.lock_key(link / "memory.agd") == lockfile.lock_key(real)
    assert lockfile.lock_key(real) != lockfile.lock_key(tmp_path / "other.agd")


def test_racing_acquirers_get_exactly_one_lock(tmp_path: Path) -> None:
    path = tmp_path / "k.lock"
    plant(path, dead_pid(), time.time())
    code = (
        "import sys, json; sys.path.insert(0, sys.argv[1]);"
        "from pathlib import Path; from agd_memory.distill import lockfile\n"
        "try:\n lockfile.acquire(Path(sys.argv[2]), 'm', stale_s=1800); print('got')\n"
        "except lockfile.Held: print('held')\n"
        "import time; time.sleep(1)"
    )
    src = str(Path(lockfile.__file__).resolve().parents[2])
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, src, str(path)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(6)
    ]
    outs = [p.communicate(timeout=30)[0].strip() for p in procs]
    assert outs.count("got") == 1, outs


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_or_an_oversized_file_as_bookkeeping_reads_as_missing(tmp_path: Path) -> None:
    """The lock owner, the keys run's state and the pending records are read bounded: a FIFO
    (a plain read blocks until a writer comes) or a runaway file is no record, not a hang."""
    from agd_memory.distill import autokeys, state

    fifo = tmp_path / "k.lock"
    os.mkfifo(fifo)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
        "from agd_memory.distill import autokeys, lockfile, state; p = Path(sys.argv[2]); "
        "print(lockfile.read_owner(p), state.read_json(p), autokeys._running(p, 0.0, 60.0))"
    )
    src = str(Path(autokeys.__file__).resolve().parents[2])
    done = subprocess.run(
        [sys.executable, "-c", code, src, str(fifo)], capture_output=True, text=True, timeout=20
    )
    assert done.stdout.split() == ["None", "None", "False"], done.stderr
    big = tmp_path / "big.json"
    big.write_text('{"pid": 1, "pad": "' + "x" * state.STATE_LIMIT + '"}', encoding="utf-8")
    assert state.read_json(big) is None and lockfile.read_owner(big) is None
