"""`hooks/run` and `hooks/hooks.json`: the shell launcher Claude Code executes.

It must find a Python >= 3.10 without any install, pass stdin through, and fail
open (exit 0, no output) when there is no Python, no checkout, or a crash.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
from hookutil import PROJECT_MEMORY, REPO, RUNNER, STORED_FACT, run_hook, write_layer

PLUGIN_ROOT_MARKER = "${CLAUDE_PLUGIN_ROOT}"


def fake_root(tmp_path: Path, launcher_body: str) -> Path:
    """A plugin root whose bin/agd-memory is `launcher_body` (a Python script)."""
    root = tmp_path / "plugin"
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "agd-memory").write_text(launcher_body, encoding="utf-8")
    return root


ECHO = (
    "import json, sys\n"
    "print(json.dumps({'argv': sys.argv[1:], 'stdin': sys.stdin.read(),"
    " 'version': list(sys.version_info[:2]), 'no_site': sys.flags.no_site}))\n"
)


def bin_dir(tmp_path: Path, **programs: str | Path) -> Path:
    """A PATH folder holding only `sh`, `dirname` and the given programs (path or script)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for name in ("sh", "dirname"):
        os.symlink(shutil.which(name), folder / name)
    for name, target in programs.items():
        dest = folder / name.replace("_", ".")
        if isinstance(target, Path):
            os.symlink(target, dest)
        else:
            dest.write_text(target, encoding="utf-8")
            dest.chmod(dest.stat().st_mode | stat.S_IXUSR)
    return folder


def run_runner(event: str, stdin: bytes, env: dict[str, str]):
    import subprocess

    return subprocess.run(
        ["/bin/sh", str(RUNNER), event], input=stdin, env=env, capture_output=True, timeout=30
    )


def test_runs_launcher_with_event_and_stdin(tmp_path, hook_env) -> None:
    root = fake_root(tmp_path, ECHO)
    env = dict(hook_env, CLAUDE_PLUGIN_ROOT=str(root))
    proc = run_runner("prompt", b'{"prompt": "hi"}', env)
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert data["argv"] == ["hook", "prompt"]
    assert data["stdin"] == '{"prompt": "hi"}'
    assert tuple(data["version"]) >= (3, 10)
    assert data["no_site"] == 1  # stdlib only: site-packages and their .pth files skipped


def test_plugin_root_with_spaces(tmp_path, hook_env) -> None:
    root = fake_root(tmp_path / "Application Support" / "it's here", ECHO)
    command = json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"]["SessionStart"]
    shell = command[0]["hooks"][0]["command"].replace("${CLAUDE_PLUGIN_ROOT}", str(root))
    # Claude Code substitutes the placeholder and runs the command with `sh -c`.
    (root / "hooks").mkdir()
    shutil.copy2(RUNNER, root / "hooks" / "run")
    import subprocess

    proc = subprocess.run(
        ["/bin/sh", "-c", shell],
        input=b"{}",
        env=dict(hook_env, CLAUDE_PLUGIN_ROOT=str(root)),
        capture_output=True,
        timeout=30,
    )
    assert json.loads(proc.stdout)["argv"] == ["hook", "session-start"]


def test_finds_checkout_without_plugin_root(hook_env) -> None:
    proc = run_runner("prompt", b"{}", hook_env)  # CLAUDE_PLUGIN_ROOT unset: relative to the script
    assert proc.returncode == 0 and proc.stdout == b""


def test_no_python_exits_zero_silently(tmp_path, hook_env) -> None:
    root = fake_root(tmp_path, ECHO)
    env = dict(hook_env, CLAUDE_PLUGIN_ROOT=str(root), PATH=str(bin_dir(tmp_path)))
    proc = run_runner("session-start", b"{}", env)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_skips_a_too_old_python(tmp_path, hook_env) -> None:
    # An interpreter older than 3.10 answers the version probe with 97 before reading
    # stdin; this stand-in does exactly that, so the next candidate must run.
    old = "#!/bin/sh\necho old-python-was-probed >&2\nexit 97\n"
    path = bin_dir(tmp_path, python3=old, python3_11=Path(sys.executable))
    root = fake_root(tmp_path, ECHO)
    env = dict(hook_env, CLAUDE_PLUGIN_ROOT=str(root), PATH=str(path))
    proc = run_runner("prompt", b'{"prompt": "x"}', env)
    assert proc.returncode == 0
    assert b"old-python-was-probed" in proc.stderr
    assert json.loads(proc.stdout)["stdin"] == '{"prompt": "x"}'


def test_python_without_version_suffix_is_used(tmp_path, hook_env) -> None:
    path = bin_dir(tmp_path, python=Path(sys.executable))
    root = fake_root(tmp_path, ECHO)
    env = dict(hook_env, CLAUDE_PLUGIN_ROOT=str(root), PATH=str(path))
    proc = run_runner("prompt", b"{}", env)
    assert json.loads(proc.stdout)["argv"] == ["hook", "prompt"]


@pytest.mark.parametrize("code", ["import sys; sys.exit(2)", "raise RuntimeError('x')", "1/0"])
def test_crash_or_exit_two_becomes_exit_zero(tmp_path, hook_env, code) -> None:
    # Exit 2 from UserPromptSubmit would make Claude Code erase the user's prompt.
    root = fake_root(tmp_path, code + "\n")
    proc = run_runner("prompt", b"{}", dict(hook_env, CLAUDE_PLUGIN_ROOT=str(root)))
    assert proc.returncode == 0 and proc.stdout == b""


def test_missing_checkout_exits_zero(tmp_path, hook_env) -> None:
    env = dict(hook_env, CLAUDE_PLUGIN_ROOT=str(tmp_path / "gone"))
    proc = run_runner("prompt", b"{}", env)
    assert (proc.returncode, proc.stdout) == (0, b"")


def test_real_launcher_through_runner_fails_open_without_memory(project, hook_env) -> None:
    payload = {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(project)}
    proc = run_hook(
        "session-start", payload, dict(hook_env, CLAUDE_PLUGIN_ROOT=str(REPO)), via=RUNNER
    )
    assert (proc.returncode, proc.stdout) == (0, "")


@pytest.mark.parametrize("module", ["json", "re", "pathlib"])
def test_a_module_in_the_project_folder_is_never_run(project, hook_env, module) -> None:
    # Claude Code runs hooks in the project, which may be a cloned repository: a `json.py`
    # at its root must not replace the standard library's (`-c` puts the folder first)
    write_layer(hook_env, project, PROJECT_MEMORY)
    ran = project / "ran"
    (project / f"{module}.py").write_text(
        f"open({str(ran)!r}, 'w').close()\nraise SystemExit(0)\n", encoding="utf-8"
    )
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": STORED_FACT, "cwd": str(project)}
    import subprocess

    proc = subprocess.run(
        ["sh", str(RUNNER), "prompt"],
        input=json.dumps(payload).encode(),
        env=dict(hook_env, CLAUDE_PLUGIN_ROOT=str(REPO)),
        cwd=project,
        capture_output=True,
        timeout=60,
    )
    assert not ran.exists()
    assert b"project-staging-pgbouncer" in proc.stdout  # the hook did its work


# -- hooks.json ---------------------------------------------------------------------------


def hooks_config() -> dict:
    return json.loads((REPO / "hooks" / "hooks.json").read_text(encoding="utf-8"))["hooks"]


def test_hooks_json_registers_three_events_through_the_runner() -> None:
    config = hooks_config()
    assert set(config) == {"SessionStart", "UserPromptSubmit", "SessionEnd"}
    verbs = {
        "SessionStart": "session-start",
        "UserPromptSubmit": "prompt",
        "SessionEnd": "session-end",
    }
    for event, groups in config.items():
        assert len(groups) == 1
        # No matcher: SessionStart must fire for startup, resume, clear, compact and fork.
        assert "matcher" not in groups[0] or groups[0]["matcher"] in ("", "*")
        (handler,) = groups[0]["hooks"]
        assert handler["type"] == "command"
        assert handler["command"] == f'sh "{PLUGIN_ROOT_MARKER}/hooks/run" {verbs[event]}'


def test_hooks_json_timeouts_are_short() -> None:
    config = hooks_config()
    timeouts = {event: groups[0]["hooks"][0]["timeout"] for event, groups in config.items()}
    assert timeouts["UserPromptSubmit"] <= 5
    assert timeouts["SessionStart"] <= 10
    # Claude Code gives all SessionEnd hooks 1.5 s together; plugin timeouts cannot raise it.
    assert timeouts["SessionEnd"] <= 2


def test_runner_is_posix_sh() -> None:
    text = RUNNER.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh\n")
    for bashism in ("[[", "function ", "local ", "$'", "source "):
        assert bashism not in text
    assert os.access(RUNNER, os.X_OK)
