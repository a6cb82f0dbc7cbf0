"""Review mode: the distiller's proposals and `keys` results wait in a queue; `agd-memory
review` shows them as diffs and accepts, rejects or edits them (issue 19 §1)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from distill_records import edit_session, write_transcript  # noqa: E402

from agd_memory import paths, store  # noqa: E402
from agd_memory.cli import main  # noqa: E402
from agd_memory.distill import review  # noqa: E402
from agd_memory.settings import Settings  # noqa: E402

UPDATE = {
    "kind": "x-project",
    "id": "queue-db",
    "desc": "Job queue runs on Postgres 17",
    "body": "For SKIP LOCKED; moved to 17 in November.",
}
NEW = {
    "kind": "x-feedback",
    "id": "tabs",
    "desc": "User wants tabs in Makefiles only",
    "body": "Spaces everywhere else.",
}


@pytest.fixture
def project(env, monkeypatch):
    cwd = env.project("app")
    monkeypatch.chdir(cwd)
    mf = store.MemoryFile(env.memory_file(cwd), settings=env.settings())
    mf.save("x-project", "queue-db", "For SKIP LOCKED.", desc="Job queue runs on Postgres")
    return cwd, mf


def distil(env, fake_claude, cwd: Path, *proposals: dict, session: str = "sess-42") -> None:
    fake_claude.script({"proposals": list(proposals)})
    t = write_transcript(env.root / f"{session}.jsonl", edit_session())
    assert main(["distill", str(t), "--cwd", str(cwd), "--session-id", session]) == 0


def test_review_mode_queues_proposals_out_of_every_reader(
    env, fake_claude, project, monkeypatch, capsys
) -> None:
    cwd, mf = project
    before = mf.path.read_bytes()
    monkeypatch.setenv("AGD_DISTILL_REVIEW", "1")
    distil(env, fake_claude, cwd, UPDATE, NEW)
    assert "2 waiting for review" in capsys.readouterr().out
    assert mf.path.read_bytes() == before  # nothing written into the memory file
    assert main(["get", "tabs"]) == 1  # nor visible to get, search or the TOC
    capsys.readouterr()
    assert main(["search", "tabs Makefiles", "--json"]) == 0
    assert "tabs" not in capsys.readouterr().out
    assert main(["toc"]) == 0
    assert "#tabs" not in capsys.readouterr().out
    # the queue is beside the config file (shell and hooks share it), not beside the
    # memory (nor in any repository), and not in the plugin data folder (gone on uninstall)
    queue = review.queue_path(env.settings(), mf.path)
    assert queue.is_relative_to(env.settings().config_file.parent) and queue.is_file()
    assert not queue.is_relative_to(env.data) and not queue.is_relative_to(mf.path.parent)

    assert main(["review"]) == 0
    out = capsys.readouterr().out
    assert "-For SKIP LOCKED." in out and "+For SKIP LOCKED; moved to 17 in November." in out
    assert "(new entry)" in out and "+Spaces everywhere else." in out
    assert "distill, session sess-42" in out
    assert out.rstrip().endswith("`review edit ID`")


def test_a_proposal_already_waiting_is_not_queued_twice(
    env, fake_claude, project, monkeypatch, capsys
) -> None:
    cwd, mf = project
    monkeypatch.setenv("AGD_DISTILL_REVIEW", "1")
    distil(env, fake_claude, cwd, NEW)
    reworded = {**NEW, "id": "makefile-tabs", "body": "Spaces everywhere else, tabs in Makefiles."}
    distil(env, fake_claude, cwd, reworded, session="sess-43")
    assert "0 saved" in capsys.readouterr().out
    assert [i.entry["id"] for i in review.pending(mf)] == ["tabs"]


def test_review_off_writes_as_before(env, fake_claude, project) -> None:
    cwd, mf = project
    distil(env, fake_claude, cwd, NEW)
    assert mf.entry("tabs") is not None
    assert review.pending(mf) == []


def test_team_layer_reviews_by_default_and_the_setting_wins() -> None:
    assert review.enabled(Settings(), "team")
    assert not review.enabled(Settings(), "project")
    assert not review.enabled(Settings(), "global")
    assert review.enabled(Settings(distill_review=True), "project")
    assert not review.enabled(Settings(distill_review=False), "team")
    assert Settings.load({"AGD_DISTILL_REVIEW": "off"}).distill_review is False


def _ids(capsys) -> list[str]:
    assert main(["review", "--json"]) == 0
    return [row["id"] for row in json.loads(capsys.readouterr().out)]


def test_accept_writes_through_the_store_and_reject_is_remembered(
    env, fake_claude, project, monkeypatch, capsys
) -> None:
    cwd, mf = project
    monkeypatch.setenv("AGD_DISTILL_REVIEW", "1")
    monkeypatch.setenv("AGD_MEMORY_TODAY", "2026-12-01")
    distil(env, fake_claude, cwd, UPDATE, NEW)
    capsys.readouterr()
    update_id, new_id = _ids(capsys)
    assert main(["review", "accept", update_id[:6]]) == 0  # a unique prefix will do
    assert "updated #queue-db" in capsys.readouterr().out
    entry = mf.entry("queue-db")
    assert entry.desc == "Job queue runs on Postgres 17"
    assert entry.updated == "2026-12-01" and entry.created == "2026-11-30"

    assert main(["review", "reject", new_id]) == 0
    assert "rejected" in capsys.readouterr().out
    assert mf.entry("tabs") is None and _ids(capsys) == []
    # the same fact proposed again (another id, other spacing) is not queued again
    again = {**NEW, "id": "makefile-tabs", "body": "Spaces   everywhere else."}
    distil(env, fake_claude, cwd, again, session="sess-43")
    assert "1 proposed, 0 saved" in capsys.readouterr().out
    assert _ids(capsys) == []
    assert mf.entry("makefile-tabs") is None


def test_accept_refuses_a_secret_and_keeps_the_item(env, project, capsys) -> None:
    _, mf = project
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    queued = review.enqueue(
        mf, [review.Proposal.save("x-project", "ci", f"CI token {token}")], source="test"
    )
    assert main(["review", "accept", queued.added[0].id]) == 1
    assert "secret" in capsys.readouterr().err
    assert mf.entry("ci") is None
    assert [i.id for i in review.pending(mf)] == [queued.added[0].id]


def test_accept_all_and_unknown_ids(env, project, capsys) -> None:
    _, mf = project
    review.enqueue(
        mf,
        [review.Proposal.save("x-project", f"fact-{n}", f"Fact number {n}.") for n in range(3)],
        source="test",
    )
    assert main(["review", "accept", "pnope"]) == 1
    assert "is not pending" in capsys.readouterr().err
    assert main(["review", "accept", "p"]) == 1  # every item id starts with p
    assert "matches several items" in capsys.readouterr().err
    assert main(["review", "accept"]) == 2  # neither ids nor --all
    capsys.readouterr()
    assert main(["review", "accept", "--all"]) == 0
    assert [e.id for e in mf.entries() if e.id.startswith("fact-")] == [
        "fact-2",
        "fact-1",
        "fact-0",
    ]
    assert review.pending(mf) == []


def _editor(tmp_path: Path, script: str) -> str:
    exe = tmp_path / "editor.py"
    exe.write_text(f"import sys, pathlib\np = pathlib.Path(sys.argv[1])\n{script}\n")
    return f"{sys.executable} {exe}"


def test_edit_opens_the_editor_on_agd_text_and_validates(
    env, project, tmp_path, monkeypatch, capsys
) -> None:
    _, mf = project
    monkeypatch.delenv("VISUAL", raising=False)  # it would win over EDITOR
    qid = (
        review.enqueue(
            mf,
            [review.Proposal.save("x-project", "ci", "CI runs on GitHub.", desc="ci")],
            source="t",
        )
        .added[0]
        .id
    )
    monkeypatch.setenv(
        "EDITOR",
        _editor(
            tmp_path,
            "p.write_text(p.read_text().replace('GitHub.', 'Forgejo.').replace('desc=ci', 'desc=\"CI host\"'))",
        ),
    )
    assert main(["review", "edit", qid]) == 0
    assert "+CI runs on Forgejo." in capsys.readouterr().out
    (item,) = review.pending(mf)
    assert item.entry["body"] == "CI runs on Forgejo." and item.entry["desc"] == "CI host"
    assert main(["review", "accept", item.id]) == 0
    assert mf.entry("ci").body == "CI runs on Forgejo."

    # an edit that breaks the entry is refused and the item stays as it was
    qid = (
        review.enqueue(mf, [review.Proposal.save("x-project", "os", "Linux only.")], source="t")
        .added[0]
        .id
    )
    monkeypatch.setenv(
        "EDITOR",
        _editor(tmp_path, "t = p.read_text(); p.write_text(t + t.replace('[#os]', '[#os2]'))"),
    )
    capsys.readouterr()
    assert main(["review", "edit", qid]) == 1
    assert "exactly one memory entry" in capsys.readouterr().err
    assert review.pending(mf)[0].entry["body"] == "Linux only."
    monkeypatch.setenv("EDITOR", _editor(tmp_path, "raise SystemExit(3)"))
    assert main(["review", "edit", qid]) == 1
    assert "status 3" in capsys.readouterr().err
    monkeypatch.delenv("EDITOR")
    assert main(["review", "edit", qid]) == 1
    assert "set EDITOR" in capsys.readouterr().err


def test_keys_results_wait_for_review(env, fake_claude, project, monkeypatch, capsys) -> None:
    cwd, mf = project
    monkeypatch.setenv("AGD_DISTILL_REVIEW", "1")
    fake_claude.script(fake_claude.keys_answer({"queue-db": ["job queue", "warteschlange"]}))
    assert main(["keys", "--apply"]) == 0
    assert "wait for review" in capsys.readouterr().out
    assert mf.entry("queue-db").attrs.get("keys") is None
    assert main(["review"]) == 0
    assert "+ #queue-db keys: job queue, warteschlange" in capsys.readouterr().out
    (qid,) = _ids(capsys)
    assert main(["review", "accept", qid]) == 0
    assert mf.entry("queue-db").attrs["keys"] == "job queue, warteschlange"


def test_a_team_layer_queue_stays_out_of_the_repository(env, tmp_path, monkeypatch) -> None:
    repo = env.project("repo")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    settings = env.settings()
    team = paths.resolve(settings, cwd=str(repo)).team
    mf = store.MemoryFile(team.path, layer="team", settings=settings)
    review.enqueue(mf, [review.Proposal.save("x-project", "a", "A fact.")], source="t")
    assert not review.queue_path(settings, team.path).is_relative_to(repo)
    assert not team.path.exists()


def test_a_consolidation_plan_waits_and_is_applied_on_accept(env, project, capsys) -> None:
    from agd_memory.distill import consolidate

    _, mf = project
    block = next(b for b in mf.document().blocks if b.id == "queue-db")
    plan = consolidate.Plan(
        str(mf.path),
        [consolidate.Change("desc", "queue-db", desc="Job queue on Postgres (SKIP LOCKED)")],
        seen={"queue-db": consolidate.fingerprint(block)},
    )
    (item,) = review.enqueue(
        mf, [review.Proposal.for_plan(plan.to_dict())], source="consolidate"
    ).added
    assert main(["review"]) == 0
    out = capsys.readouterr().out
    assert "consolidate" in out and "Job queue on Postgres (SKIP LOCKED)" in out
    assert mf.entry("queue-db").desc == "Job queue runs on Postgres"  # input untouched
    assert main(["review", "edit", item.id]) == 1  # a plan is accepted or rejected, not edited
    assert "consolidation plan" in capsys.readouterr().err
    assert main(["review", "accept", item.id]) == 0
    assert mf.entry("queue-db").desc == "Job queue on Postgres (SKIP LOCKED)"
    assert mf.backup_path.is_file()


def test_review_mode_is_a_persistent_setting(env, project, monkeypatch, capsys) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(env.root / "claude-config"))
    assert main(["review", "mode", "on"]) == 0
    assert "review mode on for every layer" in capsys.readouterr().out
    assert env.settings().distill_review is True
    assert review.enabled(env.settings(), "project")
    assert main(["review", "mode", "default"]) == 0
    assert env.settings().distill_review is None
    assert main(["review", "mode", "maybe"]) == 2


def test_backfill_does_not_ask_again_for_keys_waiting_for_review(
    env, fake_claude, project, monkeypatch
) -> None:
    from agd_memory.distill import autokeys

    _, mf = project
    monkeypatch.setenv("AGD_DISTILL_REVIEW", "1")
    fake_claude.script(fake_claude.keys_answer(["queue-db"]))
    files = [store.MemoryFile(mf.path, settings=env.settings())]
    assert autokeys.backfill(files, env.settings(), 20, lambda _: None) == 0  # queued, not written
    assert [i.op for i in review.pending(mf)] == ["keys"]
    calls = len(fake_claude.calls())
    autokeys.backfill(files, env.settings(), 20, lambda _: None)
    assert len(fake_claude.calls()) == calls  # no second claude run for the same entries
    assert len(review.pending(mf)) == 1
