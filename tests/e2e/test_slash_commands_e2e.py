"""The plugin's slash commands, run by the real `claude` CLI against the fake API.

A user who lives in Claude Code reviews proposals and switches Claude Code's own auto
memory off without a shell: the skill runs `agd-memory` through `${CLAUDE_PLUGIN_ROOT}`,
its output reaches the model to show, and what changes files waits for the user's yes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_harness import REPO, Reply

pytestmark = pytest.mark.e2e

LAUNCHER = f'"{REPO}/bin/agd-memory"'
"""How the skills name the program once Claude Code substituted `${CLAUDE_PLUGIN_ROOT}`."""


def skill_text(run) -> str:
    """The expanded skill as the first conversation request carried it."""
    return run.conversation[0].all_text()


def test_review_lists_a_queued_proposal_and_accepts_it(claude, fake_api, e2e_project) -> None:
    from agd_memory import store
    from agd_memory.distill import review
    from agd_memory.settings import Settings

    path = e2e_project.memory_path()
    mf = store.MemoryFile(path, settings=Settings.load(e2e_project.settings_env()))
    (item,) = review.enqueue(
        mf,
        [review.Proposal.save("x-project", "ci-host", "CI runs on Forgejo.", desc="ci host")],
        source="distill",
    ).added
    fake_api.script(
        Reply.text(f"One proposal waits: {item.id}. Accept, reject or edit?"),
    )
    listed = claude("/agd-memory:review")
    assert listed.ok, listed.diagnose()
    sent = skill_text(listed)
    assert item.id in sent and "ci-host" in sent and "CI runs on Forgejo." in sent
    assert not Path(path).exists()  # listing wrote nothing

    fake_api.script(
        Reply.tool_use("Bash", {"command": f"{LAUNCHER} review accept {item.id}"}),
        Reply.text("accepted"),
    )
    accepted = claude(f"/agd-memory:review accept {item.id}")
    assert accepted.ok, accepted.diagnose()
    assert accepted.result and not accepted.result.get("permission_denials"), accepted.diagnose()
    result = "\n".join(accepted.conversation[-1].tool_results())
    assert "ci-host" in result, result
    text = Path(path).read_text(encoding="utf-8")
    assert "#ci-host" in text and "CI runs on Forgejo." in text
    assert review.pending(mf) == []


def test_setup_switches_auto_memory_off_only_after_the_users_yes(
    claude, fake_api, e2e_project
) -> None:
    settings_file = e2e_project.config_dir / "settings.json"
    fake_api.script(
        Reply.text("Switch Claude Code's auto memory off and import its notes? (yes/no)")
    )
    asked = claude("/agd-memory:setup", persist_session=True)
    assert asked.ok, asked.diagnose()
    sent = skill_text(asked)
    assert "autoMemoryEnabled" in sent and str(settings_file) in sent  # the dry run, shown
    assert not settings_file.exists() or "autoMemoryEnabled" not in settings_file.read_text()

    # The user's yes; Claude Code asks before the Bash call too, and the user allows it.
    fake_api.script(
        Reply.tool_use("Bash", {"command": f"{LAUNCHER} setup --apply"}),
        Reply.text("done"),
    )
    yes = claude(
        "yes",
        args=["--continue"],
        persist_session=True,
        allowed_tools=[f"Bash({LAUNCHER} setup:*)"],
    )
    assert yes.ok, yes.diagnose()
    assert json.loads(settings_file.read_text(encoding="utf-8"))["autoMemoryEnabled"] is False


def user_notices(run) -> list[str]:
    """The hooks' `systemMessage` lines of a `--output-format stream-json --verbose` run."""
    events = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    messages = [
        json.loads(e["output"]).get("systemMessage", "")
        for e in events
        if e.get("type") == "system"
        and "hook" in str(e.get("subtype"))
        and str(e.get("output", "")).startswith("{")
    ]
    return [line for message in messages for line in message.splitlines()]


def test_the_first_session_after_an_install_tells_the_commands_once(claude, e2e_project) -> None:
    stream = ["--output-format", "stream-json", "--verbose"]
    first = claude("hello", args=stream)
    said = [line for line in user_notices(first) if "/agd-memory:review" in line]
    assert len(said) == 1, user_notices(first)
    assert "/agd-memory:install-cli" in said[0]
    again = claude("hello", args=stream)
    assert not [line for line in user_notices(again) if "/agd-memory:" in line], user_notices(again)


def test_doctor_shows_its_findings_also_when_something_needs_action(
    claude, fake_api, e2e_project
) -> None:
    broken = e2e_project.write_memory('@x-project desc="unterminated [#half-written]\n')
    fake_api.script(Reply.text("One file needs action."))
    run = claude("/agd-memory:doctor")  # exit status 1: the skill must still reach the model
    assert run.ok, run.diagnose()
    sent = skill_text(run)
    assert str(broken) in sent and "error" in sent, sent[-3000:]

    # the review list of a broken memory names the file too, instead of failing the command
    fake_api.script(Reply.text("The memory file needs a fix first."))
    run = claude("/agd-memory:review")
    assert run.ok, run.diagnose()
    assert "Review the waiting proposals" in skill_text(run), run.diagnose()


def test_history_finds_what_an_earlier_session_said(claude, fake_api, e2e_project, tmp_path) -> None:
    import subprocess
    import sys

    from e2e_harness import base_env

    def said(role: str, text: str, t: str) -> str:
        message = {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}]}
        return json.dumps({"type": role, "sessionId": "s-old", "timestamp": t, "message": message})

    transcript = tmp_path / "old-session.jsonl"
    transcript.write_text(
        said("user", "why did the nightly export stop on app-1?", "2026-11-02T10:00:00.000Z") + "\n"
        + said("assistant", "The cron entry was removed when the export moved to the RQ queue.",
               "2026-11-02T10:00:05.000Z") + "\n",
        encoding="utf-8",
    )  # fmt: skip
    env = {**base_env(e2e_project, fake_api.url), "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [sys.executable, "-m", "agd_memory.cli", "history", "import", str(transcript)],
        cwd=e2e_project.project, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and "1 sessions" in done.stdout, done.stdout + done.stderr

    fake_api.script(
        Reply.tool_use("Bash", {"command": f'{LAUNCHER} search --scope history "nightly export"'}),
        Reply.text("Found it."),
    )
    run = claude("/agd-memory:history nightly export")
    assert run.ok and not run.result.get("permission_denials"), run.diagnose()
    result = "\n".join(run.conversation[-1].tool_results())
    assert "s-old" in result and "nightly export" in result, result
