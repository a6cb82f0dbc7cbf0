"""History through what the model reads: `agd_memory_search`/`agd_memory_get` with
scope "history" (in-memory MCP session on the official SDK) and the SessionStart line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcp"))

from mcp_fixtures import Memory, call_tools  # noqa: E402

from agd_memory.claude import hooks  # noqa: E402
from agd_memory.history import exchanges, files  # noqa: E402

ERROR = "FATAL: relation quux_ledger_v7 violates check constraint ck_amount_positive"


def seed_history(m: Memory) -> None:
    folder = files.folder_of(m.project_file)
    ex = [
        exchanges.Exchange(
            "sess-a", 1, "2026-10-01T08:00:00Z", "user: set up the repo\nassistant: done"
        ),
        exchanges.Exchange(
            "sess-a",
            2,
            "2026-10-01T08:05:00Z",
            f"user: run the migration\nassistant: it failed: {ERROR}",
        ),
        exchanges.Exchange(
            "sess-a", 3, "2026-10-01T08:09:00Z", "user: fix it\nassistant: fixed the sign"
        ),
    ]
    files.write(folder, exchanges.Read("sess-a", ex, 0))


def test_search_scope_history_names_session_date_position_and_the_text(tmp_path):
    m = Memory(tmp_path)
    m.seed()
    seed_history(m)
    (res,) = call_tools(
        m.server(),
        [("agd_memory_search", {"query": "migration constraint error", "scope": "history"})],
    )
    assert not res.is_error, res.text
    first = res.text.split("\n")[1]
    assert first.startswith(
        "#h-sess-a-2 (history, session sess-a, 2026-10-01 08:05 UTC, exchange 2)"
    )
    assert ERROR in res.text
    (plain,) = call_tools(
        m.server(), [("agd_memory_search", {"query": "quux_ledger_v7 constraint"})]
    )
    assert ERROR not in plain.text  # the default scope stays the curated layers


def test_get_scope_history_returns_the_neighbours(tmp_path):
    m = Memory(tmp_path)
    m.seed()
    seed_history(m)
    (res,) = call_tools(
        m.server(), [("agd_memory_get", {"id": "h-sess-a-2", "scope": "history", "context": 1})]
    )
    assert not res.is_error
    assert [line.split()[0] for line in res.text.splitlines() if line.startswith("#")] == [
        "#h-sess-a-1",
        "#h-sess-a-2",
        "#h-sess-a-3",
    ]
    (missing,) = call_tools(
        m.server(), [("agd_memory_get", {"id": "h-sess-b-1", "scope": "history"})]
    )
    assert missing.is_error and "not in the history: #h-sess-b-1" in missing.text


def test_session_start_says_history_exists_and_how_far_back(tmp_path):
    m = Memory(tmp_path)
    m.seed()
    payload = hooks.parse_payload(
        json.dumps({"hook_event_name": "SessionStart", "cwd": str(m.project_dir)}).encode()
    )
    assert "Session history" not in (hooks.session_start(payload, m.settings) or "")
    seed_history(m)
    hooks._LAYERS.clear()
    text = hooks.session_start(payload, m.settings) or ""
    assert "Session history: the exchanges of 1 past session of this project since 2026-10" in text
    assert 'scope="history"' in text
