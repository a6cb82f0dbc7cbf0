"""End to end: recall misses a prompt, the model looks the entry up with `agd_memory_get`,
the session ends, the SessionEnd worker asks the real `claude -p` (against the fake
Messages API, answering from the prompt it is sent) for the user's words, and the next
session's paraphrase is recalled.

Skipped when `AGD_E2E_CLAUDE` is unset (see `tests/e2e/conftest.py`).
"""

from __future__ import annotations

import re
import time

import pytest
from e2e_harness import MCP_PREFIX, Reply, claude_binary

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# 12 keys an entry (rules.MIN_KEYS): no background keys run joins the conversations below
MEMORY = """@meta format=agd version=1 [#meta]

@h1 Project memory [#root]

@x-project desc="Timestamps are stored in UTC, rendered in the user's zone" keys="timezone, utc, daylight saving, datetime, dst, time zone, naive datetime, summer time, local time, offset, tzinfo, zoneinfo" [#tz-bug]
~~~
The March bug: naive datetimes shifted reports by one hour at DST.
~~~

@x-project desc="Deploys go through the blue-green switch" keys="deployment, release, rollout, blue green, switch, traffic, health check, make release, deploy script, cutover, canary, production" [#deploy-flow]
~~~
Run make release; the switch flips traffic after health checks pass.
~~~
"""
FIRST = "why did the nightly numbers in the weekly report come out an hour off after the clocks changed?"
SECOND = "the clocks changed and the report is an hour off again, what was that about?"
USERS_WORDS = ("clocks changed", "hour off")


def answer_as_a_model(request) -> Reply | None:
    """The keys a model would pick: the user's phrases for each entry sent, when present."""
    if "StructuredOutput" not in request.tool_names:
        return None
    text = request.all_text()
    if "<lookups>" not in text:
        return Reply.tool_use("StructuredOutput", {"proposals": []})
    entries = []
    for block_id, body in re.findall(r'<entry id="([^"]+)"[^>]*>(.*?)</entry>', text, re.S):
        asked = " ".join(re.findall(r"^request: (.*)$", body, re.M)).lower()
        entries.append({"id": block_id, "keys": [w for w in USERS_WORDS if w in asked]})
    return Reply.tool_use("StructuredOutput", {"entries": entries})


def test_a_lookup_after_a_missed_prompt_teaches_recall_the_users_words(
    claude, fake_api, e2e_project
) -> None:
    e2e_project.env["AGD_MEMORY_HOME"] = str(e2e_project.home)
    memory = e2e_project.write_memory(MEMORY)
    fake_api.responder = answer_as_a_model
    get = MCP_PREFIX + "agd_memory_get"
    env = {
        "AGD_DISTILL_DISABLED": "0",
        "AGD_DISTILL_CLAUDE": claude_binary() or "",
        "AGD_DISTILL_RETRIES": "1",
        "AGD_DISTILL_TIMEOUT_S": "90",
    }
    fake_api.script(
        Reply.tool_use("ToolSearch", {"query": "select:" + get}),
        Reply.tool_use("agd_memory_get", {"id": "tz-bug"}),
        Reply.text("Naive datetimes shifted the reports by an hour at DST."),
    )
    first = claude(FIRST, env=env, allowed_tools=[get], persist_session=True)
    assert first.ok, first.diagnose()
    assert "[agd-memory:auto-recall]" not in first.conversation[0].all_text(), "recall missed it"
    assert "The March bug" in first.conversation[2].tool_results()[-1]

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and "clocks changed" not in memory.read_text():
        time.sleep(0.3)
    text = memory.read_text()
    assert 'keys="clocks changed, hour off, timezone, utc' in text, text
    assert text.count("clocks changed") == 1, "only the entry looked up learns"

    fake_api.script(Reply.text("That was the DST bug."))
    second = claude(SECOND, env={"AGD_DISTILL_DISABLED": "1"})
    assert second.ok, second.diagnose()
    sent = second.conversation[0].all_text()
    assert "[agd-memory:auto-recall]" in sent and "#tz-bug" in sent
