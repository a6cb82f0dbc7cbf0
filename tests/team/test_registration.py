"""A clone made without `team init` has the committed `.gitattributes` line but no merge
driver: doctor says so and what to run, SessionStart tells the user once and writes nothing
into the clone's git config (a stranger's repository is not trusted until `team init`), and
the check runs no git process (a FIFO at `.git/config` cannot hold the session up)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from teamutil import BIN, Clone

from agd_memory.settings import Settings
from agd_memory.team import registration


def _plain_clone(tmp_path: Path, git_env: dict[str, str], remote: Path, name: str) -> Clone:
    """A clone made with `git clone` alone, as a teammate does."""
    path = tmp_path / name
    subprocess.run(["git", "clone", "-q", str(remote), str(path)], env=git_env, check=True)
    clone = Clone(path, git_env)
    for key, value in (("user.name", name), ("user.email", f"{name}@example.com")):
        clone.git("config", key, value)
    return clone


def _doctor_team(clone: Clone) -> list[dict[str, str]]:
    done = clone.cli("doctor", "--json", check=False)
    return [f for f in json.loads(done.stdout) if f["check"] == "team"]


def _session_start(clone: Clone, *, via_runner: bool = False) -> subprocess.CompletedProcess[str]:
    """SessionStart in the clone; `via_runner`: through `hooks/run`, with its watchdog, as
    Claude Code starts it."""
    data = Path(clone.env["CLAUDE_PLUGIN_DATA"])
    data.mkdir(parents=True, exist_ok=True)
    (data / "venv-not-needed").write_text(sys.executable + "\n", encoding="utf-8")
    payload = {"session_id": "s", "cwd": str(clone.path / "src"), "hook_event_name": "SessionStart"}
    (clone.path / "src").mkdir(exist_ok=True)
    runner = ["sh", str(BIN.parent.parent / "hooks" / "run")]
    return subprocess.run(
        [*runner, "session-start"]
        if via_runner
        else [sys.executable, str(BIN), "hook", "session-start"],
        input=json.dumps(payload),
        env=clone.env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_doctor_reports_the_missing_driver_and_session_start_leaves_git_config_alone(
    make_clone, tmp_path, git_env, remote
):
    a = make_clone("a")
    b = _plain_clone(tmp_path, git_env, remote, "b")
    assert b.git("config", "--get", "merge.agd-memory.driver", check=False).stdout == ""
    (finding,) = _doctor_team(b)
    assert finding["level"] == "warn"
    assert "has none registered" in finding["message"]
    assert f"run /agd-memory:team-init in a Claude Code session in {b.path}" in finding["message"]
    assert f"`agd-memory team init` in {b.path}" in finding["message"]
    config_before = (b.path / ".git" / "config").read_bytes()

    started = _session_start(b)
    assert started.returncode == 0
    told = json.loads(started.stdout)
    assert (
        "shares team memory" in told["systemMessage"]
        and "/agd-memory:team-init" in told["systemMessage"]
    )
    assert "shares team memory" not in json.dumps(told.get("hookSpecificOutput", {}))
    assert (b.path / ".git" / "config").read_bytes() == config_before, "nothing written"
    again = _session_start(b)
    assert "shares team memory" not in again.stdout, "told once per clone"

    b.cli("team", "init")
    assert (
        b.git("config", "--get", "merge.agd-memory.driver")
        .stdout.strip()
        .endswith("agd-memory-merge-driver %O %A %B %P")
    )
    assert [f["level"] for f in _doctor_team(b)] == ["ok"]
    launcher = Path(b.git("config", "--get", "merge.agd-memory.driver").stdout.split()[0])
    launcher.rename(launcher.with_name("moved"))
    (gone,) = _doctor_team(b)
    assert gone["level"] == "warn" and f"runs {launcher}, which is missing" in gone["message"]
    launcher.with_name("moved").rename(launcher)

    # the registered driver merges concurrent edits block by block: no conflict markers
    a.memory("2026-01-02").save("x-project", "from-a", "a's fact")
    a.commit("a")
    a.git("push", "-q")
    b.memory("2026-01-03").save("x-project", "from-b", "b's fact")
    b.commit("b")
    pulled = b.git("pull", "--no-rebase", "--no-edit")
    assert "CONFLICT" not in pulled.stdout and "<<<<<<<" not in b.text()
    assert {"from-a", "from-b"} <= set(b.blocks())


@pytest.mark.slow
def test_a_linked_worktree_reads_the_common_config(make_clone, tmp_path):
    a = make_clone("a")
    worktree = tmp_path / "wt"
    a.git("worktree", "add", "-q", str(worktree), "-b", "side")
    assert registration.config_file(worktree).resolve() == (a.path / ".git" / "config").resolve()
    assert registration.wants_driver(worktree) and registration.registered_in_config(worktree)


def test_the_check_runs_no_git_and_knows_an_untrusted_clone(tmp_path, monkeypatch):
    def no_git(*args, **kwargs):
        raise AssertionError("git ran on SessionStart")

    monkeypatch.setattr(subprocess, "run", no_git)
    plain = tmp_path / "plain"
    (plain / ".git").mkdir(parents=True)
    (plain / ".gitattributes").write_text("*.png binary\n", encoding="utf-8")
    assert registration.untrusted_clone(plain) is None
    assert registration.untrusted_clone(tmp_path / "outside") is None
    done = tmp_path / "registered"
    (done / ".git").mkdir(parents=True)
    (done / ".gitattributes").write_text(".claude/memory.agd merge=agd-memory\n", encoding="utf-8")
    assert registration.untrusted_clone(done / "sub") == done
    settings = Settings(data_dir=tmp_path / "data")
    team_file = done / ".claude" / "memory.agd"
    assert not registration.may_spend_on("team", team_file, settings)
    assert registration.may_spend_on("project", team_file, settings)
    (done / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[merge "agd-memory"]\n\tname = x\n\tdriver = /x/launcher %O %A %B %P\n',
        encoding="utf-8",
    )
    assert registration.untrusted_clone(done / "sub") is None
    assert registration.may_spend_on("team", team_file, settings)
    # a commented-out or other driver does not count
    (done / ".git" / "config").write_text('[merge "other"]\n\tdriver = y\n', encoding="utf-8")
    assert not registration.registered_in_config(done)


def test_a_fifo_at_git_config_does_not_hold_session_start(make_clone, tmp_path, git_env, remote):
    make_clone("a")
    b = _plain_clone(tmp_path, git_env, remote, "b")
    b.team_file.write_text(
        '@meta format=agd version=1 [#meta]\n\n@x-project desc="deploys on fridays" [#deploy]\n~~~\nx\n~~~\n'
    )
    config = b.path / ".git" / "config"
    config.unlink()
    os.mkfifo(config)
    started = _session_start(b, via_runner=True)
    assert started.returncode == 0
    assert (
        "# Memory (agd-memory)"
        in json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
    )
