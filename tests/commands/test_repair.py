"""`agd-memory repair`: a memory file that does not parse keeps every block that does."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from agd.parser import parse
from agd_memory import paths
from agd_memory.cli import main
from agd_memory.settings import Settings
from agd_memory.store import MemoryFile

GOOD = (
    "@meta format=agd version=1 [#meta]\n\n"
    '@x-project desc="database" [#db]\n~~~\nPostgres 16 behind PgBouncer.\n~~~\n\n'
)
BROKEN = '@x-project desc="deploy [#deploy]\n~~~\nDeploys go through Fly.io.\n~~~\n\n'
LATER = '@x-user desc="tone" [#tone]\n~~~\nShort answers.\n~~~\n'


@pytest.fixture
def project(env, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = env.project("app")
    monkeypatch.chdir(folder)
    return folder


def broken_project_file(project: Path) -> Path:
    path = paths.resolve(Settings.load(), cwd=str(project)).project.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(GOOD + BROKEN + LATER, encoding="utf-8")
    return path


def test_the_broken_file_notice_names_repair(project: Path, capsys) -> None:
    broken_project_file(project)
    assert main(["toc"]) == 1
    assert "`agd-memory repair --apply` to keep every block that parses" in capsys.readouterr().err


def test_repair_keeps_every_block_that_parses_and_sets_the_rest_aside(
    project: Path, env, capsys
) -> None:
    path = broken_project_file(project)
    original = path.read_text(encoding="utf-8")

    assert main(["repair"]) == 0  # a dry run
    out = capsys.readouterr().out
    assert '! line 8: does not parse, set aside: @x-project desc="deploy [#deploy]' in out
    assert "dry run: nothing was written" in out
    assert path.read_text(encoding="utf-8") == original

    assert main(["repair", "--apply"]) == 0
    out = capsys.readouterr().out
    repaired = path.read_text(encoding="utf-8")
    assert [b.id for b in parse(repaired).blocks if b.id] == ["meta", "db", "tone"]
    assert repaired == GOOD + LATER
    assert path.with_name(path.name + ".bak").read_text(encoding="utf-8") == original
    (side,) = (env.data / "repair").iterdir()
    assert f"set aside 1 in {side}" in out
    assert BROKEN.rstrip() in side.read_text(encoding="utf-8")
    assert f"{path} line 8: did not parse" in side.read_text(encoding="utf-8")
    assert stat.S_IMODE(side.stat().st_mode) == 0o600
    assert main(["get", "tone"]) == 0  # readers work again
    assert main(["repair"]) == 0 and "parses; nothing to repair" in capsys.readouterr().out


def test_repair_of_a_file_that_parses_changes_nothing(project: Path, env, capsys) -> None:
    path = broken_project_file(project)
    path.write_text(GOOD + LATER, encoding="utf-8")
    assert main(["repair", "--apply"]) == 0
    assert "parses; nothing to repair" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == GOOD + LATER
    assert not (env.data / "repair").exists()


def test_a_clones_team_file_is_repaired_only_after_team_init(project: Path, capsys) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    team = project / ".claude" / "memory.agd"
    team.parent.mkdir()
    team.write_text(GOOD + BROKEN + LATER, encoding="utf-8")
    assert main(["repair", "--scope", "team", "--apply"]) == 1
    err = capsys.readouterr().err
    assert "not set up for it; run /agd-memory:team-init" in err and "Nothing was written" in err
    assert team.read_text(encoding="utf-8") == GOOD + BROKEN + LATER

    with open(project / ".git" / "config", "a", encoding="utf-8") as fh:  # what team init adds
        fh.write('[merge "agd-memory"]\n\tdriver = agd-memory merge-driver %O %A %B %P\n')
    assert main(["repair", "--scope", "team", "--apply"]) == 0
    assert team.read_text(encoding="utf-8") == GOOD + LATER
    assert not (project / ".claude" / "memory.agd.bak").exists()  # the team .bak: data folder
    assert MemoryFile(team, layer="team").entry("tone") is not None
