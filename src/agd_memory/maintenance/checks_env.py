"""Doctor's checks on the installation: distiller locks, plugin registration, Python and SDK."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agd import files
from agd.errors import UnreadableFile
from agd.lock import pid_alive

from ..settings import Settings
from .findings import Finding

HOOK_EVENTS = ("SessionStart", "UserPromptSubmit", "SessionEnd")
HOOK_PYTHONS = ("python3", "python3.13", "python3.12", "python3.11", "python3.10", "python")
"""The interpreters `hooks/run` tries, in its order."""
MCP_PYTHON = "python3"
"""What `.mcp.json` runs `bin/agd-memory-mcp` with."""
MCP_MAJOR = "2"
"""The SDK major version `bin/agd-memory-mcp` accepts (its REQUIREMENT is `mcp>=2,<3`)."""
MIN_PYTHON = (3, 10)
SERVER_NAME = "agd-memory"
_PLUGIN_PATH = re.compile(r"\$\{CLAUDE_PLUGIN_ROOT\}/([^\s\"']+)")


@dataclass(frozen=True)
class PythonInfo:
    executable: str
    version: tuple[int, int, int]
    mcp: str | None
    """Installed `mcp` distribution version, None when absent."""


Probe = Callable[[str], "PythonInfo | None"]

_PROBE_SCRIPT = (
    "import json, sys\n"
    "try:\n"
    "    from importlib import metadata\n"
    "    mcp = metadata.version('mcp')\n"
    "except Exception:\n"
    "    mcp = None\n"
    "print(json.dumps({'exe': sys.executable, 'v': list(sys.version_info[:3]), 'mcp': mcp}))\n"
)


def probe_python(command: str) -> PythonInfo | None:
    """Run `command` (a name on PATH or a path) and ask its version and `mcp` version."""
    from ..distill.hook import NOT_FROM_WORKING_FOLDER

    exe = shutil.which(command) if os.sep not in command else command
    if not exe or not os.path.exists(exe):
        return None
    try:
        proc = subprocess.run(
            [exe, "-c", NOT_FROM_WORKING_FOLDER + _PROBE_SCRIPT],
            capture_output=True,
            text=True,
            timeout=20,
            stdin=subprocess.DEVNULL,
        )
        data = json.loads(proc.stdout.strip().splitlines()[-1])
        return PythonInfo(str(data["exe"]), tuple(data["v"]), data["mcp"])  # type: ignore[arg-type]
    except (OSError, subprocess.SubprocessError, ValueError, IndexError, KeyError, TypeError):
        return None


# -- distiller locks ------------------------------------------------------------------


def distiller_locks(settings: Settings, *, now: float | None = None) -> list[Finding]:
    """Locks left by distillers that died: current ones and the earlier plugin's directories."""
    from ..distill import lockfile

    now = time.time() if now is None else now
    stale_s = settings.distill_lock_stale_s
    out: list[Finding] = []
    current = lockfile.locks_dir(settings)
    for path in sorted(current.glob("*.lock")) if current.is_dir() else []:
        owner, age, alive = lockfile.examine(path, now)
        who = f"pid {owner.pid}" if owner else "unreadable owner"
        memory = f" for {owner.memory_file}" if owner and owner.memory_file else ""
        if alive and age <= stale_s:
            out.append(
                Finding("info", "locks", f"a distiller is running{memory} ({who}, {age:.0f}s)")
            )
            continue
        why = f"{who} is not running" if not alive else f"{who}, {age:.0f}s old, over {stale_s:g}s"
        out.append(
            Finding(
                "warn",
                "locks",
                f"stale distiller lock {path}{memory} ({why}) — delete it (rm '{path}'); "
                "the next session end would break it anyway",
            )
        )
    # The earlier plugin's SessionEnd script: a directory <data>/distill-<key>.lock with a
    # `pid` file holding its parent shell's pid, so age decides as much as the pid does.
    for path in sorted(settings.data_dir.glob("distill-*.lock")):
        age = now - _mtime(path, now)
        pid = _legacy_pid(path)
        alive = pid is not None and pid_alive(pid)
        if alive and age <= stale_s:
            continue
        why = f"pid {pid} is not running" if pid and not alive else f"{age:.0f}s old"
        rm = "rm -r" if path.is_dir() else "rm"
        out.append(
            Finding(
                "warn",
                "locks",
                f"stale lock of the earlier plugin's distiller {path} ({why}) — delete it "
                f"({rm} '{path}')",
            )
        )
    return out


def _mtime(path: Path, default: float) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return default


def _legacy_pid(path: Path) -> int | None:
    try:
        return int(files.read_bytes(path / "pid", 64).strip())
    except (UnreadableFile, ValueError):
        return None


# -- plugin registration ---------------------------------------------------------------


_JSON_LIMIT = 1024 * 1024
"""A plugin manifest is a few KiB; a bigger one (or a FIFO) is unreadable, not waited on."""


def _read_json(path: Path) -> tuple[object | None, str | None]:
    try:
        return json.loads(files.read_text(path, _JSON_LIMIT)), None
    except UnreadableFile as exc:
        return None, f"unreadable ({exc.reason})" if os.path.lexists(path) else "missing"
    except ValueError as exc:
        return None, f"unreadable ({exc})"


def _missing_paths(root: Path, command: str) -> list[str]:
    return [p for p in _PLUGIN_PATH.findall(command) if not (root / p).exists()]


def registration(root: Path, claude_settings: Path) -> list[Finding]:
    out = [_hooks(root), _mcp(root)]
    out += _claude_settings(root, claude_settings)
    return out


def _hooks(root: Path) -> Finding:
    path = root / "hooks" / "hooks.json"
    data, problem = _read_json(path)
    if problem:
        return Finding(
            "error",
            "plugin",
            f"{path} is {problem}: Claude Code will run no memory hooks — restore it from the plugin's repository",
        )
    hooks = data.get("hooks") if isinstance(data, dict) else None
    registered = []
    broken = []
    for event in HOOK_EVENTS:
        commands = [
            h.get("command", "")
            for group in (hooks or {}).get(event) or []
            if isinstance(group, dict)
            for h in group.get("hooks") or []
            if isinstance(h, dict) and h.get("type") == "command"
        ]
        if commands:
            registered.append(event)
        broken += [p for c in commands for p in _missing_paths(root, str(c))]
    missing = [e for e in HOOK_EVENTS if e not in registered]
    if missing or broken:
        what = []
        if missing:
            what.append(f"no {', '.join(missing)} hook")
        if broken:
            what.append(f"missing {', '.join(sorted(set(broken)))}")
        return Finding(
            "error",
            "plugin",
            f"{path}: {'; '.join(what)} — reinstall the plugin or restore hooks/ from its repository",
        )
    return Finding("ok", "plugin", f"hooks {', '.join(HOOK_EVENTS)} registered in {path}")


def _mcp(root: Path) -> Finding:
    path = root / ".mcp.json"
    data, problem = _read_json(path)
    if problem:
        return Finding(
            "error",
            "plugin",
            f"{path} is {problem}: the agd_memory_* tools will be missing — restore it from the plugin's repository",
        )
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    server = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if not isinstance(server, dict) or not server.get("command"):
        return Finding(
            "error",
            "plugin",
            f"{path}: no `{SERVER_NAME}` server with a command — restore it from the plugin's repository",
        )
    command = " ".join([str(server["command"]), *map(str, server.get("args") or [])])
    broken = _missing_paths(root, command)
    if broken:
        return Finding(
            "error",
            "plugin",
            f"{path}: the `{SERVER_NAME}` server runs missing {', '.join(broken)} — reinstall the plugin",
        )
    return Finding("ok", "plugin", f"MCP server `{SERVER_NAME}` registered in {path}")


def _plugin_name(root: Path) -> str:
    data, _ = _read_json(root / ".claude-plugin" / "plugin.json")
    name = data.get("name") if isinstance(data, dict) else None
    return str(name) if name else SERVER_NAME


def _claude_settings(root: Path, path: Path) -> list[Finding]:
    data, problem = _read_json(path)
    if problem == "missing":
        return [
            Finding("info", "plugin", f"no Claude Code settings at {path}; enablement not checked")
        ]
    if problem or not isinstance(data, dict):
        return [
            Finding(
                "warn",
                "plugin",
                f"{path} is {problem or 'not a JSON object'}; agd-memory could not check it (fix it if Claude Code reports it too)",
            )
        ]
    name = _plugin_name(root)
    enabled = data.get("enabledPlugins")
    keys = (
        {k: v for k, v in enabled.items() if k.split("@")[0] == name}
        if isinstance(enabled, dict)
        else {}
    )
    out = []
    on = [k for k, v in keys.items() if v is True]
    if on:
        out.append(Finding("ok", "plugin", f"plugin {', '.join(on)} enabled in {path}"))
    elif keys:
        out.append(
            Finding(
                "warn",
                "plugin",
                f"plugin {', '.join(keys)} is disabled in {path} — run /plugin enable {next(iter(keys))} in Claude Code",
            )
        )
    else:
        out.append(
            Finding(
                "info",
                "plugin",
                f"{name} is not in enabledPlugins of {path} (fine with --plugin-dir; else /plugin install {name}@{name})",
            )
        )
    # Hooks the user added by hand for the earlier plugin run twice next to the plugin's own.
    hand = (
        sorted(
            {
                event
                for event, groups in (data.get("hooks") or {}).items()
                if isinstance(groups, list)
                for group in groups
                if isinstance(group, dict)
                for h in group.get("hooks") or []
                if isinstance(h, dict) and "agd-memory" in str(h.get("command", ""))
            }
        )
        if isinstance(data.get("hooks"), dict)
        else []
    )
    if hand:
        level = "warn" if on else "info"
        out.append(
            Finding(
                level,
                "plugin",
                f"{path} also runs agd-memory from hand-added {', '.join(hand)} hooks"
                + (" — with the plugin enabled they run twice; remove them" if on else ""),
            )
        )
    return out


# -- interpreters ------------------------------------------------------------------------


def runtimes(settings: Settings, probe: Probe = probe_python) -> list[Finding]:
    out: list[Finding] = []
    seen: dict[str, PythonInfo | None] = {}
    raw_probe = probe

    def probe(name: str) -> PythonInfo | None:  # each interpreter is started once
        if name not in seen:
            seen[name] = raw_probe(name)
        return seen[name]

    hook_python = None
    for name in HOOK_PYTHONS:
        info = probe(name)
        if info is not None and info.version[:2] >= MIN_PYTHON:
            hook_python = info
            break
    if hook_python is None:
        out.append(
            Finding(
                "error",
                "python",
                f"hooks cannot run: no Python {_v(MIN_PYTHON)} or newer on PATH (tried {', '.join(HOOK_PYTHONS)}) — install one",
            )
        )
    else:
        out.append(
            Finding(
                "ok",
                "python",
                f"hooks run with Python {_v(hook_python.version)} ({hook_python.executable})",
            )
        )

    mcp_python = probe(MCP_PYTHON)
    if mcp_python is None or mcp_python.version[:2] < MIN_PYTHON:
        found = f"is Python {_v(mcp_python.version)}" if mcp_python else "is not on PATH"
        out.append(
            Finding(
                "error",
                "python",
                f"the MCP server runs `{MCP_PYTHON}`, which {found} — install Python {_v(MIN_PYTHON)} or newer as {MCP_PYTHON}",
            )
        )
        return out
    where = f"Python {_v(mcp_python.version)} ({mcp_python.executable})"
    if mcp_python.mcp and mcp_python.mcp.split(".")[0] == MCP_MAJOR:
        out.append(
            Finding("ok", "python", f"MCP server runs with {where} and mcp {mcp_python.mcp}")
        )
        return out
    from .. import sdkvenv as _sdk

    venv = _sdk.venv_dir()  # where bin/agd-memory-mcp puts it, whatever settings.data_dir says
    if not os.environ.get("CLAUDE_PLUGIN_DATA"):  # a shell: the plugin's is Claude Code's folder
        venv = _plugin_venv(settings) or venv
    venv_python = _sdk.venv_python(venv)
    private = probe(str(venv_python)) if venv_python.exists() else None
    if private and private.mcp and private.mcp.split(".")[0] == MCP_MAJOR:
        out.append(
            Finding(
                "ok",
                "python",
                f"MCP server runs with Python {_v(private.version)} and mcp {private.mcp} from its private environment {venv}",
            )
        )
    else:
        sdk = _sdk
        have = f"has mcp {mcp_python.mcp}" if mcp_python.mcp else "has no mcp"
        failed = sdk.failure(venv.parent)  # the plugin's data folder, not the shell's
        if sdk.installing(venv.parent):
            out.append(
                Finding(
                    "info",
                    "python",
                    f"{where} {have}: mcp {MCP_MAJOR}.x is being installed into {venv} now (log: {sdk.log_file(venv.parent)})",
                )
            )
        elif failed:
            out.append(Finding("error", "python", f"the MCP tools are unavailable: {failed}"))
        else:
            out.append(
                Finding(
                    "info",
                    "python",
                    f"{where} {have}: the next session installs mcp {MCP_MAJOR}.x into {venv} in the background (needs the network once)",
                )
            )
    return out


def _plugin_venv(settings: Settings) -> Path | None:
    """From a shell (no `CLAUDE_PLUGIN_DATA`): the private environment in the plugin's data
    folder under the Claude config dir, where the MCP launcher started by Claude Code puts
    it (`<config dir>/plugins/data/agd-memory-*/venv`), else None."""
    folder = settings.config_file.parent.parent / "plugins" / "data"
    try:
        with os.scandir(folder) as it:
            found = sorted(
                Path(e.path) for e in it if e.name.startswith("agd-memory") and e.is_dir()
            )
    except OSError:
        return None
    return found[0] / "venv" if found else None


def _v(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def both_memories(settings: Settings, files: list[tuple[str, Path]]) -> list[Finding]:
    """Claude Code's auto memory beside ours for the current project: on with files in its
    folder is a warning (the model reads both, two capture passes run); what to do."""
    from .. import paths
    from ..claude import automemory
    from ..claude import setup as auto_memory
    from ..store.memoryfile import MemoryFile

    folder = paths.auto_memory_folder(settings)
    now = auto_memory.state(Path(os.path.abspath(settings.project_cwd or os.getcwd())), settings)
    found = automemory.read_folder(folder) if folder.is_dir() else None
    project = next((p for name, p in files if name == "project"), None)
    pending = 0
    if found is not None and found.facts:
        mf = MemoryFile(project, settings=settings) if project else None
        existing = [(e.id, e.body) for e in mf.entries()] if mf and mf.exists() else []
        pending = len(automemory.plan_import(found.facts, existing).add)
    todo = f"{pending} of its files in {folder} are not in agd-memory yet" if pending else ""
    if now.enabled and found is not None and found.facts:
        what = f"; {todo}" if todo else ""
        return [
            Finding(
                "warn",
                "automemory",
                f"both memories are active: Claude Code's auto memory is on ({now.reason}){what}; "
                "run /agd-memory:setup in Claude Code (in a shell: `agd-memory setup --apply`"
                + (" and `agd-memory import claude-memory --apply`" if pending else "")
                + ")",
            )
        ]
    if now.enabled:
        return [
            Finding(
                "info",
                "automemory",
                f"Claude Code's auto memory is on ({now.reason}) and will keep its own notes in "
                f"{folder}; /agd-memory:setup (in a shell: `agd-memory setup`) switches it off",
            )
        ]
    if pending:
        return [
            Finding(
                "info",
                "automemory",
                f"{todo}: /agd-memory:setup (in a shell: `agd-memory import claude-memory`)",
            )
        ]
    return [Finding("ok", "automemory", f"Claude Code's auto memory is off ({now.reason})")]


def team_driver(root: Path | None) -> list[Finding]:
    """A clone whose `.gitattributes` sends the team file to the `agd-memory` merge driver
    but whose git config does not register it (git then merges line by line and leaves
    conflict markers), or registers a launcher that is gone."""
    from ..team import registration, setup

    if root is None or not registration.wants_driver(root):
        return []
    command = setup.driver_command(root)
    fix = (
        f"run /agd-memory:team-init in a Claude Code session in {root} "
        f"(in a shell: `agd-memory team init` in {root})"
    )
    if not command:
        return [
            Finding(
                "warn",
                "team",
                f"{root / '.gitattributes'} asks for the agd-memory merge driver but this clone "
                f"has none registered: git would merge the team file line by line and leave "
                f"conflict markers, and until then its entries reach the model marked as the "
                f"repository's and no background model call is spent on them; {fix}",
            )
        ]
    try:
        words = shlex.split(command)  # `team init` quotes the launcher's path
    except ValueError:
        words = command.split()
    launcher = Path(words[0]) if words else None
    if launcher is not None and launcher.is_absolute() and not os.access(launcher, os.X_OK):
        return [
            Finding(
                "warn",
                "team",
                f"the agd-memory merge driver of {root} runs {launcher}, which is missing; {fix}",
            )
        ]
    return [Finding("ok", "team", f"the agd-memory merge driver is registered in {root}")]
