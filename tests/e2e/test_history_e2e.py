"""End to end: a real Claude Code session ends, the SessionEnd worker keeps its exchanges in
the session history, and in the next session the model's `agd_memory_search` with
scope "history" returns that exchange with its date. Then `history import` reads a folder
of Claude Code transcripts of every record shape without a traceback.

Skipped when `AGD_E2E_CLAUDE` is unset (see `tests/e2e/conftest.py`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from e2e_harness import MCP_PREFIX, REPO, Reply

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ERROR = "E_LEDGER_SHARD_7731: shard 7 unreachable after 3 retries"


def history_files(e2e_project) -> list:
    folder = e2e_project.memory_path().parent / "history"
    return sorted(folder.glob("*/*.agd")) if folder.is_dir() else []


def test_a_session_is_kept_and_the_next_one_finds_it(claude, fake_api, e2e_project) -> None:
    e2e_project.env["AGD_MEMORY_HOME"] = str(e2e_project.home)
    env = {"AGD_HISTORY_DISABLED": "0", "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}
    fake_api.script(Reply.text(f"The nightly job failed with {ERROR}; I restarted the shard."))
    first = claude("why did the nightly ledger job fail?", env=env, persist_session=True)
    assert first.ok, first.diagnose()

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not history_files(e2e_project):
        time.sleep(0.2)
    (kept,) = history_files(e2e_project)
    text = kept.read_text()
    assert "user: why did the nightly ledger job fail?" in text and ERROR in text

    search = MCP_PREFIX + "agd_memory_search"
    fake_api.script(
        Reply.tool_use("ToolSearch", {"query": "select:" + search}),
        Reply.tool_use(
            "agd_memory_search", {"query": "ledger shard error nightly", "scope": "history"}
        ),
        Reply.text("It was E_LEDGER_SHARD_7731."),
    )
    second = claude("what was the exact error of the nightly job?", env=env, allowed_tools=[search])
    assert second.ok, second.diagnose()
    result = second.conversation[2].tool_results()[-1]
    assert ERROR in result
    day = time.strftime("%Y-%m-%d", time.gmtime())
    assert f"(history, session {kept.stem}, {day}" in result


def test_history_import_reads_every_record_shape(tmp_path, e2e_project) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    sid = "0b9d2a57-1111-4c1e-9f00-aaaaaaaaaaaa"
    records = [
        {"type": "summary", "summary": "Ledger work", "leafUuid": "x"},
        {
            "type": "user",
            "sessionId": sid,
            "uuid": "u1",
            "timestamp": "2026-11-02T10:00:00.000Z",
            "message": {"role": "user", "content": "run the ledger tests"},
        },
        {
            "type": "assistant",
            "sessionId": sid,
            "timestamp": "2026-11-02T10:00:02.000Z",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm"},
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": "pytest -q tests/ledger"},
                    },
                ],
            },
        },
        {
            "type": "user",
            "sessionId": sid,
            "timestamp": "2026-11-02T10:00:09.000Z",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "3 failed"}],
                        "is_error": True,
                    }
                ],
            },
        },
        {
            "type": "user",
            "sessionId": sid,
            "isSidechain": True,
            "message": {"role": "user", "content": "subagent"},
        },
        {
            "type": "user",
            "sessionId": sid,
            "isMeta": True,
            "message": {
                "role": "user",
                "content": "<local-command-caveat>c</local-command-caveat>",
            },
        },
        {
            "type": "user",
            "sessionId": sid,
            "isCompactSummary": True,
            "message": {"role": "user", "content": "summary"},
        },
        {"type": "attachment", "sessionId": sid},
        {
            "type": "assistant",
            "sessionId": sid,
            "timestamp": "2026-11-02T10:00:12.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Three ledger tests fail on rounding."}],
            },
        },
    ]
    (folder / f"{sid}.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records) + '{"type": "user", "mess'
    )
    (folder / "binary.jsonl").write_bytes(os.urandom(2000))
    (folder / "empty.jsonl").write_text("")
    env = {
        **os.environ,
        **e2e_project.settings_env(),
        "AGD_MEMORY_PROJECT_CWD": str(e2e_project.project),
    }
    proc = subprocess.run(
        [sys.executable, str(REPO / "bin" / "agd-memory"), "history", "import", str(folder)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout.startswith("1 exchanges from 1 sessions"), proc.stdout
    hits = json.loads(
        subprocess.run(
            [
                sys.executable,
                str(REPO / "bin" / "agd-memory"),
                "search",
                "--scope",
                "history",
                "--json",
                "ledger rounding",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    )
    assert hits[0]["session"] == sid and hits[0]["at"] == "2026-11-02T10:00:00Z"
    assert (
        "tool: Bash command=pytest -q tests/ledger" in hits[0]["text"]
        and "3 failed" not in hits[0]["text"]
    )
