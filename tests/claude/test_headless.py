"""The headless `claude -p` run, against the scripted fake on PATH."""

from __future__ import annotations

import json

import pytest

from agd_memory.claude import headless
from agd_memory.distill.schema import SCHEMA

PROPOSAL = {
    "kind": "x-project",
    "id": "queue-db",
    "desc": "Job queue on Postgres",
    "body": "SKIP LOCKED.",
}


def ask(env, **changes):
    settings = env.settings().replace(**changes)
    notes: list[str] = []
    return headless.ask(settings, "SYSTEM PROMPT", "SESSION TEXT", SCHEMA, log=notes.append), notes


def test_runs_claude_with_no_tools_a_schema_and_the_guard(env, fake_claude) -> None:
    fake_claude.script({"proposals": [PROPOSAL]})
    answer, _ = ask(env)
    assert answer.items == [PROPOSAL] and answer.attempts == 1
    (call,) = fake_claude.calls()
    argv = call["argv"]
    assert argv[0] == "-p"
    assert argv[argv.index("--tools") + 1] == ""
    for flag in ("--safe-mode", "--no-session-persistence"):
        assert flag in argv
    assert "--dangerously-skip-permissions" not in argv
    assert argv[argv.index("--model") + 1] == "claude-sonnet-4-6"
    assert argv[argv.index("--output-format") + 1] == "json"
    schema = json.loads(argv[argv.index("--json-schema") + 1])
    assert schema["properties"]["proposals"]["maxItems"] == 3
    assert argv[argv.index("--system-prompt") + 1] == "SYSTEM PROMPT"
    assert call["stdin"] == "SESSION TEXT"
    assert call["guard"] == "1"
    assert "agd-distill-" in call["cwd"]  # an empty scratch folder, not the project


def test_the_ended_sessions_identity_is_not_passed_on(env, fake_claude, monkeypatch) -> None:
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "abc")
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(env.data))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "/somewhere/.claude")
    ask(env)
    assert fake_claude.calls()[0]["env"] == {"CLAUDE_CONFIG_DIR": "/somewhere/.claude"}


def test_model_setting_is_passed(env, fake_claude) -> None:
    ask(env, distill_model="haiku")
    argv = fake_claude.calls()[0]["argv"]
    assert argv[argv.index("--model") + 1] == "haiku"


def test_transient_failures_are_retried_with_linear_backoff(env, fake_claude, monkeypatch) -> None:
    fake_claude.script(
        {"exit": 1, "stderr": "API Error: 529 Overloaded"},
        {"exit": 1, "stderr": "Error: Rate limit exceeded (429)"},
        {"proposals": [PROPOSAL]},
    )
    slept: list[float] = []
    settings = env.settings().replace(distill_backoff_s=2.0, distill_retries=3)
    notes: list[str] = []
    answer = headless.ask(settings, "S", "M", SCHEMA, log=notes.append, sleep=slept.append)
    assert answer.attempts == 3 and answer.items == [PROPOSAL]
    assert slept == [2.0, 4.0]
    assert len(fake_claude.calls()) == 3
    assert "retrying in 2s" in notes[0]


def test_gives_up_after_the_configured_attempts(env, fake_claude) -> None:
    fake_claude.script({"exit": 1, "stderr": "connect ECONNREFUSED 127.0.0.1:443"})
    with pytest.raises(headless.DistillFailed, match="giving up after 2 attempts") as info:
        ask(env, distill_retries=2)
    assert info.value.transient
    assert len(fake_claude.calls()) == 2


def test_a_permanent_failure_is_not_retried(env, fake_claude) -> None:
    fake_claude.script(
        {
            "result": {
                "type": "result",
                "subtype": "success",
                "is_error": True,
                "api_error_status": 401,
                "result": "Invalid API key",
            },
            "exit": 1,
        }
    )
    with pytest.raises(headless.DistillFailed, match="Invalid API key") as info:
        ask(env)
    assert not info.value.transient
    assert len(fake_claude.calls()) == 1


def test_an_api_status_of_429_in_the_result_is_transient(env, fake_claude) -> None:
    fake_claude.script(
        {
            "result": {
                "type": "result",
                "is_error": True,
                "api_error_status": 429,
                "result": "slow down",
            },
            "exit": 1,
        },
        {"proposals": []},
    )
    answer, _ = ask(env)
    assert answer.attempts == 2 and answer.items == []


def test_a_run_past_the_time_limit_is_killed_and_retried(env, fake_claude) -> None:
    fake_claude.script({"sleep": 30, "proposals": []}, {"proposals": [PROPOSAL]})
    answer, notes = ask(env, distill_timeout_s=1.0)
    assert answer.attempts == 2
    assert "timed out after 1s" in notes[0]


def test_an_answer_without_structured_proposals_is_a_permanent_failure(env, fake_claude) -> None:
    fake_claude.script(
        {
            "result": {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "result": "I saved it for you.",
            }
        }
    )
    with pytest.raises(headless.DistillFailed, match="no structured"):
        ask(env)


def test_structured_output_in_the_result_text_is_accepted(env, fake_claude) -> None:
    fake_claude.script(
        {
            "result": {
                "type": "result",
                "is_error": False,
                "result": json.dumps({"proposals": [PROPOSAL]}),
            }
        }
    )
    answer, _ = ask(env)
    assert answer.items == [PROPOSAL]


def test_an_old_cli_without_safe_mode_falls_back_to_disabling_hooks(env, fake_claude) -> None:
    fake_claude.script(
        {"exit": 1, "stderr": "error: unknown option '--safe-mode'"}, {"proposals": []}
    )
    answer, notes = ask(env)
    assert answer.attempts == 1
    argv = fake_claude.calls()[1]["argv"]
    assert "--safe-mode" not in argv
    assert argv[argv.index("--settings") + 1] == '{"disableAllHooks": true}'
    assert "--strict-mcp-config" in argv
    assert "no --safe-mode" in notes[0]


def test_missing_claude_is_reported(env, fake_claude) -> None:
    with pytest.raises(headless.DistillFailed, match="not found on PATH") as info:
        ask(env, distill_claude="no-such-claude-binary")
    assert not info.value.transient
