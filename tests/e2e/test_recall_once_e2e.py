"""A block auto-recall injected once is not injected again in the same conversation.

The context a prompt hook adds stays in the conversation: a resumed session sends it
back to the model with every later request. So the second prompt about the same fact
names the block (id and desc) instead of repeating its text; after a compaction, which
summarizes the earlier turns away, the block comes in whole again.
"""

from __future__ import annotations

import pytest
from e2e_harness import REPO

pytestmark = pytest.mark.e2e

MEMORY = (REPO / "tests" / "hooks" / "fixtures" / "project-memory.agd").read_text(encoding="utf-8")
BODY = "never directly on 5432"


def last_request_text(run) -> str:
    assert run.ok, run.diagnose()
    assert run.conversation, run.diagnose()
    return run.conversation[-1].message_text()


def ask_twice(claude, between: str | None = None) -> str:
    """Ask about the stored fact, resume the session (after `between`, a slash command, if
    given) and ask again: the text of the last request the model got."""
    first = claude(
        "Which port does pgbouncer use for the staging Postgres database?", persist_session=True
    )
    assert BODY in last_request_text(first)
    resume = ["--resume", first.result["session_id"]]
    if between:
        run = claude(between, args=resume, persist_session=True)
        assert run.ok, run.diagnose()
    again = claude(
        "Remind me, the staging Postgres goes through pgbouncer on which port?",
        args=resume,
        persist_session=True,
    )
    return last_request_text(again)


def test_a_resumed_session_gets_a_block_it_already_holds_once(claude, e2e_project) -> None:
    e2e_project.write_memory(MEMORY)
    text = ask_twice(claude)
    # The first turn's injection is still in the conversation; the second names the block.
    assert text.count(BODY) == 1, text[-4000:]
    assert "#project-staging-pgbouncer injected earlier" in text.rsplit(BODY, 1)[1]


def test_after_a_compaction_the_block_comes_whole_again(claude, e2e_project) -> None:
    e2e_project.write_memory(MEMORY)
    text = ask_twice(claude, between="/compact")
    # The summary replaced the first turn (the fake model's summary does not quote it).
    assert text.count(BODY) == 1, text[-4000:]
    assert "injected earlier" not in text
