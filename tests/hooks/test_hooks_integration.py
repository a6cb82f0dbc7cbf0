"""The hooks as Claude Code runs them: a fresh process per event, real memory files.

These use the real resolver, store, table of contents and recall, and the captured
payloads, so they check what a user gets, not what the adapter was told.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hookutil import (
    LAUNCHER,
    PROJECT_MEMORY,
    REPO,
    RUNNER,
    STORED_FACT,
    context_of,
    debug_log,
    layers,
    load_payload,
    run_hook,
    write_layer,
)

from agd_memory.settings import Settings

GLOBAL_MEMORY = """\
@meta format=agd version=1 [#meta]

@h1 Global memory [#root]

@x-user desc="prefers answers in Italian, code comments in English" created="2026-09-01" [#user-language]
~~~
Marco prefers explanations in Italian and code comments in English.
~~~
"""

NOTHING_STORED = "Write a short poem about autumn leaves falling in the rain"


def start(project: Path, env: dict[str, str], **kw) -> subprocess.CompletedProcess[str]:
    return run_hook(
        "session-start", load_payload("session-start-startup", cwd=str(project)), env, **kw
    )


def prompt(project: Path, env: dict[str, str], text: str) -> subprocess.CompletedProcess[str]:
    return run_hook("prompt", load_payload("prompt-english", cwd=str(project), prompt=text), env)


# -- SessionStart -------------------------------------------------------------------------


def test_session_start_injects_toc_of_both_layers(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    write_layer(hook_env, project, GLOBAL_MEMORY, "global")
    proc = start(project, hook_env)
    assert proc.returncode == 0, proc.stderr
    context = context_of(proc.stdout, "SessionStart")
    for block_id in ("feedback-squash-merge", "project-staging-pgbouncer", "user-language"):
        assert block_id in context
    assert "staging Postgres sits behind pgbouncer on port 6432" in context
    assert "never directly on 5432" not in context  # bodies stay out of the TOC


@pytest.mark.parametrize("source", ["startup", "resume", "compact"])
def test_session_start_answers_every_source(project, hook_env, source) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    payload = load_payload(f"session-start-{source}", cwd=str(project))
    proc = run_hook("session-start", payload, hook_env)
    assert "project-release-train" in context_of(proc.stdout, "SessionStart")


def test_session_start_through_the_shell_runner(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    env = dict(hook_env, CLAUDE_PLUGIN_ROOT=str(REPO))
    proc = start(project, env, via=RUNNER)
    assert "project-staging-pgbouncer" in context_of(proc.stdout, "SessionStart")


def test_project_comes_from_payload_cwd_not_process_cwd(project, tmp_path, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    payload = json.dumps(load_payload("session-start-startup", cwd=str(project))).encode()
    proc = subprocess.run(
        [sys.executable, str(LAUNCHER), "hook", "session-start"],
        input=payload,
        env=hook_env,
        cwd=elsewhere,
        capture_output=True,
        timeout=60,
    )
    assert "project-release-train" in context_of(proc.stdout.decode(), "SessionStart")


def test_session_start_silent_without_memory(project, hook_env) -> None:
    proc = start(project, hook_env)
    assert (proc.returncode, proc.stdout) == (0, "")


BROKEN = '@meta format=agd version=1 [#meta]\n\n@x-project desc="x" [#a]\n~~~\nunclosed fence\n'


def test_broken_project_file_leaves_global_layer(project, hook_env) -> None:
    bad = write_layer(hook_env, project, BROKEN)
    write_layer(hook_env, project, GLOBAL_MEMORY, "global")
    proc = start(project, hook_env)
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    context = data["hookSpecificOutput"]["additionalContext"]
    assert "user-language" in context
    assert context.startswith(f"The project memory file {bad} does not parse at line ")
    assert data["systemMessage"].startswith(
        f"agd-memory: the project layer is left out: memory file {bad} does not parse"
    )


def test_broken_only_file_is_told_not_silent(project, hook_env) -> None:
    bad = write_layer(hook_env, project, BROKEN)
    proc = start(project, hook_env)
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert str(bad) in data["systemMessage"]
    assert str(bad) in data["hookSpecificOutput"]["additionalContext"]


def test_unreadable_memory_is_silent(project, hook_env) -> None:
    path = layers(hook_env, project).project.path
    path.mkdir(parents=True)  # a folder where the file should be: unreadable as a file
    for event, payload in (
        ("session-start", load_payload("session-start-startup", cwd=str(project))),
        ("prompt", load_payload("prompt-english", cwd=str(project), prompt=STORED_FACT)),
    ):
        proc = run_hook(event, payload, hook_env)
        assert (proc.returncode, proc.stdout) == (0, ""), event
    assert f"{path}: not a file" in debug_log(hook_env)


def test_binary_garbage_memory_is_told(project, hook_env) -> None:
    path = layers(hook_env, project).project.path
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xff\xfe\x00\x01@x-\x00" * 100)
    proc = start(project, hook_env)
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert f"memory file {path} is not UTF-8" in data["systemMessage"]
    assert f"{path} cannot be read" in data["hookSpecificOutput"]["additionalContext"]


# -- UserPromptSubmit ---------------------------------------------------------------------


def test_prompt_about_stored_fact_injects_that_block(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    proc = prompt(project, hook_env, STORED_FACT)
    assert proc.returncode == 0, proc.stderr
    context = context_of(proc.stdout, "UserPromptSubmit")
    assert "#project-staging-pgbouncer" in context
    assert "never directly on 5432" in context
    assert "squash merge" not in context


def test_prompt_about_nothing_stored_is_silent(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    proc = prompt(project, hook_env, NOTHING_STORED)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_recall_debug_goes_to_stderr(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    env = dict(hook_env, AGD_RECALL_DEBUG="1")
    hit = prompt(project, env, STORED_FACT)
    assert re.search(r"injected 1 block\(s\): \['project-staging-pgbouncer'\]", hit.stderr)
    miss = prompt(project, env, NOTHING_STORED)
    assert miss.stdout == "" and "skip:" in miss.stderr


def test_legacy_user_prompt_field_still_recalls(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    payload = load_payload("prompt-legacy-user-prompt", cwd=str(project), user_prompt=STORED_FACT)
    proc = run_hook("prompt", payload, hook_env)
    assert "#project-staging-pgbouncer" in context_of(proc.stdout, "UserPromptSubmit")


def test_output_is_utf8_whatever_the_locale(project, hook_env) -> None:
    text = PROJECT_MEMORY.replace("every second Tuesday", "ogni secondo martedì — perché sì")
    write_layer(hook_env, project, text)
    env = dict(hook_env, LC_ALL="C", LANG="C", PYTHONIOENCODING="ascii")
    proc = subprocess.run(
        [sys.executable, str(LAUNCHER), "hook", "session-start"],
        input=json.dumps(load_payload("session-start-startup", cwd=str(project))).encode(),
        env=env,
        capture_output=True,
        timeout=60,
    )
    context = context_of(proc.stdout.decode("utf-8"), "SessionStart")
    assert "martedì — perché sì" in context


def test_malformed_stdin_is_silent(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    for raw in (b"", b"{oops", b"[]", b"\xff\xff"):
        proc = run_hook("prompt", raw, hook_env)
        assert (proc.returncode, proc.stdout) == (0, "")


# -- a large memory -----------------------------------------------------------------------


def big_memory(n: int) -> str:
    topics = ("deploy", "schema", "review", "naming", "release", "cache", "logging", "flags")
    out = ["@meta format=agd version=1 [#meta]", "", "@h1 Project memory [#root]", ""]
    for i in range(n):
        kind = ("x-project", "x-feedback", "x-reference", "x-user")[i % 4]
        topic = topics[i % len(topics)]
        status = " status=open" if i % 50 == 0 else ""
        out += [
            f'@{kind} desc="{topic} note number {i}"{status} created="2026-01-{1 + i % 28:02d}" '
            f"[#{kind[2:]}-{topic}-{i:05d}]",
            "~~~",
            f"Body of note {i} about {topic}: keep this detail in mind.",
            "~~~",
            "",
        ]
    return "\n".join(out)


def count_tokens(text: str) -> int:
    """cl100k when the offline vocabulary is installed, else a chars/2.8 upper estimate."""
    from agd import tokens

    return tokens.count(text) if tokens.is_exact() else (len(text) * 5 + 13) // 14


@pytest.mark.slow
def test_ten_thousand_blocks_respect_the_budget(project, hook_env) -> None:
    write_layer(hook_env, project, big_memory(10_000))
    env = dict(hook_env, AGD_TOC_TOKEN_BUDGET="1500")
    proc = start(project, env)
    assert proc.returncode == 0, proc.stderr
    context = context_of(proc.stdout, "SessionStart")
    assert count_tokens(context) <= 1500
    assert len(context) < 10_000
    # The rest is counted, not dropped silently: listed + "+N more" covers every entry.
    listed = [line for line in context.splitlines() if line.startswith("- #")]
    more = re.search(r"\+(\d+) more", context)
    assert more, context[-500:]
    assert len(listed) + int(more.group(1)) == 10_000
    # 200 entries are open, more than fit: open entries are the ones kept.
    assert listed and all("open" in line for line in listed)

    started = time.perf_counter()
    proc = prompt(project, hook_env, "what did we decide about the deploy note number 4242?")
    elapsed = time.perf_counter() - started
    assert proc.returncode == 0, proc.stderr
    if proc.stdout:
        context = context_of(proc.stdout, "UserPromptSubmit")
        settings = Settings.load(hook_env)
        assert len(context) <= settings.recall_token_budget * 4 + 400  # header and ids
    assert elapsed < 5, "the UserPromptSubmit hook timeout is 5 s"


# -- SessionEnd and the process itself ----------------------------------------------------


def test_session_end_returns_at_once_and_prints_nothing(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    payload = load_payload(
        "session-end-other", cwd=str(project), transcript_path=str(project / "missing.jsonl")
    )
    env = dict(hook_env, AGD_DISTILL_CLAUDE=str(project / "no-claude-here"))
    started = time.perf_counter()
    proc = run_hook("session-end", payload, env, via=RUNNER)
    assert time.perf_counter() - started < 1.5  # Claude Code's budget for all SessionEnd hooks
    assert (proc.returncode, proc.stdout) == (0, "")


HEAVY = (
    "mcp",
    "pydantic",
    "anyio",
    "markdown_it",
    "playwright",
    "httpx",
    "starlette",
    "asyncio",
    "tiktoken",  # loading the cl100k vocabulary alone costs 0.2-0.9 s
)


@pytest.mark.parametrize("event", ["session-start", "prompt"])
def test_hook_imports_nothing_heavy(project, hook_env, event) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    payload = load_payload(
        "session-start-startup" if event == "session-start" else "prompt-english",
        cwd=str(project),
        prompt=STORED_FACT,
    )
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", str(LAUNCHER), "hook", event],
        input=json.dumps(payload).encode(),
        env=hook_env,
        capture_output=True,
        timeout=60,
    )
    assert proc.stdout  # it did answer
    imported = {
        line.split("|")[-1].strip().split(".")[0]
        for line in proc.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))
