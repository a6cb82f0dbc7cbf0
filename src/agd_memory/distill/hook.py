"""SessionEnd: record the session and start a detached worker, in a few milliseconds.

Claude Code gives SessionEnd hooks 1.5 s in all (and kills them after), so the
hook does nothing slow: no transcript parsing, no path resolution (that may run
git), no model call. It writes one small pending record and spawns the worker
in a new session with no inherited stdio (through `sh`, so it is nobody's child), and
the worker outlives Claude Code.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from .. import debuglog
from ..settings import Settings
from . import state

# Runs the worker from the same source tree as this hook, installed or checkout.
WORKER_CODE = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from agd_memory.distill.worker import main; sys.exit(main(sys.argv[2:]))"
)


NOT_FROM_WORKING_FOLDER = "import sys; sys.path = [p for p in sys.path if p]\n"
"""The first line of any code run with `python3 -c`: `-c` puts the working folder first on
sys.path, and that folder may be a cloned repository whose `json.py` would run in place of
the standard library's (hooks/run does the same for the hooks)."""


def session_end(payload: dict, settings: Settings) -> None:
    """Record the ended session and start the worker; returns at once, never raises for bad input."""
    if settings.distill_guard or (settings.distill_disabled and settings.history_disabled):
        return
    transcript = payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript or not os.path.isfile(transcript):
        debuglog.log(
            f"distill: no transcript file in the SessionEnd payload ({transcript!r}); nothing to do"
        )
        return
    cwd = (
        payload.get("cwd")
        if isinstance(payload.get("cwd"), str) and payload.get("cwd")
        else os.getcwd()
    )
    item = state.Pending(
        transcript=os.path.abspath(transcript),
        session_id=str(payload.get("session_id") or ""),
        cwd=str(cwd),
        reason=str(payload.get("reason") or ""),
        queued=time.time(),
    )
    state.add_pending(settings, item)
    spawn_worker(settings, item.key)


def spawn_worker(settings: Settings, key: str) -> None:
    spawn(settings, WORKER_CODE, [key])


def spawn(settings: Settings, code: str, args: list[str]) -> None:
    """Run `code` (with this source tree first on sys.path, then `args`) detached and
    return once it is on its own (the distiller's worker, the keys run of `autokeys`).

    POSIX: `sh` in a new session starts the worker in the background and exits at once;
    we wait for `sh` alone. The worker is then nobody's child here (no zombie for the
    hook or a long-lived caller to reap, no running `Popen` left behind) and sits in a
    session of its own, out of reach of the signals sent to Claude Code's process group."""
    src = str(Path(__file__).resolve().parents[2])
    argv = [sys.executable, "-c", NOT_FROM_WORKING_FOLDER + code, src, *args]
    cwd = str(settings.data_dir) if settings.data_dir.is_dir() else None
    null = subprocess.DEVNULL
    if os.name == "nt":  # pragma: no cover - Windows: no console, own process group
        flags = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
        subprocess.Popen(  # noqa: S603
            argv, cwd=cwd, creationflags=flags, close_fds=True, stdin=null, stdout=null, stderr=null
        )
        return
    subprocess.run(  # noqa: S603 - our own interpreter and code
        ["/bin/sh", "-c", '"$@" &', "sh", *argv],
        cwd=cwd,
        close_fds=True,
        start_new_session=True,
        check=False,
        stdin=null,
        stdout=null,
        stderr=null,
    )
