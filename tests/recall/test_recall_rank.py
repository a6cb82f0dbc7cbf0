"""Companions: once a block passes every gate, the other blocks the prompt names come
along in the places left, within a small budget; they never start an injection (issue 26)."""

from __future__ import annotations

from recall_helpers import FILLER, ListFile, entry, ids

from agd_memory.recall import engine, policy
from agd_memory.recall.eval import variants
from agd_memory.recall.eval.features import DEFAULT

PROJECT = [
    entry(
        "backup-restic",
        desc="nightly backups: restic to Backblaze, kept 30 days",
        body="The nightly backup job runs restic at 02:00 and keeps 30 daily snapshots in"
        " Backblaze B2.",
    ),
    entry(
        "restore-runbook",
        desc="restore runbook: how to get a snapshot back",
        body="Restore with restic restore latest --target /srv/restore; check the checksum"
        " list first.",
    ),
    entry(
        "grafana-owner",
        desc="Grafana dashboards belong to Luca",
        body="Luca owns the dashboards and the alert rules.",
    ),
    *FILLER,
]
BOTH = (
    "the nightly backup failed with restic errors at 2am, could we restore last week's"
    " snapshot from Backblaze?"
)


def test_a_block_the_prompt_names_joins_the_block_that_answers_it(make_settings) -> None:
    """The restore runbook holds too little of this prompt to pass on its own, but the
    user asks for a restore: it comes second, after the backup entry."""
    settings = make_settings()
    assert ids(BOTH, PROJECT, settings) == ["backup-restic", "restore-runbook"]
    assert ids(BOTH, PROJECT, settings, DEFAULT - {"companions"}) == ["backup-restic"]


def test_companions_never_start_an_injection(make_settings) -> None:
    """Both blocks hold a share of this prompt and name its words, yet none passes the
    gates: nothing is injected, so a companion cannot add a false injection."""
    settings = make_settings()
    prompt = (
        "the nightly backup failed with restic errors at 2am while the pharmacy app was"
        " upgrading, could we restore something?"
    )
    result = variants.recall(prompt, [ListFile(PROJECT)], settings, DEFAULT)
    assert result.skipped == policy.NO_MATCH
    assert result.chosen == []


def test_a_companion_that_would_pass_the_companion_budget_stays_out(make_settings) -> None:
    long_runbook = entry(
        "restore-runbook",
        desc="restore runbook: how to get a snapshot back",
        body="Restore with restic restore latest --target /srv/restore. " * 30,
    )
    project = [long_runbook if e.id == "restore-runbook" else e for e in PROJECT]
    settings = make_settings()
    assert len(long_runbook.to_agd()) > engine.COMPANION_TOKENS * policy.CHARS_PER_TOKEN
    assert ids(BOTH, project, settings) == ["backup-restic"]
