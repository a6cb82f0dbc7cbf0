"""End to end: a real Claude Code session ends, our SessionEnd hook starts the detached
distiller, the distiller runs the real `claude -p` against the fake Messages API, the fake
answers with a structured result, and the block lands in the memory file.

Skipped when `AGD_E2E_CLAUDE` is unset (see `tests/e2e/conftest.py`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from e2e_harness import REPO, E2EProject, Reply, base_env, claude_binary

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PROPOSAL = {
    "kind": "x-project",
    "id": "queue-db",
    "desc": "Job queue runs on Postgres",
    "body": "Chosen over Redis for SKIP LOCKED (decided in the e2e session).",
    "status": "done",
    "supersedes": [],
    "scope": "project",
    "keys": ["background jobs", "skip locked", "coda lavori"],
}


def run_session(
    project: E2EProject, api_url: str, prompt: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """`claude -p` with the plugin loaded and the session persisted (the distiller reads its transcript)."""
    binary = claude_binary()
    assert binary is not None
    argv = [
        binary,
        "-p",
        prompt,
        "--plugin-dir",
        str(REPO),
        "--output-format",
        "json",
        "--allowedTools",
        "Write",
    ]
    full_env = {**base_env(project, api_url), **env}
    proc = subprocess.Popen(
        argv,
        cwd=project.project,
        env=full_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"claude -p did not finish\nstderr: {err[-2000:]}")
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def find_runs(home: Path) -> list[dict]:
    """Every run logged under `home`: Claude Code picks the plugin's data folder, so search.

    `os.walk` rather than `Path.rglob`: the CLI creates and removes lock files under `home`
    while we look, and a folder that vanishes mid-walk must be skipped, not raise.
    """
    runs = []
    for folder, _dirs, files in os.walk(home):
        if os.path.basename(folder) == "distill" and "runs.jsonl" in files:
            text = Path(folder, "runs.jsonl").read_text()
            runs += [json.loads(line) for line in text.splitlines() if line.strip()]
    return runs


def test_a_finished_session_is_distilled_by_the_real_cli(claude, fake_api, e2e_project) -> None:
    # `claude` (the fixture) is requested only so the harness skips this test without a CLI.
    structured = Reply.tool_use("StructuredOutput", {"proposals": [PROPOSAL]})
    fake_api.responder = lambda request: (
        structured if "StructuredOutput" in request.tool_names else None
    )
    target = e2e_project.project / "migrations.sql"
    fake_api.script(
        Reply.tool_use(
            "Write", {"file_path": str(target), "content": "CREATE TABLE jobs (id bigserial);\n"}
        ),
        Reply.text("Created the jobs table; the queue now uses Postgres with SKIP LOCKED."),
    )
    # The resolver takes its home from AGD_MEMORY_HOME (else the real home): pin it for both
    # this process and the session, so the test and the hooks agree on the file.
    e2e_project.env["AGD_MEMORY_HOME"] = str(e2e_project.home)
    memory = e2e_project.memory_path()
    env = {
        "AGD_DISTILL_CLAUDE": claude_binary() or "",
        "AGD_DISTILL_RETRIES": "1",
        "AGD_DISTILL_TIMEOUT_S": "90",
        "AGD_MEMORY_TODAY": "2026-11-30",
    }
    session = run_session(
        e2e_project, fake_api.url, "Use Postgres for the job queue: create the jobs table.", env
    )
    assert session.returncode == 0, session.stderr[-2000:]
    assert target.exists(), "the scripted Write ran in the session"

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not find_runs(e2e_project.home):
        time.sleep(0.2)
    runs = find_runs(e2e_project.home)
    assert memory.exists() and "#queue-db" in memory.read_text(), f"runs: {runs}"

    from agd_memory import store
    from agd_memory.settings import Settings

    mf = store.MemoryFile(
        memory, layer="project", settings=Settings.load(e2e_project.settings_env())
    )
    (entry,) = [e for e in mf.entries() if e.id == "queue-db"]
    assert entry.kind == "x-project" and "SKIP LOCKED" in entry.body
    assert entry.attrs["keys"] == "background jobs, skip locked, coda lavori"

    (distill,) = [r for r in fake_api.messages_requests() if "StructuredOutput" in r.tool_names]
    assert distill.tool_names == ["StructuredOutput"], "the headless run is offered no other tool"
    text = distill.all_text()
    assert "Use Postgres for the job queue" in text, "the session excerpt reached the model"
    assert "TOOL CALL: Write" in text
    assert "You distil a finished Claude Code session" in text, "our prompt is the system prompt"
    assert "<memory-toc>" in text
    assert [r["outcome"] for r in runs] == ["saved"]
