"""The store's verbs through the public command `bin/agd-memory`."""

from __future__ import annotations

import json
from pathlib import Path

import agd


def _project_file(cli) -> Path:
    out = cli("where", "--json")
    assert out.returncode == 0, out.stderr
    return Path(json.loads(out.stdout)["project"]["path"])


def test_save_get_toc_round_trip(cli):
    r = cli("save", "x-project", "db", "--desc", "database", "--content", "We use Postgres 16.")
    assert (r.returncode, r.stdout, r.stderr) == (0, "added #db (x-project) in memory.agd\n", "")
    r = cli(
        "save", "project", "orm", "--content-file", "-", "--status", "open", input="ORM over #db\n"
    )
    assert r.returncode == 0, r.stderr
    r = cli("get", "orm", "--follow-refs")
    assert r.returncode == 0
    doc = agd.parse(r.stdout)
    assert [b.id for b in doc.blocks] == ["orm", "db"]
    assert doc.blocks[0].attrs["refs"] == "#db"
    r = cli("get", "orm", "--json")
    data = json.loads(r.stdout)
    assert data["missing"] == [] and data["entries"][0]["body"] == "ORM over #db\n"
    r = cli("toc")
    assert "- #orm: ORM over #db [open, 2026-03-14]" in r.stdout
    r = cli("toc", "--status", "open", "--json")
    assert [e["id"] for e in json.loads(r.stdout)] == ["orm"]


def test_save_json_and_refs_clearing(cli):
    cli("save", "x-project", "a", "--content", "x")
    r = cli("save", "x-project", "b", "--content", "see #a", "--json")
    assert json.loads(r.stdout)["refs"] == ["a"]
    r = cli("save", "x-project", "b", "--content", "see #a", "--refs", "", "--json")
    assert json.loads(r.stdout)["refs"] == []
    r = cli("save", "x-project", "c", "--content", "v2", "--supersedes", "#a,b", "--json")
    assert json.loads(r.stdout)["superseded"] == ["a", "b"]


def test_global_scope(cli, home: Path):
    r = cli("save", "x-user", "lang", "--content", "Italian", "--scope", "global")
    assert r.returncode == 0 and "global.agd" in r.stdout
    assert (home / ".claude/memory/global.agd").is_file()
    assert "lang" in cli("toc").stdout


def test_errors_are_one_line_with_exit_1(cli, tmp_path: Path):
    cases = [
        ("save", "x-project", "bad.id", "--content", "x"),
        ("save", "x-project", "ok", "--content", "AKIAABCDEFGHIJKLMNOP"),
        ("save", "x-project", "ok", "--content-file", str(tmp_path / "missing.txt")),
        ("save", "x-project", "ok", "--content", "x", "--status", "wip"),
        ("delete", "nothing"),
        ("rename", "a", "b"),
        ("toc", "--since", "last week"),
    ]
    for args in cases:
        r = cli(*args)
        assert r.returncode == 1, (args, r.stdout, r.stderr)
        assert r.stderr.startswith("agd-memory: "), (args, r.stderr)
        assert r.stderr.count("\n") == 1, (args, r.stderr)
        assert "Traceback" not in r.stderr
    assert "try `bad-id`" in cli(*cases[0]).stderr
    assert "AWS access key id" in cli(*cases[1]).stderr


def test_allow_secrets_flag(cli):
    r = cli("save", "x-reference", "k", "--content", "AKIAABCDEFGHIJKLMNOP", "--allow-secrets")
    assert r.returncode == 0, r.stderr


def test_get_missing_ids(cli):
    cli("save", "x-project", "a", "--content", "x")
    r = cli("get", "a", "zz")
    assert r.returncode == 0 and "[#a]" in r.stdout and "#zz" in r.stderr
    r = cli("get", "zz")
    assert r.returncode == 1


def test_delete_and_rename_verbs(cli):
    cli("save", "x-project", "a", "--content", "x")
    cli("save", "x-project", "b", "--content", "about #a")
    r = cli("rename", "a", "alpha")
    assert r.stdout == "renamed #a to #alpha in memory.agd; rewrote references in #b\n"
    r = cli("delete", "alpha", "--json")
    assert json.loads(r.stdout)["cited_by"] == ["b"]


def test_where_explains_both_layers(cli, env_vars):
    r = cli("where")
    lines = r.stdout.splitlines()
    assert lines[0].startswith("project: ") and lines[0].endswith("(not created yet)")
    assert lines[1].startswith("  why: new memory for AGD_MEMORY_PROJECT_CWD")
    assert lines[2].startswith("global: ")
    assert lines[3] == "  why: the default global file"
    cli("save", "x-project", "a", "--content", "x")
    data = json.loads(cli("where", "--json").stdout)
    assert data["project"]["exists"] is True
    assert "existing memory" in data["project"]["reason"]
    forced = cli("where", extra_env={"AGD_MEMORY_FILE": env_vars["HOME"] + "/forced.agd"})
    assert "why: AGD_MEMORY_FILE" in forced.stdout


def test_read_only_file_through_the_command(cli):
    cli("save", "x-project", "a", "--content", "x")
    path = _project_file(cli)
    path.chmod(0o444)
    before = path.read_bytes()
    try:
        r = cli("save", "x-project", "b", "--content", "y")
    finally:
        path.chmod(0o644)
    assert r.returncode == 1 and "read-only" in r.stderr
    assert path.read_bytes() == before


# -- loud where it matters: a broken layer, another layer's id, nothing matched -----------


def _break_project(cli) -> Path:
    cli("save", "x-project", "local", "--content", "project fact about pgbouncer")
    cli("save", "x-user", "tone", "--content", "short answers about pgbouncer", "--scope", "global")
    path = _project_file(cli)
    path.write_text(path.read_text(encoding="utf-8") + "@x-project [#bad\n", encoding="utf-8")
    return path


def test_every_reader_names_a_file_that_does_not_parse(cli):
    path = _break_project(cli)
    for verb in (
        ("toc",),
        ("toc", "--json"),
        ("get", "tone"),
        ("search", "pgbouncer"),
        ("recall", "which port does pgbouncer use for answers"),
    ):
        r = cli(*verb)
        assert r.returncode == 1, verb  # the user learns it; the other layer still answers
        assert f"the project layer is left out: memory file {path} does not parse" in r.stderr
        assert "line" in r.stderr and f"agd validate {path}" in r.stderr
        assert "restore" not in r.stderr  # ordinary saves keep no backup to restore
        assert "Traceback" not in r.stderr
    assert "#tone" in cli("toc").stdout
    assert "short answers" in cli("get", "tone").stdout
    assert "#tone" in cli("search", "pgbouncer").stdout


def test_parse_error_names_the_backup_when_one_exists(cli):
    path = _break_project(cli)
    bak = path.with_name(path.name + ".bak")
    bak.write_text("@x-project [#local]\n~~~\nproject fact\n~~~\n", encoding="utf-8")
    r = cli("toc")
    assert f"restore {bak}" in r.stderr


def test_parse_error_never_advises_a_backup_older_than_later_saves(cli):
    """A newcomer followed "restore memory.agd.bak" and lost the entries saved after it:
    when the backup lacks entries the file has, the notice names them and says not to."""
    path = _break_project(cli)
    bak = path.with_name(path.name + ".bak")
    bak.write_text("@meta format=agd version=1 [#meta]\n", encoding="utf-8")
    r = cli("toc")
    line = next(x for x in r.stderr.splitlines() if str(path) in x)
    assert f"or restore {bak}" not in line
    assert f"do not restore {bak}" in line and "lacks 1 entry (#local)" in line
    assert f"agd validate {path}" in line


def test_delete_and_rename_point_to_the_layer_that_has_the_id(cli):
    cli("save", "x-project", "here", "--content", "x")
    cli("save", "x-user", "tone", "--content", "short answers", "--scope", "global")
    for verb in (("delete", "tone"), ("rename", "tone", "voice")):
        r = cli(*verb)
        assert r.returncode == 1
        assert r.stderr == (
            "agd-memory: no block #tone in the project layer; it is in the global layer: "
            "run it again with --scope global\n"
        )
    assert cli("rename", "tone", "voice", "--scope", "global").returncode == 0
    assert "no block #nowhere in" in cli("delete", "nowhere").stderr  # in no layer: as before


def test_get_offers_did_you_mean(cli):
    cli("save", "x-project", "deploy-flow", "--content", "x")
    r = cli("get", "deploy-flwo")
    assert r.returncode == 1
    assert "not found in any layer: #deploy-flwo (did you mean #deploy-flow?)" in r.stderr


def test_toc_filter_matching_nothing_says_so(cli):
    cli("save", "x-project", "a", "--content", "x")
    r = cli("toc", "--kind", "x-nothing")
    assert (r.returncode, r.stdout) == (0, "no entries match --kind x-nothing\n")
    assert cli("toc", "--kind", "x-nothing", "--json").stdout.strip() == "[]"


def test_search_of_common_words_only_says_so(cli):
    cli("save", "x-project", "a", "--content", "the start of the day")
    r = cli("search", "the a of")
    assert r.returncode == 1 and r.stdout == ""
    assert "has no searchable words" in r.stderr
