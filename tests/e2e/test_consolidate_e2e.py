"""End to end: `agd-memory consolidate --apply` asks the real `claude -p` (against the fake
Messages API) with the consolidation schema, and the recorded plan lands in the seeded
memory through the store's one write path.

Skipped when `AGD_E2E_CLAUDE` is unset (see `tests/e2e/conftest.py`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from e2e_harness import REPO, Reply, base_env, claude_binary

from agd.parser import parse
from agd.refs import block_citations

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DATA = REPO / "tests" / "data" / "consolidate"


def test_the_real_cli_takes_the_schema_and_its_answer_is_applied(
    claude, fake_api, e2e_project
) -> None:
    # `claude` (the fixture) is requested only so the harness skips this test without a CLI.
    recorded = json.loads((DATA / "recorded.json").read_text(encoding="utf-8"))
    answer = Reply.tool_use("StructuredOutput", recorded["answer"])
    fake_api.responder = lambda request: (
        answer if "StructuredOutput" in request.tool_names else None
    )
    memory = e2e_project.root / "memory.agd"
    shutil.copyfile(DATA / "memory.agd", memory)
    original = memory.read_bytes()
    env = {
        **base_env(e2e_project, fake_api.url),
        "AGD_MEMORY_FILE": str(memory),
        "AGD_DISTILL_CLAUDE": claude_binary() or "",
        "AGD_DISTILL_RETRIES": "1",
        "AGD_DISTILL_TIMEOUT_S": "90",
    }
    run = subprocess.run(
        [sys.executable, str(REPO / "bin" / "agd-memory"), "consolidate", "--apply"],
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "12 changes from 1 claude call" in run.stdout
    blocks = {b.id: b for b in parse(memory.read_text(encoding="utf-8")).blocks if b.id}
    expected = recorded["expected"]
    assert not set(expected["deleted"]) & set(blocks)
    assert all(blocks[i].attrs.get("status") == "superseded" for i in expected["superseded"])
    assert all(c in blocks for b in blocks.values() for c in block_citations(b))
    assert memory.with_name("memory.agd.bak").read_bytes() == original

    (request,) = [r for r in fake_api.messages_requests() if "StructuredOutput" in r.tool_names]
    assert request.tool_names == ["StructuredOutput"], "the headless run is offered no other tool"
    sent = request.all_text()
    assert "You review one layer" in sent, "our prompt is the system prompt"
    assert 'id="hello-note"' in sent
    assert "ghp_" not in sent, "secrets are redacted before they are sent"
