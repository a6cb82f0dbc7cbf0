"""`agd-memory consolidate` on a memory seeded with duplicates, contradictions and junk
(`tests/data/consolidate/memory.agd`), the model side a fake `claude` answering from a
recorded plan (`recorded.json`): what the model is sent, what the plan prints, what
`--apply` leaves, and how a hostile answer is cut to the limits."""

from __future__ import annotations

import json
import re

import pytest
from consolidate_helpers import RECORDED, answer, blocks, unresolved

from agd.refs import block_citations
from agd.serializer import serialize_block
from agd_memory import store
from agd_memory.cli import main
from agd_memory.distill import consolidate as cons
from agd_memory.distill import review

SECRET = "ghp_4fT9xQ2LmZ8rW1vB7nK3pY6sD0aH5jE2cU9i"


def test_the_recorded_plan_prints_as_a_diff_and_applies_losing_nothing_meant_to_stay(
    env, fake_claude, memory, capsys
) -> None:
    original = memory.read_bytes()
    before = blocks(memory)
    assert unresolved(memory) == []
    fake_claude.script(answer(RECORDED["answer"]["changes"]))
    plan_file = env.root / "plan.json"

    assert main(["consolidate", "--plan-out", str(plan_file)]) == 0
    out = capsys.readouterr().out
    assert memory.read_bytes() == original  # a plan is not an acceptance
    assert "--- #hello-note\n+++ (deleted)" in out
    assert "-@x-project created=2026-06-20 desc=stuff updated" in out
    assert '+@x-project created=2026-06-20 desc="feature flags in LaunchDarkly' in out
    assert "12 changes from 1 claude call" in out

    assert main(["consolidate", "--from", str(plan_file), "--apply"]) == 0
    out = capsys.readouterr().out
    assert len(fake_claude.calls()) == 1  # the reviewed plan was applied, not asked again
    expected = RECORDED["expected"]
    after = blocks(memory)  # parses
    assert set(before) - set(after) == set(expected["deleted"])
    assert set(after) <= set(before)
    assert unresolved(memory) == []  # every id that is cited still resolves
    now_superseded = {i for i, b in after.items() if b.attrs.get("status") == "superseded"}
    assert now_superseded == set(expected["superseded"])
    assert "superseded #junk-cited instead of deleting it: it is cited" in out
    for block_id, desc in expected["descs"].items():
        assert after[block_id].attrs["desc"] == desc
    for block_id, refs in expected["refs"].items():
        assert set(refs) <= set(block_citations(after[block_id]))
    keeper = after["db-postgres"]
    assert set(block_citations(keeper)) >= {"db-choice-postgres", "database-postgres-16"}
    assert "PgBouncer" in keeper.value
    assert (
        after["db-choice-postgres"].value == before["db-choice-postgres"].value
    )  # kept, only marked
    changed = set(expected["deleted"]) | set(expected["superseded"]) | set(expected["descs"])
    changed |= set(expected["refs"]) | {"db-postgres", "user-prefers-neovim", "run-tests-pytest"}
    changed |= {"node-version-22", "deploy-flyio"}
    for block_id in set(after) - changed:
        assert serialize_block(after[block_id]) == serialize_block(before[block_id]), block_id
    assert memory.with_name("memory.agd.bak").read_bytes() == original
    assert "memory.agd.bak" in out


def test_the_model_is_sent_active_entries_as_data_with_secrets_redacted_and_no_tools(
    env, fake_claude, memory, capsys
) -> None:
    mf = store.MemoryFile(memory, layer="project", settings=env.settings())
    mf.save("x-project", "old-build", "Builds used Make.", desc="old build")
    mf.save(
        "x-project", "new-build", "Builds use just.", desc="new build", supersedes=["old-build"]
    )
    fake_claude.script(answer([]))
    assert main(["consolidate"]) == 0
    (call,) = fake_claude.calls()
    sent, argv = call["stdin"], call["argv"]
    assert argv[argv.index("--tools") + 1] == ""
    assert "--safe-mode" in argv
    assert not any("dangerously" in a or "permission" in a for a in argv)
    schema = json.loads(argv[argv.index("--json-schema") + 1])
    assert schema["properties"]["changes"]["maxItems"] == cons.MAX_CHANGES
    assert SECRET not in sent and "ghp_" not in sent
    assert sent.count("</entries>") == 1  # the pasted entry cannot close the list
    assert sent.count("<entries>") == 1
    assert 'id="pasted-instructions"' in sent
    assert 'id="new-build"' in sent and 'id="old-build"' not in sent  # superseded: done
    assert "nothing written" not in capsys.readouterr().out  # no changes, no dry-run line


HOSTILE_MERGES = [
    {"op": "merge", "id": "db-postgres", "others": ["x", "y", "z", "w"], "why": "four others"},
] + [
    {"op": "supersede", "id": keeper, "others": others, "why": "hostile"}
    for keeper, others in [
        ("money-decimal", ["celery-queues", "email-provider", "search-opensearch"]),
        ("tenancy-schema", ["feature-export-csv", "logging-structlog", "billing-pdf"]),
        ("api-pagination", ["api-rate-limits", "notes-api", "misc-1"]),
        ("incident-2026-05", ["orm-sqlalchemy", "node-version-22", "deploy-flyio"]),
        ("ci-pipeline", ["test-command", "run-tests-pytest", "small-prs"]),
        ("user-timezone", ["user-language", "user-commit-style", "user-prefers-neovim"]),
        ("no-mocks-db", ["ask-before-migrations", "hello-note", "user-editor-vim"]),
        ("staging-url", ["grafana-dashboards", "secrets-vault", "design-docs"]),
        ("runbook-db-failover", ["db-choice-postgres", "database-postgres-16", "node-version-18"]),
        ("deploy-heroku", ["ghost-entry", "tmp-scratch"]),
    ]
]
HOSTILE_DELETES = [
    {"op": "delete", "id": i, "why": "hostile"}
    for i in ("db-postgres", "deploy-heroku", "junk-cited", "db-choice-postgres", "never-shown")
]


@pytest.mark.parametrize("chunk_tokens", [12000, 600])
def test_a_hostile_plan_is_cut_to_what_the_limits_allow(
    env, fake_claude, memory, monkeypatch, capsys, chunk_tokens
) -> None:
    monkeypatch.setenv("AGD_CONSOLIDATE_CHUNK_TOKENS", str(chunk_tokens))
    before = blocks(memory)
    cited = {c for b in before.values() for c in block_citations(b) if c != b.id}
    fake_claude.script(answer(HOSTILE_DELETES + HOSTILE_MERGES))  # every chunk answers the same
    assert main(["consolidate", "--apply"]) == 0
    err = capsys.readouterr().err
    after = blocks(memory)
    shown: dict[int, set[str]] = {}
    for call in fake_claude.calls():
        shown[call["n"]] = set(re.findall(r'<entry id="([^"]+)"', call["stdin"]))
    if chunk_tokens < 1000:
        assert len(shown) > 1
        assert "not among the entries shown" in err
    seen_anywhere = set().union(*shown.values())
    active = [b for b in before.values() if b.kind.startswith("x-")]
    newly = {
        i
        for i, b in after.items()
        if b.attrs.get("status") == "superseded" and before[i].attrs.get("status") != "superseded"
    }
    deleted = set(before) - set(after)
    assert len(newly) <= cons.MAX_SUPERSEDED
    assert len(deleted) <= cons.MAX_DELETED
    assert len(newly) + len(deleted) <= int(len(active) * cons.MAX_SHARE)
    assert not deleted & cited  # a cited entry is superseded, never deleted
    assert unresolved(memory) == []
    assert (newly | deleted) <= seen_anywhere  # nothing the model was not shown
    assert set(after) <= set(before)  # no ghost entry appears
    assert after["db-postgres"].attrs.get("supersedes") is None  # four others: not believed
    assert "names 4 ids (at most 3)" in err
    assert f"16 changes in one answer: the first {cons.MAX_CHANGES} read" in err


def test_a_plan_skips_what_changed_after_it_was_made(env, fake_claude, memory, capsys) -> None:
    fake_claude.script(answer(RECORDED["answer"]["changes"]))
    plan_file = env.root / "plan.json"
    assert main(["consolidate", "--plan-out", str(plan_file)]) == 0
    mf = store.MemoryFile(memory, layer="project", settings=env.settings())
    mf.save("x-project", "tmp-scratch", "Check the PgBouncer pool size after the May outage.")
    mf.save("x-project", "misc-1", "Feature flags are in LaunchDarkly.", desc="my own desc")
    capsys.readouterr()
    assert main(["consolidate", "--from", str(plan_file), "--apply"]) == 0
    out = capsys.readouterr().out
    after = blocks(memory)
    assert "tmp-scratch" in after and after["misc-1"].attrs["desc"] == "my own desc"
    assert "skipped delete #tmp-scratch: #tmp-scratch changed since the plan was made" in out
    assert "ran-tests-once" not in after  # the rest of the plan still applies


def test_bad_input_is_one_line(env, fake_claude, memory, capsys) -> None:
    bad = env.root / "bad.json"
    bad.write_text('{"changes": 3}')
    assert main(["consolidate", "--from", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("agd-memory: --from ") and err.count("\n") == 1
    fake_claude.script({"exit": 1, "stderr": "Error: invalid model"})
    memory_before = memory.read_bytes()
    assert main(["consolidate", "--apply"]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert (
        err.startswith("agd-memory: consolidate: the claude run failed")
        and "nothing was written" in err
    )
    assert memory.read_bytes() == memory_before


def test_with_review_on_the_plan_waits_in_the_queue_until_accepted(
    env, fake_claude, memory, monkeypatch, capsys
) -> None:

    monkeypatch.setenv("AGD_DISTILL_REVIEW", "1")
    original = memory.read_bytes()
    fake_claude.script(answer(RECORDED["answer"]["changes"]))
    assert main(["consolidate"]) == 0
    out = capsys.readouterr().out
    assert memory.read_bytes() == original
    mf = store.MemoryFile(memory, layer="project", settings=env.settings())
    (item,) = review.pending(mf)
    assert item.op == "plan" and f"queued for review as {item.id}" in out
    assert "--- #hello-note\n+++ (deleted)" in item.diff
    assert main(["review", "accept", item.id]) == 0
    after = blocks(memory)
    assert "hello-note" not in after and after["misc-1"].attrs["desc"].startswith("feature flags")
    assert unresolved(memory) == [] and review.pending(mf) == []
    assert memory.with_name("memory.agd.bak").read_bytes() == original


def test_an_automatic_pass_with_review_on_only_queues(
    env, fake_claude, memory, monkeypatch
) -> None:

    monkeypatch.setenv("AGD_DISTILL_REVIEW", "1")
    original = memory.read_bytes()
    mf = store.MemoryFile(memory, layer="project", settings=env.settings())
    fake_claude.script(answer(RECORDED["answer"]["changes"]))
    cons.run_scheduled(
        env.settings(), mf, log=lambda _: None, submit=review.submit_plan, now=0.0
    )  # first seen
    assert cons.run_scheduled(
        env.settings(), mf, log=lambda _: None, submit=review.submit_plan, now=8 * 86400.0
    )
    assert memory.read_bytes() == original
    assert [i.op for i in review.pending(mf)] == ["plan"]


def test_an_entry_the_same_plan_makes_cited_is_superseded_not_deleted(
    env, fake_claude, memory, capsys
) -> None:
    fake_claude.script(
        answer(
            [
                {"op": "delete", "id": "tmp-scratch", "why": "placeholder"},
                {"op": "refs", "id": "api-pagination", "others": ["tmp-scratch"], "why": "related"},
            ]
        )
    )
    assert main(["consolidate", "--apply"]) == 0
    after = blocks(memory)
    assert after["tmp-scratch"].attrs["status"] == "superseded"
    assert "tmp-scratch" in block_citations(after["api-pagination"])
    assert unresolved(memory) == []
    assert "superseded #tmp-scratch instead of deleting it: it is cited" in capsys.readouterr().out


def test_a_plan_file_is_checked_like_a_save_and_leaves_no_backup_in_the_repository(
    env, monkeypatch, capsys
) -> None:
    import subprocess

    repo = env.root / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    assert main(["team", "init"]) == 0
    for block_id in ("deploy", "deploy-old", "ci", "db"):
        args = ["save", "x-project", block_id, "--scope", "team", "--content", f"on {block_id}"]
        assert main(args) == 0
    team = repo / ".claude" / "memory.agd"
    doc = store.MemoryFile(team, layer="team", settings=env.settings()).document()
    seen = {b.id: cons.fingerprint(b) for b in doc.blocks if b.id and b.kind.startswith("x-")}
    plan = repo.parent / "plan.json"

    def run(change: dict) -> int:
        plan.write_text(json.dumps({"path": str(team), "changes": [change], "seen": seen}))
        capsys.readouterr()
        return main(["consolidate", "--scope", "team", "--from", str(plan), "--apply"])

    token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    secret = {"op": "merge", "id": "deploy", "others": ["deploy-old"], "why": "dup"}
    assert run({**secret, "desc": "AKIAIOSFODNN7EXAMPLE", "body": f"token {token}"}) == 0
    assert token not in team.read_text() and "AKIAIOSFODNN7EXAMPLE" not in team.read_text()
    before = team.read_bytes()
    assert run({"op": "merge", "id": "ci", "others": ["db"], "body": "A" * 300_000}) == 1
    err = capsys.readouterr().err
    assert err.startswith("agd-memory: --from ") and err.count("\n") == 1
    assert run({"op": "delete", "id": ["ci"], "why": "x"}) == 1
    assert "`id`" in capsys.readouterr().err
    assert team.read_bytes() == before
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert ".bak" not in status
def test_a_hand_edited_plan_passes_the_same_checks_as_the_models(env, fake_claude, memory, capsys):
    """`--from PLAN.json --apply` cannot write what no other path may: a secret is redacted,
    an oversized body or a malformed id is refused in one line, nothing is written."""
    fake_claude.script(answer(RECORDED["answer"]["changes"]))
    plan_file = env.root / "plan.json"
    assert main(["consolidate", "--plan-out", str(plan_file)]) == 0
    plan = json.loads(plan_file.read_text())
    keeper, other = sorted(plan["seen"])[:2]
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    merge = {"op": "merge", "id": keeper, "others": [other], "why": "dup",
             "desc": "deploy AKIAIOSFODNN7EXAMPLE", "body": f"the token is {token}"}  # fmt: skip
    before = memory.read_bytes()
    for bad, why in (
        ({**merge, "body": "A" * 300_000}, "at most 4000"),
        ({**merge, "id": [keeper]}, "not text"),
    ):
        plan_file.write_text(json.dumps({**plan, "changes": [bad]}))
        capsys.readouterr()
        assert main(["consolidate", "--from", str(plan_file), "--apply"]) == 1
        err = capsys.readouterr().err
        assert "change 1 of the plan is refused" in err and why in err and err.count("\n") == 1
        assert memory.read_bytes() == before
    plan_file.write_text(json.dumps({**plan, "changes": [merge]}))
    assert main(["consolidate", "--from", str(plan_file), "--apply"]) == 0
    text = memory.read_text()
    assert token not in text and "AKIA" not in text and "merged" in capsys.readouterr().out
