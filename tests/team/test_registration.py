"""A clone made without `team init` has the committed `.gitattributes` line but no merge
driver: doctor says so and what to run, SessionStart registers it silently, and the check
costs a repository without a team layer no git process."""

from __future__ import annotations

import json
import subprocess
import sys
import time
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


def _session_start(clone: Clone) -> subprocess.CompletedProcess[str]:
    data = Path(clone.env["CLAUDE_PLUGIN_DATA"])
    data.mkdir(parents=True, exist_ok=True)
    (data / "venv-not-needed").write_text(sys.executable + "\n", encoding="utf-8")
    payload = {"session_id": "s", "cwd": str(clone.path / "src"), "hook_event_name": "SessionStart"}
    (clone.path / "src").mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, str(BIN), "hook", "session-start"],
        input=json.dumps(payload),
        env=clone.env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_doctor_reports_the_missing_driver_and_session_start_registers_it(
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

    started = _session_start(b)
    assert started.returncode == 0 and "merge" not in started.stdout  # silent to the model
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


def test_no_git_runs_without_the_gitattributes_line_or_once_registered(tmp_path, monkeypatch):
    def no_git(*args, **kwargs):
        raise AssertionError("git ran on SessionStart")

    monkeypatch.setattr(subprocess, "run", no_git)
    settings = Settings(data_dir=tmp_path / "data")
    plain = tmp_path / "plain"
    (plain / ".git").mkdir(parents=True)
    (plain / ".gitattributes").write_text("*.png binary\n", encoding="utf-8")
    assert registration.ensure(settings, plain) == ()
    assert registration.ensure(settings, tmp_path / "outside") == ()
    done = tmp_path / "registered"
    (done / ".git").mkdir(parents=True)
    (done / ".gitattributes").write_text(".claude/memory.agd merge=agd-memory\n", encoding="utf-8")
    (done / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[merge "agd-memory"]\n\tname = x\n\tdriver = /x/launcher %O %A %B %P\n',
        encoding="utf-8",
    )
    assert registration.ensure(settings, done / "sub") == ()
    # a commented-out or other driver does not count
    (done / ".git" / "config").write_text('[merge "other"]\n\tdriver = y\n', encoding="utf-8")
    assert not registration.registered_in_config(done)


def test_the_check_costs_a_repository_without_a_team_layer_almost_nothing(tmp_path, capsys):
    """Measured, not asserted: the per-SessionStart cost printed with -s."""
    settings = Settings(data_dir=tmp_path / "data")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    runs = 2000
    began = time.perf_counter()
    for _ in range(runs):
        assert registration.ensure(settings, repo) == ()
    per_call = (time.perf_counter() - began) / runs
    with capsys.disabled():
        print(f"\nregistration.ensure without a team layer: {per_call * 1e6:.1f} µs per call")
