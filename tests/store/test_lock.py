"""The inter-process lock: exclusive across processes and threads, bounded wait."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from agd import lock

REPO_SRC = Path(__file__).resolve().parents[2] / "src"


def test_lock_path_is_the_earlier_plugins_sibling(tmp_path: Path):
    assert lock.lock_path_for(tmp_path / "memory.agd") == tmp_path / "memory.agd.lock"


def test_lock_creates_folder_and_file(tmp_path: Path):
    target = tmp_path / "a" / "b" / "memory.agd.lock"
    with lock.exclusive(target):
        assert target.exists()
    assert target.exists(), "the lock file is never deleted"


def test_another_process_holding_the_lock_times_out(tmp_path: Path):
    target = tmp_path / "memory.agd.lock"
    # `with Popen` closes the pipe and waits for the child (a Popen never waited for is a
    # ResourceWarning, an error under the suite's filterwarnings).
    with subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys, time
                sys.path.insert(0, {str(REPO_SRC)!r})
                from pathlib import Path
                from agd import lock
                with lock.exclusive(Path({str(target)!r})):
                    print("held", flush=True)
                    time.sleep(30)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "held"
            with pytest.raises(lock.LockError, match="held"), lock.exclusive(target, timeout=0.3):
                pass
        finally:
            holder.kill()
    with lock.exclusive(target, timeout=5):  # released when the holder dies
        pass


def test_threads_are_serialised(tmp_path: Path):
    target = tmp_path / "x.lock"
    inside = 0
    overlap = []

    def work() -> None:
        nonlocal inside
        for _ in range(20):
            with lock.exclusive(target):
                inside += 1
                overlap.append(inside)
                time.sleep(0.001)
                inside -= 1

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert max(overlap) == 1


def test_unwritable_folder_is_a_clear_error(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with (
        pytest.raises(lock.LockError, match="cannot create the lock file"),
        lock.exclusive(blocker / "memory.agd.lock"),
    ):
        pass
