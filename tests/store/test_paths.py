"""The one resolver: layers, folder naming, symlinks, the git-remote index."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from agd_memory import paths
from agd_memory.errors import UserError
from agd_memory.settings import Settings


def _settings(home: Path, cwd: Path | None = None, **extra: str) -> Settings:
    env = {"AGD_MEMORY_HOME": str(home), **extra}
    if cwd is not None:
        env["AGD_MEMORY_PROJECT_CWD"] = str(cwd)
    return Settings.load(env)


def _make_memory(home: Path, folder_name: str) -> Path:
    f = home / ".claude" / "projects" / folder_name / "memory" / "memory.agd"
    f.parent.mkdir(parents=True)
    f.write_text("@meta format=agd version=1 [#meta]\n", encoding="utf-8")
    return f


def _git_repo(folder: Path, url: str) -> None:
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[remote "upstream"]\n\turl = git@example.com:x/other.git\n'
        f'[remote "origin"]\n\turl = {url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n',
        encoding="utf-8",
    )


def _files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_claude_code_folder_naming_replaces_every_non_alphanumeric():
    assert paths.claude_folder_name("/home/me/my.proj_v2") == "-home-me-my-proj-v2"
    assert paths.legacy_folder_name("/home/me/my.proj_v2") == "-home-me-my.proj_v2"


def test_new_project_uses_claude_code_naming_and_creates_nothing(tmp_path: Path):
    home, cwd = tmp_path / "home", tmp_path / "my.proj"
    cwd.mkdir()
    layers = paths.resolve(_settings(home, cwd))
    expected = home / ".claude/projects" / paths.claude_folder_name(str(cwd)) / "memory/memory.agd"
    assert layers.project.path == expected
    assert layers.global_.path == home / ".claude/memory/global.agd"
    assert "new memory" in layers.project.reason
    assert not home.exists(), "resolving must never create files or folders"


def test_missing_home_folder_resolves_without_creating_it(tmp_path: Path):
    home = tmp_path / "does-not-exist"
    layers = paths.resolve(_settings(home, tmp_path))
    assert str(layers.project.path).startswith(str(home))
    assert not home.exists()
    assert paths.list_project_files(_settings(home)) == []


def test_existing_legacy_named_file_is_reused(tmp_path: Path):
    home, cwd = tmp_path / "home", tmp_path / "my.proj"
    cwd.mkdir()
    legacy = _make_memory(home, paths.legacy_folder_name(os.path.realpath(cwd)))
    layers = paths.resolve(_settings(home, cwd))
    assert layers.project.path == legacy
    assert "earlier plugin" in layers.project.reason


def test_existing_claude_code_folder_without_memory_is_reused(tmp_path: Path):
    """Claude Code keeps transcripts in its own project folder: memory goes beside them."""
    home, cwd = tmp_path / "home", tmp_path / "proj"
    cwd.mkdir()
    link = tmp_path / "link"
    link.symlink_to(cwd)
    # Claude Code named the folder after the unresolved path.
    folder = home / ".claude/projects" / paths.claude_folder_name(str(link))
    folder.mkdir(parents=True)
    layers = paths.resolve(_settings(home, link))
    assert layers.project.path == folder / "memory/memory.agd"
    assert "no memory yet" in layers.project.reason


def test_symlinked_project_folder_finds_the_same_file(tmp_path: Path):
    home, real = tmp_path / "home", tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    f = _make_memory(home, paths.claude_folder_name(str(real)))
    assert paths.resolve(_settings(home, link)).project.path == f
    assert paths.resolve(_settings(home, real)).project.path == f


def test_symlinked_file_under_the_unresolved_name_is_found(tmp_path: Path):
    home, real = tmp_path / "home", tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    f = _make_memory(home, paths.claude_folder_name(str(link)))
    layers = paths.resolve(_settings(home, link))
    assert layers.project.path == f
    assert "before resolving symlinks" in layers.project.reason


def test_environment_overrides(tmp_path: Path):
    s = _settings(
        tmp_path / "home",
        tmp_path,
        AGD_MEMORY_FILE=str(tmp_path / "forced.agd"),
        AGD_MEMORY_GLOBAL_FILE=str(tmp_path / "g.agd"),
    )
    layers = paths.resolve(s)
    assert layers.project.path == tmp_path / "forced.agd"
    assert layers.project.reason == "AGD_MEMORY_FILE"
    assert layers.global_.path == tmp_path / "g.agd"
    assert layers.global_.reason == "AGD_MEMORY_GLOBAL_FILE"


def test_project_cwd_variable_beats_the_payload_cwd(tmp_path: Path):
    home = tmp_path / "home"
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    with_var = paths.resolve(_settings(home, a), cwd=b)
    assert paths.claude_folder_name(str(a)) in str(with_var.project.path)
    without = paths.resolve(_settings(home), cwd=b)
    assert paths.claude_folder_name(str(b)) in str(without.project.path)


def test_select_scopes_and_same_file(tmp_path: Path):
    same = tmp_path / "one.agd"
    s = _settings(
        tmp_path / "home", tmp_path, AGD_MEMORY_FILE=str(same), AGD_MEMORY_GLOBAL_FILE=str(same)
    )
    layers = paths.resolve(s)
    assert [layer.name for layer in layers.select("all")] == ["project"]
    assert [layer.name for layer in layers.select("global")] == ["global"]
    other = paths.resolve(_settings(tmp_path / "home", tmp_path))
    assert [layer.name for layer in other.select("all")] == ["project", "global"]
    with pytest.raises(UserError, match="unknown scope"):
        other.select("everything")


@pytest.mark.parametrize(
    "url, key",
    [
        ("git@github.com:owner/repo.git", "github.com/owner/repo"),
        ("https://github.com/owner/repo", "github.com/owner/repo"),
        ("https://github.com/owner/repo.git/", "github.com/owner/repo"),
        ("ssh://git@github.com/owner/repo.git", "github.com/owner/repo"),
        ("https://user:s3cret@gitlab.example.com:8443/g/p.git", "gitlab.example.com/g/p"),
        ("git@gitlab.com:group/proj.git", "gitlab.com/group/proj"),
        ("/srv/git/proj.git", "/srv/git/proj"),
    ],
)
def test_remote_normalisation_drops_scheme_user_and_credentials(url: str, key: str):
    assert paths.normalize_remote(url) == key


def test_git_remote_read_from_config_and_worktree(tmp_path: Path):
    repo = tmp_path / "repo"
    _git_repo(repo, "git@github.com:o/r.git")
    (repo / "src" / "deep").mkdir(parents=True)
    assert paths.git_remote(repo / "src" / "deep") == "github.com/o/r"
    # a linked worktree: `.git` is a file pointing into the main repository
    wt_git = repo / ".git" / "worktrees" / "wt"
    wt_git.mkdir(parents=True)
    (wt_git / "commondir").write_text("../..\n")
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {wt_git}\n")
    assert paths.git_remote(wt) == "github.com/o/r"
    assert paths.git_remote(tmp_path / "elsewhere") is None


def test_fresh_checkout_inherits_memory_through_the_index(tmp_path: Path):
    home = tmp_path / "home"
    first, second = tmp_path / "first", tmp_path / "second"
    _git_repo(first, "https://github.com/o/r.git")
    _git_repo(second, "git@github.com:o/r.git")
    f = _make_memory(home, paths.claude_folder_name(str(first.resolve())))

    assert paths.resolve(_settings(home, first)).project.path == f  # records the index
    index = json.loads(paths.index_file(_settings(home)).read_text())
    assert index == {"github.com/o/r": str(f)}

    layers = paths.resolve(_settings(home, second))
    assert layers.project.path == f
    assert "indexed" in layers.project.reason


def test_index_is_not_flipped_by_a_second_checkout_with_its_own_file(tmp_path: Path):
    home = tmp_path / "home"
    a, b = tmp_path / "a", tmp_path / "b"
    _git_repo(a, "git@github.com:o/r.git")
    _git_repo(b, "git@github.com:o/r.git")
    fa = _make_memory(home, paths.claude_folder_name(str(a.resolve())))
    fb = _make_memory(home, paths.claude_folder_name(str(b.resolve())))
    assert paths.resolve(_settings(home, a)).project.path == fa
    assert paths.resolve(_settings(home, b)).project.path == fb
    index = json.loads(paths.index_file(_settings(home)).read_text())
    assert index["github.com/o/r"] == str(fa)


def test_legacy_index_key_is_honoured(tmp_path: Path):
    home = tmp_path / "home"
    repo = tmp_path / "repo"
    _git_repo(repo, "git@gitlab.com:g/p.git")
    target = _make_memory(home, "somewhere-else")
    # the earlier plugin kept non-GitHub URLs raw (minus .git)
    paths.index_file(_settings(home)).write_text(json.dumps({"git@gitlab.com:g/p": str(target)}))
    assert paths.resolve(_settings(home, repo)).project.path == target


def test_malformed_index_is_never_overwritten(tmp_path: Path):
    home = tmp_path / "home"
    repo = tmp_path / "repo"
    _git_repo(repo, "git@github.com:o/r.git")
    f = _make_memory(home, paths.claude_folder_name(str(repo.resolve())))
    idx = paths.index_file(_settings(home))
    idx.write_text("{not json")
    assert paths.resolve(_settings(home, repo)).project.path == f
    assert idx.read_text() == "{not json"


def _record(args: tuple[str, int]) -> None:
    home, n = args
    s = Settings.load({"AGD_MEMORY_HOME": home})
    target = Path(home) / f"m{n}.agd"
    target.write_text("")
    paths.record_remote(s, f"github.com/o/r{n}", target)


@pytest.mark.slow
def test_concurrent_index_updates_are_never_lost(tmp_path: Path):
    home = tmp_path / "home"
    (home / ".claude" / "projects").mkdir(parents=True)
    with multiprocessing.get_context("spawn").Pool(6) as pool:
        pool.map(_record, [(str(home), n) for n in range(40)])
    index = json.loads(paths.index_file(_settings(home)).read_text())
    assert sorted(index) == sorted(f"github.com/o/r{n}" for n in range(40))


def test_list_project_files(tmp_path: Path):
    home = tmp_path / "home"
    a = _make_memory(home, "-a")
    b = _make_memory(home, "-b")
    (home / ".claude/projects/-c/memory").mkdir(parents=True)  # no file
    assert paths.list_project_files(_settings(home)) == [a, b]


def test_very_long_project_paths_reuse_claude_codes_truncated_folder(tmp_path: Path):
    home = tmp_path / "home"
    deep = tmp_path / ("x" * 120) / ("y" * 120)
    deep.mkdir(parents=True)
    name = paths.claude_folder_name(str(deep))
    assert len(name) > paths.MAX_FOLDER_NAME
    new = paths.resolve(_settings(home, deep)).project.path
    folder = new.parent.parent.name
    assert len(folder) <= 255 and folder.startswith(name[: paths.MAX_FOLDER_NAME])
    # Claude Code's own folder (its hash differs from ours) is found and reused
    theirs = home / ".claude/projects" / (name[: paths.MAX_FOLDER_NAME] + "-abc123")
    theirs.mkdir(parents=True)
    assert paths.resolve(_settings(home, deep)).project.path == theirs / "memory/memory.agd"


# -- the team layer ------------------------------------------------------------------


def _real_git(tmp_path: Path, *args: str, cwd: Path) -> None:
    import subprocess

    env = {**os.environ, "HOME": str(tmp_path), "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig")}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def test_team_layer_is_at_the_repository_root_from_a_subfolder(tmp_path: Path):
    repo = tmp_path / "repo"
    (repo / "src" / "deep").mkdir(parents=True)
    _real_git(tmp_path, "init", "-q", cwd=repo)
    layers = paths.resolve(_settings(tmp_path / "home", repo / "src" / "deep"))
    assert layers.team is not None
    assert layers.team.path == repo / ".claude" / "memory.agd"
    assert layers.select("team") == [layers.team]


def test_a_linked_worktree_has_its_own_team_file(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _real_git(tmp_path, "init", "-q", cwd=repo)
    _real_git(
        tmp_path,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@e",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
        cwd=repo,
    )
    _real_git(tmp_path, "worktree", "add", "-q", str(tmp_path / "wt"), cwd=repo)
    (tmp_path / "wt" / "sub").mkdir()
    team = paths.resolve(_settings(tmp_path / "home", tmp_path / "wt" / "sub")).team
    assert team is not None and team.path == tmp_path / "wt" / ".claude" / "memory.agd"


def test_all_reads_the_team_layer_first_only_when_its_file_exists(tmp_path: Path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    layers = paths.resolve(_settings(tmp_path / "home", repo))
    assert [layer.name for layer in layers.select("all")] == ["project", "global"]
    (repo / ".claude").mkdir()
    (repo / ".claude" / "memory.agd").write_text("@meta format=agd version=1 [#meta]\n")
    assert [layer.name for layer in layers.select("all")] == ["team", "project", "global"]


def test_team_file_variable_overrides_and_outside_a_repository_there_is_none(tmp_path: Path):
    outside = tmp_path / "plain"
    outside.mkdir()
    layers = paths.resolve(_settings(tmp_path / "home", outside))
    assert layers.team is None
    with pytest.raises(UserError, match="not inside a git repository"):
        layers.select("team")
    forced = tmp_path / "team.agd"
    s = _settings(tmp_path / "home", outside, AGD_MEMORY_TEAM_FILE=str(forced))
    team = paths.resolve(s).team
    assert team is not None and team.path == forced and team.reason == "AGD_MEMORY_TEAM_FILE"


@pytest.mark.parametrize(
    "reason",
    [
        "Not a directory",
        "File name too long",
        "Too many levels of symbolic links",
        "not a regular file",
    ],
)
def test_where_and_doctor_name_a_memory_path_they_cannot_look_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], reason: str
) -> None:
    # one line saying why: never "not created yet" / "no memory yet", never a traceback
    from agd_memory import cli

    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    os.mkfifo(tmp_path / "fifo")
    bad = {
        "Not a directory": tmp_path / "a-file" / "memory.agd",
        "File name too long": tmp_path / ("x" * 300) / "memory.agd",
        "Too many levels of symbolic links": tmp_path / "loop",
        "not a regular file": tmp_path / "fifo",
    }[reason]
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("AGD_MEMORY_FILE", str(bad))
    monkeypatch.setenv("AGD_MEMORY_GLOBAL_FILE", str(tmp_path / "global.agd"))
    assert cli.main(["where"]) == 1
    out, err = capsys.readouterr()
    assert f"project: {bad} (cannot be read)" in out
    assert "global: " in out and "(not created yet)" in out  # the other layers still listed
    assert err.count("\n") == 1 and reason in err and "Traceback" not in err
    assert cli.main(["where", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["project"]["exists"] is False and reason in report["project"]["error"]

    assert cli.main(["doctor"]) == 1
    out, err = capsys.readouterr()
    errors = [line for line in out.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and reason in errors[0] and str(bad) in errors[0], out
    assert "no project memory yet" not in out and "Traceback" not in err



def test_a_subfolder_and_a_linked_worktree_share_the_repository_folder(tmp_path: Path):
    # as Claude Code keys its auto memory (checked with the real CLI 2.1.332: a subfolder
    # and a `git worktree add` checkout both got the main checkout's memory folder)
    home, repo = tmp_path / "home", tmp_path / "repo"
    (repo / "src" / "deep").mkdir(parents=True)
    _real_git(tmp_path, "init", "-q", cwd=repo)
    _real_git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
              "-m", "x", cwd=repo)  # fmt: skip
    _real_git(tmp_path, "worktree", "add", "-q", str(tmp_path / "wt"), cwd=repo)
    expected = home / ".claude/projects" / paths.claude_folder_name(str(repo)) / "memory"
    for cwd in (repo, repo / "src" / "deep", tmp_path / "wt"):
        assert paths.resolve(_settings(home, cwd)).project.path.parent == expected, cwd
        assert paths.auto_memory_folder(_settings(home, cwd)) == expected, cwd


def test_a_subfolders_own_existing_memory_is_still_used(tmp_path: Path):
    home, repo = tmp_path / "home", tmp_path / "repo"
    sub = repo / "service"
    sub.mkdir(parents=True)
    _real_git(tmp_path, "init", "-q", cwd=repo)
    own = _make_memory(home, paths.claude_folder_name(str(sub)))
    layers = paths.resolve(_settings(home, sub))
    assert layers.project.path == own and "existing memory" in layers.project.reason


def test_a_project_memory_file_leads_back_to_its_working_folder(tmp_path: Path, monkeypatch):
    """`project_folder`: the folder whose project layer a memory file is (the viewer edits
    every project's memory, and records code citations in that project's repository)."""
    tmp_path = Path(os.path.realpath(tmp_path))
    home, repo, other = tmp_path / "home", tmp_path / "my.shop", tmp_path / "other"
    (repo / "src").mkdir(parents=True)
    other.mkdir()
    _real_git(tmp_path, "init", "-q", cwd=repo)
    memory = _make_memory(home, paths.claude_folder_name(str(repo)))
    monkeypatch.chdir(other)
    settings = _settings(home)
    # no transcript: the folder its name spells (`.` and `/` both became `-`)
    assert paths.project_folder(settings, memory) == repo
    # a transcript names the session's folder, a subfolder of the repository
    transcript = memory.parent.parent / "session-1.jsonl"
    transcript.write_text(
        json.dumps({"type": "summary"}) + "\n" + json.dumps({"cwd": str(repo / "src")}) + "\n"
    )
    assert paths.project_folder(settings, memory) == repo / "src"
    # a transcript naming a folder of another project is not believed
    transcript.write_text(json.dumps({"cwd": str(other)}) + "\n")
    assert paths.project_folder(settings, memory) == repo
    # the current folder's (or AGD_MEMORY_PROJECT_CWD's) own memory: that folder
    assert paths.project_folder(_settings(home, repo / "src"), memory) == repo / "src"
    # a file that is no project's memory
    assert paths.project_folder(settings, tmp_path / "loose.agd") is None
