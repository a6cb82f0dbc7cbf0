"""`agd-memory distill --status` and `agd-memory distill TRANSCRIPT [--dry-run]`."""

from __future__ import annotations

import json

from distill_records import edit_session, trivial_session, write_transcript

from agd_memory.cli import main

DECISION = {
    "kind": "x-project",
    "id": "queue-db",
    "desc": "Job queue runs on Postgres",
    "body": "For SKIP LOCKED.",
}


def test_dry_run_prints_the_proposals_and_writes_nothing(env, fake_claude, capsys) -> None:
    fake_claude.script({"proposals": [DECISION]})
    cwd = env.project("app")
    t = write_transcript(env.root / "s.jsonl", edit_session())
    assert main(["distill", str(t), "--dry-run", "--cwd", str(cwd)]) == 0
    out = capsys.readouterr().out
    assert "dry-run: 1 proposed, 0 saved" in out
    assert "- would add: #queue-db (x-project) Job queue runs on Postgres" in out
    assert "      For SKIP LOCKED." in out
    assert not env.memory_file(cwd).exists()
    # A dry run consumes nothing: the next real run sees the same part.
    assert main(["distill", str(t), "--cwd", str(cwd)]) == 0
    assert "saved: 1 proposed, 1 saved" in capsys.readouterr().out
    assert "#queue-db" in env.memory_file(cwd).read_text()


def test_foreground_json_output(env, fake_claude, capsys) -> None:
    fake_claude.script({"proposals": [DECISION, {"kind": "nonsense", "id": "x", "body": "y"}]})
    cwd = env.project("app")
    t = write_transcript(env.root / "s.jsonl", edit_session())
    assert main(["distill", str(t), "--cwd", str(cwd), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "saved"
    assert [o["action"] for o in data["outcomes"]] == ["added", "invalid"]
    assert data["proposals"][0] == DECISION


def test_foreground_honours_the_gate(env, fake_claude, capsys, monkeypatch) -> None:
    cwd = env.project("app")
    t = write_transcript(env.root / "s.jsonl", trivial_session())
    assert main(["distill", str(t), "--cwd", str(cwd)]) == 0
    assert capsys.readouterr().out.startswith("skipped: trivial session (0 edits, 1 tool uses")
    assert fake_claude.calls() == []
    monkeypatch.setenv("AGD_DISTILL_MIN_TOOL_USES", "1")
    assert main(["distill", str(t), "--cwd", str(cwd), "--dry-run"]) == 0
    assert len(fake_claude.calls()) == 1


def test_status_shows_recent_runs_and_what_each_saved(env, fake_claude, capsys) -> None:
    fake_claude.script({"proposals": [DECISION]})
    cwd = env.project("app")
    main(
        [
            "distill",
            str(write_transcript(env.root / "a.jsonl", edit_session())),
            "--cwd",
            str(cwd),
            "--session-id",
            "abcdef123",
        ]
    )
    main(
        [
            "distill",
            str(write_transcript(env.root / "b.jsonl", trivial_session())),
            "--cwd",
            str(cwd),
            "--session-id",
            "zz9",
        ]
    )
    capsys.readouterr()
    assert main(["distill", "--status"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "saved    session abcdef12  1 proposed, 1 saved" in lines[0]
    assert lines[1].strip().startswith("saved: #queue-db (added)")
    assert "skipped  session zz9" in lines[2] and "trivial session" in lines[2]
    assert lines[-1].startswith("log: ") and lines[-1].endswith("distill.log")
    assert main(["distill", "--status", "--json", "--limit", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["outcome"] for r in data["runs"]] == ["skipped"]


def test_status_with_no_runs(env, capsys) -> None:
    assert main(["distill", "--status"]) == 0
    assert capsys.readouterr().out.startswith("no distiller runs yet")


def test_a_failed_run_exits_1_with_the_reason(env, fake_claude, capsys, monkeypatch) -> None:
    monkeypatch.setenv("AGD_DISTILL_RETRIES", "1")
    fake_claude.script({"exit": 1, "stderr": "Invalid API key · Please run /login"})
    t = write_transcript(env.root / "s.jsonl", edit_session())
    assert main(["distill", str(t), "--cwd", str(env.project("app"))]) == 1
    assert "failed: exit 1: Invalid API key" in capsys.readouterr().out


def test_bad_arguments_give_one_line_errors(env, capsys) -> None:
    assert main(["distill", str(env.root / "missing.jsonl")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("agd-memory: distill: no transcript at ") and err.count("\n") == 1
    assert main(["distill"]) == 1
    assert "give a transcript file, or --status" in capsys.readouterr().err


def test_status_points_at_the_plugins_own_data_folder(env, capsys, monkeypatch) -> None:
    plugin_data = env.home / ".claude" / "plugins" / "data" / "agd-memory-agd-memory"
    (plugin_data / "distill").mkdir(parents=True)
    (plugin_data / "distill" / "runs.jsonl").write_text('{"outcome": "saved"}\n')
    monkeypatch.delenv("CLAUDE_PLUGIN_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(env.root / "xdg"))
    assert main(["distill", "--status"]) == 0
    out = capsys.readouterr().out
    assert f"CLAUDE_PLUGIN_DATA={plugin_data} agd-memory distill --status" in out
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(plugin_data))
    assert main(["distill", "--status"]) == 0
    out = capsys.readouterr().out
    assert "also:" not in out and "saved" in out
