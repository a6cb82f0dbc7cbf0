"""The MCP SDK's private environment: `<data>/venv`, installed once, in the background.

Standard library only: `bin/agd-memory-mcp`, the SessionStart hook (run with `python -S`)
and `doctor` all use it. <data> is $CLAUDE_PLUGIN_DATA, else $XDG_DATA_HOME/agd-memory,
else ~/.local/share/agd-memory.

The install runs as its own detached process (`bin/agd-memory-mcp --install`, a new
session, output to `<data>/venv-install.log`), so a `claude -p` session that ends after
3 s does not take it down. It holds `<data>/venv.lock` for its whole run: a second
installer sees the lock held and leaves. `<data>/venv/.agd-memory-ready` is written last;
a venv without it, found while holding the lock, is a half-made one (an installer that
was killed) and is made again from scratch. A failure leaves one line in
`<data>/venv-install.failed` (what went wrong and what to do), which the MCP server's
tool list, `doctor` and the SessionStart notice show; the next start tries again.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..sdkvenv import (  # noqa: F401 - kept importable as agd_memory.mcp.sdk.*
    MAX_MARKER_CHARS,
    REQUIREMENT,
    _read_small,
    _ready_file,
    _try_lock,
    data_dir,
    failed_file,
    failure,
    installing,
    is_ready,
    log_file,
    system_file,
    venv_dir,
    venv_python,
)


def launcher() -> Path:
    """`bin/agd-memory-mcp` of this checkout (resolved when an install starts, not at import)."""
    return Path(__file__).resolve().parents[3] / "bin" / "agd-memory-mcp"


def start_install(*, no_site: bool = False) -> bool:
    """Start the detached installer unless the venv is ready or one is running; True if started.

    It runs with this interpreter, with `-S` only when `no_site` (the launcher passes its own
    flag; the hook, itself run with `-S`, wants the installer to see site-packages)."""
    import subprocess  # here: SessionStart imports this module, and rarely spawns

    if is_ready() or installing():
        return False
    data = data_dir()
    data.mkdir(parents=True, exist_ok=True)
    with open(log_file(), "ab") as log:
        kwargs: dict = {"start_new_session": True} if os.name != "nt" else {"creationflags": 0x208}
        subprocess.Popen(  # noqa: S603 - our own launcher
            [sys.executable, *(["-S"] if no_site else []), str(launcher()), "--install"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            close_fds=True,
            **kwargs,
        )
    return True


def _run(argv: list[str], what: str, venv: Path) -> str | None:
    """Run one install step; the one-line failure (what went wrong, what to do) or None."""
    import subprocess  # here: SessionStart imports this module, and rarely spawns

    try:
        proc = subprocess.run(  # noqa: S603
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=900,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"could not {what} in {venv}: {exc}"
    sys.stderr.write(proc.stdout.decode("utf-8", "replace"))
    if proc.returncode == 0:
        return None
    lines = [ln for ln in proc.stdout.decode("utf-8", "replace").splitlines() if ln.strip()]
    detail = lines[-1].strip() if lines else f"exit status {proc.returncode}"
    return (
        f"could not {what} in {venv}: {detail}. Check the network (or pip's index settings) and "
        f"that python3 has the venv module (Debian/Ubuntu: apt install python3-venv), then start "
        f"a new session; or install the SDK yourself: pip install '{REQUIREMENT}'"
    )


def install() -> int:
    """The detached installer's body: make `<data>/venv` with the SDK, once, under the lock."""
    import shutil

    data = data_dir()
    venv = venv_dir()
    data.mkdir(parents=True, exist_ok=True)
    fh = _try_lock(data / "venv.lock")
    if fh is None:
        return 0  # another installer is at it
    with fh:
        if is_ready(venv):
            return 0
        failed_file().unlink(missing_ok=True)
        if venv.exists():  # no ready marker while we hold the lock: a killed install's leftovers
            shutil.rmtree(venv, ignore_errors=True)
        sys.stderr.write(f"agd-memory-mcp: installing {REQUIREMENT} into {venv}\n")
        pip = [str(venv_python(venv)), "-m", "pip", "install", "--quiet"]
        error = _run(
            [sys.executable, "-m", "venv", str(venv)], "create a virtual environment", venv
        )
        if error is None:
            error = _run(
                [*pip, "--disable-pip-version-check", REQUIREMENT], "install the MCP SDK", venv
            )
        if error is not None:
            sys.stderr.write(f"agd-memory-mcp: {error}\n")
            tmp = failed_file().with_suffix(f".{os.getpid()}")
            tmp.write_text(error + "\n", encoding="utf-8")
            os.replace(tmp, failed_file())
            return 1
        _ready_file(venv).write_text(REQUIREMENT + "\n", encoding="utf-8")
        failed_file().unlink(missing_ok=True)
        sys.stderr.write("agd-memory-mcp: installed\n")
    return 0


def session_notice() -> str | None:
    """SessionStart: start the install in the background when the venv is missing; the
    one-line notice for the user (installing, or the last failure and what to do), or None."""
    import importlib.util

    if is_ready():
        return None
    try:  # the launcher found the SDK in the interpreter it runs with: no venv needed
        recorded = _read_small(system_file()).strip()
    except OSError:
        recorded = ""
    if recorded and Path(recorded).exists():  # an empty record names no interpreter
        return None
    if importlib.util.find_spec("mcp") is not None:  # a dev install has its own
        return None
    previous = failure()
    try:
        started = start_install()
    except OSError as exc:
        return f"could not start the MCP SDK install ({exc}); run /agd-memory:doctor (in a shell: `agd-memory doctor`)"
    if previous:
        return f"the memory tools are unavailable: {previous}"
    if started:
        return (
            f"installing the MCP SDK ({REQUIREMENT}) in the background for the memory "
            "tools; they are available once it finishes (the next session at the latest)"
        )
    return None


def serve_notice(message: str) -> int:
    """A stand-in MCP server (stdio, standard library) while the SDK is missing: it connects,
    so `/mcp` shows it, and its one tool, `agd_memory_unavailable`, carries `message` (what
    went wrong and what to do) in its description, in the server's instructions and as the
    answer to every call. Serves until stdin closes."""
    import json

    tool = {
        "name": "agd_memory_unavailable",
        "description": f"agd-memory's memory tools are not available yet: {message}",
        "inputSchema": {"type": "object", "properties": {}},
    }
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if not isinstance(request, dict) or "id" not in request:
            continue  # a notification
        method = request.get("method")
        if method == "initialize":
            params = request.get("params") or {}
            result: dict = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "agd-memory", "version": "unavailable"},
                "instructions": tool["description"],
            }
        elif method == "tools/list":
            result = {"tools": [tool]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": tool["description"]}], "isError": True}
        elif method == "ping":
            result = {}
        else:
            answer = {"jsonrpc": "2.0", "id": request["id"]}
            answer["error"] = {"code": -32601, "message": f"{method}: {tool['description']}"}
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
            continue
        sys.stdout.write(
            json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}) + "\n"
        )
        sys.stdout.flush()
    return 0
