"""`agd-memory import claude-memory`, `agd-memory setup`, and where Claude Code's auto memory is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agd_memory import paths
from agd_memory.cli import main
from agd_memory.settings import Settings
from agd_memory.store.memoryfile import MemoryFile

TESTING = """---
metadata:
  type: feedback
name: testing-conventions
modified: 2026-10-12T09:30:00Z
description: Integration tests hit a real Postgres, never mocks
---
The suite runs against the docker Postgres, see [[db-setup]]; mocks hid a bad migration.
"""

DB = """---
name: db-setup
description: How the local database is started
type: project
modified: 2026-09-01T08:00:00+02:00
---
`make db` starts Postgres 16 on port 5433.
"""


@pytest.fixture
def project(env, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = env.project("app")
    monkeypatch.chdir(folder)
    monkeypatch.setenv("AGD_DISTILL_DISABLED", "1")
    return folder


def auto_folder(project: Path) -> Path:
    folder = paths.auto_memory_folder(Settings.load(), str(project))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "testing.md").write_text(TESTING, encoding="utf-8")
    (folder / "db.md").write_text(DB, encoding="utf-8")
    (folder / "MEMORY.md").write_text("- [Testing](testing.md) — real Postgres\n", encoding="utf-8")
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.md"))}


def test_import_is_a_dry_run_until_apply(project: Path, capsys) -> None:
    folder = auto_folder(project)
    assert main(["import", "claude-memory"]) == 0
    out = capsys.readouterr().out
    assert "+ x-feedback #testing-conventions" in out and "+ x-project #db-setup" in out
    assert "dry run: 2 to add" in out
    assert not (folder / "memory.agd").exists()


def test_import_apply_writes_kinds_dates_refs_once_and_keeps_the_originals(
    project: Path, capsys
) -> None:
    folder = auto_folder(project)
    before = snapshot(folder)
    assert main(["import", "claude-memory", "--apply"]) == 0
    assert "imported 2 entries" in capsys.readouterr().out
    mf = MemoryFile(folder / "memory.agd")
    entries = {e.id: e for e in mf.entries()}
    testing = entries["testing-conventions"]
    assert testing.kind == "x-feedback"
    assert (testing.created, testing.updated) == ("2026-10-12", "2026-10-12")
    assert list(testing.refs) == ["db-setup"]
    assert testing.desc == "Integration tests hit a real Postgres, never mocks"
    assert entries["db-setup"].body == "`make db` starts Postgres 16 on port 5433."
    assert snapshot(folder) == before

    text = (folder / "memory.agd").read_bytes()
    assert main(["import", "claude-memory", "--apply"]) == 0
    assert "nothing to add" in capsys.readouterr().out
    assert (folder / "memory.agd").read_bytes() == text


def test_import_into_an_existing_memory_keeps_a_backup_and_reports_a_taken_id(
    project: Path, capsys
) -> None:
    folder = auto_folder(project)
    mf = MemoryFile(folder / "memory.agd")
    mf.save("x-project", "db-setup", "The database is SQLite in dev.")
    old = mf.path.read_text(encoding="utf-8")
    assert main(["import", "claude-memory", "--apply"]) == 0
    out = capsys.readouterr().out
    assert "! #db-setup  the memory already has #db-setup with other text" in out
    assert mf.path.with_name("memory.agd.bak").read_text(encoding="utf-8") == old
    entries = {e.id: e for e in mf.entries()}
    assert entries["db-setup"].body == "The database is SQLite in dev."
    assert "testing-conventions" in entries


def test_import_refuses_a_fact_holding_a_secret_and_imports_the_rest(project: Path, capsys) -> None:
    folder = auto_folder(project)
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    (folder / "token.md").write_text(f"---\nname: ci-token\n---\nThe CI token is {token}\n")
    assert main(["import", "claude-memory", "--apply"]) == 0
    out = capsys.readouterr().out
    assert "! #ci-token  not imported:" in out
    text = (folder / "memory.agd").read_text(encoding="utf-8")
    assert token not in text and "[#testing-conventions]" in text


def test_import_of_a_missing_folder_is_one_line(project: Path, capsys) -> None:
    assert main(["import", "claude-memory", str(project / "nope")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("agd-memory: import: no auto-memory folder") and err.count("\n") == 1


# -- setup ---------------------------------------------------------------------------


def test_setup_user_scope_keeps_other_keys_and_a_backup(project: Path, env, capsys) -> None:
    settings = env.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    original = '{"model": "opus", "enabledPlugins": {"agd-memory@local": true}}\n'
    settings.write_text(original, encoding="utf-8")
    assert main(["setup"]) == 0
    assert "would set autoMemoryEnabled: false in " + str(settings) in capsys.readouterr().out
    assert settings.read_text(encoding="utf-8") == original
    assert main(["setup", "--apply"]) == 0
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert data == {
        "model": "opus",
        "enabledPlugins": {"agd-memory@local": True},
        "autoMemoryEnabled": False,
    }
    assert settings.with_name("settings.json.bak").read_text(encoding="utf-8") == original
    assert main(["setup"]) == 0
    assert "already sets autoMemoryEnabled: false" in capsys.readouterr().out


def test_setup_honours_claude_config_dir(project: Path, tmp_path: Path, monkeypatch) -> None:
    config = tmp_path / "other-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    assert main(["setup", "--apply"]) == 0
    assert json.loads((config / "settings.json").read_text()) == {"autoMemoryEnabled": False}


def test_setup_project_scope_writes_the_personal_file_and_says_what_still_wins(
    project: Path, env, capsys
) -> None:
    assert main(["setup", "--scope", "project", "--apply"]) == 0
    local = project / ".claude" / "settings.local.json"
    assert json.loads(local.read_text()) == {"autoMemoryEnabled": False}
    assert not (project / ".claude" / "settings.json").exists()
    capsys.readouterr()
    local.write_text('{"autoMemoryEnabled": true}')
    assert main(["setup", "--apply"]) == 0
    out = capsys.readouterr().out
    assert f"but {local} (local settings, autoMemoryEnabled: true) wins over it" in out


def test_setup_refuses_a_settings_file_that_is_not_json(project: Path, env, capsys) -> None:
    settings = env.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"model": "opus",}', encoding="utf-8")
    assert main(["setup", "--apply"]) == 1
    err = capsys.readouterr().err
    assert "is not JSON" in err and "nothing was changed" in err and err.count("\n") == 1
    assert settings.read_text(encoding="utf-8") == '{"model": "opus",}'
    assert not settings.with_name("settings.json.bak").exists()


def test_setup_on_a_large_valid_settings_file_does_not_call_it_unreadable(
    project: Path, env, capsys
) -> None:
    """A valid 5.7 MB settings.json was called "unreadable (larger than 4 MiB; give a
    smaller file)": it is readable, only past what agd-memory reads."""
    settings = env.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"theme": "dark", "notes": ["x" * 100] * 57_000})
    settings.write_text(text, encoding="utf-8")
    assert main(["setup", "--apply"]) == 1
    err = capsys.readouterr().err
    assert "unreadable" not in err and "give a smaller file" not in err
    assert "is larger than 4 MiB, more than agd-memory reads" in err
    assert '"autoMemoryEnabled": false in it yourself' in err and err.count("\n") == 1
    assert settings.read_text(encoding="utf-8") == text


# -- where the project's auto memory is (and so our project layer) --------------------


def where(project: Path) -> Path:
    return paths.resolve(Settings.load(), cwd=str(project)).project.path


def test_claude_config_dir_moves_the_projects_folder(
    project: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    name = paths.claude_folder_name(str(project))
    assert where(project) == tmp_path / "cfg" / "projects" / name / "memory" / "memory.agd"


def test_project_dir_name_names_the_folder(project: Path, env, monkeypatch) -> None:
    monkeypatch.setenv("CLAUDE_CODE_PROJECT_DIR_NAME", "sandbox-app")
    expected = env.home / ".claude" / "projects" / "sandbox-app" / "memory" / "memory.agd"
    assert where(project) == expected


def test_auto_memory_directory_from_user_and_local_settings_not_the_shared_file(
    project: Path, env, tmp_path: Path
) -> None:
    claude = project / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text(
        json.dumps({"autoMemoryDirectory": str(tmp_path / "shared")})
    )
    user = env.home / ".claude" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"autoMemoryDirectory": "~/notes/app"}))
    assert where(project) == env.home / "notes" / "app" / "memory.agd"
    (claude / "settings.local.json").write_text(
        json.dumps({"autoMemoryDirectory": str(tmp_path / "mine")})
    )
    assert where(project) == tmp_path / "mine" / "memory.agd"
    assert (
        "autoMemoryDirectory in " in paths.resolve(Settings.load(), cwd=str(project)).project.reason
    )


def test_managed_auto_memory_directory_wins(project: Path, tmp_path: Path, monkeypatch) -> None:
    managed = tmp_path / "managed-settings.json"
    managed.write_text(json.dumps({"autoMemoryDirectory": str(tmp_path / "policy")}))
    monkeypatch.setattr(paths, "managed_settings", lambda: managed)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"autoMemoryDirectory": str(tmp_path / "mine")})
    )
    assert where(project) == tmp_path / "policy" / "memory.agd"


# -- doctor ----------------------------------------------------------------------------


def test_doctor_warns_while_both_memories_are_active_and_not_after_setup_and_import(
    project: Path, capsys
) -> None:
    from agd_memory.maintenance.checks_env import both_memories

    folder = auto_folder(project)
    files = [("project", folder / "memory.agd")]
    (found,) = both_memories(Settings.load(), files)
    assert found.level == "warn" and found.message.startswith("both memories are active")
    assert f"2 of its files in {folder} are not in agd-memory yet" in found.message
    assert "agd-memory import claude-memory --apply" in found.message

    assert main(["setup", "--apply"]) == 0
    (found,) = both_memories(Settings.load(), files)
    assert found.level == "info" and "not in agd-memory yet" in found.message
    assert main(["import", "claude-memory", "--apply"]) == 0
    (found,) = both_memories(Settings.load(), files)
    assert (found.level, found.check) == ("ok", "automemory")
    assert "auto memory is off (autoMemoryEnabled: false in" in found.message


def test_imported_entries_get_search_keys_in_the_background(
    project: Path, env, fake_claude, monkeypatch, capsys
) -> None:
    import time

    monkeypatch.delenv("AGD_DISTILL_DISABLED")
    monkeypatch.setenv("AGD_DISTILL_KEYS_EVERY_S", "600")  # the suite turns keys runs off
    folder = auto_folder(project)
    fake_claude.script(fake_claude.keys_answer(["testing-conventions", "db-setup"]))
    assert main(["import", "claude-memory", "--apply"]) == 0
    out = capsys.readouterr().out
    assert "search keys: `agd-memory keys --apply` runs in the background" in out
    mf = MemoryFile(folder / "memory.agd")

    def keys() -> dict[str, object]:
        return {e.id: e.attrs.get("keys") for e in mf.entries() if e.kind.startswith("x-")}

    deadline = time.monotonic() + 60  # a poll for the detached run, not a timing assertion
    while time.monotonic() < deadline and not all(keys().values()):
        time.sleep(0.2)
    log = env.data / "debug.log"
    assert keys() == {
        "testing-conventions": fake_claude.default_keys("testing-conventions"),
        "db-setup": fake_claude.default_keys("db-setup"),
    }, log.read_text() if log.exists() else "no log"


def test_import_skips_links_takes_no_structural_id_and_no_impossible_date(
    project: Path, tmp_path: Path, capsys
) -> None:
    """A link is never followed (a note linked to /etc/passwd), a note named like a
    structural block (`meta`) is skipped on --apply as on the dry run, and an impossible or
    future date is not taken (it would win every merge by date)."""
    folder = auto_folder(project)
    secret = tmp_path / "outside.txt"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    (folder / "passwd.md").symlink_to(secret)
    (folder / "meta.md").write_text("---\nname: meta\n---\na note on meta-programming\n")
    (folder / "future.md").write_text(
        "---\nname: future\nmodified: 9999-99-99T00:00:00Z\n---\na note from the future\n"
    )
    (folder / "later.md").write_text(
        "---\nname: later\nmodified: 9999-12-31T00:00:00Z\n---\na note dated far ahead\n"
    )
    assert main(["import", "claude-memory"]) == 0
    dry = capsys.readouterr().out
    assert "passwd.md: skipped: a symbolic link" in dry and "! #meta" in dry
    assert main(["import", "claude-memory", "--apply"]) == 0
    out = capsys.readouterr().out
    assert "imported 4 entries" in out, out
    mf = MemoryFile(paths.resolve(Settings.load(), str(project)).project.path)
    text = mf.path.read_text(encoding="utf-8")
    assert "root:x:0" not in text and "meta-programming" not in text
    for block_id in ("future", "later"):
        entry = mf.entry(block_id)
        assert "9999" not in str(entry.attrs["created"]) + str(entry.attrs["updated"])


def test_a_secret_note_is_not_imported_on_the_dry_run_either(project: Path, capsys) -> None:
    folder = auto_folder(project)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (folder / "ci.md").write_text(f"---\nname: ci-token\n---\nCI pushes tags with {token}\n")
    assert main(["import", "claude-memory"]) == 0
    out = capsys.readouterr().out
    assert "+ x-project #ci-token" not in out and "! #ci-token" in out
    assert "in content line 1" in out and "--allow-secrets" not in out
    assert "dry run: 2 to add" in out


def test_setup_keeps_a_private_settings_file_private_and_leaves_a_read_only_one(
    project: Path, env, capsys
) -> None:
    import os
    import stat

    settings = env.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"env": {"API_TOKEN": "x"}}\n', encoding="utf-8")
    os.chmod(settings, 0o600)
    backup = settings.with_name("settings.json.bak")
    backup.write_text("{}\n", encoding="utf-8")
    os.chmod(backup, 0o644)  # an older, open copy
    assert main(["setup", "--apply"]) == 0
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600

    settings.write_text('{"model": "opus"}\n', encoding="utf-8")
    os.chmod(settings, 0o444)
    try:
        assert main(["setup", "--apply"]) == 1
        assert "read-only" in capsys.readouterr().err
        assert settings.read_text(encoding="utf-8") == '{"model": "opus"}\n'
    finally:
        os.chmod(settings, 0o644)


def test_apply_with_only_a_refused_note_does_not_claim_it_is_already_there(
    project: Path, capsys
) -> None:
    """--apply said "nothing to add: ... already holds every fact" for a note it had refused."""
    folder = paths.auto_memory_folder(Settings.load(), str(project))
    folder.mkdir(parents=True)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (folder / "ci.md").write_text(f"---\nname: ci-token\n---\nCI pushes tags with {token}\n")
    assert main(["import", "claude-memory", "--apply"]) == 0
    out = capsys.readouterr().out
    assert "! #ci-token" in out and "GitHub token" in out
    assert "already holds every fact" not in out
    assert out.splitlines()[-1].endswith("0 already there, 1 not imported (each said why above)")
    assert not (folder / "memory.agd").exists()
