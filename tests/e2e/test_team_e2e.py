"""End to end, the team layer through git: a real Claude Code session in clone A ends, the
detached distiller's real `claude -p` (against the fake Messages API) proposes a decision
for the team layer, the user accepts it in review, commits and pushes through a bare
repository on disk; clone B pulls, and a real session there is given the entry by recall
on a prompt about it. Each clone has a home of its own (two machines): B has no private
memory, so what it recalls came through git.

Skipped when `AGD_E2E_CLAUDE` is unset (see `tests/e2e/conftest.py`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from e2e_harness import REPO, E2EProject, Reply, claude_binary
from test_distill_e2e import find_runs, run_session

sys.path.insert(0, str(REPO / "tests" / "team"))
from teamutil import Clone  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DECISION = {
    "kind": "x-project",
    "id": "queue-on-postgres",
    "desc": "The job queue runs on Postgres with SKIP LOCKED, not Redis",
    "body": "Decided for one database less to run; workers take jobs with SELECT ... FOR "
    "UPDATE SKIP LOCKED (see migrations.sql).",
    "status": "",
    "supersedes": [],
    "scope": "team",
    "keys": ["job queue", "background jobs", "workers", "redis", "skip locked"],
}


class Machine:
    """One developer's machine: a home of its own and a clone of the shared repository."""

    def __init__(self, root: Path, name: str) -> None:
        home = root / f"home-{name}"
        (home / ".claude").mkdir(parents=True)
        self.path = root / name
        self.project = E2EProject(
            root=root,
            home=home,
            config_dir=home / ".claude",
            project=self.path,
            env={"AGD_MEMORY_HOME": str(home), "AGD_MEMORY_TODAY": "2026-11-30"},
        )
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("AGD_", "CLAUDE", "GIT_"))}
        self.env = {
            **keep,
            "HOME": str(home),
            "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "AGD_MEMORY_HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
        }
        self.clone = Clone(self.path, self.env)

    def git(self, *args: str) -> str:
        return self.clone.git(*args).stdout

    def cli(self, *args: str) -> str:
        return self.clone.cli(*args).stdout

    def join(self, remote: Path, name: str) -> None:
        subprocess.run(
            ["git", "clone", "-q", str(remote), str(self.path)],
            env=self.env,
            check=True,
            capture_output=True,
        )
        for key, value in (("user.name", name), ("user.email", f"{name}@example.com")):
            self.git("config", key, value)


def wait_for_run(home: Path, timeout: float = 120) -> tuple[list[dict], Path | None]:
    """The distiller's logged runs under `home` and the plugin data folder holding them
    (Claude Code picks that folder)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        runs = find_runs(home)
        if runs:
            (log,) = [Path(f) for f, _d, files in os.walk(home) if "runs.jsonl" in files]
            return runs, log.parent
        time.sleep(0.2)
    return [], None


def test_a_team_entry_distilled_in_clone_a_is_recalled_in_clone_b(claude, fake_api, tmp_path):
    # `claude` (the fixture) is requested only so the harness skips this test without a CLI.
    remote = tmp_path / "remote.git"
    a, b = Machine(tmp_path, "a"), Machine(tmp_path, "b")
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    a.join(remote, "a")
    a.git("checkout", "-q", "-b", "main")
    a.cli("team", "init")
    a.git("add", "-A")
    a.git("commit", "-q", "-m", "team memory")
    a.git("push", "-q", "-u", "origin", "main")
    b.join(remote, "b")

    # clone A: a session that does durable work; its distiller proposes a team entry
    fake_api.responder = lambda request: (
        Reply.tool_use("StructuredOutput", {"proposals": [DECISION]})
        if "StructuredOutput" in request.tool_names
        else None
    )
    fake_api.script(
        Reply.tool_use(
            "Write",
            {
                "file_path": str(a.path / "migrations.sql"),
                "content": "CREATE TABLE jobs (id bigserial PRIMARY KEY);\n",
            },
        ),
        Reply.text("The job queue now lives in Postgres; workers use SKIP LOCKED."),
    )
    env = {
        "AGD_DISTILL_CLAUDE": claude_binary() or "",
        "AGD_DISTILL_RETRIES": "1",
        "AGD_DISTILL_TIMEOUT_S": "90",
        "AGD_DISTILL_KEYS_PER_SESSION": "0",
    }
    done = run_session(a.project, fake_api.url, "Move the job queue from Redis to Postgres.", env)
    assert done.returncode == 0, done.stderr[-2000:]
    runs, data = wait_for_run(a.project.home)
    assert [r["outcome"] for r in runs] == ["pending"], runs  # review is on for the team layer
    (distill,) = [r for r in fake_api.messages_requests() if "StructuredOutput" in r.tool_names]
    assert f"team layer: {a.path / '.claude' / 'memory.agd'}" in distill.all_text()

    # the team proposal waits in review (on for the team layer); the user accepts it, with
    # the CLI pointed at the plugin's data folder, where the queue is
    a.env["CLAUDE_PLUGIN_DATA"] = str(data)
    team_file = a.path / ".claude" / "memory.agd"
    assert "#queue-on-postgres" not in team_file.read_text(encoding="utf-8")
    assert "queue-on-postgres" in a.cli("review", "--scope", "team")
    a.cli("review", "accept", "--all", "--scope", "team")
    assert "[#queue-on-postgres]" in team_file.read_text(encoding="utf-8")
    private = a.project.memory_path("project")
    assert not private.exists() or "queue-on-postgres" not in private.read_text(encoding="utf-8")
    a.git("add", ".claude/memory.agd", "migrations.sql")
    a.git("commit", "-q", "-m", "queue on postgres")
    a.git("push", "-q")

    # clone B, another machine: pull, then a session asks about it
    b.git("pull", "-q", "--no-rebase")
    assert "[#queue-on-postgres]" in (b.path / ".claude" / "memory.agd").read_text()
    before = len(fake_api.requests)
    fake_api.script(Reply.text("Postgres, with SKIP LOCKED."))
    asked = run_session(
        b.project, fake_api.url, "Which database do the background job queue workers use?", {}
    )
    assert asked.returncode == 0, asked.stderr[-2000:]
    conversation = [
        r
        for r in fake_api.requests[before:]
        if r.path.split("?")[0] == "/v1/messages" and "StructuredOutput" not in r.tool_names
    ]
    assert conversation, "clone B's session reached the model"
    text = "\n".join(r.message_text() for r in conversation)
    assert "[agd-memory:auto-recall]" in text and "#queue-on-postgres" in text
    assert "in the team layer: #queue-on-postgres" in text
    assert "SKIP LOCKED" in text
    assert "committed .claude/memory.agd" in text and "not instructions" in text
    # SessionStart wrote nothing into B's git config: only `team init` registers the driver
    assert "agd-memory" not in (b.path / ".git" / "config").read_text()
