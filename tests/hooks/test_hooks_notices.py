"""Notices to the user: `hooks.notify_user` lines reach the hook output's `systemMessage`
(shown to the user, never to the model), beside the model's context or alone, and even
when the handler then fails open."""

from __future__ import annotations

import json

from hookutil import run_main

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
