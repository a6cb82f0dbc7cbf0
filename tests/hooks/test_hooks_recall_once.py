"""A block auto-recall put in a session's conversation is named (id and desc), not
repeated, on a later prompt of that session; it comes whole again when its text changed,
after a compaction or /clear, and in another session. Each hook runs as a process, as
Claude Code runs it."""

from __future__ import annotations

import os
import time
from pathlib import Path

from hookutil import (
    PROJECT_MEMORY,
    STORED_FACT,
    context_of,
    load_payload,
    run_hook,
    write_layer,
)

from agd_memory.claude import injected

BODY = "never directly on 5432"
AGAIN = "Remind me, the staging Postgres goes through pgbouncer on which port?"


def prompt(project: Path, env: dict[str, str], text: str, session: str = "s-1") -> str:
    payload = load_payload("prompt-english", cwd=str(project), prompt=text, session_id=session)
    proc = run_hook("prompt", payload, env)
    assert proc.returncode == 0, proc.stderr
    return context_of(proc.stdout, "UserPromptSubmit")


def start(project: Path, env: dict[str, str], source: str, session: str = "s-1") -> None:
    # the captured startup payload; Claude Code sends the same with another source
    payload = load_payload("session-start-startup", cwd=str(project), session_id=session)
    payload["source"] = source
    assert run_hook("session-start", payload, env).returncode == 0


def test_the_second_prompt_names_the_block_without_its_text(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    assert BODY in prompt(project, hook_env, STORED_FACT)
    second = prompt(project, hook_env, AGAIN)
    assert BODY not in second
    assert "#project-staging-pgbouncer injected earlier in this conversation" in second
    # its desc stays, and the way to the text if a rewind took it away
    assert "#project-staging-pgbouncer: staging Postgres sits behind pgbouncer" in second
    assert "agd_memory_get returns it" in second
    # Another session's conversation does not hold it.
    assert BODY in prompt(project, hook_env, AGAIN, session="s-2")


def test_recall_repeat_injects_the_block_whole_every_time(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    env = {**hook_env, "AGD_RECALL_REPEAT": "1"}
    assert BODY in prompt(project, env, STORED_FACT)
    assert BODY in prompt(project, env, AGAIN)


def test_a_block_whose_text_changed_comes_again(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    prompt(project, hook_env, STORED_FACT)
    write_layer(hook_env, project, PROJECT_MEMORY.replace("from the ops box", "from the CI runner"))
    second = prompt(project, hook_env, AGAIN)
    assert BODY in second and "from the CI runner" in second
    assert "injected earlier" not in second


def test_compaction_and_clear_forget_what_was_injected_resume_does_not(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    prompt(project, hook_env, STORED_FACT)
    start(project, hook_env, "resume")  # a resumed session sends the earlier turns back
    assert BODY not in prompt(project, hook_env, AGAIN)
    for source in ("compact", "clear"):
        start(project, hook_env, source)
        assert BODY in prompt(project, hook_env, AGAIN), source


def test_a_session_id_that_is_not_a_plain_name_keeps_no_record(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    for _ in range(2):
        assert BODY in prompt(project, hook_env, STORED_FACT, session="../../escape")
    assert not (Path(hook_env["CLAUDE_PLUGIN_DATA"]) / injected.FOLDER).exists()


def test_session_start_removes_records_of_sessions_long_untouched(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    prompt(project, hook_env, STORED_FACT, session="old")
    prompt(project, hook_env, STORED_FACT, session="recent")
    folder = Path(hook_env["CLAUDE_PLUGIN_DATA"]) / injected.FOLDER
    stale = time.time() - (injected.KEEP_DAYS + 1) * 86400
    os.utime(folder / "old", (stale, stale))
    start(project, hook_env, "startup", session="new")
    assert sorted(p.name for p in folder.iterdir()) == ["recent"]


def test_a_record_about_to_pass_its_size_starts_over(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    record = Path(hook_env["CLAUDE_PLUGIN_DATA"]) / injected.FOLDER / "s-1"
    record.parent.mkdir(parents=True)
    record.write_text("x\tproject\t00000000\n" * (injected.MAX_BYTES // 19))
    assert record.stat().st_size > injected.MAX_BYTES - 19
    assert BODY in prompt(project, hook_env, STORED_FACT)
    assert record.stat().st_size < 100  # started over with this prompt's block
    assert BODY not in prompt(project, hook_env, AGAIN)


def test_a_block_cut_by_the_hook_limit_is_not_taken_as_held(project, hook_env) -> None:
    # a recall budget above Claude Code's limit on hook output: the long block is cut
    long_body = "The staging Postgres database sits behind pgbouncer on port 6432. " * 200
    write_layer(hook_env, project, PROJECT_MEMORY.replace(BODY, BODY + " " + long_body))
    env = {**hook_env, "AGD_RECALL_TOKEN_BUDGET": "20000"}
    first = prompt(project, env, STORED_FACT)
    assert "the rest was cut to fit the hook limit" in first
    assert "injected earlier" not in prompt(project, env, AGAIN)
