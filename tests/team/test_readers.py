"""Every reader covers the team, project and global layers and says which layer each entry
is in; an id held by two layers is shown from both. A team file with conflict markers is
reported by every reader in one line with the fix."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from teamutil import BIN, Clone

from agd_memory.settings import Settings
from agd_memory.viewer.catalog import LAUNCH_KEY, Catalog
from agd_memory.viewer.payload import memory_json

TEAM = """\
@meta format=agd version=1 [#meta]

@x-project desc="How the team deploys to staging" created="2026-05-01" updated="2026-05-01" [#deploy]
~~~
The team deploys staging with `make deploy STAGE=staging` after the review.
~~~

@x-reference desc="Where the runbook for the pgbouncer pool lives" created="2026-05-01" updated="2026-05-01" [#pool-runbook]
~~~
The pgbouncer pool runbook is docs/runbooks/pgbouncer.md in this repository.
~~~
"""
PROJECT = """\
@meta format=agd version=1 [#meta]

@x-project desc="My own notes on deploying to staging" created="2026-05-02" updated="2026-05-02" [#deploy]
~~~
I deploy staging from the laptop with a VPN up first.
~~~
"""
GLOBAL = """\
@meta format=agd version=1 [#meta]

@x-user desc="The user prefers short answers" created="2026-05-03" updated="2026-05-03" [#short-answers]
~~~
Keep answers short.
~~~
"""
MARKED = """\
@meta format=agd version=1 [#meta]

<<<<<<< HEAD
@x-project desc="How the team deploys to staging" [#deploy]
~~~
ours
~~~
=======
@x-project desc="How the team deploys to staging" [#deploy]
~~~
theirs
~~~
>>>>>>> origin/main
"""


class Repo:
    """A repository folder (a `.git` folder is enough for the resolver) with the three layers."""

    def __init__(self, tmp_path: Path, git_env: dict[str, str]) -> None:
        self.root = tmp_path / "repo"
        (self.root / ".git").mkdir(parents=True)
        self.team_file = self.root / ".claude" / "memory.agd"
        self.project_file = tmp_path / "mem" / "memory.agd"
        self.global_file = tmp_path / "mem" / "global.agd"
        data = Path(git_env["CLAUDE_PLUGIN_DATA"])
        data.mkdir(parents=True, exist_ok=True)
        (data / "venv-not-needed").write_text(sys.executable + "\n", encoding="utf-8")
        self.env = {
            **git_env,
            "AGD_MEMORY_FILE": str(self.project_file),
            "AGD_MEMORY_GLOBAL_FILE": str(self.global_file),
        }
        self.clone = Clone(self.root, self.env)

    def write(self, team: str = TEAM) -> None:
        for path, text in ((self.team_file, team), (self.project_file, PROJECT)):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        self.global_file.write_text(GLOBAL, encoding="utf-8")

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.clone.cli(*args, check=check)

    def json(self, *args: str) -> Any:
        return json.loads(self.cli(*args, "--json").stdout)

    def session_start(self) -> dict[str, Any]:
        payload = {
            "session_id": "s1",
            "transcript_path": str(self.root / "t.jsonl"),
            "cwd": str(self.root),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
        done = subprocess.run(
            [sys.executable, str(BIN), "hook", "session-start"],
            input=json.dumps(payload),
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if done.stdout.strip() else {}

    def settings(self) -> Settings:
        return Settings.load({**self.env, "AGD_MEMORY_CWD": str(self.root)})

    def mcp(self, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
        pytest.importorskip("mcp", reason="the MCP SDK (mcp>=2,<3) is not installed")
        sys.path.insert(0, str(Path(__file__).parents[1] / "mcp"))
        from mcp_fixtures import call_tools

        from agd_memory.mcp.app import build_server

        return call_tools(build_server(Settings.load(self.env), self.root), calls)

    def viewer(self) -> dict[str, Any]:
        settings = Settings.load(self.env)
        catalog = Catalog(settings)
        catalog.team_path = self.team_file  # the viewer resolves from the cwd it was started in
        layers = catalog.layers_for(LAUNCH_KEY)
        assert layers is not None
        return memory_json(LAUNCH_KEY, layers, settings)


@pytest.fixture
def repo(tmp_path: Path, git_env: dict[str, str]) -> Repo:
    return Repo(tmp_path, git_env)


def test_toc_and_session_start_name_the_layer_of_each_entry(repo: Repo):
    repo.write()
    listed = [(e["id"], e["layer"]) for e in repo.json("toc")]
    assert ("deploy", "team") in listed and ("deploy", "project") in listed
    assert ("short-answers", "global") in listed and ("pool-runbook", "team") in listed
    text = repo.cli("toc").stdout
    assert "(team layer)" in text and "(project layer)" in text and "(global layer)" in text
    context = repo.session_start()["hookSpecificOutput"]["additionalContext"]
    assert f"team layer: {repo.team_file}" in context
    assert "#pool-runbook" in context and "(team layer)" in context


def test_get_and_search_show_an_id_from_both_layers(repo: Repo):
    repo.write()
    got = repo.json("get", "deploy")
    assert [(e["id"], e["layer"]) for e in got["entries"]] == [
        ("deploy", "team"),
        ("deploy", "project"),
    ]
    hits = repo.json("search", "deploy staging")
    assert {("deploy", "team"), ("deploy", "project")} <= {(h["id"], h["layer"]) for h in hits}
    plain = repo.cli("get", "deploy").stdout
    assert "make deploy STAGE=staging" in plain and "VPN up first" in plain


def test_recall_injects_team_blocks_and_names_their_layer(repo: Repo):
    repo.write()
    out = repo.cli("recall", "where is the runbook for the pgbouncer pool?").stdout
    assert "[#pool-runbook]" in out
    assert "in the team layer: #pool-runbook" in out
    both = repo.cli("recall", "how do we deploy staging?").stdout
    assert "in the team layer: #deploy" in both and "in the project layer: #deploy" in both
    assert "make deploy STAGE=staging" in both and "VPN up first" in both


def test_mcp_tools_read_and_write_the_team_layer(repo: Repo):
    repo.write()
    toc, get, search, saved, team_toc = repo.mcp(
        [
            ("agd_memory_toc", {}),
            ("agd_memory_get", {"id": "deploy"}),
            ("agd_memory_search", {"query": "pgbouncer runbook"}),
            (
                "agd_memory_save",
                {
                    "kind": "x-project",
                    "id": "review-rule",
                    "content": "Every migration is reviewed by two people.",
                    "desc": "Migrations need two reviewers",
                    "scope": "team",
                },
            ),
            ("agd_memory_toc", {"scope": "team"}),
        ]
    )
    assert not any(r.is_error for r in (toc, get, search, saved, team_toc)), (toc, get, saved)
    assert "team 2" in toc.text and "project 1" in toc.text and "global 1" in toc.text
    assert "[team layer]" in get.text and "[project layer]" in get.text
    assert "VPN up first" in get.text and "make deploy STAGE=staging" in get.text
    assert "pool-runbook" in search.text and "team" in search.text
    assert f"team layer: {repo.team_file}" in saved.text
    assert "#review-rule" in repo.team_file.read_text(encoding="utf-8")
    assert "review-rule" in team_toc.text and "VPN" not in team_toc.text


def test_the_viewer_shows_the_team_layer_and_both_blocks_of_an_id(repo: Repo):
    repo.write()
    data = repo.viewer()
    assert [layer["name"] for layer in data["layers"]] == ["team", "project", "global"]
    uids = {b["uid"] for b in data["blocks"]}
    assert {"team:deploy", "project:deploy", "team:pool-runbook"} <= uids


def _one_line_fix(text: str, team_file: Path) -> None:
    assert f"memory file {team_file} holds git conflict markers (line 3)" in text
    assert "agd-memory team resolve" in text
    assert "Traceback" not in text


def test_every_reader_reports_conflict_markers_in_one_line_with_the_fix(repo: Repo):
    repo.write(team=MARKED)
    for args in (
        ("toc", "--scope", "team"),
        ("get", "deploy", "--scope", "team"),
        ("search", "deploy", "--scope", "team"),
    ):
        done = repo.cli(*args, check=False)
        assert done.returncode == 1, args
        _one_line_fix(done.stderr, repo.team_file)
    # readers of every layer still answer from the others and name the broken file
    toc = repo.cli("toc", check=False)
    _one_line_fix(toc.stdout + toc.stderr, repo.team_file)
    recall = repo.cli("recall", "how does the team deploy to staging?", check=False)
    _one_line_fix(recall.stdout + recall.stderr, repo.team_file)
    start = repo.session_start()
    _one_line_fix(json.dumps(start), repo.team_file)
    (mcp_toc,) = repo.mcp([("agd_memory_toc", {"scope": "team"})])
    assert mcp_toc.is_error
    _one_line_fix(mcp_toc.text, repo.team_file)
    (team_layer,) = [layer for layer in repo.viewer()["layers"] if layer["name"] == "team"]
    _one_line_fix(team_layer["error"], repo.team_file)
    # a write to the marked file is refused too, and nothing is written
    save = repo.cli(
        "save", "x-project", "new-fact", "--content", "x", "--scope", "team", check=False
    )
    assert save.returncode == 1
    _one_line_fix(save.stderr, repo.team_file)
    assert repo.team_file.read_text(encoding="utf-8") == MARKED
