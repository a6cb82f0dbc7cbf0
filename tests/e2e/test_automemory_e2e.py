"""Claude Code's own auto memory left on (its default), then `setup` and `import`.

Before: the model gets both memories, Claude Code's memory instructions with its
`MEMORY.md` index and our table of contents. After `agd-memory setup --apply` and
`agd-memory import claude-memory --apply`: only ours, with the imported facts in the TOC.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from e2e_harness import REPO, E2EProject, base_env

pytestmark = pytest.mark.e2e

MEMORY = (REPO / "tests" / "hooks" / "fixtures" / "project-memory.agd").read_text(encoding="utf-8")
TOPIC = """---
name: redis-for-integration-tests
description: Integration tests need Redis on port 6379
metadata:
  type: project
modified: 2026-11-02T10:00:00Z
---
The integration suite talks to a local Redis on 6379; start it with `make redis`.
"""
INDEX_LINE = "- [Redis for tests](redis.md) — integration tests need Redis on 6379"
AUTO_MEMORY_PROMPT = "You have a persistent file-based memory at"
TOC_LINE = "#redis-for-integration-tests"


def agd_memory(project: E2EProject, fake_url: str, *argv: str) -> str:
    env = {**base_env(project, fake_url), "AGD_DISTILL_DISABLED": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "agd_memory.cli", *argv],
        cwd=project.project,
        env={**env, "PYTHONPATH": str(REPO / "src")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_both_memories_reach_the_model_until_setup_and_import(
    claude, fake_api, e2e_project
) -> None:
    memory = e2e_project.write_memory(MEMORY)
    folder = memory.parent
    (folder / "redis.md").write_text(TOPIC, encoding="utf-8")
    (folder / "MEMORY.md").write_text(INDEX_LINE + "\n", encoding="utf-8")

    before = claude("Which port does the integration Redis use?")
    assert before.ok, before.diagnose()
    sent = before.conversation[0].all_text()
    assert AUTO_MEMORY_PROMPT in sent and str(folder) in sent  # Claude Code's memory
    assert INDEX_LINE in sent  # its MEMORY.md index
    assert "SessionStart hook additional context" in sent  # and our TOC
    assert TOC_LINE not in sent

    out = agd_memory(e2e_project, fake_api.url, "setup", "--apply")
    assert "set autoMemoryEnabled: false in " + str(e2e_project.config_dir / "settings.json") in out
    settings = json.loads((e2e_project.config_dir / "settings.json").read_text(encoding="utf-8"))
    assert settings["autoMemoryEnabled"] is False
    out = agd_memory(e2e_project, fake_api.url, "import", "claude-memory", "--apply")
    assert "imported 1 entries" in out

    after = claude("Which port does the integration Redis use?")
    assert after.ok, after.diagnose()
    sent = after.conversation[0].all_text()
    assert AUTO_MEMORY_PROMPT not in sent and INDEX_LINE not in sent
    assert "SessionStart hook additional context" in sent and TOC_LINE in sent
    assert (folder / "redis.md").read_text(encoding="utf-8") == TOPIC  # originals kept
