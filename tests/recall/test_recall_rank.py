"""After the gates (issue 26): blocks rank by their score times their share of the prompt
(share-rank), and once one passes every gate, the others the prompt names come along in the
places left, within a small budget (companions), which never start an injection."""

from __future__ import annotations

from recall_helpers import FILLER, ListFile, entry, ids
from test_recall_parts import PROJECT

from agd_memory.recall import engine, policy
from agd_memory.recall.eval import variants
from agd_memory.recall.eval.features import DEFAULT

BOTH = "two things: the B2 multipart checksum failures, and is the daemon deadlock back?"


def test_a_block_the_prompt_names_joins_the_block_that_answers_it(make_settings) -> None:
    """The deadlock entry holds too little of this prompt to pass on its own, but the user
    asks about it too: it comes second, after the entry on the checksum failures."""
    settings = make_settings()
    assert ids(BOTH, PROJECT, settings) == ["bug-etag", "watcher-deadlock"]
    assert ids(BOTH, PROJECT, settings, DEFAULT - {"companions"}) == ["bug-etag"]


def test_companions_never_start_an_injection(make_settings) -> None:
    """The deadlock entry names this prompt's words and holds the share a companion needs,
    but no block passes the gates: nothing is injected, so a companion cannot add a false
    injection."""
    settings = make_settings()
    prompt = (
        "while repainting the kitchen and fixing the garden fence I kept thinking of that"
        " daemon deadlock"
    )
    result = variants.recall(prompt, [ListFile(PROJECT)], settings, DEFAULT)
    assert result.skipped == policy.NO_MATCH
    assert result.chosen == []


def test_a_companion_that_would_pass_the_companion_budget_stays_out(make_settings) -> None:
    long_deadlock = entry(
        "watcher-deadlock",
        desc="daemon deadlock: the watcher held the catalog lock across an await",
        body="quarryd stopped uploading after hours; the watcher kept the mutex. " * 30,
    )
    project = [long_deadlock if e.id == "watcher-deadlock" else e for e in PROJECT]
    assert len(long_deadlock.to_agd()) > engine.COMPANION_TOKENS * policy.CHARS_PER_TOKEN
    assert ids(BOTH, project, make_settings()) == ["bug-etag"]


def test_the_block_that_accounts_for_more_of_the_prompt_ranks_first(make_settings) -> None:
    """share-rank: the staging entry matches `staging database` in its id and desc (the
    higher score), but the incident the user asks about is the other one, which holds
    most of the prompt: score times share puts it first."""
    project = [
        entry(
            "staging-database",
            desc="staging database: a copy of the production database, refreshed weekly",
            body="The staging database is restored from Sunday's production backup; the"
            " staging database user is read-write.",
        ),
        entry(
            "tmp-cleanup",
            desc="temp files removed after each batch",
            body="The nightly import kept its temp files until the disk ran out of space,"
            " twice in May; they are now removed after each batch.",
        ),
        *FILLER,
    ]
    settings = make_settings()
    prompt = "staging database out of disk space during the nightly import"
    assert ids(prompt, project, settings) == ["tmp-cleanup", "staging-database"]
    assert ids(prompt, project, settings, DEFAULT - {"share-rank"}) == [
        "staging-database",
        "tmp-cleanup",
    ]
