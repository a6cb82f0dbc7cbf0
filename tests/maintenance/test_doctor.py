"""`agd-memory doctor` on a healthy memory and on one with each kind of problem."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from agd_memory.maintenance import checks_env, doctor
from agd_memory.maintenance.checks_env import PythonInfo
from agd_memory.settings import Settings

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]


def good_python(name: str) -> PythonInfo | None:
    return PythonInfo(f"/usr/bin/{name}", (3, 12, 1), "2.3.0")


@pytest.fixture
def plugin_root(tmp_path: Path) -> Path:
    """A copy of this repository's registration files and the launchers they name."""
    root = tmp_path / "plugin"
    for rel in (
        "hooks/hooks.json",
        "hooks/run",
        ".mcp.json",
        ".claude-plugin/plugin.json",
        "bin/agd-memory",
        "bin/agd-memory-mcp",
    ):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, root / rel)
    return root


def context(tmp_path, files, plugin_root, *, env=None, probe=good_python) -> doctor.Context:
    settings = Settings.load({"CLAUDE_PLUGIN_DATA": str(tmp_path / "data"), **(env or {})})
    return doctor.Context(
        settings=settings,
        files=files,
        plugin_root=plugin_root,
        claude_settings=tmp_path / "home" / ".claude" / "settings.json",
        python_probe=probe,
    )


def lines(findings, level=None):
    return [f.message for f in findings if level is None or f.level == level]


def healthy_files():
    return [
        ("project", FIXTURES / "healthy-project.agd"),
        ("global", FIXTURES / "healthy-global.agd"),
    ]


def test_healthy_memory_has_nothing_to_act_on(tmp_path, plugin_root):
    findings = doctor.run_checks(context(tmp_path, healthy_files(), plugin_root))
    assert [f for f in findings if f.needs_action] == []
    ok = lines(findings, "ok")
    assert f"project memory {FIXTURES / 'healthy-project.agd'}: 6 entries" in ok
    assert f"global memory {FIXTURES / 'healthy-global.agd'}: 1 entry" in ok
    assert any(
        m.startswith("hooks SessionStart, UserPromptSubmit, SessionEnd registered") for m in ok
    )
    assert "hooks run with Python 3.12.1 (/usr/bin/python3)" in ok
    assert "MCP server runs with Python 3.12.1 (/usr/bin/python3) and mcp 2.3.0" in ok


def test_cli_exit_status_0_when_healthy(tmp_path, monkeypatch, run):
    monkeypatch.setenv("AGD_MEMORY_FILE", str(FIXTURES / "healthy-project.agd"))
    monkeypatch.setenv("AGD_MEMORY_GLOBAL_FILE", str(FIXTURES / "healthy-global.agd"))
    monkeypatch.setenv("AGD_MEMORY_HOME", str(tmp_path))
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("CLAUDE_PLUGIN_ROOT", raising=False)
    monkeypatch.setattr(checks_env, "probe_python", good_python)
    status, out, err = run("doctor")
    assert (status, err) == (0, "")
    assert out.endswith("no problems found\n")


def test_each_problem_in_a_memory_gets_one_line_with_what_to_do(tmp_path, plugin_root, run):
    path = FIXTURES / "problems.agd"
    findings = doctor.run_checks(context(tmp_path, [("project", path)], plugin_root))
    acted = lines([f for f in findings if f.needs_action])
    assert acted == [
        f"{path}:7: #deploy cites #ghost-runbook in refs, but no block has that id — remove it from refs, or save #ghost-runbook",
        f"{path}:17: #release-checklist cites #release-v1, which is superseded — point it at #release-v2 instead",
        f"{path}:35: #registry-token holds what looks like a GitHub token (ghp_…) — remove it from the entry, rotate the secret, and delete old .bak copies",
        f"{path}:38: #backups and #backups-2 ({path}:43) look like duplicates (100% of their words in common) — keep one and save it with --supersedes the other",
    ]  # fmt: skip
    # the secret itself is never printed
    assert all("aB3dE5gH7" not in m for m in lines(findings))


def test_cli_exit_status_1_and_one_line_per_finding(monkeypatch, tmp_path, run):
    monkeypatch.setattr(checks_env, "probe_python", good_python)
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("AGD_MEMORY_HOME", str(tmp_path))
    status, out, _ = run("doctor", FIXTURES / "problems.agd")
    assert status == 1
    assert out.endswith("4 problems need action\n")
    assert sum(line.startswith(("warn ", "error ")) for line in out.splitlines()) == 4
    status, out, _ = run("doctor", "--json", FIXTURES / "problems.agd")
    data = json.loads(out)
    assert {d["check"] for d in data if d["level"] in ("warn", "error")} == {
        "refs",
        "superseded",
        "secrets",
        "duplicates",
    }


def test_a_file_that_does_not_parse_gives_line_and_column(tmp_path, plugin_root):
    path = FIXTURES / "broken.agd"
    findings = doctor.run_checks(context(tmp_path, [("project", path)], plugin_root))
    assert lines(findings, "error") == [
        f"{path}:5:12: does not parse: invalid attribute at line 5: attribute `desc` has "
        "unterminated quoted value — fix that line by hand (hooks and tools skip this file until then)"
    ]


def test_missing_files_are_information_not_problems(tmp_path, plugin_root):
    findings = doctor.run_checks(
        context(tmp_path, [("project", tmp_path / "none.agd")], plugin_root)
    )
    assert f"no project memory yet at {tmp_path / 'none.agd'}; the first save creates it" in lines(
        findings, "info"
    )
    assert not any(f.needs_action for f in findings)


def test_table_of_contents_over_budget(tmp_path, plugin_root):
    ctx = context(tmp_path, healthy_files(), plugin_root, env={"AGD_TOC_TOKEN_BUDGET": "40"})
    toc = [f for f in doctor.run_checks(ctx) if f.check == "toc"]
    assert len(toc) == 1 and toc[0].level == "warn"
    assert "over the 40-token budget" in toc[0].message
    assert "raise AGD_TOC_TOKEN_BUDGET" in toc[0].message


def test_doctor_says_the_toc_fits_exactly_when_session_start_lists_it_whole(tmp_path, plugin_root):
    from agd_memory import store
    from agd_memory import toc as toc_module
    from agd_memory.claude import session_toc

    settings = Settings.load({"CLAUDE_PLUGIN_DATA": str(tmp_path / "data")})
    files = [store.MemoryFile(p, layer=layer, settings=settings) for layer, p in healthy_files()]
    whole = session_toc.render(files, settings.replace(toc_token_budget=10**9))
    need = toc_module.budget_tokens(whole)
    for budget, level in ((need, "ok"), (need - 1, "warn")):
        ctx = context(
            tmp_path, healthy_files(), plugin_root, env={"AGD_TOC_TOKEN_BUDGET": str(budget)}
        )
        (finding,) = [f for f in doctor.run_checks(ctx) if f.check == "toc"]
        assert finding.level == level and f"{need} tokens" in finding.message
        cut = session_toc.render(files, settings.replace(toc_token_budget=budget))
        assert (cut == whole) == (level == "ok")


def test_entries_without_search_keys_are_information(tmp_path, plugin_root):
    memory = tmp_path / "m.agd"
    memory.write_text(
        "@meta format=agd version=1 [#meta]\n\n@h1 Memory [#root]\n\n"
        '@x-project desc="database" keys="sql, postgres" [#db]\n~~~\nPostgres 16.\n~~~\n\n'
        '@x-project desc="deploy" [#deploy]\n~~~\nmake ship\n~~~\n\n'
        '@x-project desc="old deploy" status=superseded [#deploy-old]\n~~~\nfab\n~~~\n',
        encoding="utf-8",
    )
    findings = doctor.run_checks(context(tmp_path, [("project", memory)], plugin_root))
    (keys,) = [f for f in findings if f.check == "keys"]
    assert keys.level == "info" and not keys.needs_action
    assert keys.message.startswith(f"{memory}: 1 of 2 entries have no search keys")
    assert f"`agd-memory keys {memory}`" in keys.message


def test_stale_and_live_distiller_locks(tmp_path, plugin_root):
    ctx = context(tmp_path, [], plugin_root)
    locks = tmp_path / "data" / "distill" / "locks"
    locks.mkdir(parents=True)
    dead = locks / "aaaaaaaaaaaa.lock"
    dead.write_text(
        json.dumps(
            {"pid": 999999999, "started": time.time(), "token": "t", "memory_file": "/m.agd"}
        )
    )
    old = locks / "bbbbbbbbbbbb.lock"
    old.write_text(
        json.dumps(
            {
                "pid": os.getpid(),
                "started": time.time() - 7200,
                "token": "t",
                "memory_file": "/o.agd",
            }
        )
    )
    live = locks / "cccccccccccc.lock"
    live.write_text(
        json.dumps(
            {"pid": os.getpid(), "started": time.time() - 5, "token": "t", "memory_file": "/l.agd"}
        )
    )
    legacy = tmp_path / "data" / "distill-0123456789ab.lock"
    legacy.mkdir()
    (legacy / "pid").write_text("999999999\n")
    found = [f for f in doctor.run_checks(ctx) if f.check == "locks"]
    warn = lines(found, "warn")
    assert len(warn) == 3
    assert warn[0].startswith(
        f"stale distiller lock {dead} for /m.agd (pid 999999999 is not running)"
    )
    assert warn[1].startswith(
        f"stale distiller lock {old} for /o.agd (pid {os.getpid()}, 7200s old, over 1800s)"
    )
    assert (
        warn[2]
        == f"stale lock of the earlier plugin's distiller {legacy} (pid 999999999 is not running) — delete it (rm -r '{legacy}')"
    )
    assert lines(found, "info") == [f"a distiller is running for /l.agd (pid {os.getpid()}, 5s)"]


def test_broken_plugin_registration(tmp_path, plugin_root):
    hooks = json.loads((plugin_root / "hooks/hooks.json").read_text())
    del hooks["hooks"]["SessionEnd"]
    (plugin_root / "hooks/hooks.json").write_text(json.dumps(hooks))
    (plugin_root / "bin/agd-memory-mcp").unlink()
    found = [
        f for f in doctor.run_checks(context(tmp_path, [], plugin_root)) if f.check == "plugin"
    ]
    errors = lines(found, "error")
    assert errors == [
        f"{plugin_root / 'hooks/hooks.json'}: no SessionEnd hook — reinstall the plugin or restore hooks/ from its repository",
        f"{plugin_root / '.mcp.json'}: the `agd-memory` server runs missing bin/agd-memory-mcp — reinstall the plugin",
    ]
    (plugin_root / ".mcp.json").unlink()
    found = [
        f for f in doctor.run_checks(context(tmp_path, [], plugin_root)) if f.check == "plugin"
    ]
    assert any(
        m.startswith(f"{plugin_root / '.mcp.json'} is missing") for m in lines(found, "error")
    )


def test_claude_code_settings(tmp_path, plugin_root):
    settings_file = tmp_path / "home" / ".claude" / "settings.json"
    settings_file.parent.mkdir(parents=True)
    hand_hook = {
        "hooks": [{"type": "command", "command": "python3 ~/agd-memory/hooks/agd-memory-recall.py"}]
    }
    settings_file.write_text(json.dumps({
        "enabledPlugins": {"agd-memory@agd-memory": True, "other@x": True},
        "hooks": {"UserPromptSubmit": [hand_hook]},
    }))  # fmt: skip
    found = [
        f for f in doctor.run_checks(context(tmp_path, [], plugin_root)) if f.check == "plugin"
    ]
    assert f"plugin agd-memory@agd-memory enabled in {settings_file}" in lines(found, "ok")
    assert lines(found, "warn") == [
        f"{settings_file} also runs agd-memory from hand-added UserPromptSubmit hooks — with the plugin enabled they run twice; remove them"
    ]
    settings_file.write_text(json.dumps({"enabledPlugins": {"agd-memory@agd-memory": False}}))
    found = [
        f for f in doctor.run_checks(context(tmp_path, [], plugin_root)) if f.check == "plugin"
    ]
    assert lines(found, "warn") == [
        f"plugin agd-memory@agd-memory is disabled in {settings_file} — run /plugin enable agd-memory@agd-memory in Claude Code"
    ]
    settings_file.write_text("{not json")
    found = [
        f for f in doctor.run_checks(context(tmp_path, [], plugin_root)) if f.check == "plugin"
    ]
    assert any(m.startswith(f"{settings_file} is unreadable") for m in lines(found, "warn"))


def test_python_too_old_and_sdk_missing(tmp_path, plugin_root, monkeypatch):
    monkeypatch.setenv(
        "CLAUDE_PLUGIN_DATA", str(tmp_path / "data")
    )  # where the launcher puts its venv

    def old_python(name):
        return PythonInfo(f"/usr/bin/{name}", (3, 8, 10), None) if name == "python3" else None

    found = [
        f
        for f in doctor.run_checks(context(tmp_path, [], plugin_root, probe=old_python))
        if f.check == "python"
    ]
    assert lines(found, "error") == [
        "hooks cannot run: no Python 3.10 or newer on PATH (tried python3, python3.13, python3.12, python3.11, python3.10, python) — install one",
        "the MCP server runs `python3`, which is Python 3.8.10 — install Python 3.10 or newer as python3",
    ]

    def no_sdk(name):
        return PythonInfo(f"/usr/bin/{name}", (3, 11, 2), "1.9.0") if name == "python3" else None

    found = [
        f
        for f in doctor.run_checks(context(tmp_path, [], plugin_root, probe=no_sdk))
        if f.check == "python"
    ]
    assert not any(f.needs_action for f in found)
    assert lines(found, "info") == [
        f"Python 3.11.2 (/usr/bin/python3) has mcp 1.9.0: the next session installs mcp 2.x into {tmp_path / 'data' / 'venv'} in the background (needs the network once)"
    ]


def test_real_interpreter_probe():
    info = checks_env.probe_python("python3")
    assert info is not None and info.version >= (3, 10, 0)
    assert checks_env.probe_python("no-such-python-here") is None


def test_the_interpreter_probe_never_imports_from_the_project(tmp_path, monkeypatch):
    # doctor runs in the user's project, which may be a cloned repository
    (tmp_path / "json.py").write_text("raise SystemExit('the repository ran its json.py')\n")
    monkeypatch.chdir(tmp_path)
    info = checks_env.probe_python("python3")
    assert info is not None and info.version >= (3, 10, 0)


def test_doctor_output_is_capped_per_check(tmp_path, plugin_root):
    path = tmp_path / "many.agd"
    blocks = [
        f'@x-project desc="d{n}" refs="#ghost-{n}" [#e{n}]\n~~~\nbody {n}\n~~~\n' for n in range(30)
    ]
    path.write_text("\n".join(blocks))
    findings = doctor.run_checks(context(tmp_path, [("project", path)], plugin_root))
    text = doctor.render(findings)
    assert text.count("cites #ghost-") == doctor.MAX_LINES_PER_CHECK
    assert "and 10 more refs findings (agd-memory doctor --json lists all)" in text
    assert text.endswith("30 problems need action")


def test_a_crashing_check_becomes_one_error_line(tmp_path, plugin_root, monkeypatch):
    def boom(settings, now=None):
        raise ImportError("cannot import name 'lockfile'")

    monkeypatch.setattr(checks_env, "distiller_locks", boom)
    findings = doctor.run_checks(context(tmp_path, healthy_files(), plugin_root))
    assert lines(findings, "error") == [
        "the locks check crashed (ImportError: cannot import name 'lockfile'); please report this"
    ]


def test_entries_whose_descs_differ_are_not_called_the_same_desc(tmp_path, plugin_root):
    path = tmp_path / "memory.agd"
    path.write_text(
        "@meta format=agd version=1 [#meta]\n\n"
        '@x-project desc="C++ build flags" [#cxx]\n~~~\nuse -O2\n~~~\n\n'
        '@x-project desc="C build flags!" [#c]\n~~~\nuse -O1\n~~~\n',
        encoding="utf-8",
    )
    findings = doctor.run_checks(context(tmp_path, [("project", path)], plugin_root))
    dup = [m for m in lines(findings) if "duplicates" in m]
    assert len(dup) == 1 and "(descs with the same words)" in dup[0]
    assert "the same desc" not in dup[0]


def test_a_file_with_conflict_markers_is_an_error_and_not_ok(tmp_path, plugin_root):
    """doctor said "ok team memory" and reported conflict markers in the same file."""
    path = tmp_path / "memory.agd"
    path.write_text(
        "@meta format=agd version=1 [#meta]\n\n"
        "<<<<<<< HEAD\n"
        '@x-project desc="ours" [#a]\n~~~\nours\n~~~\n'
        "=======\n"
        '@x-project desc="theirs" [#a]\n~~~\ntheirs\n~~~\n'
        ">>>>>>> branch\n",
        encoding="utf-8",
    )
    findings = doctor.run_checks(context(tmp_path, [("team", path)], plugin_root))
    assert not [m for m in lines(findings, "ok") if str(path) in m]
    (error,) = [m for m in lines(findings, "error") if str(path) in m]
    assert "conflict markers (line 3)" in error and "agd-memory team resolve" in error


def test_from_a_shell_the_sdk_folder_named_is_the_plugins(tmp_path, plugin_root, monkeypatch):
    """From a shell doctor named ~/.local/share/agd-memory/venv, a folder the plugin never
    uses: the plugin's launcher runs with Claude Code's plugin data folder."""
    claude = tmp_path / "claude"
    plugin_data = claude / "plugins" / "data" / "agd-memory-inline"
    plugin_data.mkdir(parents=True)
    monkeypatch.delenv("CLAUDE_PLUGIN_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))

    def no_sdk(name):
        return PythonInfo(f"/usr/bin/{name}", (3, 11, 2), None) if name == "python3" else None

    settings = Settings.load({"CLAUDE_CONFIG_DIR": str(claude)})
    ctx = doctor.Context(
        settings=settings,
        files=[],
        plugin_root=plugin_root,
        claude_settings=claude / "settings.json",
        python_probe=no_sdk,
    )
    (info,) = lines([f for f in doctor.run_checks(ctx) if f.check == "python"], "info")
    assert f"into {plugin_data / 'venv'} in the background" in info
    assert str(tmp_path / "xdg") not in info


def test_from_a_shell_install_state_is_read_from_the_plugins_folder(
    tmp_path, plugin_root, monkeypatch
):
    """From a shell, "being installed" and "install failed" looked in the shell's data folder
    (~/.local/share/agd-memory), where the plugin's launcher never installs."""
    import fcntl

    claude = tmp_path / "claude"
    plugin_data = claude / "plugins" / "data" / "agd-memory-inline"
    plugin_data.mkdir(parents=True)
    shell_data = tmp_path / "xdg" / "agd-memory"
    shell_data.mkdir(parents=True)
    (shell_data / "venv-install.failed").write_text("could not install in the shell's folder\n")
    monkeypatch.delenv("CLAUDE_PLUGIN_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))

    def no_sdk(name):
        return PythonInfo(f"/usr/bin/{name}", (3, 11, 2), None) if name == "python3" else None

    ctx = doctor.Context(
        settings=Settings.load({"CLAUDE_CONFIG_DIR": str(claude)}),
        files=[],
        plugin_root=plugin_root,
        claude_settings=claude / "settings.json",
        python_probe=no_sdk,
    )

    def python_lines():
        return [f for f in doctor.run_checks(ctx) if f.check == "python"]

    # The shell folder's failure is not the plugin's: the plugin's install has not run yet.
    (info,) = lines(python_lines(), "info")
    assert f"into {plugin_data / 'venv'} in the background" in info
    assert not lines(python_lines(), "error")

    (plugin_data / "venv-install.failed").write_text("could not install the MCP SDK: no network\n")
    assert lines(python_lines(), "error") == [
        "the MCP tools are unavailable: could not install the MCP SDK: no network"
    ]

    (plugin_data / "venv-install.failed").unlink()
    with open(plugin_data / "venv.lock", "a+") as held:  # the plugin's installer is running
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        (info,) = lines(python_lines(), "info")
    assert f"is being installed into {plugin_data / 'venv'} now" in info
    assert f"log: {plugin_data / 'venv-install.log'}" in info
