"""Claude Code transcript JSONL: what happened in a session, read incrementally.

A transcript is append-only (`--resume` and `/compact` append to the same file),
so it is read from a byte offset: only complete lines count, and the offset
after the last complete line is what the next distillation starts from. The
format is officially opaque: unknown record types and malformed lines are
skipped, never fatal.

Kept: what the user typed, what the assistant said, its tool calls (counted,
edits counted apart) and short tool results; only `user` and `assistant`
records count. Dropped: `isMeta` (slash-command caveats, skill bodies),
`isCompactSummary` (a model-written summary, not the user's words),
`isSidechain` (subagent turns), thinking blocks, every other record type (the
`api-request-blob` records repeat the whole request, prompt included, with
Claude Code's system reminders in the user's role; hook context arrives as
`attachment` records) and, inside messages, the text Claude Code injects:
`<system-reminder>`s, hook output, command wrappers and local-command output,
and its commit attribution lines. Text between `<private>` and `</private>`
never leaves this module.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

EDIT_TOOLS = frozenset(("Edit", "Write", "MultiEdit", "NotebookEdit"))
"""Tool names that change files: any of them makes a session worth distilling."""

READ_LIMIT = 64 * 1024 * 1024
"""Bytes of a transcript read at most per distillation (its newest part is kept)."""
# Per-turn caps, characters: the user's own words matter most.
USER_CHARS = 4000
ASSISTANT_CHARS = 2000
TOOL_CALL_CHARS = 240
TOOL_RESULT_CHARS = 300
# `<private>…</private>` in a message keeps that text out of the distiller (an unclosed
# tag hides the rest of the message).
PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
# Text Claude Code puts into a user message that the user did not type (an unclosed tag
# drops the rest of the message).
INJECTED = re.compile(
    r"<(system-reminder|user-prompt-submit-hook|local-command-stdout|local-command-stderr|"
    r"local-command-caveat|command-message|bash-stdout|bash-stderr)>.*?(?:</\1>|\Z)",
    re.DOTALL,
)
# Wrappers around what the user did type: `/name args` and `!command`.
TYPED = re.compile(r"<(command-name|command-args|bash-input)>(.*?)</\1>", re.DOTALL)
# Claude Code's attribution boilerplate in commit messages and PR bodies.
ATTRIBUTION = re.compile(
    r"^.*(?:Generated with \[?Claude Code|Co-Authored-By: Claude\b).*$\n?",
    re.IGNORECASE | re.MULTILINE,
)
# Input fields that say what a tool call was about, in the order they are shown.
TOOL_INPUT_KEYS = (
    "file_path",
    "notebook_path",
    "path",
    "command",
    "pattern",
    "query",
    "url",
    "description",
)


@dataclass(frozen=True)
class Turn:
    role: str
    """`user`, `assistant`, `tool` (a call) or `result` (a tool result)."""
    text: str


@dataclass
class Digest:
    """The part of a transcript between two byte offsets, reduced to what a distiller reads."""

    start: int
    """Byte offset the reading started at."""
    end: int
    """Byte offset just after the last complete line (where the next reading starts)."""
    turns: list[Turn] = field(default_factory=list)
    tool_uses: int = 0
    edits: int = 0
    user_words: int = 0
    bad_lines: int = 0
    skipped: int = 0
    """Bytes of new transcript left unread before `start` (more was new than `read` reads)."""

    @property
    def empty(self) -> bool:
        return not any(t.role in ("user", "assistant") for t in self.turns)


def read(path: str | Path, start: int = 0, limit: int = READ_LIMIT) -> Digest:
    """Parse the transcript from byte `start`; an incomplete last line is left for next time.

    At most `limit` bytes are read: when more is new, the oldest part is skipped (the
    count is in `skipped`) and reading begins at the first whole line of the last `limit`
    bytes. Raises OSError when the file cannot be read or is not a regular file.
    """
    part = records(path, start, limit)
    digest = Digest(start=part.start, end=part.end, skipped=part.skipped, bad_lines=part.bad_lines)
    for record in part.records:
        _take(record, digest)
    return digest


@dataclass
class Records:
    """The JSON records of a transcript between two byte offsets (`read`'s rules)."""

    start: int
    end: int
    skipped: int
    records: list[dict] = field(default_factory=list)
    bad_lines: int = 0


def records(path: str | Path, start: int = 0, limit: int = READ_LIMIT) -> Records:
    """The records from byte `start` to the last complete line, at most `limit` bytes
    (the newest part kept). Raises OSError when the file cannot be read or is not a
    regular file."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO must not block
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        begin = max(start, info.st_size - limit)
        fh.seek(begin)
        data = fh.read(limit)
    if begin > start:
        first = data.find(b"\n") + 1  # the line cut in two is not read (0: none is whole)
        data = data[first:] if first else b""
        begin += first
    cut = data.rfind(b"\n") + 1
    out = Records(start=begin, end=begin + cut, skipped=begin - start)
    for raw in data[:cut].splitlines():
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than Python parses
            out.bad_lines += 1
            continue
        if isinstance(record, dict):
            out.records.append(record)
    return out


def record_turns(record: dict, *, whole: bool = False) -> list[Turn]:
    """The turns one transcript record holds, after the same hygiene as `read`.

    `whole=True` keeps the user's and the assistant's text unclipped (the session
    history keeps what was said; the distiller's excerpt clips it)."""
    digest = Digest(start=0, end=0)
    _take(record, digest, whole=whole)
    return digest.turns


def _take(record: dict, digest: Digest, *, whole: bool = False) -> None:
    if record.get("isMeta") or record.get("isCompactSummary") or record.get("isSidechain"):
        return
    role = record.get("type")
    if role not in ("user", "assistant"):
        return
    message = record.get("message") if isinstance(record.get("message"), dict) else {}
    content = record.get("content", message.get("content"))
    if isinstance(content, str):
        _add_text(digest, "user" if role == "user" else "assistant", content, whole)
        return
    if not isinstance(content, list):
        return
    for part in content:
        if not isinstance(part, dict):
            continue
        ptype = part.get("type")
        if ptype == "text" and isinstance(part.get("text"), str):
            _add_text(digest, "user" if role == "user" else "assistant", part["text"], whole)
        elif ptype == "tool_use":
            name = str(part.get("name") or "?")
            digest.tool_uses += 1
            if name in EDIT_TOOLS:
                digest.edits += 1
            summary = _one_line(ATTRIBUTION.sub("", _tool_summary(part.get("input"))))
            digest.turns.append(Turn("tool", _clip(f"{name} {summary}", TOOL_CALL_CHARS)))
        elif ptype == "tool_result":
            text = _one_line(INJECTED.sub("", _result_text(part.get("content"))))
            if text:
                prefix = "error: " if part.get("is_error") else ""
                digest.turns.append(Turn("result", _clip(prefix + text, TOOL_RESULT_CHARS)))


def _add_text(digest: Digest, role: str, text: str, whole: bool = False) -> None:
    text = PRIVATE.sub("[private]", text)
    if role == "user":
        text = INJECTED.sub("", text)
        if TYPED.search(text):  # `/name args` or `!command`, on one line as it was typed
            text = " ".join(TYPED.sub(lambda m: m.group(2), text).split())
    else:
        text = ATTRIBUTION.sub("", text)
    text = text.strip()
    if not text:
        return
    if role == "user":
        digest.user_words += len(text.split())
    if not whole:
        text = _clip(text, USER_CHARS if role == "user" else ASSISTANT_CHARS)
    digest.turns.append(Turn(role, text))


def _tool_summary(args: object) -> str:
    if not isinstance(args, dict):
        return ""
    shown = [f"{k}={args[k]}" for k in TOOL_INPUT_KEYS if isinstance(args.get(k), (str, int))]
    return " ".join(shown)


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        ]
        return "\n".join(t for t in texts if isinstance(t, str))
    return ""


def _one_line(value: object) -> str:
    return " ".join(str(value).split())


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class Gate:
    """Whether a digest is worth a model call, and why (for the log)."""

    passed: bool
    reason: str


def gate(digest: Digest, *, min_edits: int, min_tool_uses: int) -> Gate:
    """The reference rule, thresholds configurable: enough edits OR enough tool uses.

    A threshold of 0 is always met; a digest with no user or assistant words never passes.
    """
    counts = f"{digest.edits} edits, {digest.tool_uses} tool uses, {digest.user_words} user words"
    if digest.empty:
        return Gate(False, f"nothing new in the transcript ({counts})")
    if digest.edits >= min_edits or digest.tool_uses >= min_tool_uses:
        return Gate(True, counts)
    return Gate(
        False, f"trivial session ({counts}; needs {min_edits} edits or {min_tool_uses} tool uses)"
    )


LABELS = {"user": "USER", "assistant": "ASSISTANT", "tool": "TOOL CALL", "result": "TOOL RESULT"}


def excerpt(digest: Digest, max_chars: int) -> str:
    """The session as labelled lines, at most `max_chars` characters.

    When it does not fit, the opening (where the task is stated, a fifth of the
    budget) and the most recent turns (where conclusions are) are kept, with a
    marker saying how many turns were left out.
    """
    lines = [f"{LABELS[t.role]}: {t.text}" for t in digest.turns]
    total = sum(len(line) + 1 for line in lines)
    if total <= max_chars:
        return "\n".join(lines)
    head_budget = max_chars // 5
    head: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > head_budget:
            break
        head.append(line)
        used += len(line) + 1
    tail: list[str] = []
    used_tail = 0
    tail_budget = max_chars - used - 60
    for line in reversed(lines[len(head) :]):
        if used_tail + len(line) + 1 > tail_budget:
            break
        tail.append(line)
        used_tail += len(line) + 1
    tail.reverse()
    omitted = len(lines) - len(head) - len(tail)
    return "\n".join([*head, f"[... {omitted} turns omitted ...]", *tail])
