"""The distiller chooses the layer per proposal: project facts a teammate needs go to the
team layer when the repository has one (through the review queue when review is on for
it, the default), facts about the user stay private, and AGD_DISTILL_TEAM=0 keeps
everything in the project layer."""

from __future__ import annotations

from pathlib import Path

import pytest

from agd_memory import paths, store
from agd_memory.distill import proposals, review
from agd_memory.settings import Settings
from agd_memory.store.rules import SCAFFOLD

DECISION = {
    "kind": "x-project",
    "id": "queue-on-postgres",
    "desc": "The job queue runs on Postgres, not Redis",
    "body": "Chosen for SKIP LOCKED and one database less to run.",
    "scope": "team",
}
ABOUT_THE_USER = {
    "kind": "x-user",
    "id": "prefers-fish",
    "desc": "The user works in the fish shell",
    "body": "Give shell snippets for fish.",
    "scope": "team",
}


class Setup:
    def __init__(self, tmp_path: Path, git_env: dict[str, str]) -> None:
        self.root = tmp_path / "repo"
        (self.root / ".git").mkdir(parents=True)
        self.team_file = self.root / ".claude" / "memory.agd"
        self.env = {
            **git_env,
            "AGD_MEMORY_FILE": str(tmp_path / "mem" / "memory.agd"),
            "AGD_MEMORY_GLOBAL_FILE": str(tmp_path / "mem" / "global.agd"),
        }

    def init_team(self) -> None:
        self.team_file.parent.mkdir(parents=True)
        self.team_file.write_text(SCAFFOLD, encoding="utf-8")

    def run(self, answer: list[dict], **env: str) -> tuple[proposals.Report, list[str], Settings]:
        settings = Settings.load({**self.env, **env})
        layers = paths.resolve(settings, cwd=str(self.root))
        logged: list[str] = []
        report = proposals.apply(answer, layers, settings, shown=(), log=logged.append)
        return report, logged, settings

    def ids(self, settings: Settings, layer: str) -> list[str]:
        chosen = getattr(paths.resolve(settings, cwd=str(self.root)), layer)
        mf = store.MemoryFile(chosen.path, layer=layer, settings=settings)
        return [e.id for e in mf.entries() if e.is_memory] if mf.exists() else []


@pytest.fixture
def setup(tmp_path: Path, git_env: dict[str, str]) -> Setup:
    return Setup(tmp_path, git_env)


def test_a_decision_goes_to_the_team_layer_and_a_user_fact_stays_private(setup: Setup):
    setup.init_team()
    report, logged, settings = setup.run([DECISION, ABOUT_THE_USER], AGD_DISTILL_REVIEW="0")
    assert [(o.id, o.action, o.layer) for o in report.outcomes] == [
        ("queue-on-postgres", "added", "team"),
        ("prefers-fish", "added", "project"),
    ]
    assert setup.ids(settings, "team") == ["queue-on-postgres"]
    assert setup.ids(settings, "project") == ["prefers-fish"]
    assert "@x-user" not in setup.team_file.read_text(encoding="utf-8")
    assert any("prefers-fish: scope team is not for x-user" in line for line in logged)


def test_team_proposals_wait_for_review_by_default(setup: Setup):
    setup.init_team()
    report, _, settings = setup.run([DECISION, {**DECISION, "id": "mine", "scope": "project"}])
    assert [(o.id, o.action, o.layer) for o in report.outcomes] == [
        ("queue-on-postgres", "pending", "team"),
        ("mine", "added", "project"),
    ]
    team = store.MemoryFile(setup.team_file, layer="team", settings=settings)
    assert [item.entry.get("id") for item in review.pending(team)] == ["queue-on-postgres"]
    assert setup.ids(settings, "team") == []
    assert review.accept(team, [review.pending(team)[0].id])
    assert setup.ids(settings, "team") == ["queue-on-postgres"]


@pytest.mark.parametrize("case", ["setting off", "no team file"])
def test_without_a_team_layer_to_write_everything_stays_in_the_project(setup: Setup, case: str):
    extra = {"AGD_DISTILL_REVIEW": "0"}
    if case == "setting off":
        setup.init_team()
        extra["AGD_DISTILL_TEAM"] = "0"
    report, logged, settings = setup.run([DECISION], **extra)
    assert [(o.id, o.action, o.layer) for o in report.outcomes] == [
        ("queue-on-postgres", "added", "project")
    ]
    why = "team proposals are off" if case == "setting off" else "no team layer"
    assert any(why in line and "kept in the project" in line for line in logged)
    if case == "setting off":
        assert setup.ids(settings, "team") == []


def test_the_model_is_told_of_a_team_layer_only_when_it_takes_proposals(setup: Setup):
    settings = Settings.load(setup.env)
    assert proposals.team_note(paths.resolve(settings, cwd=str(setup.root)), settings) == ""
    setup.init_team()
    note = proposals.team_note(paths.resolve(settings, cwd=str(setup.root)), settings)
    assert f"team layer: {setup.team_file}" in note and "scope: team" in note
    off = Settings.load({**setup.env, "AGD_DISTILL_TEAM": "0"})
    assert proposals.team_note(paths.resolve(off, cwd=str(setup.root)), off) == ""
    prompt = (Path(proposals.__file__).with_name("prompt.md")).read_text(encoding="utf-8")
    assert "`team`, only when `<memory-toc>` names a team layer" in prompt
