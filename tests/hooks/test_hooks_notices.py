"""Notices to the user: `hooks.notify_user` lines reach the hook output's `systemMessage`
(shown to the user, never to the model), beside the model's context or alone, and even
when the handler then fails open."""

from __future__ import annotations

import json

from hookutil import PROJECT_MEMORY, load_payload, run_main, write_layer

from agd_memory.claude import hooks


def run_with(monkeypatch, capsys, handler) -> dict:
    monkeypatch.setitem(hooks.HANDLERS, "session-start", ("SessionStart", handler))
    status, out, _ = run_main(["session-start"], "{}", monkeypatch, capsys)
    assert status == 0
    return json.loads(out) if out else {}


def test_notice_goes_to_the_user_beside_the_context(monkeypatch, capsys, hook_env) -> None:
    def handler(payload, settings):
        hooks.notify_user("first  thing\nto fix")
        hooks.notify_user("first thing to fix")  # the same line: sent once
        hooks.notify_user("second")
        return "context for the model"

    data = run_with(monkeypatch, capsys, handler)
    assert data["systemMessage"] == "agd-memory: first thing to fix\nagd-memory: second"
    assert data["hookSpecificOutput"]["additionalContext"] == "context for the model"
    assert "first thing" not in data["hookSpecificOutput"]["additionalContext"]


def test_notice_alone_and_after_a_failure(monkeypatch, capsys, hook_env) -> None:
    def handler(payload, settings):
        hooks.notify_user("install failed; run doctor")
        raise RuntimeError("later step broke")

    assert run_with(monkeypatch, capsys, handler) == {
        "systemMessage": "agd-memory: install failed; run doctor"
    }
    # the next run starts with an empty queue
    assert run_with(monkeypatch, capsys, lambda p, s: None) == {}


def test_session_start_tells_user_and_model_about_a_file_that_does_not_parse(
    monkeypatch, capsys, hook_env, project
) -> None:
    broken = write_layer(hook_env, project, PROJECT_MEMORY + "@x-project [#bad\n")
    write_layer(hook_env, project, "@x-user [#tone]\n~~~\nShort answers.\n~~~\n", "global")
    payload = json.dumps(load_payload("session-start-startup", cwd=str(project)))
    status, out, _ = run_main(["session-start"], payload, monkeypatch, capsys)
    data = json.loads(out)
    line = PROJECT_MEMORY.count("\n") + 1
    user = data["systemMessage"]
    assert user.startswith(f"agd-memory: the project layer is left out: memory file {broken}")
    assert f"line {line}" in user and f"agd validate {broken}" in user and "restore" not in user
    context = data["hookSpecificOutput"]["additionalContext"]
    first, *rest = context.splitlines()
    assert first == (
        f"The project memory file {broken} does not parse at line {line}, so its entries are "
        f"missing here; the user has been told (`agd validate {broken}` shows the line)."
    )
    assert "#tone" in "\n".join(rest)  # the global layer's TOC still goes out


def test_session_start_with_only_a_broken_file_still_speaks(
    monkeypatch, capsys, hook_env, project
) -> None:
    write_layer(hook_env, project, "@x-project [#a\n")
    status, out, _ = run_main(
        ["session-start"], json.dumps({"cwd": str(project)}), monkeypatch, capsys
    )
    data = json.loads(out)
    assert "does not parse" in data["systemMessage"]
    assert "does not parse" in data["hookSpecificOutput"]["additionalContext"]
