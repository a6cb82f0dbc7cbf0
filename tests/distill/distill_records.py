"""Builders of transcript records shaped like Claude Code's (2.1.3xx) JSONL, and a poll helper."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path

# --- transcript records -------------------------------------------------------------------


def _envelope(kind: str, message: dict, **extra: object) -> dict:
    return {
        "type": kind,
        "uuid": str(uuid.uuid4()),
        "parentUuid": None,
        "isSidechain": False,
        "sessionId": "s-1",
        "timestamp": "2026-11-30T08:00:00.000Z",
        "cwd": "/tmp/project",
        "version": "2.1.332",
        "userType": "external",
        "message": message,
        **extra,
    }


def user(text: str, **extra: object) -> dict:
    return _envelope("user", {"role": "user", "content": text}, **extra)


def say(text: str) -> dict:
    return _envelope(
        "assistant",
        {
            "id": f"msg_{uuid.uuid4().hex[:8]}",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": text}],
        },
    )


def tool(name: str, **tool_input: object) -> dict:
    return _envelope(
        "assistant",
        {
            "id": f"msg_{uuid.uuid4().hex[:8]}",
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": f"toolu_{uuid.uuid4().hex[:8]}",
                    "name": name,
                    "input": tool_input,
                }
            ],
        },
    )


def result(text: str) -> dict:
    return _envelope(
        "user",
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": text}],
        },
    )


def write_transcript(path: Path, records: list[dict], *, append: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a" if append else "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r) + "\n")
    return path


def edit_session(topic: str = "Postgres") -> list[dict]:
    """A substantial session: a decision stated by the user, two edits, a test run."""
    return [
        user(
            f"We decided to use {topic} for the job queue because SKIP LOCKED gives us safe concurrent workers."
        ),
        say("Understood. I will switch the queue module."),
        tool("Read", file_path="/tmp/project/queue.py"),
        result("def enqueue(job): ..."),
        tool("Edit", file_path="/tmp/project/queue.py", old_string="redis", new_string="pg"),
        result("The file has been updated."),
        tool(
            "Write",
            file_path="/tmp/project/migrations/001_jobs.sql",
            content="CREATE TABLE jobs ...",
        ),
        tool("Bash", command="pytest -q tests/test_queue.py"),
        result("5 passed in 0.4s"),
        say(f"Done: the queue now uses {topic} with SKIP LOCKED."),
    ]


def trivial_session() -> list[dict]:
    return [
        user("what does this function do?"),
        tool("Read", file_path="/tmp/project/a.py"),
        say("It adds two numbers."),
    ]


def wait_for(predicate: Callable[[], object], timeout: float = 20.0, step: float = 0.05) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"condition not met within {timeout}s")
