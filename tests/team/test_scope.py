"""`--scope team` on the store verbs, through the CLI, in a clone."""

from __future__ import annotations

import json

from teamutil import Clone


def _clone(tmp_path, git_env) -> Clone:
    """A checkout whose team file exists (as `team init` leaves it)."""
    from agd_memory.store import rules

    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / ".claude").mkdir()
    (repo / ".claude" / "memory.agd").write_text(rules.scaffold("team"), encoding="utf-8")
    return Clone(repo / "src", git_env)  # a subfolder: the team file is at the root


def test_save_get_toc_search_rename_delete_on_the_team_layer(tmp_path, git_env):
    c = _clone(tmp_path, git_env)
    team_file = tmp_path / "repo" / ".claude" / "memory.agd"
    saved = json.loads(
        c.cli(
            "save",
            "x-project",
            "deploy",
            "--content",
            "We deploy with fly.io on Fridays.",
            "--scope",
            "team",
            "--json",
        ).stdout
    )
    assert saved["layer"] == "team" and saved["path"] == str(team_file)
    assert "#deploy" in c.cli("toc", "--scope", "team").stdout
    assert json.loads(c.cli("where", "--json").stdout)["team"]["path"] == str(team_file)
    listed = json.loads(c.cli("toc", "--json").stdout)
    assert [(e["id"], e["layer"]) for e in listed] == [("deploy", "team")]
    assert (
        json.loads(c.cli("get", "deploy", "--scope", "team", "--json").stdout)["entries"][0][
            "layer"
        ]
        == "team"
    )
    hits = json.loads(c.cli("search", "deploy fridays", "--scope", "team", "--json").stdout)
    assert [(h["id"], h["layer"]) for h in hits] == [("deploy", "team")]
    assert c.cli("get", "deploy", "--scope", "project", check=False).returncode == 1
    c.cli("rename", "deploy", "deploy-day", "--scope", "team")
    c.cli("delete", "deploy-day", "--scope", "team")
    assert "deploy" not in team_file.read_text()


def test_a_team_write_never_lets_a_secret_through(tmp_path, git_env):
    c = _clone(tmp_path, git_env)
    secret = "token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    done = c.cli(
        "save",
        "x-project",
        "ci",
        "--content",
        secret,
        "--scope",
        "team",
        "--allow-secrets",
        check=False,
    )
    assert done.returncode == 1 and "save rejected" in done.stderr
    assert "ghp_" not in (tmp_path / "repo" / ".claude" / "memory.agd").read_text()
    assert c.cli("save", "x-project", "ci", "--content", secret, "--allow-secrets").returncode == 0


def test_a_team_save_in_a_clone_without_team_init_is_refused_with_the_command(tmp_path, git_env):
    repo = tmp_path / "plain"
    (repo / ".git").mkdir(parents=True)
    done = Clone(repo, git_env).cli(
        "save", "x-project", "tip", "--content", "x", "--scope", "team", check=False
    )
    assert done.returncode == 1 and "agd-memory team init" in done.stderr
    assert not (repo / ".claude").exists(), "no unmanaged team file, no lock file"
