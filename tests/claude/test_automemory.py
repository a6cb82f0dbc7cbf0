"""Reading Claude Code's auto-memory folder (topic files + MEMORY.md) as AGD facts."""

from __future__ import annotations

from pathlib import Path

from agd_memory.claude.automemory import plan_import, read_folder

TESTING = """---
name: testing-conventions
description: Integration tests hit a real Postgres, never mocks
metadata:
  type: feedback
modified: 2026-10-12T09:30:00Z
---

Run the integration suite against the docker Postgres.
**Why:** a mocked DB hid a broken migration last quarter. See [[db-setup]].
"""

DB = """---
name: db-setup
description: "How the local database is started"
type: project
modified: '2026-09-01T08:00:00+02:00'
---
`make db` starts Postgres 16 on port 5433.
"""

OLD_STYLE = """# Deploys

Deploys go through the release train on Thursdays, see [the db notes](db-setup.md).
"""

INDEX = """- [Testing](testing.md) — integration tests use real Postgres
- [DB](db.md) — local database
- [Deploys](deploys.md) — the Thursday release train
"""


def folder(tmp_path: Path) -> Path:
    d = tmp_path / "memory"
    d.mkdir()
    (d / "testing.md").write_text(TESTING, encoding="utf-8")
    (d / "db.md").write_text(DB, encoding="utf-8")
    (d / "deploys.md").write_text(OLD_STYLE, encoding="utf-8")
    (d / "MEMORY.md").write_text(INDEX, encoding="utf-8")
    return d


def test_topic_files_become_facts_with_kind_id_desc_dates_and_refs(tmp_path: Path) -> None:
    memory = read_folder(folder(tmp_path))
    facts = {f.id: f for f in memory.facts}
    assert sorted(facts) == ["db-setup", "deploys", "testing-conventions"]
    testing = facts["testing-conventions"]
    assert testing.kind == "x-feedback"
    assert testing.desc == "Integration tests hit a real Postgres, never mocks"
    assert (testing.created, testing.updated) == ("2026-10-12", "2026-10-12")
    assert testing.refs == ["db-setup"]
    assert testing.body.startswith("Run the integration suite") and "[[db-setup]]" in testing.body
    assert facts["db-setup"].kind == "x-project" and facts["db-setup"].updated == "2026-09-01"
    deploys = facts["deploys"]
    assert deploys.desc == "the Thursday release train", (
        "MEMORY.md's hook stands in for a missing description"
    )
    assert deploys.refs == ["db-setup"], "a Markdown link to a topic file is a ref"
    assert memory.problems == []


def test_a_second_import_adds_nothing_and_a_taken_id_is_a_conflict(tmp_path: Path) -> None:
    facts = read_folder(folder(tmp_path)).facts
    first = plan_import(facts, [])
    assert len(first.add) == 3
    again = plan_import(facts, [(f.id, f.body + "\n") for f in first.add])
    assert again.add == [] and len(again.same) == 3
    taken = plan_import(facts, [("db-setup", "something else entirely")])
    assert [f.id for f, _ in taken.conflicts] == ["db-setup"]
    moved = plan_import(facts, [("renamed-by-hand", facts[0].body)])
    assert [(f.id, other) for f, other in moved.same] == [(facts[0].id, "renamed-by-hand")]


def test_unreadable_or_odd_files_are_reported_not_guessed(tmp_path: Path) -> None:
    d = folder(tmp_path)
    (d / "huge.md").write_bytes(b"x" * (300 * 1024))
    (d / "odd.md").write_text("---\nname: odd\n- a list item\n---\nbody\n", encoding="utf-8")
    (d / "empty.md").write_text("", encoding="utf-8")
    memory = read_folder(d)
    assert any(p.startswith("huge.md: skipped") for p in memory.problems)
    assert any(p.startswith("odd.md: header line not understood") for p in memory.problems)
    assert any(p.startswith("empty.md: empty") for p in memory.problems)
    assert "odd" in {f.id for f in memory.facts}
