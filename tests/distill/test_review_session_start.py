"""SessionStart tells the user, not the model, when proposals wait for review (issue 19 §1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agd_memory import store
from agd_memory.distill import review

LAUNCHER = Path(__file__).resolve().parents[2] / "bin" / "agd-memory"


def session_start(cwd: Path) -> dict:
    data = Path(os.environ["CLAUDE_PLUGIN_DATA"])  # past the first session's notice
    data.mkdir(parents=True, exist_ok=True)
    (data / "first-session-told").touch()
    payload = {
        "session_id": "s-1",
        "transcript_path": str(cwd / "t.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    done = subprocess.run(
        [sys.executable, str(LAUNCHER), "hook", "session-start"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout) if done.stdout.strip() else {}


def test_waiting_proposals_are_one_line_for_the_user(env) -> None:
    cwd = env.project("app")
    mf = store.MemoryFile(env.memory_file(cwd), settings=env.settings())
    mf.save("x-project", "db", "We use Postgres 16.", desc="database")
    assert "systemMessage" not in session_start(cwd)

    review.enqueue(
        mf,
        [
            review.Proposal.save("x-project", "ci", "CI runs on Forgejo.", desc="ci host"),
            review.Proposal.save("x-project", "lint", "Ruff, not flake8.", desc="linter"),
        ],
        source="distill",
    )
    out = session_start(cwd)
    assert out["systemMessage"] == (
        "agd-memory: 2 proposals waiting for review — /agd-memory:review "
        "(in a shell: `agd-memory review`)"
    )
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "#db" in context and "review" not in context and "#ci" not in context


def test_proposals_for_a_memory_not_yet_written_are_told_too(env) -> None:
    cwd = env.project("fresh")
    mf = store.MemoryFile(env.memory_file(cwd), settings=env.settings())
    review.enqueue(mf, [review.Proposal.save("x-project", "a", "A fact.")], source="distill")
    assert not mf.exists()
    assert session_start(cwd)["systemMessage"].startswith("agd-memory: 1 proposal waiting")
